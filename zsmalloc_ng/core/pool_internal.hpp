// SPDX-License-Identifier: GPL-2.0
/*
 * The allocator core's private structures, shared by its files:
 *
 *   pool.cpp        life cycle, zspages, objects, map/unmap/write/store
 *   groups.cpp      fullness groups: lists, the in-use -> group table
 *   compaction.cpp  the two compaction loops, self-compaction
 *   stats.cpp       statistics
 *   check.cpp       the consistency checker (tests only)
 *   migrate.cpp     page migration and the deferred free of movable pages
 *   lru.cpp         the LRU and reclaim through an evict callback
 *
 * Object layout inside a zspage: object i starts at byte i * size of the
 * chain. Its first 8 bytes are the header:
 *   allocated: the address of its HandleSlot | kAllocatedTag (slots are
 *              16-aligned, so bit 0 is free),
 *   free:      (index of the next free object) << 1, kNoObj ends the list.
 * The caller's bytes follow the header, so a request of n bytes is served by
 * the class for n + 8. A huge class (one object per page) has no header: its
 * one handle lives in the descriptor.
 */
#ifndef ZSNG_POOL_INTERNAL_HPP
#define ZSNG_POOL_INTERNAL_HPP

#include "pool.hpp"

namespace zsng
{
/* End of a zspage's free list; fits the 31 bits left of the header word. */
constexpr u32 kNoObj = 0x7fffffffu;
constexpr ulong kAllocatedTag = 1;

/*
 * The list and the stats column of a zspage with a given in-use count. The
 * policies' group functions divide; a table per class makes the lookup on
 * every malloc and free two loads instead.
 */
struct GroupOf {
	u16 group;
	u16 shown;
};

/*
 * Each class starts a cache line (its first member is aligned so): CPUs
 * working in different classes must not write to one line (pool.hpp,
 * "Locks").
 */
constexpr ulong kCacheLine = 64;

/*
 * A size class: its geometry, its group lists and counters, and what may
 * be done to them, all under its lock (the methods below; pool.hpp,
 * "Locks"). Only the shrinker's count, can_compact(), reads without it.
 * The pool decides when to take the lock, which class, and what to do
 * with a zspage that became empty; the class keeps its lists straight.
 */
struct SizeClass {
	/* groups.cpp: list @zs where its in-use count puts it (not isolated) */
	void insert(Zspage *zs);
	/* ... and unlist it */
	void remove(Zspage *zs);
	/* after zs->inuse changed: relist a listed @zs; returns its group */
	u32 fix_group(Zspage *zs);
	/* the fullest zspage neither empty nor full, still listed, or nullptr */
	Zspage *find_fullest();
	/* compaction's destination (the fullest) and source (the emptiest),
	 * taken off their lists and marked isolated, or nullptr */
	Zspage *isolate_dst();
	Zspage *isolate_src();
	/* lists an isolated zspage again; returns its group (0: empty, free it) */
	u32 putback(Zspage *zs);

	/* pool.cpp: objects; obj_malloc() returns the index it took */
	u32 obj_malloc(Zspage *zs, HandleSlot *slot);
	void obj_free(Zspage *zs, u32 idx);
	/* the handle slot of object @idx, or nullptr if it is free */
	HandleSlot *alloced_slot(Zspage *zs, u32 idx) const;

	/* compaction.cpp: pages compaction could free; also without the lock */
	ulong can_compact() const;

	/*
	 * the geometry of the class's next zspage: short until long_after
	 * objects of its sizes are in use (held here or, shared tails, lent
	 * to a larger class of its run: pool.cpp)
	 */
	void next_geometry(u32 *pages, u32 *objs) const
	{
		bool is_long = read_once(shares_tails ? demand : obj_used) >=
			       long_after;

		*pages = is_long ? pages_per_zspage : short_pages;
		*objs = is_long ? objs_per_zspage : short_objs;
	}

	/* The class lock, or the pool's LRU lock (lru.cpp). */
	alignas(kCacheLine) void *lock;
	u32 size;
	u32 pages_per_zspage; /* the long geometry */
	u32 objs_per_zspage;
	u32 short_pages; /* growing chains (size_class.hpp); else the long */
	u32 short_objs;
	ulong long_after; /* objects in use before zspages are long */
	u32 nr_groups;
	bool huge;
	bool legacy_order; /* 6.1's "inuse optimisation" in insert() */
	u16 frees_unchecked; /* auto-compaction: frees since the pool check */
	u16 borrow_last; /* the largest class it may borrow from (itself: none) */
	bool shares_tails; /* growing chains and borrowing: pool.cpp */
	/* One allocation (init_class_groups()), starting at groups: */
	ListNode *groups; /* nr_groups list heads */
	u64 *nonempty; /* bit g set <=> groups[g] is not empty */
	ulong *group_count; /* zspages listed per shown group */
	GroupOf *group_of_inuse; /* objs_per_zspage + 1 entries */
	GroupOf *group_of_short; /* short_objs + 1 entries, for short ones */
	/* Stored with set_once(): the shrinker reads them without the lock. */
	ulong zspages;
	ulong objs_allocated; /* slots of all zspages, long and short */
	ulong pages_allocated;
	ulong obj_used;
	/* shares_tails: objects whose size is this class's, wherever held
	 * (changed with add_relaxed(), under no lock of its own) */
	ulong demand;
	ulong objs_moved;
	ulong pages_compacted;
};

static_assert(alignof(SizeClass) == kCacheLine &&
	      sizeof(SizeClass) % kCacheLine == 0);

struct Zspage {
	ListNode list; /* a group's list, or the pool's deferred list */
	u32 inuse;
	u32 freeobj;
	u16 group; /* the list it is on */
	u16 shown; /* the stats column it is counted in */
	u16 class_idx;
	bool isolated; /* taken off its list by compaction */
	bool freeing; /* on the deferred list: never migrated again */
	u32 mapcount; /* atomic */
	u16 nr_pages; /* the class's long or short geometry */
	u16 nr_objs;
	Pool *pool; /* for page migration, which starts from a page */
	HandleSlot *huge_slot;
	void *pages[]; /* nr_pages addresses */
};
/* The kernel sizes its descriptor caches by it (svc.h). */
static_assert(sizeof(Zspage) == ZSNG_ZSPAGE_HEAD_BYTES);

/*
 * An LRU pool's zspages carry this after their page addresses (pools
 * without ZSNG_POOL_LRU do not allocate it); lru.cpp. Under the lock.
 */
struct LruLink {
	ListNode node; /* the pool's LRU list; self-linked while reclaiming */
	Zspage *zs;
	HandleSlot *evicting; /* the handle evict() has now, or nullptr */
	bool evict_freed; /* ... freed meanwhile: reclaim gives the slot back */
	bool reclaiming; /* on no list: free() leaves the zspage alone */
};
inline LruLink *lru_link(Zspage *zs)
{
	return reinterpret_cast<LruLink *>(&zs->pages[zs->nr_pages]);
}
inline LruLink *lru_link_of(ListNode *n)
{
	return ZSNG_CONTAINER_OF(n, LruLink, node);
}

/* Where object @idx's bytes are: page index and offset in that page. */
struct ObjPos {
	u32 page;
	u32 off;
};

inline ObjPos obj_pos(const SizeClass *c, u32 idx)
{
	ulong byte = (ulong)idx * c->size;

	return { (u32)(byte >> kPageShift), (u32)(byte & (kPageSize - 1)) };
}

inline ulong *obj_header(const SizeClass *c, Zspage *zs, u32 idx)
{
	ObjPos p = obj_pos(c, idx);

	return reinterpret_cast<ulong *>(
		static_cast<char *>(zs->pages[p.page]) + p.off);
}

inline Zspage *zspage_of(ListNode *n)
{
	return ZSNG_CONTAINER_OF(n, Zspage, list);
}

/* The list and stats column @zs belongs in, by its own geometry. */
inline GroupOf group_of_zspage(const SizeClass *c, const Zspage *zs)
{
	return zs->nr_objs == c->objs_per_zspage ?
		       c->group_of_inuse[zs->inuse] :
		       c->group_of_short[zs->inuse];
}

/*
 * Fills @c from @geo and gives it its group lists, non-empty bitmap, stats
 * columns and in-use -> group table, all in one allocation that
 * free_class_groups() releases. False without memory.
 */
bool init_class_groups(SizeClass *c, const ClassGeometry &geo, Policy policy);
void free_class_groups(SizeClass *c);

} // namespace zsng

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * zsmalloc_ng: a zsmalloc-style allocator for compressed pages.
 *
 * Why: compressed pages come in every size from a few bytes to PAGE_SIZE. A
 * slab per size would waste the tail of each slab page and need high-order
 * pages. Like mm/zsmalloc.c, this allocator packs objects of one size class
 * back to back over a chain of order-0 pages (a "zspage"), objects may span
 * two pages, and callers hold opaque handles so that compaction can move
 * objects to free whole zspages.
 *
 * Data structures
 *
 *   Pool        the size-class table, the pool-wide counters (relaxed
 *               atomics), the deferred list of a movable pool and the LRU
 *               of a reclaiming one. Handle slots come from one cache all
 *               pools share (zsng_svc_slot_alloc()).
 *   SizeClass   geometry (size, pages/objects per zspage; with growing
 *               chains also a short geometry and the objects in use from
 *               which zspages are long, size_class.hpp), its lock, one
 *               list of zspages per fullness group (policy.hpp), a bitmap
 *               of the groups that are not empty, a table from in-use
 *               count to group (the policies' group functions divide, and
 *               every malloc and free asks), and counters. Each class
 *               starts on its own cache line.
 *   Zspage      a descriptor allocated beside its pages (a slab cache per
 *               chain length, svc.h): its own length and object count
 *               (the class's long or short geometry), the page addresses,
 *               inuse, the first free object index, the fullness group it
 *               is listed in, mapcount (mappers of its objects right now)
 *               and its pool. struct page is never touched: the C++ side
 *               cannot see it; a movable pool's pages record their zspage
 *               through the service layer (migrate.cpp).
 *   HandleSlot  what a handle points to: {zspage, object index, class}.
 *               Compaction rewrites zspage and index (within the class);
 *               the class is written once, before the handle is returned,
 *               and the handle (the slot's address) never changes.
 *
 * Where the rest is written down: the object layout in pool_internal.hpp,
 * allocation and mapping in pool.cpp, the fullness groups in groups.cpp
 * (the policies in policy.hpp), compaction and self-compaction in
 * compaction.cpp, page migration in migrate.cpp, the LRU and reclaim in
 * lru.cpp, statistics in stats.cpp, the consistency checker in check.cpp
 * (tests only: not in the product module).
 *
 * Locks
 *
 * The core's locks are spinlocks the service layer makes for a role
 * (svc.h, enum zsng_lock_role). A role is a lock class: lockdep in the
 * kernel sees one class per role, named as below (zsng_class_lock, ...),
 * not one for every lock the service layer makes, and the userspace build
 * checks the order of the roles on every lock taken (test_locks.cpp).
 *
 * zsng_class_lock (ZSNG_LOCK_CLASS): one per size class. It protects the
 * class's lists and counters, every field of its zspages' descriptors
 * except mapcount, the handle slots of its objects and their in-band
 * headers: what struct SizeClass's methods (pool_internal.hpp) touch, all
 * called with it held. An object never leaves its class (compaction moves
 * it between zspages of the class), so the class of a handle is known
 * without a lock (HandleSlot::class_idx) and free(), map() and write()
 * take only that class's lock to read where the object is now. Nothing
 * holds two class locks at once, nor two locks of any one role, so no
 * path needs lockdep's nesting annotation (spin_lock_nested()); one that
 * did would have to say so in svc.h first.
 *
 * Why per class: zram's and zswap's stores and frees are spread over
 * every class, by the compressibility of the pages. With one pool lock (as
 * Debian's 6.1 zsmalloc) every store and free of every CPU queues on one
 * cache line; on a 64-CPU machine swapping at
 * a few million pages a second that lock, not the copying, is the limit.
 * Hold times, counted in this code's loads and stores at ~1 ns each when
 * the lines are in cache: malloc from a listed zspage ~40 (find the
 * fullest group: one word scan; pop the free list; relist if the group
 * changed), free ~35, map's pin ~10. A compressed-page workload spreads
 * over ~60 busy classes, so 64 CPUs put ~1 CPU per class on average and
 * a lock is held ~5% of the time at 1M operations/s per class: waits are
 * rare and short. One pool lock at the same load would be held for
 * 60 x 5% = 300% of the time, that is never free. What still shares a
 * line: the pool's page counter (one relaxed atomic add per zspage
 * allocated or freed, not per object) and the handle slab, per-CPU in
 * the kernel.
 *
 * The other two roles, pool-wide, neither held while a class lock is
 * taken:
 *
 *   zsng_deferred_lock (ZSNG_LOCK_DEFERRED)
 *                   a movable pool's deferred list and its counts
 *                   (migrate.cpp): a leaf, taken under a class lock (or
 *                   the LRU lock) when a free must wait for a page lock.
 *   zsng_lru_lock (ZSNG_LOCK_LRU)
 *                   a reclaiming pool (ZSNG_POOL_LRU, lru.cpp) orders
 *                   zspages of every class in one list, and reclaim goes
 *                   from the list to a zspage's class. Such a pool uses
 *                   its LRU lock as every class's lock: one lock, as
 *                   before, and no zsng_class_lock. zram's pools have no
 *                   LRU.
 *
 * Order (svc.h lists the roles in it):
 *
 *   map area (per-CPU local_lock)
 *     ->  zsng_class_lock or zsng_lru_lock
 *           ->  zsng_deferred_lock
 *           ->  a zspage's mapcount (atomic, waited on)
 *   page lock (a migrator's)  ->  zsng_class_lock or zsng_lru_lock
 *
 * A pool's two work items are lockdep classes too, one per kind
 * (zsng_deferred_free_work, zsng_auto_compact_work: kernel/work.c); no
 * lock of ours is held while one is flushed or cancelled.
 *
 * The page lock is the kernel's, held while it isolates or migrates one of
 * a movable pool's pages; nothing under a class lock waits for one
 * (migrate.cpp: freeing only tries them and defers).
 *
 * The map area is the per-CPU buffer of zsng_svc_map_begin(): map(),
 * write() and store() take it first (it pins the CPU, so the mapper does
 * not sleep until unmap) and only then the class lock, briefly, to read
 * the handle slot and raise the zspage's mapcount; unmap drops the
 * mapcount and then the map area without a lock. Nothing takes the map
 * area under a class lock.
 *
 * store() (malloc + write) raises the mapcount of the new object's zspage
 * before it drops the lock it allocated under, so it copies the bytes
 * after one trip through the lock. Compaction holds the class lock and
 * waits for a source zspage's mapcount to reach zero before moving its
 * objects: new mappers need the class lock, so they cannot enter, and
 * existing mappers do not sleep (their map area pins the CPU), so the wait
 * is short.
 *
 * What is not under a lock: the shrinker's count (compactable_pages())
 * reads each class's zspage and object counts as relaxed atomics, which
 * their writers store as such under the class lock; the pool's page
 * total is a relaxed counter. A zspage that became empty is unlinked
 * under the class lock and its pages and descriptor are given back after
 * the lock is dropped (free_zspage() -> release_list()): the page
 * allocator's own locks are never taken under ours.
 */
#ifndef ZSNG_POOL_HPP
#define ZSNG_POOL_HPP

#include "policy.hpp"
#include "size_class.hpp"

namespace zsng
{
enum class MapMode : int {
	RW = ZSNG_MM_RW,
	RO = ZSNG_MM_RO,
	WO = ZSNG_MM_WO,
};
static_assert((int)MapMode::WO == ZSNG_MM_WO &&
	      (int)MapMode::RO == ZSNG_MM_RO && (int)MapMode::RW == ZSNG_MM_RW);

struct Zspage;
struct SizeClass;

struct HandleSlot {
	Zspage *zspage;
	u32 idx;
	/* written before the handle is returned, never again: */
	u16 class_idx; /* the class that holds the object */
	u16 origin_idx; /* the class of its size (a borrower's own) */
};
/* The tag bit of an allocated object's header needs the alignment too. */
static_assert(sizeof(HandleSlot) <= ZSNG_SLOT_SIZE &&
	      alignof(HandleSlot) <= ZSNG_SLOT_SIZE);

/* The statistics are the boundary header's structs, filled in place. */
using ClassStats = zsng_class_stats;
using PoolStats = zsng_pool_stats;
static_assert(sizeof(ClassStats::groups) / sizeof(ClassStats::groups[0]) ==
	      kMaxShownGroups);

class Pool {
    public:
	/*
	 * A pool, or nullptr with -ZSNG_EINVAL (policy, chain length or flags
	 * out of range: checked here and nowhere else) or -ZSNG_ENOMEM in
	 * *@err. @flags: ZSNG_POOL_*.
	 */
	static Pool *create(Policy policy, u32 max_pages, u32 flags = 0,
			    int *err = nullptr);
	/* May sleep (movable pools wait for page locks, migrate.cpp). */
	void destroy();

	/* A handle, or -ZSNG_EINVAL / -ZSNG_ENOMEM as an unsigned long. */
	ulong malloc(ulong size, u32 gfp);
	void free(ulong handle);
	void *map(ulong handle, MapMode mode);
	void unmap(ulong handle);
	/* Copies @len bytes into the object: no bounce buffer when it spans. */
	void write(ulong handle, const void *src, ulong len);
	/*
	 * malloc(@len) + write(@len bytes of @src) with one trip through the
	 * pool lock: how zram_ng stores a compressed page. May sleep as
	 * malloc() may (per @gfp), never while copying.
	 */
	ulong store(const void *src, ulong len, u32 gfp);

	ulong compact();
	/* Waits until no compaction the pool started by itself is pending. */
	void settle();
	ulong compact_class(u32 class_idx);
	ulong compactable_pages();

	ulong total_pages() const
	{
		return read_once(pages_used_);
	}
	ulong huge_class_size() const
	{
		return huge_class_size_;
	}
	Policy policy() const
	{
		return policy_;
	}
	u32 nr_classes() const
	{
		return nr_classes_;
	}
	/* The distinct class that serves a request of @size bytes. */
	u32 class_index(ulong size) const;
	void class_stats(u32 idx, ClassStats *out);
	void stats(PoolStats *out);
	/*
	 * check.cpp, tests only (the kernel's testing build, userspace): the
	 * in-use counts of a class's zspages, for the experiment's oracle;
	 * every invariant checked, false (and a warning) on the first break.
	 */
	u32 class_inuse_counts(u32 idx, u32 *out, u32 max);
	bool check_consistency();

	/* Page migration (migrate.cpp): what the service layer calls. */
	static bool page_isolate(Zspage *zs);
	static int page_migrate(Zspage *zs, void *src, void *dst,
				bool may_wait);
	bool movable() const
	{
		return movable_;
	}

	/*
	 * Reclaim (ZSNG_POOL_LRU; lru.cpp): evicts the objects of the
	 * least recently allocated zspage through @evict, which must free
	 * each handle it succeeds on. Returns the pages freed, -ZSNG_EAGAIN
	 * when kReclaimTries zspages kept objects, -ZSNG_EINVAL for a pool
	 * without an LRU or with nothing to reclaim. May sleep if @evict does.
	 */
	using EvictFn = int (*)(void *ctx, ulong handle);
	long reclaim(EvictFn evict, void *ctx);

    private:
	Pool() = default;
	bool init(Policy policy, u32 max_pages, u32 flags);
	bool init_classes(const ClassGeometry *geo, u32 nr);
	void init_borrow();
	SizeClass *grow_class(SizeClass *c);
	Zspage *borrow_slot(SizeClass *c, HandleSlot *slot, bool pinned,
			    SizeClass **from);

	bool init_class_locks();
	Zspage *alloc_zspage(SizeClass *c, u32 gfp);
	void free_zspage(SizeClass *c, Zspage *zs, ListNode *release);
	void release_list(SizeClass *c, ListNode *release);
	void release_pages(Zspage *zs);
	Zspage *alloc_desc(u32 pages, u32 gfp);
	void free_desc(Zspage *zs);
	int migrate(Zspage *zs, void *src, void *dst, bool may_wait);
	static void run_deferred(void *pool);
	void free_deferred();
	void wait_unmapped(Zspage *zs);
	Zspage *pin(HandleSlot *slot, u32 *idx);
	void unpin(Zspage *zs);
	ulong alloc_object(ulong size, u32 gfp, Zspage **pinned);
	void write_pinned(Zspage *zs, u32 idx, const void *src, ulong len);

	void move_object(SizeClass *c, Zspage *src, u32 idx, Zspage *dst);

	void lru_touch(Zspage *zs);
	Zspage *lru_take();
	long reclaim_zspage(Zspage *zs, EvictFn evict, void *ctx);
	bool auto_compact_due(SizeClass *c, bool *check_pool);
	bool auto_compact_pool_due();
	void kick_auto_compact();
	static void run_auto_compact(void *pool);

	ulong release_src(SizeClass *c, Zspage *src, ListNode *release);
	void yield_lock(SizeClass *c, ListNode *release);
	ulong compact_reworked(SizeClass *c, ListNode *release);
	ulong compact_legacy(SizeClass *c, ListNode *release);
	ulong compact_range(u32 lo, u32 hi);

	struct CheckTotals {
		ulong pages; /* of the zspages listed or reclaiming */
		ulong lru_listed; /* zspages */
		ulong reclaiming; /* pages */
		ulong used, demand; /* objects held, of the classes' sizes */
	};
	bool check_class(SizeClass *c, u32 i, CheckTotals *t);
	bool check_deferred(ulong *pages);
	bool check_lru(const CheckTotals *t);

	Policy policy_ = Policy::Ratio;
	u32 nr_classes_ = 0;
	SizeClass *classes_ = nullptr; /* cache-line aligned, in classes_mem_ */
	void *classes_mem_ = nullptr;
	u16 slot_to_class_[kNrSizeSlots] = {};
	ulong huge_class_size_ = 0;
	ulong pages_used_ = 0;
	ulong pages_compacted_ = 0;
	ulong objs_moved_ = 0;
	int compacting_ = 0;
	/* Page migration (migrate.cpp); list and counts: deferred_lock_. */
	bool movable_ = false;
	void *deferred_lock_ = nullptr;
	void *deferred_work_ = nullptr;
	ListNode deferred_ = {}; /* zspages whose pages wait for their locks */
	ulong pages_deferred_ = 0;
	ulong frees_deferred_ = 0;
	ulong pages_migrated_ = 0; /* atomic */
	ulong migrate_refused_ = 0; /* atomic */
	/*
	 * Reclaim (lru.cpp) and self-compaction (compaction.cpp); the LRU, the
	 * reclaiming list and the counts under lru_lock_, which is every
	 * class's lock.
	 */
	u32 flags_ = 0;
	bool lru_ = false;
	void *lru_lock_ = nullptr;
	bool auto_compact_ = false;
	bool growing_ = false; /* ZSNG_POOL_GROWING_CHAINS */
	bool borrow_ = false; /* ZSNG_POOL_BORROW_SLOTS */
	/* borrow_ && growing_: pool.cpp, "Shared tails" (and each class's copy,
	 * for SizeClass::next_geometry()) */
	bool shares_tails_ = false;
	ListNode lru_list_ = {}; /* head: newest allocation; tail: reclaimed */
	ListNode reclaiming_ = {}; /* LruLinks of the zspages being reclaimed */
	void *compact_work_ = nullptr;
	ulong pages_reclaiming_ = 0;
	ulong pages_reclaimed_ = 0;
	ulong objs_evicted_ = 0;
	ulong evict_failed_ = 0;
	ulong auto_compactions_ = 0; /* atomic */
	ulong slots_borrowed_ = 0; /* atomic */
	/* kick_auto_compact()'s stamps (zsng_svc_now_ms(), 0: none); atomic */
	u64 compact_due_since_ = 0;
	u64 compact_deferred_at_ = 0;
};

} // namespace zsng

#endif

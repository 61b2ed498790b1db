// SPDX-License-Identifier: GPL-2.0
/*
 * zsmalloc_ng: a zsmalloc-style allocator for compressed pages, which come
 * in every size up to PAGE_SIZE. As in mm/zsmalloc.c, objects of one size
 * class are packed back to back over a chain of order-0 pages (a "zspage"),
 * may span two pages, and are named by opaque handles, so that compaction
 * can move them to free whole zspages: no high-order pages, no slab tails.
 *
 * Data structures (the object layout and the files: pool_internal.hpp)
 *
 *   Pool        the class table, pool-wide counters (relaxed atomics), a
 *               movable pool's deferred list, a reclaiming pool's LRU.
 *   SizeClass   geometry (size_class.hpp), its lock, a zspage list per
 *               fullness group (policy.hpp), a bitmap of the non-empty
 *               groups, an in-use -> group table (the policies divide; every
 *               malloc and free asks), counters; a cache line of its own.
 *   Zspage      a descriptor beside its pages (svc.h): its length and object
 *               count, page addresses, inuse, first free object, group,
 *               mapcount (its objects' mappers right now) and pool. struct
 *               page is never touched; a movable pool's pages name their
 *               zspage through the service layer (migrate.cpp).
 *   HandleSlot  {zspage, index, class}, what a handle points to (one cache
 *               for all pools). Compaction rewrites zspage and index; class
 *               is set before the handle is returned; a handle never changes.
 *
 * Locks
 *
 * Spinlocks the service layer makes for a role (svc.h, zsng_lock_role), each
 * role a lockdep class; the userspace build checks their order on every lock
 * taken (test_locks.cpp). Nothing holds two locks of one role, so no path
 * needs spin_lock_nested().
 *
 *   zsng_class_lock     per size class: its lists and counters, its zspages'
 *                       descriptors but mapcount, its objects' handle slots
 *                       and headers (SizeClass's methods). An object never
 *                       leaves its class, so free(), map() and write() take
 *                       only the lock HandleSlot::class_idx names. Per class,
 *                       as stores and frees spread over every class: one
 *                       pool lock, not the copying, would limit a many-CPU
 *                       machine (Documentation/zsmalloc_ng.rst, "Locking").
 *   zsng_deferred_lock  a movable pool's deferred list (migrate.cpp): a leaf.
 *   zsng_lru_lock       a reclaiming pool's LRU of zspages of every class
 *                       (ZSNG_POOL_LRU, lru.cpp), also every class's lock.
 *
 *   map area (per-CPU local_lock)
 *     ->  zsng_class_lock or zsng_lru_lock
 *           ->  zsng_deferred_lock
 *           ->  a zspage's mapcount (atomic, waited on)
 *   page lock (a migrator's)  ->  zsng_class_lock or zsng_lru_lock
 *
 * map(), write() and store() take the map area (it pins the CPU until unmap)
 * and then the class lock only to read the slot and raise the mapcount;
 * store() raises it before it drops the lock it allocated under. Compaction
 * holds the class lock and waits for a source's mapcount to reach 0: new
 * mappers need the lock, existing ones do not sleep. Under our locks
 * nothing waits for a page lock (freeing only tries them: migrate.cpp), nor
 * gives pages or descriptors back (an emptied zspage is unlinked under the
 * lock, released after it: release_list()), nor flushes or cancels a work
 * item (kernel/work.c: a lockdep class per kind). The shrinker's count reads
 * the class counters without the lock: relaxed atomics, stored under it.
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

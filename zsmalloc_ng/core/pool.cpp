// SPDX-License-Identifier: GPL-2.0
/*
 * zsmalloc_ng allocator core: pool life cycle, zspages, objects and their
 * access. The overview (data structures, lock order) is at the top of
 * pool.hpp, the object layout in pool_internal.hpp.
 *
 * A pool is built by create() -> init(): the class table, per class one
 * allocation for its groups (groups.cpp), then the locks. Any failure
 * returns to create(), which calls destroy(): destroy() frees exactly what
 * exists, so init() has no unwind path.
 *
 * malloc() takes a slot from the class's fullest non-full zspage, or
 * allocates a new zspage outside the class lock (page allocation may
 * sleep) and lists it. free() of a zspage's last object unlinks it under
 * the class lock and gives its pages back after dropping it. map() pins
 * the object's zspage (mapcount) so that compaction leaves it alone; an
 * object that spans two pages is assembled in the per-CPU map area and
 * written back on unmap unless it was mapped read-only. write() and
 * store() copy into the chain directly.
 */
#include "pool_internal.hpp"

namespace zsng
{
/* Copies @len bytes between a zspage's chain at byte @at and @buf. */
static void chain_copy(Zspage *zs, ulong at, char *buf, ulong len,
		       bool to_chain)
{
	while (len) {
		u32 page = (u32)(at >> kPageShift);
		u32 off = (u32)(at & (kPageSize - 1));
		ulong n = min_of(len, kPageSize - off);
		char *p = static_cast<char *>(zs->pages[page]) + off;

		if (to_chain)
			__builtin_memcpy(p, buf, n);
		else
			__builtin_memcpy(buf, p, n);
		at += n;
		buf += n;
		len -= n;
	}
}

Pool *Pool::create(Policy policy, u32 max_pages, u32 flags, int *err)
{
	int dummy;
	void *mem;

	if (!err)
		err = &dummy;
	*err = -ZSNG_EINVAL;
	if (!policy_valid((int)policy) || max_pages < ZSNG_MIN_CHAIN_PAGES ||
	    max_pages > ZSNG_MAX_CHAIN_PAGES || (flags & ~ZSNG_POOL_FLAGS))
		return nullptr;
	*err = -ZSNG_ENOMEM;
	mem = zsng_svc_zalloc(sizeof(Pool), ZSNG_GFP_KERNEL);
	if (!mem)
		return nullptr;
	Pool *pool = new (mem) Pool();
	if (!pool->init(policy, max_pages, flags)) {
		pool->destroy();
		return nullptr;
	}
	*err = 0;
	return pool;
}

bool Pool::init(Policy policy, u32 max_pages, u32 flags)
{
	ClassGeometry *geo = static_cast<ClassGeometry *>(zsng_svc_zalloc(
		sizeof(ClassGeometry) * kNrSizeSlots, ZSNG_GFP_KERNEL));
	bool ok;

	policy_ = policy;
	flags_ = flags;
	movable_ = flags & ZSNG_POOL_MOVABLE;
	lru_ = flags & ZSNG_POOL_LRU;
	auto_compact_ = flags & ZSNG_POOL_AUTO_COMPACT;
	growing_ = flags & ZSNG_POOL_GROWING_CHAINS;
	borrow_ = flags & ZSNG_POOL_BORROW_SLOTS;
	shares_tails_ = borrow_ && growing_;
	deferred_.init();
	lru_list_.init();
	reclaiming_.init();
	if (movable_) {
		deferred_lock_ = zsng_svc_lock_create(ZSNG_LOCK_DEFERRED);
		deferred_work_ = zsng_svc_work_create(ZSNG_WORK_DEFERRED_FREE,
						      run_deferred, this);
	}
	if (auto_compact_)
		compact_work_ = zsng_svc_work_create(ZSNG_WORK_AUTO_COMPACT,
						     run_auto_compact, this);
	ok = (!movable_ || (deferred_lock_ && deferred_work_)) &&
	     (!auto_compact_ || compact_work_) && geo &&
	     init_classes(geo, build_class_table(
				       max_pages, geo, slot_to_class_, growing_,
				       flags & ZSNG_POOL_LEAST_WASTE)) &&
	     init_class_locks();
	zsng_svc_free(geo);
	return ok;
}

/*
 * Every class its own lock, or an LRU pool's one lock for all (pool.hpp,
 * "Locks"). destroy() frees the locks that are set.
 */
bool Pool::init_class_locks()
{
	if (lru_) {
		lru_lock_ = zsng_svc_lock_create(ZSNG_LOCK_LRU);
		if (!lru_lock_)
			return false;
	}
	for (u32 i = 0; i < nr_classes_; i++) {
		classes_[i].lock = lru_ ? lru_lock_ :
					  zsng_svc_lock_create(ZSNG_LOCK_CLASS);
		if (!classes_[i].lock)
			return false;
	}
	return true;
}

/* On failure destroy() frees whatever was set up: every step is counted. */
bool Pool::init_classes(const ClassGeometry *geo, u32 nr)
{
	ulong addr;

	/* Aligned by hand: zalloc() promises no more than a pointer's. */
	classes_mem_ = zsng_svc_zalloc(sizeof(SizeClass) * nr + kCacheLine - 1,
				       ZSNG_GFP_KERNEL);
	if (!classes_mem_)
		return false;
	addr = reinterpret_cast<ulong>(classes_mem_);
	addr = (addr + kCacheLine - 1) & ~(kCacheLine - 1);
	classes_ = reinterpret_cast<SizeClass *>(addr);
	for (nr_classes_ = 0; nr_classes_ < nr; nr_classes_++) {
		SizeClass *c = &classes_[nr_classes_];

		if (!init_class_groups(c, geo[nr_classes_], policy_))
			return false;
		/* The smallest request that lands in a huge class. */
		if (c->huge && !huge_class_size_)
			huge_class_size_ = (c > classes_ ? c[-1].size : 0) + 1 -
					   kObjHeaderSize;
	}
	init_borrow();
	return true;
}

/*
 * Borrowed slots (ZSNG_POOL_BORROW_SLOTS)
 *
 * Classes are as fine as their (long, short) geometries allow, finer than
 * 6.1 zsmalloc's, which merges every run of sizes that pack alike in its
 * 4-page chains into one class of the run's largest size. Each class has
 * a last zspage partly filled, so finer classes hold more such tails
 * than the stock's one class of the run (Documentation/zsmalloc_ng.rst,
 * "Borrowed slots"). So an object whose class has no free slot first
 * takes one of a larger class of its run that has one (the run: the
 * classes with the same geometry at ZSNG_MIN_CHAIN_PAGES pages), and a
 * zspage is allocated only when none has: the run shares its tails, as
 * the stock's one class does, and an object never takes more room than
 * the stock's class would give it. Only a slot whose zspage costs no more
 * pages per object than the borrower's own next zspage would is taken:
 * in a class's short regime (growing chains) the run's zspages are alike
 * and borrowing only saves tails; a long zspage of the borrower packs its
 * objects tighter than the lender's slots would, and there borrowing
 * would cost pages (tests/test_borrow.cpp). The borrowed object belongs
 * to the larger class from then on (its handle slot says so): it is freed,
 * mapped, compacted and migrated there. A free slot is looked for only
 * where the lockless counts say there is one, one class lock at a time,
 * none held meanwhile.
 *
 * Shared tails (growing chains and borrowing both on: 6.1's pools).
 * Borrowing alone would let each class of a run allocate a short zspage
 * of its own when the run has no free slot, and keep its unfilled part:
 * one tail per class where the stock has one per run. So while a class's
 * next zspage is short, the zspage is allocated in the largest class of
 * its run whose next zspage is short too (the run's short zspages are
 * alike: same pages, same objects), and the object borrows its first slot:
 * the classes of a run fill one tail, as the stock's one class does. A class
 * goes long when the objects of its own sizes (demand: held by it or lent
 * to a larger class; the handle slot's origin_idx says whose they are)
 * reach long_after; from then its long zspages are its own, and a larger
 * class's short slot is dearer than its own long one, so it borrows no
 * more.
 */
static bool same_short_geometry(u32 a, u32 b)
{
	u32 pa = pages_per_zspage_for(a, ZSNG_MIN_CHAIN_PAGES);
	u32 pb = pages_per_zspage_for(b, ZSNG_MIN_CHAIN_PAGES);

	return pa == pb && pa * kPageSize / a == pb * kPageSize / b;
}

void Pool::init_borrow()
{
	for (u32 i = 0; i < nr_classes_; i++) {
		u32 j = i;

		while (borrow_ && !classes_[i].huge && j + 1 < nr_classes_ &&
		       !classes_[j + 1].huge &&
		       same_short_geometry(classes_[i].size,
					   classes_[j + 1].size))
			j++;
		classes_[i].borrow_last = (u16)j;
		classes_[i].shares_tails = shares_tails_;
	}
}

/*
 * The class whose new zspage an object of @c takes when no class of its
 * run has a free slot (shared tails, above): the largest of the run whose
 * next zspage is short, if @c's is short; else @c. Lockless reads: a
 * stale count only picks another class of the run.
 */
SizeClass *Pool::grow_class(SizeClass *c)
{
	u32 ci = (u32)(c - classes_), pages, objs;

	if (!c->shares_tails || c->borrow_last == ci)
		return c;
	c->next_geometry(&pages, &objs);
	if (pages == c->pages_per_zspage && objs == c->objs_per_zspage)
		return c; /* long (or never short) */
	for (u32 j = c->borrow_last; j > ci; j--) {
		u32 jp, jo;

		classes_[j].next_geometry(&jp, &jo);
		if (jp == pages && jo == objs)
			return &classes_[j];
	}
	return c;
}

/*
 * A free slot of a larger class of @c's run for @slot: the zspage, with
 * its class in *@from, locked (and the map area taken when @pinned), or
 * nullptr with nothing held.
 */
Zspage *Pool::borrow_slot(SizeClass *c, HandleSlot *slot, bool pinned,
			  SizeClass **from)
{
	/* what @c's own next zspage would cost per object */
	u32 pages, objs;

	c->next_geometry(&pages, &objs);

	for (u32 bi = (u32)(c - classes_) + 1; bi <= c->borrow_last; bi++) {
		SizeClass *b = &classes_[bi];
		Zspage *zs;

		if (read_once(b->objs_allocated) <= read_once(b->obj_used))
			continue;
		if (pinned)
			zsng_svc_map_begin();
		zsng_svc_lock(b->lock);
		zs = b->find_fullest();
		/* only a slot that costs no more pages than @c's own would */
		if (zs &&
		    (ulong)zs->nr_pages * objs <= (ulong)pages * zs->nr_objs) {
			slot->class_idx = (u16)bi;
			b->obj_malloc(zs, slot);
			b->fix_group(zs);
			if (lru_)
				lru_touch(zs);
			add_relaxed(slots_borrowed_, 1);
			*from = b;
			return zs;
		}
		zsng_svc_unlock(b->lock);
		if (pinned)
			zsng_svc_map_end();
	}
	return nullptr;
}

void Pool::destroy()
{
	/* A self-compaction may be running: let it finish, start no other. */
	if (compact_work_)
		zsng_svc_work_destroy(compact_work_);
	compact_work_ = nullptr;
	for (u32 i = 0; i < nr_classes_; i++) {
		SizeClass *c = &classes_[i];
		ListNode release;

		/* init() failed before this class had a lock: nothing listed. */
		if (!c->lock)
			continue;
		release.init();
		/* A migrator may still reach a movable pool's zspages: lock. */
		zsng_svc_lock(c->lock);
		/* nr_classes_ counts only the classes init finished. */
		for (u32 g = 0; g < c->nr_groups; g++) {
			while (!c->groups[g].empty()) {
				Zspage *zs = zspage_of(c->groups[g].next);

				zsng_svc_log(
					"zsmalloc_ng: destroying a pool with live objects");
				/* Free the leaked handles too: nothing else will. */
				for (u32 idx = 0; idx < zs->nr_objs; idx++) {
					HandleSlot *slot =
						c->alloced_slot(zs, idx);

					if (slot)
						zsng_svc_slot_free(slot);
				}
				c->remove(zs);
				set_once(c->obj_used, c->obj_used - zs->inuse);
				/* Leaked by the user, already reported: not a bug here. */
				zs->inuse = 0;
				free_zspage(c, zs, &release);
			}
		}
		zsng_svc_unlock(c->lock);
		release_list(c, &release);
	}
	/* Pages a migrator had locked: wait for them (migrate.cpp). */
	if (deferred_work_) {
		zsng_svc_work_destroy(deferred_work_);
		free_deferred();
	}
	for (u32 i = 0; i < nr_classes_; i++) {
		free_class_groups(&classes_[i]);
		if (!lru_ && classes_[i].lock)
			zsng_svc_lock_destroy(classes_[i].lock);
	}
	zsng_svc_free(classes_mem_);
	if (lru_lock_)
		zsng_svc_lock_destroy(lru_lock_);
	if (deferred_lock_)
		zsng_svc_lock_destroy(deferred_lock_);
	this->~Pool();
	zsng_svc_free(this);
}

u32 Pool::class_index(ulong size) const
{
	if (size == 0 || size > kPageSize)
		return nr_classes_;
	size += kObjHeaderSize;
	if (size > kPageSize)
		return nr_classes_ - 1; /* the huge class */
	return slot_to_class_[size_slot(size)];
}

/* ---- zspages ------------------------------------------------------------ */

/*
 * Without the class lock: a growing class (size_class.hpp) takes a short
 * zspage while it holds fewer than long_after objects. obj_used is read
 * as the shrinker reads it; a stale value only picks the other length.
 */
Zspage *Pool::alloc_zspage(SizeClass *c, u32 gfp)
{
	u32 pages, objs;
	Zspage *zs;

	c->next_geometry(&pages, &objs);
	zs = alloc_desc(pages, gfp);
	if (!zs)
		return nullptr;
	zs->nr_pages = (u16)pages;
	zs->nr_objs = (u16)objs;
	for (u32 i = 0; i < pages; i++) {
		zs->pages[i] = movable_ ? zsng_svc_movable_page_alloc(gfp) :
					  zsng_svc_page_alloc(gfp);
		if (!zs->pages[i]) {
			while (i--)
				zsng_svc_page_free(zs->pages[i]);
			free_desc(zs);
			return nullptr;
		}
	}
	zs->list.init();
	if (lru_) {
		lru_link(zs)->node.init();
		lru_link(zs)->zs = zs;
	}
	zs->freeobj = 0;
	zs->class_idx = (u16)(c - classes_);
	zs->pool = this;
	if (!c->huge) {
		for (u32 idx = 0; idx < objs; idx++) {
			u32 next = idx + 1 < objs ? idx + 1 : kNoObj;

			*obj_header(c, zs, idx) = (ulong)next << 1;
		}
	}
	/* Only a finished zspage is handed to migration (migrate.cpp). */
	for (u32 i = 0; movable_ && i < pages; i++)
		zsng_svc_page_set_movable(zs->pages[i], zs);
	return zs;
}

/*
 * Called with the class lock held, from free(), compaction, reclaim and
 * destroy(): the zspage is off its lists and empty. It goes on @release,
 * for release_list() once the lock is dropped, with its pages locked if
 * movable; a movable zspage whose pages are not all free to lock goes to
 * the deferred list instead (migrate.cpp).
 */
void Pool::free_zspage(SizeClass *c, Zspage *zs, ListNode *release)
{
	ZSNG_WARN_ON(zs->inuse || zs->mapcount);
	set_once(c->zspages, c->zspages - 1);
	set_once(c->objs_allocated, c->objs_allocated - zs->nr_objs);
	set_once(c->pages_allocated, c->pages_allocated - zs->nr_pages);
	if (lru_)
		lru_link(zs)->node.del();
	if (movable_) {
		for (u32 i = 0; i < zs->nr_pages; i++) {
			if (zsng_svc_page_trylock(zs->pages[i]))
				continue;
			while (i--)
				zsng_svc_page_unlock(zs->pages[i]);
			/* page_isolate() reads it without the class lock. */
			__atomic_store_n(&zs->freeing, true, __ATOMIC_RELAXED);
			zsng_svc_lock(deferred_lock_);
			deferred_.add_tail(&zs->list);
			pages_deferred_ += zs->nr_pages;
			frees_deferred_++;
			zsng_svc_unlock(deferred_lock_);
			zsng_svc_work_kick(deferred_work_);
			return;
		}
	}
	release->add_tail(&zs->list);
}

/*
 * Without the class lock: gives back the zspages free_zspage() put on
 * @release. Their pages are locked (movable) or nobody else's: no
 * migrator, mapper or list reaches them.
 */
void Pool::release_list(SizeClass *c, ListNode *release)
{
	while (!release->empty()) {
		Zspage *zs = zspage_of(release->next);

		zs->list.del();
		add_relaxed(pages_used_, -(long)zs->nr_pages);
		release_pages(zs);
	}
}

/* Gives back the pages (locked, if movable) and the descriptor. */
void Pool::release_pages(Zspage *zs)
{
	for (u32 i = 0; i < zs->nr_pages; i++) {
		if (movable_)
			zsng_svc_movable_page_free(zs->pages[i]);
		else
			zsng_svc_page_free(zs->pages[i]);
	}
	free_desc(zs);
}

/*
 * An LRU pool's descriptors carry an LruLink after the page addresses and
 * come from kmalloc; the others from the kernel's descriptor caches.
 */
Zspage *Pool::alloc_desc(u32 pages, u32 gfp)
{
	if (lru_)
		return static_cast<Zspage *>(zsng_svc_zalloc(
			sizeof(Zspage) + sizeof(void *) * pages +
				sizeof(LruLink),
			gfp));
	return static_cast<Zspage *>(zsng_svc_desc_alloc(pages, gfp));
}

void Pool::free_desc(Zspage *zs)
{
	if (lru_)
		zsng_svc_free(zs);
	else
		zsng_svc_desc_free(zs, zs->nr_pages);
}

/* ---- objects ------------------------------------------------------------ */

u32 SizeClass::obj_malloc(Zspage *zs, HandleSlot *slot)
{
	u32 idx = zs->freeobj;

	if (huge) {
		zs->huge_slot = slot;
	} else {
		ulong *hdr = obj_header(this, zs, idx);

		zs->freeobj = (u32)(*hdr >> 1);
		*hdr = reinterpret_cast<ulong>(slot) | kAllocatedTag;
	}
	zs->inuse++;
	set_once(obj_used, obj_used + 1);
	slot->zspage = zs;
	slot->idx = idx;
	return idx;
}

void SizeClass::obj_free(Zspage *zs, u32 idx)
{
	if (huge) {
		zs->huge_slot = nullptr;
	} else {
		*obj_header(this, zs, idx) = (ulong)zs->freeobj << 1;
		zs->freeobj = idx;
	}
	zs->inuse--;
	set_once(obj_used, obj_used - 1);
}

HandleSlot *SizeClass::alloced_slot(Zspage *zs, u32 idx) const
{
	ulong hdr;

	if (huge)
		return idx == 0 ? zs->huge_slot : nullptr;
	hdr = *obj_header(this, zs, idx);
	if (!(hdr & kAllocatedTag))
		return nullptr;
	return reinterpret_cast<HandleSlot *>(hdr & ~kAllocatedTag);
}

/*
 * malloc(), and with @pinned also the first half of write(): the new object
 * is pinned (mapcount raised, CPU pinned by map_begin()) before the pool
 * lock is dropped, and its zspage returned in *@pinned. On error nothing is
 * pinned.
 */
ulong Pool::alloc_object(ulong size, u32 gfp, Zspage **pinned)
{
	u32 ci = class_index(size);
	SizeClass *c;
	HandleSlot *slot;
	Zspage *zs;

	if (ci >= nr_classes_)
		return (ulong)-ZSNG_EINVAL;
	c = &classes_[ci];
	slot = static_cast<HandleSlot *>(zsng_svc_slot_alloc(gfp));
	if (!slot)
		return (ulong)-ZSNG_ENOMEM;
	slot->class_idx = (u16)ci;
	slot->origin_idx = (u16)ci;
	if (c->shares_tails)
		add_relaxed(c->demand, 1);

	if (pinned)
		zsng_svc_map_begin();
	zsng_svc_lock(c->lock);
	zs = c->find_fullest();
	if (zs) {
		c->obj_malloc(zs, slot);
		c->fix_group(zs);
		if (lru_)
			lru_touch(zs);
		goto out;
	}
	zsng_svc_unlock(c->lock);
	if (pinned)
		zsng_svc_map_end();

	if (c->borrow_last > ci) {
		SizeClass *from;

		zs = borrow_slot(c, slot, pinned, &from);
		if (zs) {
			c = from;
			goto out;
		}
	}

	/* Page allocation may sleep: not under the class lock, nor pinned. */
	c = grow_class(c);
	zs = alloc_zspage(c, gfp);
	if (!zs) {
		if (classes_[ci].shares_tails)
			add_relaxed(classes_[ci].demand, -1);
		zsng_svc_slot_free(slot);
		return (ulong)-ZSNG_ENOMEM;
	}
	if (c != &classes_[ci]) {
		slot->class_idx = (u16)(c - classes_);
		add_relaxed(slots_borrowed_, 1);
	}

	if (pinned)
		zsng_svc_map_begin();
	zsng_svc_lock(c->lock);
	c->obj_malloc(zs, slot);
	c->insert(zs);
	set_once(c->zspages, c->zspages + 1);
	set_once(c->objs_allocated, c->objs_allocated + zs->nr_objs);
	set_once(c->pages_allocated, c->pages_allocated + zs->nr_pages);
	add_relaxed(pages_used_, zs->nr_pages);
	if (lru_)
		lru_touch(zs);
out:
	if (pinned) {
		__atomic_fetch_add(&zs->mapcount, 1, __ATOMIC_ACQUIRE);
		*pinned = zs;
	}
	zsng_svc_unlock(c->lock);
	return reinterpret_cast<ulong>(slot);
}

ulong Pool::malloc(ulong size, u32 gfp)
{
	return alloc_object(size, gfp, nullptr);
}

void Pool::free(ulong handle)
{
	HandleSlot *slot = reinterpret_cast<HandleSlot *>(handle);
	bool keep_slot = false, compact = false, check_pool = false;
	ListNode release;
	Zspage *zs;
	SizeClass *c;

	if (!handle || zsng_is_error(handle))
		return;
	release.init();
	c = &classes_[slot->class_idx];
	if (shares_tails_)
		add_relaxed(classes_[slot->origin_idx].demand, -1);
	zsng_svc_lock(c->lock);
	zs = slot->zspage;
	c->obj_free(zs, slot->idx);
	if (lru_ && lru_link(zs)->reclaiming) {
		/* lru.cpp: the bytes and an evicted handle stay. */
		LruLink *l = lru_link(zs);

		keep_slot = l->evicting == slot;
		if (keep_slot)
			l->evict_freed = true;
	} else if (zs->inuse == 0) {
		c->remove(zs);
		free_zspage(c, zs, &release);
	} else {
		c->fix_group(zs);
		if (auto_compact_)
			compact = auto_compact_due(c, &check_pool);
	}
	zsng_svc_unlock(c->lock);
	release_list(c, &release);
	if (!keep_slot)
		zsng_svc_slot_free(slot);
	if (check_pool)
		compact = auto_compact_pool_due();
	if (compact)
		kick_auto_compact();
}

/*
 * Map state kept in the per-CPU area, after the PAGE_SIZE bounce buffer:
 * unmap must know whether to write the buffer back.
 */
struct MapState {
	MapMode mode;
};

struct ObjSpan {
	ulong at; /* first byte of the caller's data in the chain */
	ulong len;
	bool spans;
};

static inline ObjSpan obj_span(const SizeClass *c, u32 idx)
{
	u32 hdr = c->huge ? 0 : kObjHeaderSize;
	ulong at = (ulong)idx * c->size + hdr;
	ulong len = c->size - hdr;

	return { at, len, (at & (kPageSize - 1)) + len > kPageSize };
}

/*
 * Keeps the object of @slot where it is until unpin(): compaction waits for
 * a source zspage's mapcount to drop. Returns the zspage, the index in @idx.
 */
Zspage *Pool::pin(HandleSlot *slot, u32 *idx)
{
	void *lock = classes_[slot->class_idx].lock;
	Zspage *zs;

	zsng_svc_lock(lock);
	zs = slot->zspage;
	*idx = slot->idx;
	__atomic_fetch_add(&zs->mapcount, 1, __ATOMIC_ACQUIRE);
	zsng_svc_unlock(lock);
	return zs;
}

void Pool::unpin(Zspage *zs)
{
	__atomic_fetch_sub(&zs->mapcount, 1, __ATOMIC_RELEASE);
}

void *Pool::map(ulong handle, MapMode mode)
{
	HandleSlot *slot = reinterpret_cast<HandleSlot *>(handle);
	char *area = static_cast<char *>(zsng_svc_map_begin());
	u32 idx;
	Zspage *zs = pin(slot, &idx);
	SizeClass *c = &classes_[zs->class_idx];
	ObjSpan span = obj_span(c, idx);

	if (!span.spans)
		return static_cast<char *>(zs->pages[span.at >> kPageShift]) +
		       (span.at & (kPageSize - 1));
	reinterpret_cast<MapState *>(area + kPageSize)->mode = mode;
	if (mode != MapMode::WO)
		chain_copy(zs, span.at, area, span.len, false);
	return area;
}

void Pool::unmap(ulong handle)
{
	HandleSlot *slot = reinterpret_cast<HandleSlot *>(handle);
	/* Compaction waits for mapcount: the slot cannot change under us. */
	Zspage *zs = slot->zspage;
	SizeClass *c = &classes_[zs->class_idx];
	ObjSpan span = obj_span(c, slot->idx);

	if (span.spans) {
		/* map_begin() pinned this CPU: this is the same area. */
		char *area = static_cast<char *>(zsng_svc_map_area());

		if (reinterpret_cast<MapState *>(area + kPageSize)->mode !=
		    MapMode::RO)
			chain_copy(zs, span.at, area, span.len, true);
	}
	unpin(zs);
	zsng_svc_map_end();
}

/* Copies into a pinned object, then unpins it. */
void Pool::write_pinned(Zspage *zs, u32 idx, const void *src, ulong len)
{
	ObjSpan span = obj_span(&classes_[zs->class_idx], idx);

	if (ZSNG_WARN_ON(len > span.len))
		len = span.len;
	chain_copy(zs, span.at, static_cast<char *>(const_cast<void *>(src)),
		   len, true);
	unpin(zs);
	zsng_svc_map_end();
}

void Pool::write(ulong handle, const void *src, ulong len)
{
	u32 idx;

	/* Pinned like a mapping: compaction waits, so the CPU must not sleep. */
	zsng_svc_map_begin();
	Zspage *zs = pin(reinterpret_cast<HandleSlot *>(handle), &idx);

	write_pinned(zs, idx, src, len);
}

ulong Pool::store(const void *src, ulong len, u32 gfp)
{
	Zspage *zs;
	ulong handle = alloc_object(len, gfp, &zs);

	if (!zsng_is_error(handle))
		write_pinned(zs, reinterpret_cast<HandleSlot *>(handle)->idx,
			     src, len);
	return handle;
}

} // namespace zsng

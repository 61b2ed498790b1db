// SPDX-License-Identifier: GPL-2.0
/*
 * zsmalloc_ng allocator core. The design (data structures, lock order,
 * compaction) is described at the top of pool.hpp.
 */
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

struct SizeClass {
	u32 size;
	u32 pages_per_zspage;
	u32 objs_per_zspage;
	u32 nr_groups;
	bool huge;
	GroupOf *group_of_inuse; /* objs_per_zspage + 1 entries */
	ListNode *groups; /* nr_groups list heads */
	u64 *nonempty; /* bit g set <=> groups[g] is not empty */
	ulong *group_count; /* zspages listed per shown group */
	ulong zspages;
	ulong obj_used;
	ulong objs_moved;
	ulong pages_compacted;
};

struct Zspage {
	ListNode list;
	u32 inuse;
	u32 freeobj;
	u16 group; /* the list it is on */
	u16 shown; /* the stats column it is counted in */
	u16 class_idx;
	bool isolated;
	u32 mapcount; /* atomic */
	HandleSlot *huge_slot;
	void *pages[]; /* pages_per_zspage addresses */
};

/* Where object @idx's bytes are: page index and offset in that page. */
struct ObjPos {
	u32 page;
	u32 off;
};

static inline ObjPos obj_pos(const SizeClass *c, u32 idx)
{
	ulong byte = (ulong)idx * c->size;

	return { (u32)(byte >> kPageShift), (u32)(byte & (kPageSize - 1)) };
}

static inline ulong *obj_header(const SizeClass *c, Zspage *zs, u32 idx)
{
	ObjPos p = obj_pos(c, idx);

	return reinterpret_cast<ulong *>(
		static_cast<char *>(zs->pages[p.page]) + p.off);
}

static inline Zspage *zspage_of(ListNode *n)
{
	return ZSNG_CONTAINER_OF(n, Zspage, list);
}

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

/* ---- pool life cycle ---------------------------------------------------- */

Pool *Pool::create(const char *name, Policy policy, u32 max_pages, int *err)
{
	int dummy;
	void *mem;

	if (!err)
		err = &dummy;
	*err = -ZSNG_EINVAL;
	if (!policy_valid((int)policy) || max_pages < ZSNG_MIN_CHAIN_PAGES ||
	    max_pages > ZSNG_MAX_CHAIN_PAGES)
		return nullptr;
	*err = -ZSNG_ENOMEM;
	mem = zsng_svc_zalloc(sizeof(Pool), ZSNG_GFP_KERNEL);
	if (!mem)
		return nullptr;
	Pool *pool = new (mem) Pool();
	if (!pool->init(name, policy, max_pages)) {
		pool->destroy();
		return nullptr;
	}
	*err = 0;
	return pool;
}

bool Pool::init(const char *name, Policy policy, u32 max_pages)
{
	ClassGeometry *geo;

	policy_ = policy;

	lock_ = zsng_svc_lock_create();
	slot_cache_ = zsng_svc_cache_create(name, sizeof(HandleSlot));
	geo = static_cast<ClassGeometry *>(zsng_svc_zalloc(
		sizeof(ClassGeometry) * kNrSizeSlots, ZSNG_GFP_KERNEL));
	if (!lock_ || !slot_cache_ || !geo) {
		zsng_svc_free(geo);
		return false;
	}
	nr_classes_ = build_class_table(max_pages, geo, slot_to_class_);
	classes_ = static_cast<SizeClass *>(zsng_svc_zalloc(
		sizeof(SizeClass) * nr_classes_, ZSNG_GFP_KERNEL));
	if (!classes_) {
		nr_classes_ = 0;
		zsng_svc_free(geo);
		return false;
	}
	for (u32 i = 0; i < nr_classes_; i++) {
		SizeClass *c = &classes_[i];

		c->size = geo[i].size;
		c->pages_per_zspage = geo[i].pages_per_zspage;
		c->objs_per_zspage = geo[i].objs_per_zspage;
		c->huge = geo[i].huge;
		c->nr_groups = nr_groups(policy, c->objs_per_zspage);
		c->groups = static_cast<ListNode *>(zsng_svc_zalloc(
			sizeof(ListNode) * c->nr_groups, ZSNG_GFP_KERNEL));
		c->nonempty = static_cast<u64 *>(zsng_svc_zalloc(
			8 * Bitmap::words_for(c->nr_groups), ZSNG_GFP_KERNEL));
		c->group_count = static_cast<ulong *>(zsng_svc_zalloc(
			sizeof(ulong) * kMaxShownGroups, ZSNG_GFP_KERNEL));
		c->group_of_inuse = static_cast<GroupOf *>(zsng_svc_zalloc(
			sizeof(GroupOf) * (c->objs_per_zspage + 1),
			ZSNG_GFP_KERNEL));
		for (u32 n = 0; c->group_of_inuse && n <= c->objs_per_zspage;
		     n++) {
			u32 objs = c->objs_per_zspage;

			c->group_of_inuse[n] = { (u16)group_of(policy, n, objs),
						 (u16)shown_group_of(policy, n,
								     objs) };
		}
		/* destroy() walks the lists: make them valid before any exit. */
		if (c->groups) {
			for (u32 g = 0; g < c->nr_groups; g++)
				c->groups[g].init();
		}
		if (!c->groups || !c->nonempty || !c->group_count ||
		    !c->group_of_inuse) {
			zsng_svc_free(geo);
			return false;
		}
		/* The smallest request that lands in a huge class. */
		if (c->huge && !huge_class_size_)
			huge_class_size_ = (i ? classes_[i - 1].size : 0) + 1 -
					   kObjHeaderSize;
	}
	zsng_svc_free(geo);
	return true;
}

void Pool::destroy()
{
	for (u32 i = 0; i < nr_classes_; i++) {
		SizeClass *c = &classes_[i];

		/* A failed init may have left any of the four arrays. */
		for (u32 g = 0; c->groups && g < c->nr_groups; g++) {
			while (!c->groups[g].empty()) {
				Zspage *zs = zspage_of(c->groups[g].next);

				zsng_svc_log(
					"zsmalloc_ng: destroying a pool with live objects");
				/* Free the leaked handles too: nothing else will. */
				for (u32 idx = 0; idx < c->objs_per_zspage;
				     idx++) {
					HandleSlot *slot =
						alloced_slot(c, zs, idx);

					if (slot)
						zsng_svc_cache_free(slot_cache_,
								    slot);
				}
				remove_zspage(c, zs);
				c->obj_used -= zs->inuse;
				/* Leaked by the user, already reported: not a bug here. */
				zs->inuse = 0;
				free_zspage(c, zs);
			}
		}
		zsng_svc_free(c->groups);
		zsng_svc_free(c->nonempty);
		zsng_svc_free(c->group_count);
		zsng_svc_free(c->group_of_inuse);
	}
	zsng_svc_free(classes_);
	if (slot_cache_)
		zsng_svc_cache_destroy(slot_cache_);
	if (lock_)
		zsng_svc_lock_destroy(lock_);
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

/* ---- zspages and fullness groups ---------------------------------------- */

Zspage *Pool::alloc_zspage(SizeClass *c, u32 gfp)
{
	ulong bytes = sizeof(Zspage) + sizeof(void *) * c->pages_per_zspage;
	Zspage *zs = static_cast<Zspage *>(zsng_svc_zalloc(bytes, gfp));

	if (!zs)
		return nullptr;
	for (u32 i = 0; i < c->pages_per_zspage; i++) {
		zs->pages[i] = zsng_svc_page_alloc(gfp);
		if (!zs->pages[i]) {
			while (i--)
				zsng_svc_page_free(zs->pages[i]);
			zsng_svc_free(zs);
			return nullptr;
		}
	}
	zs->list.init();
	zs->freeobj = 0;
	zs->class_idx = (u16)(c - classes_);
	if (!c->huge) {
		for (u32 idx = 0; idx < c->objs_per_zspage; idx++) {
			u32 next = idx + 1 < c->objs_per_zspage ? idx + 1 :
								  kNoObj;

			*obj_header(c, zs, idx) = (ulong)next << 1;
		}
	}
	return zs;
}

void Pool::free_zspage(SizeClass *c, Zspage *zs)
{
	ZSNG_WARN_ON(zs->inuse || zs->mapcount);
	for (u32 i = 0; i < c->pages_per_zspage; i++)
		zsng_svc_page_free(zs->pages[i]);
	zsng_svc_free(zs);
	c->zspages--;
	add_relaxed(pages_used_, -(long)c->pages_per_zspage);
}

void Pool::insert_zspage(SizeClass *c, Zspage *zs)
{
	GroupOf g = c->group_of_inuse[zs->inuse];
	ListNode *head = &c->groups[g.group];

	/*
	 * 6.1's "inuse optimisation": a zspage with fewer objects than the
	 * head goes second, so the head stays the fullest for allocation.
	 */
	if (uses_legacy_groups(policy_) && !head->empty() &&
	    zs->inuse < zspage_of(head->next)->inuse)
		head->next->add(&zs->list);
	else
		head->add(&zs->list);
	zs->group = g.group;
	zs->shown = g.shown;
	zs->isolated = false;
	Bitmap::set(c->nonempty, g.group);
	c->group_count[zs->shown]++;
}

void Pool::remove_zspage(SizeClass *c, Zspage *zs)
{
	zs->list.del();
	if (c->groups[zs->group].empty())
		Bitmap::clear(c->nonempty, zs->group);
	c->group_count[zs->shown]--;
}

/*
 * Called after zs->inuse changed. Moves a listed zspage to the list its new
 * in-use count calls for; returns its group.
 */
u32 Pool::fix_group(SizeClass *c, Zspage *zs)
{
	GroupOf g = c->group_of_inuse[zs->inuse];

	if (!zs->isolated && (g.group != zs->group || g.shown != zs->shown)) {
		remove_zspage(c, zs);
		insert_zspage(c, zs);
	}
	return g.group;
}

/* The fullest zspage that is neither empty nor full, still listed. */
Zspage *Pool::find_fullest(SizeClass *c)
{
	int g = Bitmap::find_last(c->nonempty, 1, c->nr_groups - 2);

	return g < 0 ? nullptr : zspage_of(c->groups[g].next);
}

Zspage *Pool::isolate_dst(SizeClass *c)
{
	Zspage *zs = find_fullest(c);

	if (zs) {
		remove_zspage(c, zs);
		zs->isolated = true;
	}
	return zs;
}

Zspage *Pool::isolate_src(SizeClass *c)
{
	int g = Bitmap::find_first(c->nonempty, 1, c->nr_groups - 2);
	Zspage *zs;

	if (g < 0)
		return nullptr;
	zs = zspage_of(c->groups[g].next);
	remove_zspage(c, zs);
	zs->isolated = true;
	return zs;
}

/* Lists an isolated zspage again; returns its group (0: empty, free it). */
u32 Pool::putback(SizeClass *c, Zspage *zs)
{
	u32 g = c->group_of_inuse[zs->inuse].group;

	if (g != 0)
		insert_zspage(c, zs);
	return g;
}

void Pool::wait_unmapped(Zspage *zs)
{
	while (__atomic_load_n(&zs->mapcount, __ATOMIC_ACQUIRE))
		zsng_svc_cpu_relax();
}

/* ---- objects ------------------------------------------------------------ */

u32 Pool::obj_malloc(SizeClass *c, Zspage *zs, HandleSlot *slot)
{
	u32 idx = zs->freeobj;

	if (c->huge) {
		zs->huge_slot = slot;
	} else {
		ulong *hdr = obj_header(c, zs, idx);

		zs->freeobj = (u32)(*hdr >> 1);
		*hdr = reinterpret_cast<ulong>(slot) | kAllocatedTag;
	}
	zs->inuse++;
	c->obj_used++;
	slot->zspage = zs;
	slot->idx = idx;
	return idx;
}

void Pool::obj_free(SizeClass *c, Zspage *zs, u32 idx)
{
	if (c->huge) {
		zs->huge_slot = nullptr;
	} else {
		*obj_header(c, zs, idx) = (ulong)zs->freeobj << 1;
		zs->freeobj = idx;
	}
	zs->inuse--;
	c->obj_used--;
}

HandleSlot *Pool::alloced_slot(SizeClass *c, Zspage *zs, u32 idx)
{
	ulong hdr;

	if (c->huge)
		return idx == 0 ? zs->huge_slot : nullptr;
	hdr = *obj_header(c, zs, idx);
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
	slot = static_cast<HandleSlot *>(
		zsng_svc_cache_alloc(slot_cache_, gfp));
	if (!slot)
		return (ulong)-ZSNG_ENOMEM;

	if (pinned)
		zsng_svc_map_begin();
	zsng_svc_lock(lock_);
	zs = find_fullest(c);
	if (zs) {
		obj_malloc(c, zs, slot);
		fix_group(c, zs);
		goto out;
	}
	zsng_svc_unlock(lock_);
	if (pinned)
		zsng_svc_map_end();

	/* Page allocation may sleep: not under the pool lock, nor pinned. */
	zs = alloc_zspage(c, gfp);
	if (!zs) {
		zsng_svc_cache_free(slot_cache_, slot);
		return (ulong)-ZSNG_ENOMEM;
	}

	if (pinned)
		zsng_svc_map_begin();
	zsng_svc_lock(lock_);
	obj_malloc(c, zs, slot);
	insert_zspage(c, zs);
	c->zspages++;
	add_relaxed(pages_used_, c->pages_per_zspage);
out:
	if (pinned) {
		__atomic_fetch_add(&zs->mapcount, 1, __ATOMIC_ACQUIRE);
		*pinned = zs;
	}
	zsng_svc_unlock(lock_);
	return reinterpret_cast<ulong>(slot);
}

ulong Pool::malloc(ulong size, u32 gfp)
{
	return alloc_object(size, gfp, nullptr);
}

void Pool::free(ulong handle)
{
	HandleSlot *slot = reinterpret_cast<HandleSlot *>(handle);
	Zspage *zs;
	SizeClass *c;

	if (!handle || zsng_is_error(handle))
		return;
	zsng_svc_lock(lock_);
	zs = slot->zspage;
	c = &classes_[zs->class_idx];
	obj_free(c, zs, slot->idx);
	if (zs->inuse == 0) {
		remove_zspage(c, zs);
		free_zspage(c, zs);
	} else {
		fix_group(c, zs);
	}
	zsng_svc_unlock(lock_);
	zsng_svc_cache_free(slot_cache_, slot);
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
	Zspage *zs;

	zsng_svc_lock(lock_);
	zs = slot->zspage;
	*idx = slot->idx;
	__atomic_fetch_add(&zs->mapcount, 1, __ATOMIC_ACQUIRE);
	zsng_svc_unlock(lock_);
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

/* ---- compaction --------------------------------------------------------- */

/* Pages that freeing every whole zspage's worth of free slots would give. */
ulong Pool::can_compact(SizeClass *c)
{
	ulong allocated = c->zspages * c->objs_per_zspage;

	if (allocated <= c->obj_used)
		return 0;
	return (allocated - c->obj_used) / c->objs_per_zspage *
	       c->pages_per_zspage;
}

static void object_copy(const SizeClass *c, Zspage *dst, u32 didx, Zspage *src,
			u32 sidx)
{
	ulong s = (ulong)sidx * c->size, d = (ulong)didx * c->size;
	ulong len = c->size;

	while (len) {
		ulong soff = s & (kPageSize - 1), doff = d & (kPageSize - 1);
		ulong n =
			min_of(len, min_of(kPageSize - soff, kPageSize - doff));

		__builtin_memcpy(
			static_cast<char *>(dst->pages[d >> kPageShift]) + doff,
			static_cast<char *>(src->pages[s >> kPageShift]) + soff,
			n);
		s += n;
		d += n;
		len -= n;
	}
}

void Pool::move_object(SizeClass *c, Zspage *src, u32 idx, Zspage *dst)
{
	HandleSlot *slot = alloced_slot(c, src, idx);
	u32 didx = obj_malloc(c, dst, slot);

	/* The header travels too: it already names the same slot. */
	object_copy(c, dst, didx, src, idx);
	obj_free(c, src, idx);
	c->objs_moved++;
	add_relaxed(objs_moved_, 1);
}

ulong Pool::compact_reworked(SizeClass *c)
{
	Zspage *dst = nullptr;
	ulong freed = 0;

	zsng_svc_lock(lock_);
	while (can_compact(c)) {
		Zspage *src;

		if (!dst) {
			dst = isolate_dst(c);
			if (!dst)
				break;
		}
		src = isolate_src(c);
		if (!src)
			break;
		wait_unmapped(src);
		for (u32 idx = 0; src->inuse && dst->inuse < c->objs_per_zspage;
		     idx++) {
			if (alloced_slot(c, src, idx))
				move_object(c, src, idx, dst);
		}
		if (putback(c, src) == 0) {
			free_zspage(c, src);
			freed += c->pages_per_zspage;
		}
		if (dst->inuse == c->objs_per_zspage ||
		    zsng_svc_lock_contended(lock_)) {
			putback(c, dst);
			dst = nullptr;
			zsng_svc_unlock(lock_);
			zsng_svc_cond_resched();
			zsng_svc_lock(lock_);
		}
	}
	if (dst)
		putback(c, dst);
	c->pages_compacted += freed;
	zsng_svc_unlock(lock_);
	return freed;
}

/* Linux 6.1's __zs_compact(), kept for A/B measurements. */
ulong Pool::compact_legacy(SizeClass *c)
{
	Zspage *src, *dst = nullptr;
	ulong freed = 0;

	zsng_svc_lock(lock_);
	while ((src = isolate_src(c))) {
		u32 cursor = 0;

		wait_unmapped(src);
		if (!can_compact(c))
			break;
		while ((dst = isolate_dst(c))) {
			bool exhausted = true;

			for (; cursor < c->objs_per_zspage; cursor++) {
				if (!alloced_slot(c, src, cursor))
					continue;
				if (dst->inuse == c->objs_per_zspage) {
					exhausted = false;
					break;
				}
				move_object(c, src, cursor, dst);
			}
			if (exhausted)
				break;
			putback(c, dst);
			dst = nullptr;
			if (zsng_svc_lock_contended(lock_))
				break;
		}
		if (!dst)
			break;
		putback(c, dst);
		dst = nullptr;
		if (putback(c, src) == 0) {
			free_zspage(c, src);
			freed += c->pages_per_zspage;
		}
		src = nullptr;
		zsng_svc_unlock(lock_);
		zsng_svc_cond_resched();
		zsng_svc_lock(lock_);
	}
	if (src)
		putback(c, src);
	c->pages_compacted += freed;
	zsng_svc_unlock(lock_);
	return freed;
}

ulong Pool::compact_class(u32 class_idx)
{
	SizeClass *c;
	ulong freed;

	if (class_idx >= nr_classes_)
		return 0;
	c = &classes_[class_idx];
	if (c->huge)
		return 0;
	/* One compaction per pool at a time; a second caller just returns. */
	if (__atomic_exchange_n(&compacting_, 1, __ATOMIC_ACQUIRE))
		return 0;
	freed = uses_legacy_compaction(policy_) ? compact_legacy(c) :
						  compact_reworked(c);
	add_relaxed(pages_compacted_, (long)freed);
	__atomic_store_n(&compacting_, 0, __ATOMIC_RELEASE);
	return freed;
}

ulong Pool::compact()
{
	ulong freed = 0;

	if (__atomic_exchange_n(&compacting_, 1, __ATOMIC_ACQUIRE))
		return 0;
	/* Largest classes first, like zs_compact(): they free most per move. */
	for (u32 i = nr_classes_; i-- > 0;) {
		SizeClass *c = &classes_[i];

		if (c->huge)
			continue;
		freed += uses_legacy_compaction(policy_) ? compact_legacy(c) :
							   compact_reworked(c);
	}
	add_relaxed(pages_compacted_, (long)freed);
	__atomic_store_n(&compacting_, 0, __ATOMIC_RELEASE);
	return freed;
}

ulong Pool::compactable_pages()
{
	ulong pages = 0;

	zsng_svc_lock(lock_);
	for (u32 i = 0; i < nr_classes_; i++)
		pages += can_compact(&classes_[i]);
	zsng_svc_unlock(lock_);
	return pages;
}

/* ---- statistics and checks ---------------------------------------------- */

void Pool::class_stats(u32 idx, ClassStats *out)
{
	SizeClass *c = &classes_[idx];

	zsng_svc_lock(lock_);
	out->size = c->size;
	out->pages_per_zspage = c->pages_per_zspage;
	out->objs_per_zspage = c->objs_per_zspage;
	out->huge = c->huge;
	out->nr_groups = nr_shown_groups(policy_);
	for (u32 g = 0; g < kMaxShownGroups; g++)
		out->groups[g] = g < out->nr_groups ? c->group_count[g] : 0;
	out->obj_allocated = c->zspages * c->objs_per_zspage;
	out->obj_used = c->obj_used;
	out->pages_used = c->zspages * c->pages_per_zspage;
	out->freeable = can_compact(c);
	out->objs_moved = c->objs_moved;
	out->pages_compacted = c->pages_compacted;
	zsng_svc_unlock(lock_);
}

void Pool::stats(PoolStats *out)
{
	out->pages_compacted = read_once(pages_compacted_);
	out->objs_moved = read_once(objs_moved_);
	out->pages_used = read_once(pages_used_);
	out->objs_allocated = 0;
	out->objs_used = 0;
	zsng_svc_lock(lock_);
	for (u32 i = 0; i < nr_classes_; i++) {
		out->objs_allocated +=
			classes_[i].zspages * classes_[i].objs_per_zspage;
		out->objs_used += classes_[i].obj_used;
	}
	zsng_svc_unlock(lock_);
}

u32 Pool::class_inuse_counts(u32 idx, u32 *out, u32 max)
{
	SizeClass *c = &classes_[idx];
	u32 n = 0;

	zsng_svc_lock(lock_);
	for (u32 g = 0; g < c->nr_groups; g++) {
		for (ListNode *p = c->groups[g].next; p != &c->groups[g];
		     p = p->next) {
			if (n < max)
				out[n] = zspage_of(p)->inuse;
			n++;
		}
	}
	zsng_svc_unlock(lock_);
	return n;
}

#define CHECK(cond)                          \
	do {                                 \
		if (ZSNG_WARN_ON(!(cond))) { \
			ok = false;          \
			goto out;            \
		}                            \
	} while (0)

bool Pool::check_consistency()
{
	bool ok = true;
	ulong pages = 0;

	zsng_svc_lock(lock_);
	for (u32 i = 0; i < nr_classes_; i++) {
		SizeClass *c = &classes_[i];
		ulong zspages = 0, used = 0;
		ulong shown[kMaxShownGroups] = {};

		for (u32 g = 0; g < c->nr_groups; g++) {
			bool bit = Bitmap::find_first(c->nonempty, g, g) >= 0;

			CHECK(bit == !c->groups[g].empty());
			for (ListNode *p = c->groups[g].next;
			     p != &c->groups[g]; p = p->next) {
				Zspage *zs = zspage_of(p);
				u32 alloced = 0, free_len = 0;

				CHECK(!zs->isolated && zs->group == g);
				CHECK(g == group_of(policy_, zs->inuse,
						    c->objs_per_zspage));
				CHECK(zs->inuse > 0);
				CHECK(zs->class_idx == i);
				for (u32 idx = 0; idx < c->objs_per_zspage;
				     idx++) {
					HandleSlot *s =
						alloced_slot(c, zs, idx);

					if (!s)
						continue;
					CHECK(s->zspage == zs && s->idx == idx);
					alloced++;
				}
				CHECK(alloced == zs->inuse);
				if (!c->huge) {
					for (u32 f = zs->freeobj; f != kNoObj;
					     f = (u32)(*obj_header(c, zs, f) >>
						       1)) {
						CHECK(f < c->objs_per_zspage);
						CHECK(!alloced_slot(c, zs, f));
						CHECK(++free_len <=
						      c->objs_per_zspage);
					}
					CHECK(free_len + alloced ==
					      c->objs_per_zspage);
				}
				zspages++;
				used += zs->inuse;
				shown[zs->shown]++;
			}
		}
		CHECK(zspages == c->zspages);
		CHECK(used == c->obj_used);
		for (u32 g = 0; g < kMaxShownGroups; g++)
			CHECK(shown[g] == c->group_count[g]);
		pages += zspages * c->pages_per_zspage;
	}
	CHECK(pages == read_once(pages_used_));
out:
	zsng_svc_unlock(lock_);
	return ok;
}

} // namespace zsng

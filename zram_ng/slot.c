// SPDX-License-Identifier: GPL-2.0
/*
 * zram_ng's slot layer: what is stored for each page of the disk.
 *
 * Every page of the disk is a slot of zram->table: empty, same-filled (one
 * repeated word, no allocation), huge (stored raw: it compressed badly), a
 * compressed object in the pool (with the priority of the algorithm that
 * compressed it, which reads use: recompress.c), or on the backing device
 * (backing.c); it also carries its last access time and an idle flag
 * (idle.c). A slot is two words (slot.h): the handle, fill word or block,
 * and a packed word of size, lock bit, flags and access time (milliseconds
 * of boot time, saturating: plenty for idle marking's seconds), pinned by
 * BUILD_BUG_ON in zram_ng_slots_init(). Every bit but the lock's changes
 * under the lock, by plain read-modify-writes: the lock bit only ever
 * changes atomically, and nobody else changes the word meanwhile.
 *
 * The slot lock serialises reads, writes, discards and swap free
 * notifications of the page, and all that writeback, recompression and
 * idle marking do to it. Only this file stores, installs or frees an
 * object in a slot. It owns the write path's allocation flags: a writer
 * holds its CPU's compression stream, so it first allocates without
 * sleeping. A written-back slot's block is read, and the read joined to
 * the backing device's read epoch (backing.c), under the slot lock, which
 * is dropped before the block is read: no I/O under a slot lock.
 *
 * The table. A top array of one entry (struct zram_ng_slot_dir) per 256
 * slots, allocated at disksize (zram_ng_alloc_top()), points to leaves of
 * 256 slots, one page each, allocated when a slot in them is first written
 * and freed when the last is emptied: 16 bytes a stored page when the
 * device is used densely, a page a leaf touched at worst. A fixed top
 * array, not an xarray: at 1/256 of the slots it is small enough to
 * allocate up front for any disk (2^32 pages: 256 MiB), so a first write
 * allocates one leaf and nothing else (no node to fail under pressure, no
 * lock), and a lookup is two dependent loads. A leaf is exactly a page,
 * which the page allocator serves best under pressure.
 *
 * A leaf's lifetime. ->busy counts its COUNTED slots (holding data, or
 * under writeback so that writeback can relock after its I/O; slot_unlock()
 * settles the bit) and the reservations of writers filling slots in it.
 * Only a writer makes an empty slot hold data, and it holds a reservation
 * meanwhile, so no slot is counted into a leaf whose ->busy is 0. A slot is
 * locked inside an RCU read-side section, the leaf pointer read again once
 * locked (slot_lock(), slot.h). A writer reserves (zram_ng_leaf_reserve():
 * ->busy + 1, spinning while ZRAM_NG_LEAF_DYING) and installs a leaf if
 * there is none, before it takes its stream or any lock, and drops the
 * reservation after its slot is installed and settled. Whoever brings
 * ->busy to 0 kills the leaf (zram_ng_leaf_kill()): ->busy 0 -> DYING (a
 * writer that reserved first wins), every slot lock of the leaf taken, the
 * pointer cleared, ->busy back to 0 (release: who sees 0 sees NULL), the
 * locks dropped, the leaf freed after a grace period. Holding every slot
 * lock is what lets a slot's holder find its slot through the table. Lock
 * order: a slot lock -> the other slot locks of its leaf, in a kill only.
 * The kill runs with preemption off, so a writer spinning on DYING waits
 * for a running CPU. Reset frees the leaves directly: nobody sees them.
 *
 * A leaf comes from a module-wide mempool with ZRAM_NG_LEAF_RESERVE leaves
 * in reserve, with GFP_NOIO before any lock (a swap-out is a write): the
 * page allocator without direct reclaim, then the reserve, then reclaim,
 * then a freed leaf: a writer always makes progress. The testing build's
 * fail_leaf_alloc fails the first step. ng_stat's table_bytes counts the table.
 */
#define pr_fmt(fmt) "zram_ng: " fmt

#include <linux/bio.h>
#include <linux/build_bug.h>
#include <linux/highmem.h>
#include <linux/mempool.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include "backing.h"
#include "group.h"
#include "slot.h"
#include "zcomp.h"

/*
 * Leaves kept in reserve for writers under memory pressure: one per
 * writer that can be filling a new leaf at the same moment, with a
 * margin: 32 KiB for the module.
 */
#define ZRAM_NG_LEAF_RESERVE	8
/* ->busy while a leaf is being freed: far from any count */
#define ZRAM_NG_LEAF_DYING	INT_MIN

static mempool_t *zram_ng_leaf_pool;

/* A dead leaf waiting for its grace period. */
struct zram_ng_leaf_tomb {
	struct rcu_head rcu;
	struct zram_ng_slot_leaf *leaf;
};

#ifdef ZSNG_TESTING
static int fail_leaf_alloc;
module_param(fail_leaf_alloc, int, 0644);
MODULE_PARM_DESC(fail_leaf_alloc,
		 "Testing build: the next N leaf allocations from the page allocator fail, so writers take leaves from the reserve (-1: every one; default: 0)");

static bool zram_ng_fail_leaf_alloc(void)
{
	int n = READ_ONCE(fail_leaf_alloc);

	if (likely(!n))
		return false;
	return n < 0 || cmpxchg(&fail_leaf_alloc, n, n - 1) == n;
}
#else
static inline bool zram_ng_fail_leaf_alloc(void)
{
	return false;
}
#endif

static void *zram_ng_leaf_alloc_page(gfp_t gfp, void *data)
{
	if (zram_ng_fail_leaf_alloc())
		return NULL;
	return (void *)__get_free_page(gfp);
}

static void zram_ng_leaf_free_page(void *leaf, void *data)
{
	free_page((unsigned long)leaf);
}

int zram_ng_slot_layer_init(void)
{
	zram_ng_leaf_pool = mempool_create(ZRAM_NG_LEAF_RESERVE,
					   zram_ng_leaf_alloc_page,
					   zram_ng_leaf_free_page, NULL);
	return zram_ng_leaf_pool ? 0 : -ENOMEM;
}

/* After every device is gone: the leaves killed last are freed first. */
void zram_ng_slot_layer_exit(void)
{
	rcu_barrier();
	mempool_destroy(zram_ng_leaf_pool);
}

static void zram_ng_leaf_free_rcu(struct rcu_head *rcu)
{
	struct zram_ng_leaf_tomb *tomb =
		container_of(rcu, struct zram_ng_leaf_tomb, rcu);

	mempool_free(tomb->leaf, zram_ng_leaf_pool);
	kfree(tomb);
}

/*
 * Frees the leaf of @dir if its ->busy is still 0 ("A leaf's lifetime" at
 * the top of the file). Called inside an RCU read-side section with
 * preemption off, holding the lock of the leaf's slot @held (-1: none).
 */
static void zram_ng_leaf_kill(struct zram_ng *zram,
			      struct zram_ng_slot_dir *dir, int held)
{
	struct zram_ng_leaf_tomb *tomb;
	struct zram_ng_slot_leaf *leaf;
	int i, idle = 0;

	tomb = kmalloc(sizeof(*tomb), GFP_ATOMIC | __GFP_NOWARN);
	if (!tomb)
		return;	/* the leaf stays, empty, for a writer or reset */
	if (!atomic_try_cmpxchg(&dir->busy, &idle, ZRAM_NG_LEAF_DYING)) {
		kfree(tomb);	/* a writer reserved meanwhile */
		return;
	}
	/*
	 * With a slot held, the leaf is that slot's: killing it needs the
	 * slot's lock. Without, another kill may have come first.
	 */
	leaf = rcu_dereference(dir->leaf);
	if (!leaf) {
		atomic_set_release(&dir->busy, 0);
		kfree(tomb);
		return;
	}

	for (i = 0; i < ZRAM_NG_LEAF_SLOTS; i++) {
		unsigned long *word = &leaf->slots[i].flags;

		/* raw bit operations: 255 nested preempt_disable()s overflow */
		if (i != held)
			while (test_and_set_bit_lock(ZRAM_NG_LOCK, word))
				cpu_relax();
		WARN_ON_ONCE(*word & BIT(ZRAM_NG_COUNTED));
	}
	RCU_INIT_POINTER(dir->leaf, NULL);
	atomic_set_release(&dir->busy, 0);
	for (i = 0; i < ZRAM_NG_LEAF_SLOTS; i++)
		if (i != held)
			clear_bit_unlock(ZRAM_NG_LOCK, &leaf->slots[i].flags);

	atomic64_sub(sizeof(*leaf), &zram->stats.table_bytes);
	tomb->leaf = leaf;
	call_rcu(&tomb->rcu, zram_ng_leaf_free_rcu);
}

/*
 * Called by slot_unlock() with slot @index locked, when its COUNTED bit
 * and what it holds disagree: counts it into its leaf's ->busy, or out
 * of it, and kills the leaf when that was its last count.
 */
void zram_ng_slot_settle(struct zram_ng *zram, u32 index)
{
	struct zram_ng_slot_dir *dir = slot_dir(zram, index);
	struct zram_ng_slot *slot = slot_ptr(zram, index);

	if (!(slot->flags & BIT(ZRAM_NG_COUNTED))) {
		slot->flags |= BIT(ZRAM_NG_COUNTED);
		/* only a writer fills an empty slot, holding a reservation */
		WARN_ON_ONCE(atomic_inc_return(&dir->busy) < 2);
		return;
	}
	slot->flags &= ~BIT(ZRAM_NG_COUNTED);
	if (atomic_dec_and_test(&dir->busy))
		zram_ng_leaf_kill(zram, dir, index & ZRAM_NG_LEAF_MASK);
}

/*
 * A writer's reservation on the leaf of slot @index, installing the leaf
 * if there is none; may sleep (GFP_NOIO), never fails.
 */
static void zram_ng_leaf_reserve(struct zram_ng *zram, u32 index)
{
	struct zram_ng_slot_dir *dir = slot_dir(zram, index);
	struct zram_ng_slot_leaf *leaf;
	int busy = atomic_read(&dir->busy);

	for (;;) {
		if (unlikely(busy == ZRAM_NG_LEAF_DYING)) {
			cpu_relax();
			busy = atomic_read(&dir->busy);
			continue;
		}
		if (atomic_try_cmpxchg(&dir->busy, &busy, busy + 1))
			break;
	}
	if (rcu_access_pointer(dir->leaf))
		return;

	/* process context, may sleep: mempool_alloc() cannot fail */
	leaf = mempool_alloc(zram_ng_leaf_pool, GFP_NOIO);
	clear_page(leaf);
	/* fully ordered: the zeroes are seen before the pointer */
	if (cmpxchg((__force struct zram_ng_slot_leaf **)&dir->leaf, NULL,
		    leaf))
		mempool_free(leaf, zram_ng_leaf_pool);
	else
		atomic64_add(sizeof(*leaf), &zram->stats.table_bytes);
}

/* Drops the reservation of zram_ng_leaf_reserve(), maybe the last count. */
static void zram_ng_leaf_unreserve(struct zram_ng *zram, u32 index)
{
	struct zram_ng_slot_dir *dir = slot_dir(zram, index);

	if (!atomic_dec_and_test(&dir->busy))
		return;
	preempt_disable();
	rcu_read_lock();
	zram_ng_leaf_kill(zram, dir, -1);
	rcu_read_unlock();
	preempt_enable();
}

void zram_ng_update_used_max(struct zram_ng *zram, unsigned long pages)
{
	long cur_max = atomic_long_read(&zram->stats.max_used_pages);

	do {
		if (cur_max >= pages)
			return;
	} while (!atomic_long_try_cmpxchg(&zram->stats.max_used_pages,
					  &cur_max, pages));
}

/* Stores @len bytes at @src while holding a compression stream. */
unsigned long zram_ng_obj_store_nosleep(struct zram_ng *zram, const void *src,
					unsigned int len)
{
	return zsng_store(zram->mem_pool, src, len, ZRAM_NG_NOSLEEP_GFP);
}

/* A page whose words are all equal is stored as that word. */
static bool page_same_filled(void *ptr, unsigned long *element)
{
	unsigned long *page = ptr;
	unsigned long val = page[0];
	unsigned int pos;

	if (val != page[PAGE_SIZE / sizeof(*page) - 1])
		return false;
	for (pos = 1; pos < PAGE_SIZE / sizeof(*page) - 1; pos++)
		if (val != page[pos])
			return false;
	*element = val;
	return true;
}

/*
 * Called with the slot locked: leaves it empty and the stats adjusted. It
 * clears ZRAM_NG_IDLE (an in-flight writeback sees the slot changed) but
 * never ZRAM_NG_UNDER_WB, which is the writeback's to clear.
 */
void zram_ng_slot_free(struct zram_ng *zram, u32 index)
{
	unsigned long handle;

	slot_set_ac_time(zram, index, 0);
	slot_clear_flag(zram, index, ZRAM_NG_IDLE);
	slot_clear_flag(zram, index, ZRAM_NG_INCOMPRESSIBLE);
	slot_set_priority(zram, index, ZRAM_NG_PRIMARY_COMP);

	if (slot_test_flag(zram, index, ZRAM_NG_HUGE)) {
		slot_clear_flag(zram, index, ZRAM_NG_HUGE);
		atomic64_dec(&zram->stats.huge_pages);
	}

	if (slot_test_flag(zram, index, ZRAM_NG_WB)) {
		slot_clear_flag(zram, index, ZRAM_NG_WB);
		if (slot_test_flag(zram, index, ZRAM_NG_GROUPED)) {
			/* a written-back group's blocks go with its last page */
			slot_clear_flag(zram, index, ZRAM_NG_GROUPED);
			zram_ng_group_leave(zram, (struct zram_ng_group *)
					    slot_element(zram, index), 0);
		} else {
			zram_ng_bd_free_block(zram, slot_element(zram, index));
		}
		atomic64_dec(&zram->stats.pages_stored);
		goto out;
	}

	if (slot_test_flag(zram, index, ZRAM_NG_SAME)) {
		slot_clear_flag(zram, index, ZRAM_NG_SAME);
		atomic64_dec(&zram->stats.same_pages);
		atomic64_dec(&zram->stats.pages_stored);
		goto out;
	}

	handle = slot_handle(zram, index);
	if (!handle)
		return;

	if (slot_test_flag(zram, index, ZRAM_NG_GROUPED)) {
		slot_clear_flag(zram, index, ZRAM_NG_GROUPED);
		zram_ng_group_leave(zram, (struct zram_ng_group *)handle,
				    slot_obj_size(zram, index));
		atomic64_sub(slot_obj_size(zram, index),
			     &zram->stats.compr_data_size);
		atomic64_dec(&zram->stats.pages_stored);
		goto out;
	}

	zsng_free(zram->mem_pool, handle);
	atomic64_sub(slot_obj_size(zram, index), &zram->stats.compr_data_size);
	atomic64_dec(&zram->stats.pages_stored);
out:
	slot_set_handle(zram, index, 0);
	slot_set_obj_size(zram, index, 0);
}

/*
 * Called with the slot locked: replaces its contents by the object
 * @handle of @len bytes (PAGE_SIZE: stored raw, huge), compressed by the
 * algorithm of priority @prio. Its access time is left at 0.
 */
void zram_ng_slot_install(struct zram_ng *zram, u32 index,
			  unsigned long handle, unsigned int len, u32 prio)
{
	zram_ng_slot_free(zram, index);
	if (len == PAGE_SIZE) {
		slot_set_flag(zram, index, ZRAM_NG_HUGE);
		atomic64_inc(&zram->stats.huge_pages);
		atomic64_inc(&zram->stats.huge_pages_since);
	}
	slot_set_handle(zram, index, handle);
	slot_set_obj_size(zram, index, len);
	slot_set_priority(zram, index, prio);
	atomic64_add(len, &zram->stats.compr_data_size);
	atomic64_inc(&zram->stats.pages_stored);
}

/* Called with the slot locked: the page is same-filled with @element. */
static void zram_ng_slot_install_same(struct zram_ng *zram, u32 index,
				      unsigned long element)
{
	zram_ng_slot_free(zram, index);
	slot_set_flag(zram, index, ZRAM_NG_SAME);
	slot_set_element(zram, index, element);
	atomic64_inc(&zram->stats.same_pages);
	atomic64_inc(&zram->stats.pages_stored);
}

/*
 * Called with the slot locked: its page is now page @k of the group @grp
 * (grouping.c made it), charged with its share of the stream's bytes. The
 * access time and the idle mark stay: the page is as cold as it was.
 */
void zram_ng_slot_install_group(struct zram_ng *zram, u32 index,
				struct zram_ng_group *grp, unsigned int k)
{
	u32 share = zram_ng_group_share(grp, k);
	ktime_t ac_time = slot_ac_time(zram, index);
	bool idle = slot_test_flag(zram, index, ZRAM_NG_IDLE);

	zram_ng_slot_free(zram, index);
	zram_ng_group_join(zram, grp, k);
	slot_set_flag(zram, index, ZRAM_NG_GROUPED);
	slot_set_handle(zram, index, (unsigned long)grp);
	slot_set_obj_size(zram, index, share);
	slot_set_ac_time(zram, index, ac_time);
	if (idle)
		slot_set_flag(zram, index, ZRAM_NG_IDLE);
	atomic64_add(share, &zram->stats.compr_data_size);
	atomic64_inc(&zram->stats.pages_stored);
}

/*
 * Called with the slot locked: its page is now page @k of @grp, a group
 * on the backing device (writeback.c wrote the stream of the group the
 * slot was in). The access time and the idle mark stay.
 */
void zram_ng_slot_install_group_wb(struct zram_ng *zram, u32 index,
				   struct zram_ng_group *grp, unsigned int k)
{
	ktime_t ac_time = slot_ac_time(zram, index);
	bool idle = slot_test_flag(zram, index, ZRAM_NG_IDLE);

	zram_ng_slot_free(zram, index);
	zram_ng_group_join(zram, grp, k);
	slot_set_flag(zram, index, ZRAM_NG_WB);
	slot_set_flag(zram, index, ZRAM_NG_GROUPED);
	slot_set_element(zram, index, (unsigned long)grp);
	slot_set_ac_time(zram, index, ac_time);
	if (idle)
		slot_set_flag(zram, index, ZRAM_NG_IDLE);
	atomic64_inc(&zram->stats.pages_stored);
}

/* Called with the slot locked: the page is on block @blk of the backing device. */
void zram_ng_slot_install_wb(struct zram_ng *zram, u32 index, unsigned long blk)
{
	zram_ng_slot_free(zram, index);
	slot_set_flag(zram, index, ZRAM_NG_WB);
	slot_set_element(zram, index, blk);
	atomic64_inc(&zram->stats.pages_stored);
}

static void fill_page(void *ptr, unsigned long value)
{
	memset_l(ptr, value, PAGE_SIZE / sizeof(unsigned long));
}

u32 zram_ng_slot_next_present(struct zram_ng *zram, u32 index, u32 end)
{
	while (index < end && !rcu_access_pointer(slot_dir(zram, index)->leaf))
		index = min_t(u64, ((u64)index | ZRAM_NG_LEAF_MASK) + 1, end);
	return index;
}

void zram_ng_slots_discard(struct zram_ng *zram, u32 index, u32 nr)
{
	u32 end = index + nr;

	for (; index < end; index++) {
		index = zram_ng_slot_next_present(zram, index, end);
		if (index == end)
			break;
		if (!slot_lock(zram, index))
			continue;
		zram_ng_slot_free(zram, index);
		slot_unlock(zram, index);
	}
}

/* Never spins on the slot's lock: the caller holds the swap lock. */
bool zram_ng_slot_discard_nowait(struct zram_ng *zram, u32 index)
{
	struct zram_ng_slot_dir *dir = slot_dir(zram, index);
	struct zram_ng_slot_leaf *leaf;
	unsigned long *word;

	rcu_read_lock();
	for (;;) {
		leaf = rcu_dereference(dir->leaf);
		if (!leaf) {
			rcu_read_unlock();
			return true;	/* nothing to free */
		}
		word = &leaf->slots[index & ZRAM_NG_LEAF_MASK].flags;
		if (!bit_spin_trylock(ZRAM_NG_LOCK, word)) {
			rcu_read_unlock();
			return false;
		}
		if (likely(rcu_access_pointer(dir->leaf) == leaf))
			break;
		/* killed before we had the lock, as in slot_lock() */
		bit_spin_unlock(ZRAM_NG_LOCK, word);
	}
	zram_ng_slot_free(zram, index);
	slot_unlock(zram, index);	/* and the RCU section */
	return true;
}

/*
 * Decompresses slot @index, which is locked and not on the backing device,
 * into @page (a whole page), with the algorithm that compressed it.
 */
int zram_ng_slot_read_locked(struct zram_ng *zram, struct page *page,
			     u32 index)
{
	struct zcomp_ng_strm *zstrm;
	struct zcomp_ng *comp;
	unsigned long handle;
	unsigned int size;
	void *src, *dst;
	int ret = 0;

	handle = slot_handle(zram, index);
	if (!handle || slot_test_flag(zram, index, ZRAM_NG_SAME)) {
		unsigned long value = handle ? slot_element(zram, index) : 0;

		dst = kmap_local_page(page);
		fill_page(dst, value);
		kunmap_local(dst);
		return 0;
	}

	if (slot_test_flag(zram, index, ZRAM_NG_GROUPED)) {
		dst = kmap_local_page(page);
		ret = zram_ng_group_read(zram, (struct zram_ng_group *)handle,
					 index, dst);
		kunmap_local(dst);
		return ret;
	}

	size = slot_obj_size(zram, index);
	if (size == PAGE_SIZE) {
		src = zsng_map_object(zram->mem_pool, handle, ZSNG_MM_RO);
		dst = kmap_local_page(page);
		memcpy(dst, src, PAGE_SIZE);
		kunmap_local(dst);
		zsng_unmap_object(zram->mem_pool, handle);
		return 0;
	}

	comp = zram->comps[slot_priority(zram, index)];
	/* the stream first: mapping must not sleep or migrate */
	zstrm = zcomp_ng_stream_get(comp);
	src = zsng_map_object(zram->mem_pool, handle, ZSNG_MM_RO);
	dst = kmap_local_page(page);
	ret = zcomp_ng_decompress(zstrm, src, size, dst);
	kunmap_local(dst);
	zsng_unmap_object(zram->mem_pool, handle);
	zcomp_ng_stream_put(comp);

	if (WARN_ON_ONCE(ret))
		pr_err("decompression failed, slot %u, priority %u\n", index,
		       slot_priority(zram, index));
	return ret;
}

/*
 * Reads slot @index, locked, a member of a written-back group, into
 * @page and unlocks it: from this CPU's group cache, or by reading the
 * group's blocks (synchronously, whatever the caller: a group is cold
 * data, read rarely) once the lock is dropped.
 */
static int zram_ng_slot_read_group_wb(struct zram_ng *zram, struct page *page,
				      u32 index)
{
	struct zram_ng_group_bd_read r;
	void *dst = kmap_local_page(page);
	int ret;

	ret = zram_ng_group_bd_read_begin(zram, (struct zram_ng_group *)
					  slot_element(zram, index), index,
					  dst, &r);
	kunmap_local(dst);
	slot_unlock(zram, index);
	if (ret <= 0)
		return ret;
	return zram_ng_group_bd_read_end(zram, &r, page);
}

/*
 * Decompresses slot @index into @page (a whole page), or has backing.c
 * read it from the backing device, without the slot lock: chained to
 * @parent, which then completes only once the page is read, or
 * synchronously when @parent is NULL.
 */
int zram_ng_slot_read(struct zram_ng *zram, struct page *page, u32 index,
		      struct bio *parent)
{
	void *dst;
	int ret;

	if (!slot_lock(zram, index)) {
		/* no leaf: never written, or emptied since */
		dst = kmap_local_page(page);
		fill_page(dst, 0);
		kunmap_local(dst);
		return 0;
	}
	if (slot_test_flag(zram, index, ZRAM_NG_WB)) {
		unsigned long blk = slot_element(zram, index);
		unsigned int epoch;

		if (slot_test_flag(zram, index, ZRAM_NG_GROUPED))
			return zram_ng_slot_read_group_wb(zram, page, index);
		/* keeps blk from reuse until the read is done (backing.c) */
		epoch = zram_ng_bd_read_begin(zram);
		slot_unlock(zram, index);
		return zram_ng_bd_read(zram, page, blk, parent, epoch);
	}
	ret = zram_ng_slot_read_locked(zram, page, index);
	slot_unlock(zram, index);
	return ret;
}

/* Compresses the whole @page into slot @index, whose leaf is reserved. */
static int zram_ng_slot_store(struct zram_ng *zram, struct page *page,
			      u32 index)
{
	unsigned long handle = 0, element = 0, alloced_pages, limit_pages;
	unsigned int comp_len = 0, alloc_len = 0;
	struct zcomp_ng *comp = zram->comps[ZRAM_NG_PRIMARY_COMP];
	struct zcomp_ng_strm *zstrm;
	void *src;
	int ret;

	src = kmap_local_page(page);
	if (page_same_filled(src, &element)) {
		kunmap_local(src);
		slot_lock(zram, index);
		zram_ng_slot_install_same(zram, index, element);
		slot_unlock(zram, index);
		return 0;
	}
	kunmap_local(src);

compress_again:
	zstrm = zcomp_ng_stream_get(comp);
	src = kmap_local_page(page);
	ret = zcomp_ng_compress(zstrm, src, &comp_len);
	kunmap_local(src);
	if (unlikely(ret)) {
		zcomp_ng_stream_put(comp);
		pr_err("compression failed, slot %u: %d\n", index, ret);
		zsng_free(zram->mem_pool, handle);
		return ret;
	}

	if (comp_len >= zram->huge_class_size)
		comp_len = PAGE_SIZE;

	/* a recompression is deterministic, but do not trust it blindly */
	if (handle && comp_len != alloc_len) {
		zsng_free(zram->mem_pool, handle);
		handle = 0;
	}

	src = comp_len == PAGE_SIZE ? kmap_local_page(page) : zstrm->buffer;
	if (!handle) {
		/* first without sleeping: the stream pins us to this CPU */
		handle = zram_ng_obj_store_nosleep(zram, src, comp_len);
		if (IS_ERR_VALUE(handle)) {
			if (comp_len == PAGE_SIZE)
				kunmap_local(src);
			/* drop the stream, allocate as we may, compress again */
			zcomp_ng_stream_put(comp);
			atomic64_inc(&zram->stats.writestall);
			handle = zsng_malloc(zram->mem_pool, comp_len,
					     ZRAM_NG_SLEEP_GFP);
			if (IS_ERR_VALUE(handle))
				return PTR_ERR((void *)handle);
			alloc_len = comp_len;
			goto compress_again;
		}
	} else {
		zsng_write_object(zram->mem_pool, handle, src, comp_len);
	}
	if (comp_len == PAGE_SIZE)
		kunmap_local(src);
	zcomp_ng_stream_put(comp);

	alloced_pages = zsng_get_total_pages(zram->mem_pool);
	zram_ng_update_used_max(zram, alloced_pages);
	limit_pages = READ_ONCE(zram->limit_pages);
	if (limit_pages && alloced_pages > limit_pages) {
		zsng_free(zram->mem_pool, handle);
		return -ENOMEM;
	}

	/* the old contents go only once the new ones are safely stored */
	slot_lock(zram, index);
	zram_ng_slot_install(zram, index, handle, comp_len,
			     ZRAM_NG_PRIMARY_COMP);
	slot_unlock(zram, index);
	return 0;
}

/*
 * Compresses the whole @page into slot @index, under a reservation on its
 * leaf (top of the file), taken before anything else.
 */
int zram_ng_slot_write(struct zram_ng *zram, struct page *page, u32 index)
{
	int ret;

	zram_ng_leaf_reserve(zram, index);
	ret = zram_ng_slot_store(zram, page, index);
	zram_ng_leaf_unreserve(zram, index);
	return ret;
}

/* After every read or write of slot @index (taking its lock). */
void zram_ng_slot_accessed(struct zram_ng *zram, u32 index)
{
	/* an empty slot has no access time to keep */
	if (!slot_lock(zram, index))
		return;
	slot_clear_flag(zram, index, ZRAM_NG_IDLE);
	slot_set_ac_time(zram, index, ktime_get_boottime());
	slot_unlock(zram, index);
}

void zram_ng_comp_params_reset(struct zram_ng *zram, u32 prio)
{
	struct zcomp_ng_params *p = &zram->comp_params[prio];

	vfree(p->dict);
	p->dict = NULL;
	p->dict_size = 0;
	p->level = ZCOMP_NG_NO_LEVEL;
}

/* Every algorithm's streams, primary and secondary. */
static void zram_ng_destroy_comps(struct zram_ng *zram)
{
	u32 prio;

	for (prio = 0; prio < ZRAM_NG_MAX_COMPS; prio++) {
		if (zram->comps[prio])
			zcomp_ng_destroy(zram->comps[prio]);
		zram->comps[prio] = NULL;
	}
	/* after the slots: no group is left to decompress with it */
	if (zram->group_comp)
		zcomp_ng_destroy(zram->group_comp);
	zram->group_comp = NULL;
}

/*
 * The streams of the primary algorithm and of the secondary ones set
 * (recomp_algorithm), by priority. The caller frees them on error.
 */
static int zram_ng_create_comps(struct zram_ng *zram)
{
	struct zcomp_ng *comp;
	u32 prio;

	comp = zcomp_ng_create(zram->compressor,
			       &zram->comp_params[ZRAM_NG_PRIMARY_COMP]);
	if (IS_ERR(comp)) {
		pr_err("cannot initialise the %s compressor: %ld\n",
		       zram->compressor, PTR_ERR(comp));
		return PTR_ERR(comp);
	}
	zram->comps[ZRAM_NG_PRIMARY_COMP] = comp;

	for (prio = ZRAM_NG_SECONDARY_COMP; prio < ZRAM_NG_MAX_COMPS; prio++) {
		if (!zram->recomp_algs[prio][0])
			continue;
		comp = zcomp_ng_create(zram->recomp_algs[prio],
				       &zram->comp_params[prio]);
		if (IS_ERR(comp)) {
			pr_err("cannot initialise the %s compressor: %ld\n",
			       zram->recomp_algs[prio], PTR_ERR(comp));
			return PTR_ERR(comp);
		}
		zram->comps[prio] = comp;
	}
	return 0;
}

/* The top array's entries of a device of @num_pages pages. */
static size_t zram_ng_nr_dirs(u64 num_pages)
{
	return DIV_ROUND_UP(num_pages, ZRAM_NG_LEAF_SLOTS);
}

/*
 * The top array, zeroed (kvfree() frees it), and the bytes it takes in
 * @bytes: beyond a page, in whole pages of vmalloc, where kvmalloc()
 * would take it from kmalloc when it can, rounded up to a power of two (a
 * 100 GiB device's 1.6 MiB would cost 2 MiB).
 */
static struct zram_ng_slot_dir *zram_ng_alloc_top(size_t nr_dirs,
						  size_t *bytes)
{
	size_t size = array_size(nr_dirs, sizeof(struct zram_ng_slot_dir));

	if (size <= PAGE_SIZE) {
		*bytes = size;
		return kzalloc(size, GFP_KERNEL | __GFP_NOWARN);
	}
	*bytes = PAGE_ALIGN(size);
	return __vmalloc(size, GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN);
}

/*
 * Called with init_lock held for write by disksize_store: the table, the
 * pool (with @pool_flags) and the streams of a device of @disksize bytes,
 * page aligned and non-zero. Every size the u32 slot index addresses is
 * accepted: only the top array is allocated now (1/256 of a flat table,
 * top of the file), -ENOMEM if even that cannot be had; beyond, -EINVAL
 * with a line in the kernel log saying why.
 */
int zram_ng_slots_init(struct zram_ng *zram, u64 disksize,
		       unsigned int pool_flags)
{
	u64 num_pages = disksize >> PAGE_SHIFT;
	size_t nr_dirs = zram_ng_nr_dirs(num_pages);
	size_t top_bytes;
	int ret;

	/* the slot: two words, the layout at the top of the file */
	BUILD_BUG_ON(sizeof(struct zram_ng_slot) != 16);
	BUILD_BUG_ON(sizeof(struct zram_ng_slot_dir) != 16);
	BUILD_BUG_ON(sizeof(struct zram_ng_slot_leaf) != PAGE_SIZE);
	/* the size, the flags and the priority below the access time ... */
	BUILD_BUG_ON(ZRAM_NG_AC_TIME_SHIFT >
		     sizeof_field(struct zram_ng_slot, flags) * BITS_PER_BYTE);
	BUILD_BUG_ON(ZRAM_NG_MAX_COMPS - 1 >
		     ZRAM_NG_PRIO_MASK >> ZRAM_NG_PRIO_BIT0);
	/* ... which keeps 34 years of milliseconds at least */
	BUILD_BUG_ON(BITS_PER_LONG - ZRAM_NG_AC_TIME_SHIFT < 40);

	if (num_pages > U32_MAX) {
		pr_warn_ratelimited("%s: disksize %llu refused: more than %u pages, the most a 32-bit slot index addresses\n",
				    zram->disk->disk_name, disksize, U32_MAX);
		return -EINVAL;
	}

	zram->table = zram_ng_alloc_top(nr_dirs, &top_bytes);
	if (!zram->table)
		return -ENOMEM;
	atomic64_set(&zram->stats.table_bytes, top_bytes);

	zram->mem_pool = zsng_create_pool_extra(zram->disk->disk_name,
						zram->policy, pool_flags);
	if (!zram->mem_pool) {
		ret = -ENOMEM;
		goto out_free_table;
	}
	zram->huge_class_size = zsng_huge_class_size(zram->mem_pool);

	ret = zram_ng_create_comps(zram);
	if (ret)
		goto out_free_comps;
	return 0;

out_free_comps:
	zram_ng_destroy_comps(zram);
	zsng_destroy_pool(zram->mem_pool);
	zram->mem_pool = NULL;
out_free_table:
	kvfree(zram->table);
	zram->table = NULL;
	return ret;
}

/*
 * Called with init_lock held for write (reset), or on a device nobody can
 * see: frees every slot (a written-back one's block too), the leaves, the
 * pool, the table and the streams. No lock and no RCU grace period: no
 * slot is locked or looked up any more (the RCU section only satisfies
 * the accessors).
 */
void zram_ng_slots_free(struct zram_ng *zram)
{
	size_t nr_dirs = zram_ng_nr_dirs(zram->disksize >> PAGE_SHIFT);
	struct zram_ng_slot_leaf *leaf;
	size_t dir;
	u32 i;

	if (zram->table) {
		for (dir = 0; dir < nr_dirs; dir++) {
			leaf = rcu_dereference_protected(zram->table[dir].leaf,
							 true);
			if (!leaf)
				continue;
			rcu_read_lock();
			for (i = 0; i < ZRAM_NG_LEAF_SLOTS; i++)
				zram_ng_slot_free(zram, (dir << ZRAM_NG_LEAF_SHIFT) + i);
			rcu_read_unlock();
			mempool_free(leaf, zram_ng_leaf_pool);
			cond_resched();
		}
		zsng_destroy_pool(zram->mem_pool);
		kvfree(zram->table);
		zram->table = NULL;
		zram->mem_pool = NULL;
	}
	zram_ng_destroy_comps(zram);
}

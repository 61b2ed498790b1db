// SPDX-License-Identifier: GPL-2.0
/*
 * zram_ng's slot layer: what is stored for each page of the disk.
 *
 * Every 4 KiB page of the disk is a slot of zram->table. A slot is empty,
 * same-filled (one repeated word, no allocation), huge (stored raw because
 * it compressed badly), a compressed object in the pool, or on the
 * backing device (backing.c). A compressed slot records the priority of
 * the algorithm that compressed it, which reads use: recompression
 * (recompress.c) stores some with a secondary algorithm. A slot also
 * carries its last access time and an idle flag (idle.c).
 *
 * The slot's bit spinlock serialises reads, writes, discards and swap
 * free notifications of that page, and everything writeback,
 * recompression and idle marking do to it. This file reads, writes and
 * frees a slot and installs a new object in it; the layers above never
 * store or free an object in a slot by hand. It owns the allocation flags
 * of the write path too: a writer holds its CPU's compression stream, so
 * it first allocates without sleeping.
 *
 * A written-back slot's block number is read, and the read registered
 * in the backing device's read epoch (which keeps the block from reuse
 * until the read completes), under the slot lock, and the lock dropped
 * before the block is read (backing.c): no I/O under a slot lock.
 */
#define pr_fmt(fmt) "zram_ng: " fmt

#include <linux/bio.h>
#include <linux/build_bug.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "backing.h"
#include "slot.h"
#include "zcomp.h"

/* The allocation of a writer holding a compression stream: no sleeping. */
#define ZRAM_NG_NOSLEEP_GFP	(__GFP_KSWAPD_RECLAIM | __GFP_NOWARN | \
				 __GFP_HIGHMEM | __GFP_MOVABLE)
/* The one that may sleep, once the stream is dropped. */
#define ZRAM_NG_SLEEP_GFP	(GFP_NOIO | __GFP_HIGHMEM | __GFP_MOVABLE)

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
		zram_ng_bd_free_block(zram, slot_element(zram, index));
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
 * Decompresses slot @index into @page (a whole page), or has backing.c
 * read it from the backing device, without the slot lock: chained to
 * @parent, which then completes only once the page is read, or
 * synchronously when @parent is NULL.
 */
int zram_ng_slot_read(struct zram_ng *zram, struct page *page, u32 index,
		      struct bio *parent)
{
	int ret;

	slot_lock(zram, index);
	if (slot_test_flag(zram, index, ZRAM_NG_WB)) {
		unsigned long blk = slot_element(zram, index);
		/* keeps blk from reuse until the read is done (backing.c) */
		unsigned int epoch = zram_ng_bd_read_begin(zram);

		slot_unlock(zram, index);
		return zram_ng_bd_read(zram, page, blk, parent, epoch);
	}
	ret = zram_ng_slot_read_locked(zram, page, index);
	slot_unlock(zram, index);
	return ret;
}

/* Compresses the whole @page into slot @index. */
int zram_ng_slot_write(struct zram_ng *zram, struct page *page, u32 index)
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

/* After every read or write of slot @index (taking its lock). */
void zram_ng_slot_accessed(struct zram_ng *zram, u32 index)
{
	slot_lock(zram, index);
	slot_clear_flag(zram, index, ZRAM_NG_IDLE);
	slot_set_ac_time(zram, index, ktime_get_boottime());
	slot_unlock(zram, index);
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
}

/*
 * The streams of the primary algorithm and of the secondary ones set
 * (recomp_algorithm), by priority. The caller frees them on error.
 */
static int zram_ng_create_comps(struct zram_ng *zram)
{
	struct zcomp_ng *comp;
	u32 prio;

	comp = zcomp_ng_create(zram->compressor);
	if (IS_ERR(comp)) {
		pr_err("cannot initialise the %s compressor\n",
		       zram->compressor);
		return PTR_ERR(comp);
	}
	zram->comps[ZRAM_NG_PRIMARY_COMP] = comp;

	for (prio = ZRAM_NG_SECONDARY_COMP; prio < ZRAM_NG_MAX_COMPS; prio++) {
		if (!zram->recomp_algs[prio][0])
			continue;
		comp = zcomp_ng_create(zram->recomp_algs[prio]);
		if (IS_ERR(comp)) {
			pr_err("cannot initialise the %s compressor\n",
			       zram->recomp_algs[prio]);
			return PTR_ERR(comp);
		}
		zram->comps[prio] = comp;
	}
	return 0;
}

/*
 * Called with init_lock held for write by disksize_store: the table, the
 * pool (with @pool_flags) and the streams of a device of @disksize bytes,
 * page aligned and non-zero. The slot index is a u32, and the table may
 * not take more than half of RAM: anything beyond is refused before
 * allocating, so an absurd size is an error and not a kernel warning.
 */
int zram_ng_slots_init(struct zram_ng *zram, u64 disksize,
		       unsigned int pool_flags)
{
	u64 num_pages = disksize >> PAGE_SHIFT;
	int ret;

	/* the flags and the priority fit in the flags word */
	BUILD_BUG_ON(__NR_ZRAM_NG_FLAGS >
		     sizeof_field(struct zram_ng_slot, flags) * BITS_PER_BYTE);
	BUILD_BUG_ON(ZRAM_NG_MAX_COMPS - 1 >
		     ZRAM_NG_PRIO_MASK >> ZRAM_NG_PRIO_BIT0);

	if (num_pages > U32_MAX)
		return -EINVAL;
	if (num_pages * sizeof(*zram->table) >
	    (u64)(totalram_pages() / 2) << PAGE_SHIFT)
		return -ENOMEM;

	zram->table = kvcalloc(num_pages, sizeof(*zram->table),
			       GFP_KERNEL | __GFP_NOWARN);
	if (!zram->table)
		return -ENOMEM;

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
 * see: frees every slot (a written-back one's block too), the pool, the
 * table and the streams.
 */
void zram_ng_slots_free(struct zram_ng *zram)
{
	size_t num_pages = zram->disksize >> PAGE_SHIFT;
	size_t index;

	if (zram->table) {
		for (index = 0; index < num_pages; index++)
			zram_ng_slot_free(zram, index);
		zsng_destroy_pool(zram->mem_pool);
		kvfree(zram->table);
		zram->table = NULL;
		zram->mem_pool = NULL;
	}
	zram_ng_destroy_comps(zram);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * zram_ng's backing device: claiming it, its block bitmap and block I/O.
 * What is written back, and when, is writeback.c's; this file moves pages
 * and knows nothing of slots.
 *
 * The backing device is claimed exclusively (the zram_ng device is the
 * holder) when backing_dev is written, before disksize, and given back on
 * reset: it cannot change while the device is initialised, so the I/O
 * path reads zram->backing without a lock. Its blocks are pages; a bitmap
 * says which are in use. Block 0 is never used, so a written-back slot's
 * block number is never 0.
 *
 * Reads of a written-back page (zram_ng_bd_read(), the one entry for
 * them): a whole page of a bio is read by a bio of its own chained to it
 * (the parent completes when the last such read has), as the stock zram
 * does, so the pages of a bio are read in parallel; a read error is
 * counted in failed_reads and fails the parent. The others are
 * synchronous: submit_bio_wait() of the block into the page. From
 * ->rw_page (swap on 6.1) that is called as it is; from our ->submit_bio
 * it cannot be, since a bio submitted there is only queued
 * (current->bio_list) until we return, so there the read is made by a
 * worker of a WQ_MEM_RECLAIM workqueue while we wait. (Read that way,
 * whole pages came back at 0.75-0.85x the stock zram's bandwidth:
 * benchmarks.rst.)
 *
 * The backing device failing is an ordinary event: a failed write leaves
 * the slot in memory (writeback then returns the error), a failed read
 * fails that read with -EIO, and a device that goes away stays claimed
 * (its struct block_device with it) and fails every I/O until reset.
 */
#define pr_fmt(fmt) "zram_ng: " fmt

#include <linux/bio.h>
#include <linux/bitops.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include "backing.h"

static struct workqueue_struct *zram_ng_wb_wq;

int zram_ng_backing_init(void)
{
	zram_ng_wb_wq = alloc_workqueue("zram_ng_wb",
					WQ_MEM_RECLAIM | WQ_UNBOUND, 0);
	return zram_ng_wb_wq ? 0 : -ENOMEM;
}

void zram_ng_backing_exit(void)
{
	destroy_workqueue(zram_ng_wb_wq);
}

/* Called with init_lock held for write, or on a device nobody can see. */
void zram_ng_backing_release(struct zram_ng *zram)
{
	if (!zram->backing.bdev)
		return;
	compat_bdev_claim_release(&zram->backing);
	kvfree(zram->bd_bitmap);
	zram->bd_bitmap = NULL;
	zram->bd_nr_pages = 0;
	kfree(zram->backing_path);
	zram->backing_path = NULL;
}

/*
 * Claims the block device at @path (which this takes, freed on error)
 * and replaces the previous one; -EBUSY once initialised or when someone
 * else holds the device, the errors of opening it read-write (-ENOENT,
 * -EISDIR ...), -ENOTBLK for another kind of file, -EINVAL when it is
 * smaller than a page (which refuses the device itself, too).
 */
int zram_ng_backing_set(struct zram_ng *zram, char *path)
{
	struct compat_bdev_claim claim = {};
	unsigned long nr_pages, *bitmap;
	struct file *probe;
	int ret;

	/* opened first as 6.1 opens it, for 6.1's errors (-EISDIR ...) */
	probe = filp_open(path, O_RDWR | O_LARGEFILE, 0);
	if (IS_ERR(probe)) {
		ret = PTR_ERR(probe);
		goto out_free_path;
	}
	ret = S_ISBLK(file_inode(probe)->i_mode) ? 0 : -ENOTBLK;
	filp_close(probe, NULL);
	if (ret)
		goto out_free_path;

	ret = compat_bdev_claim_open(&claim, path, zram);
	if (ret)
		goto out_free_path;

	nr_pages = bdev_nr_bytes(claim.bdev) >> PAGE_SHIFT;
	if (!nr_pages) {
		ret = -EINVAL;
		goto out_release;
	}
	bitmap = kvcalloc(BITS_TO_LONGS(nr_pages), sizeof(long), GFP_KERNEL);
	if (!bitmap) {
		ret = -ENOMEM;
		goto out_release;
	}

	down_write(&zram->init_lock);
	if (zram_ng_init_done(zram)) {
		up_write(&zram->init_lock);
		kvfree(bitmap);
		ret = -EBUSY;
		goto out_release;
	}
	zram_ng_backing_release(zram);
	zram->backing = claim;
	zram->backing_path = path;
	zram->bd_bitmap = bitmap;
	zram->bd_nr_pages = nr_pages;
	up_write(&zram->init_lock);

	pr_info("%s: backing device %s, %lu pages\n", zram->disk->disk_name,
		path, nr_pages);
	return 0;

out_release:
	compat_bdev_claim_release(&claim);
out_free_path:
	kfree(path);
	return ret;
}

/* A free block, taken; 0 when the backing device is full. */
unsigned long zram_ng_bd_alloc_block(struct zram_ng *zram)
{
	unsigned long blk = 1;

	do {
		blk = find_next_zero_bit(zram->bd_bitmap, zram->bd_nr_pages,
					 blk);
		if (blk >= zram->bd_nr_pages)
			return 0;
	} while (test_and_set_bit(blk, zram->bd_bitmap));
	atomic64_inc(&zram->stats.bd_count);
	return blk;
}

void zram_ng_bd_free_block(struct zram_ng *zram, unsigned long blk)
{
	WARN_ON_ONCE(!test_and_clear_bit(blk, zram->bd_bitmap));
	atomic64_dec(&zram->stats.bd_count);
}

/* One page to or from block @blk, waiting for it. */
static int zram_ng_bd_rw(struct zram_ng *zram, struct page *page,
			 unsigned long blk, blk_opf_t opf)
{
	struct bio_vec bvec;
	struct bio bio;
	int ret;

	bio_init(&bio, zram->backing.bdev, &bvec, 1, opf);
	bio.bi_iter.bi_sector = (sector_t)blk << ZRAM_NG_SECTORS_PER_PAGE_SHIFT;
	__bio_add_page(&bio, page, PAGE_SIZE, 0);
	ret = submit_bio_wait(&bio);
	bio_uninit(&bio);
	return ret;
}

/* Writes @page to block @blk, waiting for it; 0 or the error. */
int zram_ng_bd_write(struct zram_ng *zram, struct page *page,
		     unsigned long blk)
{
	int ret;

	ret = zram_ng_bd_rw(zram, page, blk, REQ_OP_WRITE | REQ_SYNC);
	if (ret) {
		pr_err_ratelimited("%s: writing block %lu of the backing device failed: %d\n",
				   zram->disk->disk_name, blk, ret);
		return ret;
	}
	atomic64_inc(&zram->stats.bd_writes);
	return 0;
}

struct zram_ng_bd_read_work {
	struct work_struct work;
	struct zram_ng *zram;
	struct page *page;
	unsigned long blk;
	int ret;
};

static void zram_ng_bd_read_fn(struct work_struct *work)
{
	struct zram_ng_bd_read_work *rw =
		container_of(work, struct zram_ng_bd_read_work, work);

	rw->ret = zram_ng_bd_rw(rw->zram, rw->page, rw->blk, REQ_OP_READ);
}

/* Reads block @blk into @page, waiting for it (top of the file). */
static int zram_ng_bd_read_sync(struct zram_ng *zram, struct page *page,
				unsigned long blk)
{
	struct zram_ng_bd_read_work rw = {
		.zram = zram,
		.page = page,
		.blk = blk,
	};

	atomic64_inc(&zram->stats.bd_reads);
	if (!current->bio_list) {
		rw.ret = zram_ng_bd_rw(zram, page, blk, REQ_OP_READ);
	} else {
		INIT_WORK_ONSTACK(&rw.work, zram_ng_bd_read_fn);
		queue_work(zram_ng_wb_wq, &rw.work);
		flush_work(&rw.work);
		destroy_work_on_stack(&rw.work);
	}
	if (rw.ret) {
		pr_err_ratelimited("%s: reading block %lu of the backing device failed: %d\n",
				   zram->disk->disk_name, blk, rw.ret);
		return -EIO;
	}
	return 0;
}

static void zram_ng_bd_read_end_io(struct bio *bio)
{
	struct bio *parent = bio->bi_private;
	struct zram_ng *zram = parent->bi_bdev->bd_disk->private_data;

	if (bio->bi_status) {
		atomic64_inc(&zram->stats.failed_reads);
		/* no block number: the driver may have advanced bi_iter */
		pr_err_ratelimited("%s: reading a block of the backing device failed: %d\n",
				   zram->disk->disk_name,
				   blk_status_to_errno(bio->bi_status));
		/* as bio_chain() does: the first error wins */
		if (!parent->bi_status)
			parent->bi_status = BLK_STS_IOERR;
	} else {
		flush_dcache_page(bio_first_page_all(bio));
	}
	bio_put(bio);
	bio_endio(parent);
}

/*
 * Reads block @blk into @page by a bio chained to @parent (top of the
 * file): returns at once, the parent's completion waits for it.
 */
static void zram_ng_bd_read_chained(struct zram_ng *zram, struct page *page,
				    unsigned long blk, struct bio *parent)
{
	struct bio *bio;

	/* GFP_NOIO may sleep: a bio from the mempool, never NULL */
	bio = bio_alloc(zram->backing.bdev, 1, REQ_OP_READ, GFP_NOIO);
	bio->bi_iter.bi_sector = (sector_t)blk << ZRAM_NG_SECTORS_PER_PAGE_SHIFT;
	__bio_add_page(bio, page, PAGE_SIZE, 0);
	bio->bi_private = parent;
	bio->bi_end_io = zram_ng_bd_read_end_io;
	bio_inc_remaining(parent);
	atomic64_inc(&zram->stats.bd_reads);
	submit_bio(bio);
}

/*
 * Reads block @blk, which a written-back slot named under its lock, into
 * @page: chained to @parent, or synchronously when @parent is NULL. 0 or
 * -EIO. Every read of a written-back page comes through here.
 */
int zram_ng_bd_read(struct zram_ng *zram, struct page *page, unsigned long blk,
		    struct bio *parent)
{
	if (parent) {
		zram_ng_bd_read_chained(zram, page, blk, parent);
		return 0;
	}
	return zram_ng_bd_read_sync(zram, page, blk);
}

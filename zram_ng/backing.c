// SPDX-License-Identifier: GPL-2.0
/*
 * zram_ng's backing device: claiming it, its blocks and block I/O. What
 * is written back, and when, is writeback.c's; this file moves pages and
 * knows nothing of slots.
 *
 * The backing device is claimed exclusively (the zram_ng device is the
 * holder) when backing_dev is written, before disksize, and given back on
 * reset: it cannot change while the device is initialised, so the I/O
 * path reads zram->backing without a lock. Its blocks are pages; a bitmap
 * says which are in use. Block 0 is never used, so a written-back slot's
 * block number is never 0.
 *
 * Block reuse. A read of a written-back slot takes the block number under
 * the slot lock and reads the block after dropping it; meanwhile the slot
 * may be overwritten or discarded, freeing the block, and a writeback may
 * put another slot's page in it before the read reaches the device: the
 * reader would get another sector's data. Checking the slot again after
 * the read cannot tell (the block may be reused and come back to the same
 * slot). So a freed block is not free at once; it is quarantined until
 * every read that may still name it has completed, with two epochs, the
 * scheme of SRCU (whose srcu_down_read(), a read section that may end in
 * another context, 6.1 does not have):
 *  - a read joins the current epoch under the slot lock, before the lock
 *    is dropped (zram_ng_bd_read_begin(): readers[cur & 1]++), and leaves
 *    it when its bio completes, in whatever context (zram_ng_bd_read());
 *  - a block freed under the slot lock goes to quarantine[cur & 1];
 *  - the epoch advances (cur++) only when no read of the previous epoch
 *    is left, and then the blocks freed in the previous epoch become free.
 * A read that named block B joined an epoch no later than the one B was
 * freed in (both happen under the same slot lock, in that order), and B
 * is released at the second advance after its free, which waits for every
 * read of that epoch. The epoch advances lazily, in
 * zram_ng_bd_alloc_block(), once no never-quarantined block is left:
 * freeing stays O(1) under the slot lock, a release is one walk of the
 * quarantine bitmap for many blocks, and writes spread over the whole
 * device before any block is reused. bd_epochs.lock is a leaf under the
 * slot lock; readers[] are atomics, so a completion takes no lock. What
 * it costs: nothing on reads of pages in memory; a spin lock and two
 * atomics on a read of a written-back page.
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
 * worker of a WQ_MEM_RECLAIM workqueue while we wait.
 *
 * The backing device failing is an ordinary event: a failed write leaves
 * the slot in memory and retires the block, or gives it back when the
 * device fails every write (writeback.c goes on with the next one), a
 * failed read fails that read with -EIO, and a device that goes away
 * stays claimed (its struct block_device with it) and fails every I/O
 * until reset. Reset waits for the reads in flight before it
 * gives the device back.
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

/* A chained read: its bio, and what its completion needs. */
struct zram_ng_bd_read_bio {
	struct bio *parent;
	unsigned int epoch;		/* parity of the epoch it joined */
	struct bio bio;			/* last: its bvecs follow it */
};

static struct bio_set zram_ng_bd_read_bioset;

int zram_ng_backing_init(void)
{
	int ret;

	ret = bioset_init(&zram_ng_bd_read_bioset, BIO_POOL_SIZE,
			  offsetof(struct zram_ng_bd_read_bio, bio),
			  BIOSET_NEED_BVECS);
	if (ret)
		return ret;
	zram_ng_wb_wq = alloc_workqueue("zram_ng_wb",
					WQ_MEM_RECLAIM | WQ_UNBOUND, 0);
	if (!zram_ng_wb_wq) {
		bioset_exit(&zram_ng_bd_read_bioset);
		return -ENOMEM;
	}
	return 0;
}

void zram_ng_backing_exit(void)
{
	destroy_workqueue(zram_ng_wb_wq);
	bioset_exit(&zram_ng_bd_read_bioset);
}

void zram_ng_backing_dev_init(struct zram_ng *zram)
{
	spin_lock_init(&zram->bd_epochs.lock);
}

static bool zram_ng_bd_no_reads(struct zram_ng *zram)
{
	return !atomic_read(&zram->bd_epochs.readers[0]) &&
	       !atomic_read(&zram->bd_epochs.readers[1]);
}

/* Called with init_lock held for write, or on a device nobody can see. */
void zram_ng_backing_release(struct zram_ng *zram)
{
	struct zram_ng_bd_epochs *e = &zram->bd_epochs;
	int i;

	if (!zram->backing.bdev)
		return;
	/* the reads in flight name blocks of this device */
	wait_var_event(&zram->bd_epochs, zram_ng_bd_no_reads(zram));
	compat_bdev_claim_release(&zram->backing);
	kvfree(zram->bd_bitmap);
	zram->bd_bitmap = NULL;
	for (i = 0; i < 2; i++) {
		kvfree(e->quarantine[i]);
		e->quarantine[i] = NULL;
		e->nr_quarantined[i] = 0;
	}
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
	unsigned long nr_pages, *bitmap, *quarantine[2] = {};
	struct file *probe;
	int ret, i;

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
	for (i = 0; i < 2; i++)
		quarantine[i] = kvcalloc(BITS_TO_LONGS(nr_pages), sizeof(long),
					 GFP_KERNEL);
	if (!bitmap || !quarantine[0] || !quarantine[1]) {
		ret = -ENOMEM;
		goto out_free_bitmaps;
	}

	down_write(&zram->init_lock);
	if (zram_ng_init_done(zram)) {
		up_write(&zram->init_lock);
		ret = -EBUSY;
		goto out_free_bitmaps;
	}
	zram_ng_backing_release(zram);
	zram->backing = claim;
	zram->backing_path = path;
	zram->bd_bitmap = bitmap;
	for (i = 0; i < 2; i++)
		zram->bd_epochs.quarantine[i] = quarantine[i];
	zram->bd_nr_pages = nr_pages;
	zram->bd_next = 1;
	up_write(&zram->init_lock);

	pr_info("%s: backing device %s, %lu pages\n", zram->disk->disk_name,
		path, nr_pages);
	return 0;

out_free_bitmaps:
	kvfree(bitmap);
	for (i = 0; i < 2; i++)
		kvfree(quarantine[i]);
out_release:
	compat_bdev_claim_release(&claim);
out_free_path:
	kfree(path);
	return ret;
}

/*
 * With bd_epochs.lock held: when no read of the previous epoch is left,
 * frees the blocks quarantined in it and starts the next epoch (top of
 * the file). False when reads of the previous epoch are in flight.
 */
static bool zram_ng_bd_advance(struct zram_ng *zram)
{
	struct zram_ng_bd_epochs *e = &zram->bd_epochs;
	unsigned int prev = (e->cur + 1) & 1;
	unsigned long blk;

	/* pairs with the ordered decrement of zram_ng_bd_read_end() */
	if (atomic_read_acquire(&e->readers[prev]))
		return false;
	if (e->nr_quarantined[prev]) {
		for_each_set_bit(blk, e->quarantine[prev], zram->bd_nr_pages) {
			__clear_bit(blk, e->quarantine[prev]);
			clear_bit(blk, zram->bd_bitmap);
		}
		e->nr_quarantined[prev] = 0;
	}
	e->cur++;
	return true;
}

/*
 * @nr free blocks in a row, taken: the first, or 0 when there are none.
 * Next fit: the search starts where the last one ended (bd_next, a hint
 * read and written without a lock) and goes back to block 1 only when
 * nothing is free after it, so a pass that takes block after block does
 * not scan the blocks it took before each time (stock zram's alloc scans
 * from block 1 for every page, a word read per 64 blocks in use).
 */
static unsigned long zram_ng_bd_find_free(struct zram_ng *zram,
					  unsigned int nr)
{
	unsigned long blk, from = READ_ONCE(zram->bd_next), start;
	unsigned int i;

	if (from < 1 || from >= zram->bd_nr_pages)
		from = 1;
	start = from;
	for (;;) {
		blk = bitmap_find_next_zero_area(zram->bd_bitmap,
						 zram->bd_nr_pages, start, nr, 0);
		if (blk >= zram->bd_nr_pages) {
			if (from == 1)
				return 0;
			/* nothing after the hint: once more from block 1 */
			from = 1;
			start = 1;
			continue;
		}
		for (i = 0; i < nr; i++)
			if (test_and_set_bit(blk + i, zram->bd_bitmap))
				break;
		if (i == nr) {
			WRITE_ONCE(zram->bd_next, blk + nr);
			return blk;
		}
		/* taken meanwhile: give back what this took, look further */
		while (i--)
			clear_bit(blk + i, zram->bd_bitmap);
		start = blk + 1;
	}
}

/*
 * Takes a free block into *@blk: 0, -ENOSPC when every block is held by
 * a slot or retired, -EINTR when a fatal signal came while waiting for
 * the reads that keep quarantined blocks (top of the file). May sleep.
 */
int zram_ng_bd_alloc_block(struct zram_ng *zram, unsigned long *blk)
{
	return zram_ng_bd_alloc_blocks(zram, 1, blk);
}

/*
 * Takes @nr (at most ZRAM_NG_BD_MAX_RUN) free blocks in a row, the first
 * into *@blk (a written-back group's stream, group.c): as
 * zram_ng_bd_alloc_block(), -ENOSPC also when the free blocks are not
 * that many in a row.
 */
int zram_ng_bd_alloc_blocks(struct zram_ng *zram, unsigned int nr,
			    unsigned long *blk)
{
	struct zram_ng_bd_epochs *e = &zram->bd_epochs;
	unsigned int prev;

	if (WARN_ON_ONCE(!nr || nr > ZRAM_NG_BD_MAX_RUN))
		return -EINVAL;
	for (;;) {
		*blk = zram_ng_bd_find_free(zram, nr);
		if (*blk)
			break;
		spin_lock(&e->lock);
		if (!e->nr_quarantined[0] && !e->nr_quarantined[1]) {
			spin_unlock(&e->lock);
			return -ENOSPC;
		}
		prev = (e->cur + 1) & 1;
		if (zram_ng_bd_advance(zram)) {
			spin_unlock(&e->lock);
			continue;
		}
		spin_unlock(&e->lock);
		/* no new read joins the previous epoch: this ends */
		if (wait_var_event_killable(&e->readers[prev],
					    !atomic_read(&e->readers[prev])))
			return -EINTR;
	}
	atomic64_add(nr, &zram->stats.bd_count);
	return 0;
}

/*
 * A block a slot held, freed with the slot locked: quarantined until the
 * reads that may name it are done (top of the file).
 */
void zram_ng_bd_free_block(struct zram_ng *zram, unsigned long blk)
{
	struct zram_ng_bd_epochs *e = &zram->bd_epochs;
	unsigned int cur;

	WARN_ON_ONCE(!test_bit(blk, zram->bd_bitmap));
	spin_lock(&e->lock);
	cur = e->cur & 1;
	if (!WARN_ON_ONCE(__test_and_set_bit(blk, e->quarantine[cur])))
		e->nr_quarantined[cur]++;
	spin_unlock(&e->lock);
	atomic64_dec(&zram->stats.bd_count);
}

/* A block taken but never named by a slot: free at once. */
void zram_ng_bd_put_block(struct zram_ng *zram, unsigned long blk)
{
	WARN_ON_ONCE(!test_and_clear_bit(blk, zram->bd_bitmap));
	atomic64_dec(&zram->stats.bd_count);
}

/*
 * A block taken but never named by a slot, whose write failed: kept in
 * use for good (until reset), so no later write tries it again, and
 * counted in bd_retired.
 */
void zram_ng_bd_retire_block(struct zram_ng *zram, unsigned long blk)
{
	atomic64_dec(&zram->stats.bd_count);
	atomic64_inc(&zram->stats.bd_retired);
	pr_warn_ratelimited("%s: block %lu of the backing device retired after a write error\n",
			    zram->disk->disk_name, blk);
}

/* Blocks freed but kept from reuse by reads in flight (ng_stat). */
unsigned long zram_ng_bd_nr_quarantined(struct zram_ng *zram)
{
	struct zram_ng_bd_epochs *e = &zram->bd_epochs;
	unsigned long n;

	spin_lock(&e->lock);
	n = e->nr_quarantined[0] + e->nr_quarantined[1];
	spin_unlock(&e->lock);
	return n;
}

/*
 * Called with the slot whose block is about to be read locked: the read
 * joins the current epoch, so the block cannot be reused before
 * zram_ng_bd_read() completes. Returns the token zram_ng_bd_read() takes.
 */
unsigned int zram_ng_bd_read_begin(struct zram_ng *zram)
{
	struct zram_ng_bd_epochs *e = &zram->bd_epochs;
	unsigned int epoch;

	spin_lock(&e->lock);
	epoch = e->cur & 1;
	atomic_inc(&e->readers[epoch]);
	spin_unlock(&e->lock);
	return epoch;
}

/* The read of @epoch completed, in any context. */
static void zram_ng_bd_read_end(struct zram_ng *zram, unsigned int epoch)
{
	struct zram_ng_bd_epochs *e = &zram->bd_epochs;

	/* ordered: the read is done before the block may be reused */
	if (atomic_dec_and_test(&e->readers[epoch])) {
		wake_up_var(&e->readers[epoch]);
		wake_up_var(e);
	}
}

/* @nr pages to or from the blocks from @blk on, in one bio, waiting. */
static int zram_ng_bd_rw(struct zram_ng *zram, struct page **pages,
			 unsigned int nr, unsigned long blk, blk_opf_t opf)
{
	struct bio_vec bvec[ZRAM_NG_BD_MAX_RUN];
	struct bio bio;
	unsigned int i;
	int ret;

	bio_init(&bio, zram->backing.bdev, bvec, nr, opf);
	bio.bi_iter.bi_sector = (sector_t)blk << ZRAM_NG_SECTORS_PER_PAGE_SHIFT;
	for (i = 0; i < nr; i++)
		__bio_add_page(&bio, pages[i], PAGE_SIZE, 0);
	ret = submit_bio_wait(&bio);
	bio_uninit(&bio);
	return ret;
}

/*
 * Writes @nr pages (at most ZRAM_NG_BD_MAX_RUN) to the blocks from @blk
 * on, taken by zram_ng_bd_alloc_blocks(), waiting: 0 (counted in
 * bd_writes) or the error. From a pass, never from our ->submit_bio.
 */
int zram_ng_bd_write_blocks(struct zram_ng *zram, struct page **pages,
			    unsigned int nr, unsigned long blk)
{
	int ret = zram_ng_bd_rw(zram, pages, nr, blk, REQ_OP_WRITE);

	if (ret) {
		pr_err_ratelimited("%s: writing blocks %lu-%lu of the backing device failed: %d\n",
				   zram->disk->disk_name, blk, blk + nr - 1, ret);
		return ret;
	}
	atomic64_add(nr, &zram->stats.bd_writes);
	return 0;
}

/*
 * Starts writing @page to block @blk with @bio, the caller's, with room
 * for one bio_vec at @bvec; @end_io(@bio) runs when it is done (in any
 * context), and the caller then calls zram_ng_bd_write_end().
 */
void zram_ng_bd_write_start(struct zram_ng *zram, struct bio *bio,
			    struct bio_vec *bvec, struct page *page,
			    unsigned long blk, bio_end_io_t *end_io,
			    void *private)
{
	bio_init(bio, zram->backing.bdev, bvec, 1, REQ_OP_WRITE);
	bio->bi_iter.bi_sector = (sector_t)blk << ZRAM_NG_SECTORS_PER_PAGE_SHIFT;
	__bio_add_page(bio, page, PAGE_SIZE, 0);
	bio->bi_end_io = end_io;
	bio->bi_private = private;
	submit_bio(bio);
}

/* After the end_io of a write started above: 0 (counted) or the error. */
int zram_ng_bd_write_end(struct zram_ng *zram, struct bio *bio,
			 unsigned long blk)
{
	int ret = blk_status_to_errno(bio->bi_status);

	bio_uninit(bio);
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
	struct page **pages;
	unsigned int nr;
	unsigned long blk;
	int ret;
};

static void zram_ng_bd_read_fn(struct work_struct *work)
{
	struct zram_ng_bd_read_work *rw =
		container_of(work, struct zram_ng_bd_read_work, work);

	rw->ret = zram_ng_bd_rw(rw->zram, rw->pages, rw->nr, rw->blk,
				REQ_OP_READ);
}

/*
 * Reads the @nr blocks from @blk on into @pages, waiting for them (top
 * of the file), and ends the read's epoch. 0 or -EIO.
 */
static int zram_ng_bd_read_sync(struct zram_ng *zram, struct page **pages,
				unsigned int nr, unsigned long blk,
				unsigned int epoch)
{
	struct zram_ng_bd_read_work rw = {
		.zram = zram,
		.pages = pages,
		.nr = nr,
		.blk = blk,
	};

	atomic64_add(nr, &zram->stats.bd_reads);
	if (!current->bio_list) {
		rw.ret = zram_ng_bd_rw(zram, pages, nr, blk, REQ_OP_READ);
	} else {
		INIT_WORK_ONSTACK(&rw.work, zram_ng_bd_read_fn);
		queue_work(zram_ng_wb_wq, &rw.work);
		flush_work(&rw.work);
		destroy_work_on_stack(&rw.work);
	}
	zram_ng_bd_read_end(zram, epoch);
	if (rw.ret) {
		pr_err_ratelimited("%s: reading block %lu of the backing device failed: %d\n",
				   zram->disk->disk_name, blk, rw.ret);
		return -EIO;
	}
	return 0;
}

/*
 * Reads the @nr blocks (at most ZRAM_NG_BD_MAX_RUN) from @blk on, which a
 * written-back group's member named under its slot lock, into @pages,
 * waiting: with the token zram_ng_bd_read_begin() gave under that lock,
 * as zram_ng_bd_read(). 0 or -EIO.
 */
int zram_ng_bd_read_blocks(struct zram_ng *zram, struct page **pages,
			   unsigned int nr, unsigned long blk,
			   unsigned int epoch)
{
	return zram_ng_bd_read_sync(zram, pages, nr, blk, epoch);
}

static void zram_ng_bd_read_end_io(struct bio *bio)
{
	struct zram_ng_bd_read_bio *rb =
		container_of(bio, struct zram_ng_bd_read_bio, bio);
	struct bio *parent = rb->parent;
	struct zram_ng *zram = parent->bi_bdev->bd_disk->private_data;

	zram_ng_bd_read_end(zram, rb->epoch);
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
				    unsigned long blk, struct bio *parent,
				    unsigned int epoch)
{
	struct zram_ng_bd_read_bio *rb;
	struct bio *bio;

	/* GFP_NOIO may sleep: a bio from the mempool, never NULL */
	bio = bio_alloc_bioset(zram->backing.bdev, 1, REQ_OP_READ, GFP_NOIO,
			       &zram_ng_bd_read_bioset);
	rb = container_of(bio, struct zram_ng_bd_read_bio, bio);
	rb->parent = parent;
	rb->epoch = epoch;
	bio->bi_iter.bi_sector = (sector_t)blk << ZRAM_NG_SECTORS_PER_PAGE_SHIFT;
	__bio_add_page(bio, page, PAGE_SIZE, 0);
	bio->bi_end_io = zram_ng_bd_read_end_io;
	bio_inc_remaining(parent);
	atomic64_inc(&zram->stats.bd_reads);
	submit_bio(bio);
}

/*
 * Reads block @blk, which a written-back slot named under its lock, into
 * @page: chained to @parent, or synchronously when @parent is NULL. 0 or
 * -EIO. Every read of a written-back page comes through here, with the
 * token zram_ng_bd_read_begin() gave under that slot lock; the read
 * leaves its epoch when it completes.
 */
int zram_ng_bd_read(struct zram_ng *zram, struct page *page, unsigned long blk,
		    struct bio *parent, unsigned int epoch)
{
	if (parent) {
		zram_ng_bd_read_chained(zram, page, blk, parent, epoch);
		return 0;
	}
	return zram_ng_bd_read_sync(zram, &page, 1, blk, epoch);
}

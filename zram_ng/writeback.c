// SPDX-License-Identifier: GPL-2.0
/*
 * zram_ng's writeback: pages moved out of memory to a backing block
 * device, with the attributes of Linux 6.1's zram (CONFIG_ZRAM_WRITEBACK):
 * backing_dev, writeback, writeback_limit_enable, writeback_limit and
 * bd_stat, with the same formats and errors.
 *
 * The backing device is claimed exclusively (the zram_ng device is the
 * holder) when backing_dev is written, before disksize, and given back on
 * reset: it cannot change while the device is initialised, so the I/O
 * path reads zram->backing without a lock. Its blocks are pages; a bitmap
 * says which are in use. Block 0 is never used, so a written-back slot's
 * block number is never 0.
 *
 * Writing back a slot: mark it ZRAM_NG_UNDER_WB and ZRAM_NG_IDLE under the
 * slot lock, drop the lock, decompress it into a page and write that to a
 * free block, synchronously. Then, under the slot lock again, the slot
 * still being ZRAM_NG_IDLE means nobody wrote, discarded or freed it
 * meanwhile (any of those clears the flag, and idle marking skips slots
 * under writeback): its memory is freed and it becomes ZRAM_NG_WB with the
 * block as its element. Otherwise the block is kept for the next slot.
 *
 * Reads of a ZRAM_NG_WB slot: a whole page of a bio is read by a bio of
 * its own chained to it (the parent completes when the last such read
 * has), as the stock zram does, so the pages of a bio are read in
 * parallel; a read error is counted in failed_reads and fails the parent.
 * The others are synchronous: submit_bio_wait() of the block into the
 * page. From ->rw_page (swap on 6.1) that is called as it is; from our
 * ->submit_bio it cannot be, since a bio submitted there is only queued
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
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include "zram_ng.h"

/* 6.1's bd_stat and writeback_limit count 4 KiB units, not pages. */
#define ZRAM_NG_FOUR_K(pages)	((pages) << (PAGE_SHIFT - 12))

static struct workqueue_struct *zram_ng_wb_wq;

int zram_ng_wb_init(void)
{
	zram_ng_wb_wq = alloc_workqueue("zram_ng_wb",
					WQ_MEM_RECLAIM | WQ_UNBOUND, 0);
	return zram_ng_wb_wq ? 0 : -ENOMEM;
}

void zram_ng_wb_exit(void)
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

static unsigned long zram_ng_bd_alloc_block(struct zram_ng *zram)
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

/* Reads block @blk into @page (see the top of the file); 0 or -EIO. */
int zram_ng_bd_read(struct zram_ng *zram, struct page *page, unsigned long blk)
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
 * Reads block @blk into @page by a bio chained to @parent (see the top of
 * the file): returns at once, the parent's completion waits for it.
 */
int zram_ng_bd_read_chained(struct zram_ng *zram, struct page *page,
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
	return 0;
}

static ssize_t backing_dev_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	struct zram_ng *zram = zram_ng_dev_to_zram(dev);
	ssize_t ret;

	down_read(&zram->init_lock);
	ret = sysfs_emit(buf, "%s\n",
			 zram->backing_path ? zram->backing_path : "none");
	up_read(&zram->init_lock);
	return ret;
}

/*
 * Claims the block device at the path written (a trailing newline is not
 * part of it) and replaces the previous one, before disksize only:
 * -EBUSY once initialised or when someone else holds the device, the
 * errors of opening it read-write (-ENOENT, -EISDIR ...), -ENOTBLK for
 * another kind of file, -EINVAL when it is smaller than a page (which
 * refuses the device itself, too).
 */
static ssize_t backing_dev_store(struct device *dev,
				 struct device_attribute *attr,
				 const char *buf, size_t len)
{
	struct zram_ng *zram = zram_ng_dev_to_zram(dev);
	struct compat_bdev_claim claim = {};
	unsigned long nr_pages, *bitmap;
	struct file *probe;
	size_t sz;
	char *path;
	int ret;

	down_read(&zram->init_lock);
	ret = zram_ng_init_done(zram) ? -EBUSY : 0;
	up_read(&zram->init_lock);
	if (ret)
		return ret;

	path = kstrndup(buf, PATH_MAX - 1, GFP_KERNEL);
	if (!path)
		return -ENOMEM;
	sz = strlen(path);
	if (sz && path[sz - 1] == '\n')
		path[sz - 1] = '\0';

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
	return len;

out_release:
	compat_bdev_claim_release(&claim);
out_free_path:
	kfree(path);
	return ret;
}

#define ZRAM_NG_WB_HUGE		BIT(0)
#define ZRAM_NG_WB_IDLE		BIT(1)
#define ZRAM_NG_PAGE_INDEX	"page_index="

/*
 * Whether slot @index is to be written back in @mode: it holds compressed
 * data (neither same-filled nor already out), no writeback has it, and it
 * is idle or huge if the mode asks. Called with the slot locked.
 */
static bool zram_ng_wb_wanted(struct zram_ng *zram, u32 index,
			      unsigned int mode)
{
	if (!slot_allocated(zram, index) ||
	    slot_test_flag(zram, index, ZRAM_NG_WB) ||
	    slot_test_flag(zram, index, ZRAM_NG_SAME) ||
	    slot_test_flag(zram, index, ZRAM_NG_UNDER_WB))
		return false;
	if ((mode & ZRAM_NG_WB_IDLE) &&
	    !slot_test_flag(zram, index, ZRAM_NG_IDLE))
		return false;
	if ((mode & ZRAM_NG_WB_HUGE) &&
	    !slot_test_flag(zram, index, ZRAM_NG_HUGE))
		return false;
	return true;
}

static void zram_ng_wb_abandon(struct zram_ng *zram, u32 index)
{
	slot_lock(zram, index);
	slot_clear_flag(zram, index, ZRAM_NG_UNDER_WB);
	slot_clear_flag(zram, index, ZRAM_NG_IDLE);
	slot_unlock(zram, index);
}

/*
 * Writes slot @index back to block *@blk through @page (see the top of the
 * file). Returns 0 when done or not wanted, or the error of writing the
 * block; *@blk is 0 once the slot took the block.
 */
static int zram_ng_wb_slot(struct zram_ng *zram, u32 index, unsigned int mode,
			   struct page *page, unsigned long *blk)
{
	int ret;

	slot_lock(zram, index);
	if (!zram_ng_wb_wanted(zram, index, mode)) {
		slot_unlock(zram, index);
		return 0;
	}
	slot_set_flag(zram, index, ZRAM_NG_UNDER_WB);
	/* cleared by anything that changes the slot meanwhile */
	slot_set_flag(zram, index, ZRAM_NG_IDLE);
	slot_unlock(zram, index);

	if (zram_ng_read_page(zram, page, index)) {
		zram_ng_wb_abandon(zram, index);
		return 0;
	}
	ret = zram_ng_bd_rw(zram, page, *blk, REQ_OP_WRITE | REQ_SYNC);
	if (ret) {
		pr_err_ratelimited("%s: writing block %lu of the backing device failed: %d\n",
				   zram->disk->disk_name, *blk, ret);
		zram_ng_wb_abandon(zram, index);
		return ret;
	}
	atomic64_inc(&zram->stats.bd_writes);

	slot_lock(zram, index);
	if (!slot_allocated(zram, index) ||
	    !slot_test_flag(zram, index, ZRAM_NG_IDLE)) {
		slot_clear_flag(zram, index, ZRAM_NG_UNDER_WB);
		slot_clear_flag(zram, index, ZRAM_NG_IDLE);
		slot_unlock(zram, index);
		return 0;
	}
	zram_ng_free_slot(zram, index);
	slot_clear_flag(zram, index, ZRAM_NG_UNDER_WB);
	slot_set_flag(zram, index, ZRAM_NG_WB);
	slot_set_element(zram, index, *blk);
	atomic64_inc(&zram->stats.pages_stored);
	slot_unlock(zram, index);
	*blk = 0;

	spin_lock(&zram->wb_limit_lock);
	if (zram->wb_limit_enable && zram->bd_wb_limit)
		zram->bd_wb_limit -= min_t(u64, zram->bd_wb_limit,
					   ZRAM_NG_FOUR_K(1UL));
	spin_unlock(&zram->wb_limit_lock);
	return 0;
}

/*
 * "idle", "huge", "huge_idle": every such slot; "page_index=N": slot N.
 * -EINVAL for anything else, an index past the disk or a device not
 * initialised, -ENODEV without a backing device. The scan stops with -EIO
 * when the enabled writeback_limit is used up and with -ENOSPC when the
 * backing device is full; a failed block write leaves its slot in memory,
 * the scan goes on, and the last such error is returned.
 */
static ssize_t writeback_store(struct device *dev,
			       struct device_attribute *attr,
			       const char *buf, size_t len)
{
	struct zram_ng *zram = zram_ng_dev_to_zram(dev);
	unsigned long index = 0, end, blk = 0;
	unsigned int mode = 0;
	struct page *page;
	long sindex;
	ssize_t ret = len;
	int err;

	if (sysfs_streq(buf, "idle")) {
		mode = ZRAM_NG_WB_IDLE;
	} else if (sysfs_streq(buf, "huge")) {
		mode = ZRAM_NG_WB_HUGE;
	} else if (sysfs_streq(buf, "huge_idle")) {
		mode = ZRAM_NG_WB_IDLE | ZRAM_NG_WB_HUGE;
	} else {
		if (strncmp(buf, ZRAM_NG_PAGE_INDEX,
			    strlen(ZRAM_NG_PAGE_INDEX)))
			return -EINVAL;
		/* as 6.1: a negative index is parsed, then out of range */
		if (kstrtol(buf + strlen(ZRAM_NG_PAGE_INDEX), 10, &sindex))
			return -EINVAL;
		index = sindex;
	}

	down_read(&zram->init_lock);
	if (!zram_ng_init_done(zram)) {
		ret = -EINVAL;
		goto out_unlock;
	}
	if (!zram->backing.bdev) {
		ret = -ENODEV;
		goto out_unlock;
	}

	end = zram->disksize >> PAGE_SHIFT;
	if (!mode) {
		if (index >= end) {
			ret = -EINVAL;
			goto out_unlock;
		}
		end = index + 1;
	}

	page = alloc_page(GFP_KERNEL);
	if (!page) {
		ret = -ENOMEM;
		goto out_unlock;
	}

	for (; index < end; index++) {
		bool stop;

		spin_lock(&zram->wb_limit_lock);
		stop = zram->wb_limit_enable && !zram->bd_wb_limit;
		spin_unlock(&zram->wb_limit_lock);
		if (stop) {
			ret = -EIO;
			break;
		}
		if (!blk) {
			blk = zram_ng_bd_alloc_block(zram);
			if (!blk) {
				ret = -ENOSPC;
				break;
			}
		}
		err = zram_ng_wb_slot(zram, index, mode, page, &blk);
		if (err)
			ret = err;
		cond_resched();
	}

	if (blk)
		zram_ng_bd_free_block(zram, blk);
	__free_page(page);
out_unlock:
	up_read(&zram->init_lock);
	return ret;
}

static ssize_t writeback_limit_enable_show(struct device *dev,
					   struct device_attribute *attr,
					   char *buf)
{
	struct zram_ng *zram = zram_ng_dev_to_zram(dev);
	bool val;

	spin_lock(&zram->wb_limit_lock);
	val = zram->wb_limit_enable;
	spin_unlock(&zram->wb_limit_lock);
	return sysfs_emit(buf, "%d\n", val);
}

/* Any number but 0 enables: 6.1 stores the number into a bool. */
static ssize_t writeback_limit_enable_store(struct device *dev,
					    struct device_attribute *attr,
					    const char *buf, size_t len)
{
	struct zram_ng *zram = zram_ng_dev_to_zram(dev);
	u64 val;

	if (kstrtoull(buf, 10, &val))
		return -EINVAL;

	spin_lock(&zram->wb_limit_lock);
	zram->wb_limit_enable = val;
	spin_unlock(&zram->wb_limit_lock);
	return len;
}

static ssize_t writeback_limit_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	struct zram_ng *zram = zram_ng_dev_to_zram(dev);
	u64 val;

	spin_lock(&zram->wb_limit_lock);
	val = zram->bd_wb_limit;
	spin_unlock(&zram->wb_limit_lock);
	return sysfs_emit(buf, "%llu\n", val);
}

static ssize_t writeback_limit_store(struct device *dev,
				     struct device_attribute *attr,
				     const char *buf, size_t len)
{
	struct zram_ng *zram = zram_ng_dev_to_zram(dev);
	u64 val;

	if (kstrtoull(buf, 10, &val))
		return -EINVAL;

	spin_lock(&zram->wb_limit_lock);
	zram->bd_wb_limit = val;
	spin_unlock(&zram->wb_limit_lock);
	return len;
}

/* bd_count, bd_reads, bd_writes, in 4 KiB units as 6.1 shows them. */
static ssize_t bd_stat_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct zram_ng *zram = zram_ng_dev_to_zram(dev);
	ssize_t ret;

	down_read(&zram->init_lock);
	ret = sysfs_emit(buf, "%8llu %8llu %8llu\n",
			 /* bd_count */
			 ZRAM_NG_FOUR_K((u64)atomic64_read(&zram->stats.bd_count)),
			 /* bd_reads */
			 ZRAM_NG_FOUR_K((u64)atomic64_read(&zram->stats.bd_reads)),
			 /* bd_writes */
			 ZRAM_NG_FOUR_K((u64)atomic64_read(&zram->stats.bd_writes)));
	up_read(&zram->init_lock);
	return ret;
}

static DEVICE_ATTR_RW(backing_dev);
static DEVICE_ATTR_WO(writeback);
static DEVICE_ATTR_RW(writeback_limit_enable);
static DEVICE_ATTR_RW(writeback_limit);
static DEVICE_ATTR_RO(bd_stat);

static struct attribute *zram_ng_writeback_attrs[] = {
	&dev_attr_backing_dev.attr,
	&dev_attr_writeback.attr,
	&dev_attr_writeback_limit_enable.attr,
	&dev_attr_writeback_limit.attr,
	&dev_attr_bd_stat.attr,
	NULL,
};

const struct attribute_group zram_ng_writeback_group = {
	.attrs = zram_ng_writeback_attrs,
};

// SPDX-License-Identifier: GPL-2.0
/*
 * zram_ng's writeback: pages moved out of memory to a backing block
 * device, with the attributes of Linux 6.1's zram (CONFIG_ZRAM_WRITEBACK):
 * backing_dev, writeback, writeback_limit_enable, writeback_limit and
 * bd_stat, with the same formats and errors.
 *
 * The backing device itself, its blocks and their I/O are backing.c's;
 * which slots go, and when, is decided here. The slots are walked by the
 * post-processing scan (pp.c), which picks them by the rule recompression
 * uses too.
 *
 * Writing back a slot: mark it ZRAM_NG_UNDER_WB and ZRAM_NG_IDLE under the
 * slot lock, drop the lock, decompress it into a page and write that to a
 * free block, synchronously. Then, under the slot lock again, the slot
 * still being ZRAM_NG_IDLE means nobody wrote, discarded or freed it
 * meanwhile (any of those clears the flag, and idle marking skips slots
 * under writeback): its memory is freed and it becomes ZRAM_NG_WB with the
 * block as its element. Otherwise the block is kept for the next slot.
 *
 * writeback_limit (4 KiB units, as 6.1 counts them) bounds the writes
 * that reach the device: each page's write is charged before it is
 * submitted and refunded only if it fails, so a write whose slot changed
 * meanwhile (its block is then reused for the next slot) is charged too,
 * and with one pass at a time (pp.c: a second gets -EAGAIN) two passes
 * cannot both spend the last unit. A user who sets a limit of N gets at
 * most N 4 KiB writes until the limit is set again.
 *
 * A failed block write leaves the slot in memory and the pass goes on
 * with a new block and returns the error at its end. The failed block is
 * held aside until the run of failures it belongs to ends:
 *  - by a write that succeeds, or by the end of the pass: the failure was
 *    the block's, so it is retired (backing.c: it stays in use until
 *    reset, counted in ng_stat's bd_retired) and never tried again;
 *  - by ZRAM_NG_WB_MAX_ERRORS failures in a row, which end the pass at
 *    once: the device, not a block, is failing (dead, or down for a while
 *    like a flaky path), so the run's blocks are given back unharmed.
 *    Retiring them would cost a backing device that fails now and then a
 *    few blocks for every outage, for good.
 */
#define pr_fmt(fmt) "zram_ng: " fmt

#include <linux/device.h>
#include <linux/limits.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "backing.h"
#include "features.h"
#include "pp.h"
#include "slot.h"

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
 * The path written (a trailing newline is not part of it), before
 * disksize only: -EBUSY once initialised, else what
 * zram_ng_backing_set() says.
 */
static ssize_t backing_dev_store(struct device *dev,
				 struct device_attribute *attr,
				 const char *buf, size_t len)
{
	struct zram_ng *zram = zram_ng_dev_to_zram(dev);
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

	ret = zram_ng_backing_set(zram, path);
	return ret ? ret : len;
}

#define ZRAM_NG_PAGE_INDEX	"page_index="

/*
 * Consecutive block write errors after which a pass stops: a few bad
 * blocks are retired and the pass goes on, a device that fails every
 * write ends it with the error and keeps its blocks. 8 is far more bad
 * blocks in a row than a medium that works has, and few enough writes
 * to spend on a device that does not.
 */
#define ZRAM_NG_WB_MAX_ERRORS	8

/* A writeback pass: the page it reads slots into, the block it holds. */
struct zram_ng_wb {
	struct page *page;
	unsigned long blk;	/* 0: none yet */
	int err;		/* of the last block write that failed */
	int stop;		/* the error that ends the pass at the next slot */
	unsigned int errors;	/* consecutive block write errors */
	/* the blocks of those errors, held until the run ends */
	unsigned long failed[ZRAM_NG_WB_MAX_ERRORS];
};

/*
 * The run of write errors ended: by a success or the end of the pass
 * (@device false), each failed block is retired; by too many errors in a
 * row (@device true), the device is failing and they are given back.
 */
static void zram_ng_wb_end_errors(struct zram_ng *zram, struct zram_ng_wb *wb,
				  bool device)
{
	unsigned int i;

	for (i = 0; i < wb->errors; i++) {
		if (device)
			zram_ng_bd_put_block(zram, wb->failed[i]);
		else
			zram_ng_bd_retire_block(zram, wb->failed[i]);
	}
	wb->errors = 0;
}

/*
 * writeback_limit's charge for one page, taken before its write (top of
 * the file): 1 charged, 0 no limit enabled, -EIO the limit is used up.
 */
static int zram_ng_wb_charge(struct zram_ng *zram)
{
	int ret = 0;

	spin_lock(&zram->wb_limit_lock);
	if (zram->wb_limit_enable) {
		ret = -EIO;
		if (zram->bd_wb_limit >= ZRAM_NG_FOUR_K(1UL)) {
			zram->bd_wb_limit -= ZRAM_NG_FOUR_K(1UL);
			ret = 1;
		}
	}
	spin_unlock(&zram->wb_limit_lock);
	return ret;
}

/* A charged write failed: nothing reached the device. */
static void zram_ng_wb_refund(struct zram_ng *zram)
{
	spin_lock(&zram->wb_limit_lock);
	if (zram->wb_limit_enable)
		zram->bd_wb_limit += ZRAM_NG_FOUR_K(1UL);
	spin_unlock(&zram->wb_limit_lock);
}

/*
 * Before every slot: -EIO once the enabled writeback_limit is used up,
 * -ENOSPC when no block is left for the next slot, the error that ended
 * the pass.
 */
static int zram_ng_wb_next(struct zram_ng *zram, void *priv)
{
	struct zram_ng_wb *wb = priv;
	bool stop;

	if (wb->stop)
		return wb->stop;
	spin_lock(&zram->wb_limit_lock);
	stop = zram->wb_limit_enable &&
	       zram->bd_wb_limit < ZRAM_NG_FOUR_K(1UL);
	spin_unlock(&zram->wb_limit_lock);
	if (stop)
		return -EIO;
	if (!wb->blk)
		return zram_ng_bd_alloc_block(zram, &wb->blk);
	return ZRAM_NG_PP_NEXT;
}

/* A wanted slot, locked: marked, then written back unlocked. */
static int zram_ng_wb_take(struct zram_ng *zram, u32 index, void *priv)
{
	slot_set_flag(zram, index, ZRAM_NG_UNDER_WB);
	/* cleared by anything that changes the slot meanwhile */
	slot_set_flag(zram, index, ZRAM_NG_IDLE);
	return ZRAM_NG_PP_PROCESS;
}

static void zram_ng_wb_abandon(struct zram_ng *zram, u32 index)
{
	slot_lock(zram, index);
	slot_clear_flag(zram, index, ZRAM_NG_UNDER_WB);
	slot_clear_flag(zram, index, ZRAM_NG_IDLE);
	slot_unlock(zram, index);
}

/*
 * Writes slot @index, marked by zram_ng_wb_take(), back to the pass's
 * block (see the top of the file), which the slot then takes.
 */
static void zram_ng_wb_process(struct zram_ng *zram, u32 index, void *priv)
{
	struct zram_ng_wb *wb = priv;
	int ret, charged;

	if (zram_ng_slot_read(zram, wb->page, index, NULL)) {
		zram_ng_wb_abandon(zram, index);
		return;
	}
	charged = zram_ng_wb_charge(zram);
	if (charged < 0) {
		zram_ng_wb_abandon(zram, index);
		wb->stop = charged;
		return;
	}
	ret = zram_ng_bd_write(zram, wb->page, wb->blk);
	if (ret) {
		if (charged)
			zram_ng_wb_refund(zram);
		zram_ng_wb_abandon(zram, index);
		wb->failed[wb->errors++] = wb->blk;
		wb->blk = 0;
		wb->err = ret;
		if (wb->errors == ZRAM_NG_WB_MAX_ERRORS) {
			pr_warn_ratelimited("%s: %u backing device writes failed in a row, writeback stopped (error %d)\n",
					    zram->disk->disk_name, wb->errors,
					    ret);
			zram_ng_wb_end_errors(zram, wb, true);
			wb->stop = ret;
		}
		return;
	}
	zram_ng_wb_end_errors(zram, wb, false);

	slot_lock(zram, index);
	if (!slot_allocated(zram, index) ||
	    !slot_test_flag(zram, index, ZRAM_NG_IDLE)) {
		/* changed meanwhile: the block, written and charged, is reused */
		slot_clear_flag(zram, index, ZRAM_NG_UNDER_WB);
		slot_clear_flag(zram, index, ZRAM_NG_IDLE);
		slot_unlock(zram, index);
		return;
	}
	zram_ng_slot_install_wb(zram, index, wb->blk);
	slot_clear_flag(zram, index, ZRAM_NG_UNDER_WB);
	slot_unlock(zram, index);
	wb->blk = 0;
}

/*
 * "idle", "huge", "huge_idle": every such slot; "page_index=N": slot N.
 * -EINVAL for anything else, an index past the disk or a device not
 * initialised, -ENODEV without a backing device. The scan stops with -EIO
 * when the enabled writeback_limit is used up and with -ENOSPC when the
 * backing device is full; a failed block write leaves its slot in memory
 * and retires its block, the scan goes on (up to ZRAM_NG_WB_MAX_ERRORS
 * failures in a row, whose blocks are kept: top of the file), and the
 * last such error is returned.
 * -EAGAIN while another writeback or recompression pass runs (pp.c).
 */
static ssize_t writeback_store(struct device *dev,
			       struct device_attribute *attr,
			       const char *buf, size_t len)
{
	struct zram_ng *zram = zram_ng_dev_to_zram(dev);
	struct zram_ng_pp_ctl ctl = {
		.next = zram_ng_wb_next,
		.take = zram_ng_wb_take,
		.process = zram_ng_wb_process,
	};
	struct zram_ng_wb wb = {};
	unsigned long index = 0, end;
	bool one = false;
	long sindex;
	ssize_t ret;

	if (sysfs_streq(buf, "idle")) {
		ctl.want = ZRAM_NG_PP_IDLE;
	} else if (sysfs_streq(buf, "huge")) {
		ctl.want = ZRAM_NG_PP_HUGE;
	} else if (sysfs_streq(buf, "huge_idle")) {
		ctl.want = ZRAM_NG_PP_IDLE | ZRAM_NG_PP_HUGE;
	} else {
		if (strncmp(buf, ZRAM_NG_PAGE_INDEX,
			    strlen(ZRAM_NG_PAGE_INDEX)))
			return -EINVAL;
		/* as 6.1: a negative index is parsed, then out of range */
		if (kstrtol(buf + strlen(ZRAM_NG_PAGE_INDEX), 10, &sindex))
			return -EINVAL;
		index = sindex;
		one = true;
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
	if (one) {
		if (index >= end) {
			ret = -EINVAL;
			goto out_unlock;
		}
		end = index + 1;
	}
	ctl.first = index;
	ctl.end = end;

	wb.page = alloc_page(GFP_KERNEL);
	if (!wb.page) {
		ret = -ENOMEM;
		goto out_unlock;
	}

	ret = zram_ng_pp_begin(zram);
	if (!ret) {
		ret = zram_ng_pp_scan(zram, &ctl, &wb);
		zram_ng_pp_end(zram);
		if (!ret)
			ret = wb.err ? wb.err : len;
	}

	zram_ng_wb_end_errors(zram, &wb, false);
	if (wb.blk)
		zram_ng_bd_put_block(zram, wb.blk);
	__free_page(wb.page);
out_unlock:
	up_read(&zram->init_lock);
	return ret;
}

/*
 * writeback_limit_enable and writeback_limit: a number each, read and set
 * under wb_limit_lock, as the writeback pass reads them. Any number but 0
 * enables: 6.1 stores the number into a bool.
 */
static ssize_t wb_limit_attr_show(struct device *dev, char *buf, bool enable)
{
	struct zram_ng *zram = zram_ng_dev_to_zram(dev);
	u64 val;

	spin_lock(&zram->wb_limit_lock);
	val = enable ? zram->wb_limit_enable : zram->bd_wb_limit;
	spin_unlock(&zram->wb_limit_lock);
	return sysfs_emit(buf, "%llu\n", val);
}

static ssize_t wb_limit_attr_store(struct device *dev, const char *buf,
				   size_t len, bool enable)
{
	struct zram_ng *zram = zram_ng_dev_to_zram(dev);
	u64 val;

	if (kstrtoull(buf, 10, &val))
		return -EINVAL;

	spin_lock(&zram->wb_limit_lock);
	if (enable)
		zram->wb_limit_enable = val;
	else
		zram->bd_wb_limit = val;
	spin_unlock(&zram->wb_limit_lock);
	return len;
}

static ssize_t writeback_limit_enable_show(struct device *dev,
					   struct device_attribute *attr,
					   char *buf)
{
	return wb_limit_attr_show(dev, buf, true);
}

static ssize_t writeback_limit_enable_store(struct device *dev,
					    struct device_attribute *attr,
					    const char *buf, size_t len)
{
	return wb_limit_attr_store(dev, buf, len, true);
}

static ssize_t writeback_limit_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	return wb_limit_attr_show(dev, buf, false);
}

static ssize_t writeback_limit_store(struct device *dev,
				     struct device_attribute *attr,
				     const char *buf, size_t len)
{
	return wb_limit_attr_store(dev, buf, len, false);
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

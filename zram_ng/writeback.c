// SPDX-License-Identifier: GPL-2.0
/*
 * zram_ng's writeback: pages moved out of memory to a backing block
 * device, with the attributes of Linux 6.1's zram (CONFIG_ZRAM_WRITEBACK):
 * backing_dev, writeback, writeback_limit_enable, writeback_limit and
 * bd_stat, with the same formats, and what upstream has added since:
 * writeback_batch_size (6.19), page_indexes=, several indexes in one
 * write and type= (6.16), the incompressible mode.
 *
 * The backing device itself, its blocks and their I/O are backing.c's;
 * which slots go, and when, is decided here. The slots are walked by the
 * post-processing scan (pp.c), which picks them by the rule recompression
 * uses too.
 *
 * Writing back a slot: mark it ZRAM_NG_UNDER_WB and ZRAM_NG_IDLE under the
 * slot lock, drop the lock, decompress it into a page of a free request
 * (struct zram_ng_wb_req) and submit that page's write to a free block.
 * Up to writeback_batch_size writes are in flight; the pass ends each
 * completed one (their end_io only queues them) before every slot and
 * whenever it needs a request: under the slot lock again, the slot still
 * being ZRAM_NG_IDLE means nobody wrote, discarded or freed it meanwhile
 * (any of those clears the flag, and idle marking skips slots under
 * writeback): its memory is freed and it becomes ZRAM_NG_WB with the block
 * as its element. Otherwise the block is kept for the next slot. A pass
 * waits for all its writes before it returns. Batching is what makes a
 * pass fast on a device with latency: one synchronous 4 KiB write at a
 * time pays the device's full latency per page.
 *
 * A member of a group in memory (group.c) takes the whole group out:
 * zram_ng_wb_group() writes the group's stream as it is to blocks in a
 * row and moves its members there.
 *
 * Largest first: a pass bounded by writeback_limit first counts the
 * wanted slots by object size (pp.c, 1/64 of a page a bucket), then
 * writes those of the buckets the budget covers whole, then those of the
 * bucket where it runs out, in index order within each: each block
 * written frees the most memory it can. An unbounded pass takes every
 * wanted slot anyway and goes in index order.
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
#include "group.h"
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

/*
 * Consecutive block write errors after which a pass stops: a few bad
 * blocks are retired and the pass goes on, a device that fails every
 * write ends it with the error and keeps its blocks. 8 is far more bad
 * blocks in a row than a medium that works has, and few enough writes
 * to spend on a device that does not.
 */
#define ZRAM_NG_WB_MAX_ERRORS	8

/*
 * writeback_batch_size: the writes a pass keeps in flight. 32 as upstream
 * (enough to keep an SSD's queue busy, 128 KiB of pages); at most 1024
 * (4 MiB of pages a pass), beyond which a deeper queue buys nothing.
 */
#define ZRAM_NG_WB_BATCH_DEFAULT	32
#define ZRAM_NG_WB_BATCH_MAX		1024

/* The most page_index= and page_indexes= one write may name. */
#define ZRAM_NG_WB_MAX_RANGES		256

/* One write of a pass: the page, the bio, the slot and its block. */
struct zram_ng_wb_req {
	struct list_head node;	/* on the pass's free or done list */
	struct zram_ng_wb *wb;
	struct page *page;
	u32 index;
	unsigned long blk;
	bool charged;		/* against writeback_limit */
	struct bio bio;
	struct bio_vec bvec;
};

/* A writeback pass (top of the file). */
struct zram_ng_wb {
	struct zram_ng *zram;
	struct zram_ng_wb_req *reqs;
	unsigned int nr_reqs;
	struct list_head free;	/* requests not in flight */
	spinlock_t done_lock;	/* done, taken in end_io */
	struct list_head done;	/* completed, not yet ended */
	wait_queue_head_t wait;	/* for done */
	unsigned int in_flight;
	unsigned long blk;	/* the block for the next slot; 0: none */
	int err;		/* of the last block write that failed */
	int stop;		/* the error that ends the pass at the next slot */
	bool device_failed;	/* ZRAM_NG_WB_MAX_ERRORS in a row were seen */
	/* the group ->take found, held: ->process writes it whole */
	struct zram_ng_group *group;
	/* the last group tried: its other members are not tried again */
	u64 group_id;
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

/* Block @blk's write failed with @err (its page stays in memory). */
static void zram_ng_wb_write_failed(struct zram_ng *zram,
				    struct zram_ng_wb *wb, unsigned long blk,
				    int err)
{
	wb->err = err;
	if (wb->device_failed) {
		/* writes in flight when the device was seen failing */
		zram_ng_bd_put_block(zram, blk);
		return;
	}
	wb->failed[wb->errors++] = blk;
	if (wb->errors < ZRAM_NG_WB_MAX_ERRORS)
		return;
	pr_warn_ratelimited("%s: %u backing device writes failed in a row, writeback stopped (error %d)\n",
			    zram->disk->disk_name, wb->errors, err);
	zram_ng_wb_end_errors(zram, wb, true);
	wb->device_failed = true;
	wb->stop = err;
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

/* The pages writeback_limit still allows; U64_MAX when it is off. */
static u64 zram_ng_wb_budget(struct zram_ng *zram)
{
	u64 pages = U64_MAX;

	spin_lock(&zram->wb_limit_lock);
	if (zram->wb_limit_enable)
		pages = zram->bd_wb_limit / ZRAM_NG_FOUR_K(1UL);
	spin_unlock(&zram->wb_limit_lock);
	return pages;
}

static void zram_ng_wb_abandon(struct zram_ng *zram, u32 index)
{
	slot_lock(zram, index);
	slot_clear_flag(zram, index, ZRAM_NG_UNDER_WB);
	slot_clear_flag(zram, index, ZRAM_NG_IDLE);
	slot_unlock(zram, index);
}

/*
 * Any context: the write is done, the pass ends it (zram_ng_wb_reap).
 * The wake-up is under done_lock: the pass, on its stack, cannot take the
 * request and be gone before it.
 */
static void zram_ng_wb_end_io(struct bio *bio)
{
	struct zram_ng_wb_req *req = bio->bi_private;
	struct zram_ng_wb *wb = req->wb;
	unsigned long flags;

	spin_lock_irqsave(&wb->done_lock, flags);
	list_add_tail(&req->node, &wb->done);
	wake_up(&wb->wait);
	spin_unlock_irqrestore(&wb->done_lock, flags);
}

/*
 * A write is done: on success the slot, if nobody changed it meanwhile
 * (still ZRAM_NG_IDLE), takes the block and its memory is freed; a block
 * written for a slot that changed goes to the next slot, or back. On
 * failure the slot stays in memory and the block is dealt with as the top
 * of the file says.
 */
static void zram_ng_wb_end(struct zram_ng *zram, struct zram_ng_wb *wb,
			   struct zram_ng_wb_req *req)
{
	u32 index = req->index;
	int ret;

	ret = zram_ng_bd_write_end(zram, &req->bio, req->blk);
	if (ret) {
		if (req->charged)
			zram_ng_wb_refund(zram);
		zram_ng_wb_abandon(zram, index);
		zram_ng_wb_write_failed(zram, wb, req->blk, ret);
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
		if (!wb->blk)
			wb->blk = req->blk;
		else
			zram_ng_bd_put_block(zram, req->blk);
		return;
	}
	zram_ng_slot_install_wb(zram, index, req->blk);
	slot_clear_flag(zram, index, ZRAM_NG_UNDER_WB);
	slot_unlock(zram, index);
}

/* Ends the completed writes; with @wait, waits for one first. */
static void zram_ng_wb_reap(struct zram_ng *zram, struct zram_ng_wb *wb,
			    bool wait)
{
	struct zram_ng_wb_req *req, *tmp;
	LIST_HEAD(done);

	/* TASK_IDLE: a hung backing device is not a hung task of ours */
	if (wait)
		wait_event_idle(wb->wait, !list_empty_careful(&wb->done));
	spin_lock_irq(&wb->done_lock);
	list_splice_init(&wb->done, &done);
	spin_unlock_irq(&wb->done_lock);
	list_for_each_entry_safe(req, tmp, &done, node) {
		zram_ng_wb_end(zram, wb, req);
		wb->in_flight--;
		list_move(&req->node, &wb->free);
	}
}

/* A request to write the next slot with: a free one, waiting if none. */
static struct zram_ng_wb_req *zram_ng_wb_get_req(struct zram_ng *zram,
						 struct zram_ng_wb *wb)
{
	zram_ng_wb_reap(zram, wb, list_empty(&wb->free));
	return list_first_entry(&wb->free, struct zram_ng_wb_req, node);
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

	zram_ng_wb_reap(zram, wb, false);
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

/*
 * A wanted slot, locked: marked, then written back unlocked; or, a member
 * of a group, its group held and written whole.
 */
static int zram_ng_wb_take(struct zram_ng *zram, u32 index, void *priv)
{
	struct zram_ng_wb *wb = priv;

	if (slot_test_flag(zram, index, ZRAM_NG_GROUPED)) {
		struct zram_ng_group *grp;

		grp = (struct zram_ng_group *)slot_handle(zram, index);
		/* one try a pass: a group that stayed (no room, a failed write) */
		if (grp->id == wb->group_id)
			return ZRAM_NG_PP_DONE;
		wb->group_id = grp->id;
		wb->group = grp;
		zram_ng_group_hold(grp);
		return ZRAM_NG_PP_PROCESS;
	}
	slot_set_flag(zram, index, ZRAM_NG_UNDER_WB);
	/* cleared by anything that changes the slot meanwhile */
	slot_set_flag(zram, index, ZRAM_NG_IDLE);
	return ZRAM_NG_PP_PROCESS;
}

/*
 * Moves the members of @grp (held by ->take) that still point at it to a
 * written-back twin (group.c): the stream is written as it is, in
 * zram_ng_group_blocks() blocks in a row, and every member read later
 * reads them all and decompresses (a group of 16 pages is 3 to 6 blocks
 * on real application memory, against 16 for its pages one by one).
 * Synchronous: a group is at most ZRAM_NG_BD_MAX_RUN blocks in one bio,
 * written between the batched writes of single pages. Each block is
 * charged to writeback_limit before the write and refunded if it fails.
 * A group that finds no blocks in a row (-ENOSPC) or whose write fails
 * stays in memory as it was and the pass goes on; the blocks of a failed
 * write are given back (which of them failed is not known: retiring them
 * all would cost good blocks for one bad one).
 */
static void zram_ng_wb_group(struct zram_ng *zram, struct zram_ng_wb *wb,
			     struct zram_ng_group *grp)
{
	struct page *pages[ZRAM_NG_BD_MAX_RUN] = {};
	unsigned int nr = zram_ng_group_blocks(grp->comp_len), i, k, charged = 0;
	struct zram_ng_group *bdg;
	unsigned long blk;
	int ret;

	BUILD_BUG_ON(ZRAM_NG_GROUP_MAX_PAGES > ZRAM_NG_BD_MAX_RUN);
	if (wb->stop)
		goto out;
	for (i = 0; i < nr; i++) {
		ret = zram_ng_wb_charge(zram);
		if (ret < 0) {
			wb->stop = ret;
			goto refund;
		}
		charged += ret;
	}
	ret = zram_ng_bd_alloc_blocks(zram, nr, &blk);
	if (ret) {
		if (ret != -ENOSPC)
			wb->stop = ret;
		goto refund;
	}
	for (i = 0; i < nr; i++) {
		pages[i] = alloc_page(GFP_NOIO);
		if (!pages[i])
			goto put_blocks;
	}
	zram_ng_group_copy_stream(zram, grp, pages);
	ret = zram_ng_bd_write_blocks(zram, pages, nr, blk);
	if (ret) {
		wb->err = ret;
		goto put_blocks;
	}
	bdg = zram_ng_group_wb_make(zram, grp, blk);
	if (IS_ERR(bdg)) {
		charged = 0;	/* written: the device has spent them */
		goto put_blocks;
	}
	for (k = 0; k < grp->nr; k++) {
		u32 index = grp->base + grp->offs[k];

		/* held, @grp cannot be freed and another made at its address */
		if (!slot_lock(zram, index))
			continue;
		if (slot_test_flag(zram, index, ZRAM_NG_GROUPED) &&
		    !slot_test_flag(zram, index, ZRAM_NG_WB) &&
		    slot_handle(zram, index) == (unsigned long)grp)
			zram_ng_slot_install_group_wb(zram, index, bdg, k);
		slot_unlock(zram, index);
	}
	zram_ng_group_committed(zram, bdg);
	goto free_pages;
put_blocks:
	for (i = 0; i < nr; i++)
		zram_ng_bd_put_block(zram, blk + i);
refund:
	while (charged--)
		zram_ng_wb_refund(zram);
free_pages:
	for (i = 0; i < nr; i++)
		if (pages[i])
			__free_page(pages[i]);
out:
	zram_ng_group_committed(zram, grp);
}

/*
 * Starts writing slot @index, marked by zram_ng_wb_take(), to the pass's
 * block (top of the file); zram_ng_wb_end() finishes it.
 */
static void zram_ng_wb_process(struct zram_ng *zram, u32 index, void *priv)
{
	struct zram_ng_wb *wb = priv;
	struct zram_ng_wb_req *req;
	int charged;

	if (wb->group) {
		zram_ng_wb_group(zram, wb, wb->group);
		wb->group = NULL;
		return;
	}
	req = zram_ng_wb_get_req(zram, wb);
	/* a write that ended meanwhile may have ended the pass */
	if (wb->stop) {
		zram_ng_wb_abandon(zram, index);
		return;
	}
	if (zram_ng_slot_read(zram, req->page, index, NULL)) {
		zram_ng_wb_abandon(zram, index);
		return;
	}
	charged = zram_ng_wb_charge(zram);
	if (charged < 0) {
		zram_ng_wb_abandon(zram, index);
		wb->stop = charged;
		return;
	}
	req->index = index;
	req->blk = wb->blk;
	req->charged = charged;
	wb->blk = 0;
	list_del(&req->node);
	wb->in_flight++;
	zram_ng_bd_write_start(zram, &req->bio, &req->bvec, req->page,
			       req->blk, zram_ng_wb_end_io, req);
}

/*
 * A pass's requests, writeback_batch_size of them, or as many as there
 * are pages for (at least one): 0 or -ENOMEM.
 */
static int zram_ng_wb_init(struct zram_ng *zram, struct zram_ng_wb *wb)
{
	unsigned int i, n = READ_ONCE(zram->wb_batch_size);

	wb->zram = zram;
	INIT_LIST_HEAD(&wb->free);
	INIT_LIST_HEAD(&wb->done);
	spin_lock_init(&wb->done_lock);
	init_waitqueue_head(&wb->wait);
	wb->reqs = kvcalloc(n, sizeof(*wb->reqs), GFP_KERNEL);
	if (!wb->reqs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct zram_ng_wb_req *req = &wb->reqs[i];

		req->page = alloc_page(GFP_KERNEL | (i ? __GFP_NOWARN : 0));
		if (!req->page)
			break;
		req->wb = wb;
		list_add_tail(&req->node, &wb->free);
	}
	wb->nr_reqs = i;
	if (!i) {
		kvfree(wb->reqs);
		return -ENOMEM;
	}
	return 0;
}

/* Waits for the writes in flight, ends them, frees the requests. */
static void zram_ng_wb_finish(struct zram_ng *zram, struct zram_ng_wb *wb)
{
	unsigned int i;

	while (wb->in_flight)
		zram_ng_wb_reap(zram, wb, true);
	zram_ng_wb_end_errors(zram, wb, wb->device_failed);
	if (wb->blk)
		zram_ng_bd_put_block(zram, wb->blk);
	for (i = 0; i < wb->nr_reqs; i++)
		__free_page(wb->reqs[i].page);
	kvfree(wb->reqs);
}

/* What one write to the writeback attribute asks for. */
struct zram_ng_wb_args {
	unsigned int want;	/* ZRAM_NG_PP_*; 0 with ranges: every slot */
	bool mode;		/* a mode was given */
	unsigned int nr_ranges;	/* 0: the whole device */
	u32 (*ranges)[2];	/* [first, end) each */
};

static int zram_ng_wb_parse_mode(const char *val, unsigned int *want)
{
	if (!strcmp(val, "idle"))
		*want = ZRAM_NG_PP_IDLE;
	else if (!strcmp(val, "huge"))
		*want = ZRAM_NG_PP_HUGE;
	else if (!strcmp(val, "huge_idle"))
		*want = ZRAM_NG_PP_IDLE | ZRAM_NG_PP_HUGE;
	else if (!strcmp(val, "incompressible"))
		*want = ZRAM_NG_PP_INCOMPRESSIBLE;
	else
		return -EINVAL;
	return 0;
}

/*
 * page_index=N: [N, N + 1); page_indexes=LO-HI: [LO, HI + 1). -EINVAL
 * for anything but decimal numbers, -ERANGE for an index past the disk
 * or LO above HI, as the newest upstream answers.
 */
static int zram_ng_wb_parse_range(const char *param, char *val, u64 nr_pages,
				  u32 range[2])
{
	unsigned long lo, hi;
	char *dash = NULL;

	if (!strcmp(param, "page_indexes")) {
		dash = strchr(val, '-');
		if (!dash)
			return -EINVAL;
		*dash = '\0';
	}
	if (kstrtoul(val, 10, &lo))
		return -EINVAL;
	hi = lo;
	if (dash && kstrtoul(dash + 1, 10, &hi))
		return -EINVAL;
	if (lo >= nr_pages || hi >= nr_pages || lo > hi)
		return -ERANGE;
	range[0] = lo;
	range[1] = hi + 1;
	return 0;
}

/*
 * Parses @buf into @args (its ranges into @args->ranges when that is not
 * NULL: a second call, after a first counted them). The grammar, upstream
 * 6.16's: words separated by blanks, each a mode (idle, huge, huge_idle,
 * incompressible, or type=MODE), page_index=N or page_indexes=LO-HI; at
 * most one mode, any number of ranges (ZRAM_NG_WB_MAX_RANGES). Anything
 * else, a second mode, or nothing at all: -EINVAL.
 */
static int zram_ng_wb_parse(const char *buf, u64 nr_pages,
			    struct zram_ng_wb_args *args)
{
	char *copy, *next, *param, *val;
	unsigned int n = 0;
	int ret = 0;

	copy = kstrdup(buf, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	args->mode = false;
	next = skip_spaces(copy);
	while (*next && !ret) {
		next = next_arg(next, &param, &val);
		if (!val || !strcmp(param, "type")) {
			if (args->mode || (val && !*val))
				ret = -EINVAL;
			else
				ret = zram_ng_wb_parse_mode(val ? val : param,
							    &args->want);
			args->mode = true;
		} else if (!strcmp(param, "page_index") ||
			   !strcmp(param, "page_indexes")) {
			u32 range[2];

			ret = zram_ng_wb_parse_range(param, val, nr_pages,
						     range);
			if (!ret && n == ZRAM_NG_WB_MAX_RANGES)
				ret = -E2BIG;
			if (!ret && args->ranges)
				memcpy(args->ranges[n], range, sizeof(range));
			n++;
		} else {
			ret = -EINVAL;
		}
	}
	kfree(copy);
	if (!ret && !args->mode && !n)
		ret = -EINVAL;
	args->nr_ranges = n;
	return ret;
}

/*
 * Where a pass bounded to @budget writes cuts (pp.c's zram_ng_pp_cut(),
 * over all the ranges): 0 when it is not bounded or everything fits.
 */
static u32 zram_ng_wb_largest_first(struct zram_ng *zram,
				    struct zram_ng_pp_ctl *ctl,
				    const struct zram_ng_wb_args *args,
				    u64 budget, u32 *above)
{
	struct zram_ng_pp_sizes *sizes;
	unsigned int i;
	u32 cut;

	*above = 0;
	if (budget == U64_MAX)
		return 0;
	sizes = kzalloc(sizeof(*sizes), GFP_KERNEL);
	if (!sizes)
		return 0;	/* index order, as before */
	for (i = 0; i < max(args->nr_ranges, 1U); i++) {
		if (args->nr_ranges) {
			ctl->first = args->ranges[i][0];
			ctl->end = args->ranges[i][1];
		}
		zram_ng_pp_count_sizes(zram, ctl, sizes);
	}
	cut = zram_ng_pp_cut(sizes, budget, above);
	kfree(sizes);
	return cut;
}

/* Runs the pass of @args over its ranges, or the whole device. */
static int zram_ng_wb_run(struct zram_ng *zram, struct zram_ng_pp_ctl *ctl,
			  const struct zram_ng_wb_args *args,
			  struct zram_ng_wb *wb)
{
	u32 end = ctl->end, sizes[2];
	unsigned int i, s;
	int ret = 0;

	/* bounded by writeback_limit: the largest objects first */
	sizes[1] = zram_ng_wb_largest_first(zram, ctl, args,
					    zram_ng_wb_budget(zram), &sizes[0]);
	for (s = sizes[1] ? 0 : 1; s < 2 && !ret; s++) {
		ctl->min_size = sizes[s];
		for (i = 0; i < max(args->nr_ranges, 1U) && !ret; i++) {
			ctl->first = args->nr_ranges ? args->ranges[i][0] : 0;
			ctl->end = args->nr_ranges ? args->ranges[i][1] : end;
			ret = zram_ng_pp_scan(zram, ctl, wb);
		}
	}
	return ret;
}

/*
 * The grammar is zram_ng_wb_parse()'s: "idle", "huge", "huge_idle",
 * "incompressible" (or type=...), "page_index=N", "page_indexes=LO-HI".
 * A mode alone: every such slot; ranges alone: every slot in them; both:
 * such slots in them. -EINVAL for anything else or a device not
 * initialised, -ERANGE for an index past the disk, -ENODEV without a
 * backing device. The pass stops with -EIO when the enabled
 * writeback_limit is used up (having taken the largest objects first)
 * and with -ENOSPC when the backing device is full; a failed block write
 * leaves its slot in memory and retires its block, the pass goes on (up
 * to ZRAM_NG_WB_MAX_ERRORS failures in a row, whose blocks are kept: top
 * of the file), and the last such error is returned. -EAGAIN while
 * another writeback or recompression pass runs (pp.c).
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
	struct zram_ng_wb_args args = {};
	struct zram_ng_wb wb = {};
	ssize_t ret;

	down_read(&zram->init_lock);
	if (!zram_ng_init_done(zram)) {
		ret = -EINVAL;
		goto out_unlock;
	}
	/* the words first (-EINVAL), then the device, then the indexes */
	ret = zram_ng_wb_parse(buf, U64_MAX, &args);
	if (ret)
		goto out_unlock;
	if (!zram->backing.bdev) {
		ret = -ENODEV;
		goto out_unlock;
	}
	ctl.end = zram->disksize >> PAGE_SHIFT;
	if (args.nr_ranges) {
		args.ranges = kmalloc_array(args.nr_ranges,
					    sizeof(*args.ranges), GFP_KERNEL);
		ret = args.ranges ? zram_ng_wb_parse(buf, ctl.end, &args) :
				    -ENOMEM;
		if (ret)
			goto out_free;
	}
	/* a member of a group in memory takes the whole group out */
	ctl.want = args.want | ZRAM_NG_PP_GROUPS;

	ret = zram_ng_pp_begin(zram);
	if (ret)
		goto out_free;
	ret = zram_ng_wb_init(zram, &wb);
	if (!ret) {
		ret = zram_ng_wb_run(zram, &ctl, &args, &wb);
		zram_ng_wb_finish(zram, &wb);
		if (!ret)
			ret = wb.err ? wb.err : len;
	}
	zram_ng_pp_end(zram);
out_free:
	kfree(args.ranges);
out_unlock:
	up_read(&zram->init_lock);
	return ret;
}

/*
 * writeback_batch_size: the writes a pass keeps in flight, read when a
 * pass starts. 1 to ZRAM_NG_WB_BATCH_MAX; anything else -EINVAL.
 */
static ssize_t writeback_batch_size_show(struct device *dev,
					 struct device_attribute *attr,
					 char *buf)
{
	struct zram_ng *zram = zram_ng_dev_to_zram(dev);

	return sysfs_emit(buf, "%u\n", READ_ONCE(zram->wb_batch_size));
}

static ssize_t writeback_batch_size_store(struct device *dev,
					  struct device_attribute *attr,
					  const char *buf, size_t len)
{
	struct zram_ng *zram = zram_ng_dev_to_zram(dev);
	unsigned int val;

	if (kstrtouint(buf, 10, &val) || !val || val > ZRAM_NG_WB_BATCH_MAX)
		return -EINVAL;
	WRITE_ONCE(zram->wb_batch_size, val);
	return len;
}

/* The defaults of a new device (main.c). */
void zram_ng_writeback_dev_init(struct zram_ng *zram)
{
	zram->wb_batch_size = ZRAM_NG_WB_BATCH_DEFAULT;
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
static DEVICE_ATTR_RW(writeback_batch_size);

static struct attribute *zram_ng_writeback_attrs[] = {
	&dev_attr_backing_dev.attr,
	&dev_attr_writeback.attr,
	&dev_attr_writeback_limit_enable.attr,
	&dev_attr_writeback_limit.attr,
	&dev_attr_bd_stat.attr,
	&dev_attr_writeback_batch_size.attr,
	NULL,
};

const struct attribute_group zram_ng_writeback_group = {
	.attrs = zram_ng_writeback_attrs,
};

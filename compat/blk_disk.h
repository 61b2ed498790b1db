/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Making a bio-based disk, opening it, and telling swap
 * that its I/O completes synchronously.
 *
 * Queue limits and features (6.9, 6.11). Until 6.8 a driver allocated the
 * disk with blk_alloc_disk(node) and then set each limit on the queue
 * (blk_queue_logical_block_size() ..., QUEUE_FLAG_NONROT, _ADD_RANDOM,
 * _STABLE_WRITES). 6.9 made blk_alloc_disk() take a struct queue_limits,
 * filled once before allocation, and return an ERR_PTR; 6.11 moved the
 * queue flags into limits.features (BLK_FEAT_*), where rotational and
 * add_random are off unless asked for. The driver describes its disk once
 * (struct compat_disk_limits); compat_blk_alloc_disk() applies it either
 * way and returns an ERR_PTR on failure on both.
 *
 * Opening (6.5). block_device_operations.open took (struct block_device *,
 * fmode_t) until 6.4 and takes (struct gendisk *, blk_mode_t) since 6.5.
 * The driver writes int fn(struct gendisk *); COMPAT_DEFINE_BDOPS_OPEN()
 * makes the method of either shape from it.
 *
 * Synchronous I/O for swap (6.3, 6.11). Until 6.2 swapon marks a device
 * SWP_SYNCHRONOUS_IO when it has ->rw_page, and swap reads and writes
 * single pages through it. 6.3 removed ->rw_page: swap sends bios, and a
 * disk whose bios complete within submit_bio says so with a queue flag
 * (BLK_FEAT_SYNCHRONOUS since 6.11), which compat_blk_alloc_disk() sets for
 * ->synchronous. COMPAT_HAVE_BDOPS_RW_PAGE is defined where ->rw_page
 * exists, and COMPAT_BDOPS_RW_PAGE(fn) fills the method there and is empty
 * elsewhere. (bdev_start_io_acct() lost its sectors argument in 6.3 too:
 * only the ->rw_page path uses it, so it needs no entry of its own.)
 */
#ifndef ZSNG_COMPAT_BLK_DISK_H
#define ZSNG_COMPAT_BLK_DISK_H

#include <linux/blkdev.h>
#include <linux/err.h>
#include "kernel_version.h"

/* What a driver wants of its queue; zero leaves a limit at its default. */
struct compat_disk_limits {
	unsigned int logical_block_size;
	unsigned int physical_block_size;
	unsigned int io_min;
	unsigned int io_opt;
	unsigned int discard_granularity;
	unsigned int max_discard_sectors;
	unsigned int max_write_zeroes_sectors;
	bool stable_writes;	/* pages must not change while in flight */
	bool synchronous;	/* every bio completes within submit_bio */
};

#if ZSNG_KERNEL_SINCE(6, 11)

static inline struct gendisk *
compat_blk_alloc_disk(const struct compat_disk_limits *l, int node)
{
	struct queue_limits lim = {
		.logical_block_size = l->logical_block_size,
		.physical_block_size = l->physical_block_size,
		.io_min = l->io_min,
		.io_opt = l->io_opt,
		.discard_granularity = l->discard_granularity,
		.max_hw_discard_sectors = l->max_discard_sectors,
		.max_write_zeroes_sectors = l->max_write_zeroes_sectors,
		.features = (l->stable_writes ? BLK_FEAT_STABLE_WRITES : 0) |
			    (l->synchronous ? BLK_FEAT_SYNCHRONOUS : 0),
	};

	return blk_alloc_disk(&lim, node);
}

#else /* until 6.8: allocate, then set the queue's limits and flags */

static inline struct gendisk *
compat_blk_alloc_disk(const struct compat_disk_limits *l, int node)
{
	struct gendisk *disk = blk_alloc_disk(node);
	struct request_queue *q;

	if (!disk)
		return ERR_PTR(-ENOMEM);
	q = disk->queue;
	blk_queue_flag_set(QUEUE_FLAG_NONROT, q);
	blk_queue_flag_clear(QUEUE_FLAG_ADD_RANDOM, q);
	if (l->physical_block_size)
		blk_queue_physical_block_size(q, l->physical_block_size);
	if (l->logical_block_size)
		blk_queue_logical_block_size(q, l->logical_block_size);
	if (l->io_min)
		blk_queue_io_min(q, l->io_min);
	if (l->io_opt)
		blk_queue_io_opt(q, l->io_opt);
	q->limits.discard_granularity = l->discard_granularity;
	blk_queue_max_discard_sectors(q, l->max_discard_sectors);
	blk_queue_max_write_zeroes_sectors(q, l->max_write_zeroes_sectors);
	if (l->stable_writes)
		blk_queue_flag_set(QUEUE_FLAG_STABLE_WRITES, q);
	/* ->synchronous is the driver's ->rw_page here (see above) */
	return disk;
}

#endif

#if ZSNG_KERNEL_SINCE(6, 5)
#define COMPAT_DEFINE_BDOPS_OPEN(method, fn)				\
	static int method(struct gendisk *disk, blk_mode_t mode)	\
	{								\
		return fn(disk);					\
	}
#else
#define COMPAT_DEFINE_BDOPS_OPEN(method, fn)				\
	static int method(struct block_device *bdev, fmode_t mode)	\
	{								\
		return fn(bdev->bd_disk);				\
	}
#endif

#if ZSNG_KERNEL_SINCE(6, 3)
#define COMPAT_BDOPS_RW_PAGE(fn)
#else
#define COMPAT_HAVE_BDOPS_RW_PAGE 1
#define COMPAT_BDOPS_RW_PAGE(fn) .rw_page = (fn),
#endif

#endif /* ZSNG_COMPAT_BLK_DISK_H */

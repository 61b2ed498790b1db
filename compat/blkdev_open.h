/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Claiming a block device by path, exclusively, for zram_ng's backing
 * device (writeback.c).
 *
 * Until 6.4, blkdev_get_by_path(path, FMODE_READ | FMODE_WRITE |
 * FMODE_EXCL, holder) returns the block device and blkdev_put(bdev, mode)
 * releases it. 6.5 replaced fmode_t with blk_mode_t (a holder now means
 * exclusive) and blkdev_put() takes the holder; 6.8 returned a struct
 * bdev_handle from bdev_open_by_path(), released by bdev_release(); 6.9
 * returns a struct file from bdev_file_open_by_path(), whose block device
 * is file_bdev(), released by fput() (by bdev_fput() since 6.10, which
 * yields the claim at once rather than at the last reference).
 *
 * struct compat_bdev_claim holds whichever the kernel gives; ->bdev is the
 * block device on every kernel (NULL: nothing claimed).
 * compat_bdev_claim_open() returns 0 or a negative errno as the kernel's
 * call does (-ENOENT, -ENOTBLK, -EBUSY for a device claimed by someone
 * else); compat_bdev_claim_release() gives the claim back.
 *
 * Only 6.1 and 6.12 are built and run (compat/kernel_version.h).
 */
#ifndef ZSNG_COMPAT_BLKDEV_OPEN_H
#define ZSNG_COMPAT_BLKDEV_OPEN_H

#include <linux/blkdev.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include "kernel_version.h"

struct compat_bdev_claim {
	struct block_device *bdev;
#if ZSNG_KERNEL_SINCE(6, 9)
	struct file *file;
#elif ZSNG_KERNEL_SINCE(6, 8)
	struct bdev_handle *handle;
#else
	void *holder;
#endif
};

#if ZSNG_KERNEL_SINCE(6, 9)

static inline int compat_bdev_claim_open(struct compat_bdev_claim *c,
					 const char *path, void *holder)
{
	struct file *file = bdev_file_open_by_path(path,
			BLK_OPEN_READ | BLK_OPEN_WRITE, holder, NULL);

	if (IS_ERR(file))
		return PTR_ERR(file);
	c->file = file;
	c->bdev = file_bdev(file);
	return 0;
}

static inline void compat_bdev_claim_release(struct compat_bdev_claim *c)
{
#if ZSNG_KERNEL_SINCE(6, 10)
	bdev_fput(c->file);
#else
	fput(c->file);
#endif
	c->file = NULL;
	c->bdev = NULL;
}

#elif ZSNG_KERNEL_SINCE(6, 8)

static inline int compat_bdev_claim_open(struct compat_bdev_claim *c,
					 const char *path, void *holder)
{
	struct bdev_handle *handle = bdev_open_by_path(path,
			BLK_OPEN_READ | BLK_OPEN_WRITE, holder, NULL);

	if (IS_ERR(handle))
		return PTR_ERR(handle);
	c->handle = handle;
	c->bdev = handle->bdev;
	return 0;
}

static inline void compat_bdev_claim_release(struct compat_bdev_claim *c)
{
	bdev_release(c->handle);
	c->handle = NULL;
	c->bdev = NULL;
}

#elif ZSNG_KERNEL_SINCE(6, 5)

static inline int compat_bdev_claim_open(struct compat_bdev_claim *c,
					 const char *path, void *holder)
{
	struct block_device *bdev = blkdev_get_by_path(path,
			BLK_OPEN_READ | BLK_OPEN_WRITE, holder, NULL);

	if (IS_ERR(bdev))
		return PTR_ERR(bdev);
	c->holder = holder;
	c->bdev = bdev;
	return 0;
}

static inline void compat_bdev_claim_release(struct compat_bdev_claim *c)
{
	blkdev_put(c->bdev, c->holder);
	c->bdev = NULL;
}

#else /* until 6.4 */

#define COMPAT_BDEV_CLAIM_MODE	(FMODE_READ | FMODE_WRITE | FMODE_EXCL)

static inline int compat_bdev_claim_open(struct compat_bdev_claim *c,
					 const char *path, void *holder)
{
	struct block_device *bdev = blkdev_get_by_path(path,
			COMPAT_BDEV_CLAIM_MODE, holder);

	if (IS_ERR(bdev))
		return PTR_ERR(bdev);
	c->holder = holder;
	c->bdev = bdev;
	return 0;
}

static inline void compat_bdev_claim_release(struct compat_bdev_claim *c)
{
	blkdev_put(c->bdev, COMPAT_BDEV_CLAIM_MODE);
	c->bdev = NULL;
}

#endif

#endif /* ZSNG_COMPAT_BLKDEV_OPEN_H */

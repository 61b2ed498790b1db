// SPDX-License-Identifier: GPL-2.0
/*
 * zram_ng: a compressed RAM block device on the zsmalloc_ng allocator.
 *
 * Behaves like drivers/block/zram of Linux 6.1 (same sysfs ABI, same data
 * path) under other names, so that it loads beside the stock zram. What it
 * adds is visibility into the allocator: mm_stat carries objs_moved, and
 * allocator_policy picks the pool's compaction policy.
 *
 * This file is the block device's glue, the top layer (zram_ng.h lists
 * them all): the module, the device idr, hot_add and hot_remove, the
 * block_device_operations and submit_bio, which cuts bios into pages for
 * the slot layer (slot.c).
 */
#define pr_fmt(fmt) "zram_ng: " fmt

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/highmem.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/stringify.h>
#include "compat/blk_disk.h"
#include "compat/device_class.h"
#include "backing.h"
#include "features.h"
#include "group.h"
#include "slot.h"
#include "zcomp.h"

static DEFINE_IDR(zram_ng_index_idr);
/* serialises hot_add, hot_remove and module exit over the idr */
static DEFINE_MUTEX(zram_ng_index_mutex);
static int zram_ng_major;

static unsigned int num_devices = 1;
module_param(num_devices, uint, 0444);
MODULE_PARM_DESC(num_devices,
		 "Number of zram_ng devices created at load, 0-"
		 __stringify(ZRAM_NG_MAX_DEVICES) " (default: 1)");

static bool bvec_is_partial(struct bio_vec *bvec)
{
	return bvec->bv_len != PAGE_SIZE;
}

/*
 * A whole page is read in place; a written-back one by a bio chained to
 * @bio (as the stock zram does), so the pages of one bio are read from the
 * backing device in parallel. A part of a page goes through a bounce page,
 * read synchronously.
 */
static int zram_ng_bvec_read(struct zram_ng *zram, struct bio_vec *bvec,
			     u32 index, int offset, struct bio *bio)
{
	struct page *page;
	int ret;

	if (!bvec_is_partial(bvec))
		return zram_ng_slot_read(zram, bvec->bv_page, index, bio);

	page = alloc_page(GFP_NOIO);
	if (!page)
		return -ENOMEM;
	ret = zram_ng_slot_read(zram, page, index, NULL);
	if (!ret)
		memcpy_to_bvec(bvec, page_address(page) + offset);
	__free_page(page);
	return ret;
}

/* A partial write is a read-modify-write of the whole page. */
static int zram_ng_bvec_write(struct zram_ng *zram, struct bio_vec *bvec,
			      u32 index, int offset)
{
	struct page *page;
	int ret;

	if (!bvec_is_partial(bvec))
		return zram_ng_slot_write(zram, bvec->bv_page, index);

	page = alloc_page(GFP_NOIO);
	if (!page)
		return -ENOMEM;
	ret = zram_ng_slot_read(zram, page, index, NULL);
	if (!ret) {
		memcpy_from_bvec(page_address(page) + offset, bvec);
		ret = zram_ng_slot_write(zram, page, index);
	}
	__free_page(page);
	return ret;
}

static bool zram_ng_valid_io(struct zram_ng *zram, sector_t start,
			     unsigned int size)
{
	u64 end, bound;

	if (unlikely(start & ((ZRAM_NG_LOGICAL_BLOCK_SIZE >> SECTOR_SHIFT) - 1)))
		return false;
	if (unlikely(size & (ZRAM_NG_LOGICAL_BLOCK_SIZE - 1)))
		return false;

	end = start + (size >> SECTOR_SHIFT);
	bound = zram->disksize >> SECTOR_SHIFT;
	return start < bound && end <= bound && start <= end;
}

/* Discard and write-zeroes free whole pages: an empty slot reads as zero. */
static void zram_ng_bio_discard(struct zram_ng *zram, u32 index, int offset,
				struct bio *bio)
{
	size_t n = bio->bi_iter.bi_size;

	if (offset) {
		if (n <= PAGE_SIZE - offset)
			return;
		n -= PAGE_SIZE - offset;
		index++;
	}

	zram_ng_slots_discard(zram, index, n >> PAGE_SHIFT);
}

static void zram_ng_submit_bio(struct bio *bio)
{
	struct zram_ng *zram = bio->bi_bdev->bd_disk->private_data;
	u32 index = bio->bi_iter.bi_sector >> ZRAM_NG_SECTORS_PER_PAGE_SHIFT;
	int offset = (bio->bi_iter.bi_sector &
		      (ZRAM_NG_SECTORS_PER_PAGE - 1)) << SECTOR_SHIFT;
	bool write = op_is_write(bio_op(bio));
	unsigned long start_time;
	struct bvec_iter iter;
	struct bio_vec bvec;

	if (!zram_ng_valid_io(zram, bio->bi_iter.bi_sector,
			      bio->bi_iter.bi_size)) {
		atomic64_inc(&zram->stats.invalid_io);
		bio_io_error(bio);
		return;
	}

	switch (bio_op(bio)) {
	case REQ_OP_DISCARD:
	case REQ_OP_WRITE_ZEROES:
		zram_ng_bio_discard(zram, index, offset, bio);
		bio_endio(bio);
		return;
	case REQ_OP_READ:
	case REQ_OP_WRITE:
		break;
	default:
		bio->bi_status = BLK_STS_NOTSUPP;
		bio_endio(bio);
		return;
	}

	start_time = bio_start_io_acct(bio);
	bio_for_each_segment(bvec, bio, iter) {
		struct bio_vec bv = bvec;
		unsigned int unwritten = bvec.bv_len;

		/* a segment may straddle two slots: split it */
		do {
			int ret;

			bv.bv_len = min_t(unsigned int, PAGE_SIZE - offset,
					  unwritten);
			if (write)
				ret = zram_ng_bvec_write(zram, &bv, index,
							 offset);
			else
				ret = zram_ng_bvec_read(zram, &bv, index,
							offset, bio);
			zram_ng_slot_accessed(zram, index);
			if (ret < 0) {
				if (write)
					atomic64_inc(&zram->stats.failed_writes);
				else
					atomic64_inc(&zram->stats.failed_reads);
				bio->bi_status = BLK_STS_IOERR;
				goto out;
			}
			if (!write)
				flush_dcache_page(bv.bv_page);

			bv.bv_offset += bv.bv_len;
			unwritten -= bv.bv_len;
			offset += bv.bv_len;
			if (offset >= PAGE_SIZE) {
				offset -= PAGE_SIZE;
				index++;
			}
		} while (unwritten);
	}
out:
	bio_end_io_acct(bio, start_time);
	bio_endio(bio);
}

static void zram_ng_slot_free_notify(struct block_device *bdev,
				     unsigned long index)
{
	struct zram_ng *zram = bdev->bd_disk->private_data;

	atomic64_inc(&zram->stats.notify_free);
	/* called under the swap lock: never spin on a busy slot */
	if (!zram_ng_slot_discard_nowait(zram, index))
		atomic64_inc(&zram->stats.miss_free);
}

/*
 * Swap on a synchronous device (SWP_SYNCHRONOUS_IO) skips the swap cache on
 * swap-in and frees the slot as soon as the page is read back, so
 * compressed copies of pages already in memory do not linger. Where the
 * kernel has ->rw_page (until 6.2, compat/blk_disk.h), having it is what
 * makes swapon mark the device so, and swap reads and writes single pages
 * through here; on an error the caller resubmits the page as a bio, which
 * does the accounting of failed I/O (so it is not counted here too). Later
 * kernels send bios, and the queue's synchronous feature marks the device.
 */
#ifdef COMPAT_HAVE_BDOPS_RW_PAGE
static int zram_ng_rw_page(struct block_device *bdev, sector_t sector,
			   struct page *page, enum req_op op)
{
	struct zram_ng *zram = bdev->bd_disk->private_data;
	u32 index = sector >> ZRAM_NG_SECTORS_PER_PAGE_SHIFT;
	bool write = op_is_write(op);
	unsigned long start_time;
	int ret;

	if (PageTransHuge(page))
		return -EOPNOTSUPP;
	if (!zram_ng_valid_io(zram, sector, PAGE_SIZE)) {
		atomic64_inc(&zram->stats.invalid_io);
		return -EINVAL;
	}

	start_time = bdev_start_io_acct(bdev->bd_disk->part0,
					ZRAM_NG_SECTORS_PER_PAGE, op, jiffies);
	if (write) {
		ret = zram_ng_slot_write(zram, page, index);
	} else {
		ret = zram_ng_slot_read(zram, page, index, NULL);
		if (!ret)
			flush_dcache_page(page);
	}
	zram_ng_slot_accessed(zram, index);
	bdev_end_io_acct(bdev->bd_disk->part0, op, start_time);
	if (ret)
		return ret;
	page_endio(page, write, 0);
	return 0;
}
#endif

static int zram_ng_open_disk(struct gendisk *disk)
{
	struct zram_ng *zram = disk->private_data;

	/* a reset or remove has claimed the device: stay out */
	return zram->claim ? -EBUSY : 0;
}

COMPAT_DEFINE_BDOPS_OPEN(zram_ng_open, zram_ng_open_disk)

/* The per-disk attributes: zram's (sysfs.c), then the features'. */
static const struct attribute_group *zram_ng_disk_groups[] = {
	&zram_ng_disk_group,
	&zram_ng_writeback_group,
	&zram_ng_idle_group,
	&zram_ng_recomp_group,
	&zram_ng_grouping_group,
	NULL,
};

static const struct block_device_operations zram_ng_devops = {
	.open = zram_ng_open,
	.submit_bio = zram_ng_submit_bio,
	COMPAT_BDOPS_RW_PAGE(zram_ng_rw_page)
	.swap_slot_free_notify = zram_ng_slot_free_notify,
	.owner = THIS_MODULE,
};

/*
 * The queue: one slot per page, so anything smaller than a page is a
 * read-modify-write; pages must not change under compression, which would
 * store them torn; every bio completes within submit_bio.
 */
static const struct compat_disk_limits zram_ng_disk_limits = {
	.logical_block_size = ZRAM_NG_LOGICAL_BLOCK_SIZE,
	.physical_block_size = PAGE_SIZE,
	.io_min = PAGE_SIZE,
	.io_opt = PAGE_SIZE,
	.discard_granularity = PAGE_SIZE,
	.max_discard_sectors = UINT_MAX,
	.max_write_zeroes_sectors = UINT_MAX,
	.stable_writes = true,
	.synchronous = true,
};

static int zram_ng_add(void)
{
	struct zram_ng *zram;
	int ret, device_id;
	u32 prio;

	zram = kzalloc(sizeof(*zram), GFP_KERNEL);
	if (!zram)
		return -ENOMEM;

	ret = idr_alloc(&zram_ng_index_idr, zram, 0, ZRAM_NG_MAX_DEVICES,
			GFP_KERNEL);
	if (ret < 0)
		goto out_free_dev;
	device_id = ret;

	init_rwsem(&zram->init_lock);
	spin_lock_init(&zram->wb_limit_lock);
	zram_ng_backing_dev_init(zram);
	zram_ng_writeback_dev_init(zram);
	strscpy(zram->compressor, "lz4", sizeof(zram->compressor));
	for (prio = 0; prio < ZRAM_NG_MAX_COMPS; prio++)
		zram->comp_params[prio].level = ZCOMP_NG_NO_LEVEL;
	zram->policy = ZSNG_POLICY_DEFAULT;

	zram->disk = compat_blk_alloc_disk(&zram_ng_disk_limits, NUMA_NO_NODE);
	if (IS_ERR(zram->disk)) {
		pr_err("cannot allocate the disk of device %d\n", device_id);
		ret = PTR_ERR(zram->disk);
		goto out_free_idr;
	}
	zram->disk->major = zram_ng_major;
	zram->disk->first_minor = device_id;
	zram->disk->minors = 1;
	zram->disk->flags |= GENHD_FL_NO_PART;
	zram->disk->fops = &zram_ng_devops;
	zram->disk->private_data = zram;
	snprintf(zram->disk->disk_name, sizeof(zram->disk->disk_name),
		 "zram_ng%d", device_id);
	set_capacity(zram->disk, 0);

	ret = device_add_disk(NULL, zram->disk, zram_ng_disk_groups);
	if (ret)
		goto out_put_disk;

	zram_ng_debugfs_register(zram);
	pr_info("added device %s\n", zram->disk->disk_name);
	return device_id;

out_put_disk:
	put_disk(zram->disk);
out_free_idr:
	idr_remove(&zram_ng_index_idr, device_id);
out_free_dev:
	kfree(zram);
	return ret;
}

/*
 * The remove protocol (hot_remove and module exit): refused while open;
 * otherwise claim the device as reset does, drain and reset it, delete the
 * disk, then reset once more: a disksize_store() that ran between the
 * first reset and del_gendisk() would otherwise leak its allocations.
 * If a reset_store() holds the claim, del_gendisk() waits for it.
 */
static int zram_ng_remove(struct zram_ng *zram)
{
	bool claimed;

	mutex_lock(&zram->disk->open_mutex);
	if (disk_openers(zram->disk)) {
		mutex_unlock(&zram->disk->open_mutex);
		return -EBUSY;
	}
	claimed = zram->claim;
	zram->claim = true;
	mutex_unlock(&zram->disk->open_mutex);

	if (!claimed) {
		sync_blockdev(zram->disk->part0);
		zram_ng_reset_device(zram);
	}

	pr_info("removed device %s\n", zram->disk->disk_name);
	zram_ng_debugfs_unregister(zram);
	del_gendisk(zram->disk);

	/*
	 * del_gendisk() drains a reset_store() that held the claim when we
	 * looked: by now it must have dropped it.
	 */
	WARN_ON_ONCE(claimed && zram->claim);

	zram_ng_reset_device(zram);
	put_disk(zram->disk);
	kfree(zram);
	return 0;
}

/* hot_add is 0400 and reading it has an effect: it creates a device. */
static ssize_t hot_add_show(COMPAT_CLASS_CONST struct class *class,
			    COMPAT_CLASS_CONST struct class_attribute *attr,
			    char *buf)
{
	int ret;

	mutex_lock(&zram_ng_index_mutex);
	ret = zram_ng_add();
	mutex_unlock(&zram_ng_index_mutex);
	if (ret < 0)
		return ret;
	return sysfs_emit(buf, "%d\n", ret);
}

static struct class_attribute class_attr_hot_add =
	__ATTR(hot_add, 0400, hot_add_show, NULL);

static ssize_t hot_remove_store(COMPAT_CLASS_CONST struct class *class,
				COMPAT_CLASS_CONST struct class_attribute *attr,
				const char *buf, size_t count)
{
	struct zram_ng *zram;
	int ret, dev_id;

	ret = kstrtoint(buf, 10, &dev_id);
	if (ret)
		return ret;
	if (dev_id < 0)
		return -EINVAL;

	mutex_lock(&zram_ng_index_mutex);
	zram = idr_find(&zram_ng_index_idr, dev_id);
	if (zram) {
		ret = zram_ng_remove(zram);
		if (!ret)
			idr_remove(&zram_ng_index_idr, dev_id);
	} else {
		ret = -ENODEV;
	}
	mutex_unlock(&zram_ng_index_mutex);
	return ret ? ret : count;
}
static CLASS_ATTR_WO(hot_remove);

static struct attribute *zram_ng_control_class_attrs[] = {
	&class_attr_hot_add.attr,
	&class_attr_hot_remove.attr,
	NULL,
};
ATTRIBUTE_GROUPS(zram_ng_control_class);

static struct class zram_ng_control_class = {
	.name = "zram_ng-control",
	COMPAT_CLASS_OWNER
	.class_groups = zram_ng_control_class_groups,
};

static int zram_ng_remove_cb(int id, void *ptr, void *data)
{
	/* the module is unused, so no device is open: this cannot fail */
	WARN_ON_ONCE(zram_ng_remove(ptr));
	return 0;
}

static void zram_ng_destroy_devices(void)
{
	class_unregister(&zram_ng_control_class);
	idr_for_each(&zram_ng_index_idr, zram_ng_remove_cb, NULL);
	idr_destroy(&zram_ng_index_idr);
	unregister_blkdev(zram_ng_major, "zram_ng");
	zram_ng_debugfs_exit();
	zram_ng_slot_layer_exit();
	zram_ng_group_layer_exit();
	zram_ng_backing_exit();
	zcomp_ng_hp_exit();
}

static int __init zram_ng_init(void)
{
	unsigned int i;
	int ret;

	if (num_devices > ZRAM_NG_MAX_DEVICES) {
		pr_err("num_devices %u is above %d\n", num_devices,
		       ZRAM_NG_MAX_DEVICES);
		return -EINVAL;
	}

	ret = zcomp_ng_hp_init();
	if (ret < 0)
		return ret;
	ret = zram_ng_backing_init();
	if (ret) {
		zcomp_ng_hp_exit();
		return ret;
	}
	ret = zram_ng_slot_layer_init();
	if (ret)
		goto out_wb;

	ret = class_register(&zram_ng_control_class);
	if (ret) {
		pr_err("cannot register the zram_ng-control class\n");
		goto out_slot;
	}

	zram_ng_major = register_blkdev(0, "zram_ng");
	if (zram_ng_major <= 0) {
		pr_err("cannot get a block major number\n");
		class_unregister(&zram_ng_control_class);
		ret = -EBUSY;
		goto out_slot;
	}
	zram_ng_debugfs_init();

	for (i = 0; i < num_devices; i++) {
		mutex_lock(&zram_ng_index_mutex);
		ret = zram_ng_add();
		mutex_unlock(&zram_ng_index_mutex);
		if (ret < 0)
			goto out_error;
	}
	return 0;

out_error:
	zram_ng_destroy_devices();
	return ret;
out_slot:
	zram_ng_slot_layer_exit();
out_wb:
	zram_ng_backing_exit();
	zcomp_ng_hp_exit();
	return ret;
}

static void __exit zram_ng_exit(void)
{
	zram_ng_destroy_devices();
}

module_init(zram_ng_init);
module_exit(zram_ng_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("zram_ng: compressed RAM block device on zsmalloc_ng");
MODULE_SOFTDEP("pre: lz4");
MODULE_VERSION(ZSNG_VERSION);

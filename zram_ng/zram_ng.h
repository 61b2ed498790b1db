/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zram_ng: the device, which every file of the driver shares. The files
 * are layers, and a file calls only into the layers below its own
 * (scripts/tests/test-layers checks it on the built objects):
 *
 *   main.c        module init, the device idr, hot_add/hot_remove, the
 *                 block_device_operations, submit_bio
 *   sysfs.c       the per-disk attributes of zram's ABI, disksize
 *                 (initialising the device) and reset
 *   writeback.c   writeback and its attributes         (features:
 *   recompress.c  recompression and its attributes      policy and
 *   idle.c        idle marking                          attributes,
 *   debugfs.c     zram_ng/<device>/block_state          features.h)
 *   pp.c          the post-processing scan: the one walk over the slots
 *                 that selects those writeback or recompression wants
 *                 (pp.h)
 *   slot.c        the slot table: reading, writing and freeing a slot,
 *                 installing an object in a slot, the allocation flags
 *                 (slot.h)
 *   backing.c     the backing device: claiming it, its block bitmap,
 *                 block I/O (backing.h)
 *   zcomp.c       the compression streams (zcomp.h), the crypto API's
 *                 algorithms
 *   zcomp_lz4.c   lz4 and lz4hc through the kernel's library, and
 *   zcomp_zstd.c  zstd (levels, dictionaries): zcomp.c's backends
 *
 * Below them the allocator, zsmalloc_ng, through its kernel API only
 * (zsmalloc_ng.h). Documentation/admin-guide/zram_ng.rst, "Source layout".
 *
 * Lock ordering: disk->open_mutex -> init_lock -> slot lock -> the CPU's
 * compression stream -> allocator mapping. A slot lock -> the other slot
 * locks of its leaf, only while that leaf is being freed (slot.c: nobody
 * else ever holds two slot locks). init_lock -> the backing
 * device's open_mutex (claiming and releasing it). slot lock ->
 * bd_epochs.lock (a read of a written-back slot joining the epoch, a
 * freed block entering the quarantine). wb_limit_lock, bd_epochs.lock
 * and the backing device's bitmap (atomic bit operations) are leaves. No
 * I/O to the backing device is ever done under a slot lock: the slot is
 * marked (ZRAM_NG_UNDER_WB) or its block number read and its read
 * registered in the epoch, and the lock dropped.
 */
#ifndef _ZRAM_NG_H
#define _ZRAM_NG_H

#include <linux/bits.h>
#include <linux/blkdev.h>
#include <linux/gfp.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include "compat/blkdev_open.h"
#include "zcomp.h"
#include "zsmalloc_ng.h"

#define ZRAM_NG_SECTORS_PER_PAGE_SHIFT	(PAGE_SHIFT - SECTOR_SHIFT)
#define ZRAM_NG_SECTORS_PER_PAGE	BIT(ZRAM_NG_SECTORS_PER_PAGE_SHIFT)
#define ZRAM_NG_LOGICAL_BLOCK_SHIFT	12
#define ZRAM_NG_LOGICAL_BLOCK_SIZE	BIT(ZRAM_NG_LOGICAL_BLOCK_SHIFT)
#define ZRAM_NG_MAX_ALGO_NAME		64

/*
 * Devices zram_ng0 to zram_ng<ZRAM_NG_MAX_DEVICES - 1> (main.c's idr).
 * Written only here: num_devices's description says it ("0-N", modinfo),
 * which is where zram-ng-setup reads it (tools/lib/zram-ng.sh's
 * zng_max_devices) to refuse a section above the last device.
 */
#define ZRAM_NG_MAX_DEVICES		1024

/*
 * The pool allocations: a writer holding a compression stream must not
 * sleep; the one that may, once the stream is dropped (a write's retry,
 * a grouping pass), must not recurse into I/O: the device may be swap.
 */
#define ZRAM_NG_NOSLEEP_GFP	(__GFP_KSWAPD_RECLAIM | __GFP_NOWARN | \
				 __GFP_HIGHMEM | __GFP_MOVABLE)
#define ZRAM_NG_SLEEP_GFP	(GFP_NOIO | __GFP_HIGHMEM | __GFP_MOVABLE)

/*
 * Compression algorithms by priority: 0 is the primary (comp_algorithm),
 * 1..3 the secondary ones recompression uses (recompress.c). A slot
 * records its priority in two bits (slot.h).
 */
#define ZRAM_NG_PRIMARY_COMP		0
#define ZRAM_NG_SECONDARY_COMP		1
#define ZRAM_NG_MAX_COMPS		4

struct zram_ng_slot_dir;

struct zram_ng_stats {
	atomic64_t compr_data_size;	/* bytes held by compressed objects */
	atomic64_t failed_reads;
	atomic64_t failed_writes;
	atomic64_t invalid_io;		/* out-of-range or misaligned bios */
	atomic64_t notify_free;		/* swap slot free notifications */
	atomic64_t same_pages;
	atomic64_t huge_pages;
	atomic64_t huge_pages_since;	/* huge pages ever stored */
	atomic64_t pages_stored;
	atomic_long_t max_used_pages;
	atomic64_t writestall;		/* writes that had to sleep to allocate */
	atomic64_t miss_free;		/* notifications lost to a busy slot */
	atomic64_t bd_count;		/* pages on the backing device */
	atomic64_t bd_reads;		/* pages read from it */
	atomic64_t bd_writes;		/* pages written to it */
	atomic64_t bd_retired;		/* its blocks retired after a write error */
	atomic64_t table_bytes;		/* the slot table: top array and leaves */
	/* groups (group.c): those alive and what they hold */
	atomic64_t groups;
	atomic64_t grouped_pages;	/* slots pointing into a group */
	atomic64_t group_bytes;		/* the streams' bytes */
	atomic64_t group_dead_pages;	/* pages of groups no slot points at */
	atomic64_t group_dead_bytes;	/* and their shares of the bytes */
	atomic64_t group_meta_bytes;	/* the groups' own structures */
	atomic64_t group_decomps;	/* reads that decompressed a group */
	atomic64_t group_cache_hits;	/* reads the CPU's last group served */
	atomic64_t wb_groups;		/* groups on the backing device */
	atomic64_t wb_grouped_pages;	/* slots pointing into one */
};

/*
 * The read epochs of the backing device (backing.c, "Block reuse"): a
 * freed block waits in the quarantine of the epoch it was freed in until
 * every read begun in that epoch or before has completed.
 */
struct zram_ng_bd_epochs {
	spinlock_t lock;		/* cur, the quarantines, their counts */
	unsigned long cur;		/* the current epoch */
	atomic_t readers[2];		/* reads in flight, by epoch parity */
	unsigned long *quarantine[2];	/* blocks freed, by epoch parity */
	unsigned long nr_quarantined[2];
};

struct zram_ng {
	struct zram_ng_slot_dir *table;	/* slot.c */
	struct zsng_pool *mem_pool;
	/* by priority; NULL where none is set, constant while initialised */
	struct zcomp_ng *comps[ZRAM_NG_MAX_COMPS];
	/*
	 * algorithm_params by priority: a level, a dictionary (vmalloc'ed,
	 * slot.c frees it), set before disksize, kept until reset or until
	 * that priority's algorithm changes
	 */
	struct zcomp_ng_params comp_params[ZRAM_NG_MAX_COMPS];
	/*
	 * Grouping's own zstd, when no secondary algorithm is set: made by
	 * the first grouping pass (grouping.c), destroyed on reset (slot.c)
	 */
	struct zcomp_ng *group_comp;
	struct gendisk *disk;
	/* held for write by init/reset/attribute changes, read by I/O */
	struct rw_semaphore init_lock;
	unsigned long limit_pages;	/* 0: no limit */
	struct zram_ng_stats stats;
	u64 disksize;			/* bytes; 0 until initialised */
	size_t huge_class_size;		/* store raw at this compressed size */
	int policy;			/* allocator policy of the next pool */
	char compressor[ZRAM_NG_MAX_ALGO_NAME];
	/* the secondary algorithms by priority ("": none; [0] unused) */
	char recomp_algs[ZRAM_NG_MAX_COMPS][ZRAM_NG_MAX_ALGO_NAME];
	bool claim;			/* reset or remove in progress */
	/*
	 * The backing device (backing.c): set before disksize, released
	 * on reset, so constant while the device is initialised. Block 0
	 * is never used: a WB slot's ->element is never 0.
	 */
	struct compat_bdev_claim backing;	/* ->bdev NULL: none */
	char *backing_path;		/* as written to backing_dev */
	unsigned long *bd_bitmap;	/* the blocks in use */
	unsigned long bd_nr_pages;	/* size of the backing device */
	unsigned long bd_next;		/* where the next search starts */
	struct zram_ng_bd_epochs bd_epochs;
	/* a writeback or recompression pass is running (pp.c) */
	atomic_t pp_running;
	spinlock_t wb_limit_lock;	/* the two below (writeback.c) */
	bool wb_limit_enable;
	u64 bd_wb_limit;		/* 4 KiB units left to write back */
	unsigned int wb_batch_size;	/* writes a pass keeps in flight */
	struct dentry *debugfs_dir;	/* block_state (debugfs.c) */
};

static inline bool zram_ng_init_done(struct zram_ng *zram)
{
	return zram->disksize;
}

static inline struct zram_ng *zram_ng_dev_to_zram(struct device *dev)
{
	return dev_to_disk(dev)->private_data;
}

#endif /* _ZRAM_NG_H */

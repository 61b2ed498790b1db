/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zram_ng: shared definitions of the block driver (zram_ng_drv.c), its
 * compression streams (zcomp.c) and its sysfs ABI (sysfs.c).
 */
#ifndef _ZRAM_NG_H
#define _ZRAM_NG_H

#include <linux/bits.h>
#include <linux/blkdev.h>
#include <linux/local_lock.h>
#include <linux/rwsem.h>
#include <linux/types.h>
#include "zsmalloc_ng.h"

#define ZRAM_NG_SECTORS_PER_PAGE_SHIFT	(PAGE_SHIFT - SECTOR_SHIFT)
#define ZRAM_NG_SECTORS_PER_PAGE	BIT(ZRAM_NG_SECTORS_PER_PAGE_SHIFT)
#define ZRAM_NG_LOGICAL_BLOCK_SHIFT	12
#define ZRAM_NG_LOGICAL_BLOCK_SIZE	BIT(ZRAM_NG_LOGICAL_BLOCK_SHIFT)
#define ZRAM_NG_MAX_ALGO_NAME		64

/*
 * The slot's flags word: the low ZRAM_NG_FLAG_SHIFT bits hold the
 * compressed size (at most PAGE_SIZE, so PAGE_SHIFT + 1 bits), the bits
 * above are flags. The lock bit serialises everything done to the slot.
 */
#define ZRAM_NG_FLAG_SHIFT	(PAGE_SHIFT + 1)

enum zram_ng_slot_flag {
	ZRAM_NG_LOCK = ZRAM_NG_FLAG_SHIFT,	/* bit spinlock of the slot */
	ZRAM_NG_SAME,		/* every word equals ->element, no handle */
	ZRAM_NG_HUGE,		/* stored uncompressed, PAGE_SIZE bytes */
	__NR_ZRAM_NG_FLAGS,
};

struct zram_ng_slot {
	union {
		unsigned long handle;	/* allocator handle */
		unsigned long element;	/* fill word of a ZRAM_NG_SAME slot */
	};
	unsigned long flags;
};

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
};

/* One compression stream per CPU; ->lock pins the task to the CPU. */
struct zcomp_ng_strm {
	local_lock_t lock;
	void *buffer;		/* two pages: output may exceed the input */
	struct crypto_comp *tfm;
};

struct zcomp_ng {
	struct zcomp_ng_strm __percpu *stream;
	const char *name;
	struct hlist_node node;	/* cpuhp instance */
};

struct zram_ng {
	struct zram_ng_slot *table;
	struct zsng_pool *mem_pool;
	struct zcomp_ng *comp;
	struct gendisk *disk;
	/* held for write by init/reset/attribute changes, read by I/O */
	struct rw_semaphore init_lock;
	unsigned long limit_pages;	/* 0: no limit */
	struct zram_ng_stats stats;
	u64 disksize;			/* bytes; 0 until initialised */
	size_t huge_class_size;		/* store raw at this compressed size */
	int policy;			/* allocator policy of the next pool */
	char compressor[ZRAM_NG_MAX_ALGO_NAME];
	bool claim;			/* reset or remove in progress */
};

static inline bool zram_ng_init_done(struct zram_ng *zram)
{
	return zram->disksize;
}

/* zram_ng_drv.c */
extern const struct attribute_group *zram_ng_disk_groups[];
struct zram_ng *zram_ng_dev_to_zram(struct device *dev);
int zram_ng_init_device(struct zram_ng *zram, u64 disksize);
int zram_ng_reset(struct zram_ng *zram);
void zram_ng_update_used_max(struct zram_ng *zram, unsigned long pages);

/* zcomp.c */
int zcomp_ng_hp_init(void);
void zcomp_ng_hp_exit(void);
bool zcomp_ng_available(const char *name);
ssize_t zcomp_ng_available_show(const char *current_name, char *buf);
struct zcomp_ng *zcomp_ng_create(const char *name);
void zcomp_ng_destroy(struct zcomp_ng *comp);
struct zcomp_ng_strm *zcomp_ng_stream_get(struct zcomp_ng *comp);
void zcomp_ng_stream_put(struct zcomp_ng *comp);
int zcomp_ng_compress(struct zcomp_ng_strm *zstrm, const void *src,
		      unsigned int *dst_len);
int zcomp_ng_decompress(struct zcomp_ng_strm *zstrm, const void *src,
			unsigned int src_len, void *dst);

#endif /* _ZRAM_NG_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zram_ng: shared definitions of the block driver (zram_ng_drv.c), its
 * compression streams (zcomp.c) and its sysfs ABI (sysfs.c).
 */
#ifndef _ZRAM_NG_H
#define _ZRAM_NG_H

#include <linux/bit_spinlock.h>
#include <linux/bits.h>
#include <linux/blkdev.h>
#include <linux/ktime.h>
#include <linux/local_lock.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include "compat/blkdev_open.h"
#include "zsmalloc_ng.h"

#define ZRAM_NG_SECTORS_PER_PAGE_SHIFT	(PAGE_SHIFT - SECTOR_SHIFT)
#define ZRAM_NG_SECTORS_PER_PAGE	BIT(ZRAM_NG_SECTORS_PER_PAGE_SHIFT)
#define ZRAM_NG_LOGICAL_BLOCK_SHIFT	12
#define ZRAM_NG_LOGICAL_BLOCK_SIZE	BIT(ZRAM_NG_LOGICAL_BLOCK_SHIFT)
#define ZRAM_NG_MAX_ALGO_NAME		64

/*
 * Storing an object while a per-CPU stream is held: no sleeping, kswapd
 * may be woken, highmem and movable pages as zram takes them. On failure
 * the write path drops the stream and allocates with GFP_NOIO;
 * recompression keeps the old object. One definition for both.
 */
#define ZRAM_NG_GFP_NOSLEEP	(__GFP_KSWAPD_RECLAIM | __GFP_NOWARN | \
				 __GFP_HIGHMEM | __GFP_MOVABLE)

/*
 * Compression algorithms by priority: 0 is the primary (comp_algorithm),
 * 1..3 the secondary ones recompression uses (recompress.c).
 */
#define ZRAM_NG_PRIMARY_COMP		0
#define ZRAM_NG_SECONDARY_COMP		1
#define ZRAM_NG_MAX_COMPS		4

/*
 * The slot's flags word: the low ZRAM_NG_FLAG_SHIFT bits hold the
 * compressed size (at most PAGE_SIZE, so PAGE_SHIFT + 1 bits), the bits
 * above are flags. The lock bit serialises everything done to the slot.
 * The priority of the algorithm that compressed the slot (0: primary) is
 * a two-bit field, ZRAM_NG_PRIO_BIT0 and the bit above it.
 */
#define ZRAM_NG_FLAG_SHIFT	(PAGE_SHIFT + 1)

enum zram_ng_slot_flag {
	ZRAM_NG_LOCK = ZRAM_NG_FLAG_SHIFT,	/* bit spinlock of the slot */
	ZRAM_NG_SAME,		/* every word equals ->element, no handle */
	ZRAM_NG_HUGE,		/* stored uncompressed, PAGE_SIZE bytes */
	ZRAM_NG_WB,		/* on the backing device, block ->element */
	ZRAM_NG_UNDER_WB,	/* a writeback of the slot is in flight */
	ZRAM_NG_IDLE,		/* not accessed since the last idle marking */
	ZRAM_NG_INCOMPRESSIBLE,	/* no secondary algorithm shrank it */
	ZRAM_NG_PRIO_BIT0,	/* the priority: two bits, this one ... */
	ZRAM_NG_PRIO_BIT1,	/* ... and this one */
	__NR_ZRAM_NG_FLAGS,
};

struct zram_ng_slot {
	union {
		unsigned long handle;	/* allocator handle */
		unsigned long element;	/* fill word (SAME) or block (WB) */
	};
	unsigned long flags;
	ktime_t ac_time;	/* last read or write, boot time; 0: none */
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
	atomic64_t bd_count;		/* pages on the backing device */
	atomic64_t bd_reads;		/* pages read from it */
	atomic64_t bd_writes;		/* pages written to it */
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
	/* by priority; NULL where none is set, constant while initialised */
	struct zcomp_ng *comps[ZRAM_NG_MAX_COMPS];
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
	 * The backing device (writeback.c): set before disksize, released
	 * on reset, so constant while the device is initialised. Block 0
	 * is never used: a WB slot's ->element is never 0.
	 */
	struct compat_bdev_claim backing;	/* ->bdev NULL: none */
	char *backing_path;		/* as written to backing_dev */
	unsigned long *bd_bitmap;	/* the blocks in use */
	unsigned long bd_nr_pages;	/* size of the backing device */
	spinlock_t wb_limit_lock;	/* the two below */
	bool wb_limit_enable;
	u64 bd_wb_limit;		/* 4 KiB units left to write back */
	struct dentry *debugfs_dir;	/* block_state (idle.c) */
};

static inline bool zram_ng_init_done(struct zram_ng *zram)
{
	return zram->disksize;
}

/*
 * The slot accessors: nothing else touches the packed flags word. Every
 * one but slot_lock/slot_trylock is called with the slot locked.
 */
static inline void slot_lock(struct zram_ng *zram, u32 index)
{
	bit_spin_lock(ZRAM_NG_LOCK, &zram->table[index].flags);
}

static inline bool slot_trylock(struct zram_ng *zram, u32 index)
{
	return bit_spin_trylock(ZRAM_NG_LOCK, &zram->table[index].flags);
}

static inline void slot_unlock(struct zram_ng *zram, u32 index)
{
	bit_spin_unlock(ZRAM_NG_LOCK, &zram->table[index].flags);
}

static inline unsigned long slot_handle(struct zram_ng *zram, u32 index)
{
	return zram->table[index].handle;
}

static inline void slot_set_handle(struct zram_ng *zram, u32 index,
				   unsigned long handle)
{
	zram->table[index].handle = handle;
}

static inline unsigned long slot_element(struct zram_ng *zram, u32 index)
{
	return zram->table[index].element;
}

static inline void slot_set_element(struct zram_ng *zram, u32 index,
				    unsigned long element)
{
	zram->table[index].element = element;
}

static inline bool slot_test_flag(struct zram_ng *zram, u32 index,
				  enum zram_ng_slot_flag flag)
{
	return zram->table[index].flags & BIT(flag);
}

static inline void slot_set_flag(struct zram_ng *zram, u32 index,
				 enum zram_ng_slot_flag flag)
{
	zram->table[index].flags |= BIT(flag);
}

static inline void slot_clear_flag(struct zram_ng *zram, u32 index,
				   enum zram_ng_slot_flag flag)
{
	zram->table[index].flags &= ~BIT(flag);
}

static inline size_t slot_obj_size(struct zram_ng *zram, u32 index)
{
	return zram->table[index].flags & (BIT(ZRAM_NG_FLAG_SHIFT) - 1);
}

static inline void slot_set_obj_size(struct zram_ng *zram, u32 index,
				     size_t size)
{
	unsigned long flags = zram->table[index].flags >> ZRAM_NG_FLAG_SHIFT;

	zram->table[index].flags = (flags << ZRAM_NG_FLAG_SHIFT) | size;
}

static inline ktime_t slot_ac_time(struct zram_ng *zram, u32 index)
{
	return zram->table[index].ac_time;
}

static inline void slot_set_ac_time(struct zram_ng *zram, u32 index,
				    ktime_t time)
{
	zram->table[index].ac_time = time;
}

#define ZRAM_NG_PRIO_MASK	(BIT(ZRAM_NG_PRIO_BIT0) | BIT(ZRAM_NG_PRIO_BIT1))

/* The priority of the algorithm that compressed slot @index. */
static inline u32 slot_priority(struct zram_ng *zram, u32 index)
{
	return (zram->table[index].flags & ZRAM_NG_PRIO_MASK) >>
	       ZRAM_NG_PRIO_BIT0;
}

static inline void slot_set_priority(struct zram_ng *zram, u32 index,
				     u32 prio)
{
	zram->table[index].flags &= ~ZRAM_NG_PRIO_MASK;
	zram->table[index].flags |= ((unsigned long)prio << ZRAM_NG_PRIO_BIT0) &
				    ZRAM_NG_PRIO_MASK;
}

/* Holds data: compressed, same-filled or on the backing device. */
static inline bool slot_allocated(struct zram_ng *zram, u32 index)
{
	return slot_obj_size(zram, index) ||
	       slot_test_flag(zram, index, ZRAM_NG_SAME) ||
	       slot_test_flag(zram, index, ZRAM_NG_WB);
}

/* zram_ng_drv.c */
extern const struct attribute_group *zram_ng_disk_groups[];
struct zram_ng *zram_ng_dev_to_zram(struct device *dev);
int zram_ng_init_device(struct zram_ng *zram, u64 disksize);
int zram_ng_reset(struct zram_ng *zram);
void zram_ng_update_used_max(struct zram_ng *zram, unsigned long pages);
void zram_ng_free_slot(struct zram_ng *zram, u32 index);
int zram_ng_read_page(struct zram_ng *zram, struct page *page, u32 index);
int zram_ng_read_slot_locked(struct zram_ng *zram, struct page *page,
			     u32 index);

/* recompress.c */
extern const struct attribute_group zram_ng_recomp_group;
int zram_ng_create_recomps(struct zram_ng *zram);

/* writeback.c */
extern const struct attribute_group zram_ng_writeback_group;
int zram_ng_wb_init(void);
void zram_ng_wb_exit(void);
void zram_ng_backing_release(struct zram_ng *zram);
void zram_ng_bd_free_block(struct zram_ng *zram, unsigned long blk);
int zram_ng_bd_read(struct zram_ng *zram, struct page *page, unsigned long blk);
int zram_ng_bd_read_chained(struct zram_ng *zram, struct page *page,
			    unsigned long blk, struct bio *parent);

/* idle.c */
extern const struct attribute_group zram_ng_idle_group;
void zram_ng_slot_accessed(struct zram_ng *zram, u32 index);
void zram_ng_debugfs_init(void);
void zram_ng_debugfs_exit(void);
void zram_ng_debugfs_register(struct zram_ng *zram);
void zram_ng_debugfs_unregister(struct zram_ng *zram);

/* zcomp.c */
int zcomp_ng_hp_init(void);
void zcomp_ng_hp_exit(void);
bool zcomp_ng_available(const char *name);
ssize_t zcomp_ng_available_show(const char *current_name, char *buf,
				ssize_t at);
struct zcomp_ng *zcomp_ng_create(const char *name);
void zcomp_ng_destroy(struct zcomp_ng *comp);
struct zcomp_ng_strm *zcomp_ng_stream_get(struct zcomp_ng *comp);
void zcomp_ng_stream_put(struct zcomp_ng *comp);
int zcomp_ng_compress(struct zcomp_ng_strm *zstrm, const void *src,
		      unsigned int *dst_len);
int zcomp_ng_decompress(struct zcomp_ng_strm *zstrm, const void *src,
			unsigned int src_len, void *dst);

#endif /* _ZRAM_NG_H */

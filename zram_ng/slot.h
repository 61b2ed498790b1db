/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zram_ng's slot layer (slot.c): the table of slots, one per page of the
 * disk, and the named accessors of a slot's packed flags word, which
 * nothing else touches.
 */
#ifndef _ZRAM_NG_SLOT_H
#define _ZRAM_NG_SLOT_H

#include <linux/bit_spinlock.h>
#include <linux/ktime.h>
#include "zram_ng.h"

/*
 * The slot's flags word: the low ZRAM_NG_FLAG_SHIFT bits hold the
 * compressed size (at most PAGE_SIZE, so PAGE_SHIFT + 1 bits), the bits
 * above are flags. The lock bit serialises everything done to the slot.
 * The priority of the algorithm that compressed the slot (0: primary) is
 * a two-bit field, ZRAM_NG_PRIO_BIT0 and the bit above it. slot.c pins
 * both to the word's width and ZRAM_NG_MAX_COMPS with BUILD_BUG_ON.
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
	__NR_ZRAM_NG_FLAGS,	/* must fit in ->flags: slot.c */
};

struct zram_ng_slot {
	union {
		unsigned long handle;	/* allocator handle */
		unsigned long element;	/* fill word (SAME) or block (WB) */
	};
	unsigned long flags;
	ktime_t ac_time;	/* last read or write, boot time; 0: none */
};

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

/* The table, the pool and the streams of a device (disksize, reset). */
int zram_ng_slots_init(struct zram_ng *zram, u64 disksize,
		       unsigned int pool_flags);
void zram_ng_slots_free(struct zram_ng *zram);

/* Whole pages in and out of a slot, taking its lock. */
int zram_ng_slot_read(struct zram_ng *zram, struct page *page, u32 index,
		      struct bio *parent);
int zram_ng_slot_write(struct zram_ng *zram, struct page *page, u32 index);
void zram_ng_slot_accessed(struct zram_ng *zram, u32 index);

/* With the slot locked. */
int zram_ng_slot_read_locked(struct zram_ng *zram, struct page *page,
			     u32 index);
void zram_ng_slot_free(struct zram_ng *zram, u32 index);
void zram_ng_slot_install(struct zram_ng *zram, u32 index,
			  unsigned long handle, unsigned int len, u32 prio);
void zram_ng_slot_install_wb(struct zram_ng *zram, u32 index,
			     unsigned long blk);

unsigned long zram_ng_obj_store_nosleep(struct zram_ng *zram, const void *src,
					unsigned int len);
void zram_ng_update_used_max(struct zram_ng *zram, unsigned long pages);

#endif /* _ZRAM_NG_SLOT_H */

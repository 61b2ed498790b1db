/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zram_ng's slot layer (slot.c): the table of slots, one per page of the
 * disk, and the named accessors of a slot's packed word, which nothing
 * else touches. The table's shape (a top array of leaves of 256 slots,
 * allocated as they are written: slot.c's design comment) is known here
 * and in slot.c only.
 */
#ifndef _ZRAM_NG_SLOT_H
#define _ZRAM_NG_SLOT_H

#include <linux/atomic.h>
#include <linux/bit_spinlock.h>
#include <linux/ktime.h>
#include <linux/rcupdate.h>
#include "zram_ng.h"

/*
 * The slot's word, low bits first: the compressed size (at most
 * PAGE_SIZE, so PAGE_SHIFT + 1 bits), the lock bit and the flags, then
 * the access time in every bit left (milliseconds of boot time). The lock
 * bit serialises everything done to the slot. The priority of the
 * algorithm that compressed the slot (0: primary) is a two-bit field,
 * ZRAM_NG_PRIO_BIT0 and the bit above it. slot.c pins the layout with
 * BUILD_BUG_ON.
 */
#define ZRAM_NG_FLAG_SHIFT	(PAGE_SHIFT + 1)

enum zram_ng_slot_flag {
	ZRAM_NG_LOCK = ZRAM_NG_FLAG_SHIFT,	/* bit spinlock of the slot */
	ZRAM_NG_SAME,		/* every word equals ->element, no handle */
	ZRAM_NG_HUGE,		/* stored uncompressed, PAGE_SIZE bytes */
	ZRAM_NG_WB,		/* on the backing device, block ->element */
	ZRAM_NG_UNDER_WB,	/* a pass (writeback, grouping) has the slot */
	ZRAM_NG_IDLE,		/* not accessed since the last idle marking */
	ZRAM_NG_INCOMPRESSIBLE,	/* no secondary algorithm shrank it */
	ZRAM_NG_PRIO_BIT0,	/* the priority: two bits, this one ... */
	ZRAM_NG_PRIO_BIT1,	/* ... and this one */
	ZRAM_NG_GROUPED,	/* a member of the group ->handle (group.c) */
	ZRAM_NG_COUNTED,	/* counted in its leaf's busy (slot.c) */
	__NR_ZRAM_NG_FLAGS,	/* the access time starts here */
};

/* The access time: milliseconds since boot in the bits above the flags. */
#define ZRAM_NG_AC_TIME_SHIFT	__NR_ZRAM_NG_FLAGS
#define ZRAM_NG_AC_TIME_MAX	(~0UL >> ZRAM_NG_AC_TIME_SHIFT)

struct zram_ng_slot {
	union {
		unsigned long handle;	/* allocator handle */
		unsigned long element;	/* fill word (SAME) or block (WB) */
	};
	unsigned long flags;	/* size, lock, flags, access time */
};

/* A leaf: 256 slots, one page. Slot i is slots[i & 255] of leaf i >> 8. */
#define ZRAM_NG_LEAF_SHIFT	8
#define ZRAM_NG_LEAF_SLOTS	BIT(ZRAM_NG_LEAF_SHIFT)
#define ZRAM_NG_LEAF_MASK	(ZRAM_NG_LEAF_SLOTS - 1)

struct zram_ng_slot_leaf {
	struct zram_ng_slot slots[ZRAM_NG_LEAF_SLOTS];
};

/* The table's top array has one entry a leaf (slot.c, "The table"). */
struct zram_ng_slot_dir {
	struct zram_ng_slot_leaf __rcu *leaf;	/* NULL: every slot empty */
	atomic_t busy;		/* counted slots + writers' reservations */
};

static inline struct zram_ng_slot_dir *slot_dir(struct zram_ng *zram,
						u32 index)
{
	return &zram->table[index >> ZRAM_NG_LEAF_SHIFT];
}

/* Slot @index, which the caller holds locked (or owns the table: reset). */
static inline struct zram_ng_slot *slot_ptr(struct zram_ng *zram, u32 index)
{
	struct zram_ng_slot_leaf *leaf = rcu_dereference(slot_dir(zram, index)->leaf);

	return &leaf->slots[index & ZRAM_NG_LEAF_MASK];
}

/* Whether the slot's word says it is COUNTED and should not, or the reverse. */
static inline bool slot_unsettled(unsigned long flags)
{
	bool counted = flags & BIT(ZRAM_NG_COUNTED);
	bool keep = (flags & (BIT(ZRAM_NG_FLAG_SHIFT) - 1)) ||
		    (flags & (BIT(ZRAM_NG_SAME) | BIT(ZRAM_NG_WB) |
			      BIT(ZRAM_NG_UNDER_WB)));

	return counted != keep;
}

void zram_ng_slot_settle(struct zram_ng *zram, u32 index);

/*
 * The slot accessors: nothing else touches the packed word. Every one but
 * slot_lock is called with the slot locked.
 *
 * slot_lock: true, and the slot is locked, when its leaf is there; false
 * when it is not: the slot is empty (reads as zeroes, has nothing to
 * free) and nothing is held. Only a writer (zram_ng_slot_write) makes a
 * leaf appear, and a slot that is written back (ZRAM_NG_UNDER_WB) or
 * holds data keeps its leaf: writeback relocking its slot needs no check.
 * The slot is locked inside an RCU read-side section that slot_unlock
 * ends; a leaf dies only with all its slots locked, so the leaf found
 * again once the lock is held is the one the slot stays in until unlocked.
 */
static inline bool slot_lock(struct zram_ng *zram, u32 index)
{
	struct zram_ng_slot_dir *dir = slot_dir(zram, index);
	struct zram_ng_slot_leaf *leaf;
	unsigned long *word;

	rcu_read_lock();
	for (;;) {
		leaf = rcu_dereference(dir->leaf);
		if (!leaf) {
			rcu_read_unlock();
			return false;
		}
		word = &leaf->slots[index & ZRAM_NG_LEAF_MASK].flags;
		bit_spin_lock(ZRAM_NG_LOCK, word);
		if (likely(rcu_access_pointer(dir->leaf) == leaf))
			return true;
		/* killed before we had the lock: its slots are all empty */
		bit_spin_unlock(ZRAM_NG_LOCK, word);
	}
}

/* Settles the slot's count in its leaf (slot.c), then unlocks it. */
static inline void slot_unlock(struct zram_ng *zram, u32 index)
{
	struct zram_ng_slot *slot = slot_ptr(zram, index);

	if (slot_unsettled(slot->flags))
		zram_ng_slot_settle(zram, index);
	/* the leaf may be dead now: its memory lasts until rcu_read_unlock */
	bit_spin_unlock(ZRAM_NG_LOCK, &slot->flags);
	rcu_read_unlock();
}

static inline unsigned long slot_handle(struct zram_ng *zram, u32 index)
{
	return slot_ptr(zram, index)->handle;
}

static inline void slot_set_handle(struct zram_ng *zram, u32 index,
				   unsigned long handle)
{
	slot_ptr(zram, index)->handle = handle;
}

static inline unsigned long slot_element(struct zram_ng *zram, u32 index)
{
	return slot_ptr(zram, index)->element;
}

static inline void slot_set_element(struct zram_ng *zram, u32 index,
				    unsigned long element)
{
	slot_ptr(zram, index)->element = element;
}

static inline bool slot_test_flag(struct zram_ng *zram, u32 index,
				  enum zram_ng_slot_flag flag)
{
	return slot_ptr(zram, index)->flags & BIT(flag);
}

static inline void slot_set_flag(struct zram_ng *zram, u32 index,
				 enum zram_ng_slot_flag flag)
{
	slot_ptr(zram, index)->flags |= BIT(flag);
}

static inline void slot_clear_flag(struct zram_ng *zram, u32 index,
				   enum zram_ng_slot_flag flag)
{
	slot_ptr(zram, index)->flags &= ~BIT(flag);
}

static inline size_t slot_obj_size(struct zram_ng *zram, u32 index)
{
	return slot_ptr(zram, index)->flags & (BIT(ZRAM_NG_FLAG_SHIFT) - 1);
}

static inline void slot_set_obj_size(struct zram_ng *zram, u32 index,
				     size_t size)
{
	struct zram_ng_slot *slot = slot_ptr(zram, index);
	unsigned long flags = slot->flags >> ZRAM_NG_FLAG_SHIFT;

	slot->flags = (flags << ZRAM_NG_FLAG_SHIFT) | size;
}

/* The last read or write, boot time at millisecond resolution; 0: none. */
static inline ktime_t slot_ac_time(struct zram_ng *zram, u32 index)
{
	unsigned long ms = slot_ptr(zram, index)->flags >> ZRAM_NG_AC_TIME_SHIFT;

	return ms_to_ktime(ms);
}

static inline void slot_set_ac_time(struct zram_ng *zram, u32 index,
				    ktime_t time)
{
	struct zram_ng_slot *slot = slot_ptr(zram, index);
	s64 ms = ktime_to_ms(time);

	/* ZRAM_NG_AC_TIME_MAX ms is decades: saturate, never wrap */
	ms = clamp_t(s64, ms, 0, ZRAM_NG_AC_TIME_MAX);
	slot->flags = (slot->flags & (BIT(ZRAM_NG_AC_TIME_SHIFT) - 1)) |
		      ((unsigned long)ms << ZRAM_NG_AC_TIME_SHIFT);
}

#define ZRAM_NG_PRIO_MASK	(BIT(ZRAM_NG_PRIO_BIT0) | BIT(ZRAM_NG_PRIO_BIT1))

/* The priority of the algorithm that compressed slot @index. */
static inline u32 slot_priority(struct zram_ng *zram, u32 index)
{
	return (slot_ptr(zram, index)->flags & ZRAM_NG_PRIO_MASK) >>
	       ZRAM_NG_PRIO_BIT0;
}

static inline void slot_set_priority(struct zram_ng *zram, u32 index,
				     u32 prio)
{
	struct zram_ng_slot *slot = slot_ptr(zram, index);

	slot->flags &= ~ZRAM_NG_PRIO_MASK;
	slot->flags |= ((unsigned long)prio << ZRAM_NG_PRIO_BIT0) &
		       ZRAM_NG_PRIO_MASK;
}

/* Holds data: compressed, same-filled or on the backing device. */
static inline bool slot_allocated(struct zram_ng *zram, u32 index)
{
	return slot_obj_size(zram, index) ||
	       slot_test_flag(zram, index, ZRAM_NG_SAME) ||
	       slot_test_flag(zram, index, ZRAM_NG_WB);
}

/* The leaves' memory, for every device: module init and exit. */
int zram_ng_slot_layer_init(void);
void zram_ng_slot_layer_exit(void);

/* The table, the pool and the streams of a device (disksize, reset). */
/* algorithm_params of priority @prio back to none (the dictionary freed). */
void zram_ng_comp_params_reset(struct zram_ng *zram, u32 prio);

int zram_ng_slots_init(struct zram_ng *zram, u64 disksize,
		       unsigned int pool_flags);
void zram_ng_slots_free(struct zram_ng *zram);

/*
 * The first slot from @index on, below @end, whose leaf is there (@end
 * if none): scans skip the empty ranges a leaf at a time, then lock each
 * slot, which is what says whether it is there.
 */
u32 zram_ng_slot_next_present(struct zram_ng *zram, u32 index, u32 end);

/* Empties @nr slots from @index (discard); absent leaves are skipped. */
void zram_ng_slots_discard(struct zram_ng *zram, u32 index, u32 nr);
/* Empties slot @index unless its lock is held (swap free notify): false then. */
bool zram_ng_slot_discard_nowait(struct zram_ng *zram, u32 index);

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
struct zram_ng_group;
void zram_ng_slot_install_group(struct zram_ng *zram, u32 index,
				struct zram_ng_group *grp, unsigned int k);
void zram_ng_slot_install_group_wb(struct zram_ng *zram, u32 index,
				   struct zram_ng_group *grp, unsigned int k);

unsigned long zram_ng_obj_store_nosleep(struct zram_ng *zram, const void *src,
					unsigned int len);
void zram_ng_update_used_max(struct zram_ng *zram, unsigned long pages);

#endif /* _ZRAM_NG_SLOT_H */

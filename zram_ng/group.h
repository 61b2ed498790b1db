/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zram_ng's groups (group.c): several idle pages compressed together as
 * one stream, stored in page-sized chunks of the pool, which the member
 * slots point at. The grouping pass (grouping.c) makes them; slot.c reads
 * and frees members through the calls below.
 */
#ifndef _ZRAM_NG_GROUP_H
#define _ZRAM_NG_GROUP_H

#include <linux/atomic.h>
#include <linux/types.h>
#include "zram_ng.h"

/*
 * The most pages a group holds. 16 pages (64 KiB) is where the gain of a
 * longer stream flattens on real application memory, and what one read
 * decompresses at worst.
 */
#define ZRAM_NG_GROUP_MAX_PAGES	16
#define ZRAM_NG_GROUP_MIN_PAGES	2
#define ZRAM_NG_GROUP_MAX_BYTES	(ZRAM_NG_GROUP_MAX_PAGES * PAGE_SIZE)

/*
 * A group: immutable once made, but for ->live. The members are the
 * slots ->base + ->offs[k], k < ->nr, all in one leaf of the table
 * (256 slots), in the order their pages are in the stream. ->live counts
 * the members still pointing here (and, while the pass commits, the
 * pass itself); the last one to leave frees the group. Its stream is
 * stored in chunks (group.c, "Storage"):
 *
 *   slot (flag ZRAM_NG_GROUPED, ->handle = the group, size = its share)
 *     |                      +-> chunk 0: PAGE_SIZE bytes of the stream
 *     +-> struct zram_ng_group --> chunk 1: PAGE_SIZE bytes
 *     |     id, comp, live,      +-> chunk 2: 2048 bytes  } the rest,
 *     |     base, offs[nr]       +-> chunk 3: 512 bytes   } 2600 bytes
 *     |                          +-> chunk 4: 40 bytes    }
 *   slot (another member)
 */
struct zram_ng_group {
	u64 id;			/* never reused: the read cache's key */
	struct zcomp_ng *comp;	/* decompresses it; lives until reset */
	atomic_t live;
	u32 base;		/* slot index of the leaf's first slot */
	u32 comp_len;		/* bytes of the stream */
	u8 nr;			/* pages in the stream */
	u8 nr_chunks;		/* zram_ng_group_chunk(); written back: blocks */
	bool on_bd;		/* written back: chunks[0] is the first block */
	u8 offs[ZRAM_NG_GROUP_MAX_PAGES];
	/* allocator handles; written back, the first of nr_chunks blocks */
	unsigned long chunks[];
};

/* A read of a written-back group's member, between its two halves. */
struct zram_ng_group_bd_read {
	struct zcomp_ng *comp;
	u64 id;
	unsigned long blk;
	u32 comp_len;
	u8 nr, nr_blocks, k;
	unsigned int epoch;
};

/*
 * Whether a quarter or more of @grp's pages are gone: the next pass makes
 * its pages left anew with their neighbours. A quarter, because random
 * frees leave most groups with some dead pages (30% of the pages freed at
 * random leave a quarter dead in 3 of 4 groups of 16), and the memory
 * after such frees stays near what the groups saved only with most of
 * those bytes back; regrouping costs one decompression and one
 * compression of the pages left, paid once per pass.
 */
static inline bool zram_ng_group_worth_regrouping(struct zram_ng_group *grp)
{
	return 4 * (grp->nr - atomic_read(&grp->live)) >= grp->nr;
}

/* The blocks a written-back stream of @comp_len bytes takes. */
static inline unsigned int zram_ng_group_blocks(u32 comp_len)
{
	return DIV_ROUND_UP(comp_len, PAGE_SIZE);
}

/*
 * The share of the stream's bytes that member @k is charged for; the
 * shares add up to ->comp_len. It is the member slot's size, so
 * compr_data_size counts the shares of the members alive, the size rules
 * of writeback and recompression see a plausible size, and
 * slot_allocated() holds.
 */
static inline u32 zram_ng_group_share(const struct zram_ng_group *grp,
				      unsigned int k)
{
	return grp->comp_len / grp->nr + (k < grp->comp_len % grp->nr);
}

int zram_ng_group_caches_init(void);
void zram_ng_group_layer_exit(void);

struct zram_ng_group *zram_ng_group_make(struct zram_ng *zram,
					 struct zcomp_ng *comp,
					 const void *stream, u32 comp_len,
					 u32 base, const u8 *offs, u8 nr);
void zram_ng_group_join(struct zram_ng *zram, struct zram_ng_group *grp,
			unsigned int k);
void zram_ng_group_committed(struct zram_ng *zram, struct zram_ng_group *grp);
void zram_ng_group_leave(struct zram_ng *zram, struct zram_ng_group *grp,
			 u32 share);
int zram_ng_group_read(struct zram_ng *zram, struct zram_ng_group *grp,
		       u32 index, void *dst);

/* Writeback of a whole group (writeback.c) and reads of its members. */
void zram_ng_group_hold(struct zram_ng_group *grp);
void zram_ng_group_copy_stream(struct zram_ng *zram, struct zram_ng_group *grp,
			       struct page **pages);
struct zram_ng_group *zram_ng_group_wb_make(struct zram_ng *zram,
					    const struct zram_ng_group *src,
					    unsigned long blk);
int zram_ng_group_bd_read_begin(struct zram_ng *zram, struct zram_ng_group *grp,
				u32 index, void *dst,
				struct zram_ng_group_bd_read *r);
int zram_ng_group_bd_read_end(struct zram_ng *zram,
			      struct zram_ng_group_bd_read *r,
			      struct page *page);

#endif /* _ZRAM_NG_GROUP_H */

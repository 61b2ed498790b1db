/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zram_ng's post-processing scan (pp.c): the one walk over the slots
 * that picks those a writeback or recompression pass wants, after
 * upstream zram's zram_pp_ctl. Between the features and the slot layer.
 */
#ifndef _ZRAM_NG_PP_H
#define _ZRAM_NG_PP_H

#include "zram_ng.h"

/* What a pass wants of a slot, beyond holding a compressed object. */
#define ZRAM_NG_PP_IDLE			BIT(0)	/* only idle ones */
#define ZRAM_NG_PP_HUGE			BIT(1)	/* only huge ones */
#define ZRAM_NG_PP_COMPRESSIBLE		BIT(2)	/* not ZRAM_NG_INCOMPRESSIBLE */
#define ZRAM_NG_PP_INCOMPRESSIBLE	BIT(3)	/* only ZRAM_NG_INCOMPRESSIBLE */
#define ZRAM_NG_PP_NOT_HUGE		BIT(4)	/* no huge ones */
/*
 * Members of groups worth regrouping too, idle or not (grouping.c
 * makes them anew); without it, and in any case for the other members, a
 * pass never wants a member of a group.
 */
#define ZRAM_NG_PP_REGROUP		BIT(5)
/* Members of groups in memory as any slot (writeback takes whole groups). */
#define ZRAM_NG_PP_GROUPS		BIT(6)

/* ->take's answer: done with the slot, or hand it to ->process. */
#define ZRAM_NG_PP_DONE		0
#define ZRAM_NG_PP_PROCESS	1
/* ->next's answer: go on, or end the scan without an error. */
#define ZRAM_NG_PP_NEXT		0
#define ZRAM_NG_PP_STOP		1

struct zram_ng_pp_ctl {
	u32 first, end;		/* the slots to walk: [first, end) */
	unsigned int want;	/* ZRAM_NG_PP_* */
	u32 min_size;		/* only objects of this size and more */
	/*
	 * Before every slot, wanted or not, unlocked (optional):
	 * ZRAM_NG_PP_NEXT, ZRAM_NG_PP_STOP, or an error that ends the scan.
	 */
	int (*next)(struct zram_ng *zram, void *priv);
	/*
	 * A wanted slot, locked: ZRAM_NG_PP_DONE, ZRAM_NG_PP_PROCESS, or an
	 * error that ends the scan.
	 */
	int (*take)(struct zram_ng *zram, u32 index, void *priv);
	/* A slot ->take handed on, unlocked (optional). */
	void (*process)(struct zram_ng *zram, u32 index, void *priv);
};

/*
 * The wanted slots of a range by object size, for a pass bounded to N
 * slots to take the largest first: bucket b holds the sizes from
 * zram_ng_pp_bucket_size(b) up to the next bucket's, 1/64 of a page each
 * (64 bytes with 4 KiB pages); the last holds PAGE_SIZE (huge) only.
 */
#define ZRAM_NG_PP_SIZE_BUCKETS	65

struct zram_ng_pp_sizes {
	u64 count[ZRAM_NG_PP_SIZE_BUCKETS];
};

static inline u32 zram_ng_pp_bucket_size(unsigned int bucket)
{
	return DIV_ROUND_UP(bucket * PAGE_SIZE, ZRAM_NG_PP_SIZE_BUCKETS - 1);
}

/* The most key=value pairs a post-processing attribute takes at once. */
#define ZRAM_NG_MAX_ARGS	16

struct zram_ng_arg {
	char *param, *val;
};

int zram_ng_split_args(const char *buf, char **copy, struct zram_ng_arg *args,
		       const char *const *keys);

int zram_ng_pp_begin(struct zram_ng *zram);
void zram_ng_pp_end(struct zram_ng *zram);
int zram_ng_pp_scan(struct zram_ng *zram, const struct zram_ng_pp_ctl *ctl,
		    void *priv);
void zram_ng_pp_count_sizes(struct zram_ng *zram,
			    const struct zram_ng_pp_ctl *ctl,
			    struct zram_ng_pp_sizes *sizes);
u32 zram_ng_pp_cut(const struct zram_ng_pp_sizes *sizes, u64 budget,
		   u32 *above);

#endif /* _ZRAM_NG_PP_H */

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

int zram_ng_pp_begin(struct zram_ng *zram);
void zram_ng_pp_end(struct zram_ng *zram);
int zram_ng_pp_scan(struct zram_ng *zram, const struct zram_ng_pp_ctl *ctl,
		    void *priv);

#endif /* _ZRAM_NG_PP_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zram_ng's backing device (backing.c): claiming it, its block bitmap and
 * block I/O. Below the slot layer; calls nothing of zram_ng above it.
 */
#ifndef _ZRAM_NG_BACKING_H
#define _ZRAM_NG_BACKING_H

#include <linux/blk_types.h>
#include "zram_ng.h"

/* 6.1's bd_stat and writeback_limit count 4 KiB units, not pages. */
#define ZRAM_NG_FOUR_K(pages)	((pages) << (PAGE_SHIFT - 12))

int zram_ng_backing_init(void);
void zram_ng_backing_exit(void);
void zram_ng_backing_dev_init(struct zram_ng *zram);
int zram_ng_backing_set(struct zram_ng *zram, char *path);
void zram_ng_backing_release(struct zram_ng *zram);

/* The most blocks in a row one I/O takes: a written-back group's stream. */
#define ZRAM_NG_BD_MAX_RUN	16

/* Blocks: taken by a writeback, named by a slot, freed through quarantine. */
int zram_ng_bd_alloc_block(struct zram_ng *zram, unsigned long *blk);
int zram_ng_bd_alloc_blocks(struct zram_ng *zram, unsigned int nr,
			    unsigned long *blk);
void zram_ng_bd_free_block(struct zram_ng *zram, unsigned long blk);
void zram_ng_bd_put_block(struct zram_ng *zram, unsigned long blk);
void zram_ng_bd_retire_block(struct zram_ng *zram, unsigned long blk);
unsigned long zram_ng_bd_nr_quarantined(struct zram_ng *zram);

/* A read of a written-back slot: begun under its lock, ended by the I/O. */
unsigned int zram_ng_bd_read_begin(struct zram_ng *zram);
int zram_ng_bd_read(struct zram_ng *zram, struct page *page, unsigned long blk,
		    struct bio *parent, unsigned int epoch);
int zram_ng_bd_read_blocks(struct zram_ng *zram, struct page **pages,
			   unsigned int nr, unsigned long blk,
			   unsigned int epoch);
int zram_ng_bd_write_blocks(struct zram_ng *zram, struct page **pages,
			    unsigned int nr, unsigned long blk);
/* A write of a writeback pass: started, ended by the pass after end_io. */
void zram_ng_bd_write_start(struct zram_ng *zram, struct bio *bio,
			    struct bio_vec *bvec, struct page *page,
			    unsigned long blk, bio_end_io_t *end_io,
			    void *private);
int zram_ng_bd_write_end(struct zram_ng *zram, struct bio *bio,
			 unsigned long blk);

#endif /* _ZRAM_NG_BACKING_H */

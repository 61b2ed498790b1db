/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The two allocators behind the calls the phases make. Inline, and chosen
 * by a switch on a loop-invariant kind rather than through function
 * pointers: a retpolined indirect call per operation would add the same
 * few tens of nanoseconds to both sides and pull their ratio towards 1.
 *
 * Each side is called the way its block driver calls it: the stock
 * zsmalloc as 6.1's zram does (zs_malloc, then map WO, copy, unmap), ours
 * as zram_ng does (zsng_store); both first with zram's non-sleeping gfp
 * flags, then with GFP_NOIO, as both drivers do.
 */
#ifndef ZSNG_AB_ALLOC_H
#define ZSNG_AB_ALLOC_H

#include <linux/err.h>
#include <linux/gfp.h>
#include <linux/string.h>
#include <linux/zsmalloc.h>
#include "zsmalloc_ng.h"
#include "ab.h"

#define AB_GFP_NOSLEEP (__GFP_KSWAPD_RECLAIM | __GFP_NOWARN | \
			__GFP_HIGHMEM | __GFP_MOVABLE)
#define AB_GFP_SLEEP (GFP_NOIO | __GFP_HIGHMEM | __GFP_MOVABLE)

struct ab_pool {
	enum ab_alloc kind;
	union {
		struct zs_pool *zs;
		struct zsng_pool *ng;
	};
};

static inline int ab_pool_create(struct ab_pool *p, enum ab_alloc kind,
				 int policy)
{
	p->kind = kind;
	if (kind == AB_ZSMALLOC) {
		p->zs = zs_create_pool("zsng_ab");
		return p->zs ? 0 : -ENOMEM;
	}
	p->ng = zsng_create_pool("zsng_ab", policy);
	return p->ng ? 0 : -ENOMEM;
}

static inline void ab_pool_destroy(struct ab_pool *p)
{
	if (p->kind == AB_ZSMALLOC)
		zs_destroy_pool(p->zs);
	else
		zsng_destroy_pool(p->ng);
}

static inline unsigned long ab_zs_store(struct zs_pool *pool, const void *src,
					size_t len, gfp_t gfp)
{
	unsigned long h = zs_malloc(pool, len, gfp);
	void *dst;

	if (IS_ERR_VALUE(h))
		return 0;
	dst = zs_map_object(pool, h, ZS_MM_WO);
	memcpy(dst, src, len);
	zs_unmap_object(pool, h);
	return h;
}

static inline unsigned long ab_ng_store(struct zsng_pool *pool,
					const void *src, size_t len, gfp_t gfp)
{
	unsigned long h = zsng_store(pool, src, len, gfp);

	return IS_ERR_VALUE(h) ? 0 : h;
}

/* A handle, or 0 when no memory could be had. */
static inline unsigned long ab_store(struct ab_pool *p, const void *src,
				     size_t len)
{
	unsigned long h;

	if (p->kind == AB_ZSMALLOC) {
		h = ab_zs_store(p->zs, src, len, AB_GFP_NOSLEEP);
		if (unlikely(!h))
			h = ab_zs_store(p->zs, src, len, AB_GFP_SLEEP);
	} else {
		h = ab_ng_store(p->ng, src, len, AB_GFP_NOSLEEP);
		if (unlikely(!h))
			h = ab_ng_store(p->ng, src, len, AB_GFP_SLEEP);
	}
	return h;
}

static inline void ab_read(struct ab_pool *p, unsigned long h, void *dst,
			   size_t len)
{
	const void *src;

	if (p->kind == AB_ZSMALLOC) {
		src = zs_map_object(p->zs, h, ZS_MM_RO);
		memcpy(dst, src, len);
		zs_unmap_object(p->zs, h);
	} else {
		src = zsng_map_object(p->ng, h, ZSNG_MM_RO);
		memcpy(dst, src, len);
		zsng_unmap_object(p->ng, h);
	}
}

static inline void ab_free(struct ab_pool *p, unsigned long h)
{
	if (p->kind == AB_ZSMALLOC)
		zs_free(p->zs, h);
	else
		zsng_free(p->ng, h);
}

static inline void ab_compact(struct ab_pool *p)
{
	if (p->kind == AB_ZSMALLOC)
		zs_compact(p->zs);
	else
		zsng_compact(p->ng);
}

static inline unsigned long ab_total_pages(struct ab_pool *p)
{
	return p->kind == AB_ZSMALLOC ? zs_get_total_pages(p->zs) :
		zsng_get_total_pages(p->ng);
}

static inline unsigned long ab_pages_compacted(struct ab_pool *p)
{
	struct zs_pool_stats zs = {};
	struct zsng_pool_stats ng = {};

	if (p->kind == AB_ZSMALLOC) {
		zs_pool_stats(p->zs, &zs);
		return atomic_long_read(&zs.pages_compacted);
	}
	zsng_pool_stats(p->ng, &ng);
	return ng.pages_compacted;
}

/*
 * Objects compaction moved, counted the same way on both sides: a handle
 * is the address of a word (the stock zsmalloc: the object's location,
 * record_obj() in mm/zsmalloc.c of 6.1 and 6.12) or of a slot (ours:
 * HandleSlot {zspage, idx} in core/pool.hpp) that compaction rewrites when
 * it moves the object, and the phases compare it before and after
 * (objs_displaced). That counts each object once, however many times it
 * was copied; zsmalloc_ng also counts every copy (objs_moved, its
 * statistic), the stock zsmalloc does not. Page migration rewrites the
 * same words, so a zspage the kernel migrated in that window would count
 * too; nothing else runs in the benchmark's VM. The location of a slot is
 * folded into one word: zspage addresses differ in their low 48 bits,
 * object indices fit in the top 16.
 */
static inline unsigned long ab_location(struct ab_pool *p, unsigned long h)
{
	const unsigned long *w = (const unsigned long *)h;

	if (p->kind == AB_ZSMALLOC)
		return READ_ONCE(w[0]);
	return READ_ONCE(w[0]) ^ (READ_ONCE(w[1]) << 48);
}

/* zsmalloc_ng's own count of object copies; the stock has none. */
static inline unsigned long ab_objs_copied(struct ab_pool *p)
{
	struct zsng_pool_stats ng = {};

	if (p->kind == AB_ZSMALLOC)
		return 0;
	zsng_pool_stats(p->ng, &ng);
	return ng.objs_moved;
}

#endif /* ZSNG_AB_ALLOC_H */

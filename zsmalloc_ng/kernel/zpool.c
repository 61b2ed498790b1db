// SPDX-License-Identifier: GPL-2.0
/*
 * zsmalloc_ng as a zpool type, for zswap:
 *
 *   echo zsmalloc_ng > /sys/module/zswap/parameters/zpool
 *
 * zswap loads the module by itself (the "zpool-zsmalloc_ng" alias).
 *
 * Each zpool is a zsmalloc_ng pool of the default policy, named as zswap
 * names it ("zswap1", ...: its debugfs directory beside zram_ng's), made
 *   ZSNG_POOL_AUTO_COMPACT: zswap never asks for compaction, so the pool
 *     compacts itself past a fragmentation threshold (core/compaction.cpp),
 *     besides its shrinker under memory pressure;
 *   ZSNG_POOL_MOVABLE when the movable parameter says so (zswap then adds
 *     __GFP_MOVABLE, as it does for zsmalloc);
 *   ZSNG_POOL_LRU where zswap writes back through zpool (6.1: shrink() ->
 *     zpool_ops.evict(), compat/zpool.h) and asked for it; since 6.5 zswap
 *     keeps its own LRU and the pool needs none.
 *
 * Ownership: zpool takes a reference on this module for each pool it
 * creates (driver->owner), so rmmod is refused while zswap has a pool
 * here, and works once zswap has switched away and freed the old pool.
 *
 * map() pins the CPU (core/pool.hpp), so sleep_mapped is false: zswap
 * copies an object out before it sleeps in decompression.
 */
#define pr_fmt(fmt) "zsmalloc_ng: " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/err.h>
#include "compat/zpool.h"
#include "zsmalloc_ng.h"
#include "zsng_internal.h"

struct zsng_zpool {
	struct zsng_pool *pool;
#if COMPAT_ZPOOL_EVICT
	const struct zpool_ops *ops;
	struct zpool *zpool;
#endif
};

static void *zsng_zpool_create_flags(const char *name, unsigned int flags)
{
	struct zsng_zpool *zp = kzalloc(sizeof(*zp), GFP_KERNEL);

	if (!zp)
		return NULL;
	zp->pool = zsng_pool_create_exact(name, ZSNG_POLICY_DEFAULT,
					  zsng_params_pool_flags() |
					  ZSNG_POOL_AUTO_COMPACT | flags);
	if (!zp->pool) {
		kfree(zp);
		return NULL;
	}
	return zp;
}

#if COMPAT_ZPOOL_EVICT
static void *zsng_zpool_create(const char *name, gfp_t gfp,
			       const struct zpool_ops *ops,
			       struct zpool *zpool)
{
	struct zsng_zpool *zp;

	/* zswap's gfp is for its stores; the pool's own metadata sleeps. */
	zp = zsng_zpool_create_flags(name, ops && ops->evict ?
					   ZSNG_POOL_LRU : 0);
	if (zp) {
		zp->ops = ops;
		zp->zpool = zpool;
	}
	return zp;
}

static int zsng_zpool_evict(void *ctx, unsigned long handle)
{
	struct zsng_zpool *zp = ctx;

	return zp->ops->evict(zp->zpool, handle);
}

/*
 * Writes back the objects of whole zspages, least recently stored first,
 * until @pages pages are free: 0 if any were, else the reclaim's error.
 */
static int zsng_zpool_shrink(void *pool, unsigned int pages,
			     unsigned int *reclaimed)
{
	struct zsng_zpool *zp = pool;
	unsigned int total = 0;
	long ret = -EINVAL;

	while (zp->ops && zp->ops->evict && total < pages) {
		ret = zsng_pool_reclaim(zp->pool, zsng_zpool_evict, zp);
		if (ret < 0)
			break;
		total += ret;
	}
	if (reclaimed)
		*reclaimed = total;
	return total ? 0 : ret;
}
#else
static void *zsng_zpool_create(const char *name, gfp_t gfp)
{
	return zsng_zpool_create_flags(name, 0);
}
#endif

static void zsng_zpool_destroy(void *pool)
{
	struct zsng_zpool *zp = pool;

	zsng_destroy_pool(zp->pool);
	kfree(zp);
}

static int zsng_zpool_malloc(void *pool, size_t size, gfp_t gfp,
			     unsigned long *handle)
{
	struct zsng_zpool *zp = pool;
	unsigned long h;

	if (!size)
		return -EINVAL;
	/* zswap counts -ENOSPC as a page that compressed too poorly. */
	if (size > PAGE_SIZE)
		return -ENOSPC;
	h = zsng_malloc(zp->pool, size, gfp);
	if (IS_ERR_VALUE(h))
		return (int)(long)h;
	*handle = h;
	return 0;
}

static void zsng_zpool_free(void *pool, unsigned long handle)
{
	struct zsng_zpool *zp = pool;

	zsng_free(zp->pool, handle);
}

static void *zsng_zpool_map(void *pool, unsigned long handle,
			    enum zpool_mapmode mm)
{
	struct zsng_zpool *zp = pool;
	enum zsng_mapmode mode;

	switch (mm) {
	case ZPOOL_MM_RO:
		mode = ZSNG_MM_RO;
		break;
	case ZPOOL_MM_WO:
		mode = ZSNG_MM_WO;
		break;
	default:
		mode = ZSNG_MM_RW;
		break;
	}
	return zsng_map_object(zp->pool, handle, mode);
}

static void zsng_zpool_unmap(void *pool, unsigned long handle)
{
	struct zsng_zpool *zp = pool;

	zsng_unmap_object(zp->pool, handle);
}

#if COMPAT_ZPOOL_TOTAL_PAGES
static u64 zsng_zpool_total_pages(void *pool)
{
	struct zsng_zpool *zp = pool;

	return zsng_get_total_pages(zp->pool);
}
#else
static u64 zsng_zpool_total_size(void *pool)
{
	struct zsng_zpool *zp = pool;

	return (u64)zsng_get_total_pages(zp->pool) << PAGE_SHIFT;
}
#endif

static struct zpool_driver zsng_zpool_driver = {
	.type = "zsmalloc_ng",
	.owner = THIS_MODULE,
	.create = zsng_zpool_create,
	.destroy = zsng_zpool_destroy,
	.malloc_support_movable = true,
	.malloc = zsng_zpool_malloc,
	.free = zsng_zpool_free,
#if COMPAT_ZPOOL_EVICT
	.shrink = zsng_zpool_shrink,
#endif
	.sleep_mapped = false,
	.map = zsng_zpool_map,
	.unmap = zsng_zpool_unmap,
#if COMPAT_ZPOOL_TOTAL_PAGES
	.total_pages = zsng_zpool_total_pages,
#else
	.total_size = zsng_zpool_total_size,
#endif
};

MODULE_ALIAS("zpool-zsmalloc_ng");

void zsng_zpool_register(void)
{
	zpool_register_driver(&zsng_zpool_driver);
}

void zsng_zpool_unregister(void)
{
	/* zpool holds a module reference per pool: none can be left. */
	WARN_ON(zpool_unregister_driver(&zsng_zpool_driver));
}

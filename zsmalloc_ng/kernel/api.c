// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel API of zsmalloc_ng.ko (include/zsmalloc_ng.h) over the C++
 * core: each export checks its arguments and calls one zsng_core_*
 * function. A pool is the core's pool with a name, its debugfs directory
 * and its shrinker. Below zpool.c, above debugfs.c, shrinker.c and
 * params.c (main.c has the layer order).
 */
#define pr_fmt(fmt) "zsmalloc_ng: " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/err.h>
#include <linux/string.h>
#include "zsmalloc_ng.h"
#include "svc.h"
#include "zsng_internal.h"

const char *zsng_policy_name(int policy)
{
	return zsng_core_policy_name(policy);
}
EXPORT_SYMBOL_GPL(zsng_policy_name);

int zsng_policy_from_name(const char *name)
{
	int policy = zsng_core_policy_from_name(name);

	return policy < 0 ? -EINVAL : policy;
}
EXPORT_SYMBOL_GPL(zsng_policy_from_name);

/*
 * A pool with exactly @flags (ZSNG_POOL_*): neither the parameters' flags
 * added nor @flags checked against what a user may ask for. For the two
 * exports below and for zpool.c, which adds ZSNG_POOL_LRU.
 */
struct zsng_pool *zsng_pool_create_exact(const char *name, int policy,
					 unsigned int flags)
{
	struct zsng_pool *pool;

	if (policy == ZSNG_POLICY_DEFAULT)
		policy = zsng_default_policy();
	/* The core checks the policy's range (zsng_core_create). */
	if (!name)
		return NULL;
	pool = kzalloc(sizeof(*pool), GFP_KERNEL);
	if (!pool)
		return NULL;
	pool->name = kstrdup(name, GFP_KERNEL);
	pool->core = zsng_core_create(policy, zsng_svc_max_pages_per_zspage(),
				      flags);
	if (!pool->name || !pool->core)
		goto fail;
	zsng_debugfs_pool_add(pool);
	if (zsng_shrinker_register(pool))
		pr_warn("%s: no shrinker: compaction only on request\n", name);
	return pool;
fail:
	zsng_core_destroy(pool->core);
	kfree(pool->name);
	kfree(pool);
	return NULL;
}

/* The flags the module parameters give (movable, growing_chains). */
struct zsng_pool *zsng_create_pool(const char *name, int policy)
{
	return zsng_pool_create_exact(name, policy, zsng_params_pool_flags());
}
EXPORT_SYMBOL_GPL(zsng_create_pool);

/* Those and @extra_flags, of which a user may ask for AUTO_COMPACT only. */
struct zsng_pool *zsng_create_pool_extra(const char *name, int policy,
					 unsigned int extra_flags)
{
	if (extra_flags & ~ZSNG_POOL_AUTO_COMPACT)
		return NULL;
	return zsng_pool_create_exact(name, policy,
				      zsng_params_pool_flags() | extra_flags);
}
EXPORT_SYMBOL_GPL(zsng_create_pool_extra);

void zsng_pool_settle(struct zsng_pool *pool)
{
	might_sleep();
	zsng_core_settle(pool->core);
}
EXPORT_SYMBOL_GPL(zsng_pool_settle);

void zsng_destroy_pool(struct zsng_pool *pool)
{
	if (!pool)
		return;
	zsng_shrinker_unregister(pool);
	zsng_debugfs_pool_remove(pool);
	zsng_core_destroy(pool->core);
	kfree(pool->name);
	kfree(pool);
}
EXPORT_SYMBOL_GPL(zsng_destroy_pool);

unsigned long zsng_malloc(struct zsng_pool *pool, size_t size, gfp_t gfp)
{
	return zsng_core_malloc(pool->core, size, (__force unsigned int)gfp);
}
EXPORT_SYMBOL_GPL(zsng_malloc);

void zsng_free(struct zsng_pool *pool, unsigned long handle)
{
	if (IS_ERR_OR_NULL((void *)handle))
		return;
	zsng_core_free(pool->core, handle);
}
EXPORT_SYMBOL_GPL(zsng_free);

void *zsng_map_object(struct zsng_pool *pool, unsigned long handle,
		      enum zsng_mapmode mm)
{
	return zsng_core_map(pool->core, handle, mm);
}
EXPORT_SYMBOL_GPL(zsng_map_object);

void zsng_unmap_object(struct zsng_pool *pool, unsigned long handle)
{
	zsng_core_unmap(pool->core, handle);
}
EXPORT_SYMBOL_GPL(zsng_unmap_object);

void zsng_write_object(struct zsng_pool *pool, unsigned long handle,
		       const void *src, size_t len)
{
	zsng_core_write(pool->core, handle, src, len);
}
EXPORT_SYMBOL_GPL(zsng_write_object);

unsigned long zsng_store(struct zsng_pool *pool, const void *src, size_t len,
			 gfp_t gfp)
{
	return zsng_core_store(pool->core, src, len, (__force unsigned int)gfp);
}
EXPORT_SYMBOL_GPL(zsng_store);

unsigned long zsng_compact(struct zsng_pool *pool)
{
	return zsng_core_compact(pool->core);
}
EXPORT_SYMBOL_GPL(zsng_compact);

/* For zpool.c: not exported, zsng_create_pool*() make no LRU pool. */
long zsng_pool_reclaim(struct zsng_pool *pool, zsng_evict_fn evict, void *ctx)
{
	return zsng_core_reclaim(pool->core, evict, ctx);
}

unsigned long zsng_get_total_pages(struct zsng_pool *pool)
{
	return zsng_core_total_pages(pool->core);
}
EXPORT_SYMBOL_GPL(zsng_get_total_pages);

void zsng_pool_stats(struct zsng_pool *pool, struct zsng_pool_stats *stats)
{
	zsng_core_pool_stats(pool->core, stats);
}
EXPORT_SYMBOL_GPL(zsng_pool_stats);

int zsng_pool_policy(struct zsng_pool *pool)
{
	return zsng_core_policy(pool->core);
}
EXPORT_SYMBOL_GPL(zsng_pool_policy);

size_t zsng_huge_class_size(struct zsng_pool *pool)
{
	return zsng_core_huge_class_size(pool->core);
}
EXPORT_SYMBOL_GPL(zsng_huge_class_size);

unsigned int zsng_class_index(struct zsng_pool *pool, size_t size)
{
	return zsng_core_class_index(pool->core, size);
}
EXPORT_SYMBOL_GPL(zsng_class_index);

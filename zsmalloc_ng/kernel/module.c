// SPDX-License-Identifier: GPL-2.0
/*
 * zsmalloc_ng.ko: the kernel API (include/zsmalloc_ng.h) over the C++ core.
 * Each export checks its arguments and calls one zsng_core_* function.
 */
#define pr_fmt(fmt) "zsmalloc_ng: " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/err.h>
#include <linux/string.h>
#include "zsmalloc_ng.h"
#include "svc.h"
#include "zsng_internal.h"
#include "compat/zsmalloc_chain.h"

static int default_policy = ZSNG_POLICY_RATIO;

static int default_policy_set(const char *val, const struct kernel_param *kp)
{
	char name[32];
	int policy;

	if (strscpy(name, val, sizeof(name)) < 0)
		return -EINVAL;
	policy = zsng_policy_from_name(strim(name));
	if (policy < 0)
		return -EINVAL;
	WRITE_ONCE(default_policy, policy);
	return 0;
}

static int default_policy_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", zsng_policy_name(default_policy));
}

static const struct kernel_param_ops default_policy_ops = {
	.set = default_policy_set,
	.get = default_policy_get,
};
module_param_cb(default_policy, &default_policy_ops, NULL, 0644);
MODULE_PARM_DESC(default_policy,
		 "Policy of pools created with ZSNG_POLICY_DEFAULT: legacy, legacy-groups, ratio or exact (default: ratio)");

static unsigned int max_pages_per_zspage = ZSNG_DEFAULT_CHAIN_PAGES;
module_param(max_pages_per_zspage, uint, 0444);
MODULE_PARM_DESC(max_pages_per_zspage,
		 "Longest zspage chain in pages, "
		 __stringify(ZSNG_MIN_CHAIN_PAGES) ".."
		 __stringify(ZSNG_MAX_CHAIN_PAGES)
		 ", for pools created from now on (default: "
		 __stringify(ZSNG_DEFAULT_CHAIN_PAGES) ")");

static bool movable = true;
module_param(movable, bool, 0644);
MODULE_PARM_DESC(movable,
		 "Pools created from now on let the kernel migrate their pages (default: Y)");

/* On where the kernel's zsmalloc has 4-page chains (compat/). */
static bool growing_chains = COMPAT_GROWING_CHAINS_DEFAULT;
module_param(growing_chains, bool, 0644);
MODULE_PARM_DESC(growing_chains,
		 "Size classes of pools created from now on take zspages of at most "
		 __stringify(ZSNG_MIN_CHAIN_PAGES)
		 " pages until they hold enough objects for longer ones to pay (default: Y before Linux 6.3, whose zsmalloc has 4-page chains; N since)");

/* The service the core reads when it creates a pool (core/svc.h). */
unsigned int zsng_svc_max_pages_per_zspage(void)
{
	return max_pages_per_zspage;
}

int zsng_default_policy(void)
{
	return READ_ONCE(default_policy);
}
EXPORT_SYMBOL_GPL(zsng_default_policy);

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

unsigned int zsng_default_pool_flags(void)
{
	return (READ_ONCE(movable) ? ZSNG_POOL_MOVABLE : 0) |
	       (READ_ONCE(growing_chains) ? ZSNG_POOL_GROWING_CHAINS : 0);
}

struct zsng_pool *zsng_pool_create(const char *name, int policy,
				   unsigned int flags)
{
	struct zsng_pool *pool;

	if (policy == ZSNG_POLICY_DEFAULT)
		policy = READ_ONCE(default_policy);
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

struct zsng_pool *zsng_create_pool(const char *name, int policy)
{
	return zsng_pool_create(name, policy, zsng_default_pool_flags());
}
EXPORT_SYMBOL_GPL(zsng_create_pool);

struct zsng_pool *zsng_create_pool_flags(const char *name, int policy,
					 unsigned int flags)
{
	if (flags & ~ZSNG_POOL_AUTO_COMPACT)
		return NULL;
	return zsng_pool_create(name, policy,
				zsng_default_pool_flags() | flags);
}
EXPORT_SYMBOL_GPL(zsng_create_pool_flags);

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

static int __init zsng_init(void)
{
	int ret;

	/* What the core returns must mean what the kernel's errno means. */
	BUILD_BUG_ON(ZSNG_ENOMEM != ENOMEM);
	BUILD_BUG_ON(ZSNG_EINVAL != EINVAL);
	BUILD_BUG_ON(ZSNG_EAGAIN != EAGAIN);
	BUILD_BUG_ON(ZSNG_EBUSY != EBUSY);
	if (max_pages_per_zspage < ZSNG_MIN_CHAIN_PAGES ||
	    max_pages_per_zspage > ZSNG_MAX_CHAIN_PAGES) {
		pr_err("max_pages_per_zspage=%u is outside %u..%u\n",
		       max_pages_per_zspage, ZSNG_MIN_CHAIN_PAGES,
		       ZSNG_MAX_CHAIN_PAGES);
		return -EINVAL;
	}
	ret = zsng_svc_init();
	if (ret)
		return ret;
	ret = zsng_map_area_init();
	if (ret)
		goto err_svc;
	ret = zsng_testing_init(zsng_debugfs_init());
	if (ret)
		goto err_debugfs;
	zsng_zpool_register();
	return 0;
err_debugfs:
	zsng_debugfs_exit();
	zsng_map_area_exit();
err_svc:
	zsng_svc_exit();
	return ret;
}

static void __exit zsng_exit(void)
{
	zsng_zpool_unregister();
	zsng_debugfs_exit();
	zsng_map_area_exit();
	zsng_svc_exit();
}

module_init(zsng_init);
module_exit(zsng_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("zsmalloc_ng: compressed object allocator with fine-grained fullness groups");
MODULE_VERSION(ZSNG_VERSION);

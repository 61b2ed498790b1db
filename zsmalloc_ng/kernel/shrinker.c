// SPDX-License-Identifier: GPL-2.0
/*
 * Compaction under memory pressure. count and scan share the core's one
 * definition of "what compaction could free" (zsng_core_compactable_pages).
 * The shrinker is made through compat/shrinker.h, which hides how each
 * kernel allocates and registers one.
 */
#include <linux/kernel.h>
#include <linux/mm.h>
#include "compat/shrinker.h"
#include "zsng_internal.h"

static unsigned long zsng_shrinker_count(struct shrinker *s,
					 struct shrink_control *sc)
{
	struct zsng_pool *pool = compat_shrinker_private(s);
	unsigned long pages = zsng_core_compactable_pages(pool->core);

	return pages ? pages : SHRINK_EMPTY;
}

static unsigned long zsng_shrinker_scan(struct shrinker *s,
					struct shrink_control *sc)
{
	struct zsng_pool *pool = compat_shrinker_private(s);
	unsigned long freed = zsng_core_compact(pool->core);

	return freed ? freed : SHRINK_STOP;
}

int zsng_shrinker_register(struct zsng_pool *pool)
{
	char name[64];

	/* the name is only for /sys/kernel/debug/shrinker: cut, not failed */
	snprintf(name, sizeof(name), "zsng-%s", pool->name);
	pool->shrinker = compat_shrinker_create(name, zsng_shrinker_count,
						zsng_shrinker_scan, pool);
	return pool->shrinker ? 0 : -ENOMEM;
}

void zsng_shrinker_unregister(struct zsng_pool *pool)
{
	if (pool->shrinker)
		compat_shrinker_destroy(pool->shrinker);
	pool->shrinker = NULL;
}

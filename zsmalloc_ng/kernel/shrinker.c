// SPDX-License-Identifier: GPL-2.0
/*
 * Compaction under memory pressure. count and scan share the core's one
 * definition of "what compaction could free" (zsng_core_compactable_pages).
 */
#include <linux/mm.h>
#include <linux/shrinker.h>
#include "zsng_internal.h"

static unsigned long zsng_shrinker_count(struct shrinker *s,
					 struct shrink_control *sc)
{
	struct zsng_pool *pool = container_of(s, struct zsng_pool, shrinker);
	unsigned long pages = zsng_core_compactable_pages(pool->core);

	return pages ? pages : SHRINK_EMPTY;
}

static unsigned long zsng_shrinker_scan(struct shrinker *s,
					struct shrink_control *sc)
{
	struct zsng_pool *pool = container_of(s, struct zsng_pool, shrinker);
	unsigned long freed = zsng_core_compact(pool->core);

	return freed ? freed : SHRINK_STOP;
}

int zsng_shrinker_register(struct zsng_pool *pool)
{
	int ret;

	pool->shrinker.count_objects = zsng_shrinker_count;
	pool->shrinker.scan_objects = zsng_shrinker_scan;
	pool->shrinker.seeks = DEFAULT_SEEKS;
	pool->shrinker.batch = 0;
	ret = register_shrinker(&pool->shrinker, "zsng-%s", pool->name);
	pool->shrinker_registered = !ret;
	return ret;
}

void zsng_shrinker_unregister(struct zsng_pool *pool)
{
	if (pool->shrinker_registered)
		unregister_shrinker(&pool->shrinker);
	pool->shrinker_registered = false;
}

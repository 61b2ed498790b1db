// SPDX-License-Identifier: GPL-2.0
/* extern "C" shims over zsng::Pool: the only symbols the glue links to. */
#include "zsng_core.h"
#include "pool.hpp"

using namespace zsng;

static Pool *P(struct zsng_core_pool *pool)
{
	return reinterpret_cast<Pool *>(pool);
}

extern "C" {

struct zsng_core_pool *zsng_core_create(int policy,
					unsigned int max_pages_per_zspage,
					unsigned int flags)
{
	return reinterpret_cast<struct zsng_core_pool *>(
		Pool::create((Policy)policy, max_pages_per_zspage, flags));
}

void zsng_core_destroy(struct zsng_core_pool *pool)
{
	if (pool)
		P(pool)->destroy();
}

unsigned long zsng_core_malloc(struct zsng_core_pool *pool, unsigned long size,
			       unsigned int gfp)
{
	return P(pool)->malloc(size, gfp);
}

void zsng_core_free(struct zsng_core_pool *pool, unsigned long handle)
{
	P(pool)->free(handle);
}

void *zsng_core_map(struct zsng_core_pool *pool, unsigned long handle,
		    enum zsng_mapmode mode)
{
	return P(pool)->map(handle, (MapMode)mode);
}

void zsng_core_unmap(struct zsng_core_pool *pool, unsigned long handle)
{
	P(pool)->unmap(handle);
}

void zsng_core_write(struct zsng_core_pool *pool, unsigned long handle,
		     const void *src, unsigned long len)
{
	P(pool)->write(handle, src, len);
}

unsigned long zsng_core_store(struct zsng_core_pool *pool, const void *src,
			      unsigned long len, unsigned int gfp)
{
	return P(pool)->store(src, len, gfp);
}

unsigned long zsng_core_compact(struct zsng_core_pool *pool)
{
	return P(pool)->compact();
}

void zsng_core_settle(struct zsng_core_pool *pool)
{
	P(pool)->settle();
}

unsigned long zsng_core_compact_class(struct zsng_core_pool *pool,
				      unsigned int class_idx)
{
	return P(pool)->compact_class(class_idx);
}

unsigned long zsng_core_compactable_pages(struct zsng_core_pool *pool)
{
	return P(pool)->compactable_pages();
}

unsigned long zsng_core_total_pages(struct zsng_core_pool *pool)
{
	return P(pool)->total_pages();
}

unsigned long zsng_core_huge_class_size(struct zsng_core_pool *pool)
{
	return P(pool)->huge_class_size();
}

int zsng_core_policy(struct zsng_core_pool *pool)
{
	return (int)P(pool)->policy();
}

unsigned int zsng_core_nr_classes(struct zsng_core_pool *pool)
{
	return P(pool)->nr_classes();
}

unsigned int zsng_core_class_index(struct zsng_core_pool *pool,
				   unsigned long size)
{
	return P(pool)->class_index(size);
}

void zsng_core_class_stats(struct zsng_core_pool *pool, unsigned int idx,
			   struct zsng_class_stats *out)
{
	P(pool)->class_stats(idx, out);
}

void zsng_core_pool_stats(struct zsng_core_pool *pool,
			  struct zsng_pool_stats *out)
{
	P(pool)->stats(out);
}

const char *zsng_core_group_name(struct zsng_core_pool *pool,
				 unsigned int group)
{
	return shown_group_name(P(pool)->policy(), group);
}

int zsng_core_page_isolate(void *owner)
{
	return Pool::page_isolate(static_cast<Zspage *>(owner));
}

int zsng_core_page_migrate(void *owner, void *src, void *dst, int may_wait)
{
	return Pool::page_migrate(static_cast<Zspage *>(owner), src, dst,
				  may_wait);
}

long zsng_core_reclaim(struct zsng_core_pool *pool, zsng_evict_fn evict,
		       void *ctx)
{
	return P(pool)->reclaim(evict, ctx);
}

const char *zsng_core_policy_name(int policy)
{
	return policy_name(policy);
}

int zsng_core_policy_from_name(const char *name)
{
	Policy p;

	return policy_from_name(name, &p) ? (int)p : -1;
}

} // extern "C"

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The C face of the C++ allocator core (core/capi.cpp, and migrate.cpp's
 * two callbacks): what the kernel glue (zsmalloc_ng/kernel/), the
 * experiment (zsmalloc_ng/experiment/, which has its own header), the
 * userspace tests and the fuzzer call. Plain C types only; the enums,
 * statistics and limits are zsmalloc_ng_abi.h's.
 */
#ifndef ZSNG_CORE_H
#define ZSNG_CORE_H

#include "zsmalloc_ng_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

struct zsng_core_pool;

/*
 * NULL for a policy, chain length or flag (ZSNG_POOL_*) out of range, or
 * without memory.
 */
struct zsng_core_pool *zsng_core_create(int policy,
					unsigned int max_pages_per_zspage,
					unsigned int flags);
void zsng_core_destroy(struct zsng_core_pool *pool);
unsigned long zsng_core_malloc(struct zsng_core_pool *pool,
			       unsigned long size, unsigned int gfp);
void zsng_core_free(struct zsng_core_pool *pool, unsigned long handle);
void *zsng_core_map(struct zsng_core_pool *pool, unsigned long handle,
		    enum zsng_mapmode mode);
void zsng_core_unmap(struct zsng_core_pool *pool, unsigned long handle);
void zsng_core_write(struct zsng_core_pool *pool, unsigned long handle,
		     const void *src, unsigned long len);
unsigned long zsng_core_store(struct zsng_core_pool *pool, const void *src,
			      unsigned long len, unsigned int gfp);
unsigned long zsng_core_compact(struct zsng_core_pool *pool);
void zsng_core_settle(struct zsng_core_pool *pool);
unsigned long zsng_core_compact_class(struct zsng_core_pool *pool,
				      unsigned int class_idx);
unsigned long zsng_core_compactable_pages(struct zsng_core_pool *pool);
unsigned long zsng_core_total_pages(struct zsng_core_pool *pool);
unsigned long zsng_core_huge_class_size(struct zsng_core_pool *pool);
int zsng_core_policy(struct zsng_core_pool *pool);
unsigned int zsng_core_nr_classes(struct zsng_core_pool *pool);
unsigned int zsng_core_class_index(struct zsng_core_pool *pool,
				   unsigned long size);
void zsng_core_class_stats(struct zsng_core_pool *pool, unsigned int idx,
			   struct zsng_class_stats *out);
void zsng_core_pool_stats(struct zsng_core_pool *pool,
			  struct zsng_pool_stats *out);
/* The label of column @group of the pool's stats (NULL past the last). */
const char *zsng_core_group_name(struct zsng_core_pool *pool,
				 unsigned int group);
/*
 * The consistency checker (core/check.cpp): 0 or -1. Tests only: in the
 * kernel, the testing build's (make ZSNG_TESTING=1), not the product's.
 */
int zsng_core_check(struct zsng_core_pool *pool);

/*
 * Page migration of movable pools (core/migrate.cpp), called by the service
 * layer with the page locked; @owner is what zsng_svc_page_set_movable()
 * recorded. isolate: 1 if the page may be migrated. migrate: copies @src to
 * @dst and puts @dst in its place; 0, -ZSNG_EAGAIN (mapped and !@may_wait)
 * or -ZSNG_EBUSY (the zspage is being freed). On 0 the caller hands @dst
 * to migration with the same owner and takes @src back.
 */
int zsng_core_page_isolate(void *owner);
int zsng_core_page_migrate(void *owner, void *src, void *dst, int may_wait);

/*
 * Reclaim of an ZSNG_POOL_LRU pool (core/lru.cpp): the objects of the
 * least recently allocated zspage go to @evict, which writes one back and
 * frees its handle, returning 0, or fails with a negative errno. Called
 * with no lock of the pool held, so it may sleep and free handles. Returns
 * the pages freed, -ZSNG_EAGAIN if kReclaimTries (8) zspages kept objects,
 * -ZSNG_EINVAL with nothing to reclaim or no LRU.
 */
typedef int (*zsng_evict_fn)(void *ctx, unsigned long handle);
long zsng_core_reclaim(struct zsng_core_pool *pool, zsng_evict_fn evict,
		       void *ctx);

const char *zsng_core_policy_name(int policy);	/* NULL if unknown */
int zsng_core_policy_from_name(const char *name);	/* -1 if unknown */

#ifdef __cplusplus
}
#endif

#endif /* ZSNG_CORE_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zsmalloc_ng: the kernel API of the compressed-object allocator.
 *
 * Every exported symbol is prefixed zsng_ (not zs_) so that zsmalloc_ng.ko
 * loads beside the in-kernel zsmalloc.ko without a symbol clash.
 *
 * Semantics follow mm/zsmalloc.c of Linux 6.1:
 *  - zsng_malloc() returns an opaque handle, or an error value that
 *    IS_ERR_VALUE() recognises (-EINVAL for a size of 0 or above PAGE_SIZE,
 *    -ENOMEM when no memory could be had with the caller's gfp flags).
 *  - A handle stays valid while compaction moves the object.
 *  - zsng_map_object() gives access to the object's bytes until
 *    zsng_unmap_object(). In between the caller must not sleep and must not
 *    map another object on the same CPU. An object that lies in one page is
 *    mapped in place; one that spans two pages is copied into a per-CPU
 *    buffer (for ZSNG_MM_RO/RW) and written back on unmap (ZSNG_MM_WO/RW).
 */
#ifndef _ZSMALLOC_NG_H
#define _ZSMALLOC_NG_H

#include <linux/types.h>
#include "zsmalloc_ng_abi.h"	/* policies, map modes, stats, limits */

struct zsng_pool;

/* A pool with the flags the module parameters give (movable, growing_chains). */
struct zsng_pool *zsng_create_pool(const char *name, int policy);
/*
 * zsng_create_pool() with @extra_flags beside the parameters' flags:
 * ZSNG_POOL_AUTO_COMPACT is the only flag a user may add (NULL for any
 * other): the pool compacts itself in a work item as frees fragment it
 * (zsmalloc_ng_abi.h).
 * zsng_pool_settle() waits until such a compaction is no longer pending
 * or running, so that counters read next show its result.
 */
struct zsng_pool *zsng_create_pool_extra(const char *name, int policy,
					 unsigned int extra_flags);
void zsng_pool_settle(struct zsng_pool *pool);
void zsng_destroy_pool(struct zsng_pool *pool);

unsigned long zsng_malloc(struct zsng_pool *pool, size_t size, gfp_t gfp);
void zsng_free(struct zsng_pool *pool, unsigned long handle);

void *zsng_map_object(struct zsng_pool *pool, unsigned long handle,
		      enum zsng_mapmode mm);
void zsng_unmap_object(struct zsng_pool *pool, unsigned long handle);
/*
 * Stores @len bytes (at most what the handle was allocated with) into the
 * object. Unlike map(WO) + memcpy + unmap, an object that spans two pages is
 * written in place, without the per-CPU bounce copy. Must not be called with
 * an object of the same CPU mapped.
 */
void zsng_write_object(struct zsng_pool *pool, unsigned long handle,
		       const void *src, size_t len);
/*
 * zsng_malloc(@len) and zsng_write_object() of @src in one call, with one
 * trip through the pool lock. Returns the handle or an error value, as
 * zsng_malloc() does; sleeps only if @gfp allows and never while copying.
 */
unsigned long zsng_store(struct zsng_pool *pool, const void *src, size_t len,
			 gfp_t gfp);

/* Returns the number of pages compaction freed. */
unsigned long zsng_compact(struct zsng_pool *pool);
unsigned long zsng_get_total_pages(struct zsng_pool *pool);
void zsng_pool_stats(struct zsng_pool *pool, struct zsng_pool_stats *stats);
int zsng_pool_policy(struct zsng_pool *pool);

/*
 * Objects of at least this size are stored one per page: a user should
 * store such data uncompressed (zram_ng counts them as huge pages).
 */
size_t zsng_huge_class_size(struct zsng_pool *pool);

/*
 * The size class an object of @size bytes would be stored in (classes
 * with the same geometry are one): a smaller index, less memory. For
 * recompression, which keeps a new object only if it saves a class, as
 * upstream's zs_lookup_class_index() lets zram do. A size of 0 or above
 * a page gives the number of classes.
 */
unsigned int zsng_class_index(struct zsng_pool *pool, size_t size);

/* What ZSNG_POLICY_DEFAULT resolves to now (the default_policy parameter). */
int zsng_default_policy(void);

/* "legacy", "legacy-groups", "ratio", "exact"; NULL / -EINVAL otherwise. */
const char *zsng_policy_name(int policy);
int zsng_policy_from_name(const char *name);

#endif /* _ZSMALLOC_NG_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared between the C files of zsmalloc_ng.ko; not a public header. One
 * section per file, in main.c's layer order, top to bottom: a file may
 * call the sections below its own.
 */
#ifndef _ZSNG_INTERNAL_H
#define _ZSNG_INTERNAL_H

#include <linux/types.h>
#include <linux/mm.h>
#include "zsng_core.h"

struct dentry;
struct shrinker;

struct zsng_pool {
	struct zsng_core_pool *core;
	const char *name;
	struct dentry *debugfs_dir;
	struct shrinker *shrinker;	/* NULL: compaction only on request */
};

/* zpool.c: the "zsmalloc_ng" zpool type, where the kernel has zpool */
#if IS_ENABLED(CONFIG_ZPOOL)
void zsng_zpool_register(void);
void zsng_zpool_unregister(void);
#else
static inline void zsng_zpool_register(void) { }
static inline void zsng_zpool_unregister(void) { }
#endif

/*
 * testing.c, only in the testing build (make ZSNG_TESTING=1): the
 * self-check at load (an error refuses the load) and the experiment's
 * debugfs files under @debugfs_root.
 */
#ifdef ZSNG_TESTING
int zsng_testing_init(struct dentry *debugfs_root);
#else
static inline int zsng_testing_init(struct dentry *debugfs_root)
{
	return 0;
}
#endif

/* api.c, besides the exports of zsmalloc_ng.h */
struct zsng_pool *zsng_pool_create_exact(const char *name, int policy,
					 unsigned int flags);
long zsng_pool_reclaim(struct zsng_pool *pool, zsng_evict_fn evict, void *ctx);

/* debugfs.c: init returns the root directory, for testing.c's files */
struct dentry *zsng_debugfs_init(void);
void zsng_debugfs_exit(void);
void zsng_debugfs_pool_add(struct zsng_pool *pool);
void zsng_debugfs_pool_remove(struct zsng_pool *pool);

/* shrinker.c */
int zsng_shrinker_register(struct zsng_pool *pool);
void zsng_shrinker_unregister(struct zsng_pool *pool);

/*
 * svc.c: the handle and descriptor slabs all pools share. movable.c and
 * work.c have only core/svc.h's functions.
 */
int zsng_svc_init(void);
void zsng_svc_exit(void);

/* map_area.c: the per-CPU map areas */
int zsng_map_area_init(void);
void zsng_map_area_exit(void);

/*
 * params.c: the parameters' values (zsng_default_policy() is exported,
 * zsng_svc_max_pages_per_zspage() a service of core/svc.h)
 */
int zsng_params_check(void);
unsigned int zsng_params_pool_flags(void);

/*
 * fault_inject.c, only in the testing build (make ZSNG_TESTING=1):
 * allocation fault injection, the fail_* debugfs files under @dir. Without
 * it no allocation fails on purpose and there are no such files.
 */
#ifdef ZSNG_TESTING
bool zsng_should_fail(gfp_t gfp);
void zsng_fault_inject_debugfs_init(struct dentry *dir);
#else
static inline bool zsng_should_fail(gfp_t gfp)
{
	return false;
}

static inline void zsng_fault_inject_debugfs_init(struct dentry *dir)
{
}
#endif

#endif

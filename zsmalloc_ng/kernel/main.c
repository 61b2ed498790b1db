// SPDX-License-Identifier: GPL-2.0
/*
 * zsmalloc_ng.ko: loading and unloading. The kernel glue of the C++ core
 * (zsmalloc_ng/core/) is in layers; a file calls only the files below it
 * (and the core), never one above, so each can be read, and tested with
 * nm, from the bottom up:
 *
 *   main.c          module init and exit: everything below, in order
 *   zpool.c         the "zsmalloc_ng" zpool type for zswap, on api.c
 *   testing.c       testing build only (make ZSNG_TESTING=1): self-check,
 *                   experiment debugfs files; on params.c and the core
 *   api.c           the exported kernel API (zsmalloc_ng.h): named pools
 *                   with debugfs and shrinker, on the three below
 *   debugfs.c       /sys/kernel/debug/zsmalloc_ng/<pool>/, fault files
 *                   (testing build)
 *   shrinker.c      compaction under memory pressure
 *   svc.c           the service layer (core/svc.h): pages, slabs, locks
 *   movable.c       ... movable pages for the kernel's page migration
 *   work.c          ... deferred work (workqueue items)
 *   map_area.c      ... the per-CPU map areas
 *   params.c        module parameters and the values read from them
 *   fault_inject.c  testing build only: allocation fault injection, asked
 *                   by every allocator (a stub returning false without it)
 *
 * The core calls up into the service layer (svc.c, movable.c, work.c,
 * map_area.c, params.c's zsng_svc_max_pages_per_zspage) through core/svc.h
 * only, and the service layer calls the core back only where the kernel
 * calls it (movable.c's migration callbacks).
 */
#define pr_fmt(fmt) "zsmalloc_ng: " fmt

#include <linux/module.h>
#include "zsmalloc_ng.h"
#include "zsng_internal.h"

static int __init zsng_init(void)
{
	int ret;

	/* What the core returns must mean what the kernel's errno means. */
	BUILD_BUG_ON(ZSNG_ENOMEM != ENOMEM);
	BUILD_BUG_ON(ZSNG_EINVAL != EINVAL);
	BUILD_BUG_ON(ZSNG_EAGAIN != EAGAIN);
	BUILD_BUG_ON(ZSNG_EBUSY != EBUSY);
	ret = zsng_params_check();
	if (ret)
		return ret;
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

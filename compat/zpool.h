/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The zpool driver interface (zsmalloc_ng/kernel/zpool.c).
 *
 * Linux 6.5 took writeback out of zpool: zswap keeps its own LRU of
 * entries and writes them back itself, so zpool_ops (evict), the driver's
 * shrink() and the ops/zpool arguments of create() are gone. On 6.1
 * zswap's writeback goes through shrink() -> evict(): a driver without
 * shrink() leaves zswap to reject stores once the pool is full.
 *
 * Linux 6.10 made the pool size a page count: total_size() (bytes) became
 * total_pages().
 */
#ifndef ZSNG_COMPAT_ZPOOL_H
#define ZSNG_COMPAT_ZPOOL_H

#include <linux/zpool.h>
#include "kernel_version.h"

#define COMPAT_ZPOOL_EVICT (!ZSNG_KERNEL_SINCE(6, 5))
#define COMPAT_ZPOOL_TOTAL_PAGES ZSNG_KERNEL_SINCE(6, 10)

#endif /* ZSNG_COMPAT_ZPOOL_H */

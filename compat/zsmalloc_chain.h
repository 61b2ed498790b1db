/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The chain length of the kernel's own zsmalloc, which zram_ng is
 * measured against.
 *
 * Linux 6.3 made zsmalloc's zspages up to CONFIG_ZSMALLOC_CHAIN_SIZE
 * pages (default 8; Debian's 6.12: 8); until then they were at most 4.
 * zsmalloc_ng's growing chains (short zspages of at most 4 pages until a
 * class is large) make a small pool hold what 6.1's zsmalloc holds, where
 * its fixed 8-page chains held up to 1.8x; against 6.3's and later's own
 * 8-page chains the fixed ones are the same geometry, and the short ones
 * would hold more in a mid-sized pool. So the parameter's default follows
 * the kernel: on before 6.3, off since.
 */
#ifndef ZSNG_COMPAT_ZSMALLOC_CHAIN_H
#define ZSNG_COMPAT_ZSMALLOC_CHAIN_H

#include "kernel_version.h"

#define COMPAT_GROWING_CHAINS_DEFAULT (!ZSNG_KERNEL_SINCE(6, 3))

#endif /* ZSNG_COMPAT_ZSMALLOC_CHAIN_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The chain length of the kernel's own zsmalloc, which zram_ng is
 * measured against.
 *
 * Linux 6.3 made zsmalloc's zspages up to CONFIG_ZSMALLOC_CHAIN_SIZE
 * pages (default 8; Debian's 6.12: 8); until then they were at most 4.
 * zsmalloc_ng's growing chains (short zspages of at most 4 pages until a
 * class is large) make a small pool hold what 6.1's zsmalloc holds, where
 * its fixed 8-page chains hold more; against 6.3's and later's own
 * 8-page chains the fixed ones are the same geometry, and the short ones
 * would hold more in a mid-sized pool. So the parameter's default follows
 * the kernel: on before 6.3, off since.
 */
#ifndef ZSNG_COMPAT_ZSMALLOC_CHAIN_H
#define ZSNG_COMPAT_ZSMALLOC_CHAIN_H

#include "kernel_version.h"

#define COMPAT_GROWING_CHAINS_DEFAULT (!ZSNG_KERNEL_SINCE(6, 3))

/*
 * 6.3 also changed how zsmalloc picks a class's chain: the fewest bytes
 * unused (calculate_zspage_chain_size()), where 6.1 took the largest used
 * percentage, whose rounding picks another length for 16 of the 255
 * sizes at 8 pages. With the kernel's own rule zsmalloc_ng's classes are
 * the stock's on 6.3+.
 */
#define COMPAT_LEAST_WASTE_DEFAULT ZSNG_KERNEL_SINCE(6, 3)

#endif /* ZSNG_COMPAT_ZSMALLOC_CHAIN_H */

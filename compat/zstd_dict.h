/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zstd dictionaries (6.12). The kernel's zstd library exports
 * zstd_create_cdict_byreference(), zstd_compress_using_cdict(),
 * zstd_create_ddict_byreference() and zstd_decompress_using_ddict() since
 * 6.12 (added for zram's dict= parameter); 6.1 exports only the
 * dictionary-less calls, and the crypto API takes no dictionary at all.
 * COMPAT_HAVE_ZSTD_DICT is defined where the calls exist; elsewhere a
 * dictionary is refused (-EOPNOTSUPP, zram_ng/zcomp_zstd.c).
 */
#ifndef ZSNG_COMPAT_ZSTD_DICT_H
#define ZSNG_COMPAT_ZSTD_DICT_H

#include "kernel_version.h"

#if ZSNG_KERNEL_SINCE(6, 12)
#define COMPAT_HAVE_ZSTD_DICT 1
#endif

#endif /* ZSNG_COMPAT_ZSTD_DICT_H */

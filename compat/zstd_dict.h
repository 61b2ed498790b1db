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

#include <linux/mm.h>
#include <linux/zstd.h>

#if ZSNG_KERNEL_SINCE(6, 12)
#define COMPAT_HAVE_ZSTD_DICT 1

/* zstd's own CamelCase names are spelt here only, as compat/'s others. */
static inline zstd_custom_mem
compat_zstd_custom_mem(void *(*alloc)(void *opaque, size_t size),
		       void (*free)(void *opaque, void *address))
{
	zstd_custom_mem mem = { .customAlloc = alloc, .customFree = free };

	return mem;
}

/*
 * zstd's parameters for @src_size bytes (a page, or a group of pages) at
 * @level with a @dict_size dictionary (zstd_get_params() sizes the tables
 * for the input alone).
 */
static inline void compat_zstd_dict_cparams(zstd_parameters *prm, int level,
					    size_t src_size, size_t dict_size)
{
	prm->cParams = zstd_get_cparams(level, src_size, dict_size);
}
#endif

/* The compression parameters of zstd_get_params()' result. */
static inline zstd_compression_parameters
compat_zstd_cparams(const zstd_parameters *prm)
{
	return prm->cParams;
}

#endif /* ZSNG_COMPAT_ZSTD_DICT_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * zram_ng's lz4 and lz4hc backends (zcomp.h), the module zram_ng_lz4:
 * the kernel's lz4 library, called directly. zram_ng finds the module by
 * the list it exports (zcomp.c). A stream's state is the compressor's work memory
 * (16 KiB for lz4, 256 KiB for lz4hc); decompression needs none.
 *
 * Levels, as upstream zram's algorithm_params takes them: lz4's is its
 * acceleration (1, the default, compresses best; each step up trades
 * ratio for speed; 1 to ZCOMP_NG_LZ4_MAX_ACCEL), lz4hc's its compression
 * level (LZ4HC_MIN_CLEVEL to LZ4HC_MAX_CLEVEL, LZ4HC_DEFAULT_CLEVEL by
 * default). Neither takes a dictionary.
 */
#include <linux/errno.h>
#include <linux/lz4.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include "zcomp.h"

/* The library's own cap: larger accelerations are clamped to it. */
#define ZCOMP_NG_LZ4_MAX_ACCEL	65537

static int zcomp_ng_lz4_level(struct zcomp_ng *comp, int dflt, int min,
			      int max)
{
	if (comp->params.dict)
		return -EOPNOTSUPP;
	if (comp->params.level == ZCOMP_NG_NO_LEVEL)
		comp->params.level = dflt;
	return comp->params.level < min || comp->params.level > max ?
	       -EINVAL : 0;
}

static int zcomp_ng_lz4_setup(struct zcomp_ng *comp)
{
	return zcomp_ng_lz4_level(comp, LZ4_ACCELERATION_DEFAULT, 1,
				  ZCOMP_NG_LZ4_MAX_ACCEL);
}

static int zcomp_ng_lz4hc_setup(struct zcomp_ng *comp)
{
	return zcomp_ng_lz4_level(comp, LZ4HC_DEFAULT_CLEVEL,
				  LZ4HC_MIN_CLEVEL, LZ4HC_MAX_CLEVEL);
}

static void *zcomp_ng_lz4_ctx_create(struct zcomp_ng *comp,
				     unsigned int src_max)
{
	return kvmalloc(LZ4_MEM_COMPRESS, GFP_KERNEL);
}

static void *zcomp_ng_lz4hc_ctx_create(struct zcomp_ng *comp,
				       unsigned int src_max)
{
	return kvmalloc(LZ4HC_MEM_COMPRESS, GFP_KERNEL);
}

static void zcomp_ng_lz4_ctx_destroy(struct zcomp_ng *comp, void *ctx)
{
	kvfree(ctx);
}

/*
 * The library's 0 means the output did not fit: never for a page into a
 * stream's two pages; a group (group.c) that does not fit is not made.
 */
static int zcomp_ng_lz4_len(int ret, unsigned int *dst_len)
{
	if (ret <= 0)
		return -EINVAL;
	*dst_len = ret;
	return 0;
}

static int zcomp_ng_lz4_compress(struct zcomp_ng *comp, void *ctx,
				 const void *src, unsigned int src_len,
				 void *dst, unsigned int *dst_len)
{
	return zcomp_ng_lz4_len(LZ4_compress_fast(src, dst, src_len,
						  *dst_len,
						  comp->params.level, ctx),
				dst_len);
}

static int zcomp_ng_lz4hc_compress(struct zcomp_ng *comp, void *ctx,
				   const void *src, unsigned int src_len,
				   void *dst, unsigned int *dst_len)
{
	return zcomp_ng_lz4_len(LZ4_compress_HC(src, dst, src_len, *dst_len,
						comp->params.level, ctx),
				dst_len);
}

/* Both formats are lz4 blocks: one decompressor, exactly @dst_len out. */
static int zcomp_ng_lz4_decompress(struct zcomp_ng *comp, void *ctx,
				   const void *src, unsigned int src_len,
				   void *dst, unsigned int dst_len)
{
	int ret = LZ4_decompress_safe(src, dst, src_len, dst_len);

	return ret >= 0 && (unsigned int)ret == dst_len ? 0 : -EINVAL;
}

static const struct zcomp_ng_backend zcomp_ng_lz4 = {
	.name = "lz4",
	.setup = zcomp_ng_lz4_setup,
	.ctx_create = zcomp_ng_lz4_ctx_create,
	.ctx_destroy = zcomp_ng_lz4_ctx_destroy,
	.compress = zcomp_ng_lz4_compress,
	.decompress = zcomp_ng_lz4_decompress,
};

static const struct zcomp_ng_backend zcomp_ng_lz4hc = {
	.name = "lz4hc",
	.setup = zcomp_ng_lz4hc_setup,
	.ctx_create = zcomp_ng_lz4hc_ctx_create,
	.ctx_destroy = zcomp_ng_lz4_ctx_destroy,
	.compress = zcomp_ng_lz4hc_compress,
	.decompress = zcomp_ng_lz4_decompress,
};

const struct zcomp_ng_backend *const zcomp_ng_lz4_backends[] = {
	&zcomp_ng_lz4, &zcomp_ng_lz4hc, NULL,
};
EXPORT_SYMBOL_GPL(zcomp_ng_lz4_backends);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("zram_ng: the lz4 and lz4hc backends (the kernel's lz4 library)");
MODULE_VERSION(ZSNG_VERSION);

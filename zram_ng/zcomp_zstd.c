// SPDX-License-Identifier: GPL-2.0
/*
 * zram_ng's zstd backend (zcomp.h), the module zram_ng_zstd: the kernel's
 * zstd library, called directly, with a level and, on 6.12, a dictionary.
 * zram_ng finds the module by the list it exports (zcomp.c).
 *
 * The parameters are zstd's for the level and a page of input (a small
 * window: the contexts take a fraction of what a default frame would);
 * with a dictionary, for a page and that dictionary, as 6.12's zram
 * chooses them: sized for the page alone, a page compressed with a
 * dictionary comes out larger than the stock's.
 * Each stream has a compression and a decompression context in workspaces
 * of its own, sized for those parameters once, so compressing under the
 * stream's local lock never allocates. A dictionary (a file trained with
 * `zstd --train` on data like the device's) is digested once per device
 * into a compression and a decompression dictionary that every stream
 * uses by reference (read-only): they hold pointers into the dictionary's
 * bytes, which the device keeps until reset. zstd needs the very same
 * dictionary to decompress, which is why it cannot change while the
 * device is initialised (algorithm_params is refused then).
 */
#include <linux/errno.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/zstd.h>
#include "compat/zstd_dict.h"
#include "zcomp.h"

/* zstd's own default (the crypto API's and zram's). */
#define ZCOMP_NG_ZSTD_DEFAULT_LEVEL	3

struct zcomp_ng_zstd_shared {
	zstd_parameters prm;
	size_t cwork, dwork;	/* workspace bytes a stream needs */
#ifdef COMPAT_HAVE_ZSTD_DICT
	/* zstd_cdict and zstd_ddict (void: checkpatch misreads the types) */
	void *cdict, *ddict;
#endif
};

struct zcomp_ng_zstd_ctx {
	zstd_cctx *cctx;
	zstd_dctx *dctx;
	void *cmem, *dmem;
	/* the shared page-sized ones, or a group's (zcomp_ng_zstd_sized) */
	zstd_parameters prm;
};

#ifdef COMPAT_HAVE_ZSTD_DICT
/* The dictionaries' own memory, allocated while they are built. */
static void *zcomp_ng_zstd_alloc(void *opaque, size_t size)
{
	return kvzalloc(size, GFP_KERNEL);
}

static void zcomp_ng_zstd_free(void *opaque, void *address)
{
	kvfree(address);
}

#define ZCOMP_NG_ZSTD_MEM \
	compat_zstd_custom_mem(zcomp_ng_zstd_alloc, zcomp_ng_zstd_free)

static int zcomp_ng_zstd_dicts(struct zcomp_ng *comp,
			       struct zcomp_ng_zstd_shared *sh)
{
	const struct zcomp_ng_params *p = &comp->params;

	if (!p->dict)
		return 0;
	sh->cdict = zstd_create_cdict_byreference(p->dict, p->dict_size,
						  compat_zstd_cparams(&sh->prm),
						  ZCOMP_NG_ZSTD_MEM);
	sh->ddict = zstd_create_ddict_byreference(p->dict, p->dict_size,
						  ZCOMP_NG_ZSTD_MEM);
	return sh->cdict && sh->ddict ? 0 : -EINVAL;
}

static void zcomp_ng_zstd_free_dicts(struct zcomp_ng_zstd_shared *sh)
{
	if (sh->cdict)
		zstd_free_cdict(sh->cdict);
	if (sh->ddict)
		zstd_free_ddict(sh->ddict);
}
#else
static int zcomp_ng_zstd_dicts(struct zcomp_ng *comp,
			       struct zcomp_ng_zstd_shared *sh)
{
	/* this kernel's zstd exports no dictionary calls: compat/ */
	return comp->params.dict ? -EOPNOTSUPP : 0;
}

static void zcomp_ng_zstd_free_dicts(struct zcomp_ng_zstd_shared *sh)
{
}
#endif

static void zcomp_ng_zstd_release(struct zcomp_ng *comp)
{
	struct zcomp_ng_zstd_shared *sh = comp->shared;

	if (!sh)
		return;
	zcomp_ng_zstd_free_dicts(sh);
	kfree(sh);
	comp->shared = NULL;
}

/*
 * -EINVAL for a level outside zstd's range or a dictionary zstd does not
 * take, -EOPNOTSUPP for a dictionary on a kernel without the calls.
 */
static int zcomp_ng_zstd_setup(struct zcomp_ng *comp)
{
	struct zcomp_ng_params *p = &comp->params;
	zstd_compression_parameters cparams;
	struct zcomp_ng_zstd_shared *sh;
	int ret;

	if (p->level == ZCOMP_NG_NO_LEVEL)
		p->level = ZCOMP_NG_ZSTD_DEFAULT_LEVEL;
	if (p->level < zstd_min_clevel() || p->level > zstd_max_clevel())
		return -EINVAL;

	sh = kzalloc(sizeof(*sh), GFP_KERNEL);
	if (!sh)
		return -ENOMEM;
	comp->shared = sh;
	sh->prm = zstd_get_params(p->level, PAGE_SIZE);
#ifdef COMPAT_HAVE_ZSTD_DICT
	if (p->dict)
		compat_zstd_dict_cparams(&sh->prm, p->level, PAGE_SIZE,
					 p->dict_size);
#endif
	cparams = compat_zstd_cparams(&sh->prm);
	sh->cwork = zstd_cctx_workspace_bound(&cparams);
	sh->dwork = zstd_dctx_workspace_bound();
	ret = zcomp_ng_zstd_dicts(comp, sh);
	if (ret)
		zcomp_ng_zstd_release(comp);
	return ret;
}

static void zcomp_ng_zstd_ctx_destroy(struct zcomp_ng *comp, void *ctx)
{
	struct zcomp_ng_zstd_ctx *z = ctx;

	vfree(z->cmem);
	vfree(z->dmem);
	kfree(z);
}

/*
 * The parameters and compression workspace for inputs of @src_max bytes,
 * larger than a page (a group of pages: group.c): zstd's for that size,
 * so that the window spans the whole group, which is where grouping's
 * gain comes from. With a dictionary, zstd sizes the window from the
 * input too (it widens the dictionary's to fit the input): the workspace
 * is the larger of the two estimates.
 */
static size_t zcomp_ng_zstd_sized(struct zcomp_ng *comp,
				  unsigned int src_max, zstd_parameters *prm)
{
	zstd_compression_parameters cparams;
	size_t work;

	*prm = zstd_get_params(comp->params.level, src_max);
	cparams = compat_zstd_cparams(prm);
	work = zstd_cctx_workspace_bound(&cparams);
#ifdef COMPAT_HAVE_ZSTD_DICT
	if (comp->params.dict) {
		zstd_parameters dprm = *prm;

		compat_zstd_dict_cparams(&dprm, comp->params.level, src_max,
					 comp->params.dict_size);
		cparams = compat_zstd_cparams(&dprm);
		work = max(work, zstd_cctx_workspace_bound(&cparams));
	}
#endif
	return work;
}

static void *zcomp_ng_zstd_ctx_create(struct zcomp_ng *comp,
				      unsigned int src_max)
{
	struct zcomp_ng_zstd_shared *sh = comp->shared;
	struct zcomp_ng_zstd_ctx *z;
	size_t cwork = sh->cwork;

	z = kzalloc(sizeof(*z), GFP_KERNEL);
	if (!z)
		return NULL;
	z->prm = sh->prm;
	if (src_max > PAGE_SIZE)
		cwork = zcomp_ng_zstd_sized(comp, src_max, &z->prm);
	z->cmem = vzalloc(cwork);
	z->dmem = vzalloc(sh->dwork);
	if (z->cmem && z->dmem) {
		z->cctx = zstd_init_cctx(z->cmem, cwork);
		z->dctx = zstd_init_dctx(z->dmem, sh->dwork);
	}
	if (!z->cctx || !z->dctx) {
		zcomp_ng_zstd_ctx_destroy(comp, z);
		return NULL;
	}
	return z;
}

static int zcomp_ng_zstd_compress(struct zcomp_ng *comp, void *ctx,
				  const void *src, unsigned int src_len,
				  void *dst, unsigned int *dst_len)
{
	struct zcomp_ng_zstd_shared *sh __maybe_unused = comp->shared;
	struct zcomp_ng_zstd_ctx *z = ctx;
	size_t ret;

#ifdef COMPAT_HAVE_ZSTD_DICT
	if (sh->cdict)
		ret = zstd_compress_using_cdict(z->cctx, dst, *dst_len, src,
						src_len, sh->cdict);
	else
#endif
		ret = zstd_compress_cctx(z->cctx, dst, *dst_len, src,
					 src_len, &z->prm);
	if (zstd_is_error(ret))
		return -EINVAL;
	*dst_len = ret;
	return 0;
}

static int zcomp_ng_zstd_decompress(struct zcomp_ng *comp, void *ctx,
				    const void *src, unsigned int src_len,
				    void *dst, unsigned int dst_len)
{
	struct zcomp_ng_zstd_shared *sh __maybe_unused = comp->shared;
	struct zcomp_ng_zstd_ctx *z = ctx;
	size_t ret;

#ifdef COMPAT_HAVE_ZSTD_DICT
	if (sh->ddict)
		ret = zstd_decompress_using_ddict(z->dctx, dst, dst_len, src,
						  src_len, sh->ddict);
	else
#endif
		ret = zstd_decompress_dctx(z->dctx, dst, dst_len, src,
					   src_len);
	return !zstd_is_error(ret) && ret == dst_len ? 0 : -EINVAL;
}

static const struct zcomp_ng_backend zcomp_ng_zstd = {
	.name = "zstd",
	.setup = zcomp_ng_zstd_setup,
	.release = zcomp_ng_zstd_release,
	.ctx_create = zcomp_ng_zstd_ctx_create,
	.ctx_destroy = zcomp_ng_zstd_ctx_destroy,
	.compress = zcomp_ng_zstd_compress,
	.decompress = zcomp_ng_zstd_decompress,
};

const struct zcomp_ng_backend *const zcomp_ng_zstd_backends[] = {
	&zcomp_ng_zstd, NULL,
};
EXPORT_SYMBOL_GPL(zcomp_ng_zstd_backends);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("zram_ng: the zstd backend (the kernel's zstd library)");
MODULE_VERSION(ZSNG_VERSION);

// SPDX-License-Identifier: GPL-2.0
/*
 * zram_ng compression streams, the bottom layer (it calls nothing of
 * zram_ng): one backend state and one two-page buffer per CPU and per
 * device. A writer takes its CPU's stream with a local lock (no sleeping
 * until it is put back), which is why the write path allocates with
 * non-sleeping GFP flags first.
 *
 * Backends. lz4, lz4hc and zstd call the kernel's libraries directly
 * (zcomp_lz4.c, zcomp_zstd.c), as upstream zram does since 6.12: the
 * crypto API has no way to pass a level or a dictionary (algorithm_params)
 * and costs an indirect call and a transform lookup per page for nothing.
 * Every other algorithm (lzo, lzo-rle, 842, or any the crypto API knows)
 * goes through the crypto API below, without levels.
 *
 * The library backends are modules of their own (zram_ng_lz4 for lz4 and
 * lz4hc, zram_ng_zstd), so that zram_ng.ko links against no library: a
 * bare insmod of it loads where nothing has loaded lz4_compress or
 * zstd_compress, and only the libraries in use are loaded. A backend
 * module is found by the symbol it exports: symbol_get(), after one
 * request_module("symbol:...") (the alias depmod writes for installed
 * modules); the module reference it takes is held while a device uses the
 * backend. The per-page path is the same either way: one call through
 * ->compress into code that calls the library directly. Where the module
 * cannot be loaded (zram_ng.ko insmod'ed from a build tree), the crypto
 * API serves lz4, lz4hc and zstd (the same formats: an lz4 block, a zstd
 * frame; no algorithm_params), and dmesg names the module to load.
 *
 * Streams follow CPU hotplug through one dynamic cpuhp state with an
 * instance per device: a CPU coming up gets a stream for every device
 * before it runs tasks, a dead CPU's streams are freed.
 */
#define pr_fmt(fmt) "zram_ng: " fmt

#include <linux/bitops.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/crypto.h>
#include <linux/kmod.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "zcomp.h"

/* Listed in sysfs when they can be used. */
static const char * const zcomp_ng_names[] = {
	"lzo", "lzo-rle", "lz4", "lz4hc", "842", "zstd",
};

/* A library backend module: the symbol it exports, and its name. */
struct zcomp_ng_lib {
	const char *symbol;
	const char *module;
};

static const struct zcomp_ng_lib zcomp_ng_libs[] = {
	{ "zcomp_ng_lz4_backends", "zram_ng_lz4" },
	{ "zcomp_ng_zstd_backends", "zram_ng_zstd" },
};

/* The algorithms those modules have. */
static const struct {
	const char *name;
	const struct zcomp_ng_lib *lib;
} zcomp_ng_lib_algs[] = {
	{ "lz4", &zcomp_ng_libs[0] },
	{ "lz4hc", &zcomp_ng_libs[0] },
	{ "zstd", &zcomp_ng_libs[1] },
};

/* Libraries whose module was asked for once (bit: index in zcomp_ng_libs) */
static unsigned long zcomp_ng_libs_asked;
/* and found missing, which dmesg was told */
static unsigned long zcomp_ng_libs_missing;

static enum cpuhp_state zcomp_ng_hp_state;

/* The crypto API's backend: any algorithm it has, no parameters. */
static int zcomp_ng_crypto_setup(struct zcomp_ng *comp)
{
	if (comp->params.level != ZCOMP_NG_NO_LEVEL || comp->params.dict)
		return -EOPNOTSUPP;
	return 0;
}

static void *zcomp_ng_crypto_ctx_create(struct zcomp_ng *comp,
					unsigned int src_max)
{
	struct crypto_comp *tfm = crypto_alloc_comp(comp->name, 0, 0);

	return IS_ERR(tfm) ? NULL : tfm;
}

static void zcomp_ng_crypto_ctx_destroy(struct zcomp_ng *comp, void *ctx)
{
	crypto_free_comp(ctx);
}

static int zcomp_ng_crypto_compress(struct zcomp_ng *comp, void *ctx,
				    const void *src, unsigned int src_len,
				    void *dst, unsigned int *dst_len)
{
	return crypto_comp_compress(ctx, src, src_len, dst, dst_len);
}

static int zcomp_ng_crypto_decompress(struct zcomp_ng *comp, void *ctx,
				      const void *src, unsigned int src_len,
				      void *dst, unsigned int dst_len)
{
	unsigned int len = dst_len;
	int ret = crypto_comp_decompress(ctx, src, src_len, dst, &len);

	if (ret)
		return ret;
	return len == dst_len ? 0 : -EINVAL;
}

static const struct zcomp_ng_backend zcomp_ng_crypto = {
	.setup = zcomp_ng_crypto_setup,
	.ctx_create = zcomp_ng_crypto_ctx_create,
	.ctx_destroy = zcomp_ng_crypto_ctx_destroy,
	.compress = zcomp_ng_crypto_compress,
	.decompress = zcomp_ng_crypto_decompress,
};

/*
 * @lib's backend list with a reference on its module, or NULL. The
 * module is asked for once: a failed request is not repeated at every
 * sysfs read (comp_algorithm lists the algorithms), but a module loaded
 * by hand later is found.
 */
static const struct zcomp_ng_backend *const *
zcomp_ng_lib_get(const struct zcomp_ng_lib *lib)
{
	int bit = lib - zcomp_ng_libs;
	const struct zcomp_ng_backend *const *list;

	list = __symbol_get(lib->symbol);
	if (!list && !test_and_set_bit(bit, &zcomp_ng_libs_asked)) {
		request_module("symbol:%s", lib->symbol);
		list = __symbol_get(lib->symbol);
	}
	return list;
}

/*
 * @name's backend: its library module's (*@lib set: the caller puts the
 * module reference with zcomp_ng_backend_put()), else the crypto API's if
 * it has the algorithm.
 */
static const struct zcomp_ng_backend *
zcomp_ng_backend(const char *name, const struct zcomp_ng_lib **lib)
{
	const struct zcomp_ng_backend *const *list;
	const struct zcomp_ng_lib *l = NULL;
	int i;

	*lib = NULL;
	for (i = 0; i < ARRAY_SIZE(zcomp_ng_lib_algs); i++)
		if (!strcmp(zcomp_ng_lib_algs[i].name, name))
			l = zcomp_ng_lib_algs[i].lib;
	list = l ? zcomp_ng_lib_get(l) : NULL;
	for (; list && *list; list++) {
		if (!strcmp((*list)->name, name)) {
			*lib = l;
			return *list;
		}
	}
	if (list)	/* a module without it: not ours to use */
		__symbol_put(l->symbol);
	if (crypto_has_comp(name, 0, 0) != 1)
		return NULL;
	if (l && !test_and_set_bit(l - zcomp_ng_libs, &zcomp_ng_libs_missing))
		pr_notice("%s: module %s not found: using the crypto API's %s (no algorithm_params); load %s for the library backend\n",
			  name, l->module, name, l->module);
	return &zcomp_ng_crypto;
}

static void zcomp_ng_backend_put(const struct zcomp_ng_lib *lib)
{
	if (lib)
		__symbol_put(lib->symbol);
}

static void zcomp_ng_strm_free(struct zcomp_ng_strm *zstrm)
{
	if (zstrm->ctx)
		zstrm->comp->be->ctx_destroy(zstrm->comp, zstrm->ctx);
	free_pages((unsigned long)zstrm->buffer, 1);
	zstrm->ctx = NULL;
	zstrm->buffer = NULL;
}

static int zcomp_ng_strm_init(struct zcomp_ng_strm *zstrm,
			      struct zcomp_ng *comp)
{
	zstrm->comp = comp;
	zstrm->ctx = comp->be->ctx_create(comp, PAGE_SIZE);
	zstrm->buffer = (void *)__get_free_pages(GFP_KERNEL | __GFP_ZERO, 1);
	if (!zstrm->ctx || !zstrm->buffer) {
		zcomp_ng_strm_free(zstrm);
		return -ENOMEM;
	}
	return 0;
}

bool zcomp_ng_available(const char *name)
{
	const struct zcomp_ng_lib *lib;
	bool ret = zcomp_ng_backend(name, &lib);

	zcomp_ng_backend_put(lib);
	return ret;
}

/*
 * Lists the algorithms at @at in @buf (a sysfs page), @current_name in
 * brackets; returns the bytes written.
 */
ssize_t zcomp_ng_available_show(const char *current_name, char *buf,
				ssize_t at)
{
	bool listed = false;
	ssize_t sz = at;
	int i;

	for (i = 0; i < ARRAY_SIZE(zcomp_ng_names); i++) {
		const char *name = zcomp_ng_names[i];
		bool cur = !strcmp(current_name, name);

		if (!cur && !zcomp_ng_available(name))
			continue;
		listed |= cur;
		sz += sysfs_emit_at(buf, sz, cur ? "[%s] " : "%s ", name);
	}
	/* an algorithm the crypto API knows but the list above does not */
	if (!listed)
		sz += sysfs_emit_at(buf, sz, "[%s] ", current_name);
	if (sz > at)
		sz--;	/* no trailing blank */
	sz += sysfs_emit_at(buf, sz, "\n");
	return sz - at;
}

struct zcomp_ng_strm *zcomp_ng_stream_get(struct zcomp_ng *comp)
{
	local_lock(&comp->stream->lock);
	return this_cpu_ptr(comp->stream);
}

void zcomp_ng_stream_put(struct zcomp_ng *comp)
{
	local_unlock(&comp->stream->lock);
}

int zcomp_ng_compress(struct zcomp_ng_strm *zstrm, const void *src,
		      unsigned int *dst_len)
{
	struct zcomp_ng *comp = zstrm->comp;

	/* the output buffer is two pages: room for incompressible data */
	*dst_len = PAGE_SIZE * 2;
	return comp->be->compress(comp, zstrm->ctx, src, PAGE_SIZE,
				  zstrm->buffer, dst_len);
}

/* A page, from @src_len bytes compressed. */
int zcomp_ng_decompress(struct zcomp_ng_strm *zstrm, const void *src,
			unsigned int src_len, void *dst)
{
	return zcomp_ng_decompress_len(zstrm, src, src_len, dst, PAGE_SIZE);
}

/*
 * Exactly @dst_len bytes (a group of pages: group.c), from @src_len bytes
 * compressed by a state of zcomp_ng_ctx_create(). A stream's state
 * decompresses inputs of any size: only compressing needs to know it.
 */
int zcomp_ng_decompress_len(struct zcomp_ng_strm *zstrm, const void *src,
			    unsigned int src_len, void *dst,
			    unsigned int dst_len)
{
	struct zcomp_ng *comp = zstrm->comp;

	return comp->be->decompress(comp, zstrm->ctx, src, src_len, dst,
				    dst_len);
}

/*
 * A state of its own, outside the streams, that compresses inputs of up
 * to @src_max bytes (a grouping pass owns one: group.c); NULL when there
 * is no memory for it. May sleep.
 */
void *zcomp_ng_ctx_create(struct zcomp_ng *comp, unsigned int src_max)
{
	return comp->be->ctx_create(comp, src_max);
}

void zcomp_ng_ctx_destroy(struct zcomp_ng *comp, void *ctx)
{
	if (ctx)
		comp->be->ctx_destroy(comp, ctx);
}

/*
 * Compresses @src_len bytes (at most the @ctx's src_max) into @dst, which
 * has room for *@dst_len; *@dst_len is then the compressed size. An error
 * when it does not fit.
 */
int zcomp_ng_compress_ctx(struct zcomp_ng *comp, void *ctx, const void *src,
			  unsigned int src_len, void *dst,
			  unsigned int *dst_len)
{
	return comp->be->compress(comp, ctx, src, src_len, dst, dst_len);
}

static int zcomp_ng_cpu_up_prepare(unsigned int cpu, struct hlist_node *node)
{
	struct zcomp_ng *comp = hlist_entry(node, struct zcomp_ng, node);
	struct zcomp_ng_strm *zstrm = per_cpu_ptr(comp->stream, cpu);
	int ret;

	local_lock_init(&zstrm->lock);
	ret = zcomp_ng_strm_init(zstrm, comp);
	if (ret)
		pr_err("cannot allocate %s stream for CPU %u\n",
		       comp->name, cpu);
	return ret;
}

static int zcomp_ng_cpu_dead(unsigned int cpu, struct hlist_node *node)
{
	struct zcomp_ng *comp = hlist_entry(node, struct zcomp_ng, node);

	zcomp_ng_strm_free(per_cpu_ptr(comp->stream, cpu));
	return 0;
}

/*
 * The streams of algorithm @name with @params (copied; a dictionary is
 * borrowed and must outlive the result): -EINVAL for an algorithm nobody
 * has or a level out of its range, -EOPNOTSUPP for a parameter it cannot
 * take, -ENOMEM.
 */
struct zcomp_ng *zcomp_ng_create(const char *name,
				 const struct zcomp_ng_params *params)
{
	const struct zcomp_ng_lib *lib;
	const struct zcomp_ng_backend *be = zcomp_ng_backend(name, &lib);
	struct zcomp_ng *comp;
	int ret;

	if (!be)
		return ERR_PTR(-EINVAL);

	comp = kzalloc(sizeof(*comp), GFP_KERNEL);
	if (!comp) {
		zcomp_ng_backend_put(lib);
		return ERR_PTR(-ENOMEM);
	}
	comp->name = name;
	comp->be = be;
	comp->lib = lib;
	comp->params = *params;
	ret = be->setup(comp);
	if (ret)
		goto out_free;
	comp->stream = alloc_percpu(struct zcomp_ng_strm);
	ret = -ENOMEM;
	if (!comp->stream)
		goto out_release;
	ret = cpuhp_state_add_instance(zcomp_ng_hp_state, &comp->node);
	if (ret < 0)
		goto out_free_percpu;
	return comp;

out_free_percpu:
	free_percpu(comp->stream);
out_release:
	if (be->release)
		be->release(comp);
out_free:
	kfree(comp);
	zcomp_ng_backend_put(lib);
	return ERR_PTR(ret);
}

/*
 * Whether algorithm @name takes @params, without making streams: what
 * zcomp_ng_create() would answer (-EINVAL, -EOPNOTSUPP, -ENOMEM) or 0.
 */
int zcomp_ng_check(const char *name, const struct zcomp_ng_params *params)
{
	const struct zcomp_ng_lib *lib;
	const struct zcomp_ng_backend *be = zcomp_ng_backend(name, &lib);
	struct zcomp_ng comp = {
		.name = name,
		.be = be,
		.params = *params,
	};
	int ret;

	if (!be)
		return -EINVAL;
	ret = be->setup(&comp);
	if (!ret && be->release)
		be->release(&comp);
	zcomp_ng_backend_put(lib);
	return ret;
}

void zcomp_ng_destroy(struct zcomp_ng *comp)
{
	cpuhp_state_remove_instance(zcomp_ng_hp_state, &comp->node);
	free_percpu(comp->stream);
	if (comp->be->release)
		comp->be->release(comp);
	zcomp_ng_backend_put(comp->lib);
	kfree(comp);
}

int zcomp_ng_hp_init(void)
{
	int ret;

	ret = cpuhp_setup_state_multi(CPUHP_BP_PREPARE_DYN,
				      "block/zram_ng:prepare",
				      zcomp_ng_cpu_up_prepare,
				      zcomp_ng_cpu_dead);
	if (ret < 0)
		return ret;
	zcomp_ng_hp_state = ret;
	return 0;
}

void zcomp_ng_hp_exit(void)
{
	cpuhp_remove_multi_state(zcomp_ng_hp_state);
}

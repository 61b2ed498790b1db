// SPDX-License-Identifier: GPL-2.0
/*
 * zram_ng compression streams, the bottom layer (it calls nothing of
 * zram_ng): one crypto_comp transform and one two-page buffer per CPU and
 * per device. A writer takes its CPU's stream with a local lock (no
 * sleeping until it is put back), which is why the write path allocates
 * with non-sleeping GFP flags first.
 *
 * Streams follow CPU hotplug through one dynamic cpuhp state with an
 * instance per device: a CPU coming up gets a stream for every device
 * before it runs tasks, a dead CPU's streams are freed.
 */
#define pr_fmt(fmt) "zram_ng: " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/crypto.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "zcomp.h"

/* Listed in sysfs when the crypto API can load them. */
static const char * const zcomp_ng_backends[] = {
	"lzo", "lzo-rle", "lz4", "lz4hc", "842", "zstd",
};

static enum cpuhp_state zcomp_ng_hp_state;

static void zcomp_ng_strm_free(struct zcomp_ng_strm *zstrm)
{
	if (!IS_ERR_OR_NULL(zstrm->tfm))
		crypto_free_comp(zstrm->tfm);
	free_pages((unsigned long)zstrm->buffer, 1);
	zstrm->tfm = NULL;
	zstrm->buffer = NULL;
}

static int zcomp_ng_strm_init(struct zcomp_ng_strm *zstrm,
			      struct zcomp_ng *comp)
{
	zstrm->tfm = crypto_alloc_comp(comp->name, 0, 0);
	zstrm->buffer = (void *)__get_free_pages(GFP_KERNEL | __GFP_ZERO, 1);
	if (IS_ERR_OR_NULL(zstrm->tfm) || !zstrm->buffer) {
		zcomp_ng_strm_free(zstrm);
		return -ENOMEM;
	}
	return 0;
}

bool zcomp_ng_available(const char *name)
{
	return crypto_has_comp(name, 0, 0) == 1;
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

	for (i = 0; i < ARRAY_SIZE(zcomp_ng_backends); i++) {
		const char *name = zcomp_ng_backends[i];
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
	/* the output buffer is two pages: room for incompressible data */
	*dst_len = PAGE_SIZE * 2;
	return crypto_comp_compress(zstrm->tfm, src, PAGE_SIZE,
				    zstrm->buffer, dst_len);
}

int zcomp_ng_decompress(struct zcomp_ng_strm *zstrm, const void *src,
			unsigned int src_len, void *dst)
{
	unsigned int dst_len = PAGE_SIZE;

	return crypto_comp_decompress(zstrm->tfm, src, src_len, dst, &dst_len);
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

struct zcomp_ng *zcomp_ng_create(const char *name)
{
	struct zcomp_ng *comp;
	int ret;

	if (!zcomp_ng_available(name))
		return ERR_PTR(-EINVAL);

	comp = kzalloc(sizeof(*comp), GFP_KERNEL);
	if (!comp)
		return ERR_PTR(-ENOMEM);
	comp->name = name;
	comp->stream = alloc_percpu(struct zcomp_ng_strm);
	if (!comp->stream) {
		kfree(comp);
		return ERR_PTR(-ENOMEM);
	}
	ret = cpuhp_state_add_instance(zcomp_ng_hp_state, &comp->node);
	if (ret < 0) {
		free_percpu(comp->stream);
		kfree(comp);
		return ERR_PTR(ret);
	}
	return comp;
}

void zcomp_ng_destroy(struct zcomp_ng *comp)
{
	cpuhp_state_remove_instance(zcomp_ng_hp_state, &comp->node);
	free_percpu(comp->stream);
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

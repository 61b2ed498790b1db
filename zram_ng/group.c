// SPDX-License-Identifier: GPL-2.0
/*
 * zram_ng's groups: cold pages compressed together. A compressor that
 * sees one 4 KiB page at a time finds only that page's repetitions; one
 * that sees 16 neighbouring pages of the same program finds theirs too
 * (issue 30: zstd per 64 KiB stores real application memory in 0.84-0.86
 * of what zstd per page does). The grouping pass (grouping.c) compresses
 * up to ZRAM_NG_GROUP_MAX_PAGES idle slots of one leaf as one stream, and
 * each slot then points at the group instead of an object of its own.
 *
 * Storage. The stream is cut into page-sized chunks, each an ordinary
 * object of the pool: PAGE_SIZE bytes each (the pool's huge class, one
 * object a page, no waste), the rest in the last, in the class of its
 * size. So the allocator needs no objects larger than a page, and
 * compaction, migration, the shrinker and mem_used_total treat chunks as
 * any object. The cost against an allocator holding the stream whole is
 * the last chunk's rounding to its class (at most a class step) and
 * struct zram_ng_group (group_meta_bytes in group_stat); a stream is
 * never copied whole but on reads, which gather the chunks anyway.
 *
 *   slot (flag ZRAM_NG_GROUPED, ->handle = the group, size = its share)
 *     |                      +-> chunk 0: PAGE_SIZE bytes of the stream
 *     +-> struct zram_ng_group --> chunk 1: PAGE_SIZE bytes
 *     |     id, comp, live,      +-> chunk 2: the rest (class of its size)
 *     |     base, offs[nr]
 *   slot (another member)
 *
 * A member's share of the stream's bytes (zram_ng_group_share(); they add
 * up to comp_len) is its slot's size: mm_stat's compr_data_size counts the
 * shares of the members alive, writeback's and recompression's size
 * rules see a plausible size, and slot_allocated() holds.
 *
 * Lifetime. A group never changes once made; ->live counts the members
 * pointing at it (and the pass until it has committed). A member leaves
 * when its slot is freed for any reason (overwrite, discard, swap free,
 * reset, regrouping), under that slot's lock; the last one to leave frees
 * the chunks and the group. A reader holds its member's slot lock, so the
 * group outlives the read. The bytes of members gone are dead until the
 * group goes (group_dead_bytes): a group with a quarter of its pages gone
 * or more is taken apart by the next grouping pass
 * (zram_ng_group_worth_regrouping()).
 *
 * Reads. Reading a member decompresses its whole group into this CPU's
 * cache (struct zram_ng_group_cache, two buffers of the largest group)
 * and copies the page out; the next read of the same group on this CPU,
 * a sequential read or swap's readahead, copies without decompressing.
 * The cache is keyed by the group's id, a 64-bit sequence number never
 * reused: a group being immutable, an id found in the cache is that
 * group's data, and a group freed and another made at the same address
 * cannot be mistaken for it. The caches are allocated by the first
 * grouping pass of any device (128 KiB a possible CPU with 4 KiB pages)
 * and kept until the module goes.
 *
 * Locking: slot lock -> this CPU's group cache (a local lock) -> the
 * allocator's mapping of a chunk (one at a time, unmapped before the
 * next), then -> the compression stream of the group's algorithm. No
 * read sleeps. Counters are atomic64 (zram_ng.h, struct zram_ng_stats).
 */
#define pr_fmt(fmt) "zram_ng: " fmt

#include <linux/local_lock.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/stddef.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "group.h"

struct zram_ng_group_cache {
	local_lock_t lock;
	u64 id;			/* the group in ->data; 0: none */
	void *data;		/* its pages, decompressed */
	void *staging;		/* its stream, gathered from the chunks */
};

static DEFINE_PER_CPU(struct zram_ng_group_cache, zram_ng_group_caches) = {
	.lock = INIT_LOCAL_LOCK(lock),
};

static DEFINE_MUTEX(zram_ng_group_caches_mutex);
static bool zram_ng_group_caches_ready;
/* ids from 1: 0 is an empty cache */
static atomic64_t zram_ng_group_last_id = ATOMIC64_INIT(0);

static void zram_ng_group_caches_free(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct zram_ng_group_cache *c = per_cpu_ptr(&zram_ng_group_caches,
							    cpu);

		kvfree(c->data);
		kvfree(c->staging);
		c->data = NULL;
		c->staging = NULL;
		c->id = 0;
	}
}

/*
 * The read caches of every possible CPU, made once (the first grouping
 * pass of any device): 0 or -ENOMEM. A group exists only after this.
 */
int zram_ng_group_caches_init(void)
{
	int cpu, ret = 0;

	mutex_lock(&zram_ng_group_caches_mutex);
	if (zram_ng_group_caches_ready)
		goto out;
	for_each_possible_cpu(cpu) {
		struct zram_ng_group_cache *c = per_cpu_ptr(&zram_ng_group_caches,
							    cpu);

		c->data = kvmalloc(ZRAM_NG_GROUP_MAX_BYTES, GFP_KERNEL);
		c->staging = kvmalloc(ZRAM_NG_GROUP_MAX_BYTES, GFP_KERNEL);
		if (!c->data || !c->staging) {
			zram_ng_group_caches_free();
			ret = -ENOMEM;
			goto out;
		}
	}
	zram_ng_group_caches_ready = true;
out:
	mutex_unlock(&zram_ng_group_caches_mutex);
	return ret;
}

/* Module exit: every device, so every group, is gone. */
void zram_ng_group_layer_exit(void)
{
	zram_ng_group_caches_free();
	zram_ng_group_caches_ready = false;
}

static size_t zram_ng_group_size(unsigned int nr_chunks)
{
	/* nr_chunks <= ZRAM_NG_GROUP_MAX_PAGES: no overflow */
	return offsetof(struct zram_ng_group, chunks) +
	       nr_chunks * sizeof(unsigned long);
}

/* The last member gone: the chunks and the group go. */
static void zram_ng_group_release(struct zram_ng *zram,
				  struct zram_ng_group *grp)
{
	struct zram_ng_stats *st = &zram->stats;
	unsigned int i;

	for (i = 0; i < grp->nr_chunks; i++)
		zsng_free(zram->mem_pool, grp->chunks[i]);
	atomic64_dec(&st->groups);
	atomic64_sub(grp->comp_len, &st->group_bytes);
	atomic64_sub(grp->nr, &st->group_dead_pages);
	atomic64_sub(grp->comp_len, &st->group_dead_bytes);
	atomic64_sub(zram_ng_group_size(grp->nr_chunks), &st->group_meta_bytes);
	kfree(grp);
}

static void zram_ng_group_put(struct zram_ng *zram, struct zram_ng_group *grp)
{
	if (atomic_dec_and_test(&grp->live))
		zram_ng_group_release(zram, grp);
}

/*
 * A group of the @comp_len bytes at @stream, compressed by @comp, holding
 * the pages of slots @base + @offs[k], k < @nr, in that order: its chunks
 * stored (may sleep), no member yet, held by the caller (the pass), who
 * installs the members (zram_ng_slot_install_group) then lets go
 * (zram_ng_group_committed). Every page counts as dead until its slot
 * joins. An ERR_PTR: -ENOMEM.
 */
struct zram_ng_group *zram_ng_group_make(struct zram_ng *zram,
					 struct zcomp_ng *comp,
					 const void *stream, u32 comp_len,
					 u32 base, const u8 *offs, u8 nr)
{
	struct zram_ng_stats *st = &zram->stats;
	unsigned int nr_chunks = DIV_ROUND_UP(comp_len, PAGE_SIZE), i;
	struct zram_ng_group *grp;

	if (WARN_ON_ONCE(nr < ZRAM_NG_GROUP_MIN_PAGES ||
			 nr > ZRAM_NG_GROUP_MAX_PAGES || !comp_len ||
			 comp_len > ZRAM_NG_GROUP_MAX_BYTES))
		return ERR_PTR(-EINVAL);
	grp = kzalloc(zram_ng_group_size(nr_chunks), GFP_NOIO);
	if (!grp)
		return ERR_PTR(-ENOMEM);
	for (i = 0; i < nr_chunks; i++) {
		u32 len = min_t(u32, PAGE_SIZE, comp_len - i * PAGE_SIZE);
		unsigned long handle;

		handle = zsng_store(zram->mem_pool, stream + i * PAGE_SIZE, len,
				    ZRAM_NG_SLEEP_GFP);
		if (IS_ERR_VALUE(handle)) {
			while (i--)
				zsng_free(zram->mem_pool, grp->chunks[i]);
			kfree(grp);
			return ERR_PTR(-ENOMEM);
		}
		grp->chunks[i] = handle;
	}
	grp->id = atomic64_inc_return(&zram_ng_group_last_id);
	grp->comp = comp;
	atomic_set(&grp->live, 1);
	grp->base = base;
	grp->comp_len = comp_len;
	grp->nr = nr;
	grp->nr_chunks = nr_chunks;
	memcpy(grp->offs, offs, nr);

	atomic64_inc(&st->groups);
	atomic64_add(comp_len, &st->group_bytes);
	atomic64_add(nr, &st->group_dead_pages);
	atomic64_add(comp_len, &st->group_dead_bytes);
	atomic64_add(zram_ng_group_size(nr_chunks), &st->group_meta_bytes);
	return grp;
}

/*
 * Member @k joins @grp: its slot, locked, now points here with
 * zram_ng_group_share(grp, k) bytes (slot.c, zram_ng_slot_install_group).
 */
void zram_ng_group_join(struct zram_ng *zram, struct zram_ng_group *grp,
			unsigned int k)
{
	struct zram_ng_stats *st = &zram->stats;

	atomic_inc(&grp->live);
	atomic64_inc(&st->grouped_pages);
	atomic64_dec(&st->group_dead_pages);
	atomic64_sub(zram_ng_group_share(grp, k), &st->group_dead_bytes);
}

/* The pass has installed every member it could: it lets go of @grp. */
void zram_ng_group_committed(struct zram_ng *zram, struct zram_ng_group *grp)
{
	zram_ng_group_put(zram, grp);
}

/* A member of @share bytes leaves @grp: its slot, locked, is being freed. */
void zram_ng_group_leave(struct zram_ng *zram, struct zram_ng_group *grp,
			 u32 share)
{
	struct zram_ng_stats *st = &zram->stats;

	atomic64_dec(&st->grouped_pages);
	atomic64_inc(&st->group_dead_pages);
	atomic64_add(share, &st->group_dead_bytes);
	zram_ng_group_put(zram, grp);
}

/* Which member of @grp slot @index is: its page's place in the stream. */
static int zram_ng_group_member(const struct zram_ng_group *grp, u32 index)
{
	unsigned int k;

	for (k = 0; k < grp->nr; k++)
		if (grp->base + grp->offs[k] == index)
			return k;
	return -1;
}

/* Decompresses @grp into @c (this CPU's, locked). */
static int zram_ng_group_decompress(struct zram_ng *zram,
				    struct zram_ng_group *grp,
				    struct zram_ng_group_cache *c)
{
	struct zcomp_ng_strm *zstrm;
	unsigned int i;
	int ret;

	c->id = 0;
	for (i = 0; i < grp->nr_chunks; i++) {
		u32 len = min_t(u32, PAGE_SIZE, grp->comp_len - i * PAGE_SIZE);
		void *src = zsng_map_object(zram->mem_pool, grp->chunks[i],
					    ZSNG_MM_RO);

		memcpy(c->staging + i * PAGE_SIZE, src, len);
		zsng_unmap_object(zram->mem_pool, grp->chunks[i]);
	}
	zstrm = zcomp_ng_stream_get(grp->comp);
	ret = zcomp_ng_decompress_len(zstrm, c->staging, grp->comp_len,
				      c->data, grp->nr * PAGE_SIZE);
	zcomp_ng_stream_put(grp->comp);
	if (ret)
		return ret;
	c->id = grp->id;
	atomic64_inc(&zram->stats.group_decomps);
	return 0;
}

/*
 * Copies the page of slot @index, a member of @grp and locked, to @dst
 * (a mapped page): from this CPU's cache, decompressing the group into it
 * first unless it is there. 0, or -EIO: not a member (a bug), or a stream
 * that does not decompress.
 */
int zram_ng_group_read(struct zram_ng *zram, struct zram_ng_group *grp,
		       u32 index, void *dst)
{
	struct zram_ng_group_cache *c;
	int k = zram_ng_group_member(grp, index);
	int ret = 0;

	if (WARN_ON_ONCE(k < 0))
		return -EIO;
	local_lock(&zram_ng_group_caches.lock);
	c = this_cpu_ptr(&zram_ng_group_caches);
	if (c->id == grp->id)
		atomic64_inc(&zram->stats.group_cache_hits);
	else
		ret = zram_ng_group_decompress(zram, grp, c);
	if (!ret)
		memcpy(dst, c->data + k * PAGE_SIZE, PAGE_SIZE);
	local_unlock(&zram_ng_group_caches.lock);
	if (ret) {
		pr_err_ratelimited("group %llu of slot %u does not decompress: %d\n",
				   grp->id, index, ret);
		return -EIO;
	}
	return 0;
}

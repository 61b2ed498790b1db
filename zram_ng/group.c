// SPDX-License-Identifier: GPL-2.0
/*
 * zram_ng's groups: cold pages compressed together. A compressor that
 * sees one 4 KiB page at a time finds only that page's repetitions; one
 * that sees 16 neighbouring pages of the same program finds theirs too.
 * The grouping pass (grouping.c) compresses up to ZRAM_NG_GROUP_MAX_PAGES
 * idle slots of one leaf as one stream; each slot then points at the group.
 *
 * Storage. The stream is cut into chunks, each an ordinary object of the
 * pool: PAGE_SIZE bytes each (the huge class, no waste), then the rest of
 * the last page in pieces of a power of two down to 256 bytes, then what
 * is left (zram_ng_group_chunk_len()). So the allocator needs no object
 * above a page, and compaction, migration, the shrinker and mem_used_total
 * treat chunks as any object. Why pieces, not the rest in one chunk: a
 * device's groups are few beside its pages, and rests of every size would
 * sit a few to a class in every class's partly empty last zspage, costing
 * far more than their bytes; the pieces fill 4 classes whose objects fit a
 * page exactly (2048 to 256 bytes) and the small classes, which hold many
 * objects a page. The largest piece is below the huge size (more than 3/4
 * of a page in every geometry). Beside the stream a group costs its last
 * piece's rounding and struct zram_ng_group (group_meta_bytes: a handle
 * per chunk, at most 5 more than the pages).
 *
 * Lifetime. A group never changes once made; ->live counts the members
 * pointing at it (and the pass until it has committed). A member leaves
 * when its slot is freed for any reason (overwrite, discard, swap free,
 * reset, regrouping), under that slot's lock; the last one frees the
 * chunks and the group. A reader holds its member's slot lock, so the
 * group outlives the read. Members gone leave dead bytes (group_dead_bytes)
 * until the next pass takes apart a group a quarter gone
 * (zram_ng_group_worth_regrouping()).
 *
 * Writeback (writeback.c) takes a group whole: its stream goes as it is to
 * nr_chunks blocks in a row, and its members move under their locks to a
 * twin (on_bd, chunks[0] the first block, a new id); the group in memory
 * goes with the last of them. A twin's member (ZRAM_NG_WB and
 * ZRAM_NG_GROUPED, ->element the twin) is read in two halves: under its
 * slot lock from the CPU's cache, or it joins the backing device's read
 * epoch (backing.c: the blocks are not reused before the read ends); then,
 * unlocked, the blocks are read (synchronously, into pages of a mempool)
 * and decompressed into the cache. The last member frees the blocks into
 * the quarantine, as any written-back page's block.
 *
 * Reads. A read decompresses the member's whole group into this CPU's cache
 * (struct zram_ng_group_cache, two buffers of the largest group) and copies
 * the page out; the next read of the group on this CPU (a sequential read,
 * swap's readahead) only copies. The cache is keyed by the group's id, a
 * 64-bit sequence number never reused: a group is immutable, so an id found
 * is its data, and a group made at a freed one's address cannot pass for
 * it. The caches are allocated by the first grouping pass of any device
 * (128 KiB a possible CPU with 4 KiB pages) and kept until the module goes.
 * Why the whole group: zstd's decoder stops early only at a block's end,
 * and a unit is one block; a block per page costs memory, and the decoder
 * that can stop is slower per byte, so the random read's tail gains
 * nothing, while one decompression serves the neighbours' reads.
 *
 * Locking: slot lock -> this CPU's group cache (a local lock) -> the
 * allocator's mapping of a chunk (one at a time, unmapped before the
 * next), then -> the compression stream of the group's algorithm. No read
 * sleeps. Counters are atomic64 (zram_ng.h, struct zram_ng_stats).
 */
#define pr_fmt(fmt) "zram_ng: " fmt

#include <linux/bitops.h>
#include <linux/highmem.h>
#include <linux/local_lock.h>
#include <linux/log2.h>
#include <linux/mempool.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/stddef.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "backing.h"
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
/*
 * The pages a read of a written-back group reads its blocks into: a
 * reserve of two groups' worth, so that a swap-in under memory pressure
 * always gets them (GFP_NOIO, waiting for a page to come back at worst).
 */
static mempool_t *zram_ng_group_page_pool;
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
	zram_ng_group_page_pool =
		mempool_create_page_pool(2 * ZRAM_NG_GROUP_MAX_PAGES, 0);
	if (!zram_ng_group_page_pool) {
		ret = -ENOMEM;
		goto out;
	}
	for_each_possible_cpu(cpu) {
		struct zram_ng_group_cache *c = per_cpu_ptr(&zram_ng_group_caches,
							    cpu);

		c->data = kvmalloc(ZRAM_NG_GROUP_MAX_BYTES, GFP_KERNEL);
		c->staging = kvmalloc(ZRAM_NG_GROUP_MAX_BYTES, GFP_KERNEL);
		if (!c->data || !c->staging) {
			zram_ng_group_caches_free();
			mempool_destroy(zram_ng_group_page_pool);
			zram_ng_group_page_pool = NULL;
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
	mempool_destroy(zram_ng_group_page_pool);
	zram_ng_group_page_pool = NULL;
	zram_ng_group_caches_ready = false;
}

/*
 * The smallest piece of a stream's last page (top of the file): the rest
 * below it is one chunk in a class of its own size.
 */
#define ZRAM_NG_GROUP_MIN_PIECE	256

/* How many chunks a stream of @comp_len bytes is stored in. */
static unsigned int zram_ng_group_nr_chunks(u32 comp_len)
{
	u32 rest = comp_len % PAGE_SIZE;

	return comp_len / PAGE_SIZE +
	       hweight32(rest & ~(ZRAM_NG_GROUP_MIN_PIECE - 1)) +
	       !!(rest % ZRAM_NG_GROUP_MIN_PIECE);
}

/*
 * The length of the chunk that starts where @left bytes of a stream are
 * left: a page while a page is left, then the largest power of two in
 * what is left down to ZRAM_NG_GROUP_MIN_PIECE (the rest's set bits,
 * largest first), then all that is left.
 */
static u32 zram_ng_group_chunk_len(u32 left)
{
	if (left >= PAGE_SIZE)
		return PAGE_SIZE;
	if (left >= ZRAM_NG_GROUP_MIN_PIECE)
		return rounddown_pow_of_two(left);
	return left;
}

static size_t zram_ng_group_size(unsigned int nr_chunks)
{
	/* nr_chunks < ZRAM_NG_GROUP_MAX_PAGES + PAGE_SHIFT: no overflow */
	return offsetof(struct zram_ng_group, chunks) +
	       nr_chunks * sizeof(unsigned long);
}

/*
 * The last member gone (under its slot lock, or the pass letting go):
 * the chunks and the group go; a written-back group's blocks go to the
 * quarantine (backing.c), as any written-back page's.
 */
static void zram_ng_group_release(struct zram_ng *zram,
				  struct zram_ng_group *grp)
{
	struct zram_ng_stats *st = &zram->stats;
	unsigned int i;

	if (grp->on_bd) {
		for (i = 0; i < grp->nr_chunks; i++)
			zram_ng_bd_free_block(zram, grp->chunks[0] + i);
		atomic64_dec(&st->wb_groups);
		atomic64_sub(zram_ng_group_size(1), &st->group_meta_bytes);
		kfree(grp);
		return;
	}
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
	unsigned int nr_chunks = zram_ng_group_nr_chunks(comp_len), i;
	struct zram_ng_group *grp;
	u32 off, len;

	if (WARN_ON_ONCE(nr < ZRAM_NG_GROUP_MIN_PAGES ||
			 nr > ZRAM_NG_GROUP_MAX_PAGES || !comp_len ||
			 comp_len > ZRAM_NG_GROUP_MAX_BYTES))
		return ERR_PTR(-EINVAL);
	grp = kzalloc(zram_ng_group_size(nr_chunks), GFP_NOIO);
	if (!grp)
		return ERR_PTR(-ENOMEM);
	grp->comp_len = comp_len;
	for (i = 0, off = 0; i < nr_chunks; i++, off += len) {
		unsigned long handle;

		len = zram_ng_group_chunk_len(comp_len - off);
		handle = zsng_store(zram->mem_pool, stream + off, len,
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
	if (grp->on_bd) {
		atomic64_inc(&st->wb_grouped_pages);
		return;
	}
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

	if (grp->on_bd) {
		atomic64_dec(&st->wb_grouped_pages);
	} else {
		atomic64_dec(&st->grouped_pages);
		atomic64_inc(&st->group_dead_pages);
		atomic64_add(share, &st->group_dead_bytes);
	}
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
	u32 off, len;
	int ret;

	c->id = 0;
	for (i = 0, off = 0; i < grp->nr_chunks; i++, off += len) {
		void *src;

		len = zram_ng_group_chunk_len(grp->comp_len - off);
		src = zsng_map_object(zram->mem_pool, grp->chunks[i], ZSNG_MM_RO);
		memcpy(c->staging + off, src, len);
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

	if (WARN_ON_ONCE(k < 0 || grp->on_bd))
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

/*
 * Writeback of a whole group (writeback.c): the pass holds @grp, taken
 * from a member under its lock, while it writes the stream out unlocked,
 * and lets go with zram_ng_group_committed().
 */
void zram_ng_group_hold(struct zram_ng_group *grp)
{
	atomic_inc(&grp->live);
}

/* @len bytes at @src to byte @off of the run of @pages. */
static void zram_ng_group_to_pages(struct page **pages, u32 off,
				   const void *src, u32 len)
{
	while (len) {
		u32 n = min_t(u32, len, PAGE_SIZE - off % PAGE_SIZE);
		void *dst = kmap_local_page(pages[off / PAGE_SIZE]);

		memcpy(dst + off % PAGE_SIZE, src, n);
		kunmap_local(dst);
		off += n;
		src += n;
		len -= n;
	}
}

/*
 * @grp's stream, one after the other, into @pages (zram_ng_group_blocks()
 * of them), the last one's tail zeroed.
 */
void zram_ng_group_copy_stream(struct zram_ng *zram, struct zram_ng_group *grp,
			       struct page **pages)
{
	unsigned int i, last = zram_ng_group_blocks(grp->comp_len) - 1;
	u32 off, len;
	void *dst;

	for (i = 0, off = 0; i < grp->nr_chunks; i++, off += len) {
		void *src;

		len = zram_ng_group_chunk_len(grp->comp_len - off);
		src = zsng_map_object(zram->mem_pool, grp->chunks[i], ZSNG_MM_RO);
		zram_ng_group_to_pages(pages, off, src, len);
		zsng_unmap_object(zram->mem_pool, grp->chunks[i]);
	}
	off = grp->comp_len - last * PAGE_SIZE;
	dst = kmap_local_page(pages[last]);
	memset(dst + off, 0, PAGE_SIZE - off);
	kunmap_local(dst);
}

/*
 * The written-back twin of @src, whose stream is now in its
 * zram_ng_group_blocks() blocks from @blk on: a group of its own (a new id, since the cache
 * keys by id), no member yet, held by the caller, who moves the members
 * (zram_ng_slot_install_group_wb) then lets go (zram_ng_group_committed).
 * ERR_PTR(-ENOMEM).
 */
struct zram_ng_group *zram_ng_group_wb_make(struct zram_ng *zram,
					    const struct zram_ng_group *src,
					    unsigned long blk)
{
	struct zram_ng_group *grp;

	grp = kzalloc(zram_ng_group_size(1), GFP_NOIO);
	if (!grp)
		return ERR_PTR(-ENOMEM);
	grp->id = atomic64_inc_return(&zram_ng_group_last_id);
	grp->comp = src->comp;
	atomic_set(&grp->live, 1);
	grp->base = src->base;
	grp->comp_len = src->comp_len;
	grp->nr = src->nr;
	grp->nr_chunks = zram_ng_group_blocks(src->comp_len);
	grp->on_bd = true;
	memcpy(grp->offs, src->offs, src->nr);
	grp->chunks[0] = blk;
	atomic64_inc(&zram->stats.wb_groups);
	atomic64_add(zram_ng_group_size(1), &zram->stats.group_meta_bytes);
	return grp;
}

/*
 * The first half of reading slot @index, a member of the written-back
 * @grp, under the slot's lock: 0 when this CPU's cache has the group and
 * the page is copied to @dst (a mapped page), 1 when the blocks must be
 * read: then *@r says what to read (the read has joined the backing
 * device's epoch: the blocks stay until it ends) and the caller unlocks
 * the slot and calls zram_ng_group_bd_read_end(). -EIO: not a member.
 */
int zram_ng_group_bd_read_begin(struct zram_ng *zram, struct zram_ng_group *grp,
				u32 index, void *dst,
				struct zram_ng_group_bd_read *r)
{
	struct zram_ng_group_cache *c;
	int k = zram_ng_group_member(grp, index);
	bool hit;

	if (WARN_ON_ONCE(k < 0 || !grp->on_bd))
		return -EIO;
	local_lock(&zram_ng_group_caches.lock);
	c = this_cpu_ptr(&zram_ng_group_caches);
	hit = c->id == grp->id;
	if (hit)
		memcpy(dst, c->data + k * PAGE_SIZE, PAGE_SIZE);
	local_unlock(&zram_ng_group_caches.lock);
	if (hit) {
		atomic64_inc(&zram->stats.group_cache_hits);
		return 0;
	}
	r->comp = grp->comp;
	r->id = grp->id;
	r->blk = grp->chunks[0];
	r->comp_len = grp->comp_len;
	r->nr = grp->nr;
	r->nr_blocks = grp->nr_chunks;
	r->k = k;
	r->epoch = zram_ng_bd_read_begin(zram);
	return 1;
}

/*
 * The second half, without the slot lock (may sleep): reads the group's
 * blocks, decompresses them into this CPU's cache and copies page r->k
 * into @page. 0 or -EIO. The group itself may be gone by now: only *@r
 * is used, and the blocks stay until the read's epoch ends.
 */
int zram_ng_group_bd_read_end(struct zram_ng *zram,
			      struct zram_ng_group_bd_read *r,
			      struct page *page)
{
	struct page *pages[ZRAM_NG_GROUP_MAX_PAGES];
	struct zram_ng_group_cache *c;
	struct zcomp_ng_strm *zstrm;
	unsigned int i;
	void *src, *dst;
	int ret;

	for (i = 0; i < r->nr_blocks; i++)
		pages[i] = mempool_alloc(zram_ng_group_page_pool, GFP_NOIO);
	ret = zram_ng_bd_read_blocks(zram, pages, r->nr_blocks, r->blk,
				     r->epoch);
	if (ret)
		goto out;
	local_lock(&zram_ng_group_caches.lock);
	c = this_cpu_ptr(&zram_ng_group_caches);
	c->id = 0;
	for (i = 0; i < r->nr_blocks; i++) {
		src = kmap_local_page(pages[i]);
		memcpy(c->staging + i * PAGE_SIZE, src, PAGE_SIZE);
		kunmap_local(src);
	}
	zstrm = zcomp_ng_stream_get(r->comp);
	ret = zcomp_ng_decompress_len(zstrm, c->staging, r->comp_len, c->data,
				      r->nr * PAGE_SIZE);
	zcomp_ng_stream_put(r->comp);
	if (!ret) {
		c->id = r->id;
		atomic64_inc(&zram->stats.group_decomps);
		dst = kmap_local_page(page);
		memcpy(dst, c->data + r->k * PAGE_SIZE, PAGE_SIZE);
		kunmap_local(dst);
	}
	local_unlock(&zram_ng_group_caches.lock);
	if (ret) {
		pr_err_ratelimited("written-back group %llu does not decompress: %d\n",
				   r->id, ret);
		ret = -EIO;
	}
out:
	for (i = 0; i < r->nr_blocks; i++)
		mempool_free(pages[i], zram_ng_group_page_pool);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * zram_ng's grouping pass: cold pages compressed together, a tier no
 * zram has. group_recompress takes idle (or all), non-huge slots holding
 * a compressed object, in index order, and gathers neighbours into units
 * of up to `pages` pages (2 to 16, 16 by default), each within one leaf
 * of the table (256 slots: pages that swap put near each other, which
 * is where related pages are). Each unit is compressed as one stream
 * with a secondary algorithm and stored as a group (group.c); every
 * member slot then points at the group, and its old object is freed.
 *
 *   group_recompress: "[type=idle|all] [pages=N] [max_pages=N]
 *                      [algo=NAME | priority=N]"
 *
 * The algorithm: algo= names a secondary algorithm set with
 * recomp_algorithm, priority= one by priority; neither, the first set
 * (the lowest priority), or zstd at its default level when none is set
 * (zram_ng's own, made by the first pass and kept until reset). A stream
 * longer than a page needs a window as long (zcomp_ng_ctx_create() sizes
 * the pass's compression state for the unit); reads decompress with the
 * algorithm's streams, which take any size.
 *
 * A unit becomes a group only if its stream is smaller than the objects
 * its pages held (they are freed): a unit of pages that do not compress
 * better together stays as it was, and so does a unit of one page.
 * Members of a group with a quarter of its pages gone
 * (zram_ng_group_worth_regrouping) are wanted again, idle or not:
 * grouped anew with their neighbours, they let the old group and its dead
 * bytes go (each counted, for the rule above, as the stream's bytes
 * divided among the members left). Other members are never taken again,
 * by this pass or by writeback or recompression (pp.c).
 *
 * Locking and change: as writeback (writeback.c), one pass at a time
 * (pp.c: -EAGAIN for a second one, whatever its kind), init_lock held
 * for read throughout. A taken slot is marked ZRAM_NG_UNDER_WB (no other
 * pass, no idle marking touches it) and ZRAM_NG_IDLE, which anything
 * that changes the slot clears; it is read without its lock into the
 * unit. The unit is compressed and its group stored without any slot
 * lock (the chunks' allocations may sleep); then each slot is locked
 * again and, if still marked and idle, points at the group, else (it was
 * written, discarded or freed meanwhile) its page in the stream is dead
 * from the start. Every mark is cleared before the pass ends, and a slot
 * that was not idle before the pass is not idle after it.
 *
 * Memory: a group is stored before its members' objects are freed, so a
 * pass may hold one unit's stream (at most 16 pages) beyond mem_limit
 * for that moment. A pass that made groups freed objects in every class
 * its pages were in, which leaves zspages part empty all over the pool:
 * it ends by compacting the pool (after pp_end, so a writeback may start
 * meanwhile), and mem_used_total after it is what the groups cost. That
 * is not left to auto_compact, whose threshold (an eighth of the pool to
 * gain) a pass over a device's cold part often stays below, leaving the
 * holes in the pool until the next compaction. The pass's own buffers
 * (the unit, twice its size of output, the compression state) are
 * allocated for the pass and freed after it.
 */
#define pr_fmt(fmt) "zram_ng: " fmt

#include <linux/device.h>
#include <linux/highmem.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include "features.h"
#include "group.h"
#include "pp.h"
#include "slot.h"
#include "zcomp.h"

/* A unit being gathered, and what the pass needs to make groups of it. */
struct zram_ng_grouping {
	struct zcomp_ng *comp;
	void *cctx;		/* compresses a whole unit */
	void *in;		/* the unit's pages, one after the other */
	void *out;		/* its stream: room for twice the pages */
	struct page *page;	/* one slot, read */
	unsigned int pages;	/* the most a unit has */
	u64 budget;		/* max_pages left */
	unsigned long made;	/* groups made by the pass */
	int err;		/* ends the pass */
	/* the unit: nr slots of the leaf at base */
	u32 base;
	unsigned int nr;
	u32 taken_size;		/* of the slot ->take marked last */
	bool taken_idle;	/* ... and whether it was idle */
	u32 old_bytes;		/* the unit's slots' sizes, added */
	u8 offs[ZRAM_NG_GROUP_MAX_PAGES];
	bool was_idle[ZRAM_NG_GROUP_MAX_PAGES];
};

/*
 * Slot @index, marked by the pass, goes back as it was: unmarked, and
 * not idle if it was not (if it changed meanwhile, it is not idle anyway).
 */
static void zram_ng_grouping_release(struct zram_ng *zram, u32 index,
				     bool was_idle)
{
	if (!slot_lock(zram, index))
		return;
	slot_clear_flag(zram, index, ZRAM_NG_UNDER_WB);
	if (!was_idle)
		slot_clear_flag(zram, index, ZRAM_NG_IDLE);
	slot_unlock(zram, index);
}

/* The unit's slots go back as they were; the unit is empty. */
static void zram_ng_grouping_abandon(struct zram_ng *zram,
				     struct zram_ng_grouping *gp)
{
	unsigned int k;

	for (k = 0; k < gp->nr; k++)
		zram_ng_grouping_release(zram, gp->base + gp->offs[k],
					 gp->was_idle[k]);
	gp->nr = 0;
	gp->old_bytes = 0;
}

/*
 * Points each slot of the unit that is still as the pass read it at
 * @grp, page k of its stream; the others (changed meanwhile) stay as
 * they are now, their pages dead in the group.
 */
static void zram_ng_grouping_commit(struct zram_ng *zram,
				    struct zram_ng_grouping *gp,
				    struct zram_ng_group *grp)
{
	unsigned int k;

	for (k = 0; k < gp->nr; k++) {
		u32 index = gp->base + gp->offs[k];

		/* a marked slot keeps its leaf: the lock is always had */
		if (WARN_ON_ONCE(!slot_lock(zram, index)))
			continue;
		if (slot_allocated(zram, index) &&
		    slot_test_flag(zram, index, ZRAM_NG_UNDER_WB) &&
		    slot_test_flag(zram, index, ZRAM_NG_IDLE)) {
			zram_ng_slot_install_group(zram, index, grp, k);
			if (!gp->was_idle[k])
				slot_clear_flag(zram, index, ZRAM_NG_IDLE);
		}
		slot_clear_flag(zram, index, ZRAM_NG_UNDER_WB);
		slot_unlock(zram, index);
	}
	zram_ng_group_committed(zram, grp);
}

/*
 * The unit gathered so far becomes a group if that saves memory (top of
 * the file); either way the unit is empty after. Sets gp->err when no
 * memory was had for the group.
 */
static void zram_ng_grouping_flush(struct zram_ng *zram,
				   struct zram_ng_grouping *gp)
{
	unsigned int comp_len = 2 * ZRAM_NG_GROUP_MAX_BYTES;
	struct zram_ng_group *grp;
	int ret;

	if (gp->nr < ZRAM_NG_GROUP_MIN_PAGES)
		goto abandon;
	ret = zcomp_ng_compress_ctx(gp->comp, gp->cctx, gp->in,
				    gp->nr * PAGE_SIZE, gp->out, &comp_len);
	if (ret || comp_len >= gp->old_bytes ||
	    comp_len > ZRAM_NG_GROUP_MAX_BYTES)
		goto abandon;
	grp = zram_ng_group_make(zram, gp->comp, gp->out, comp_len, gp->base,
				 gp->offs, gp->nr);
	if (IS_ERR(grp)) {
		gp->err = PTR_ERR(grp);
		goto abandon;
	}
	zram_ng_grouping_commit(zram, gp, grp);
	zram_ng_update_used_max(zram, zsng_get_total_pages(zram->mem_pool));
	gp->made++;
	gp->nr = 0;
	gp->old_bytes = 0;
	return;
abandon:
	zram_ng_grouping_abandon(zram, gp);
}

/* Before every slot: the pass ends on an error or when max_pages is spent. */
static int zram_ng_grouping_next(struct zram_ng *zram, void *priv)
{
	struct zram_ng_grouping *gp = priv;

	if (gp->err)
		return gp->err;
	return gp->budget ? ZRAM_NG_PP_NEXT : ZRAM_NG_PP_STOP;
}

/*
 * What slot @index (locked) costs now, which grouping it would save: its
 * object's size, or for a member of a group worth regrouping its part of the
 * bytes the group's members still hold: once they all leave, the whole
 * stream goes.
 */
static u32 zram_ng_grouping_cost(struct zram_ng *zram, u32 index)
{
	struct zram_ng_group *grp;

	if (!slot_test_flag(zram, index, ZRAM_NG_GROUPED))
		return slot_obj_size(zram, index);
	grp = (struct zram_ng_group *)slot_handle(zram, index);
	return grp->comp_len / max(atomic_read(&grp->live), 1);
}

/* A wanted slot, locked: marked (top of the file), then read unlocked. */
static int zram_ng_grouping_take(struct zram_ng *zram, u32 index, void *priv)
{
	struct zram_ng_grouping *gp = priv;

	gp->taken_size = zram_ng_grouping_cost(zram, index);
	gp->taken_idle = slot_test_flag(zram, index, ZRAM_NG_IDLE);
	slot_set_flag(zram, index, ZRAM_NG_UNDER_WB);
	/* cleared by anything that changes the slot meanwhile */
	slot_set_flag(zram, index, ZRAM_NG_IDLE);
	return ZRAM_NG_PP_PROCESS;
}

/*
 * Slot @index, marked: the unit gathered so far is made a group first if
 * the slot is of another leaf or the unit is full; then the slot's page
 * joins the unit.
 */
static void zram_ng_grouping_process(struct zram_ng *zram, u32 index,
				     void *priv)
{
	struct zram_ng_grouping *gp = priv;
	u32 base = index & ~ZRAM_NG_LEAF_MASK;
	void *src;

	if (gp->nr && (base != gp->base || gp->nr == gp->pages))
		zram_ng_grouping_flush(zram, gp);
	if (gp->err || zram_ng_slot_read(zram, gp->page, index, NULL)) {
		zram_ng_grouping_release(zram, index, gp->taken_idle);
		return;
	}
	src = kmap_local_page(gp->page);
	memcpy(gp->in + gp->nr * PAGE_SIZE, src, PAGE_SIZE);
	kunmap_local(src);
	gp->base = base;
	gp->offs[gp->nr] = index - base;
	gp->was_idle[gp->nr] = gp->taken_idle;
	gp->old_bytes += gp->taken_size;
	gp->nr++;
	gp->budget--;
}

/*
 * The algorithm of the pass (top of the file): NULL and -EINVAL in *@err
 * when @algo or @prio names none set; made now when it is grouping's own
 * zstd (the pass is the only one running: pp.c).
 */
static struct zcomp_ng *zram_ng_grouping_comp(struct zram_ng *zram,
					      const char *algo, u32 prio,
					      int *err)
{
	static const struct zcomp_ng_params none = {
		.level = ZCOMP_NG_NO_LEVEL,
	};
	struct zcomp_ng *comp;
	u32 p;

	*err = -EINVAL;
	if (prio)
		return prio < ZRAM_NG_MAX_COMPS ? zram->comps[prio] : NULL;
	for (p = ZRAM_NG_SECONDARY_COMP; p < ZRAM_NG_MAX_COMPS; p++) {
		if (!zram->comps[p])
			continue;
		if (!algo || !strcmp(zram->recomp_algs[p], algo))
			return zram->comps[p];
	}
	if (algo)
		return NULL;
	/* no secondary algorithm set: zstd */
	if (!zram->group_comp) {
		comp = zcomp_ng_create("zstd", &none);
		if (IS_ERR(comp)) {
			*err = PTR_ERR(comp);
			return NULL;
		}
		zram->group_comp = comp;
	}
	return zram->group_comp;
}

/* The pass's buffers and compression state: 0 or -ENOMEM. */
static int zram_ng_grouping_alloc(struct zram_ng_grouping *gp)
{
	gp->in = vmalloc(ZRAM_NG_GROUP_MAX_BYTES);
	gp->out = vmalloc(2 * ZRAM_NG_GROUP_MAX_BYTES);
	gp->page = alloc_page(GFP_KERNEL);
	gp->cctx = zcomp_ng_ctx_create(gp->comp, gp->pages * PAGE_SIZE);
	if (!gp->in || !gp->out || !gp->page || !gp->cctx)
		return -ENOMEM;
	return zram_ng_group_caches_init();
}

static void zram_ng_grouping_free(struct zram_ng_grouping *gp)
{
	zcomp_ng_ctx_destroy(gp->comp, gp->cctx);
	if (gp->page)
		__free_page(gp->page);
	vfree(gp->out);
	vfree(gp->in);
}

static const char *const zram_ng_group_recompress_keys[] = {
	"type", "pages", "max_pages", "algo", "priority", NULL
};

/*
 * "[type=idle|all] [pages=N] [max_pages=N] [algo=NAME | priority=N]", in
 * any order (top of the file). -EINVAL: another key or type, a key given
 * twice, a key without a value, pages outside 2..16, a priority outside
 * 1..3 or with no algorithm set, an algo that is not a secondary
 * algorithm set, both algo and priority, a device not initialised;
 * kstrtouint()'s or kstrtoull()'s error for a number that is not one;
 * -EAGAIN while another writeback, recompression or grouping pass runs
 * (pp.c); -ENOMEM. A pass ends early when a group finds no memory.
 */
static ssize_t group_recompress_store(struct device *dev,
				      struct device_attribute *attr,
				      const char *buf, size_t len)
{
	struct zram_ng *zram = zram_ng_dev_to_zram(dev);
	struct zram_ng_grouping gp = {
		.pages = ZRAM_NG_GROUP_MAX_PAGES,
		.budget = U64_MAX,
	};
	struct zram_ng_pp_ctl ctl = {
		.want = ZRAM_NG_PP_IDLE,
		.next = zram_ng_grouping_next,
		.take = zram_ng_grouping_take,
		.process = zram_ng_grouping_process,
	};
	struct zram_ng_arg args[ZRAM_NG_MAX_ARGS];
	char *copy, *algo = NULL;
	u32 prio = 0;
	ssize_t ret = 0;
	int i, n, err;

	n = zram_ng_split_args(buf, &copy, args, zram_ng_group_recompress_keys);
	if (n < 0) {
		ret = n;
		goto out_free;
	}
	for (i = 0; i < n; i++) {
		const char *param = args[i].param, *val = args[i].val;

		if (!strcmp(param, "type")) {
			if (!strcmp(val, "idle"))
				ctl.want = ZRAM_NG_PP_IDLE;
			else if (!strcmp(val, "all"))
				ctl.want = 0;
			else
				ret = -EINVAL;
		} else if (!strcmp(param, "pages")) {
			ret = kstrtouint(val, 10, &gp.pages);
			if (!ret && (gp.pages < ZRAM_NG_GROUP_MIN_PAGES ||
				     gp.pages > ZRAM_NG_GROUP_MAX_PAGES))
				ret = -EINVAL;
		} else if (!strcmp(param, "max_pages")) {
			ret = kstrtoull(val, 10, &gp.budget);
		} else if (!strcmp(param, "algo")) {
			algo = args[i].val;
		} else if (!strcmp(param, "priority")) {
			ret = kstrtouint(val, 10, &prio);
			if (!ret && (prio < ZRAM_NG_SECONDARY_COMP ||
				     prio >= ZRAM_NG_MAX_COMPS))
				ret = -EINVAL;
		}
		if (ret)
			goto out_free;
	}
	if (algo && prio) {
		ret = -EINVAL;
		goto out_free;
	}
	ctl.want |= ZRAM_NG_PP_NOT_HUGE | ZRAM_NG_PP_REGROUP;

	down_read(&zram->init_lock);
	if (!zram_ng_init_done(zram)) {
		ret = -EINVAL;
		goto out_unlock;
	}
	ret = zram_ng_pp_begin(zram);
	if (ret)
		goto out_unlock;
	gp.comp = zram_ng_grouping_comp(zram, algo, prio, &err);
	if (!gp.comp) {
		ret = err;
		goto out_end;
	}
	ret = zram_ng_grouping_alloc(&gp);
	if (!ret) {
		ctl.end = zram->disksize >> PAGE_SHIFT;
		ret = zram_ng_pp_scan(zram, &ctl, &gp);
		if (!ret && !gp.err)
			zram_ng_grouping_flush(zram, &gp);
		else
			zram_ng_grouping_abandon(zram, &gp);
		if (!ret)
			ret = gp.err;
	}
	zram_ng_grouping_free(&gp);
out_end:
	zram_ng_pp_end(zram);
	/* what the frees left in the pool: top of the file */
	if (gp.made)
		zsng_compact(zram->mem_pool);
out_unlock:
	up_read(&zram->init_lock);
out_free:
	kfree(copy);
	return ret ? ret : len;
}

/*
 * group_stat, one line, each argument named by its column
 * (tools/lib/stat-columns; the admin guide says what each is).
 */
static ssize_t group_stat_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct zram_ng *zram = zram_ng_dev_to_zram(dev);
	struct zram_ng_stats *st = &zram->stats;
	ssize_t ret;

	down_read(&zram->init_lock);
	ret = sysfs_emit(buf, "%8llu %8llu %8llu %8llu %8llu %8llu %8llu %8llu %8llu %8llu\n",
			 /* groups */
			 (u64)atomic64_read(&st->groups),
			 /* grouped_pages */
			 (u64)atomic64_read(&st->grouped_pages),
			 /* group_bytes */
			 (u64)atomic64_read(&st->group_bytes),
			 /* dead_pages */
			 (u64)atomic64_read(&st->group_dead_pages),
			 /* dead_bytes */
			 (u64)atomic64_read(&st->group_dead_bytes),
			 /* meta_bytes */
			 (u64)atomic64_read(&st->group_meta_bytes),
			 /* decompressions */
			 (u64)atomic64_read(&st->group_decomps),
			 /* cache_hits */
			 (u64)atomic64_read(&st->group_cache_hits),
			 /* wb_groups */
			 (u64)atomic64_read(&st->wb_groups),
			 /* wb_grouped_pages */
			 (u64)atomic64_read(&st->wb_grouped_pages));
	up_read(&zram->init_lock);
	return ret;
}

static DEVICE_ATTR_WO(group_recompress);
static DEVICE_ATTR_RO(group_stat);

static struct attribute *zram_ng_grouping_attrs[] = {
	&dev_attr_group_recompress.attr,
	&dev_attr_group_stat.attr,
	NULL,
};

const struct attribute_group zram_ng_grouping_group = {
	.attrs = zram_ng_grouping_attrs,
};

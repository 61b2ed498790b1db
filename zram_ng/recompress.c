// SPDX-License-Identifier: GPL-2.0
/*
 * zram_ng's recompression: upstream zram's ABI (Linux 6.2 and later,
 * CONFIG_ZRAM_MULTI_COMP), on every kernel zram_ng builds for.
 *
 * recomp_algorithm names up to three secondary algorithms, priorities 1
 * to 3, before disksize; they get streams of their own (zcomp.c) when the
 * device is initialised (slot.c, with the primary's), and are forgotten
 * on reset, as upstream does. recompress then takes the slots a pass asks
 * for (huge, idle, both, or every one; only those at least threshold
 * bytes), picked by the post-processing scan (pp.c) by the rule writeback
 * uses too, and compresses each again with the secondary algorithms in
 * priority order, above the one that compressed it, until one gives a
 * smaller object. The slot records that algorithm's priority (two bits of
 * its flags word), and reads decompress with it. A slot that none of the
 * secondary algorithms shrank is flagged ZRAM_NG_INCOMPRESSIBLE and never
 * tried again, until it is written anew. Same-filled slots, slots on the
 * backing device and slots under writeback are never recompressed.
 *
 * Locking: init_lock is held for read during a pass, so the algorithms
 * and their streams stay. Each slot is recompressed entirely under its
 * lock, as upstream does: decompressed into a page (with the stream of
 * its algorithm), compressed again (taking the secondary algorithm's
 * stream), stored with non-sleeping allocations (the stream pins the
 * task to its CPU), and the old object freed. So a read, write, discard,
 * idle marking or writeback of the slot happens either before or after,
 * and a writeback already past marking the slot ZRAM_NG_UNDER_WB sees
 * it skipped. Order: slot lock -> stream -> allocator, as in slot.c. One
 * pass at a time, writeback's or recompression's: another is refused
 * with -EAGAIN, as upstream 6.12 refuses it (pp.c).
 *
 * "Smaller" is a smaller size class of the pool (zsng_class_index()), as
 * upstream decides it: an object that shrinks within its class saves no
 * memory, and moving it would only leave a hole in its old zspage: kept
 * for any smaller object, recompression can raise mem_used_total.
 * Where zram_ng differs: recompression keeps the slot's access time,
 * which upstream zeroes.
 *
 * algorithm_params (upstream 6.12's, on both kernels) gives any of the
 * algorithms, primary or secondary, a level and a dictionary before
 * disksize: this file parses them; zcomp.c checks them against the
 * algorithm and slot.c keeps them (and frees the dictionary on reset, or
 * when that priority's algorithm changes).
 */
#define pr_fmt(fmt) "zram_ng: " fmt

#include <linux/crypto.h>
#include <linux/device.h>
#include <linux/gfp.h>
#include <linux/highmem.h>
#include <linux/kernel.h>
#include <linux/kernel_read_file.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include "features.h"
#include "pp.h"
#include "slot.h"
#include "zcomp.h"

/* "#N: " and the algorithm list, as comp_algorithm, per priority set. */
static ssize_t recomp_algorithm_show(struct device *dev,
				     struct device_attribute *attr, char *buf)
{
	struct zram_ng *zram = zram_ng_dev_to_zram(dev);
	ssize_t sz = 0;
	u32 prio;

	down_read(&zram->init_lock);
	for (prio = ZRAM_NG_SECONDARY_COMP; prio < ZRAM_NG_MAX_COMPS; prio++) {
		if (!zram->recomp_algs[prio][0])
			continue;
		sz += sysfs_emit_at(buf, sz, "#%u: ", prio);
		sz += zcomp_ng_available_show(zram->recomp_algs[prio], buf, sz);
	}
	up_read(&zram->init_lock);
	return sz;
}

static const char *const zram_ng_recomp_algorithm_keys[] = {
	"algo", "priority", NULL
};

/*
 * "algo=NAME [priority=N]" (priority 1 by default), in any order. -EINVAL:
 * another key, a key given twice, a key without a value, no algo, a
 * priority outside 1..3, an algorithm the crypto API does not have;
 * kstrtoint()'s error for a priority that is not a number;
 * -E2BIG for a name the crypto API could never have; -EBUSY once
 * initialised.
 */
static ssize_t recomp_algorithm_store(struct device *dev,
				      struct device_attribute *attr,
				      const char *buf, size_t len)
{
	struct zram_ng *zram = zram_ng_dev_to_zram(dev);
	struct zram_ng_arg args[ZRAM_NG_MAX_ARGS];
	int prio = ZRAM_NG_SECONDARY_COMP;
	char *copy, *algo = NULL;
	int i, n, ret = 0;

	n = zram_ng_split_args(buf, &copy, args, zram_ng_recomp_algorithm_keys);
	if (n < 0) {
		ret = n;
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (!strcmp(args[i].param, "algo")) {
			algo = args[i].val;
		} else if (!strcmp(args[i].param, "priority")) {
			ret = kstrtoint(args[i].val, 10, &prio);
			if (ret)
				goto out;
		}
	}

	if (!algo || prio < ZRAM_NG_SECONDARY_COMP ||
	    prio >= ZRAM_NG_MAX_COMPS) {
		ret = -EINVAL;
		goto out;
	}
	if (strlen(algo) >= CRYPTO_MAX_ALG_NAME) {
		ret = -E2BIG;
		goto out;
	}
	if (strlen(algo) >= ZRAM_NG_MAX_ALGO_NAME || !zcomp_ng_available(algo)) {
		ret = -EINVAL;
		goto out;
	}

	down_write(&zram->init_lock);
	if (zram_ng_init_done(zram)) {
		ret = -EBUSY;
	} else if (strcmp(zram->recomp_algs[prio], algo)) {
		strscpy(zram->recomp_algs[prio], algo,
			sizeof(zram->recomp_algs[prio]));
		/* another algorithm: the old one's parameters go */
		zram_ng_comp_params_reset(zram, prio);
	}
	up_write(&zram->init_lock);
out:
	kfree(copy);
	return ret ? ret : len;
}

/* The size a @len byte result is stored at: huge ones raw. */
static unsigned int zram_ng_stored_len(struct zram_ng *zram, unsigned int len)
{
	return len >= zram->huge_class_size ? PAGE_SIZE : len;
}

struct zram_ng_recomp {
	struct page *page;	/* the slot, decompressed */
	u64 budget;		/* max_pages left */
	u32 threshold;		/* only objects of this size and more; 0: all */
	u32 prio, prio_max;	/* the priorities to try: [prio, prio_max) */
	u32 nr_secondary;	/* secondary algorithms set */
};

/* Before every slot: the pass ends when max_pages is spent. */
static int zram_ng_recomp_next(struct zram_ng *zram, void *priv)
{
	struct zram_ng_recomp *rc = priv;

	return rc->budget ? ZRAM_NG_PP_NEXT : ZRAM_NG_PP_STOP;
}

/*
 * Recompresses slot @index, locked and wanted (see the top of the file),
 * at least threshold bytes large (the scan saw to that).
 * ZRAM_NG_PP_DONE, or the error that ends the pass: decompression or
 * compression failing, no memory for the new object.
 */
static int zram_ng_recompress_slot(struct zram_ng *zram, u32 index,
				   void *priv)
{
	struct zram_ng_recomp *rc = priv;
	unsigned int old_len, new_len = 0, num_recomps = 0;
	struct zcomp_ng_strm *zstrm = NULL;
	struct zcomp_ng *comp = NULL;
	unsigned long handle;
	ktime_t ac_time;
	bool shrunk = false;
	u32 prio;
	void *src;
	int ret;

	old_len = slot_obj_size(zram, index);
	ret = zram_ng_slot_read_locked(zram, rc->page, index);
	if (ret)
		return ret;
	/* touched: no longer idle for a writeback that follows */
	slot_clear_flag(zram, index, ZRAM_NG_IDLE);

	for (prio = rc->prio; prio < rc->prio_max; prio++) {
		comp = zram->comps[prio];
		/* none set, or the slot already has it or a later one */
		if (!comp || prio <= slot_priority(zram, index))
			continue;

		num_recomps++;
		zstrm = zcomp_ng_stream_get(comp);
		src = kmap_local_page(rc->page);
		ret = zcomp_ng_compress(zstrm, src, &new_len);
		kunmap_local(src);
		if (ret) {
			zcomp_ng_stream_put(comp);
			pr_err("recompression failed, slot %u: %d\n", index,
			       ret);
			return ret;
		}
		new_len = zram_ng_stored_len(zram, new_len);
		shrunk = zsng_class_index(zram->mem_pool, new_len) <
			 zsng_class_index(zram->mem_pool, old_len);
		if (shrunk && (!rc->threshold || new_len < rc->threshold))
			break;	/* keeps the stream: its buffer is stored */
		zcomp_ng_stream_put(comp);
		zstrm = NULL;
	}

	/* not one algorithm tried: nothing spent */
	if (!num_recomps)
		return ZRAM_NG_PP_DONE;
	/* an attempt counts against max_pages, successful or not */
	if (rc->budget)
		rc->budget--;

	if (!zstrm) {
		/* every secondary algorithm failed to shrink it */
		if (!shrunk && num_recomps == rc->nr_secondary)
			slot_set_flag(zram, index, ZRAM_NG_INCOMPRESSIBLE);
		return ZRAM_NG_PP_DONE;
	}

	/* no sleeping, no retry: the old object stays if there is no room */
	handle = zram_ng_obj_store_nosleep(zram, zstrm->buffer, new_len);
	zcomp_ng_stream_put(comp);
	if (IS_ERR_VALUE(handle))
		return PTR_ERR((void *)handle);

	ac_time = slot_ac_time(zram, index);
	zram_ng_slot_install(zram, index, handle, new_len, prio);
	slot_set_ac_time(zram, index, ac_time);
	zram_ng_update_used_max(zram, zsng_get_total_pages(zram->mem_pool));
	return ZRAM_NG_PP_DONE;
}

/*
 * The pass: with max_pages, the largest objects first (pp.c's cut: the
 * sizes the budget covers whole, then the size where it runs out), each
 * attempt freeing the most it can; without, every wanted slot in index
 * order.
 */
static int zram_ng_recompress_run(struct zram_ng *zram,
				  struct zram_ng_pp_ctl *ctl,
				  struct zram_ng_recomp *rc)
{
	struct zram_ng_pp_sizes *sizes = NULL;
	u32 cut = 0, above = 0;
	int ret;

	if (rc->budget != U64_MAX)
		sizes = kzalloc(sizeof(*sizes), GFP_KERNEL);
	if (sizes) {
		zram_ng_pp_count_sizes(zram, ctl, sizes);
		cut = zram_ng_pp_cut(sizes, rc->budget, &above);
		kfree(sizes);
	}
	if (cut) {
		ctl->min_size = max(rc->threshold, above);
		ret = zram_ng_pp_scan(zram, ctl, rc);
		if (ret)
			return ret;
		ctl->min_size = max(rc->threshold, cut);
	}
	return zram_ng_pp_scan(zram, ctl, rc);
}

static const char *const zram_ng_recompress_keys[] = {
	"type", "max_pages", "threshold", "algo", "priority", NULL
};

/*
 * "[type=huge|idle|huge_idle] [threshold=BYTES] [max_pages=N]
 * [algo=NAME | priority=N]", in any order (no type: every slot).
 * -EINVAL: another key or type, a key given twice, a key without a
 * value, a threshold of a page or more (of the huge size
 * or more once initialised), a device not initialised, an algo that is
 * not a secondary algorithm set, no secondary algorithm at the priority
 * asked or above; kstrtouint()'s or kstrtoull()'s error for a number that
 * is not one; -EAGAIN while another writeback or recompression pass
 * runs (pp.c). A pass ends early on an error of recompression.
 */
static ssize_t recompress_store(struct device *dev,
				struct device_attribute *attr,
				const char *buf, size_t len)
{
	struct zram_ng *zram = zram_ng_dev_to_zram(dev);
	struct zram_ng_recomp rc = {
		.budget = U64_MAX,
		.prio = ZRAM_NG_SECONDARY_COMP,
		.prio_max = ZRAM_NG_MAX_COMPS,
	};
	struct zram_ng_pp_ctl ctl = {
		.next = zram_ng_recomp_next,
		.take = zram_ng_recompress_slot,
	};
	struct zram_ng_arg args[ZRAM_NG_MAX_ARGS];
	char *copy, *param, *val, *algo = NULL;
	unsigned int mode = 0;
	u32 prio, last = 0;
	ssize_t ret = 0;
	int i, n;

	n = zram_ng_split_args(buf, &copy, args, zram_ng_recompress_keys);
	if (n < 0) {
		ret = n;
		goto out_free;
	}
	for (i = 0; i < n; i++) {
		param = args[i].param;
		val = args[i].val;
		if (!strcmp(param, "type")) {
			if (!strcmp(val, "idle"))
				mode = ZRAM_NG_PP_IDLE;
			else if (!strcmp(val, "huge"))
				mode = ZRAM_NG_PP_HUGE;
			else if (!strcmp(val, "huge_idle"))
				mode = ZRAM_NG_PP_IDLE | ZRAM_NG_PP_HUGE;
			else
				ret = -EINVAL;
		} else if (!strcmp(param, "max_pages")) {
			ret = kstrtoull(val, 10, &rc.budget);
		} else if (!strcmp(param, "threshold")) {
			ret = kstrtouint(val, 10, &rc.threshold);
		} else if (!strcmp(param, "algo")) {
			algo = val;
		} else if (!strcmp(param, "priority")) {
			ret = kstrtouint(val, 10, &rc.prio);
			/* the primary is no recompression algorithm */
			if (!ret && rc.prio == ZRAM_NG_PRIMARY_COMP)
				rc.prio = ZRAM_NG_SECONDARY_COMP;
			rc.prio_max = rc.prio + 1;
		}
		if (ret)
			goto out_free;
	}
	if (rc.threshold >= PAGE_SIZE) {
		ret = -EINVAL;
		goto out_free;
	}

	down_read(&zram->init_lock);
	if (!zram_ng_init_done(zram) ||
	    rc.threshold >= zram->huge_class_size) {
		ret = -EINVAL;
		goto out_unlock;
	}

	if (algo) {
		for (prio = rc.prio; prio < ZRAM_NG_MAX_COMPS; prio++)
			if (zram->comps[prio] &&
			    !strcmp(zram->recomp_algs[prio], algo))
				break;
		if (prio >= ZRAM_NG_MAX_COMPS) {
			ret = -EINVAL;
			goto out_unlock;
		}
		rc.prio = prio;
		rc.prio_max = prio + 1;
	}

	for (prio = ZRAM_NG_SECONDARY_COMP; prio < ZRAM_NG_MAX_COMPS; prio++) {
		if (zram->comps[prio]) {
			rc.nr_secondary++;
			last = prio;
		}
	}
	rc.prio_max = min(rc.prio_max, last + 1);
	if (rc.prio >= rc.prio_max) {
		ret = -EINVAL;
		goto out_unlock;
	}

	rc.page = alloc_page(GFP_KERNEL);
	if (!rc.page) {
		ret = -ENOMEM;
		goto out_unlock;
	}

	/* never one no algorithm shrank: it is known incompressible */
	ctl.want = mode | ZRAM_NG_PP_COMPRESSIBLE;
	ctl.min_size = rc.threshold;
	ctl.end = zram->disksize >> PAGE_SHIFT;
	ret = zram_ng_pp_begin(zram);
	if (!ret) {
		ret = zram_ng_recompress_run(zram, &ctl, &rc);
		zram_ng_pp_end(zram);
	}
	__free_page(rc.page);

out_unlock:
	up_read(&zram->init_lock);
out_free:
	kfree(copy);
	return ret ? ret : len;
}

static const char *const zram_ng_algorithm_params_keys[] = {
	"priority", "algo", "level", "dict", NULL
};

/*
 * A dictionary file's size limit: zstd --train makes 110 KiB by default;
 * a dictionary much larger than the pages it helps is a mistake.
 */
#define ZRAM_NG_MAX_DICT	(1 << 20)

/* The algorithm of priority @prio, or NULL where none is set. */
static const char *zram_ng_prio_algo(struct zram_ng *zram, u32 prio)
{
	if (prio == ZRAM_NG_PRIMARY_COMP)
		return zram->compressor;
	return zram->recomp_algs[prio][0] ? zram->recomp_algs[prio] : NULL;
}

/*
 * Reads dictionary file @path into *@dict (vmalloc'ed): its size, or
 * -errno (-EFBIG beyond ZRAM_NG_MAX_DICT, -EINVAL for an empty file).
 */
static ssize_t zram_ng_read_dict(struct zram_ng *zram, const char *path,
				 void **dict)
{
	size_t size = 0;
	ssize_t ret;

	*dict = NULL;
	ret = kernel_read_file_from_path(path, 0, dict, ZRAM_NG_MAX_DICT,
					 &size, READING_POLICY);
	if (ret >= 0 && size > ZRAM_NG_MAX_DICT)
		ret = -EFBIG;
	if (ret == 0)
		ret = -EINVAL;
	if (ret < 0) {
		vfree(*dict);
		*dict = NULL;
		pr_warn("%s: algorithm_params: dictionary %s: %zd\n",
			zram->disk->disk_name, path, ret);
	}
	return ret;
}

/*
 * "[priority=N|algo=NAME] [level=L] [dict=PATH]", before disksize: sets
 * the level and the dictionary of one algorithm (by priority, 0 the
 * primary, or by name; the primary when neither is given), replacing what
 * was set for it (a key left out goes back to the default). -EINVAL for
 * another key, a key twice, a priority or name that names no algorithm
 * set, both naming different ones, a level the algorithm does not have;
 * -EOPNOTSUPP for a level or dictionary the algorithm cannot take (lzo,
 * 842; a zstd dictionary before Linux 6.12); the dictionary file's read
 * error (-ENOENT, -EFBIG beyond 1 MiB); -EBUSY once initialised. A line in
 * the kernel log says which.
 */
static ssize_t algorithm_params_store(struct device *dev,
				      struct device_attribute *attr,
				      const char *buf, size_t len)
{
	struct zram_ng *zram = zram_ng_dev_to_zram(dev);
	struct zcomp_ng_params params = { .level = ZCOMP_NG_NO_LEVEL };
	int level = ZCOMP_NG_NO_LEVEL;
	struct zram_ng_arg args[ZRAM_NG_MAX_ARGS];
	char *copy, *algo = NULL, *path = NULL;
	int i, n, prio = -1, ret = 0;
	const char *name;
	void *dict = NULL;
	ssize_t size;

	n = zram_ng_split_args(buf, &copy, args, zram_ng_algorithm_params_keys);
	ret = n < 0 ? n : 0;
	for (i = 0; i < n && !ret; i++) {
		if (!strcmp(args[i].param, "priority"))
			ret = kstrtoint(args[i].val, 10, &prio) ?:
			      (prio < 0 ? -EINVAL : 0);
		else if (!strcmp(args[i].param, "level"))
			ret = kstrtoint(args[i].val, 10, &level) ?:
			      /* INT_MIN stands for "none" */
			      (level == ZCOMP_NG_NO_LEVEL ? -EINVAL : 0);
		else if (!strcmp(args[i].param, "algo"))
			algo = args[i].val;
		else
			path = args[i].val;
	}
	if (ret)
		goto out;
	params.level = level;

	down_write(&zram->init_lock);
	if (zram_ng_init_done(zram)) {
		ret = -EBUSY;
		goto out_unlock;
	}
	if (algo) {
		for (i = ZRAM_NG_PRIMARY_COMP; i < ZRAM_NG_MAX_COMPS; i++) {
			name = zram_ng_prio_algo(zram, i);
			if (name && !strcmp(name, algo))
				break;
		}
		if (i == ZRAM_NG_MAX_COMPS || (prio >= 0 && prio != i)) {
			ret = -EINVAL;
			goto out_unlock;
		}
		prio = i;
	}
	if (prio < 0)
		prio = ZRAM_NG_PRIMARY_COMP;
	name = prio < ZRAM_NG_MAX_COMPS ? zram_ng_prio_algo(zram, prio) : NULL;
	if (!name) {
		ret = -EINVAL;
		goto out_unlock;
	}
	if (path) {
		size = zram_ng_read_dict(zram, path, &dict);
		if (size < 0) {
			ret = size;
			goto out_unlock;
		}
		params.dict = dict;
		params.dict_size = size;
	}
	ret = zcomp_ng_check(name, &params);
	if (ret) {
		pr_warn("%s: algorithm_params: %s takes no %s%s (%d)\n",
			zram->disk->disk_name, name,
			params.level != ZCOMP_NG_NO_LEVEL ? "such level" : "",
			dict ? (params.level != ZCOMP_NG_NO_LEVEL ?
				" or dictionary" : "dictionary") : "",
			ret);
		vfree(dict);
		goto out_unlock;
	}
	zram_ng_comp_params_reset(zram, prio);
	zram->comp_params[prio] = params;
out_unlock:
	up_write(&zram->init_lock);
out:
	kfree(copy);
	return ret ? ret : len;
}

/* One line per algorithm with parameters: "#PRIO: ALGO level=L dict=BYTES". */
static ssize_t algorithm_params_show(struct device *dev,
				     struct device_attribute *attr, char *buf)
{
	struct zram_ng *zram = zram_ng_dev_to_zram(dev);
	const struct zcomp_ng_params *p;
	const char *name;
	ssize_t sz = 0;
	u32 prio;

	down_read(&zram->init_lock);
	for (prio = 0; prio < ZRAM_NG_MAX_COMPS; prio++) {
		p = &zram->comp_params[prio];
		name = zram_ng_prio_algo(zram, prio);
		if (!name || (p->level == ZCOMP_NG_NO_LEVEL && !p->dict))
			continue;
		sz += sysfs_emit_at(buf, sz, "#%u: %s", prio, name);
		if (p->level != ZCOMP_NG_NO_LEVEL)
			sz += sysfs_emit_at(buf, sz, " level=%d", p->level);
		if (p->dict)
			sz += sysfs_emit_at(buf, sz, " dict=%zu", p->dict_size);
		sz += sysfs_emit_at(buf, sz, "\n");
	}
	up_read(&zram->init_lock);
	return sz;
}

static DEVICE_ATTR_RW(recomp_algorithm);
static DEVICE_ATTR_RW(algorithm_params);
static DEVICE_ATTR_WO(recompress);

static struct attribute *zram_ng_recomp_attrs[] = {
	&dev_attr_recomp_algorithm.attr,
	&dev_attr_recompress.attr,
	&dev_attr_algorithm_params.attr,
	NULL,
};

const struct attribute_group zram_ng_recomp_group = {
	.attrs = zram_ng_recomp_attrs,
};

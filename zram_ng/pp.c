// SPDX-License-Identifier: GPL-2.0
/*
 * zram_ng's post-processing scan: the one walk over the slots for
 * writeback (writeback.c) and recompression (recompress.c), with the one
 * rule of which slots a pass wants, after upstream zram's zram_pp_ctl
 * (Linux 6.12). A pass describes what it wants (struct zram_ng_pp_ctl:
 * idle, huge, not known incompressible, at least so large) and what it
 * does with a slot, and the scan does the rest.
 *
 * Unlike upstream, which collects the wanted slots first and processes
 * them after, each slot is looked at and processed in turn, in index
 * order, as Linux 6.1's zram does and as zram_ng always has: ->next runs
 * before every slot of the range, wanted or not, so a writeback that
 * runs out of writeback_limit or of backing blocks stops at the next
 * slot (-EIO, -ENOSPC), whether that one is wanted or not.
 */
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "group.h"
#include "pp.h"
#include "slot.h"

/*
 * Splits the "key=value ..." written to an attribute (recompress,
 * recomp_algorithm, algorithm_params, group_recompress) into @args (at
 * most ZRAM_NG_MAX_ARGS), in a copy of @buf the caller kfree()s, returned
 * in *@copy even on failure. @keys (NULL-terminated) are the keys the
 * attribute takes. The number of pairs, or -EINVAL for a key without a
 * value, a key not in @keys, a key given twice (as the newest upstream
 * refuses them: which one would count is a guess) or too many pairs;
 * -ENOMEM.
 */
int zram_ng_split_args(const char *buf, char **copy, struct zram_ng_arg *args,
		       const char *const *keys)
{
	char *rest;
	int n = 0, i;

	*copy = kstrdup(buf, GFP_KERNEL);
	if (!*copy)
		return -ENOMEM;
	rest = skip_spaces(*copy);
	while (*rest) {
		if (n == ZRAM_NG_MAX_ARGS)
			return -EINVAL;
		rest = next_arg(rest, &args[n].param, &args[n].val);
		if (!args[n].val || !*args[n].val)
			return -EINVAL;
		for (i = 0; keys[i]; i++)
			if (!strcmp(args[n].param, keys[i]))
				break;
		if (!keys[i])
			return -EINVAL;
		for (i = 0; i < n; i++)
			if (!strcmp(args[n].param, args[i].param))
				return -EINVAL;
		n++;
	}
	return n;
}

/* Starts a pass on @zram (initialised, init_lock held): 0 or -EAGAIN. */
int zram_ng_pp_begin(struct zram_ng *zram)
{
	return atomic_xchg(&zram->pp_running, 1) ? -EAGAIN : 0;
}

void zram_ng_pp_end(struct zram_ng *zram)
{
	atomic_set_release(&zram->pp_running, 0);
}

/*
 * Whether slot @index (locked) is one @ctl wants: it holds a compressed
 * object (neither same-filled nor on the backing device) or is a member
 * of a group ZRAM_NG_PP_REGROUP takes, no pass has it, and it is what
 * ->want and ->min_size ask. The member keeps its group alive while its
 * lock is held.
 */
static bool zram_ng_pp_wanted(struct zram_ng *zram, u32 index,
			      const struct zram_ng_pp_ctl *ctl)
{
	if (!slot_allocated(zram, index) ||
	    slot_test_flag(zram, index, ZRAM_NG_SAME) ||
	    slot_test_flag(zram, index, ZRAM_NG_WB) ||
	    slot_test_flag(zram, index, ZRAM_NG_UNDER_WB))
		return false;
	if (slot_test_flag(zram, index, ZRAM_NG_GROUPED)) {
		/* whether idle or not: its group's dead bytes are wanted */
		if ((ctl->want & ZRAM_NG_PP_REGROUP) &&
		    zram_ng_group_worth_regrouping((struct zram_ng_group *)
						   slot_handle(zram, index)))
			return slot_obj_size(zram, index) >= ctl->min_size;
		if (!(ctl->want & ZRAM_NG_PP_GROUPS))
			return false;
	}
	if ((ctl->want & ZRAM_NG_PP_NOT_HUGE) &&
	    slot_test_flag(zram, index, ZRAM_NG_HUGE))
		return false;
	if ((ctl->want & ZRAM_NG_PP_COMPRESSIBLE) &&
	    slot_test_flag(zram, index, ZRAM_NG_INCOMPRESSIBLE))
		return false;
	if ((ctl->want & ZRAM_NG_PP_INCOMPRESSIBLE) &&
	    !slot_test_flag(zram, index, ZRAM_NG_INCOMPRESSIBLE))
		return false;
	if ((ctl->want & ZRAM_NG_PP_IDLE) &&
	    !slot_test_flag(zram, index, ZRAM_NG_IDLE))
		return false;
	if ((ctl->want & ZRAM_NG_PP_HUGE) &&
	    !slot_test_flag(zram, index, ZRAM_NG_HUGE))
		return false;
	return slot_obj_size(zram, index) >= ctl->min_size;
}

/*
 * Walks the slots [ctl->first, ctl->end) of @zram, which the caller keeps
 * initialised (init_lock held for read), and hands each wanted one to
 * ctl->take under its lock, then to ctl->process without it if ->take
 * asks. 0, or the error of ->next or ->take that ended the scan.
 */
int zram_ng_pp_scan(struct zram_ng *zram, const struct zram_ng_pp_ctl *ctl,
		    void *priv)
{
	u32 index;
	int ret;

	for (index = ctl->first; index < ctl->end; index++) {
		u32 next;

		if (ctl->next) {
			ret = ctl->next(zram, priv);
			if (ret)
				return ret == ZRAM_NG_PP_STOP ? 0 : ret;
		}

		/*
		 * Slots without a leaf are empty: skipped a leaf at a time,
		 * with one ->next for the run (it says the same for each)
		 */
		next = zram_ng_slot_next_present(zram, index, ctl->end);
		if (next != index) {
			index = next - 1;
			cond_resched();
			continue;
		}
		if (!slot_lock(zram, index))
			continue;
		ret = ZRAM_NG_PP_DONE;
		if (zram_ng_pp_wanted(zram, index, ctl))
			ret = ctl->take(zram, index, priv);
		slot_unlock(zram, index);
		if (ret < 0)
			return ret;
		if (ret == ZRAM_NG_PP_PROCESS)
			ctl->process(zram, index, priv);
		cond_resched();
	}
	return 0;
}

static int zram_ng_pp_count_one(struct zram_ng *zram, u32 index, void *priv)
{
	struct zram_ng_pp_sizes *sizes = priv;
	size_t size = slot_obj_size(zram, index);

	sizes->count[size * (ZRAM_NG_PP_SIZE_BUCKETS - 1) / PAGE_SIZE]++;
	return ZRAM_NG_PP_DONE;
}

/*
 * Adds the wanted slots of [ctl->first, ctl->end) to @sizes by object
 * size (pp.h), taking nothing: ctl's want and min_size only.
 */
void zram_ng_pp_count_sizes(struct zram_ng *zram,
			    const struct zram_ng_pp_ctl *ctl,
			    struct zram_ng_pp_sizes *sizes)
{
	struct zram_ng_pp_ctl count = {
		.first = ctl->first,
		.end = ctl->end,
		.want = ctl->want,
		.min_size = ctl->min_size,
		.take = zram_ng_pp_count_one,
	};

	zram_ng_pp_scan(zram, &count, sizes);
}

/*
 * Where a pass bounded to @budget slots, largest first, cuts the slots
 * counted in @sizes: 0 when all of them fit (no cut: index order), else
 * the lower bound of the bucket where the budget runs out, and in *@above
 * that of the bucket above, whose slots and larger ones all fit. The pass
 * then takes the slots from *@above up, then from the cut up.
 */
u32 zram_ng_pp_cut(const struct zram_ng_pp_sizes *sizes, u64 budget,
		   u32 *above)
{
	unsigned int b = ZRAM_NG_PP_SIZE_BUCKETS;
	u64 total = 0;

	*above = 0;
	while (b-- > 0) {
		total += sizes->count[b];
		if (total > budget) {
			*above = zram_ng_pp_bucket_size(b + 1);
			return zram_ng_pp_bucket_size(b);
		}
	}
	return 0;
}

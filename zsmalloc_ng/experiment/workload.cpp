// SPDX-License-Identifier: GPL-2.0
/* The steps the scenario runner, the experiment and the self-check share. */
#include "workload.hpp"

namespace zsng
{
namespace workload
{
void stamp_object(Pool *pool, ulong handle, u64 seed, ulong len)
{
	stamp_fill(pool->map(handle, MapMode::WO), len, seed);
	pool->unmap(handle);
}

bool object_intact(Pool *pool, ulong handle, u64 seed, ulong len)
{
	bool ok = stamp_first_bad(pool->map(handle, MapMode::RO), len, seed) <
		  0;

	pool->unmap(handle);
	return ok;
}

static Oracle oracle(const u32 *inuse, u32 nz, u32 opz, u32 ppz, u32 *hist)
{
	Oracle o = { 0, 0 };
	ulong used = 0;
	u32 keep, drop;

	for (u32 i = 0; i <= opz; i++)
		hist[i] = 0;
	for (u32 i = 0; i < nz; i++) {
		hist[inuse[i]]++;
		used += inuse[i];
	}
	keep = (u32)((used + opz - 1) / opz);
	drop = nz - keep;
	o.pages = (ulong)drop * ppz;
	for (u32 i = 0; i <= opz && drop; i++) {
		u32 take = min_of(drop, hist[i]);

		o.moves += (ulong)take * i;
		drop -= take;
	}
	return o;
}

static void free_all(Pool *pool, ulong *handles, u32 n)
{
	for (u32 k = 0; k < n; k++) {
		if (handles[k])
			pool->free(handles[k]);
		handles[k] = 0;
	}
}

/* Object k is stamped with seed k. */
static bool alloc_all(Pool *pool, const ClassWork &w)
{
	for (u32 k = 0; k < w.nr_objs; k++) {
		ulong h = pool->malloc(w.len, ZSNG_GFP_KERNEL);

		if (zsng_is_error(h))
			return false;
		w.handles[k] = h;
		stamp_object(pool, h, k, w.len);
	}
	return true;
}

int fragment_and_compact(Pool *pool, const ClassWork &w, Outcome *out)
{
	ClassStats cs;
	u32 nz;

	if (!alloc_all(pool, w)) {
		free_all(pool, w.handles, w.nr_objs);
		return -ZSNG_ENOMEM;
	}
	for (u32 k = 0; k < w.nr_objs; k++) {
		if (w.freed[k]) {
			pool->free(w.handles[k]);
			w.handles[k] = 0;
		}
	}
	pool->class_stats(w.class_idx, &cs);
	nz = pool->class_inuse_counts(w.class_idx, w.inuse, w.max_zspages);
	out->oracle = oracle(w.inuse, min_of(nz, w.max_zspages),
			     cs.objs_per_zspage, cs.pages_per_zspage, w.hist);
	out->pages_freed = pool->compact_class(w.class_idx);
	pool->class_stats(w.class_idx, &out->cs);

	out->verified = pool->check_consistency();
	for (u32 k = 0; k < w.nr_objs; k++) {
		if (w.handles[k] &&
		    !object_intact(pool, w.handles[k], k, w.len))
			out->verified = false;
	}
	free_all(pool, w.handles, w.nr_objs);
	return 0;
}

} // namespace workload
} // namespace zsng

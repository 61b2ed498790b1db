// SPDX-License-Identifier: GPL-2.0
/*
 * The fragmentation experiment (Documentation/compaction-experiment.rst):
 * for every size class, fill zspages_per_class zspages, free a subset
 * chosen by a pattern and a seed, compact that class alone, and report
 * objs_moved and pages freed beside the oracle.
 *
 * Everything random comes from splitmix64 seeded by (seed, pattern, class),
 * so a seed gives the same fragmentation on every run and every machine.
 * Classes are independent (compaction never crosses classes), so each class
 * is built, measured and torn down on its own to bound memory.
 */
#include "zsng_core.h"
#include "zsng_experiment.h"
#include "workload.hpp"

using namespace zsng;
using namespace zsng::workload;

namespace
{
struct Rng {
	u64 state;

	u64 next()
	{
		u64 z = (state += 0x9e3779b97f4a7c15ULL);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		return z ^ (z >> 31);
	}
	/* Uniform in [0, n). */
	u64 below(u64 n)
	{
		return n ? next() % n : 0;
	}
};

enum class Pattern { Random, Strided, Clustered, Ageing, Published, Nr };

const char *const kPatternNames[] = { "random", "strided", "clustered",
				      "ageing", "published" };
static_assert(sizeof(kPatternNames) / sizeof(kPatternNames[0]) ==
	      (int)Pattern::Nr);

bool pattern_from_name(const char *name, Pattern *out)
{
	for (int i = 0; i < (int)Pattern::Nr; i++) {
		if (str_eq(name, kPatternNames[i])) {
			*out = (Pattern)i;
			return true;
		}
	}
	return false;
}

/*
 * Marks in @freed which of @n objects (in allocation order, opz per zspage)
 * the pattern frees.
 */
void choose_frees(Pattern pat, Rng &rng, u32 n, u32 opz, u8 *freed)
{
	switch (pat) {
	case Pattern::Random: /* each object with probability 1/2 */
		for (u32 k = 0; k < n; k++)
			freed[k] = rng.below(2);
		break;
	case Pattern::Strided: { /* keep every s-th object, s drawn once */
		u32 s = 2 + (u32)rng.below(4);
		u32 phase = (u32)rng.below(s);

		for (u32 k = 0; k < n; k++)
			freed[k] = (k % s) != phase;
		break;
	}
	case Pattern::Clustered: /* runs of frees and keeps, up to 2 zspages */
		for (u32 k = 0; k < n;) {
			u32 keep = 1 + (u32)rng.below(2 * opz);
			u32 drop = 1 + (u32)rng.below(2 * opz);

			for (; keep && k < n; keep--)
				freed[k++] = 0;
			for (; drop && k < n; drop--)
				freed[k++] = 1;
		}
		break;
	case Pattern::Ageing: /* swap-like: old objects are freed more often */
		for (u32 k = 0; k < n; k++)
			freed[k] = rng.below(1000) < 900 - 800ULL * k / n;
		break;
	case Pattern::Published: /* per zspage a free ratio in [0,1): ~half */
	case Pattern::Nr:
		for (u32 z = 0; z * opz < n; z++) {
			u64 per_mille = rng.below(1000);

			for (u32 k = z * opz; k < n && k < (z + 1) * opz; k++)
				freed[k] = rng.below(1000) < per_mille;
		}
		break;
	}
}

struct Totals {
	ulong moved, freed, oracle_moved, oracle_freed;
};

/* The work arrays of one class, released when it goes out of scope. */
struct ClassArrays {
	ulong *handles = nullptr;
	u8 *freed = nullptr;
	u32 *inuse = nullptr;
	u32 *hist = nullptr;

	bool alloc(u32 nr_objs, u32 zspages, u32 opz)
	{
		handles = zalloc_array<ulong>(nr_objs);
		freed = zalloc_array<u8>(nr_objs);
		inuse = zalloc_array<u32>(zspages);
		hist = zalloc_array<u32>(opz + 1);
		return handles && freed && inuse && hist;
	}
	~ClassArrays()
	{
		zsng_svc_free(handles);
		zsng_svc_free(freed);
		zsng_svc_free(inuse);
		zsng_svc_free(hist);
	}
};

struct Run {
	Pattern pattern;
	Policy policy;
	ulong seed;
	u32 zspages;
	Totals totals;
	zsng_emit_fn emit;
	void *ctx;
};

/* One non-huge class of a fresh pool: fragment, compact, report. */
int measure_class(Run &run, Pool *pool, u32 ci, const ClassStats &cs)
{
	const u32 opz = cs.objs_per_zspage;
	ClassArrays a;
	ClassWork w;
	Outcome o;
	int ret;

	w.nr_objs = run.zspages * opz;
	if (!a.alloc(w.nr_objs, run.zspages, opz))
		return -ZSNG_ENOMEM;
	Rng rng{ run.seed * 0x100000001b3ULL ^ ((u64)run.pattern << 32) ^
		 cs.size };
	choose_frees(run.pattern, rng, w.nr_objs, opz, a.freed);
	w.class_idx = ci;
	w.len = cs.size - kObjHeaderSize;
	w.freed = a.freed;
	w.handles = a.handles;
	w.inuse = a.inuse;
	w.max_zspages = run.zspages;
	w.hist = a.hist;

	ret = fragment_and_compact(pool, w, &o);
	if (ret)
		return ret;
	Line l;
	l << "class=" << (ulong)o.cs.size
	  << " pages_per_zspage=" << (ulong)o.cs.pages_per_zspage
	  << " objs_per_zspage=" << (ulong)o.cs.objs_per_zspage
	  << " pattern=" << kPatternNames[(int)run.pattern]
	  << " policy=" << policy_name(run.policy)
	  << " objs_moved=" << o.cs.objs_moved
	  << " pages_freed=" << o.pages_freed
	  << " oracle_moved=" << o.oracle.moves
	  << " oracle_pages=" << o.oracle.pages
	  << " verified=" << (ulong)o.verified;
	run.emit(run.ctx, l.str());
	run.totals.moved += o.cs.objs_moved;
	run.totals.freed += o.pages_freed;
	run.totals.oracle_moved += o.oracle.moves;
	run.totals.oracle_freed += o.oracle.pages;
	return o.verified ? 0 : -ZSNG_EINVAL;
}

int run_class(Run &run, u32 ci)
{
	int ret;
	Pool *pool = Pool::create(run.policy, zsng_svc_max_pages_per_zspage(),
				  0, &ret);
	ClassStats cs;

	if (!pool)
		return ret;
	pool->class_stats(ci, &cs);
	ret = cs.huge ? 0 : measure_class(run, pool, ci, cs);
	pool->destroy();
	return ret;
}

/* Pool::create() checks the policy; the probe also counts the classes. */
int count_classes(Policy policy, u32 *nr_classes)
{
	int ret;
	Pool *probe =
		Pool::create(policy, zsng_svc_max_pages_per_zspage(), 0, &ret);

	if (!probe)
		return ret;
	*nr_classes = probe->nr_classes();
	probe->destroy();
	return 0;
}

} // namespace

extern "C" int zsng_experiment_run(const char *pattern, int policy,
				   unsigned long seed,
				   unsigned int zspages_per_class,
				   zsng_emit_fn emit, void *ctx)
{
	Run run = {};
	u32 nr_classes = 0;
	int ret;

	run.policy = (Policy)policy;
	run.seed = seed;
	run.zspages = zspages_per_class;
	run.emit = emit;
	run.ctx = ctx;
	if (!pattern_from_name(pattern, &run.pattern) ||
	    zspages_per_class < ZSNG_EXPERIMENT_MIN_ZSPAGES ||
	    zspages_per_class > ZSNG_EXPERIMENT_MAX_ZSPAGES)
		return -ZSNG_EINVAL;
	ret = count_classes(run.policy, &nr_classes);
	if (ret)
		return ret;
	for (u32 ci = 0; ci < nr_classes && !ret; ci++) {
		ret = run_class(run, ci);
		zsng_svc_cond_resched();
	}
	Line l;
	l << "total pattern=" << pattern << " policy=" << policy_name(policy)
	  << " objs_moved=" << run.totals.moved
	  << " pages_freed=" << run.totals.freed
	  << " oracle_moved=" << run.totals.oracle_moved
	  << " oracle_pages=" << run.totals.oracle_freed;
	emit(ctx, l.str());
	return ret;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Deterministic workloads over the allocator core, compiled into both the
 * kernel module and the userspace build so that the two can be compared
 * count for count:
 *
 *  - the boot self-check;
 *  - small scenarios whose compaction counts are computed by hand in
 *    zsmalloc_ng/tests/test_compaction.cpp;
 *  - the fragmentation experiment (Documentation/compaction-experiment.rst):
 *    for every size class, fill zspages_per_class zspages, free a subset
 *    chosen by a pattern and a seed, compact that class alone, and report
 *    objs_moved and pages freed beside the oracle.
 *
 * Everything random comes from splitmix64 seeded by (seed, pattern, class),
 * so a seed gives the same fragmentation on every run and every machine.
 * Classes are independent (compaction never crosses classes), so each class
 * is built, measured and torn down on its own to bound memory.
 */
#include "zsng_core.h"
#include "pool.hpp"

using namespace zsng;

namespace
{
/* A line for emit(): text and decimal numbers, no libc. */
class Line {
    public:
	Line &operator<<(const char *s)
	{
		while (*s && len_ < sizeof(buf_) - 1)
			buf_[len_++] = *s++;
		buf_[len_] = 0;
		return *this;
	}
	Line &operator<<(ulong v)
	{
		char tmp[24];
		u32 n = 0;

		do {
			tmp[n++] = (char)('0' + v % 10);
			v /= 10;
		} while (v);
		while (n && len_ < sizeof(buf_) - 1)
			buf_[len_++] = tmp[--n];
		buf_[len_] = 0;
		return *this;
	}
	const char *str() const
	{
		return buf_;
	}

    private:
	char buf_[256] = {};
	u32 len_ = 0;
};

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

/* Stamps an object with its number so that moves can be verified. */
bool write_stamp(Pool *pool, ulong h, ulong stamp, ulong len)
{
	char *p = static_cast<char *>(pool->map(h, MapMode::WO));

	for (ulong i = 0; i < len; i++)
		p[i] = (char)(stamp * 31 + i);
	pool->unmap(h);
	return true;
}

bool check_stamp(Pool *pool, ulong h, ulong stamp, ulong len)
{
	const char *p = static_cast<const char *>(pool->map(h, MapMode::RO));
	bool ok = true;

	for (ulong i = 0; i < len && ok; i++)
		ok = p[i] == (char)(stamp * 31 + i);
	pool->unmap(h);
	return ok;
}

/* ---- fragmentation patterns -------------------------------------------- */

enum class Pattern { Random, Strided, Clustered, Ageing, Published, Nr };

const char *const kPatternNames[] = { "random", "strided", "clustered",
				      "ageing", "published" };

bool pattern_from_name(const char *name, Pattern *out)
{
	for (int i = 0; i < (int)Pattern::Nr; i++) {
		const char *a = name, *b = kPatternNames[i];

		while (*a && *a == *b) {
			a++;
			b++;
		}
		if (*a == *b) {
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
	default:
		for (u32 z = 0; z * opz < n; z++) {
			u64 per_mille = rng.below(1000);

			for (u32 k = z * opz; k < n && k < (z + 1) * opz; k++)
				freed[k] = rng.below(1000) < per_mille;
		}
		break;
	}
}

/*
 * The oracle: to free the most zspages, keep the ceil(used/opz) fullest and
 * empty the rest; emptying the emptiest ones moves the fewest objects.
 */
void oracle(const u32 *inuse, u32 nz, u32 opz, u32 ppz, ulong *moves,
	    ulong *pages, u32 *hist)
{
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
	*pages = (ulong)drop * ppz;
	*moves = 0;
	for (u32 i = 0; i <= opz && drop; i++) {
		u32 take = min_of(drop, hist[i]);

		*moves += (ulong)take * i;
		drop -= take;
	}
}

struct ExpTotals {
	ulong moved, freed, oracle_moved, oracle_freed;
};

int run_class(Pattern pat, Policy policy, ulong seed, u32 zspages, u32 ci,
	      ExpTotals *tot, zsng_emit_fn emit, void *ctx)
{
	Pool *pool = Pool::create("zsng-exp", policy,
				  zsng_svc_max_pages_per_zspage());
	ClassStats cs;
	ulong *handles = nullptr;
	u8 *freed = nullptr;
	u32 *inuse = nullptr, *hist = nullptr;
	int ret = -ZSNG_ENOMEM;

	if (!pool)
		return ret;
	pool->class_stats(ci, &cs);
	if (cs.huge) {
		pool->destroy();
		return 0;
	}
	u32 n = zspages * cs.objs_per_zspage;
	ulong len = cs.size - kObjHeaderSize;
	Rng rng{ seed * 0x100000001b3ULL ^ ((u64)pat << 32) ^ cs.size };

	handles = static_cast<ulong *>(
		zsng_svc_zalloc(sizeof(ulong) * n, ZSNG_GFP_KERNEL));
	freed = static_cast<u8 *>(zsng_svc_zalloc(n, ZSNG_GFP_KERNEL));
	inuse = static_cast<u32 *>(
		zsng_svc_zalloc(sizeof(u32) * zspages, ZSNG_GFP_KERNEL));
	hist = static_cast<u32 *>(zsng_svc_zalloc(
		sizeof(u32) * (cs.objs_per_zspage + 1), ZSNG_GFP_KERNEL));
	if (!handles || !freed || !inuse || !hist)
		goto out;

	for (u32 k = 0; k < n; k++) {
		handles[k] = pool->malloc(len, ZSNG_GFP_KERNEL);
		if (zsng_is_error(handles[k])) {
			handles[k] = 0;
			goto out;
		}
		write_stamp(pool, handles[k], k, len);
	}
	choose_frees(pat, rng, n, cs.objs_per_zspage, freed);
	for (u32 k = 0; k < n; k++) {
		if (freed[k]) {
			pool->free(handles[k]);
			handles[k] = 0;
		}
	}
	{
		u32 nz = pool->class_inuse_counts(ci, inuse, zspages);
		ulong o_moves, o_pages, moved, pages;

		oracle(inuse, nz, cs.objs_per_zspage, cs.pages_per_zspage,
		       &o_moves, &o_pages, hist);
		pages = pool->compact_class(ci);
		pool->class_stats(ci, &cs);
		moved = cs.objs_moved;

		ret = 0;
		for (u32 k = 0; k < n; k++) {
			if (handles[k] &&
			    !check_stamp(pool, handles[k], k, len))
				ret = -ZSNG_EINVAL;
		}
		if (!pool->check_consistency())
			ret = -ZSNG_EINVAL;

		Line l;
		l << "class=" << (ulong)cs.size
		  << " pages_per_zspage=" << (ulong)cs.pages_per_zspage
		  << " objs_per_zspage=" << (ulong)cs.objs_per_zspage
		  << " pattern=" << kPatternNames[(int)pat]
		  << " policy=" << policy_name(policy)
		  << " objs_moved=" << moved << " pages_freed=" << pages
		  << " oracle_moved=" << o_moves << " oracle_pages=" << o_pages
		  << " verified=" << (ulong)(ret == 0);
		emit(ctx, l.str());
		tot->moved += moved;
		tot->freed += pages;
		tot->oracle_moved += o_moves;
		tot->oracle_freed += o_pages;
	}
out:
	if (handles) {
		for (u32 k = 0; k < n; k++)
			if (handles[k])
				pool->free(handles[k]);
	}
	zsng_svc_free(handles);
	zsng_svc_free(freed);
	zsng_svc_free(inuse);
	zsng_svc_free(hist);
	pool->destroy();
	return ret;
}

/* ---- hand-computed scenarios -------------------------------------------- */

/*
 * Each scenario fills zspages of the class for a 1016-byte request (class
 * 1024: one page, 4 objects per zspage) and frees the objects marked 'x' in
 * @layout, one character per object in allocation order ('.' keeps). The
 * expected counts per policy are worked out in tests/test_compaction.cpp.
 */
struct Scenario {
	const char *name;
	const char *layout;
};

const Scenario kScenarios[] = {
	/* one object in each of three zspages */
	{ "three-singles", "xxx.xxx.xxx." },
	/* 3,1 in use: one move frees a zspage */
	{ "one-move", "...xxx.x" },
	/* 1,1,1,1: four quarter-full zspages */
	{ "four-quarters", ".xxx.xxx.xxx.xxx" },
	/* 3,2,1 in use */
	{ "three-two-one", "...x..xx.xxx" },
	/* 2,2,2,2,1 */
	{ "twos", "..xx..xx..xx..xx.xxx" },
	/* nothing to gain: 4,4,3 */
	{ "no-gain", "...........x" },
};

/*
 * The arrays of one scenario run: on the heap, since with KASAN's stack
 * redzones they would push run_scenario() past the kernel's 2 KiB frame
 * limit.
 */
struct ScenarioArrays {
	ulong handles[64];
	u32 inuse[64];
	u32 hist[kPageSize / kMinAllocSize + 1];
};

int run_scenario(const Scenario &s, Policy policy, zsng_emit_fn emit, void *ctx)
{
	Pool *pool = Pool::create("zsng-scn", policy,
				  zsng_svc_max_pages_per_zspage());
	auto *arrays = static_cast<ScenarioArrays *>(
		zsng_svc_zalloc(sizeof(ScenarioArrays), ZSNG_GFP_KERNEL));
	ulong *handles = arrays ? arrays->handles : nullptr;
	u32 n = 0, ci;
	ulong freed;
	int ret = 0;
	ClassStats cs;
	u32 nz;
	ulong o_moves = 0, o_pages = 0;

	if (!pool || !arrays) {
		if (pool)
			pool->destroy();
		zsng_svc_free(arrays);
		return -ZSNG_ENOMEM;
	}
	ci = pool->class_index(1016);
	while (s.layout[n] && n < 64)
		n++;
	for (u32 k = 0; k < n; k++) {
		handles[k] = pool->malloc(1016, ZSNG_GFP_KERNEL);
		if (zsng_is_error(handles[k])) {
			handles[k] = 0;
			ret = -ZSNG_ENOMEM;
			goto out;
		}
		write_stamp(pool, handles[k], k, 1016);
	}
	for (u32 k = 0; k < n; k++) {
		if (s.layout[k] == 'x') {
			pool->free(handles[k]);
			handles[k] = 0;
		}
	}
	pool->class_stats(ci, &cs);
	nz = pool->class_inuse_counts(ci, arrays->inuse, 64);
	oracle(arrays->inuse, min_of(nz, 64u), cs.objs_per_zspage,
	       cs.pages_per_zspage, &o_moves, &o_pages, arrays->hist);
	freed = pool->compact_class(ci);
	pool->class_stats(ci, &cs);
	for (u32 k = 0; k < n; k++)
		if (handles[k] && !check_stamp(pool, handles[k], k, 1016))
			ret = -ZSNG_EINVAL;
	if (!pool->check_consistency())
		ret = -ZSNG_EINVAL;
	{
		Line l;
		l << "scenario=" << s.name << " policy=" << policy_name(policy)
		  << " objs_moved=" << cs.objs_moved << " pages_freed=" << freed
		  << " pages_used=" << cs.pages_used
		  << " verified=" << (ulong)(ret == 0)
		  << " oracle_moved=" << o_moves << " oracle_pages=" << o_pages;
		emit(ctx, l.str());
	}
out:
	for (u32 k = 0; k < n; k++)
		if (handles[k])
			pool->free(handles[k]);
	pool->destroy();
	zsng_svc_free(arrays);
	return ret;
}

} // namespace

extern "C" {

int zsng_core_run_scenarios(zsng_emit_fn emit, void *ctx)
{
	int ret = 0;

	for (const Scenario &s : kScenarios) {
		for (int p = 0; p < kNrPolicies; p++) {
			int r = run_scenario(s, (Policy)p, emit, ctx);

			if (r && !ret)
				ret = r;
		}
	}
	return ret;
}

int zsng_core_run_experiment(const char *pattern, int policy,
			     unsigned long seed, unsigned int zspages_per_class,
			     zsng_emit_fn emit, void *ctx)
{
	Pattern pat;
	ExpTotals tot = {};
	u32 nr_classes;
	int ret = 0;

	if (!pattern_from_name(pattern, &pat) || zspages_per_class < 2 ||
	    zspages_per_class > 4096)
		return -ZSNG_EINVAL;
	{
		/* Also checks the policy. */
		Pool *probe = Pool::create("zsng-exp", (Policy)policy,
					   zsng_svc_max_pages_per_zspage(),
					   &ret);

		if (!probe)
			return ret;
		nr_classes = probe->nr_classes();
		probe->destroy();
	}
	for (u32 ci = 0; ci < nr_classes && !ret; ci++) {
		ret = run_class(pat, (Policy)policy, seed, zspages_per_class,
				ci, &tot, emit, ctx);
		zsng_svc_cond_resched();
	}
	Line l;
	l << "total pattern=" << pattern
	  << " policy=" << policy_name((Policy)policy)
	  << " objs_moved=" << tot.moved << " pages_freed=" << tot.freed
	  << " oracle_moved=" << tot.oracle_moved
	  << " oracle_pages=" << tot.oracle_freed;
	emit(ctx, l.str());
	return ret;
}

/* The boot self-check: every class, spanning objects, compaction, stats. */
int zsng_core_selfcheck(void)
{
	Pool *pool = Pool::create("zsng-selfcheck", Policy::Ratio,
				  zsng_svc_max_pages_per_zspage());
	const u32 max = 2 * kNrSizeSlots + 2;
	ulong *handles = static_cast<ulong *>(
		zsng_svc_zalloc(sizeof(ulong) * max, ZSNG_GFP_KERNEL));
	u32 n = 0;
	int ret = 0;

	if (!pool || !handles) {
		zsng_svc_free(handles);
		if (pool)
			pool->destroy();
		return -ZSNG_ENOMEM;
	}
	for (ulong size = 1; size <= kPageSize && n + 2 <= max; size += 16) {
		for (int twice = 0; twice < 2; twice++) {
			ulong h = pool->malloc(size, ZSNG_GFP_KERNEL);

			if (zsng_is_error(h)) {
				ret = -ZSNG_ENOMEM;
				goto out;
			}
			handles[n++] = h;
			write_stamp(pool, h, n, size);
		}
	}
	for (u32 k = 0; k < n; k += 2) {
		pool->free(handles[k]);
		handles[k] = 0;
	}
	pool->compact();
	for (u32 k = 1; k < n; k += 2) {
		ulong size = 1 + 16 * (k / 2);

		if (!check_stamp(pool, handles[k], k + 1, size))
			ret = -ZSNG_EINVAL;
	}
	if (!pool->check_consistency())
		ret = -ZSNG_EINVAL;
	if (!zsng_is_error(pool->malloc(0, ZSNG_GFP_KERNEL)) ||
	    !zsng_is_error(pool->malloc(kPageSize + 1, ZSNG_GFP_KERNEL)))
		ret = -ZSNG_EINVAL;
out:
	for (u32 k = 0; k < n; k++)
		if (handles[k])
			pool->free(handles[k]);
	if (!ret && pool->total_pages() != 0)
		ret = -ZSNG_EINVAL;
	zsng_svc_free(handles);
	pool->destroy();
	return ret;
}

} // extern "C"

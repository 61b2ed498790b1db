// SPDX-License-Identifier: GPL-2.0
/*
 * The scenario runner: every scenario of scenario_table.hpp under every
 * policy, one line each. tests/test_compaction.cpp holds the counts worked
 * out by hand; the VM selftests compare the kernel's lines with these.
 */
#include "zsng_core.h"
#include "zsng_experiment.h"
#include "scenario_table.hpp"
#include "workload.hpp"

using namespace zsng;
using namespace zsng::workload;

namespace
{
/*
 * The arrays of one scenario run: on the heap, since with KASAN's stack
 * redzones they would push run_scenario() past the kernel's 2 KiB frame
 * limit.
 */
struct ScenarioArrays {
	ulong handles[kScenarioMaxObjects];
	u8 freed[kScenarioMaxObjects];
	u32 inuse[kScenarioMaxObjects];
	u32 hist[kPageSize / kMinAllocSize + 1];
};

int run_scenario(const Scenario &s, Policy policy, zsng_emit_fn emit, void *ctx)
{
	int ret;
	Pool *pool =
		Pool::create(policy, zsng_svc_max_pages_per_zspage(), 0, &ret);
	auto *a = zalloc_array<ScenarioArrays>(1);
	ClassWork w = {};
	Outcome o;

	if (!pool || !a) {
		if (pool)
			pool->destroy();
		zsng_svc_free(a);
		return -ZSNG_ENOMEM;
	}
	while (s.layout[w.nr_objs] && w.nr_objs < kScenarioMaxObjects) {
		a->freed[w.nr_objs] = s.layout[w.nr_objs] == 'x';
		w.nr_objs++;
	}
	w.class_idx = pool->class_index(kScenarioRequest);
	w.len = kScenarioRequest;
	w.freed = a->freed;
	w.handles = a->handles;
	w.inuse = a->inuse;
	w.max_zspages = kScenarioMaxObjects;
	w.hist = a->hist;

	ret = fragment_and_compact(pool, w, &o);
	if (!ret) {
		Line l;

		if (!o.verified)
			ret = -ZSNG_EINVAL;
		l << "scenario=" << s.name << " policy=" << policy_name(policy)
		  << " objs_moved=" << o.cs.objs_moved
		  << " pages_freed=" << o.pages_freed
		  << " pages_used=" << o.cs.pages_used
		  << " verified=" << (ulong)o.verified
		  << " oracle_moved=" << o.oracle.moves
		  << " oracle_pages=" << o.oracle.pages;
		emit(ctx, l.str());
	}
	pool->destroy();
	zsng_svc_free(a);
	return ret;
}

} // namespace

extern "C" int zsng_scenarios_run(zsng_emit_fn emit, void *ctx)
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

// SPDX-License-Identifier: GPL-2.0
/*
 * The boot self-check of zsmalloc_ng.ko (and a unit test in userspace):
 * two objects of every 16-byte size step, one of each pair freed, a full
 * compaction, then every survivor's bytes, the pool's invariants, the
 * refusal of sizes 0 and PAGE_SIZE + 1, and an empty pool at the end.
 */
#include "zsng_core.h"
#include "zsng_experiment.h"
#include "workload.hpp"

using namespace zsng;
using namespace zsng::workload;

namespace
{
/* Object k is stamped with seed k + 1 over the size it was asked for. */
ulong size_of(u32 k)
{
	return 1 + kClassDelta * (k / 2);
}

bool alloc_pairs(Pool *pool, ulong *handles, u32 n)
{
	for (u32 k = 0; k < n; k++) {
		handles[k] = pool->malloc(size_of(k), ZSNG_GFP_KERNEL);
		if (zsng_is_error(handles[k])) {
			handles[k] = 0;
			return false;
		}
		stamp_object(pool, handles[k], k + 1, size_of(k));
	}
	return true;
}

int check(Pool *pool, ulong *handles, u32 n)
{
	int ret = 0;

	for (u32 k = 0; k < n; k += 2) {
		pool->free(handles[k]);
		handles[k] = 0;
	}
	pool->compact();
	for (u32 k = 1; k < n; k += 2) {
		if (!object_intact(pool, handles[k], k + 1, size_of(k)))
			ret = -ZSNG_EINVAL;
	}
	if (!pool->check_consistency())
		ret = -ZSNG_EINVAL;
	if (!zsng_is_error(pool->malloc(0, ZSNG_GFP_KERNEL)) ||
	    !zsng_is_error(pool->malloc(kPageSize + 1, ZSNG_GFP_KERNEL)))
		ret = -ZSNG_EINVAL;
	return ret;
}

} // namespace

extern "C" int zsng_selfcheck_run(void)
{
	/* Sizes 1, 17, ... PAGE_SIZE - 15: two objects each. */
	const u32 n = 2 * (u32)((kPageSize - 1) / kClassDelta + 1);
	Pool *pool =
		Pool::create(Policy::Ratio, zsng_svc_max_pages_per_zspage());
	ulong *handles = zalloc_array<ulong>(n);
	int ret;

	if (!pool || !handles) {
		zsng_svc_free(handles);
		if (pool)
			pool->destroy();
		return -ZSNG_ENOMEM;
	}
	ret = alloc_pairs(pool, handles, n) ? check(pool, handles, n) :
					      -ZSNG_ENOMEM;
	for (u32 k = 0; k < n; k++) {
		if (handles[k])
			pool->free(handles[k]);
	}
	if (!ret && pool->total_pages() != 0)
		ret = -ZSNG_EINVAL;
	zsng_svc_free(handles);
	pool->destroy();
	return ret;
}

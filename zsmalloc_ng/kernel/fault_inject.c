// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation fault injection for the reliability tests
 * (selftests/reliability), in the one place every allocation of the core
 * passes (svc.c): Debian's kernel has no CONFIG_FAULT_INJECTION. The
 * testing build's only (make ZSNG_TESTING=1), like testing.c: the product
 * has the stubs in zsng_internal.h, which never fail, and no fail_* file.
 *
 * Like fault_attr's interval and times: with fail_every = N > 0, every Nth
 * allocation fails, at most fail_times times (-1: no limit); fail_calls
 * counts the allocations seen while armed (write 0 to it, then 1 to
 * fail_times and N to fail_every: the Nth allocation from now fails) and
 * fail_injected the failures. Off (0) by default, and then it costs one
 * READ_ONCE. __GFP_NOFAIL never fails.
 *
 * /sys/kernel/debug/zsmalloc_ng/fail_{every,times,calls,injected}
 */
#include <linux/debugfs.h>
#include <linux/atomic.h>
#include <linux/gfp.h>
#include "zsng_internal.h"

static struct {
	u32 every;
	atomic_t times;
	atomic_t calls;
	atomic_t injected;
} zsng_fail = { .times = ATOMIC_INIT(-1) };

bool zsng_should_fail(gfp_t gfp)
{
	u32 every = READ_ONCE(zsng_fail.every);

	if (likely(!every))
		return false;
	if (gfp & __GFP_NOFAIL)
		return false;
	if ((u32)atomic_inc_return(&zsng_fail.calls) % every)
		return false;
	if (atomic_read(&zsng_fail.times) >= 0 &&
	    atomic_dec_if_positive(&zsng_fail.times) < 0)
		return false;
	atomic_inc(&zsng_fail.injected);
	return true;
}

void zsng_fault_inject_debugfs_init(struct dentry *dir)
{
	debugfs_create_u32("fail_every", 0600, dir, &zsng_fail.every);
	debugfs_create_atomic_t("fail_times", 0600, dir, &zsng_fail.times);
	debugfs_create_atomic_t("fail_calls", 0600, dir, &zsng_fail.calls);
	debugfs_create_atomic_t("fail_injected", 0600, dir,
				&zsng_fail.injected);
}

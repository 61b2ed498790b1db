// SPDX-License-Identifier: GPL-2.0
/*
 * The module parameters of zsmalloc_ng.ko and the values read from them:
 * the policy and flags of the pools created from now on, and the chain
 * length limit the core reads through the service layer (core/svc.h). A
 * leaf of the glue's layers (main.c): it calls only the core.
 */
#define pr_fmt(fmt) "zsmalloc_ng: " fmt

#include <linux/module.h>
#include <linux/string.h>
#include "zsmalloc_ng.h"
#include "svc.h"
#include "zsng_internal.h"
#include "compat/zsmalloc_chain.h"

static int default_policy = ZSNG_POLICY_RATIO;

static int default_policy_set(const char *val, const struct kernel_param *kp)
{
	char name[32];
	int policy;

	if (strscpy(name, val, sizeof(name)) < 0)
		return -EINVAL;
	policy = zsng_core_policy_from_name(strim(name));
	if (policy < 0)
		return -EINVAL;
	WRITE_ONCE(default_policy, policy);
	return 0;
}

static int default_policy_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", zsng_core_policy_name(default_policy));
}

static const struct kernel_param_ops default_policy_ops = {
	.set = default_policy_set,
	.get = default_policy_get,
};
module_param_cb(default_policy, &default_policy_ops, NULL, 0644);
MODULE_PARM_DESC(default_policy,
		 "Policy of pools created with ZSNG_POLICY_DEFAULT: legacy, legacy-groups, ratio or exact (default: ratio)");

static unsigned int max_pages_per_zspage = ZSNG_DEFAULT_CHAIN_PAGES;
module_param(max_pages_per_zspage, uint, 0444);
MODULE_PARM_DESC(max_pages_per_zspage,
		 "Longest zspage chain in pages, "
		 __stringify(ZSNG_MIN_CHAIN_PAGES) ".."
		 __stringify(ZSNG_MAX_CHAIN_PAGES)
		 ", for pools created from now on (default: "
		 __stringify(ZSNG_DEFAULT_CHAIN_PAGES) ")");

static bool movable = true;
module_param(movable, bool, 0644);
MODULE_PARM_DESC(movable,
		 "Pools created from now on let the kernel migrate their pages (default: Y)");

/* On where the kernel's zsmalloc has 4-page chains (compat/). */
static bool growing_chains = COMPAT_GROWING_CHAINS_DEFAULT;
module_param(growing_chains, bool, 0644);
MODULE_PARM_DESC(growing_chains,
		 "Size classes of pools created from now on take zspages of at most "
		 __stringify(ZSNG_MIN_CHAIN_PAGES)
		 " pages until they hold enough objects for longer ones to pay (default: Y before Linux 6.3, whose zsmalloc has 4-page chains; N since)");

/*
 * An object whose class is full takes a free slot of a larger class that
 * 6.1's zsmalloc would have merged with it (core/pool.cpp, "Borrowed
 * slots"): neighbouring classes share their tails.
 */
static bool borrow_slots = true;
module_param(borrow_slots, bool, 0644);
MODULE_PARM_DESC(borrow_slots,
		 "Objects of pools created from now on whose class is full take a free slot of a larger class of the same 4-page geometry before a new zspage (default: Y)");

/* The kernel's own zsmalloc's rule for a class's chain (compat/). */
static bool least_waste_chains = COMPAT_LEAST_WASTE_DEFAULT;
module_param(least_waste_chains, bool, 0644);
MODULE_PARM_DESC(least_waste_chains,
		 "Size classes of pools created from now on take the chain length that leaves the fewest bytes unused (6.3's zsmalloc), not the largest used percentage (6.1's) (default: Y since Linux 6.3, N before)");

/* max_pages_per_zspage is read-only: checked once, at load (main.c). */
int zsng_params_check(void)
{
	if (max_pages_per_zspage < ZSNG_MIN_CHAIN_PAGES ||
	    max_pages_per_zspage > ZSNG_MAX_CHAIN_PAGES) {
		pr_err("max_pages_per_zspage=%u is outside %u..%u\n",
		       max_pages_per_zspage, ZSNG_MIN_CHAIN_PAGES,
		       ZSNG_MAX_CHAIN_PAGES);
		return -EINVAL;
	}
	return 0;
}

/* The service the core reads when it creates a pool (core/svc.h). */
unsigned int zsng_svc_max_pages_per_zspage(void)
{
	return max_pages_per_zspage;
}

/* What ZSNG_POLICY_DEFAULT resolves to now (zsmalloc_ng.h). */
int zsng_default_policy(void)
{
	return READ_ONCE(default_policy);
}
EXPORT_SYMBOL_GPL(zsng_default_policy);

unsigned int zsng_params_pool_flags(void)
{
	return (READ_ONCE(movable) ? ZSNG_POOL_MOVABLE : 0) |
	       (READ_ONCE(growing_chains) ? ZSNG_POOL_GROWING_CHAINS : 0) |
	       (READ_ONCE(borrow_slots) ? ZSNG_POOL_BORROW_SLOTS : 0) |
	       (READ_ONCE(least_waste_chains) ? ZSNG_POOL_LEAST_WASTE : 0);
}

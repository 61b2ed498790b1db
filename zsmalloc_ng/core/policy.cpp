// SPDX-License-Identifier: GPL-2.0
/*
 * The policies' names for humans: the module parameter, the kernel API,
 * debugfs, the experiment's lines and `zsng_experiment policies` all read
 * this one table. The grouping itself is in policy.hpp.
 */
#include "policy.hpp"

namespace zsng
{
namespace
{
/* Indexed by the policy number of zsmalloc_ng_abi.h. */
const char *const kPolicyNames[] = { "legacy", "legacy-groups", "ratio",
				     "exact" };
static_assert(sizeof(kPolicyNames) / sizeof(kPolicyNames[0]) == kNrPolicies,
	      "every policy needs a name");

const char *const kLegacyColumns[] = { "empty", "almost_empty", "almost_full",
				       "full" };
static_assert(sizeof(kLegacyColumns) / sizeof(kLegacyColumns[0]) ==
	      kLegacyGroups);

const char *const kRatioColumns[] = {
	"0%",  "10%", "20%", "30%", "40%", "50%",
	"60%", "70%", "80%", "90%", "99%", "100%"
};
static_assert(sizeof(kRatioColumns) / sizeof(kRatioColumns[0]) == kRatioGroups);
} // namespace

const char *policy_name(int p)
{
	return policy_valid(p) ? kPolicyNames[p] : nullptr;
}

bool policy_from_name(const char *name, Policy *out)
{
	for (int i = 0; i < kNrPolicies; i++) {
		if (str_eq(name, kPolicyNames[i])) {
			*out = (Policy)i;
			return true;
		}
	}
	return false;
}

const char *shown_group_name(Policy p, u32 g)
{
	if (g >= nr_shown_groups(p))
		return nullptr;
	return uses_legacy_groups(p) ? kLegacyColumns[g] : kRatioColumns[g];
}

} // namespace zsng

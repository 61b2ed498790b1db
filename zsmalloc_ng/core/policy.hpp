// SPDX-License-Identifier: GPL-2.0
/*
 * Fullness grouping policies.
 *
 * A zspage of a class sits in one fullness group, decided by how many of
 * its objs_per_zspage slots are in use. Group 0 is "empty" (transient: an
 * empty zspage is freed at once) and the last group is "full". Allocation
 * takes from the fullest non-full group, compaction takes destinations from
 * there and sources from the emptiest non-empty group, so the grouping is
 * what decides how much work compaction does.
 *
 *  legacy, legacy-groups  the four groups of Linux 6.1: empty,
 *                         almost_empty (inuse <= 3/4), almost_full, full.
 *                         A zspage is inserted second in its list when it
 *                         has fewer objects than the head (6.1's "inuse
 *                         optimisation"), otherwise first.
 *  ratio                  12 groups: 0, 10, 20 ... 90, 99, 100 (percent in
 *                         use). A non-empty, non-full zspage goes to group
 *                         100 * inuse / objs_per_zspage / 10 + 1, so group
 *                         "10" holds [0%, 10%) and "99" holds [90%, 100%).
 *  exact                  one group per in-use count: 0..objs_per_zspage.
 *                         Sources and destinations are then the truly
 *                         emptiest and fullest zspages; a bitmap of
 *                         non-empty groups keeps each lookup a few words.
 *
 * legacy uses 6.1's compaction loop; every other policy the reworked one.
 */
#ifndef ZSNG_POLICY_HPP
#define ZSNG_POLICY_HPP

#include "types.hpp"

namespace zsng
{
enum class Policy : int {
	Legacy = 0,
	LegacyGroups = 1,
	Ratio = 2,
	Exact = 3,
};
constexpr int kNrPolicies = 4;

/* Groups shown in stats and debugfs (exact is summarised as ratio). */
constexpr u32 kLegacyGroups = 4;
constexpr u32 kRatioGroups = 12;
constexpr u32 kMaxShownGroups = kRatioGroups;

const char *policy_name(Policy p);
bool policy_from_name(const char *name, Policy *out);

inline bool uses_legacy_groups(Policy p)
{
	return p == Policy::Legacy || p == Policy::LegacyGroups;
}

inline bool uses_legacy_compaction(Policy p)
{
	return p == Policy::Legacy;
}

inline u32 legacy_group(u32 inuse, u32 objs)
{
	if (inuse == 0)
		return 0;
	if (inuse == objs)
		return 3;
	return inuse <= 3 * objs / 4 ? 1 : 2;
}

inline u32 ratio_group(u32 inuse, u32 objs)
{
	if (inuse == 0)
		return 0;
	if (inuse == objs)
		return kRatioGroups - 1;
	return 100 * inuse / objs / 10 + 1;
}

inline u32 nr_groups(Policy p, u32 objs)
{
	if (uses_legacy_groups(p))
		return kLegacyGroups;
	if (p == Policy::Ratio)
		return kRatioGroups;
	return objs + 1;
}

inline u32 group_of(Policy p, u32 inuse, u32 objs)
{
	if (uses_legacy_groups(p))
		return legacy_group(inuse, objs);
	if (p == Policy::Ratio)
		return ratio_group(inuse, objs);
	return inuse;
}

/* The group column a zspage is counted in for stats. */
inline u32 shown_group_of(Policy p, u32 inuse, u32 objs)
{
	return p == Policy::Exact ? ratio_group(inuse, objs) :
				    group_of(p, inuse, objs);
}

inline u32 nr_shown_groups(Policy p)
{
	return uses_legacy_groups(p) ? kLegacyGroups : kRatioGroups;
}

} // namespace zsng

#endif

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
 *
 * The policy numbers are ABI (zsmalloc_ng_abi.h). Adding a policy is: its
 * enumerator there and in Policy below, its name in policy.cpp's table, and
 * its row in traits(); if it groups zspages in a new way, a Grouping and
 * that grouping's functions. Every switch here has no default, so -Wswitch
 * (and the static_asserts) name what is missing.
 */
#ifndef ZSNG_POLICY_HPP
#define ZSNG_POLICY_HPP

#include "types.hpp"

namespace zsng
{
enum class Policy : int {
	Legacy = ZSNG_POLICY_LEGACY,
	LegacyGroups = ZSNG_POLICY_LEGACY_GROUPS,
	Ratio = ZSNG_POLICY_RATIO,
	Exact = ZSNG_POLICY_EXACT,
};
constexpr int kNrPolicies = ZSNG_POLICY_NR;
static_assert((int)Policy::Exact + 1 == kNrPolicies,
	      "a policy of zsmalloc_ng_abi.h has no zsng::Policy enumerator");

/* Groups shown in stats and debugfs (exact is summarised as ratio). */
constexpr u32 kLegacyGroups = ZSNG_LEGACY_GROUPS;
constexpr u32 kRatioGroups = ZSNG_RATIO_GROUPS;
constexpr u32 kMaxShownGroups = ZSNG_MAX_SHOWN_GROUPS;
static_assert(kLegacyGroups <= kMaxShownGroups &&
	      kRatioGroups <= kMaxShownGroups);

/*
 * The one range check of a policy number that comes from outside (module
 * parameter, kernel API, command line): Pool::create() and the name table
 * use it.
 */
constexpr bool policy_valid(int p)
{
	return p >= 0 && p < kNrPolicies;
}

/* "legacy", "legacy-groups", ...; nullptr when out of range. */
const char *policy_name(int p);
inline const char *policy_name(Policy p)
{
	return policy_name((int)p);
}
bool policy_from_name(const char *name, Policy *out);
/* The label of stats column @g of a pool of policy @p (debugfs header). */
const char *shown_group_name(Policy p, u32 g);

/* How a policy groups zspages. */
enum class Grouping { Legacy, Ratio, Exact };

struct PolicyTraits {
	Grouping grouping;
	bool legacy_compaction; /* 6.1's loop rather than the reworked one */
};

constexpr PolicyTraits traits(Policy p)
{
	switch (p) {
	case Policy::Legacy:
		return { Grouping::Legacy, true };
	case Policy::LegacyGroups:
		return { Grouping::Legacy, false };
	case Policy::Ratio:
		return { Grouping::Ratio, false };
	case Policy::Exact:
		return { Grouping::Exact, false };
	}
	return { Grouping::Ratio,
		 false }; /* not reached: Pool::create checks */
}

inline bool uses_legacy_groups(Policy p)
{
	return traits(p).grouping == Grouping::Legacy;
}

inline bool uses_legacy_compaction(Policy p)
{
	return traits(p).legacy_compaction;
}

inline u32 legacy_group(u32 inuse, u32 objs)
{
	if (inuse == 0)
		return 0;
	if (inuse == objs)
		return kLegacyGroups - 1;
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

/* The number of groups of grouping @g for a class of @objs per zspage. */
inline u32 nr_groups_in(Grouping g, u32 objs)
{
	switch (g) {
	case Grouping::Legacy:
		return kLegacyGroups;
	case Grouping::Ratio:
		return kRatioGroups;
	case Grouping::Exact:
		return objs + 1;
	}
	return 0;
}

/* The group of a zspage with @inuse of @objs slots in use, in grouping @g. */
inline u32 group_in(Grouping g, u32 inuse, u32 objs)
{
	switch (g) {
	case Grouping::Legacy:
		return legacy_group(inuse, objs);
	case Grouping::Ratio:
		return ratio_group(inuse, objs);
	case Grouping::Exact:
		return inuse;
	}
	return 0;
}

/* Stats and debugfs show exact's groups in ratio's columns. */
constexpr Grouping shown_grouping(Policy p)
{
	return traits(p).grouping == Grouping::Exact ? Grouping::Ratio :
						       traits(p).grouping;
}

inline u32 nr_groups(Policy p, u32 objs)
{
	return nr_groups_in(traits(p).grouping, objs);
}

inline u32 group_of(Policy p, u32 inuse, u32 objs)
{
	return group_in(traits(p).grouping, inuse, objs);
}

/* The group column a zspage is counted in for stats. */
inline u32 shown_group_of(Policy p, u32 inuse, u32 objs)
{
	return group_in(shown_grouping(p), inuse, objs);
}

inline u32 nr_shown_groups(Policy p)
{
	return nr_groups_in(shown_grouping(p), 0);
}

} // namespace zsng

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * Fullness groups (policy.hpp): which list a zspage with @inuse of @objs
 * objects sits on. Allocation and compaction only ever look at list heads,
 * so these boundaries decide how much work compaction does.
 */
#include <gtest/gtest.h>

#include "policy.hpp"
#include "test_helpers.hpp"

using namespace zsng;

struct GroupCase {
	const char *what;
	u32 inuse, objs, group;
};

/*
 * ratio: 0 empty, 1..10 = "10".."99" by tenths of the ratio, 11 full. A
 * zspage goes to 100 * inuse / objs / 10 + 1, so the boundaries are
 * [0%,10%) -> 1 and [90%,100%) -> 10.
 */
static const GroupCase kRatioCases[] = {
	{ "empty", 0, 127, 0 },
	{ "1 of 127 (0.8%)", 1, 127, 1 },
	{ "9.9% (99 of 1000)", 99, 1000, 1 },
	{ "10% exactly (100 of 1000)", 100, 1000, 2 },
	{ "12 of 127 (9.4%)", 12, 127, 1 },
	{ "13 of 127 (10.2%)", 13, 127, 2 },
	{ "50%", 2, 4, 6 },
	{ "89% (89 of 100)", 89, 100, 9 },
	{ "89.9% (899 of 1000)", 899, 1000, 9 },
	{ "90% exactly (9 of 10)", 9, 10, 10 },
	{ "95% (19 of 20)", 19, 20, 10 },
	{ "126 of 127", 126, 127, 10 },
	{ "full", 127, 127, 11 },
	{ "1 of 1 (huge class) is full", 1, 1, 11 },
	{ "1 of 4", 1, 4, 3 },
	{ "3 of 4", 3, 4, 8 },
};

TEST(Fullness, RatioGroupBoundaries)
{
	for (const GroupCase &t : kRatioCases) {
		EXPECT_EQ(ratio_group(t.inuse, t.objs), t.group) << t.what;
		EXPECT_EQ(group_of(Policy::Ratio, t.inuse, t.objs), t.group)
			<< t.what;
		EXPECT_EQ(shown_group_of(Policy::Ratio, t.inuse, t.objs),
			  t.group)
			<< t.what;
	}
}

TEST(Fullness, RatioIsMonotonicAndUsesEveryGroup)
{
	for (u32 objs : { 4u, 10u, 127u, 128u, 1000u }) {
		u32 prev = 0;
		bool seen[kRatioGroups] = {};

		for (u32 inuse = 0; inuse <= objs; inuse++) {
			u32 g = ratio_group(inuse, objs);

			ASSERT_LT(g, kRatioGroups);
			EXPECT_GE(g, prev) << inuse << "/" << objs;
			prev = g;
			seen[g] = true;
		}
		/* Only empty and full are reached exactly at the ends. */
		EXPECT_EQ(ratio_group(0, objs), 0u);
		EXPECT_EQ(ratio_group(objs, objs), kRatioGroups - 1);
		if (objs >= 100)
			for (u32 g = 0; g < kRatioGroups; g++)
				EXPECT_TRUE(seen[g])
					<< "group " << g << " objs " << objs;
	}
}

/*
 * legacy: 0 empty, 1 almost_empty (inuse <= 3/4 of objs, rounded down as
 * 6.1's fullness_threshold_frac), 2 almost_full, 3 full.
 */
static const GroupCase kLegacyCases[] = {
	{ "empty", 0, 8, 0 },
	{ "1 of 8", 1, 8, 1 },
	{ "6 of 8 = 3/4 exactly", 6, 8, 1 },
	{ "7 of 8 > 3/4", 7, 8, 2 },
	{ "full", 8, 8, 3 },
	/* 3 * 4 / 4 = 3: with four objects nothing is almost_full. */
	{ "3 of 4", 3, 4, 1 },
	{ "4 of 4", 4, 4, 3 },
	/* 3 * 127 / 4 = 95 */
	{ "95 of 127", 95, 127, 1 },
	{ "96 of 127", 96, 127, 2 },
	{ "126 of 127", 126, 127, 2 },
	{ "1 of 1", 1, 1, 3 },
};

TEST(Fullness, LegacyThreeQuarterBoundary)
{
	for (const GroupCase &t : kLegacyCases) {
		EXPECT_EQ(legacy_group(t.inuse, t.objs), t.group) << t.what;
		EXPECT_EQ(group_of(Policy::Legacy, t.inuse, t.objs), t.group)
			<< t.what;
		EXPECT_EQ(group_of(Policy::LegacyGroups, t.inuse, t.objs),
			  t.group)
			<< t.what;
		EXPECT_EQ(shown_group_of(Policy::Legacy, t.inuse, t.objs),
			  t.group)
			<< t.what;
	}
}

TEST(Fullness, ExactIsTheInUseCount)
{
	for (u32 objs : { 1u, 4u, 127u }) {
		for (u32 inuse = 0; inuse <= objs; inuse++) {
			EXPECT_EQ(group_of(Policy::Exact, inuse, objs), inuse);
			/* Stats summarise exact in the ratio columns. */
			EXPECT_EQ(shown_group_of(Policy::Exact, inuse, objs),
				  ratio_group(inuse, objs));
		}
	}
}

TEST(Fullness, GroupCounts)
{
	EXPECT_EQ(nr_groups(Policy::Legacy, 127), 4u);
	EXPECT_EQ(nr_groups(Policy::LegacyGroups, 127), 4u);
	EXPECT_EQ(nr_groups(Policy::Ratio, 127), 12u);
	/* exact: one list per count 0..objs */
	EXPECT_EQ(nr_groups(Policy::Exact, 127), 128u);
	EXPECT_EQ(nr_shown_groups(Policy::Exact), 12u);
	EXPECT_EQ(nr_shown_groups(Policy::Legacy), 4u);
	/* Every group a zspage can land in exists. */
	for (int p = 0; p < kNrPolicies; p++)
		for (u32 objs : { 1u, 4u, 127u })
			for (u32 inuse = 0; inuse <= objs; inuse++)
				EXPECT_LT(group_of((Policy)p, inuse, objs),
					  nr_groups((Policy)p, objs));
}

TEST(Fullness, PolicyNames)
{
	const char *names[] = { "legacy", "legacy-groups", "ratio", "exact" };

	for (int p = 0; p < kNrPolicies; p++) {
		Policy out;

		EXPECT_STREQ(policy_name((Policy)p), names[p]);
		ASSERT_TRUE(policy_from_name(names[p], &out));
		EXPECT_EQ((int)out, p);
	}
	Policy out;
	EXPECT_FALSE(policy_from_name("legacy-", &out));
	EXPECT_FALSE(policy_from_name("", &out));
}

/*
 * The stats columns are named by the pool's policy: 4 legacy groups or 12
 * ratio columns (exact shown as ratio), as many names as columns.
 */
TEST(Fullness, GroupNamesFollowThePolicy)
{
	const char *first[] = { "empty", "empty", "0%", "0%" };
	const char *last[] = { "full", "full", "100%", "100%" };

	static_assert(sizeof(first) / sizeof(first[0]) == kNrPolicies);
	for (int p = 0; p < kNrPolicies; p++) {
		zsng_test::PoolPtr pool = zsng_test::make_pool(p);
		struct zsng_class_stats cs;
		unsigned int n = 0;

		zsng_core_class_stats(pool.get(), 0, &cs);
		while (zsng_core_group_name(pool.get(), n))
			n++;
		EXPECT_EQ(n, cs.nr_groups) << policy_name(p);
		EXPECT_STREQ(zsng_core_group_name(pool.get(), 0), first[p]);
		EXPECT_STREQ(zsng_core_group_name(pool.get(), n - 1), last[p]);
	}
	EXPECT_EQ(zsng_core_policy_name(-1), nullptr);
	EXPECT_EQ(zsng_core_policy_name(kNrPolicies), nullptr);
}

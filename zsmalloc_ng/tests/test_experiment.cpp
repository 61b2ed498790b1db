// SPDX-License-Identifier: GPL-2.0
/*
 * The fragmentation experiment (experiment/experiment.cpp): deterministic per seed,
 * every object verified after the move, and its oracle (keep the
 * ceil(used/opz) fullest zspages, empty the rest) an upper bound no policy
 * beats.
 */
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "test_helpers.hpp"
#include "zsng_experiment.h"

using namespace zsng_test;

namespace
{
struct ExpLine {
	unsigned long cls, ppz, opz, moved, freed, o_moved, o_pages, verified;
};

void collect(void *ctx, const char *line)
{
	static_cast<std::vector<std::string> *>(ctx)->push_back(line);
}

std::vector<std::string> run(const char *pattern, int policy,
			     unsigned long seed, unsigned int zspages,
			     int *ret = nullptr)
{
	std::vector<std::string> lines;
	int r = zsng_experiment_run(pattern, policy, seed, zspages, collect,
				    &lines);

	if (ret)
		*ret = r;
	else
		EXPECT_EQ(r, 0) << pattern << " " << policy_str(policy);
	return lines;
}

bool parse(const std::string &l, ExpLine *e)
{
	char pat[32], pol[32];

	return sscanf(l.c_str(),
		      "class=%lu pages_per_zspage=%lu objs_per_zspage=%lu "
		      "pattern=%31s policy=%31s objs_moved=%lu pages_freed=%lu "
		      "oracle_moved=%lu oracle_pages=%lu verified=%lu",
		      &e->cls, &e->ppz, &e->opz, pat, pol, &e->moved, &e->freed,
		      &e->o_moved, &e->o_pages, &e->verified) == 10;
}

const char *const kPatterns[] = { "random", "strided", "clustered", "ageing",
				  "published" };
} // namespace

class Experiment : public ::testing::TestWithParam<int> {};

TEST_P(Experiment, SameSeedSameLines)
{
	for (const char *pat : kPatterns) {
		std::vector<std::string> a = run(pat, GetParam(), 42, 2);
		std::vector<std::string> b = run(pat, GetParam(), 42, 2);

		ASSERT_GT(a.size(), 10u);
		EXPECT_EQ(a, b) << pat;
	}
}

TEST_P(Experiment, DifferentSeedsDiffer)
{
	/* strided draws one stride per class, so it can repeat: not here. */
	for (const char *pat :
	     { "random", "clustered", "ageing", "published" }) {
		std::vector<std::string> a = run(pat, GetParam(), 1, 4);
		std::vector<std::string> b = run(pat, GetParam(), 2, 4);

		EXPECT_NE(a, b) << pat;
	}
}

TEST_P(Experiment, EveryLineVerifiedAndBoundedByTheOracle)
{
	const int policy = GetParam();

	for (const char *pat : kPatterns) {
		std::vector<std::string> lines = run(pat, policy, 7, 4);
		unsigned long sum_moved = 0, sum_freed = 0, sum_om = 0,
			      sum_op = 0;
		unsigned long classes = 0;

		ASSERT_FALSE(lines.empty());
		for (const std::string &l : lines) {
			ExpLine e;

			if (l.rfind("total ", 0) == 0) {
				char want[256];

				snprintf(
					want, sizeof(want),
					"total pattern=%s policy=%s objs_moved=%lu "
					"pages_freed=%lu oracle_moved=%lu oracle_pages=%lu",
					pat, policy_str(policy), sum_moved,
					sum_freed, sum_om, sum_op);
				EXPECT_EQ(l, want);
				continue;
			}
			ASSERT_TRUE(parse(l, &e)) << l;
			classes++;
			EXPECT_EQ(e.verified, 1u) << l;
			/* Nothing frees more than the oracle: it is the optimum. */
			EXPECT_LE(e.freed, e.o_pages) << l;
			EXPECT_EQ(e.freed % e.ppz, 0u) << l;
			EXPECT_EQ(e.o_pages % e.ppz, 0u) << l;
			/*
			 * exact always takes the truly emptiest source and the
			 * fullest destination, and reaches the oracle.
			 */
			if (policy == kExact)
				EXPECT_EQ(e.freed, e.o_pages) << l;
			/* Reaching the optimum needs at least the optimum's moves. */
			if (e.freed == e.o_pages)
				EXPECT_GE(e.moved, e.o_moved) << l;
			sum_moved += e.moved;
			sum_freed += e.freed;
			sum_om += e.o_moved;
			sum_op += e.o_pages;
		}
		/* one line per non-huge class, then the total */
		EXPECT_EQ(lines.back().rfind("total ", 0), 0u);
		EXPECT_GT(classes, 50u);
	}
}

INSTANTIATE_TEST_SUITE_P(Policies, Experiment, ::testing::Range(0, kNrPolicies),
			 policy_param_name);

TEST(Experiment, RejectsBadArguments)
{
	int r;

	EXPECT_TRUE(run("nope", kRatio, 1, 4, &r).empty());
	EXPECT_EQ(r, -ZSNG_EINVAL);
	run("random", kNrPolicies, 1, 4, &r);
	EXPECT_EQ(r, -ZSNG_EINVAL);
	run("random", -1, 1, 4, &r);
	EXPECT_EQ(r, -ZSNG_EINVAL);
	run("random", kRatio, 1, ZSNG_EXPERIMENT_MIN_ZSPAGES - 1, &r);
	EXPECT_EQ(r, -ZSNG_EINVAL);
	run("random", kRatio, 1, ZSNG_EXPERIMENT_MAX_ZSPAGES + 1, &r);
	EXPECT_EQ(r, -ZSNG_EINVAL);
}

/*
 * The oracle by hand, through the experiment's output only (it is not
 * exported). With two zspages of class 1024 (opz 4) holding a and b
 * objects after the frees:
 *   a == 0 or b == 0  the empty one was freed by zs_free already: the
 *                     oracle has nothing to do (0 pages, 0 moves);
 *   a + b <= 4        keep one, empty the other: 1 page, min(a, b) moves;
 *   a + b > 4         both must stay: 0 pages.
 * strided keeps every s-th object (s = 2..5), so a, b <= 2 or one side is
 * empty: the oracle is 1 page and 1 or 2 moves, or nothing at all. With
 * two candidates every policy frees the page; ratio and exact pick the
 * emptier source (the hand-computed scenarios in test_compaction.cpp,
 * e.g. three-singles {1,1,1}: keep 1, move 2, free 2, are the same oracle
 * worked out on more zspages).
 */
TEST(Experiment, OracleOnTwoZspagesOfClass1024)
{
	unsigned long seen_one = 0, seen_zero = 0;

	for (unsigned long seed = 1; seed <= 8; seed++) {
		for (int policy = 0; policy < kNrPolicies; policy++) {
			std::vector<std::string> lines =
				run("strided", policy, seed, 2);
			bool found = false;

			for (const std::string &l : lines) {
				ExpLine e;

				if (!parse(l, &e) || e.cls != 1024)
					continue;
				found = true;
				ASSERT_EQ(e.opz, 4u);
				if (e.o_pages == 0) {
					seen_zero++;
					EXPECT_EQ(e.o_moved, 0u) << l;
					EXPECT_EQ(e.moved, 0u) << l;
					EXPECT_EQ(e.freed, 0u) << l;
					continue;
				}
				seen_one++;
				EXPECT_EQ(e.o_pages, 1u) << l;
				EXPECT_GE(e.o_moved, 1u) << l;
				EXPECT_LE(e.o_moved, 2u) << l;
				EXPECT_EQ(e.freed, 1u) << l;
				EXPECT_GE(e.moved, e.o_moved) << l;
				EXPECT_LE(e.moved, 2u) << l;
				if (policy == kRatio || policy == kExact)
					EXPECT_EQ(e.moved, e.o_moved) << l;
			}
			EXPECT_TRUE(found);
		}
	}
	/* The seeds cover both cases. */
	EXPECT_GT(seen_one, 0u);
	EXPECT_GT(seen_zero, 0u);
}

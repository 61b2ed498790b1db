// SPDX-License-Identifier: GPL-2.0
/*
 * Compaction: it never loses a byte or a handle, it leaves no zspage's
 * worth of free slots behind, and on small hand-traced layouts it does
 * exactly the work worked out below, per policy.
 */
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "scenario_table.hpp"
#include "test_helpers.hpp"
#include "zsng_experiment.h"

using namespace zsng_test;

/*
 * ---- Hand-computed scenarios ------------------------------------------
 *
 * Class 1024 (request 1016): one page, four objects per zspage. Objects
 * are allocated in order, so zspage Zk holds objects 4k..4k+3 at indexes
 * 0..3, then the objects marked 'x' are freed in allocation order, then
 * that class alone is compacted.
 *
 * The rules the traces follow (pool.cpp):
 *  - a zspage whose group changes is re-inserted at the head of its new
 *    list; with the 4 legacy groups it goes second instead when it has
 *    fewer objects than the head (6.1's inuse optimisation). A zspage
 *    whose group does not change keeps its place.
 *  - groups for opz 4:  legacy  1,2,3 in use -> 1 (3*4/4 = 3, so group 2,
 *                       almost_full, is never used), 4 -> 3
 *                       ratio   1 -> 3 ("20"), 2 -> 6 ("50"), 3 -> 8
 *                       ("70"), 4 -> 11; exact: the count.
 *  - a freed slot is pushed on the zspage's free list, so a destination
 *    fills its most recently freed index first.
 *  - reworked (legacy-groups, ratio, exact): while can_compact(): dst =
 *    head of the fullest non-full group, kept until full; src = head of
 *    the emptiest group; move src's objects in index order.
 *  - legacy (6.1 __zs_compact): src = head of the emptiest group, stop if
 *    !can_compact(); dst = head of the fullest group, a new one each time
 *    the last is full; both put back (re-inserted) after each source.
 *
 * Notation: G1=[Z2(1),Z1(1)] is group 1's list, head first, with in-use
 * counts.
 *
 * three-singles "xxx.xxx.xxx.": Z0,Z1,Z2 one object each (index 3).
 *   legacy groups after the frees: each Zk drops 4->3 (re-inserted: head,
 *   3 is not < head's 1) then 3->2->1 in place: G1=[Z2(1),Z1(1),Z0(1)].
 *   legacy: src Z2, dst Z1: 1 move, Z1(2) put back at the head (2 !< 1),
 *     Z2 freed.  src is now Z1(2) -- the zspage that just received an
 *     object -- dst Z0: Z1's 2 objects move again (3 moves in all), Z1
 *     freed; src Z0(3): can_compact()=0, stop.  3 moves, 2 pages: the
 *     object from Z2 was moved twice.
 *   reworked: dst Z2, src Z1: 1 move; src Z0: 1 move. 2 moves, 2 pages.
 *   ratio/exact lists are the same order (G3=[Z2,Z1,Z0] / G1=[...]).
 *
 * one-move "...xxx.x": Z0 keeps 3, Z1 keeps 1 (index 2).
 *   legacy groups: free 3: G1=[Z0(3)]; free 4: Z1(3) is not < 3, goes to
 *   the head: G1=[Z1(3),Z0(3)]; free 5, 7 in place: G1=[Z1(1),Z0(3)].
 *   legacy: src = head Z1(1), dst = Z0(3): 1 move, 1 page.
 *   legacy-groups: dst = head of the fullest group = Z1(1) (group 1 is
 *     both fullest and emptiest), src = Z0(3): 3 moves, 1 page -- the
 *     4-group lists cannot tell Z1 from Z0, legacy's src-first order
 *     happens to guess right here, the reworked order wrong.
 *   ratio: G8=[Z0], G3=[Z1]: dst Z0, src Z1: 1 move. exact: the same.
 *
 * four-quarters ".xxx.xxx.xxx.xxx": Z0..Z3 one object each (index 0).
 *   legacy: G1=[Z3,Z2,Z1,Z0] all (1). src Z3 -> dst Z2: 1 move, Z2(2)
 *     re-inserted at the head; src Z2(2) -> dst Z1: 2 moves, Z1(3) at the
 *     head; src Z1(3) -> dst Z0: 3 moves. 1+2+3 = 6 moves, 3 pages.
 *   reworked: dst Z3 kept, sources Z2, Z1, Z0: 3 moves, 3 pages.
 *
 * three-two-one "...x..xx.xxx": Z0(3), Z1(2), Z2(1).
 *   legacy groups: G1=[Z2(1),Z1(2),Z0(3)] (each entered group 1 with 3 in
 *   use, not fewer than the head, so at the head, then shrank in place).
 *   legacy: src Z2 -> dst Z1: 1 move, 1 page; src Z1(3): can_compact()
 *     = (8-6)/4 = 0, stop.  1 move.
 *   legacy-groups: dst = head Z2(1), src Z1(2): 2 moves, 1 page.
 *   ratio: G8=[Z0], G6=[Z1], G3=[Z2]: dst Z0, src Z2: 1 move; Z0 full,
 *     can_compact() = 0. exact: the same.
 *
 * twos "..xx..xx..xx..xx.xxx": Z0..Z3 (2) each, Z4 (1); 9 objects in 5
 *   zspages, can_compact() = 11/4 = 2, the oracle 3 moves.
 *   legacy groups: G1=[Z4(1),Z3(2),Z2(2),Z1(2),Z0(2)].
 *   legacy: src Z4 -> dst Z3: 1 move, Z3(3) to the head; src Z3(3) ->
 *     dst Z2 takes 2 and is full, dst Z1 takes 1: 3 moves; src Z1(3):
 *     can_compact() = 3/4 = 0.  4 moves, 2 pages.
 *   legacy-groups: dst = head Z4(1), src Z3: 2 moves (Z4 3); src Z2: 1
 *     move fills Z4, Z2(1) goes back second (1 < head Z1's 2):
 *     G1=[Z1(2),Z2(1),Z0(2)]; new dst = head Z1, src = Z2: 1 move.
 *     4 moves, 2 pages.
 *   ratio: G6=[Z3,Z2,Z1,Z0], G3=[Z4]: dst Z3, src Z4: 1 move; src Z2: 1
 *     move fills Z3, Z2(1) to G3; dst Z1, src Z2: 1 move. 3 moves, 2
 *     pages (the oracle). exact: the same.
 *
 * no-gain "...........x": Z0(4), Z1(4), Z2(3): can_compact() = 1/4 = 0,
 *   nothing moves under any policy.
 */
struct Expect {
	unsigned long moved, freed, used;
};

/*
 * Per scenario of experiment/scenario_table.hpp, row for row, the counts
 * traced above: legacy, legacy-groups, ratio, exact.
 */
static const Expect kExpected[][kNrPolicies] = {
	/* three-singles */ { { 3, 2, 1 },
			      { 2, 2, 1 },
			      { 2, 2, 1 },
			      { 2, 2, 1 } },
	/* one-move */ { { 1, 1, 1 }, { 3, 1, 1 }, { 1, 1, 1 }, { 1, 1, 1 } },
	/* four-quarters */ { { 6, 3, 1 }, { 3, 3, 1 }, { 3, 3, 1 }, { 3, 3, 1 } },
	/* three-two-one */ { { 1, 1, 2 }, { 2, 1, 2 }, { 1, 1, 2 }, { 1, 1, 2 } },
	/* twos */ { { 4, 2, 3 }, { 4, 2, 3 }, { 3, 2, 3 }, { 3, 2, 3 } },
	/* no-gain */ { { 0, 0, 3 }, { 0, 0, 3 }, { 0, 0, 3 }, { 0, 0, 3 } },
};
static_assert(sizeof(kExpected) / sizeof(kExpected[0]) == zsng::kNrScenarios,
	      "a scenario without hand-computed counts");

static const zsng::Scenario &scenario_named(const char *name)
{
	for (const zsng::Scenario &s : zsng::kScenarios)
		if (!strcmp(s.name, name))
			return s;
	abort();
}

static void collect(void *ctx, const char *line)
{
	static_cast<std::vector<std::string> *>(ctx)->push_back(line);
}

/* The runner shared with the kernel module prints the same numbers. */
TEST(CompactionScenarios, RunnerMatchesHandCounts)
{
	std::vector<std::string> lines;
	std::map<std::string, std::string> got;

	ASSERT_EQ(zsng_scenarios_run(collect, &lines), 0);
	for (const std::string &l : lines) {
		char name[64], policy[64];

		ASSERT_EQ(sscanf(l.c_str(), "scenario=%63s policy=%63s", name,
				 policy),
			  2)
			<< l;
		got[std::string(name) + "/" + policy] = l;
	}
	EXPECT_EQ(lines.size(), zsng::kNrScenarios * kNrPolicies);
	for (unsigned int i = 0; i < zsng::kNrScenarios; i++) {
		const zsng::Scenario &s = zsng::kScenarios[i];

		for (int p = 0; p < kNrPolicies; p++) {
			const Expect &e = kExpected[i][p];
			char want[256];

			snprintf(
				want, sizeof(want),
				"scenario=%s policy=%s objs_moved=%lu pages_freed=%lu "
				"pages_used=%lu verified=1",
				s.name, policy_str(p), e.moved, e.freed,
				e.used);
			/* The oracle's figures follow; scripts/test-compaction-experiment checks them. */
			EXPECT_EQ(got[std::string(s.name) + "/" + policy_str(p)]
					  .substr(0, strlen(want)),
				  want);
		}
	}
}

/* The same layouts through the C API, with the per-class and pool stats. */
class HandCounts : public ::testing::TestWithParam<int> {};

TEST_P(HandCounts, ExactMovesAndPages)
{
	const int policy = GetParam();
	unsigned long sum_moved = 0, sum_freed = 0;
	PoolPtr pool = make_pool(policy);

	ASSERT_NE(pool, nullptr);
	unsigned int ci =
		zsng_core_class_index(pool.get(), zsng::kScenarioRequest);
	struct zsng_class_stats cs;

	zsng_core_class_stats(pool.get(), ci, &cs);
	ASSERT_EQ(cs.size, 1024u);
	ASSERT_EQ(cs.pages_per_zspage, 1u);
	ASSERT_EQ(cs.objs_per_zspage, 4u);

	for (unsigned int i = 0; i < zsng::kNrScenarios; i++) {
		const zsng::Scenario &s = zsng::kScenarios[i];
		const Expect &e = kExpected[i][policy];
		std::vector<unsigned long> hs;
		size_t n = strlen(s.layout);

		for (size_t k = 0; k < n; k++) {
			unsigned long h = zsng_core_malloc(
				pool.get(), zsng::kScenarioRequest, 0);

			ASSERT_FALSE(zsng_is_error(h));
			stamp(pool.get(), h, zsng::kScenarioRequest, k);
			hs.push_back(h);
		}
		for (size_t k = 0; k < n; k++) {
			if (s.layout[k] == 'x') {
				zsng_core_free(pool.get(), hs[k]);
				hs[k] = 0;
			}
		}
		zsng_core_class_stats(pool.get(), ci, &cs);
		unsigned long moved0 = cs.objs_moved,
			      compacted0 = cs.pages_compacted;
		EXPECT_EQ(zsng_core_compactable_pages(pool.get()), e.freed)
			<< s.name;

		EXPECT_EQ(zsng_core_compact_class(pool.get(), ci), e.freed)
			<< s.name;
		zsng_core_class_stats(pool.get(), ci, &cs);
		EXPECT_EQ(cs.objs_moved - moved0, e.moved) << s.name;
		EXPECT_EQ(cs.pages_compacted - compacted0, e.freed) << s.name;
		EXPECT_EQ(cs.pages_used, e.used) << s.name;
		EXPECT_EQ(cs.freeable, 0u) << s.name;
		sum_moved += e.moved;
		sum_freed += e.freed;

		for (size_t k = 0; k < n; k++)
			if (hs[k])
				EXPECT_EQ(first_bad_byte(pool.get(), hs[k],
							 zsng::kScenarioRequest,
							 k),
					  -1)
					<< s.name << " object " << k;
		EXPECT_EQ(zsng_core_check(pool.get()), 0) << s.name;
		for (unsigned long h : hs)
			if (h)
				zsng_core_free(pool.get(), h);
		EXPECT_EQ(zsng_core_total_pages(pool.get()), 0u);
	}
	/* The pool counters are the sums over the scenarios. */
	struct zsng_pool_stats ps;

	zsng_core_pool_stats(pool.get(), &ps);
	EXPECT_EQ(ps.objs_moved, sum_moved);
	EXPECT_EQ(ps.pages_compacted, sum_freed);
	zsng_core_class_stats(pool.get(), ci, &cs);
	EXPECT_EQ(cs.objs_moved, sum_moved);
	EXPECT_EQ(cs.pages_compacted, sum_freed);
}

INSTANTIATE_TEST_SUITE_P(Policies, HandCounts, ::testing::Range(0, kNrPolicies),
			 policy_param_name);

/* Before compaction, the lists hold what the traces above say. */
TEST(CompactionScenarios, GroupColumnsBeforeCompaction)
{
	struct Want {
		int policy;
		unsigned long groups[12];
	};
	/* twos: Z0..Z3 hold 2 of 4, Z4 holds 1 of 4 */
	const Want wants[] = {
		{ kLegacy, { 0, 5, 0, 0 } },
		{ kLegacyGroups, { 0, 5, 0, 0 } },
		{ kRatio, { 0, 0, 0, 1, 0, 0, 4, 0, 0, 0, 0, 0 } },
		/* exact is shown in the ratio columns */
		{ kExact, { 0, 0, 0, 1, 0, 0, 4, 0, 0, 0, 0, 0 } },
	};
	const char *layout = scenario_named("twos").layout;

	for (const Want &w : wants) {
		PoolPtr pool = make_pool(w.policy);
		std::vector<unsigned long> hs;
		struct zsng_class_stats cs;
		unsigned int ci = zsng_core_class_index(pool.get(),
							zsng::kScenarioRequest);

		for (size_t k = 0; k < strlen(layout); k++)
			hs.push_back(zsng_core_malloc(
				pool.get(), zsng::kScenarioRequest, 0));
		for (size_t k = 0; k < strlen(layout); k++)
			if (layout[k] == 'x')
				zsng_core_free(pool.get(), hs[k]);
		zsng_core_class_stats(pool.get(), ci, &cs);
		for (unsigned int g = 0; g < cs.nr_groups; g++)
			EXPECT_EQ(cs.groups[g], w.groups[g])
				<< policy_str(w.policy) << " group " << g;
		EXPECT_EQ(cs.obj_used, 9u);
		EXPECT_EQ(cs.obj_allocated, 20u);
		EXPECT_EQ(cs.freeable, 2u);
		for (size_t k = 0; k < strlen(layout); k++)
			if (layout[k] != 'x')
				zsng_core_free(pool.get(), hs[k]);
	}
}

/* ---- Random workloads ---------------------------------------------------- */

struct Live {
	unsigned long h, len;
	uint64_t seed;
};

/*
 * Fills many classes with a mix of sizes, frees a random ~60%, and returns
 * what is still live.
 */
static std::vector<Live> fragment(zsng_core_pool *pool, unsigned int seed,
				  unsigned int n)
{
	std::mt19937 rng(seed);
	std::vector<Live> all, kept;

	for (unsigned int k = 0; k < n; k++) {
		/* mostly small, some multi-page-class sizes, some huge */
		unsigned long len = rng() % 4 ? 1 + rng() % 1500 :
						1 + rng() % 4096;
		unsigned long h = zsng_core_malloc(pool, len, 0);

		if (zsng_is_error(h))
			ADD_FAILURE() << "malloc " << len;
		stamp(pool, h, len, seed * 1000003ull + k);
		all.push_back({ h, len, seed * 1000003ull + k });
	}
	for (const Live &o : all) {
		if (rng() % 10 < 6)
			zsng_core_free(pool, o.h);
		else
			kept.push_back(o);
	}
	return kept;
}

class RandomCompaction : public ::testing::TestWithParam<int> {};

TEST_P(RandomCompaction, KeepsEveryByteAndEveryHandle)
{
	long allocs0 = zsng_user_live_allocs(), pages0 = zsng_user_live_pages();

	for (unsigned int seed = 1; seed <= 3; seed++) {
		PoolPtr pool = make_pool(GetParam());
		std::vector<Live> live = fragment(pool.get(), seed, 6000);
		unsigned long before = zsng_core_total_pages(pool.get());
		unsigned long can = zsng_core_compactable_pages(pool.get());

		ASSERT_GT(can, 0u)
			<< "the workload must leave something to compact";
		unsigned long freed = zsng_core_compact(pool.get());

		EXPECT_GT(freed, 0u);
		EXPECT_LE(freed, can);
		EXPECT_EQ(zsng_core_total_pages(pool.get()), before - freed);
		ASSERT_EQ(zsng_core_check(pool.get()), 0);
		for (const Live &o : live)
			ASSERT_EQ(first_bad_byte(pool.get(), o.h, o.len,
						 o.seed),
				  -1)
				<< "seed " << seed << " len " << o.len;

		/* Handles stay usable after the move: rewrite, free half, compact again. */
		for (size_t i = 0; i < live.size(); i++) {
			if (i % 2) {
				zsng_core_free(pool.get(), live[i].h);
				live[i].h = 0;
			} else {
				live[i].seed ^= 0x5555;
				stamp(pool.get(), live[i].h, live[i].len,
				      live[i].seed);
			}
		}
		zsng_core_compact(pool.get());
		ASSERT_EQ(zsng_core_check(pool.get()), 0);
		for (const Live &o : live) {
			if (!o.h)
				continue;
			ASSERT_EQ(first_bad_byte(pool.get(), o.h, o.len,
						 o.seed),
				  -1);
			zsng_core_free(pool.get(), o.h);
		}
		EXPECT_EQ(zsng_core_total_pages(pool.get()), 0u);

		struct zsng_pool_stats ps;
		zsng_core_pool_stats(pool.get(), &ps);
		unsigned long moved = 0, compacted = 0;
		for (unsigned int ci = 0; ci < zsng_core_nr_classes(pool.get());
		     ci++) {
			struct zsng_class_stats cs;

			zsng_core_class_stats(pool.get(), ci, &cs);
			moved += cs.objs_moved;
			compacted += cs.pages_compacted;
		}
		EXPECT_EQ(ps.objs_moved, moved);
		EXPECT_EQ(ps.pages_compacted, compacted);
		EXPECT_GE(ps.pages_compacted, freed);
	}
	EXPECT_EQ(zsng_user_live_allocs(), allocs0);
	EXPECT_EQ(zsng_user_live_pages(), pages0);
}

/*
 * After a full compaction no class keeps a zspage's worth of free slots.
 * legacy could in principle stop early (it gives up when the lock is
 * contended, or when no destination is left for a source); with one thread
 * it never does: each pass frees its source, and with no destination left
 * all free slots are in the source, fewer than a zspage's worth. So the
 * same assertion holds for all four policies here.
 */
TEST_P(RandomCompaction, NoZspageWorthOfFreeSlotsLeft)
{
	for (unsigned int seed = 10; seed < 13; seed++) {
		PoolPtr pool = make_pool(GetParam());
		std::vector<Live> live = fragment(pool.get(), seed, 8000);
		unsigned long can = zsng_core_compactable_pages(pool.get());

		EXPECT_EQ(zsng_core_compact(pool.get()), can)
			<< "seed " << seed;
		EXPECT_EQ(zsng_core_compactable_pages(pool.get()), 0u);
		for (unsigned int ci = 0; ci < zsng_core_nr_classes(pool.get());
		     ci++) {
			struct zsng_class_stats cs;

			zsng_core_class_stats(pool.get(), ci, &cs);
			if (cs.huge)
				continue;
			EXPECT_EQ(cs.freeable, 0u) << "class " << cs.size;
			EXPECT_LT(cs.obj_allocated - cs.obj_used,
				  cs.objs_per_zspage)
				<< "class " << cs.size;
		}
		for (const Live &o : live)
			zsng_core_free(pool.get(), o.h);
	}
}

/* Compaction never crosses classes: compact_class() leaves the others be. */
TEST_P(RandomCompaction, CompactClassOnlyTouchesThatClass)
{
	PoolPtr pool = make_pool(GetParam());
	std::vector<Live> live = fragment(pool.get(), 77, 4000);
	unsigned int nr = zsng_core_nr_classes(pool.get());
	std::vector<unsigned long> before(nr);

	for (unsigned int ci = 0; ci < nr; ci++) {
		struct zsng_class_stats cs;

		zsng_core_class_stats(pool.get(), ci, &cs);
		before[ci] = cs.pages_used;
	}
	unsigned int target = zsng_core_class_index(pool.get(), 1000);
	zsng_core_compact_class(pool.get(), target);
	for (unsigned int ci = 0; ci < nr; ci++) {
		struct zsng_class_stats cs;

		zsng_core_class_stats(pool.get(), ci, &cs);
		if (ci == target)
			EXPECT_EQ(cs.freeable, 0u);
		else
			EXPECT_EQ(cs.pages_used, before[ci])
				<< "class " << cs.size;
	}
	/* Out of range and the huge class: nothing to do. */
	EXPECT_EQ(zsng_core_compact_class(pool.get(), nr), 0u);
	EXPECT_EQ(zsng_core_compact_class(pool.get(), nr - 1), 0u);
	for (const Live &o : live) {
		EXPECT_EQ(first_bad_byte(pool.get(), o.h, o.len, o.seed), -1);
		zsng_core_free(pool.get(), o.h);
	}
}

INSTANTIATE_TEST_SUITE_P(Policies, RandomCompaction,
			 ::testing::Range(0, kNrPolicies), policy_param_name);

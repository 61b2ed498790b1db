// SPDX-License-Identifier: GPL-2.0
/*
 * Growing chains (ZSNG_POOL_GROWING_CHAINS, core/size_class.hpp): a class
 * takes short zspages (at most ZSNG_MIN_CHAIN_PAGES pages) until it holds
 * long_after objects, then long ones; a small pool holds what a pool of
 * 4-page chains holds, a large one what long chains pack; compaction,
 * frees and the checker handle classes that mix the two.
 */
#include <random>
#include <vector>

#include "size_class.hpp"
#include "test_helpers.hpp"

using namespace zsng_test;

namespace
{
constexpr unsigned int kGrowing = ZSNG_POOL_GROWING_CHAINS;

zsng_class_stats class_stats(zsng_core_pool *p, unsigned long len)
{
	zsng_class_stats cs;

	zsng_core_class_stats(p, zsng_core_class_index(p, len), &cs);
	return cs;
}

unsigned long pages_used(zsng_core_pool *p)
{
	zsng_pool_stats ps;

	zsng_core_pool_stats(p, &ps);
	return ps.pages_used;
}

TEST(GrowingGeometry, ShortIsTheFourPageChainAndLongAfterPaysForTheTail)
{
	using namespace zsng;
	ClassGeometry geo[kNrSizeSlots], fixed[kNrSizeSlots];
	u16 slots[kNrSizeSlots], fixed_slots[kNrSizeSlots];
	u32 n = build_class_table(8, geo, slots, true);
	u32 nf = build_class_table(8, fixed, fixed_slots);
	bool some_short = false;

	/* the short geometry splits classes the long one merged, never less */
	EXPECT_GE(n, nf);
	for (u32 i = 0; i < n; i++) {
		const ClassGeometry &g = geo[i];

		EXPECT_EQ(g.pages_per_zspage, pages_per_zspage_for(g.size, 8));
		EXPECT_LE(g.short_pages, (u32)ZSNG_MIN_CHAIN_PAGES);
		EXPECT_EQ(g.short_objs, g.short_pages * kPageSize / g.size);
		if (g.long_after == 0) {
			/* the long chain saves nothing: it is the only one */
			EXPECT_EQ(g.short_pages, g.pages_per_zspage);
			EXPECT_EQ(g.short_objs, g.objs_per_zspage);
			continue;
		}
		some_short = true;
		EXPECT_EQ(g.short_pages, pages_per_zspage_for(g.size, 4));
		/* fewer pages per object in the long chain ... */
		EXPECT_LT((double)g.pages_per_zspage / g.objs_per_zspage,
			  (double)g.short_pages / g.short_objs);
		/* ... and long_after objects save two long zspages' pages */
		double saving = (double)g.short_pages / g.short_objs -
				(double)g.pages_per_zspage / g.objs_per_zspage;
		EXPECT_GE(g.long_after * saving,
			  kLongTailsPaid * g.pages_per_zspage - 1e-9);
		EXPECT_LT((g.long_after - 1) * saving,
			  kLongTailsPaid * g.pages_per_zspage);
	}
	EXPECT_TRUE(some_short);
	/* 3,600 bytes: 1 a page short, 9 in 8 pages long: 2 * 8 / (1/9) */
	EXPECT_EQ(long_after_objs(1, 1, 8, 9), 144ul);
	EXPECT_EQ(long_after_objs(4, 8, 4, 8), 0ul);
}

/*
 * One object in each of many classes: each class's first zspage is its
 * short one, of at most 4 pages (the classes themselves are the long
 * table's, finer than a 4-page pool's, so the pool holds more zspages
 * than that one: what stays of the small-pool tail); fewer pages than
 * with fixed 8-page chains.
 */
TEST(Growing, SmallPoolTakesShortZspages)
{
	PoolPtr grow = make_pool(kRatio, 8, kGrowing);
	PoolPtr eight = make_pool(kRatio, 8);
	std::vector<unsigned long> hg, he;

	for (unsigned long len = 200; len <= 4000; len += 97) {
		unsigned long before = pages_used(grow.get());
		zsng_class_stats cs = class_stats(grow.get(), len);
		bool fresh = cs.obj_allocated == 0;

		hg.push_back(zsng_core_malloc(grow.get(), len, 0));
		he.push_back(zsng_core_malloc(eight.get(), len, 0));
		if (fresh)
			EXPECT_EQ(pages_used(grow.get()) - before,
				  zsng::pages_per_zspage_for(cs.size, 4))
				<< "len " << len;
	}
	EXPECT_LT(pages_used(grow.get()) * 10, pages_used(eight.get()) * 7);
	EXPECT_EQ(zsng_core_check(grow.get()), 0);
	for (unsigned long h : hg)
		zsng_core_free(grow.get(), h);
	for (unsigned long h : he)
		zsng_core_free(eight.get(), h);
	EXPECT_EQ(pages_used(grow.get()), 0ul);
}

/*
 * 3,600-byte objects: short zspages (one page each) until 144 objects
 * are in use, then 8-page zspages of 9; a large class ends near the long
 * chain's pages and well under the 4-page pool's.
 */
TEST(Growing, AClassGrowsIntoLongZspages)
{
	const unsigned long len = 3600 - 8;
	PoolPtr grow = make_pool(kRatio, 8, kGrowing);
	PoolPtr four = make_pool(kRatio, 4);
	PoolPtr eight = make_pool(kRatio, 8);
	zsng_class_stats cs = class_stats(grow.get(), len);
	std::vector<unsigned long> h;

	ASSERT_EQ(cs.pages_per_zspage, 8u);
	ASSERT_EQ(cs.objs_per_zspage, 9u);
	for (unsigned int i = 0; i < 144; i++)
		h.push_back(zsng_core_malloc(grow.get(), len, 0));
	cs = class_stats(grow.get(), len);
	EXPECT_EQ(cs.pages_used, 144ul); /* 144 one-page zspages */
	EXPECT_EQ(cs.obj_allocated, 144ul);
	h.push_back(zsng_core_malloc(grow.get(), len, 0));
	cs = class_stats(grow.get(), len);
	EXPECT_EQ(cs.pages_used, 152ul); /* the 145th opened a long one */
	EXPECT_EQ(cs.obj_allocated, 153ul);
	for (unsigned int i = 145; i < 900; i++)
		h.push_back(zsng_core_malloc(grow.get(), len, 0));
	for (unsigned int i = 0; i < 900; i++) {
		zsng_core_malloc(four.get(), len, 0);
		zsng_core_malloc(eight.get(), len, 0);
	}
	EXPECT_EQ(pages_used(four.get()), 900ul);
	EXPECT_EQ(pages_used(eight.get()), 800ul);
	/* 144 + ceil(756 / 9) * 8 */
	EXPECT_EQ(pages_used(grow.get()), 144ul + 84 * 8);
	EXPECT_EQ(zsng_core_check(grow.get()), 0);
	for (unsigned long x : h)
		zsng_core_free(grow.get(), x);
	EXPECT_EQ(pages_used(grow.get()), 0ul);
}

/*
 * Classes that mix short and long zspages: a random 60% freed, then
 * compaction, under every policy (exact groups by count: a full short
 * zspage must still be full). Every survivor reads back; the checker
 * agrees; compaction frees pages; freeing the rest empties the pool.
 */
class GrowingPolicies : public ::testing::TestWithParam<int> {};

TEST_P(GrowingPolicies, MixedZspagesCompactAndVerify)
{
	PoolPtr p = make_pool(GetParam(), 8, kGrowing);
	std::mt19937_64 rng(7);
	struct Obj {
		unsigned long h, len;
	};
	std::vector<Obj> objs;

	for (unsigned int i = 0; i < 6000; i++) {
		unsigned long len = 256 + rng() % 3700;
		unsigned long h = zsng_core_malloc(p.get(), len, 0);

		ASSERT_FALSE(zsng_is_error(h));
		stamp(p.get(), h, len, h ^ len);
		objs.push_back({ h, len });
	}
	ASSERT_EQ(zsng_core_check(p.get()), 0);
	std::vector<Obj> kept;
	for (const Obj &o : objs) {
		if (rng() % 100 < 60)
			zsng_core_free(p.get(), o.h);
		else
			kept.push_back(o);
	}
	unsigned long before = pages_used(p.get());
	unsigned long freed = zsng_core_compact(p.get());

	EXPECT_GT(freed, 0ul);
	EXPECT_EQ(pages_used(p.get()), before - freed);
	EXPECT_EQ(zsng_core_check(p.get()), 0);
	for (const Obj &o : kept)
		ASSERT_EQ(first_bad_byte(p.get(), o.h, o.len, o.h ^ o.len), -1)
			<< "len " << o.len;
	/* the shrinker's estimate: nothing whole is left to gain */
	EXPECT_EQ(zsng_core_compactable_pages(p.get()), 0ul);
	for (const Obj &o : kept)
		zsng_core_free(p.get(), o.h);
	EXPECT_EQ(pages_used(p.get()), 0ul);
	EXPECT_EQ(zsng_core_check(p.get()), 0);
}

INSTANTIATE_TEST_SUITE_P(Policies, GrowingPolicies,
			 ::testing::Range(0, kNrPolicies), policy_param_name);

/* Without the flag nothing changes: a single object takes a long zspage. */
TEST(Growing, OffByDefault)
{
	PoolPtr p = make_pool(kRatio, 8);
	unsigned long h = zsng_core_malloc(p.get(), 3600 - 8, 0);

	EXPECT_EQ(pages_used(p.get()), 8ul);
	zsng_core_free(p.get(), h);
}

} // namespace

/*
 * ZSNG_POOL_LEAST_WASTE (6.3's chain rule, tests/test_size_class.cpp): a
 * 200-byte request (208-byte slot) takes 3-page zspages of 59 objects
 * where 6.1's rule gives 2 pages of 39; in a growing pool only the long
 * geometry follows it. Every flag combination makes a pool.
 */
TEST(Growing, LeastWasteChainsInAPool)
{
	PoolPtr lw = make_pool(kRatio, 8, ZSNG_POOL_LEAST_WASTE);
	PoolPtr pct = make_pool(kRatio, 8);
	PoolPtr both = make_pool(kRatio, 8, ZSNG_POOL_LEAST_WASTE | kGrowing);

	ASSERT_TRUE(lw && pct && both);
	EXPECT_EQ(class_stats(lw.get(), 200).pages_per_zspage, 3u);
	EXPECT_EQ(class_stats(lw.get(), 200).objs_per_zspage, 59u);
	EXPECT_EQ(class_stats(pct.get(), 200).pages_per_zspage, 2u);
	EXPECT_EQ(class_stats(pct.get(), 200).objs_per_zspage, 39u);
	unsigned long h = zsng_core_malloc(lw.get(), 200, 0);
	ASSERT_FALSE(zsng_is_error(h));
	EXPECT_EQ(pages_used(lw.get()), 3ul);
	zsng_core_free(lw.get(), h);
	EXPECT_EQ(zsng_core_check(lw.get()), 0);
	/* 3,600 bytes: 8 pages by either rule; short zspages 6.1's */
	EXPECT_EQ(class_stats(both.get(), 3600 - 8).pages_per_zspage, 8u);
	EXPECT_EQ(class_stats(both.get(), 3600 - 8).short_pages_per_zspage, 1u);
	EXPECT_FALSE(make_pool(kRatio, 8, ZSNG_POOL_FLAGS + 1u));
}

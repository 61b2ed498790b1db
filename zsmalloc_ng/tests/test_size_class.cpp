// SPDX-License-Identifier: GPL-2.0
/* Invariants of the size-class table. */
#include <gtest/gtest.h>

#include "size_class.hpp"

using namespace zsng;

class SizeClassTable : public ::testing::TestWithParam<u32> {
    protected:
	void SetUp() override
	{
		n = build_class_table(GetParam(), geo, slots);
	}
	ClassGeometry geo[kNrSizeSlots];
	u16 slots[kNrSizeSlots];
	u32 n = 0;
};

TEST_P(SizeClassTable, AscendingDistinctAndMerged)
{
	ASSERT_GT(n, 10u);
	for (u32 i = 1; i < n; i++) {
		EXPECT_LT(geo[i - 1].size, geo[i].size);
		/* Neighbours with the same geometry would have been merged. */
		EXPECT_FALSE(geo[i - 1].pages_per_zspage ==
				     geo[i].pages_per_zspage &&
			     geo[i - 1].objs_per_zspage ==
				     geo[i].objs_per_zspage);
	}
	EXPECT_EQ(geo[0].size, kMinAllocSize);
	EXPECT_EQ(geo[n - 1].size, kPageSize);
}

TEST_P(SizeClassTable, GeometryFitsTheChain)
{
	for (u32 i = 0; i < n; i++) {
		EXPECT_GE(geo[i].pages_per_zspage, 1u);
		EXPECT_LE(geo[i].pages_per_zspage, GetParam());
		EXPECT_EQ(geo[i].objs_per_zspage,
			  geo[i].pages_per_zspage * kPageSize / geo[i].size);
		EXPECT_EQ(geo[i].size % kClassDelta, 0u);
		EXPECT_EQ(geo[i].huge, geo[i].pages_per_zspage == 1 &&
					       geo[i].objs_per_zspage == 1);
	}
	/* Only the last class is huge: every huge size merged into it. */
	for (u32 i = 0; i + 1 < n; i++)
		EXPECT_FALSE(geo[i].huge) << "class " << geo[i].size;
	EXPECT_TRUE(geo[n - 1].huge);
}

TEST_P(SizeClassTable, EverySlotServedByALargeEnoughClass)
{
	for (u32 slot = 0; slot < kNrSizeSlots; slot++) {
		u32 size = kMinAllocSize + slot * kClassDelta;

		ASSERT_LT(slots[slot], n);
		EXPECT_GE(geo[slots[slot]].size, size);
		if (slots[slot] > 0)
			EXPECT_LT(geo[slots[slot] - 1].size, size);
	}
}

TEST_P(SizeClassTable, ChainMinimisesWaste)
{
	for (u32 i = 0; i < n; i++) {
		u32 best = geo[i].pages_per_zspage;
		ulong used_best = best * kPageSize / geo[i].size * geo[i].size;

		for (u32 p = 1; p <= GetParam(); p++) {
			ulong used = p * kPageSize / geo[i].size * geo[i].size;

			EXPECT_LE(used * 100 / (p * kPageSize),
				  used_best * 100 / (best * kPageSize));
		}
	}
}

INSTANTIATE_TEST_SUITE_P(ChainLengths, SizeClassTable,
			 ::testing::Values(4u, 8u, 16u));

TEST(SizeClass, KnownChains)
{
	/* 1024 fits a page exactly; 3264 needs 4 pages for 5 objects. */
	EXPECT_EQ(pages_per_zspage_for(1024, 8), 1u);
	EXPECT_EQ(pages_per_zspage_for(32, 8), 1u);
	EXPECT_EQ(pages_per_zspage_for(3264, 4), 4u);
}

/*
 * ZSNG_POOL_LEAST_WASTE: 6.3's rule. Size 208 (the example of the patch
 * that brought it): 1, 2, 3 pages leave 144, 80, 16 bytes; 6.1's rule
 * sees 96%, 99%, 99% and takes 2, the fewest bytes take 3. A power of two
 * takes one page even where a longer chain also wastes nothing.
 */
TEST(SizeClass, LeastWasteChains)
{
	EXPECT_EQ(pages_per_zspage_for(208, 8), 2u);
	EXPECT_EQ(pages_per_zspage_for(208, 8, true), 3u);
	EXPECT_EQ(pages_per_zspage_for(2048, 8, true), 1u);
	EXPECT_EQ(pages_per_zspage_for(1488, 8, true), 4u);
	EXPECT_EQ(pages_per_zspage_for(3632, 8, true), 8u);

	/* against the rule written out: every size, every chain length */
	u32 differ = 0;
	for (u32 max_pages : { 4u, 8u, 16u }) {
		for (u32 size = kMinAllocSize; size <= kPageSize;
		     size += kClassDelta) {
			u32 want = 1;
			ulong least = ~0ul;

			for (u32 p = 1; p <= max_pages && (size & (size - 1));
			     p++) {
				if (p * kPageSize % size < least) {
					least = p * kPageSize % size;
					want = p;
				}
			}
			EXPECT_EQ(pages_per_zspage_for(size, max_pages, true),
				  want)
				<< size << " bytes, " << max_pages << " pages";
			if (max_pages == 8)
				differ += want != pages_per_zspage_for(size, 8);
		}
	}
	/* the rounding of 6.1's percentages: 16 sizes of 255 at 8 pages */
	EXPECT_EQ(differ, 16u);

	/* the table's long chains follow it, the short ones keep 6.1's */
	ClassGeometry geo[kNrSizeSlots];
	u16 slots[kNrSizeSlots];
	u32 n = build_class_table(8, geo, slots, true, true);
	for (u32 i = 0; i < n; i++) {
		EXPECT_EQ(geo[i].pages_per_zspage,
			  pages_per_zspage_for(geo[i].size, 8, true));
		if (geo[i].long_after)
			EXPECT_EQ(geo[i].short_pages,
				  pages_per_zspage_for(geo[i].size, 4));
	}
}

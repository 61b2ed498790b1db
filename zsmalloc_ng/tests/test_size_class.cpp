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

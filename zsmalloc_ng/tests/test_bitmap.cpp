// SPDX-License-Identifier: GPL-2.0
/*
 * The non-empty-group bitmap: exact-policy lookups of the fullest and
 * emptiest group go through find_last/find_first over up to 2049 bits.
 */
#include <gtest/gtest.h>

#include "types.hpp"

using namespace zsng;

TEST(Bitmap, EmptyFindsNothing)
{
	u64 map[4] = {};

	EXPECT_EQ(Bitmap::find_first(map, 0, 255), -1);
	EXPECT_EQ(Bitmap::find_last(map, 0, 255), -1);
	/* An empty range finds nothing even with bits set. */
	map[0] = ~0ULL;
	EXPECT_EQ(Bitmap::find_first(map, 5, 4), -1);
	EXPECT_EQ(Bitmap::find_last(map, 5, 4), -1);
}

TEST(Bitmap, RangeEndsAreInclusiveAcrossWords)
{
	u64 map[4] = {};

	Bitmap::set(map, 63);
	Bitmap::set(map, 64);
	Bitmap::set(map, 200);
	EXPECT_EQ(Bitmap::find_first(map, 0, 255), 63);
	EXPECT_EQ(Bitmap::find_last(map, 0, 255), 200);
	EXPECT_EQ(Bitmap::find_first(map, 64, 255), 64);
	EXPECT_EQ(Bitmap::find_last(map, 0, 63), 63);
	EXPECT_EQ(Bitmap::find_last(map, 65, 199), -1);
	EXPECT_EQ(Bitmap::find_first(map, 200, 200), 200);
	Bitmap::clear(map, 200);
	EXPECT_EQ(Bitmap::find_last(map, 0, 255), 64);
}

TEST(Bitmap, AgreesWithALinearScan)
{
	u64 map[33] = {};
	u64 seed = 12345;

	for (int i = 0; i < 300; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		Bitmap::set(map, (u32)(seed >> 33) % 2049);
	}
	for (u32 lo = 0; lo < 2049; lo += 37) {
		for (u32 hi = lo; hi < 2049; hi += 101) {
			int first = -1, last = -1;

			for (u32 b = lo; b <= hi; b++) {
				if (map[b / 64] & (1ULL << (b % 64))) {
					if (first < 0)
						first = (int)b;
					last = (int)b;
				}
			}
			ASSERT_EQ(Bitmap::find_first(map, lo, hi), first)
				<< lo << ".." << hi;
			ASSERT_EQ(Bitmap::find_last(map, lo, hi), last)
				<< lo << ".." << hi;
		}
	}
}

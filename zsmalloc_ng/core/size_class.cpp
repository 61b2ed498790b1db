// SPDX-License-Identifier: GPL-2.0
#include "size_class.hpp"

namespace zsng
{
u32 pages_per_zspage_for(u32 size, u32 max_pages, bool least_waste)
{
	u32 best = 1, best_used_pct = 0;

	if (least_waste) {
		ulong best_waste = ~0ul;

		if (!(size & (size - 1)))
			return 1;
		for (u32 pages = 1; pages <= max_pages; pages++) {
			ulong waste = pages * kPageSize % size;

			if (waste < best_waste) {
				best_waste = waste;
				best = pages;
			}
		}
		return best;
	}

	for (u32 pages = 1; pages <= max_pages; pages++) {
		ulong span = pages * kPageSize;
		ulong waste = span % size;
		u32 used_pct = (u32)((span - waste) * 100 / span);

		if (used_pct > best_used_pct) {
			best_used_pct = used_pct;
			best = pages;
		}
	}
	return best;
}

ulong long_after_objs(u32 short_pages, u32 short_objs, u32 long_pages,
		      u32 long_objs)
{
	/* saving per object = sp / so - lp / lo = (sp lo - lp so) / (so lo) */
	ulong num = (ulong)short_pages * long_objs;
	ulong cost = (ulong)long_pages * short_objs;

	if (num <= cost)
		return 0; /* the long geometry saves nothing: never short */
	/* kLongTailsPaid * long_pages / saving, rounded up */
	return ((ulong)kLongTailsPaid * long_pages * short_objs * long_objs +
		num - cost - 1) /
	       (num - cost);
}

u32 build_class_table(u32 max_pages, ClassGeometry *geo, u16 *slot_to_class,
		      bool growing, bool least_waste)
{
	u32 short_max = min_of(max_pages, (u32)ZSNG_MIN_CHAIN_PAGES);
	u32 n = 0;

	/*
	 * From the largest size down, so that a smaller twin merges into the
	 * larger class; @geo is filled descending and reversed at the end.
	 */
	for (u32 slot = kNrSizeSlots; slot-- > 0;) {
		u32 size = kMinAllocSize + slot * kClassDelta;
		u32 pages = pages_per_zspage_for(size, max_pages, least_waste);
		u32 objs = (u32)(pages * kPageSize / size);
		u32 spages = growing ? pages_per_zspage_for(size, short_max) :
				       pages;
		u32 sobjs = (u32)(spages * kPageSize / size);
		ulong after = long_after_objs(spages, sobjs, pages, objs);

		if (!after) {
			spages = pages;
			sobjs = objs;
		}
		if (n && geo[n - 1].pages_per_zspage == pages &&
		    geo[n - 1].objs_per_zspage == objs &&
		    geo[n - 1].short_pages == spages &&
		    geo[n - 1].short_objs == sobjs) {
			slot_to_class[slot] = (u16)(n - 1);
			continue;
		}
		geo[n] = { size,   pages, objs, pages == 1 && objs == 1,
			   spages, sobjs, after };
		slot_to_class[slot] = (u16)n;
		n++;
	}
	for (u32 i = 0; i < n / 2; i++) {
		ClassGeometry t = geo[i];

		geo[i] = geo[n - 1 - i];
		geo[n - 1 - i] = t;
	}
	for (u32 slot = 0; slot < kNrSizeSlots; slot++)
		slot_to_class[slot] = (u16)(n - 1 - slot_to_class[slot]);
	return n;
}

} // namespace zsng

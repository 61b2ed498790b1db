// SPDX-License-Identifier: GPL-2.0
#include "size_class.hpp"

namespace zsng
{
u32 pages_per_zspage_for(u32 size, u32 max_pages)
{
	u32 best = 1, best_used_pct = 0;

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

u32 build_class_table(u32 max_pages, ClassGeometry *geo, u16 *slot_to_class)
{
	u32 n = 0;

	/*
	 * From the largest size down, so that a smaller twin merges into the
	 * larger class; @geo is filled descending and reversed at the end.
	 */
	for (u32 slot = kNrSizeSlots; slot-- > 0;) {
		u32 size = kMinAllocSize + slot * kClassDelta;
		u32 pages = pages_per_zspage_for(size, max_pages);
		u32 objs = (u32)(pages * kPageSize / size);

		if (n && geo[n - 1].pages_per_zspage == pages &&
		    geo[n - 1].objs_per_zspage == objs) {
			slot_to_class[slot] = (u16)(n - 1);
			continue;
		}
		geo[n] = { size, pages, objs, pages == 1 && objs == 1 };
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

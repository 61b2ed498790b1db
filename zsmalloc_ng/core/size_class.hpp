// SPDX-License-Identifier: GPL-2.0
/*
 * The size-class table.
 *
 * Objects are rounded up to a class: 32 bytes to PAGE_SIZE in 16-byte
 * steps (kClassDelta). 32 is the smallest useful compressed object plus
 * its 8-byte in-band header; 16 keeps every object start 16-byte aligned,
 * so the 8-byte header of an object never straddles a page boundary.
 *
 * A zspage of a class is a chain of 1..max_pages order-0 pages (max_pages
 * within zsmalloc_ng_abi.h's ZSNG_MIN/MAX_CHAIN_PAGES) whose
 * length minimises the tail that no object fits in (the same rule as
 * mm/zsmalloc.c's get_pages_per_zspage()). Neighbouring classes with the
 * same (pages per zspage, objects per zspage) would behave identically, so
 * the smaller one is merged into the larger: a request is served by the
 * first distinct class at least as large as it.
 *
 * A class whose zspage is one page holding one object is "huge": it holds
 * data that barely compressed, without an in-band header.
 */
#ifndef ZSNG_SIZE_CLASS_HPP
#define ZSNG_SIZE_CLASS_HPP

#include "types.hpp"

namespace zsng
{
constexpr u32 kMinAllocSize = 32;
constexpr u32 kClassDelta = 16;
constexpr u32 kNrSizeSlots = (kPageSize - kMinAllocSize) / kClassDelta + 1;
/* The in-band header: the owning handle, or the next free object index. */
constexpr u32 kObjHeaderSize = 8;
static_assert(ZSNG_MIN_CHAIN_PAGES <= ZSNG_DEFAULT_CHAIN_PAGES &&
	      ZSNG_DEFAULT_CHAIN_PAGES <= ZSNG_MAX_CHAIN_PAGES);

struct ClassGeometry {
	u32 size;
	u32 pages_per_zspage;
	u32 objs_per_zspage;
	bool huge;
};

/* Chain length for @size with at most @max_pages pages: the least waste. */
u32 pages_per_zspage_for(u32 size, u32 max_pages);

/*
 * Fills @geo with the distinct classes, ascending by size, and @slot_to_class
 * (kNrSizeSlots entries) with the distinct class serving each 16-byte slot.
 * Returns the number of distinct classes.
 */
u32 build_class_table(u32 max_pages, ClassGeometry *geo, u16 *slot_to_class);

inline u32 size_slot(ulong size)
{
	if (size <= kMinAllocSize)
		return 0;
	return (u32)((size - kMinAllocSize + kClassDelta - 1) / kClassDelta);
}

} // namespace zsng

#endif

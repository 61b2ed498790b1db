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
 * length minimises the tail that no object fits in: by default the
 * largest used percentage, integer, the first of equals (6.1's
 * get_pages_per_zspage()); with least_waste (ZSNG_POOL_LEAST_WASTE) the
 * fewest bytes unused, the first of equals, one page for a power of two
 * (calculate_zspage_chain_size() since 6.3). The percentages' rounding
 * makes the two differ for 16 of the 255 sizes at 8 pages; with the
 * kernel's own rule the pool's classes are the stock's (the default
 * follows the kernel: compat/zsmalloc_chain.h). Neighbouring classes with
 * the same (pages per zspage, objects per zspage) would behave identically, so
 * the smaller one is merged into the larger: a request is served by the
 * first distinct class at least as large as it.
 *
 * A class whose zspage is one page holding one object is "huge": it holds
 * data that barely compressed, without an in-band header.
 *
 * Growing chains (pools created with ZSNG_POOL_GROWING_CHAINS): a class
 * has a second, short geometry, the best of at most ZSNG_MIN_CHAIN_PAGES
 * pages (what 6.1's zsmalloc uses), and takes its long zspages only once
 * it holds long_after objects. A long zspage packs better but, until it
 * fills, may leave up to its whole length unused: in a small pool, a
 * zspage or two a class, those tails are much of the pool
 * (Documentation/zsmalloc_ng.rst, "Growing chains"). long_after is where
 * the better packing pays for that tail: the objects whose saving (short
 * pages per object - long pages per object) adds up to kLongTailsPaid
 * long zspages' pages. Two, not one: with one, a class that has just gone
 * long holds a long zspage mostly empty, its tail unpaid; two cost a
 * little of the saving of a large pool. Classes with the same long
 * geometry merge only when their short geometries are the same too.
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
/* Growing chains: long tails the saving pays for before going long. */
constexpr u32 kLongTailsPaid = 2;
static_assert(ZSNG_MIN_CHAIN_PAGES <= ZSNG_DEFAULT_CHAIN_PAGES &&
	      ZSNG_DEFAULT_CHAIN_PAGES <= ZSNG_MAX_CHAIN_PAGES);

struct ClassGeometry {
	u32 size;
	u32 pages_per_zspage;
	u32 objs_per_zspage;
	bool huge;
	/* Growing chains: the short geometry and when to leave it. */
	u32 short_pages;
	u32 short_objs;
	ulong long_after; /* objects in use; 0: always long */
};

/* Chain length for @size with at most @max_pages pages: the least waste. */
u32 pages_per_zspage_for(u32 size, u32 max_pages, bool least_waste = false);

/*
 * Fills @geo with the distinct classes, ascending by size, and @slot_to_class
 * (kNrSizeSlots entries) with the distinct class serving each 16-byte slot.
 * Returns the number of distinct classes. Without @growing, the short
 * geometry is the long one and long_after 0. @least_waste: the long
 * chains by 6.3's rule (the short ones are 6.1's, by theirs).
 */
u32 build_class_table(u32 max_pages, ClassGeometry *geo, u16 *slot_to_class,
		      bool growing = false, bool least_waste = false);

/* The objects of a class after which its new zspages are long (above). */
ulong long_after_objs(u32 short_pages, u32 short_objs, u32 long_pages,
		      u32 long_objs);

inline u32 size_slot(ulong size)
{
	if (size <= kMinAllocSize)
		return 0;
	return (u32)((size - kMinAllocSize + kClassDelta - 1) / kClassDelta);
}

} // namespace zsng

#endif

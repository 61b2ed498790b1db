// SPDX-License-Identifier: GPL-2.0
/*
 * Freestanding basics for the allocator core: fixed-width integers from the
 * compiler, placement new, an intrusive circular list and a few bit helpers.
 * Nothing here allocates, throws or needs a C++ runtime.
 */
#ifndef ZSNG_TYPES_HPP
#define ZSNG_TYPES_HPP

#include "svc.h"

using zsng_size_t = decltype(sizeof(0));

#ifdef ZSNG_KERNEL
/* libstdc++'s <new> is not available with -nostdinc++: declare our own. */
inline void *operator new(zsng_size_t, void *where) noexcept
{
	return where;
}
#else
#include <new>
#endif

namespace zsng
{
using u8 = __UINT8_TYPE__;
using u16 = __UINT16_TYPE__;
using u32 = __UINT32_TYPE__;
using u64 = __UINT64_TYPE__;
using ulong = unsigned long;

constexpr ulong kPageSize = ZSNG_PAGE_SIZE;
constexpr u32 kPageShift = ZSNG_PAGE_SHIFT;

template <typename T> constexpr T min_of(T a, T b)
{
	return a < b ? a : b;
}

template <typename T> constexpr T max_of(T a, T b)
{
	return a > b ? a : b;
}

/* The core's only string compare (names of policies and patterns). */
inline bool str_eq(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

/* Relaxed atomics for counters read without their lock. */
inline ulong read_once(const ulong &v)
{
	return __atomic_load_n(&v, __ATOMIC_RELAXED);
}

/* The store that read_once() pairs with, by the one writer (a lock holder). */
inline void set_once(ulong &v, ulong x)
{
	__atomic_store_n(&v, x, __ATOMIC_RELAXED);
}

inline void add_relaxed(ulong &v, long delta)
{
	__atomic_fetch_add(&v, (ulong)delta, __ATOMIC_RELAXED);
}

#define ZSNG_WARN_ON(cond)                                        \
	({                                                        \
		bool __c = !!(cond);                              \
		if (__builtin_expect(__c, 0))                     \
			zsng_svc_warn(__FILE__, __LINE__, #cond); \
		__c;                                              \
	})

/* An intrusive circular doubly linked list, like the kernel's list_head. */
struct ListNode {
	ListNode *prev;
	ListNode *next;

	void init()
	{
		prev = next = this;
	}
	bool empty() const
	{
		return next == this;
	}
	/* Insert @n right after this node (at the head when this is a head). */
	void add(ListNode *n)
	{
		n->next = next;
		n->prev = this;
		next->prev = n;
		next = n;
	}
	void add_tail(ListNode *n)
	{
		prev->add(n);
	}
	void del()
	{
		prev->next = next;
		next->prev = prev;
		prev = next = this;
	}
};

#define ZSNG_CONTAINER_OF(ptr, type, member)                     \
	reinterpret_cast<type *>(reinterpret_cast<char *>(ptr) - \
				 __builtin_offsetof(type, member))

/* A bitmap of up to any number of bits, in 64-bit words. */
struct Bitmap {
	static constexpr u32 words_for(u32 bits)
	{
		return (bits + 63) / 64;
	}
	static void set(u64 *map, u32 bit)
	{
		map[bit / 64] |= 1ULL << (bit % 64);
	}
	static void clear(u64 *map, u32 bit)
	{
		map[bit / 64] &= ~(1ULL << (bit % 64));
	}
	/* Lowest set bit in [lo, hi], or -1. */
	static int find_first(const u64 *map, u32 lo, u32 hi)
	{
		for (u32 w = lo / 64; lo <= hi && w <= hi / 64; w++) {
			u64 word = in_range(map, w, lo, hi);

			if (word)
				return (int)(w * 64 + __builtin_ctzll(word));
		}
		return -1;
	}
	/* Highest set bit in [lo, hi], or -1. */
	static int find_last(const u64 *map, u32 lo, u32 hi)
	{
		for (u32 w = hi / 64 + 1; lo <= hi && w-- > lo / 64;) {
			u64 word = in_range(map, w, lo, hi);

			if (word)
				return (int)(w * 64 + 63 -
					     __builtin_clzll(word));
		}
		return -1;
	}

    private:
	/* Word @w of @map with the bits outside [lo, hi] cleared. */
	static u64 in_range(const u64 *map, u32 w, u32 lo, u32 hi)
	{
		u64 word = map[w];

		if (w == lo / 64)
			word &= ~0ULL << (lo % 64);
		if (w == hi / 64 && hi % 64 != 63)
			word &= (1ULL << (hi % 64 + 1)) - 1;
		return word;
	}
};

} // namespace zsng

#endif

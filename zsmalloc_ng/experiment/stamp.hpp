// SPDX-License-Identifier: GPL-2.0
/*
 * Object stamping: the bytes an object is filled with so that a later read
 * proves nothing moved it wrongly. The experiment and the self-check (in
 * the kernel too), the unit tests and the fuzzer all stamp with this one
 * function. Freestanding, no includes: the core, GoogleTest and libFuzzer
 * code include it alike.
 */
#ifndef ZSNG_STAMP_HPP
#define ZSNG_STAMP_HPP

namespace zsng
{
/* Byte @i of the object stamped @seed: differs per object and per byte. */
inline unsigned char stamp_byte(__UINT64_TYPE__ seed, unsigned long i)
{
	__UINT64_TYPE__ z = seed * 0x9e3779b97f4a7c15ULL + i;

	z = (z ^ (z >> 29)) * 0xbf58476d1ce4e5b9ULL;
	return (unsigned char)(z ^ (z >> 32));
}

inline void stamp_fill(void *dst, unsigned long len, __UINT64_TYPE__ seed)
{
	unsigned char *p = static_cast<unsigned char *>(dst);

	for (unsigned long i = 0; i < len; i++)
		p[i] = stamp_byte(seed, i);
}

/* The index of the first byte that differs from the stamp, or -1. */
inline long stamp_first_bad(const void *src, unsigned long len,
			    __UINT64_TYPE__ seed)
{
	const unsigned char *p = static_cast<const unsigned char *>(src);

	for (unsigned long i = 0; i < len; i++)
		if (p[i] != stamp_byte(seed, i))
			return (long)i;
	return -1;
}

} // namespace zsng

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * Deterministic workloads over the allocator core, compiled into both the
 * kernel module and the userspace build so that the two can be compared
 * count for count (the VM selftests do, line by line):
 *
 *  - selfcheck.cpp   the boot self-check of zsmalloc_ng.ko;
 *  - scenarios.cpp   small scenarios (scenario_table.hpp) whose compaction
 *                    counts are computed by hand in tests/test_compaction.cpp;
 *  - experiment.cpp  the fragmentation experiment
 *                    (Documentation/compaction-experiment.rst).
 *
 * This folder is not the allocator: it only uses zsng::Pool's public API.
 * What the runners share is here: a line builder for emit(), arrays from
 * the service layer, stamping through the pool, the oracle, and one
 * fragment-compact-verify step.
 */
#ifndef ZSNG_WORKLOAD_HPP
#define ZSNG_WORKLOAD_HPP

#include "pool.hpp"
#include "stamp.hpp"

namespace zsng
{
namespace workload
{
/* A line for emit(): text and decimal numbers, no libc. */
class Line {
    public:
	Line &operator<<(const char *s)
	{
		while (*s && len_ < sizeof(buf_) - 1)
			buf_[len_++] = *s++;
		buf_[len_] = 0;
		return *this;
	}
	Line &operator<<(ulong v)
	{
		char tmp[24];
		u32 n = 0;

		do {
			tmp[n++] = (char)('0' + v % 10);
			v /= 10;
		} while (v);
		while (n && len_ < sizeof(buf_) - 1)
			buf_[len_++] = tmp[--n];
		buf_[len_] = 0;
		return *this;
	}
	const char *str() const
	{
		return buf_;
	}

    private:
	char buf_[256] = {};
	u32 len_ = 0;
};

/* A zeroed array from the service layer (zsng_svc_free() releases it). */
template <typename T> T *zalloc_array(ulong n)
{
	return static_cast<T *>(
		zsng_svc_zalloc(sizeof(T) * n, ZSNG_GFP_KERNEL));
}

void stamp_object(Pool *pool, ulong handle, u64 seed, ulong len);
bool object_intact(Pool *pool, ulong handle, u64 seed, ulong len);

/*
 * The oracle: to free the most zspages, keep the ceil(used/opz) fullest and
 * empty the rest; emptying the emptiest ones moves the fewest objects.
 */
struct Oracle {
	ulong moves;
	ulong pages;
};

/* One class's run: what to allocate and free, and the caller's arrays. */
struct ClassWork {
	u32 class_idx;
	ulong len; /* bytes per object */
	u32 nr_objs;
	const u8 *freed; /* nr_objs flags: 1 = free that object */
	ulong *handles; /* nr_objs */
	u32 *inuse; /* max_zspages */
	u32 max_zspages;
	u32 *hist; /* objs_per_zspage + 1 */
};

struct Outcome {
	ClassStats cs; /* after compaction */
	ulong pages_freed;
	Oracle oracle;
	bool verified; /* every survivor intact, the pool consistent */
};

/*
 * Allocates and stamps the objects in order, frees the marked ones, asks
 * the oracle, compacts the class alone, then verifies every survivor and
 * the whole pool. Every object is freed again before it returns 0, or
 * -ZSNG_ENOMEM when an allocation failed (nothing measured).
 */
int fragment_and_compact(Pool *pool, const ClassWork &w, Outcome *out);

} // namespace workload
} // namespace zsng

#endif

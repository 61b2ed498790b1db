// SPDX-License-Identifier: GPL-2.0
/*
 * Shared by the GoogleTest cases: a pool that destroys itself, patterned
 * object contents, and the error convention of zsng_core_malloc() (a
 * negative errno returned as an unsigned long, zsng_is_error()).
 */
#ifndef ZSNG_TEST_HELPERS_HPP
#define ZSNG_TEST_HELPERS_HPP

#include <cstdint>
#include <memory>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "stamp.hpp"
#include "svc.h"
#include "svc_user.h"
#include "zsng_core.h"

namespace zsng_test
{
struct PoolDeleter {
	void operator()(zsng_core_pool *p) const
	{
		zsng_core_destroy(p);
	}
};
using PoolPtr = std::unique_ptr<zsng_core_pool, PoolDeleter>;

/* Short names of the policies, for the parameterised tests. */
constexpr int kLegacy = ZSNG_POLICY_LEGACY;
constexpr int kLegacyGroups = ZSNG_POLICY_LEGACY_GROUPS;
constexpr int kRatio = ZSNG_POLICY_RATIO;
constexpr int kExact = ZSNG_POLICY_EXACT;
constexpr int kNrPolicies = ZSNG_POLICY_NR;

/* What zsng_core_malloc() returns on failure, as an unsigned long. */
constexpr unsigned long kENOMEM = (unsigned long)-ZSNG_ENOMEM;
constexpr unsigned long kEINVAL = (unsigned long)-ZSNG_EINVAL;

inline PoolPtr make_pool(int policy,
			 unsigned int max_pages = ZSNG_DEFAULT_CHAIN_PAGES,
			 unsigned int flags = 0)
{
	return PoolPtr(zsng_core_create(policy, max_pages, flags));
}

/* Stamps an object through a write-only mapping (experiment/stamp.hpp). */
inline void stamp(zsng_core_pool *pool, unsigned long h, unsigned long len,
		  uint64_t seed)
{
	zsng::stamp_fill(zsng_core_map(pool, h, ZSNG_MM_WO), len, seed);
	zsng_core_unmap(pool, h);
}

/* The index of the first wrong byte, or -1 when the object is intact. */
inline long first_bad_byte(zsng_core_pool *pool, unsigned long h,
			   unsigned long len, uint64_t seed)
{
	long bad = zsng::stamp_first_bad(zsng_core_map(pool, h, ZSNG_MM_RO),
					 len, seed);

	zsng_core_unmap(pool, h);
	return bad;
}

/* Waits (bounded: 2 s) until deferred frees released their pages. */
inline bool deferred_drained(zsng_core_pool *pool)
{
	struct zsng_pool_stats ps;

	for (int i = 0; i < 2000; i++) {
		zsng_core_pool_stats(pool, &ps);
		if (ps.pages_deferred == 0)
			return true;
		usleep(1000);
	}
	return false;
}

inline unsigned long class_size_of(zsng_core_pool *pool, unsigned long req)
{
	struct zsng_class_stats cs;

	zsng_core_class_stats(pool, zsng_core_class_index(pool, req), &cs);
	return cs.size;
}

inline const char *policy_str(int p)
{
	return zsng_core_policy_name(p);
}

/* A GoogleTest parameter name for a policy: "legacy_groups", not "legacy-groups". */
inline std::string policy_param_name(const ::testing::TestParamInfo<int> &info)
{
	std::string s = policy_str(info.param);

	for (char &c : s)
		if (c == '-')
			c = '_';
	return s;
}

} // namespace zsng_test

#endif

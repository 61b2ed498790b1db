// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation-failure injection through the service layer: fail the
 * (n+1)-th allocation for every n along a path (zsng_user_fail_after), and
 * check that each failure happened where the test says (the kind of
 * allocation that failed first, zsng_user_first_failure(), counted from
 * the allocations the path makes when nothing fails), that it is reported
 * (NULL pool, -ENOMEM), that nothing leaks, that objects already stored
 * keep their bytes, that the pool stays consistent and that no WARN fired.
 */
#include <gtest/gtest.h>

#include <vector>

#include "test_helpers.hpp"
#include "zsng_experiment.h"

using namespace zsng_test;

namespace
{

/* Baseline of the service layer's counters, checked after every failure. */
struct Baseline {
	long pages = zsng_user_live_pages();
	long allocs = zsng_user_live_allocs();
	long warnings = zsng_user_warnings();

	void expect_same(const char *what, long n) const
	{
		EXPECT_EQ(zsng_user_live_pages(), pages) << what << " n=" << n;
		EXPECT_EQ(zsng_user_live_allocs(), allocs)
			<< what << " n=" << n;
		EXPECT_EQ(zsng_user_warnings(), warnings) << what << " n=" << n;
	}
};

/* Injection is global: never leave it armed for the next test. */
struct FailAfter {
	explicit FailAfter(long n)
	{
		zsng_user_fail_after(n);
	}
	~FailAfter()
	{
		zsng_user_fail_after(-1);
	}
};

void ignore(void *, const char *)
{
}

/* The allocations @f makes when none fails (on this thread). */
template <typename F> long allocations_of(F f)
{
	long before = zsng_user_alloc_calls();

	f();
	return zsng_user_alloc_calls() - before;
}

/* The allocations one zsng_core_create() of @policy makes. */
long creation_allocations(int policy)
{
	zsng_core_pool *pool = nullptr;
	long n = allocations_of([&] {
		pool = zsng_core_create(policy, ZSNG_DEFAULT_CHAIN_PAGES, 0);
	});

	EXPECT_NE(pool, nullptr);
	zsng_core_destroy(pool);
	return n;
}

/*
 * Arming at @n on a path of @total allocations (n <= total) must end in a
 * reported failure (@failed) with an injected one behind it, or, with all
 * allocations given, in success without any.
 */
void expect_outcome(long n, long total, bool failed)
{
	if (n < total) {
		EXPECT_TRUE(failed) << "n=" << n << " of " << total;
		EXPECT_NE(zsng_user_first_failure(), ZSNG_USER_NO_FAILURE)
			<< "n=" << n;
	} else {
		EXPECT_FALSE(failed) << "all " << total << " allocations given";
		EXPECT_EQ(zsng_user_first_failure(), ZSNG_USER_NO_FAILURE);
	}
}

/*
 * A malloc that needs a new zspage allocates, in order, the handle slot,
 * the descriptor, then each page: what fails when the (n+1)-th fails.
 */
zsng_user_alloc_kind new_zspage_step(long n)
{
	return n == 0 ? ZSNG_USER_SLOT :
	       n == 1 ? ZSNG_USER_ZALLOC :
			ZSNG_USER_PAGE;
}

/*
 * The class serving @len, and one zspage of it filled: every object
 * stamped with its index over @stamp_len bytes.
 */
std::vector<unsigned long> fill_one_zspage(zsng_core_pool *pool,
					   unsigned long len,
					   unsigned long stamp_len,
					   struct zsng_class_stats *cs)
{
	std::vector<unsigned long> hs;

	zsng_core_class_stats(pool, zsng_core_class_index(pool, len), cs);
	for (unsigned int k = 0; k < cs->objs_per_zspage; k++) {
		unsigned long h = zsng_core_malloc(pool, len, 0);

		EXPECT_FALSE(zsng_is_error(h));
		if (zsng_is_error(h))
			break;
		stamp(pool, h, stamp_len, k);
		hs.push_back(h);
	}
	return hs;
}

} // namespace

class Faults : public ::testing::TestWithParam<int> {};

/*
 * Pool creation allocates the pool, the geometry table, the class table
 * and one block per class (its lists, bitmap, columns and group table):
 * failing each in turn fails the creation there, and only there.
 */
TEST_P(Faults, PoolCreation)
{
	Baseline base;
	PoolPtr probe = make_pool(GetParam());
	const long nr_classes = zsng_core_nr_classes(probe.get());

	probe.reset();
	const long total = creation_allocations(GetParam());

	EXPECT_EQ(total, 3 + nr_classes);
	for (long n = 0; n <= total; n++) {
		zsng_core_pool *pool;
		{
			FailAfter arm(n);
			pool = zsng_core_create(GetParam(),
						ZSNG_DEFAULT_CHAIN_PAGES, 0);
		}
		expect_outcome(n, total, pool == nullptr);
		/* creation allocates metadata only */
		if (n < total)
			EXPECT_EQ(zsng_user_first_failure(), ZSNG_USER_ZALLOC)
				<< "n=" << n;
		zsng_core_destroy(pool);
		base.expect_same("create", n);
		if (HasFailure())
			return;
	}
}

/*
 * malloc() that needs a new zspage of a multi-page class (new_zspage_step()):
 * failing each of its allocations must leave the pool exactly as it was.
 */
TEST_P(Faults, MallocNewZspage)
{
	Baseline base;
	PoolPtr pool = make_pool(GetParam());
	const unsigned long len = 3000;
	struct zsng_class_stats cs;
	/* before: one full zspage of this class and objects in other classes */
	std::vector<unsigned long> stored =
		fill_one_zspage(pool.get(), len, 10, &cs);

	ASSERT_GT(cs.pages_per_zspage, 1u);
	ASSERT_EQ(stored.size(), cs.objs_per_zspage);
	for (unsigned long l : { 10ul, 500ul, 4096ul }) {
		stored.push_back(zsng_core_malloc(pool.get(), l, 0));
		ASSERT_FALSE(zsng_is_error(stored.back()));
		stamp(pool.get(), stored.back(), 10, stored.size() - 1);
	}
	Baseline with_objects;
	unsigned long pages = zsng_core_total_pages(pool.get());
	const long steps =
		2 + cs.pages_per_zspage; /* slot, descriptor, pages */

	for (long n = 0; n <= steps; n++) {
		unsigned long h;
		{
			FailAfter arm(n);
			h = zsng_core_malloc(pool.get(), len, 0);
		}
		if (n < steps) {
			EXPECT_EQ(h, kENOMEM) << "n=" << n;
			EXPECT_EQ(zsng_user_first_failure(), new_zspage_step(n))
				<< "n=" << n;
			with_objects.expect_same("malloc", n);
			EXPECT_EQ(zsng_core_total_pages(pool.get()), pages);
		} else {
			ASSERT_FALSE(zsng_is_error(h))
				<< "all " << steps << " allocations given";
			stamp(pool.get(), h, len, 99);
			EXPECT_EQ(zsng_core_total_pages(pool.get()),
				  pages + cs.pages_per_zspage);
			EXPECT_EQ(first_bad_byte(pool.get(), h, len, 99), -1);
			zsng_core_free(pool.get(), h);
		}
		ASSERT_EQ(zsng_core_check(pool.get()), 0) << "n=" << n;
		for (size_t k = 0; k < stored.size(); k++)
			EXPECT_EQ(first_bad_byte(pool.get(), stored[k], 10, k),
				  -1);
	}
	/* A zspage with room needs only the slot: n=0 fails, n=1 succeeds. */
	zsng_core_free(pool.get(), stored[0]);
	{
		FailAfter arm(0);
		EXPECT_EQ(zsng_core_malloc(pool.get(), len, 0), kENOMEM);
	}
	EXPECT_EQ(zsng_user_first_failure(), ZSNG_USER_SLOT);
	{
		FailAfter arm(1);
		stored[0] = zsng_core_malloc(pool.get(), len, 0);
	}
	ASSERT_FALSE(zsng_is_error(stored[0]));
	EXPECT_EQ(zsng_user_first_failure(), ZSNG_USER_NO_FAILURE);
	stamp(pool.get(), stored[0], 10, 0);
	EXPECT_EQ(zsng_core_check(pool.get()), 0);
	/* Compaction allocates nothing: it works with injection armed. */
	for (size_t k = 1; k < cs.objs_per_zspage; k += 2) {
		zsng_core_free(pool.get(), stored[k]);
		stored[k] = 0;
	}
	{
		FailAfter arm(0);
		zsng_core_compact(pool.get());
	}
	EXPECT_EQ(zsng_user_first_failure(), ZSNG_USER_NO_FAILURE);
	EXPECT_EQ(zsng_core_check(pool.get()), 0);
	for (size_t k = 0; k < stored.size(); k++) {
		if (!stored[k])
			continue;
		EXPECT_EQ(first_bad_byte(pool.get(), stored[k], 10, k), -1);
		zsng_core_free(pool.get(), stored[k]);
	}
	pool.reset();
	base.expect_same("malloc teardown", 0);
}

/*
 * zsng_core_store() fails like malloc at every allocation it makes (slot,
 * descriptor, each page): -ENOMEM, nothing leaked, nothing left pinned
 * (the compaction below would spin on a pin), and the objects already
 * stored keep their bytes.
 */
TEST_P(Faults, StoreNewZspage)
{
	Baseline base;
	PoolPtr pool = make_pool(GetParam());
	const unsigned long len = 3000;
	struct zsng_class_stats cs;
	std::vector<unsigned long> stored =
		fill_one_zspage(pool.get(), len, len, &cs);
	std::vector<unsigned char> buf(len);

	ASSERT_EQ(stored.size(), cs.objs_per_zspage);
	Baseline with_objects;
	const long steps = 2 + cs.pages_per_zspage;

	for (unsigned long i = 0; i < len; i++)
		buf[i] = zsng::stamp_byte(77, i);
	for (long n = 0; n <= steps; n++) {
		unsigned long h;
		{
			FailAfter arm(n);
			h = zsng_core_store(pool.get(), buf.data(), len, 0);
		}
		if (n < steps) {
			EXPECT_EQ(h, kENOMEM) << "n=" << n;
			EXPECT_EQ(zsng_user_first_failure(), new_zspage_step(n))
				<< "n=" << n;
			with_objects.expect_same("store", n);
		} else {
			ASSERT_FALSE(zsng_is_error(h));
			EXPECT_EQ(first_bad_byte(pool.get(), h, len, 77), -1);
			stored.push_back(h);
		}
		ASSERT_EQ(zsng_core_check(pool.get()), 0) << "n=" << n;
	}
	/* Half freed: compaction must move the new object, so it is unpinned. */
	for (size_t k = 0; k + 1 < stored.size(); k += 2) {
		zsng_core_free(pool.get(), stored[k]);
		stored[k] = 0;
	}
	zsng_core_compact(pool.get());
	EXPECT_EQ(zsng_core_check(pool.get()), 0);
	for (size_t k = 0; k < stored.size(); k++) {
		bool last = k + 1 == stored.size();

		if (!stored[k])
			continue;
		EXPECT_EQ(first_bad_byte(pool.get(), stored[k], len,
					 last ? 77 : k),
			  -1)
			<< k;
		zsng_core_free(pool.get(), stored[k]);
	}
	pool.reset();
	base.expect_same("store teardown", 0);
}

/* Every chain length: each page of the chain fails in turn. */
TEST_P(Faults, MallocEveryPageOfEveryChain)
{
	PoolPtr pool = make_pool(GetParam(), ZSNG_MAX_CHAIN_PAGES);
	Baseline base; /* with the empty pool */
	unsigned int nr = zsng_core_nr_classes(pool.get());

	for (unsigned int ci = 0; ci < nr; ci++) {
		struct zsng_class_stats cs;

		zsng_core_class_stats(pool.get(), ci, &cs);
		unsigned long len = cs.huge ? ZSNG_PAGE_SIZE : cs.size - 8;
		long steps = 2 + cs.pages_per_zspage;

		for (long n = 0; n < steps; n++) {
			{
				FailAfter arm(n);
				ASSERT_EQ(zsng_core_malloc(pool.get(), len, 0),
					  kENOMEM)
					<< "class " << cs.size << " n=" << n;
			}
			ASSERT_EQ(zsng_user_first_failure(), new_zspage_step(n))
				<< "class " << cs.size << " n=" << n;
		}
		base.expect_same("chain", (long)ci);
	}
	EXPECT_EQ(zsng_core_check(pool.get()), 0);
	EXPECT_EQ(zsng_core_total_pages(pool.get()), 0u);
}

/*
 * The experiment and scenario runners create pools and allocate thousands
 * of objects; a failure anywhere must come back as -ENOMEM with everything
 * released. All early failure points (the probe pool, the first class's
 * pool and objects), then points spread over the whole run.
 */
TEST_P(Faults, ExperimentRun)
{
	Baseline base;
	auto run = [&] {
		return zsng_experiment_run("random", GetParam(), 3, 2, ignore,
					   nullptr);
	};
	const long total = allocations_of([&] { ASSERT_EQ(run(), 0); });
	std::vector<long> points;

	for (long n = 0; n < 300 && n < total; n++)
		points.push_back(n);
	for (long k = 1; k <= 20; k++)
		points.push_back(total * k / 21);
	points.push_back(total - 1);
	points.push_back(total);
	for (long n : points) {
		int r;
		{
			FailAfter arm(n);
			r = run();
		}
		expect_outcome(n, total, r != 0);
		if (r)
			EXPECT_EQ(r, -ZSNG_ENOMEM) << "n=" << n;
		base.expect_same("experiment", n);
		if (HasFailure())
			return;
	}
}

/*
 * The object phase of the experiment's first class: after the probe pool
 * and the class's own pool (each creation_allocations()) and its four work
 * arrays, each of class 0's objects takes a slot, and each new zspage a
 * descriptor and its pages. Failing each allocation of that window must
 * fail exactly those: every slot, descriptor and page once.
 */
TEST_P(Faults, ExperimentObjectPhase)
{
	Baseline base;
	PoolPtr probe = make_pool(GetParam());
	struct zsng_class_stats cs;
	const unsigned int zspages = 2;
	const long arrays = 4; /* handles, frees, in-use counts, histogram */

	zsng_core_class_stats(probe.get(), 0, &cs);
	probe.reset();
	const long first = 2 * creation_allocations(GetParam()) + arrays;
	const long slots = (long)zspages * cs.objs_per_zspage;
	const long pages = (long)zspages * cs.pages_per_zspage;
	long failed[3] = {}; /* per zsng_user_alloc_kind */

	for (long n = first - 1; n < first + slots + zspages + pages; n++) {
		int r;
		{
			FailAfter arm(n);
			r = zsng_experiment_run("strided", GetParam(), 1,
						zspages, ignore, nullptr);
		}
		zsng_user_alloc_kind kind = zsng_user_first_failure();

		EXPECT_EQ(r, -ZSNG_ENOMEM) << "n=" << n;
		ASSERT_NE(kind, ZSNG_USER_NO_FAILURE) << "n=" << n;
		/* just before the window: the last work array */
		if (n == first - 1)
			EXPECT_EQ(kind, ZSNG_USER_ZALLOC);
		else
			failed[kind]++;
		/* the window opens with the first object's slot */
		if (n == first)
			EXPECT_EQ(kind, ZSNG_USER_SLOT);
		base.expect_same("experiment objects", n);
		if (HasFailure())
			return;
	}
	EXPECT_EQ(failed[ZSNG_USER_SLOT], slots);
	EXPECT_EQ(failed[ZSNG_USER_ZALLOC], (long)zspages);
	EXPECT_EQ(failed[ZSNG_USER_PAGE], pages);
}

/* Every 7th failure point of the scenario runner, the last, and none. */
TEST(FaultsScenarios, ScenarioRun)
{
	Baseline base;
	const long total = allocations_of(
		[] { ASSERT_EQ(zsng_scenarios_run(ignore, nullptr), 0); });
	std::vector<long> points;

	for (long n = 0; n < total; n += 7)
		points.push_back(n);
	points.push_back(total - 1);
	points.push_back(total);
	for (long n : points) {
		int r;
		{
			FailAfter arm(n);
			r = zsng_scenarios_run(ignore, nullptr);
		}
		expect_outcome(n, total, r != 0);
		if (r)
			EXPECT_EQ(r, -ZSNG_ENOMEM) << "n=" << n;
		base.expect_same("scenarios", n);
		if (HasFailure())
			return;
	}
}

INSTANTIATE_TEST_SUITE_P(Policies, Faults, ::testing::Range(0, kNrPolicies),
			 policy_param_name);

// SPDX-License-Identifier: GPL-2.0
/*
 * Concurrency: three threads allocate, write, map and free their own
 * objects while a fourth compacts the pool in a loop (and, on a movable
 * pool, a fifth migrates its pages as the kernel would). Each worker checks
 * every byte of its objects on every access, so a move that races with a
 * mapper or a free shows up as a wrong byte, and the pool must be
 * consistent at the end. Bounded by operation counts, not time.
 */
#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <thread>
#include <vector>

#include "test_helpers.hpp"

using namespace zsng_test;

namespace
{
constexpr int kWorkers = 3;
constexpr int kOpsPerWorker = 40000;
constexpr size_t kMaxLive = 600;

struct Obj {
	unsigned long h, len;
	uint64_t seed;
};

struct WorkerResult {
	long bad = 0, errors = 0, ops = 0;
};

void worker(zsng_core_pool *pool, unsigned int id, WorkerResult *res)
{
	std::mt19937_64 rng(id * 7919 + 1);
	std::vector<Obj> mine;
	uint64_t next_seed = (uint64_t)id << 40;

	for (int op = 0; op < kOpsPerWorker; op++, res->ops++) {
		unsigned int what = rng() % 100;

		if (mine.size() < kMaxLive / 4 ||
		    (what < 45 && mine.size() < kMaxLive)) {
			/* Few sizes, so that the threads share classes and zspages. */
			static const unsigned long sizes[] = {
				40, 200, 1016, 1500, 3000, 4000
			};
			unsigned long len = sizes[rng() % 6] - rng() % 8;
			unsigned long h = zsng_core_malloc(pool, len, 0);

			if (zsng_is_error(h)) {
				res->errors++;
				continue;
			}
			stamp(pool, h, len, next_seed);
			mine.push_back({ h, len, next_seed++ });
		} else if (what < 75) {
			size_t i = rng() % mine.size();

			if (first_bad_byte(pool, mine[i].h, mine[i].len,
					   mine[i].seed) != -1)
				res->bad++;
			zsng_core_free(pool, mine[i].h);
			mine[i] = mine.back();
			mine.pop_back();
		} else if (what < 90) {
			/* Hold a mapping a while: compaction must wait, not move. */
			size_t i = rng() % mine.size();
			auto *p = static_cast<unsigned char *>(
				zsng_core_map(pool, mine[i].h, ZSNG_MM_RW));

			for (int pass = 0; pass < 3; pass++)
				for (unsigned long b = 0; b < mine[i].len; b++)
					if (p[b] !=
					    zsng::stamp_byte(mine[i].seed, b))
						res->bad++;
			mine[i].seed = next_seed++;
			for (unsigned long b = 0; b < mine[i].len; b++)
				p[b] = zsng::stamp_byte(mine[i].seed, b);
			zsng_core_unmap(pool, mine[i].h);
		} else {
			size_t i = rng() % mine.size();

			if (first_bad_byte(pool, mine[i].h, mine[i].len,
					   mine[i].seed) != -1)
				res->bad++;
		}
	}
	for (const Obj &o : mine) {
		if (first_bad_byte(pool, o.h, o.len, o.seed) != -1)
			res->bad++;
		zsng_core_free(pool, o.h);
	}
}

} // namespace

/*
 * The workers and the compactor on a pool of @policy; with @migrate also a
 * simulated page migrator (user/movable_user.cpp) moving random pages of
 * the movable pool, waiting for mappers or not, until the workers end.
 * The movable pool has growing chains and borrowed slots too, as zram_ng's
 * pools have: its classes mix short and long zspages and lend each other
 * slots while everything runs.
 */
static void stress(int policy, bool migrate)
{
	long pages0 = zsng_user_live_pages(), allocs0 = zsng_user_live_allocs();
	long warnings0 = zsng_user_warnings();
	PoolPtr pool = make_pool(policy, ZSNG_DEFAULT_CHAIN_PAGES,
				 migrate ? ZSNG_POOL_MOVABLE |
						   ZSNG_POOL_GROWING_CHAINS |
						   ZSNG_POOL_BORROW_SLOTS :
					   0);
	std::atomic<int> running{ kWorkers };
	std::vector<std::thread> threads;
	WorkerResult res[kWorkers];
	unsigned long compactions = 0, freed = 0;
	long results[ZSNG_USER_FREED + 1] = {};
	static_assert(ZSNG_USER_FREED > ZSNG_USER_NOT_ISOLATED);

	ASSERT_NE(pool, nullptr);
	for (int t = 0; t < kWorkers; t++)
		threads.emplace_back([&, t] {
			worker(pool.get(), t, &res[t]);
			running--;
		});
	std::thread compactor([&] {
		unsigned int nr = zsng_core_nr_classes(pool.get());

		while (running.load()) {
			freed += compactions % 2 ?
					 zsng_core_compact(pool.get()) :
					 zsng_core_compact_class(
						 pool.get(),
						 compactions / 2 % nr);
			compactions++;
			/* Both entry points race with each other too. */
			if (compactions % 64 == 0)
				std::this_thread::yield();
		}
	});
	std::thread migrator([&] {
		std::mt19937_64 rng(11);

		while (migrate && running.load())
			results[zsng_user_migrate_one(rng(), rng() % 2)]++;
	});
	for (std::thread &t : threads)
		t.join();
	compactor.join();
	migrator.join();

	for (int t = 0; t < kWorkers; t++) {
		EXPECT_EQ(res[t].bad, 0) << "worker " << t;
		EXPECT_EQ(res[t].errors, 0) << "worker " << t;
		EXPECT_EQ(res[t].ops, kOpsPerWorker);
	}
	EXPECT_GT(compactions, 0u);
	EXPECT_EQ(zsng_core_check(pool.get()), 0);
	EXPECT_TRUE(deferred_drained(pool.get()));
	EXPECT_EQ(zsng_core_total_pages(pool.get()), 0u);

	struct zsng_pool_stats ps;
	zsng_core_pool_stats(pool.get(), &ps);
	EXPECT_EQ(ps.objs_used, 0u);
	EXPECT_EQ(ps.pages_compacted, freed);
	printf("[ info ] %s: %lu compactions, %lu pages freed, %lu objects moved\n",
	       policy_str(policy), compactions, freed, ps.objs_moved);
	if (migrate) {
		EXPECT_GT(ps.pages_migrated, 0u);
		EXPECT_EQ(ps.pages_migrated,
			  (unsigned long)results[ZSNG_USER_MIGRATED]);
		EXPECT_EQ(ps.migrate_refused,
			  (unsigned long)(results[ZSNG_USER_BUSY] +
					  results[ZSNG_USER_REFUSED]));
		printf("[ info ] migrator: %ld moved, %ld busy, %ld refused, %ld locked, %ld gone, %lu frees deferred\n",
		       results[ZSNG_USER_MIGRATED], results[ZSNG_USER_BUSY],
		       results[ZSNG_USER_REFUSED] +
			       results[ZSNG_USER_NOT_ISOLATED],
		       results[ZSNG_USER_LOCKED],
		       results[ZSNG_USER_NOT_MOVABLE] +
			       results[ZSNG_USER_FREED],
		       ps.frees_deferred);
	}
	pool.reset();
	EXPECT_EQ(zsng_user_live_pages(), pages0);
	EXPECT_EQ(zsng_user_live_allocs(), allocs0);
	EXPECT_EQ(zsng_user_warnings(), warnings0);
	EXPECT_EQ(zsng_user_movable_pages(), 0);
}

class Stress : public ::testing::TestWithParam<int> {};

TEST_P(Stress, AllocFreeMapWhileCompacting)
{
	stress(GetParam(), false);
}

TEST_P(Stress, AllocFreeMapWhileCompactingAndMigrating)
{
	stress(GetParam(), true);
}

/* Two compactors at once: one of them returns 0 at once, nothing breaks. */
TEST(Stress, ConcurrentCompactorsAndFrees)
{
	PoolPtr pool = make_pool(kRatio);
	std::vector<Obj> objs;
	std::mt19937 rng(5);

	for (int k = 0; k < 4000; k++) {
		unsigned long len = 1 + rng() % 3000;
		unsigned long h = zsng_core_malloc(pool.get(), len, 0);

		ASSERT_FALSE(zsng_is_error(h));
		stamp(pool.get(), h, len, k);
		objs.push_back({ h, len, (uint64_t)k });
	}
	std::atomic<bool> stop{ false };
	auto compactor = [&] {
		while (!stop.load())
			zsng_core_compact(pool.get());
	};
	std::thread c1(compactor), c2(compactor);
	/* Free in random order while both compactors run. */
	for (size_t i = 0; i < objs.size(); i += 2) {
		zsng_core_free(pool.get(), objs[i].h);
		objs[i].h = 0;
	}
	stop = true;
	c1.join();
	c2.join();
	EXPECT_EQ(zsng_core_check(pool.get()), 0);
	for (const Obj &o : objs) {
		if (!o.h)
			continue;
		EXPECT_EQ(first_bad_byte(pool.get(), o.h, o.len, o.seed), -1);
		zsng_core_free(pool.get(), o.h);
	}
	EXPECT_EQ(zsng_core_total_pages(pool.get()), 0u);
}

INSTANTIATE_TEST_SUITE_P(Policies, Stress, ::testing::Range(0, kNrPolicies),
			 policy_param_name);

/*
 * The userspace service layer counts handle slots per thread; a slot
 * allocated by one thread and freed by another, and the threads' exits,
 * must still add up to zero live allocations.
 */
TEST(Stress, SlotsFreedByAnotherThreadAreCounted)
{
	long allocs0 = zsng_user_live_allocs();
	PoolPtr pool = make_pool(kRatio);
	std::vector<unsigned long> hs(1000);

	std::thread producer([&] {
		for (unsigned long &h : hs)
			h = zsng_core_malloc(pool.get(), 100, 0);
	});
	producer.join();
	EXPECT_GE(zsng_user_live_allocs(), allocs0 + 1000);
	std::thread consumer([&] {
		for (unsigned long h : hs)
			zsng_core_free(pool.get(), h);
	});
	consumer.join();
	pool.reset();
	EXPECT_EQ(zsng_user_live_allocs(), allocs0);
}

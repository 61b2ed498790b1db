// SPDX-License-Identifier: GPL-2.0
/*
 * Page migration of movable pools (core/migrate.cpp), driven by the
 * simulated migrator of user/movable_user.cpp, which follows mm/migrate.c's
 * steps and page-lock rules. One case per rule of the protocol: data and
 * handles survive a move, a mapped zspage is refused (async) or waited for
 * (sync), a zspage freed while a page is isolated or locked, pool
 * destruction waiting for a locked page. test_stress.cpp runs the migrator
 * concurrently with everything else.
 */
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <random>
#include <thread>
#include <vector>

#include "test_helpers.hpp"

using namespace zsng_test;

namespace
{
struct Obj {
	unsigned long h, len;
	uint64_t seed;
};

/* Sizes that land in one page, span two, and fill one (the huge class). */
const unsigned long kSizes[] = { 24, 100, 700, 1500, 2900, 3500, 4096 };

std::vector<Obj> fill(zsng_core_pool *pool, int n, uint64_t seed0)
{
	std::vector<Obj> objs;

	for (int i = 0; i < n; i++) {
		unsigned long len = kSizes[i % 7];
		unsigned long h = zsng_core_malloc(pool, len, 0);

		EXPECT_FALSE(zsng_is_error(h));
		if (zsng_is_error(h))
			break;
		stamp(pool, h, len, seed0 + i);
		objs.push_back({ h, len, seed0 + i });
	}
	return objs;
}

long bad_objects(zsng_core_pool *pool, const std::vector<Obj> &objs)
{
	long bad = 0;

	for (const Obj &o : objs)
		bad += first_bad_byte(pool, o.h, o.len, o.seed) != -1;
	return bad;
}

zsng_pool_stats stats_of(zsng_core_pool *pool)
{
	zsng_pool_stats ps;

	zsng_core_pool_stats(pool, &ps);
	return ps;
}

class Migrate : public ::testing::Test {
    protected:
	void SetUp() override
	{
		pages0_ = zsng_user_live_pages();
		allocs0_ = zsng_user_live_allocs();
		warnings0_ = zsng_user_warnings();
		ASSERT_EQ(zsng_user_movable_pages(), 0);
	}
	void TearDown() override
	{
		EXPECT_EQ(zsng_user_movable_pages(), 0);
		EXPECT_EQ(zsng_user_live_pages(), pages0_);
		EXPECT_EQ(zsng_user_live_allocs(), allocs0_);
		EXPECT_EQ(zsng_user_warnings(), warnings0_);
	}
	long pages0_ = 0, allocs0_ = 0, warnings0_ = 0;
};

} // namespace

TEST_F(Migrate, NonMovablePoolHandsNoPageToMigration)
{
	PoolPtr pool = make_pool(kRatio);
	std::vector<Obj> objs = fill(pool.get(), 200, 1);

	EXPECT_GT(zsng_core_total_pages(pool.get()), 0u);
	EXPECT_EQ(zsng_user_movable_pages(), 0);
	EXPECT_EQ(stats_of(pool.get()).movable, 0u);
	for (const Obj &o : objs)
		zsng_core_free(pool.get(), o.h);
}

/* Every page moves, several times; handles, bytes and counts stay. */
TEST_F(Migrate, EveryPageMovesAndTheDataStays)
{
	PoolPtr pool =
		make_pool(kRatio, ZSNG_DEFAULT_CHAIN_PAGES, ZSNG_POOL_MOVABLE);
	std::vector<Obj> objs = fill(pool.get(), 700, 100);
	unsigned long pages = zsng_core_total_pages(pool.get());
	long migrated = 0;

	ASSERT_EQ(zsng_user_movable_pages(), (long)pages);
	EXPECT_EQ(stats_of(pool.get()).movable, 1u);
	for (unsigned long i = 0; i < 3 * pages; i++) {
		int r = zsng_user_migrate_one(i * 7919, i % 2);

		ASSERT_EQ(r, ZSNG_USER_MIGRATED) << "i=" << i;
		migrated++;
	}
	EXPECT_EQ(bad_objects(pool.get(), objs), 0);
	EXPECT_EQ(zsng_core_check(pool.get()), 0);
	EXPECT_EQ(zsng_core_total_pages(pool.get()), pages);
	EXPECT_EQ(zsng_user_movable_pages(), (long)pages);
	zsng_pool_stats ps = stats_of(pool.get());
	EXPECT_EQ(ps.pages_migrated, (unsigned long)migrated);
	EXPECT_EQ(ps.migrate_refused, 0u);

	/* Compaction after migration moves objects between moved pages. */
	for (size_t i = 0; i < objs.size(); i += 2)
		zsng_core_free(pool.get(), objs[i].h);
	EXPECT_GT(zsng_core_compact(pool.get()), 0u);
	for (size_t i = 1; i < objs.size(); i += 2)
		EXPECT_EQ(first_bad_byte(pool.get(), objs[i].h, objs[i].len,
					 objs[i].seed),
			  -1);
	for (size_t i = 1; i < objs.size(); i += 2)
		zsng_core_free(pool.get(), objs[i].h);
	EXPECT_EQ(zsng_core_total_pages(pool.get()), 0u);
}

/* A mapped zspage: async migration is refused, sync waits for unmap. */
TEST_F(Migrate, MappedZspageIsRefusedAsyncAndWaitedForSync)
{
	PoolPtr pool =
		make_pool(kRatio, ZSNG_DEFAULT_CHAIN_PAGES, ZSNG_POOL_MOVABLE);
	std::vector<Obj> objs = fill(pool.get(), 1, 7);
	auto *p = static_cast<unsigned char *>(
		zsng_core_map(pool.get(), objs[0].h, ZSNG_MM_RW));
	void *page = zsng_user_get_page_at(p);

	ASSERT_NE(page, nullptr);
	ASSERT_EQ(zsng_user_isolate(page), ZSNG_USER_ISOLATED);
	EXPECT_EQ(zsng_user_migrate_isolated(page, 0), ZSNG_USER_BUSY);
	EXPECT_EQ(stats_of(pool.get()).migrate_refused, 1u);

	std::atomic<int> result{ -1 };
	page = zsng_user_get_page_at(p);
	ASSERT_EQ(zsng_user_isolate(page), ZSNG_USER_ISOLATED);
	std::thread migrator(
		[&] { result = zsng_user_migrate_isolated(page, 1); });
	std::this_thread::sleep_for(std::chrono::milliseconds(50));
	EXPECT_EQ(result.load(), -1) << "migrated a mapped zspage";
	/* Written while the migrator waits: the copy must carry it. */
	objs[0].seed = 99;
	zsng::stamp_fill(p, objs[0].len, objs[0].seed);
	zsng_core_unmap(pool.get(), objs[0].h);
	migrator.join();
	EXPECT_EQ(result.load(), ZSNG_USER_MIGRATED);
	EXPECT_EQ(bad_objects(pool.get(), objs), 0);
	EXPECT_EQ(stats_of(pool.get()).pages_migrated, 1u);
	zsng_core_free(pool.get(), objs[0].h);
}

/* Freed while isolated: the kernel finds the page taken back and drops it. */
TEST_F(Migrate, ZspageFreedWhileAPageIsIsolated)
{
	PoolPtr pool =
		make_pool(kRatio, ZSNG_DEFAULT_CHAIN_PAGES, ZSNG_POOL_MOVABLE);
	std::vector<Obj> objs = fill(pool.get(), 1, 3);
	void *page = zsng_user_get_movable_page(0);

	ASSERT_EQ(zsng_user_isolate(page), ZSNG_USER_ISOLATED);
	zsng_core_free(pool.get(), objs[0].h);
	/* The page lock was free: released at once, nothing deferred. */
	EXPECT_EQ(stats_of(pool.get()).frees_deferred, 0u);
	EXPECT_EQ(zsng_core_total_pages(pool.get()), 0u);
	EXPECT_EQ(zsng_user_migrate_isolated(page, 1), ZSNG_USER_FREED);
}

/*
 * Freed while a migrator holds a page lock: the zspage waits on the
 * deferred list, none of its pages migrates, and the work item frees it
 * once the lock is dropped.
 */
TEST_F(Migrate, ZspageFreedWhileAPageIsLockedIsDeferred)
{
	PoolPtr pool =
		make_pool(kRatio, ZSNG_DEFAULT_CHAIN_PAGES, ZSNG_POOL_MOVABLE);
	std::vector<Obj> objs = fill(pool.get(), 1, 5);
	unsigned long pages = zsng_core_total_pages(pool.get());
	void *locked = zsng_user_get_movable_page(0);

	ASSERT_GE(pages, 1u);
	ASSERT_TRUE(zsng_svc_page_trylock(locked));
	zsng_core_free(pool.get(), objs[0].h);

	zsng_pool_stats ps = stats_of(pool.get());
	EXPECT_EQ(ps.frees_deferred, 1u);
	EXPECT_EQ(ps.pages_deferred, pages);
	EXPECT_EQ(ps.objs_used, 0u);
	EXPECT_EQ(zsng_core_total_pages(pool.get()), pages);
	EXPECT_EQ(zsng_core_check(pool.get()), 0);
	/* The zspage's other pages: locked by the work item, or refused. */
	for (long i = 0; i < zsng_user_movable_pages(); i++) {
		void *page = zsng_user_get_movable_page(i);
		int r = zsng_user_isolate(page);

		EXPECT_TRUE(r == ZSNG_USER_LOCKED ||
			    r == ZSNG_USER_NOT_ISOLATED)
			<< "page " << i << ": " << r;
	}
	zsng_svc_page_unlock(locked);
	zsng_user_put_page(locked);
	EXPECT_TRUE(deferred_drained(pool.get()));
	EXPECT_EQ(zsng_core_total_pages(pool.get()), 0u);
	EXPECT_EQ(zsng_core_check(pool.get()), 0);
}

/* A migration that comes after the free was deferred is refused. */
TEST_F(Migrate, IsolatedPageOfAFreeingZspageIsNotMigrated)
{
	PoolPtr pool =
		make_pool(kRatio, ZSNG_DEFAULT_CHAIN_PAGES, ZSNG_POOL_MOVABLE);
	std::vector<Obj> objs = fill(pool.get(), 1, 5);
	void *page = zsng_user_get_movable_page(0);

	ASSERT_EQ(zsng_user_isolate(page), ZSNG_USER_ISOLATED);
	/* Lock it as the migrator does before migrate_page, then free. */
	ASSERT_TRUE(zsng_svc_page_trylock(page));
	zsng_core_free(pool.get(), objs[0].h);
	EXPECT_EQ(stats_of(pool.get()).frees_deferred, 1u);
	zsng_svc_page_unlock(page);
	/* Now the migrator's migrate step: freeing, or already released. */
	int r = zsng_user_migrate_isolated(page, 1);
	EXPECT_TRUE(r == ZSNG_USER_REFUSED || r == ZSNG_USER_FREED) << r;
	EXPECT_TRUE(deferred_drained(pool.get()));
	EXPECT_EQ(zsng_core_total_pages(pool.get()), 0u);
}

/* destroy() waits for a page a migrator holds, then nothing is movable. */
TEST_F(Migrate, DestroyWaitsForALockedPage)
{
	zsng_core_pool *pool = zsng_core_create(
		kRatio, ZSNG_DEFAULT_CHAIN_PAGES, ZSNG_POOL_MOVABLE);
	std::vector<Obj> objs = fill(pool, 300, 11);
	void *locked = zsng_user_get_movable_page(5);
	std::atomic<bool> done{ false };

	ASSERT_TRUE(zsng_svc_page_trylock(locked));
	/* Objects left in the pool: destroy frees them (and says so). */
	std::thread destroyer([&] {
		zsng_core_destroy(pool);
		done = true;
	});
	std::this_thread::sleep_for(std::chrono::milliseconds(50));
	EXPECT_FALSE(done.load()) << "destroy did not wait for the page lock";
	zsng_svc_page_unlock(locked);
	destroyer.join();
	/* Taken back from migration: a late isolate finds it not movable. */
	EXPECT_EQ(zsng_user_isolate(locked), ZSNG_USER_NOT_MOVABLE);
}

/* Pools made, filled and destroyed while a migrator runs over them. */
TEST_F(Migrate, MigrationRacesPoolDestruction)
{
	std::atomic<bool> stop{ false };
	std::atomic<long> migrated{ 0 };
	std::thread migrator([&] {
		std::mt19937_64 rng(3);

		while (!stop.load())
			migrated += zsng_user_migrate_one(rng(), rng() % 2) ==
				    ZSNG_USER_MIGRATED;
	});
	for (int round = 0; round < 30; round++) {
		zsng_core_pool *pool = zsng_core_create(
			round % kNrPolicies, ZSNG_DEFAULT_CHAIN_PAGES,
			ZSNG_POOL_MOVABLE);
		std::vector<Obj> objs = fill(pool, 400, round * 1000);

		for (size_t i = 0; i < objs.size(); i += 3)
			zsng_core_free(pool, objs[i].h);
		zsng_core_compact(pool);
		for (size_t i = 1; i < objs.size(); i += 3)
			EXPECT_EQ(first_bad_byte(pool, objs[i].h, objs[i].len,
						 objs[i].seed),
				  -1);
		EXPECT_EQ(zsng_core_check(pool), 0);
		/* Every other round leaves objects for destroy() to free. */
		if (round % 2)
			for (size_t i = 0; i < objs.size(); i++)
				if (i % 3)
					zsng_core_free(pool, objs[i].h);
		zsng_core_destroy(pool);
	}
	stop = true;
	migrator.join();
	EXPECT_GT(migrated.load(), 0);
	printf("[ info ] %ld pages migrated across 30 pools\n",
	       migrated.load());
}

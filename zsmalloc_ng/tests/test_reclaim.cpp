// SPDX-License-Identifier: GPL-2.0
/*
 * Reclaim (core/lru.cpp) and self-compaction (core/compaction.cpp): the LRU order, an evict
 * callback that fails, handles freed before and during their eviction, and
 * a simulated zswap (a tree of entries with references, as mm/zswap.c of
 * 6.1 keeps them) storing, loading, invalidating and writing back from
 * several threads while the pool compacts itself. One case per rule of
 * the design comment.
 */
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "test_helpers.hpp"

using namespace zsng_test;

namespace
{
zsng_pool_stats stats_of(zsng_core_pool *pool)
{
	zsng_pool_stats ps;

	zsng_core_pool_stats(pool, &ps);
	return ps;
}

unsigned int objs_per_zspage(zsng_core_pool *pool, unsigned long len)
{
	struct zsng_class_stats cs;

	zsng_core_class_stats(pool, zsng_core_class_index(pool, len), &cs);
	return cs.objs_per_zspage;
}

/* An evict callback from a lambda: ctx is a std::function-free functor. */
template <typename F> int call_evict(void *ctx, unsigned long h)
{
	return (*static_cast<F *>(ctx))(h);
}
template <typename F> long reclaim(zsng_core_pool *pool, F &f)
{
	return zsng_core_reclaim(pool, call_evict<F>, &f);
}

class Reclaim : public ::testing::Test {
    protected:
	void SetUp() override
	{
		pages0_ = zsng_user_live_pages();
		allocs0_ = zsng_user_live_allocs();
		warnings0_ = zsng_user_warnings();
	}
	void TearDown() override
	{
		EXPECT_EQ(zsng_user_live_pages(), pages0_);
		EXPECT_EQ(zsng_user_live_allocs(), allocs0_);
		EXPECT_EQ(zsng_user_warnings(), warnings0_);
	}
	long pages0_ = 0, allocs0_ = 0, warnings0_ = 0;
};

TEST_F(Reclaim, NeedsAnLruAndSomethingToReclaim)
{
	auto evict = [](unsigned long) { return 0; };
	PoolPtr plain = make_pool(kRatio);
	PoolPtr lru =
		make_pool(kRatio, ZSNG_DEFAULT_CHAIN_PAGES, ZSNG_POOL_LRU);
	unsigned long h = zsng_core_malloc(plain.get(), 100, 0);

	EXPECT_EQ(reclaim(plain.get(), evict), -ZSNG_EINVAL);
	EXPECT_EQ(reclaim(lru.get(), evict), -ZSNG_EINVAL);
	EXPECT_EQ(zsng_core_reclaim(lru.get(), nullptr, nullptr), -ZSNG_EINVAL);
	zsng_core_free(plain.get(), h);
}

/* The zspage whose newest object is the oldest goes first. */
TEST_F(Reclaim, EvictsTheLeastRecentlyAllocatedZspage)
{
	const unsigned long len = 700;
	PoolPtr pool =
		make_pool(kRatio, ZSNG_DEFAULT_CHAIN_PAGES, ZSNG_POOL_LRU);
	zsng_core_pool *p = pool.get();
	unsigned int per = objs_per_zspage(p, len);
	std::vector<unsigned long> a, b;
	std::vector<unsigned long> evicted;
	auto evict = [&](unsigned long h) {
		evicted.push_back(h);
		zsng_core_free(p, h);
		return 0;
	};

	/* A full zspage A, then half of B. */
	for (unsigned int i = 0; i < per; i++)
		a.push_back(zsng_core_malloc(p, len, 0));
	for (unsigned int i = 0; i < per / 2; i++)
		b.push_back(zsng_core_malloc(p, len, 0));
	/* A frees one slot and takes the next object: A is the newest. */
	zsng_core_free(p, a[3]);
	a[3] = zsng_core_malloc(p, len, 0);
	ASSERT_EQ(zsng_core_check(p), 0);

	long pages = reclaim(p, evict);
	ASSERT_EQ(evicted.size(), b.size());
	EXPECT_TRUE(
		std::is_permutation(evicted.begin(), evicted.end(), b.begin()));
	EXPECT_GT(pages, 0);
	EXPECT_EQ(zsng_core_check(p), 0);

	evicted.clear();
	EXPECT_EQ(reclaim(p, evict), pages);
	EXPECT_TRUE(
		std::is_permutation(evicted.begin(), evicted.end(), a.begin()));
	zsng_pool_stats ps = stats_of(p);
	EXPECT_EQ(ps.pages_used, 0u);
	EXPECT_EQ(ps.objs_evicted, a.size() + b.size());
	EXPECT_EQ(ps.pages_reclaimed, 2u * pages);
	EXPECT_EQ(ps.flags, ZSNG_POOL_LRU);
	EXPECT_EQ(reclaim(p, evict), -ZSNG_EINVAL);
}

/* A failed eviction keeps the zspage and its objects as they were. */
TEST_F(Reclaim, AFailedEvictionPutsTheZspageBack)
{
	const unsigned long len = 300;
	PoolPtr pool =
		make_pool(kRatio, ZSNG_DEFAULT_CHAIN_PAGES, ZSNG_POOL_LRU);
	zsng_core_pool *p = pool.get();
	unsigned int per = objs_per_zspage(p, len);
	std::vector<unsigned long> objs;
	int calls = 0;
	auto refuse = [&](unsigned long h) {
		calls++;
		return -17; /* zswap's -EEXIST: the page is in the swap cache */
	};

	for (unsigned int i = 0; i < 2 * per; i++) {
		objs.push_back(zsng_core_malloc(p, len, 0));
		stamp(p, objs.back(), len, i);
	}
	unsigned long used = stats_of(p).pages_used;
	EXPECT_EQ(reclaim(p, refuse), -ZSNG_EAGAIN);
	EXPECT_EQ(calls, 8); /* kReclaimTries zspages, one call each */
	EXPECT_EQ(stats_of(p).pages_used, used);
	EXPECT_EQ(stats_of(p).evict_failed, 8u);
	EXPECT_EQ(zsng_core_check(p), 0);
	for (unsigned int i = 0; i < objs.size(); i++) {
		EXPECT_EQ(first_bad_byte(p, objs[i], len, i), -1);
		zsng_core_free(p, objs[i]);
	}
	EXPECT_EQ(stats_of(p).pages_used, 0u);
}

/*
 * The owner frees handles while reclaim runs: the one being evicted (its
 * bytes must stay readable until evict returns) and others of the same
 * zspage (reclaim must skip them). Under ASan a slot given back too early
 * is a use after free.
 */
TEST_F(Reclaim, HandlesFreedDuringEvictionStayReadable)
{
	const unsigned long len = 1500; /* spans pages: the bounce path too */
	PoolPtr pool =
		make_pool(kRatio, ZSNG_DEFAULT_CHAIN_PAGES, ZSNG_POOL_LRU);
	zsng_core_pool *p = pool.get();
	unsigned int per = objs_per_zspage(p, len);
	std::map<unsigned long, uint64_t> live;
	int evicted = 0, stale = 0;

	ASSERT_GE(per, 4u);
	for (unsigned int i = 0; i < per; i++) {
		unsigned long h = zsng_core_malloc(p, len, 0);

		stamp(p, h, len, 100 + i);
		live[h] = 100 + i;
	}
	auto evict = [&](unsigned long h) {
		uint64_t seed = live.at(h);

		evicted++;
		if (evicted % 2) {
			/* invalidated just before writeback looked */
			zsng_core_free(p, h);
			live.erase(h);
			stale++;
			EXPECT_EQ(first_bad_byte(p, h, len, seed), -1);
			return 0;
		}
		/* invalidates a later object of the zspage meanwhile */
		for (auto it = live.begin(); it != live.end(); ++it) {
			if (it->first != h) {
				zsng_core_free(p, it->first);
				live.erase(it);
				break;
			}
		}
		EXPECT_EQ(first_bad_byte(p, h, len, seed), -1);
		zsng_core_free(p, h);
		live.erase(h);
		return 0;
	};
	EXPECT_GT(reclaim(p, evict), 0);
	EXPECT_TRUE(live.empty());
	EXPECT_GT(stale, 0);
	/* Each evict call freed one or two objects. */
	EXPECT_LT((unsigned int)evicted, per);
	EXPECT_EQ(stats_of(p).pages_used, 0u);
	EXPECT_EQ(zsng_core_check(p), 0);
}

/*
 * A simulated zswap (mm/zswap.c of 6.1): entries in a tree by swap offset,
 * each with a reference count; an object holds its offset in its first 8
 * bytes (zswap_header) and the page after it. store replaces an offset's
 * entry, load maps it, invalidate drops it, writeback is the evict
 * callback: it reads the offset from the object, looks the entry up,
 * copies the page to the "swap device" and drops the entry, all with the
 * pool lock not held and handles freed under the tree lock.
 */
class ZswapSim {
    public:
	static constexpr unsigned long kPage = 600; /* "compressed" size */
	explicit ZswapSim(zsng_core_pool *pool)
		: pool_(pool)
	{
	}
	~ZswapSim()
	{
		for (auto &kv : tree_)
			put(kv.second);
	}

	void store(uint64_t off, uint64_t seed, unsigned long len)
	{
		unsigned long h = zsng_core_malloc(pool_, 8 + len, 0);

		ASSERT_FALSE(zsng_is_error(h));
		char *obj = static_cast<char *>(
			zsng_core_map(pool_, h, ZSNG_MM_WO));
		std::memcpy(obj, &off, 8);
		zsng::stamp_fill(obj + 8, len, seed);
		zsng_core_unmap(pool_, h);

		std::lock_guard<std::mutex> g(lock_);
		auto it = tree_.find(off);
		if (it != tree_.end()) {
			put(it->second);
			tree_.erase(it);
		}
		tree_[off] = new Entry{ h, len, seed, 1 };
		swapped_.erase(off);
	}

	/* The page's seed is either in the pool or on the "device". */
	bool load(uint64_t off, uint64_t seed)
	{
		Entry *e;
		{
			std::lock_guard<std::mutex> g(lock_);
			auto it = tree_.find(off);
			if (it == tree_.end()) {
				auto sw = swapped_.find(off);
				return sw != swapped_.end() &&
				       sw->second == seed;
			}
			e = it->second;
			e->refs++;
		}
		char *obj = static_cast<char *>(
			zsng_core_map(pool_, e->handle, ZSNG_MM_RO));
		bool ok = std::memcmp(obj, &off, 8) == 0 &&
			  zsng::stamp_first_bad(obj + 8, e->len, seed) == -1 &&
			  e->seed == seed;
		zsng_core_unmap(pool_, e->handle);
		std::lock_guard<std::mutex> g(lock_);
		put(e);
		return ok;
	}

	void invalidate(uint64_t off)
	{
		std::lock_guard<std::mutex> g(lock_);
		auto it = tree_.find(off);
		if (it != tree_.end()) {
			put(it->second);
			tree_.erase(it);
		}
		swapped_.erase(off);
	}

	static int writeback(void *ctx, unsigned long handle)
	{
		return static_cast<ZswapSim *>(ctx)->writeback(handle);
	}
	int writeback(unsigned long handle)
	{
		uint64_t off;
		Entry *e;

		std::memcpy(&off, zsng_core_map(pool_, handle, ZSNG_MM_RO), 8);
		zsng_core_unmap(pool_, handle);
		{
			std::lock_guard<std::mutex> g(lock_);
			auto it = tree_.find(off);
			/* invalidated (or replaced): its handle is freed */
			if (it == tree_.end() || it->second->handle != handle) {
				stale_++;
				return 0;
			}
			e = it->second;
			e->refs++;
		}
		char *obj = static_cast<char *>(
			zsng_core_map(pool_, handle, ZSNG_MM_RO));
		bool ok = zsng::stamp_first_bad(obj + 8, e->len, e->seed) == -1;
		zsng_core_unmap(pool_, handle);
		std::lock_guard<std::mutex> g(lock_);
		if (!ok)
			bad_++;
		auto it = tree_.find(off);
		if (it != tree_.end() && it->second == e) {
			swapped_[off] = e->seed;
			tree_.erase(it);
			put(e);
			written_++;
		}
		put(e);
		return 0;
	}

	long written_ = 0, stale_ = 0, bad_ = 0;

    private:
	struct Entry {
		unsigned long handle, len;
		uint64_t seed;
		int refs;
	};
	/* Tree lock held: frees the handle with the last reference. */
	void put(Entry *e)
	{
		if (--e->refs == 0) {
			zsng_core_free(pool_, e->handle);
			delete e;
		}
	}
	zsng_core_pool *pool_;
	std::mutex lock_;
	std::map<uint64_t, Entry *> tree_;
	std::map<uint64_t, uint64_t> swapped_;
};

/*
 * Three "swapping" threads store, load (verifying) and invalidate random
 * offsets while a fourth writes back through reclaim; the pool is LRU,
 * self-compacting and movable, with a migrator running. Nothing may be
 * lost: every load finds its bytes in the pool or on the "device".
 */
class ReclaimStress : public ::testing::TestWithParam<int> {};

TEST_P(ReclaimStress, ZswapStoresLoadsAndWritebackNeverLoseData)
{
	const unsigned int flags = ZSNG_POOL_LRU | ZSNG_POOL_AUTO_COMPACT |
				   ZSNG_POOL_MOVABLE;
	PoolPtr pool = make_pool(GetParam(), ZSNG_DEFAULT_CHAIN_PAGES, flags);
	zsng_core_pool *p = pool.get();
	ZswapSim zswap(p);
	std::atomic<bool> stop{ false };
	std::atomic<long> bad_loads{ 0 }, reclaimed{ 0 };
	const int kThreads = 3, kOps = 6000;
	const uint64_t kOffsets = 400; /* per thread: each owns its offsets */

	std::vector<std::thread> workers;
	for (int t = 0; t < kThreads; t++) {
		workers.emplace_back([&, t] {
			std::mt19937_64 rng(1234 + t);
			std::map<uint64_t, uint64_t> mine; /* offset -> seed */
			for (int i = 0; i < kOps; i++) {
				uint64_t off = t * kOffsets + rng() % kOffsets;
				unsigned op = rng() % 10;

				if (op < 5) {
					uint64_t seed = rng();
					zswap.store(off, seed,
						    24 + rng() % 3000);
					mine[off] = seed;
				} else if (op < 8) {
					auto it = mine.find(off);
					if (it != mine.end() &&
					    !zswap.load(off, it->second))
						bad_loads++;
				} else {
					zswap.invalidate(off);
					mine.erase(off);
				}
			}
			for (auto &kv : mine)
				if (!zswap.load(kv.first, kv.second))
					bad_loads++;
		});
	}
	std::thread reclaimer([&] {
		while (!stop.load()) {
			long n = zsng_core_reclaim(p, ZswapSim::writeback,
						   &zswap);
			if (n > 0)
				reclaimed += n;
			std::this_thread::yield();
		}
	});
	std::thread migrator([&] {
		for (unsigned long i = 0; !stop.load(); i++)
			zsng_user_migrate_one(i * 2654435761u, i % 2);
	});
	for (auto &w : workers)
		w.join();
	stop = true;
	reclaimer.join();
	migrator.join();

	EXPECT_EQ(bad_loads.load(), 0);
	EXPECT_EQ(zswap.bad_, 0);
	EXPECT_GT(zswap.written_, 0);
	EXPECT_GT(reclaimed.load(), 0);
	EXPECT_EQ(zsng_core_check(p), 0);
	zsng_pool_stats ps = stats_of(p);
	EXPECT_EQ(ps.pages_reclaimed, (unsigned long)reclaimed.load());
	EXPECT_GE(ps.objs_evicted, (unsigned long)zswap.written_);
}

INSTANTIATE_TEST_SUITE_P(Policies, ReclaimStress,
			 ::testing::Range(0, kNrPolicies), policy_param_name);

/*
 * Self-compaction: freeing three objects in four of a large class makes
 * the pool compact itself; the same frees in a pool without the flag do
 * not. A small pool, under the class minimum ZSNG_AUTO_COMPACT_MIN_PAGES,
 * compacts through the pool-wide check (made every
 * ZSNG_AUTO_COMPACT_CHECK_FREES frees of a class); a tiny one, whose frees
 * never reach a check and whose gain is under
 * ZSNG_AUTO_COMPACT_POOL_MIN_PAGES, does not.
 */
unsigned long churn(zsng_core_pool *p, unsigned int n, int wait_ms)
{
	const unsigned long len = 900;
	std::vector<unsigned long> objs;

	for (unsigned int i = 0; i < n; i++)
		objs.push_back(zsng_core_malloc(p, len, 0));
	for (unsigned int i = 0; i < n; i++)
		if (i % 4)
			zsng_core_free(p, objs[i]);
	/* The work item runs on its own thread: wait for it. */
	for (int i = 0; i < wait_ms && stats_of(p).pages_compacted == 0; i++)
		usleep(1000);
	unsigned long compacted = stats_of(p).pages_compacted;
	for (unsigned int i = 0; i < n; i += 4)
		zsng_core_free(p, objs[i]);
	return compacted;
}

TEST_F(Reclaim, AutoCompactionStartsPastTheThreshold)
{
	PoolPtr self = make_pool(kRatio, ZSNG_DEFAULT_CHAIN_PAGES,
				 ZSNG_POOL_AUTO_COMPACT);
	PoolPtr plain = make_pool(kRatio);
	PoolPtr small = make_pool(kRatio, ZSNG_DEFAULT_CHAIN_PAGES,
				  ZSNG_POOL_AUTO_COMPACT);
	PoolPtr tiny = make_pool(kRatio, ZSNG_DEFAULT_CHAIN_PAGES,
				 ZSNG_POOL_AUTO_COMPACT);

	EXPECT_GT(churn(self.get(), 4000, 5000), 0u);
	EXPECT_GT(stats_of(self.get()).auto_compactions, 0u);
	EXPECT_GT(stats_of(self.get()).objs_moved, 0u);
	EXPECT_EQ(churn(plain.get(), 4000, 200), 0u);
	EXPECT_EQ(stats_of(plain.get()).auto_compactions, 0u);
	/* 40 objects of 900 bytes: 9 pages, under the 16-page minimum;
	 * 30 frees, so the pool is checked: 6 pages to gain of 9 */
	EXPECT_GT(churn(small.get(), 40, 5000), 0u);
	EXPECT_GT(stats_of(small.get()).auto_compactions, 0u);
	/* 12 objects: 3 pages, 9 frees: no check, too little to gain */
	EXPECT_EQ(churn(tiny.get(), 12, 200), 0u);
	EXPECT_EQ(stats_of(tiny.get()).auto_compactions, 0u);
}

/*
 * Self-compaction waits for a burst of frees to settle: the frees of one
 * instant arm the timer once, one SETTLE_MS / 8 later moves it again, and
 * none moves it past MAX_DEFER_MS after the first; the run (here: a
 * settle(), the clock being fake) clears the stamps, so the next burst
 * starts over.
 */
TEST_F(Reclaim, AutoCompactionWaitsForTheFreesToSettle)
{
	PoolPtr p = make_pool(kRatio, ZSNG_DEFAULT_CHAIN_PAGES,
			      ZSNG_POOL_AUTO_COMPACT);
	const unsigned long long t0 = 1000;
	std::vector<unsigned long> objs;

	for (unsigned int i = 0; i < 4000; i++)
		objs.push_back(zsng_core_malloc(p.get(), 900, 0));
	zsng_user_clock_set(t0);
	long d0 = zsng_user_work_defers();
	auto free_some = [&](unsigned int rem) {
		for (unsigned int i = 0; i < objs.size(); i++)
			if (objs[i] && i % 4 == rem) {
				zsng_core_free(p.get(), objs[i]);
				objs[i] = 0;
			}
	};

	free_some(1);
	EXPECT_EQ(zsng_user_work_defers() - d0, 1);
	EXPECT_EQ(stats_of(p.get()).auto_compactions, 0u);
	zsng_user_clock_set(t0 + ZSNG_AUTO_COMPACT_SETTLE_MS / 8);
	free_some(2);
	EXPECT_EQ(zsng_user_work_defers() - d0, 2);
	zsng_user_clock_set(t0 + ZSNG_AUTO_COMPACT_MAX_DEFER_MS);
	free_some(3);
	EXPECT_EQ(zsng_user_work_defers() - d0, 2);
	EXPECT_EQ(stats_of(p.get()).auto_compactions, 0u);

	zsng_core_settle(p.get());
	EXPECT_EQ(stats_of(p.get()).auto_compactions, 1u);
	EXPECT_GT(stats_of(p.get()).pages_compacted, 0u);

	zsng_user_clock_set(t0 + 2 * ZSNG_AUTO_COMPACT_MAX_DEFER_MS);
	for (unsigned int i = 0; i < objs.size(); i += 8) {
		zsng_core_free(p.get(), objs[i]);
		objs[i] = 0;
	}
	EXPECT_EQ(zsng_user_work_defers() - d0, 3);
	zsng_user_clock_set(-1);
	for (unsigned long h : objs)
		if (h)
			zsng_core_free(p.get(), h);
}

} // namespace

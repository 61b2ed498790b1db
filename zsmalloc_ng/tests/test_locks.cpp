// SPDX-License-Identifier: GPL-2.0
/*
 * The lock design of pool.hpp ("Locks"), pinned down:
 *
 *   - each size class has its own lock; malloc, free, map, write and
 *     store take only their class's; an LRU pool has one for all;
 *   - the shrinker's count (compactable_pages()) takes no lock;
 *   - a class whose lock is held (here: by a compaction waiting for a
 *     mapped source) stops nobody working in another class;
 *   - no page or descriptor is given back under a lock;
 *   - each lock is made for its role (svc.h: its lockdep class in the
 *     kernel), and locks are taken in the order of their roles.
 *
 * The userspace service layer records the locks a thread takes, counts
 * frees made under one and warns when a lock is taken out of the order of
 * roles (svc_user.h).
 */
#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "test_helpers.hpp"

using namespace zsng_test;

namespace
{
/* Runs @fn, returns the distinct locks it took (at most 8 recorded). */
template <typename F> std::vector<void *> locks_of(F fn)
{
	void *locks[8];
	int n;

	zsng_user_trace_locks(1);
	fn();
	zsng_user_trace_locks(0);
	n = zsng_user_locks_traced(locks, 8);
	return std::vector<void *>(locks, locks + (n < 8 ? n : 8));
}

/* Two request sizes served by different classes of @pool. */
void two_classes(zsng_core_pool *pool, unsigned long *a, unsigned long *b)
{
	*a = 100;
	*b = 2000;
	ASSERT_NE(zsng_core_class_index(pool, *a),
		  zsng_core_class_index(pool, *b));
}

/* Waits up to 10 s for @flag. */
bool wait_for(const std::atomic<bool> &flag)
{
	for (int i = 0; i < 10000 && !flag.load(); i++)
		std::this_thread::sleep_for(std::chrono::milliseconds(1));
	return flag.load();
}
} // namespace

TEST(Locks, EachClassTakesItsOwnLock)
{
	PoolPtr pool = make_pool(kRatio);
	unsigned long a, b, ha = 0, hb = 0;
	char buf[2000] = {};

	two_classes(pool.get(), &a, &b);
	auto la = locks_of([&] { ha = zsng_core_malloc(pool.get(), a, 0); });
	auto lb =
		locks_of([&] { hb = zsng_core_store(pool.get(), buf, b, 0); });
	ASSERT_FALSE(zsng_is_error(ha));
	ASSERT_FALSE(zsng_is_error(hb));
	ASSERT_EQ(la.size(), 1u);
	ASSERT_EQ(lb.size(), 1u);
	EXPECT_NE(la[0], lb[0]) << "two classes share a lock";

	/* Every operation on an object takes its class's lock and no other. */
	EXPECT_EQ(locks_of([&] {
			  zsng_core_map(pool.get(), ha, ZSNG_MM_RW);
			  zsng_core_unmap(pool.get(), ha);
			  zsng_core_write(pool.get(), ha, buf, a);
		  }),
		  la);
	EXPECT_EQ(locks_of([&] { zsng_core_free(pool.get(), ha); }), la);
	EXPECT_EQ(locks_of([&] { zsng_core_free(pool.get(), hb); }), lb);
	EXPECT_EQ(zsng_core_check(pool.get()), 0);
}

TEST(Locks, LruPoolHasOneLock)
{
	PoolPtr pool =
		make_pool(kRatio, ZSNG_DEFAULT_CHAIN_PAGES, ZSNG_POOL_LRU);
	unsigned long a, b, ha = 0, hb = 0;

	two_classes(pool.get(), &a, &b);
	auto la = locks_of([&] { ha = zsng_core_malloc(pool.get(), a, 0); });
	auto lb = locks_of([&] { hb = zsng_core_malloc(pool.get(), b, 0); });
	ASSERT_EQ(la.size(), 1u);
	EXPECT_EQ(la, lb) << "the LRU spans classes: one lock";
	zsng_core_free(pool.get(), ha);
	zsng_core_free(pool.get(), hb);
}

/*
 * A class lock, an LRU pool's one lock and a movable pool's deferred lock
 * are three roles, so three lockdep classes in the kernel. A free that
 * finds a page locked defers the zspage: the deferred lock under the class
 * lock, two roles in their order, no warning. (When every lock was of one
 * class, lockdep took this path for recursive locking.)
 */
TEST(Locks, EachLockHasTheRoleOfWhatItGuards)
{
	long warnings = zsng_user_warnings();
	PoolPtr plain = make_pool(kRatio);
	PoolPtr lru =
		make_pool(kRatio, ZSNG_DEFAULT_CHAIN_PAGES, ZSNG_POOL_LRU);
	PoolPtr movable =
		make_pool(kRatio, ZSNG_DEFAULT_CHAIN_PAGES, ZSNG_POOL_MOVABLE);
	unsigned long h = 0;
	void *page;

	auto lp = locks_of([&] { h = zsng_core_malloc(plain.get(), 100, 0); });
	ASSERT_EQ(lp.size(), 1u);
	EXPECT_EQ(zsng_user_lock_role(lp[0]), ZSNG_LOCK_CLASS);
	zsng_core_free(plain.get(), h);

	auto ll = locks_of([&] { h = zsng_core_malloc(lru.get(), 100, 0); });
	ASSERT_EQ(ll.size(), 1u);
	EXPECT_EQ(zsng_user_lock_role(ll[0]), ZSNG_LOCK_LRU);
	zsng_core_free(lru.get(), h);

	/* The only object of its zspage, whose page a migrator holds. */
	h = zsng_core_malloc(movable.get(), 100, 0);
	ASSERT_FALSE(zsng_is_error(h));
	page = zsng_user_get_movable_page(0);
	ASSERT_NE(page, nullptr);
	ASSERT_TRUE(zsng_svc_page_trylock(page));
	auto lm = locks_of([&] { zsng_core_free(movable.get(), h); });
	zsng_svc_page_unlock(page);
	zsng_user_put_page(page);
	ASSERT_EQ(lm.size(), 2u) << "the free was not deferred: no test";
	EXPECT_EQ(zsng_user_lock_role(lm[0]), ZSNG_LOCK_CLASS);
	EXPECT_EQ(zsng_user_lock_role(lm[1]), ZSNG_LOCK_DEFERRED);
	EXPECT_TRUE(deferred_drained(movable.get()));
	EXPECT_EQ(zsng_user_warnings(), warnings);
}

/* The order check itself, on locks made here: the negative controls. */
TEST(Locks, LocksOutOfTheOrderOfRolesWarn)
{
	void *a = zsng_svc_lock_create(ZSNG_LOCK_CLASS);
	void *b = zsng_svc_lock_create(ZSNG_LOCK_CLASS);
	void *d = zsng_svc_lock_create(ZSNG_LOCK_DEFERRED);
	long warnings = zsng_user_warnings();

	ASSERT_TRUE(a && b && d);
	zsng_svc_lock(a);
	zsng_svc_lock(d);
	zsng_svc_unlock(d);
	zsng_svc_unlock(a);
	EXPECT_EQ(zsng_user_warnings(), warnings) << "class, then deferred";

	zsng_svc_lock(a);
	zsng_svc_lock(b);
	zsng_svc_unlock(b);
	zsng_svc_unlock(a);
	EXPECT_EQ(zsng_user_warnings(), warnings + 1) << "two class locks";

	zsng_svc_lock(d);
	zsng_svc_lock(a);
	zsng_svc_unlock(a);
	zsng_svc_unlock(d);
	EXPECT_EQ(zsng_user_warnings(), warnings + 2) << "class under deferred";

	/* Released out of order, then nothing is held. */
	zsng_svc_lock(a);
	zsng_svc_lock(d);
	zsng_svc_unlock(a);
	zsng_svc_unlock(d);
	zsng_svc_lock(b);
	zsng_svc_unlock(b);
	EXPECT_EQ(zsng_user_warnings(), warnings + 2) << "a stale held lock";

	zsng_svc_lock_destroy(d);
	zsng_svc_lock_destroy(b);
	zsng_svc_lock_destroy(a);
}

TEST(Locks, ShrinkerCountTakesNoLock)
{
	PoolPtr pool = make_pool(kRatio);
	std::vector<unsigned long> h;
	unsigned long pages = 0, freeable = 0;

	for (int i = 0; i < 4000; i++)
		h.push_back(zsng_core_malloc(pool.get(), 40 + i % 3000, 0));
	for (size_t i = 0; i < h.size(); i += 2)
		zsng_core_free(pool.get(), h[i]);
	EXPECT_TRUE(locks_of([&] {
			    pages = zsng_core_compactable_pages(pool.get());
		    }).empty());
	for (unsigned int i = 0; i < zsng_core_nr_classes(pool.get()); i++) {
		struct zsng_class_stats cs;

		zsng_core_class_stats(pool.get(), i, &cs);
		freeable += cs.freeable;
	}
	EXPECT_GT(pages, 0u);
	EXPECT_EQ(pages, freeable) << "lockless count differs at rest";
	for (size_t i = 1; i < h.size(); i += 2)
		zsng_core_free(pool.get(), h[i]);
}

/*
 * A compaction of class A waits, holding A's lock, for a source object
 * that is mapped. Meanwhile another thread allocates, stores, maps and
 * frees in class B, and the shrinker counts: both must finish while A's
 * lock is still held. Under one pool lock both wait for the unmap.
 */
TEST(Locks, ClassesDoNotWaitForEachOther)
{
	PoolPtr pool = make_pool(kRatio);
	zsng_core_pool *p = pool.get();
	unsigned long a, b;
	std::vector<unsigned long> full;
	struct zsng_class_stats cs;
	std::atomic<bool> compacted{ false }, other_done{ false },
		counted{ false };
	unsigned long x, freed = 0;

	two_classes(p, &a, &b);
	zsng_core_class_stats(p, zsng_core_class_index(p, a), &cs);
	/* Zspage 1: full, then half freed; zspage 2: only x (the source). */
	for (unsigned int i = 0; i < cs.objs_per_zspage; i++)
		full.push_back(zsng_core_malloc(p, a, 0));
	x = zsng_core_malloc(p, a, 0);
	stamp(p, x, a, 7);
	for (unsigned int i = 0; i < cs.objs_per_zspage; i += 2)
		zsng_core_free(p, full[i]);
	ASSERT_GT(zsng_core_compactable_pages(p), 0u);

	ASSERT_NE(zsng_core_map(p, x, ZSNG_MM_RO), nullptr);
	std::thread compactor([&] {
		freed = zsng_core_compact_class(p, zsng_core_class_index(p, a));
		compacted = true;
	});
	/* Let it reach the mapped source and spin there with A's lock. */
	std::this_thread::sleep_for(std::chrono::milliseconds(200));
	std::thread other([&] {
		char buf[2000];
		std::vector<unsigned long> hb;

		memset(buf, 0x5a, sizeof(buf));
		for (int i = 0; i < 200; i++)
			hb.push_back(i % 2 ? zsng_core_malloc(p, b, 0) :
					     zsng_core_store(p, buf, b, 0));
		for (unsigned long h : hb) {
			zsng_core_map(p, h, ZSNG_MM_RW);
			zsng_core_unmap(p, h);
			zsng_core_free(p, h);
		}
		other_done = true;
	});
	std::thread shrinker([&] {
		zsng_core_compactable_pages(p);
		counted = true;
	});
	bool other_finished = wait_for(other_done);
	bool count_finished = wait_for(counted);
	bool still_compacting = !compacted.load();

	zsng_core_unmap(p, x);
	compactor.join();
	other.join();
	shrinker.join();
	EXPECT_TRUE(still_compacting)
		<< "compaction did not wait for the mapped source: no test";
	EXPECT_TRUE(other_finished) << "class B waited for class A's lock";
	EXPECT_TRUE(count_finished) << "the shrinker's count waited for a lock";
	EXPECT_GT(freed, 0u);
	EXPECT_EQ(first_bad_byte(p, x, a, 7), -1);
	EXPECT_EQ(zsng_core_check(p), 0);
	zsng_core_free(p, x);
	for (unsigned int i = 1; i < cs.objs_per_zspage; i += 2)
		zsng_core_free(p, full[i]);
}

/* Emptied zspages go back to the page allocator after the lock is dropped. */
class NothingFreedUnderLock : public ::testing::TestWithParam<unsigned int> {};

static int evict_all(void *ctx, unsigned long handle)
{
	zsng_core_free(static_cast<zsng_core_pool *>(ctx), handle);
	return 0;
}

TEST_P(NothingFreedUnderLock, FreeCompactReclaimMigrateDestroy)
{
	unsigned int flags = GetParam();
	zsng_core_pool *p =
		zsng_core_create(kRatio, ZSNG_DEFAULT_CHAIN_PAGES, flags);
	long before = zsng_user_frees_under_lock();
	long pages_before = zsng_user_live_pages();
	std::vector<unsigned long> h;

	ASSERT_NE(p, nullptr);
	for (int i = 0; i < 3000; i++)
		h.push_back(zsng_core_malloc(p, 24 + (i * 37) % 3500, 0));
	/* Free two of three: many zspages empty, the rest fragmented. */
	for (size_t i = 0; i < h.size(); i++) {
		if (i % 3) {
			zsng_core_free(p, h[i]);
			h[i] = 0;
		}
	}
	EXPECT_GT(zsng_core_compact(p), 0u);
	if (flags & ZSNG_POOL_MOVABLE) {
		for (int i = 0; i < 200; i++)
			zsng_user_migrate_one(i * 7919, 1);
	}
	if (flags & ZSNG_POOL_LRU)
		EXPECT_GT(zsng_core_reclaim(p, evict_all, p), 0);
	EXPECT_EQ(zsng_core_check(p), 0);
	/* What is left (some of it evicted already) goes with the pool. */
	zsng_core_destroy(p);
	EXPECT_EQ(zsng_user_frees_under_lock() - before, 0);
	EXPECT_EQ(zsng_user_live_pages(), pages_before);
}

INSTANTIATE_TEST_SUITE_P(Flags, NothingFreedUnderLock,
			 ::testing::Values(0u, ZSNG_POOL_MOVABLE, ZSNG_POOL_LRU,
					   ZSNG_POOL_MOVABLE | ZSNG_POOL_LRU));

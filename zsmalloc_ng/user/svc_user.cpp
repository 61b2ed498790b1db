// SPDX-License-Identifier: GPL-2.0
/*
 * The userspace side of the service layer (core/svc.h): pages from
 * aligned_alloc(), the pool lock a pthread spinlock with a waiter count (so
 * that "contended" means what it means in the kernel), a thread-local map
 * area, and deterministic allocation-failure injection for the tests.
 */
#include "svc_user.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <pthread.h>
#include <sched.h>

extern "C" {
#include "svc.h"
}

namespace
{
std::atomic<long> g_fail_after{ -1 }; /* <0: never fail */
std::atomic<long> g_fail_count{ 0 };
std::atomic<long> g_live_pages{ 0 };
std::atomic<long> g_live_allocs{ 0 };
std::atomic<long> g_warnings{ 0 };
unsigned int g_max_pages = 8;

bool inject_failure()
{
	long left = g_fail_after.load();

	while (left >= 0) {
		if (left == 0) {
			g_fail_count++;
			return true;
		}
		if (g_fail_after.compare_exchange_weak(left, left - 1))
			return false;
	}
	return false;
}

struct UserLock {
	pthread_spinlock_t lock;
	std::atomic<int> waiters;
};

alignas(64) thread_local char t_map_area[ZSNG_MAP_AREA_SIZE];
} // namespace

void zsng_user_fail_after(long n)
{
	g_fail_after.store(n);
}

long zsng_user_failures()
{
	return g_fail_count.load();
}

long zsng_user_live_pages()
{
	return g_live_pages.load();
}

long zsng_user_live_allocs()
{
	return g_live_allocs.load();
}

long zsng_user_warnings()
{
	return g_warnings.load();
}

void zsng_user_set_max_pages(unsigned int n)
{
	g_max_pages = n;
}

extern "C" {

void *zsng_svc_page_alloc(unsigned int)
{
	if (inject_failure())
		return nullptr;
	void *p = aligned_alloc(ZSNG_PAGE_SIZE, ZSNG_PAGE_SIZE);

	if (p)
		g_live_pages++;
	return p;
}

void zsng_svc_page_free(void *page)
{
	if (!page)
		return;
	g_live_pages--;
	free(page);
}

void *zsng_svc_zalloc(unsigned long size, unsigned int)
{
	if (inject_failure())
		return nullptr;
	void *p = calloc(1, size);

	if (p)
		g_live_allocs++;
	return p;
}

void zsng_svc_free(void *ptr)
{
	if (!ptr)
		return;
	g_live_allocs--;
	free(ptr);
}

void *zsng_svc_cache_create(const char *, unsigned long size)
{
	/* The "cache" is the slot size, kept in a heap word. */
	auto *sz = static_cast<unsigned long *>(malloc(sizeof(unsigned long)));

	if (sz)
		*sz = size;
	return sz;
}

void zsng_svc_cache_destroy(void *cache)
{
	free(cache);
}

void *zsng_svc_cache_alloc(void *cache, unsigned int gfp)
{
	if (inject_failure())
		return nullptr;
	void *p = aligned_alloc(16, *static_cast<unsigned long *>(cache));

	(void)gfp;
	if (p)
		g_live_allocs++;
	return p;
}

void zsng_svc_cache_free(void *, void *obj)
{
	if (!obj)
		return;
	g_live_allocs--;
	free(obj);
}

void *zsng_svc_lock_create(void)
{
	auto *l = new (std::nothrow) UserLock;

	if (!l)
		return nullptr;
	pthread_spin_init(&l->lock, PTHREAD_PROCESS_PRIVATE);
	l->waiters = 0;
	return l;
}

void zsng_svc_lock_destroy(void *lock)
{
	auto *l = static_cast<UserLock *>(lock);

	pthread_spin_destroy(&l->lock);
	delete l;
}

void zsng_svc_lock(void *lock)
{
	auto *l = static_cast<UserLock *>(lock);

	if (pthread_spin_trylock(&l->lock) == 0)
		return;
	l->waiters++;
	pthread_spin_lock(&l->lock);
	l->waiters--;
}

void zsng_svc_unlock(void *lock)
{
	pthread_spin_unlock(&static_cast<UserLock *>(lock)->lock);
}

int zsng_svc_lock_contended(void *lock)
{
	return static_cast<UserLock *>(lock)->waiters.load() > 0;
}

void zsng_svc_cond_resched(void)
{
	sched_yield();
}

void zsng_svc_cpu_relax(void)
{
	__builtin_ia32_pause();
}

void *zsng_svc_map_begin(void)
{
	return t_map_area;
}

void *zsng_svc_map_area(void)
{
	return t_map_area;
}

void zsng_svc_map_end(void)
{
}

void zsng_svc_log(const char *msg)
{
	if (getenv("ZSNG_VERBOSE"))
		fprintf(stderr, "%s\n", msg);
}

void zsng_svc_warn(const char *file, int line, const char *cond)
{
	g_warnings++;
	fprintf(stderr, "WARNING: %s:%d: %s\n", file, line, cond);
}

unsigned int zsng_svc_max_pages_per_zspage(void)
{
	return g_max_pages;
}

} // extern "C"

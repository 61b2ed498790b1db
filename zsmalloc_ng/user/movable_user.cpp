// SPDX-License-Identifier: GPL-2.0
/*
 * The userspace side of movable pages and deferred work (core/svc.h), and
 * a simulated page migrator for the tests.
 *
 * The kernel's rules, reproduced: a movable page has a reference count, a
 * lock, a "movable" state with an owner, and an "isolated" state, all of
 * them changed only under the page lock except the count. The migrator
 * does what mm/migrate.c does with a non-LRU movable page:
 *
 *   isolate  take a reference; trylock the page; skip it unless it is
 *            movable and not isolated; ask zsng_core_page_isolate(); mark
 *            it isolated; unlock. The reference stays.
 *   migrate  allocate and lock a new page; lock the old one (may wait); if
 *            the owner took it back meanwhile, drop it ("freed under us");
 *            else zsng_core_page_migrate(), then on success what
 *            kernel/movable.c does (the new page gets a reference, the
 *            owner and the movable state; the old page loses them and the
 *            owner's reference), then unisolate, unlock and drop the
 *            isolation reference, which frees the old page.
 *   putback  after a refusal: lock, unisolate, unlock, drop the reference.
 *
 * Page metadata lives in a table beside the pages (a registered page is
 * one that was handed to migration and still has a reference), so that
 * non-movable pools and the benchmarks pay nothing for it.
 */
#include "svc_user.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <new>
#include <sched.h>
#include <thread>
#include <unordered_map>
#include <vector>

extern "C" {
#include "svc.h"
#include "zsng_core.h"
}

namespace
{
struct PageMeta {
	std::atomic<bool> locked{ false };
	int refs = 1; /* under g_meta_lock */
	size_t index = 0; /* in g_pages, under g_meta_lock */
	/* Under the page lock: */
	bool movable = false;
	bool isolated = false;
	void *owner = nullptr;
};

std::mutex g_meta_lock;
std::unordered_map<void *, PageMeta *> g_meta;
std::vector<void *> g_pages; /* registered pages, for a random pick */

PageMeta *meta_of(void *page)
{
	std::lock_guard<std::mutex> g(g_meta_lock);
	auto it = g_meta.find(page);

	if (it == g_meta.end()) {
		zsng_svc_warn(__FILE__, __LINE__, "page not registered");
		abort();
	}
	return it->second;
}

PageMeta *register_page(void *page, bool locked)
{
	auto *m = new PageMeta;
	std::lock_guard<std::mutex> g(g_meta_lock);

	m->locked = locked;
	m->index = g_pages.size();
	g_pages.push_back(page);
	g_meta[page] = m;
	return m;
}

void get_page(void *page)
{
	std::lock_guard<std::mutex> g(g_meta_lock);

	g_meta.at(page)->refs++;
}

/* The last reference frees the page, as put_page() does. */
void put_page(void *page)
{
	PageMeta *m;
	{
		std::lock_guard<std::mutex> g(g_meta_lock);

		m = g_meta.at(page);
		if (--m->refs)
			return;
		g_pages[m->index] = g_pages.back();
		g_meta.at(g_pages[m->index])->index = m->index;
		g_pages.pop_back();
		g_meta.erase(page);
	}
	if (m->locked)
		zsng_svc_warn(__FILE__, __LINE__, "freeing a locked page");
	delete m;
	zsng_svc_page_free(page);
}

bool trylock(PageMeta *m)
{
	return !m->locked.exchange(true, std::memory_order_acquire);
}

void lock(PageMeta *m)
{
	while (!trylock(m))
		sched_yield();
}

void unlock(PageMeta *m)
{
	m->locked.store(false, std::memory_order_release);
}

using Clock = std::chrono::steady_clock;

/* zsng_user_clock_set()'s time, or -1: the steady clock. */
std::atomic<long long> g_fake_now_ms{ -1 };

/*
 * A work item's thread runs it once it is pending and its time has come.
 * While the clock is fake (zsng_user_clock_set()) a deferred run waits for
 * a flush: what a test sees then does not depend on how fast it runs.
 */
struct UserWork {
	void (*fn)(void *);
	void *arg;
	std::mutex m;
	std::condition_variable cv;
	bool pending = false, running = false, stop = false;
	Clock::time_point due;
	std::thread thread;

	void loop()
	{
		std::unique_lock<std::mutex> g(m);

		for (;;) {
			cv.wait(g, [this] { return pending || stop; });
			if (!pending)
				return;
			if (!stop && Clock::now() < due) {
				cv.wait_until(g, due);
				continue;
			}
			pending = false;
			running = true;
			g.unlock();
			fn(arg);
			g.lock();
			running = false;
			cv.notify_all();
		}
	}
};

std::atomic<long> g_work_runs{ 0 };
std::atomic<long> g_work_defers{ 0 };
} // namespace

extern "C" {

void *zsng_svc_movable_page_alloc(unsigned int gfp)
{
	return zsng_svc_page_alloc(gfp);
}

void zsng_svc_page_set_movable(void *page, void *owner)
{
	PageMeta *m = register_page(page, true);

	m->movable = true;
	m->owner = owner;
	unlock(m);
}

int zsng_svc_page_trylock(void *page)
{
	return trylock(meta_of(page));
}

void zsng_svc_page_lock(void *page)
{
	lock(meta_of(page));
}

void zsng_svc_page_unlock(void *page)
{
	unlock(meta_of(page));
}

void zsng_svc_movable_page_free(void *page)
{
	PageMeta *m = meta_of(page);

	zsng_user_note_free();
	m->movable = false;
	m->owner = nullptr;
	unlock(m);
	put_page(page);
}

/* One kind of item here: @role names lockdep classes in the kernel. */
void *zsng_svc_work_create(enum zsng_work_role, void (*fn)(void *), void *arg)
{
	void *mem = zsng_svc_zalloc(sizeof(UserWork), ZSNG_GFP_KERNEL);

	if (!mem)
		return nullptr;
	auto *w = new (mem) UserWork;
	w->fn = fn;
	w->arg = arg;
	w->thread = std::thread([w] { w->loop(); });
	return w;
}

void zsng_svc_work_kick(void *work)
{
	auto *w = static_cast<UserWork *>(work);
	std::lock_guard<std::mutex> g(w->m);

	if (!w->pending) {
		w->pending = true;
		w->due = Clock::now();
	}
	g_work_runs++;
	w->cv.notify_all();
}

void zsng_svc_work_defer(void *work, unsigned int ms)
{
	auto *w = static_cast<UserWork *>(work);
	std::lock_guard<std::mutex> g(w->m);

	w->pending = true;
	if (g_fake_now_ms.load() >= 0)
		w->due = Clock::time_point::max();
	else
		w->due = Clock::now() + std::chrono::milliseconds(ms);
	g_work_defers++;
	w->cv.notify_all();
}

void zsng_svc_work_flush(void *work)
{
	auto *w = static_cast<UserWork *>(work);
	std::unique_lock<std::mutex> g(w->m);

	w->due = Clock::now();
	w->cv.notify_all();
	w->cv.wait(g, [w] { return !w->pending && !w->running; });
}

unsigned long long zsng_svc_now_ms(void)
{
	long long fake = g_fake_now_ms.load();

	if (fake >= 0)
		return (unsigned long long)fake;
	return (unsigned long long)
		std::chrono::duration_cast<std::chrono::milliseconds>(
			Clock::now().time_since_epoch())
			.count();
}

void zsng_svc_work_destroy(void *work)
{
	auto *w = static_cast<UserWork *>(work);

	zsng_svc_work_flush(w);
	{
		std::lock_guard<std::mutex> g(w->m);

		w->stop = true;
		w->cv.notify_all();
	}
	w->thread.join();
	w->~UserWork();
	zsng_svc_free(w);
}

} // extern "C"

long zsng_user_work_kicks()
{
	return g_work_runs.load();
}

long zsng_user_work_defers()
{
	return g_work_defers.load();
}

void zsng_user_clock_set(long long ms)
{
	g_fake_now_ms.store(ms);
}

long zsng_user_movable_pages()
{
	std::lock_guard<std::mutex> g(g_meta_lock);

	return (long)g_pages.size();
}

void *zsng_user_get_movable_page(unsigned long pick)
{
	std::lock_guard<std::mutex> g(g_meta_lock);
	void *page;

	if (g_pages.empty())
		return nullptr;
	page = g_pages[pick % g_pages.size()];
	g_meta.at(page)->refs++;
	return page;
}

void *zsng_user_get_page_at(const void *addr)
{
	void *page = (void *)((unsigned long)addr & ~(ZSNG_PAGE_SIZE - 1));
	std::lock_guard<std::mutex> g(g_meta_lock);
	auto it = g_meta.find(page);

	if (it == g_meta.end())
		return nullptr;
	it->second->refs++;
	return page;
}

void zsng_user_put_page(void *page)
{
	put_page(page);
}

int zsng_user_isolate(void *page)
{
	PageMeta *m = meta_of(page);

	if (!trylock(m)) {
		put_page(page);
		return ZSNG_USER_LOCKED;
	}
	if (!m->movable || m->isolated) {
		unlock(m);
		put_page(page);
		return ZSNG_USER_NOT_MOVABLE;
	}
	if (!zsng_core_page_isolate(m->owner)) {
		unlock(m);
		put_page(page);
		return ZSNG_USER_NOT_ISOLATED;
	}
	m->isolated = true;
	unlock(m);
	return ZSNG_USER_ISOLATED;
}

static void putback(void *page)
{
	PageMeta *m = meta_of(page);

	lock(m);
	m->isolated = false;
	unlock(m);
	put_page(page);
}

int zsng_user_migrate_isolated(void *src, int sync)
{
	PageMeta *sm = meta_of(src);
	/* The kernel's target page may not be had either. */
	void *dst = zsng_svc_page_alloc(0);
	PageMeta *dm;
	int err;

	if (!dst) {
		putback(src);
		return ZSNG_USER_REFUSED;
	}
	dm = register_page(dst, true);
	lock(sm);
	if (!sm->movable) {
		/* Taken back while isolated: "freed from under us". */
		sm->isolated = false;
		unlock(sm);
		put_page(src);
		unlock(dm);
		put_page(dst);
		return ZSNG_USER_FREED;
	}
	err = zsng_core_page_migrate(sm->owner, src, dst, sync);
	if (err) {
		unlock(sm);
		unlock(dm);
		put_page(dst);
		putback(src);
		return err == -ZSNG_EAGAIN ? ZSNG_USER_BUSY : ZSNG_USER_REFUSED;
	}
	/* What kernel/movable.c does on success. */
	get_page(dst);
	dm->owner = sm->owner;
	dm->movable = true;
	sm->movable = false;
	sm->owner = nullptr;
	put_page(src);
	/* What mm/migrate.c does then. */
	sm->isolated = false;
	unlock(sm);
	put_page(src);
	unlock(dm);
	put_page(dst);
	return ZSNG_USER_MIGRATED;
}

int zsng_user_migrate_one(unsigned long pick, int sync)
{
	void *page = zsng_user_get_movable_page(pick);
	int ret;

	if (!page)
		return ZSNG_USER_NOT_MOVABLE;
	ret = zsng_user_isolate(page);
	if (ret != ZSNG_USER_ISOLATED)
		return ret;
	return zsng_user_migrate_isolated(page, sync);
}

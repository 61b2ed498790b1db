// SPDX-License-Identifier: GPL-2.0
/*
 * The userspace side of the service layer (core/svc.h): pages from
 * aligned_alloc(), the core's locks pthread spinlocks with a waiter count
 * (so that "contended" means what it means in the kernel) whose order of
 * roles is checked as lockdep would, a thread-local map area, and
 * deterministic allocation-failure injection for the tests.
 *
 * Handle slots come from a per-thread magazine of freed objects in front
 * of aligned_alloc(), as the kernel's kmem_cache serves most allocations
 * from a per-CPU freelist: glibc's memalign + free cost ~140 instructions
 * per slot, more than the allocator core's own malloc + free, and would
 * otherwise be most of what the micro benchmark measures. Like the
 * kernel's zsng_handle slab, one pool of slots serves every pool. Sanitizer
 * builds skip it, so that ASan still sees a slot used after it was freed.
 */
#include "svc_user.h"

#include <atomic>
#include <mutex>
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
/* Per thread, not atomic: the benchmarks' fast path stays as it was. */
thread_local long t_alloc_calls;
std::atomic<int> g_first_failure{ ZSNG_USER_NO_FAILURE };
std::atomic<long> g_live_pages{ 0 };
std::atomic<long> g_live_allocs{ 0 };
std::atomic<long> g_warnings{ 0 };
unsigned int g_max_pages = ZSNG_DEFAULT_CHAIN_PAGES;

bool inject_failure(enum zsng_user_alloc_kind kind)
{
	long left = g_fail_after.load();

	t_alloc_calls++;
	while (left >= 0) {
		if (left == 0) {
			int none = ZSNG_USER_NO_FAILURE;

			g_first_failure.compare_exchange_strong(none, kind);
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
	enum zsng_lock_role role;
};

/* Lock checks (svc_user.h): per thread, so the fast path stays cheap. */
constexpr int kMaxTraced = 8;
constexpr int kMaxHeld = 4;
thread_local int t_locks_held;
thread_local const UserLock *t_held[kMaxHeld];
thread_local bool t_tracing;
thread_local int t_nr_traced;
thread_local void *t_traced[kMaxTraced];
std::atomic<long> g_frees_under_lock{ 0 };

/*
 * svc.h's lock order, checked per role as lockdep checks it per class in
 * the kernel, before @l is taken (a lock taken twice would hang first):
 * every lock this thread holds must have an earlier role. A breach is a
 * warning, which the tests and the fuzzer count.
 */
void check_order(const UserLock *l)
{
	for (int i = 0; i < t_locks_held && i < kMaxHeld; i++) {
		char msg[80];

		if (t_held[i]->role < l->role)
			continue;
		snprintf(msg, sizeof(msg), "lock order: %s taken under %s",
			 zsng_lock_role_name(l->role),
			 zsng_lock_role_name(t_held[i]->role));
		zsng_svc_warn(__FILE__, __LINE__, msg);
	}
}

void note_lock(UserLock *lock)
{
	if (t_locks_held < kMaxHeld)
		t_held[t_locks_held] = lock;
	t_locks_held++;
	if (!t_tracing)
		return;
	for (int i = 0; i < t_nr_traced && i < kMaxTraced; i++)
		if (t_traced[i] == lock)
			return;
	if (t_nr_traced < kMaxTraced)
		t_traced[t_nr_traced] = lock;
	t_nr_traced++;
}

alignas(64) thread_local char t_map_area[ZSNG_MAP_AREA_SIZE];

#if defined(__SANITIZE_ADDRESS__)
#define ZSNG_USER_MAGAZINE 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ZSNG_USER_MAGAZINE 0
#endif
#endif
#ifndef ZSNG_USER_MAGAZINE
#define ZSNG_USER_MAGAZINE 1
#endif

/* Freed handle slots, kept by this thread for reuse. */
struct Magazine {
	static constexpr int kCapacity = 64;
	int nr = 0;
	void *objs[kCapacity];

	void *pop()
	{
		return ZSNG_USER_MAGAZINE && nr ? objs[--nr] : nullptr;
	}
	bool push(void *obj)
	{
		if (!ZSNG_USER_MAGAZINE || nr == kCapacity)
			return false;
		objs[nr++] = obj;
		return true;
	}
	~Magazine()
	{
		while (nr)
			free(objs[--nr]);
	}
};

thread_local Magazine t_magazine;

/*
 * Slots handed out minus slots given back, counted per thread: a shared
 * atomic would put two locked instructions on every malloc + free. A
 * thread's count joins g_live_allocs when the thread exits.
 */
struct SlotCount;
std::mutex g_slot_counts_lock;
SlotCount *g_slot_counts;

struct SlotCount {
	long n = 0;
	SlotCount *next = nullptr;

	SlotCount()
	{
		std::lock_guard<std::mutex> g(g_slot_counts_lock);
		next = g_slot_counts;
		g_slot_counts = this;
	}
	~SlotCount()
	{
		std::lock_guard<std::mutex> g(g_slot_counts_lock);
		SlotCount **p = &g_slot_counts;

		while (*p != this)
			p = &(*p)->next;
		*p = next;
		g_live_allocs += n;
	}
};

thread_local SlotCount t_slot_count;
} // namespace

void zsng_user_fail_after(long n)
{
	/* Disarming keeps the record: the test reads it afterwards. */
	if (n >= 0)
		g_first_failure.store(ZSNG_USER_NO_FAILURE);
	g_fail_after.store(n);
}

long zsng_user_alloc_calls()
{
	return t_alloc_calls;
}

enum zsng_user_alloc_kind zsng_user_first_failure()
{
	return (enum zsng_user_alloc_kind)g_first_failure.load();
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
	std::lock_guard<std::mutex> g(g_slot_counts_lock);
	long n = g_live_allocs.load();

	for (SlotCount *c = g_slot_counts; c; c = c->next)
		n += __atomic_load_n(&c->n, __ATOMIC_RELAXED);
	return n;
}

long zsng_user_warnings()
{
	return g_warnings.load();
}

void zsng_user_set_max_pages(unsigned int n)
{
	g_max_pages = n;
}

void zsng_user_trace_locks(int on)
{
	if (on)
		t_nr_traced = 0;
	t_tracing = on;
}

int zsng_user_locks_traced(void **out, int max)
{
	for (int i = 0; i < t_nr_traced && i < max && i < kMaxTraced; i++)
		out[i] = t_traced[i];
	return t_nr_traced;
}

int zsng_user_lock_role(void *lock)
{
	return static_cast<UserLock *>(lock)->role;
}

long zsng_user_frees_under_lock()
{
	return g_frees_under_lock.load();
}

void zsng_user_note_free()
{
	if (t_locks_held)
		g_frees_under_lock++;
}

extern "C" {

void *zsng_svc_page_alloc(unsigned int)
{
	if (inject_failure(ZSNG_USER_PAGE))
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
	zsng_user_note_free();
	g_live_pages--;
	free(page);
}

void *zsng_svc_zalloc(unsigned long size, unsigned int)
{
	if (inject_failure(ZSNG_USER_ZALLOC))
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
	zsng_user_note_free();
	g_live_allocs--;
	free(ptr);
}

/*
 * Descriptors: the kernel's caches per chain length, here calloc() with a
 * hidden header that records the length, so that a free with another
 * length (which the kernel would give to the wrong cache) aborts the test.
 */
static const unsigned long kDescHidden = 16;

void *zsng_svc_desc_alloc(unsigned int pages, unsigned int)
{
	if (pages == 0 || pages > ZSNG_MAX_CHAIN_PAGES)
		abort();
	if (inject_failure(ZSNG_USER_ZALLOC))
		return nullptr;
	char *p = static_cast<char *>(
		calloc(1, kDescHidden + ZSNG_ZSPAGE_HEAD_BYTES +
				  pages * sizeof(void *)));

	if (!p)
		return nullptr;
	*reinterpret_cast<unsigned int *>(p) = pages;
	g_live_allocs++;
	return p + kDescHidden;
}

void zsng_svc_desc_free(void *desc, unsigned int pages)
{
	char *p = static_cast<char *>(desc) - kDescHidden;

	if (*reinterpret_cast<unsigned int *>(p) != pages)
		abort();
	zsng_user_note_free();
	g_live_allocs--;
	free(p);
}

void *zsng_svc_slot_alloc(unsigned int gfp)
{
	if (inject_failure(ZSNG_USER_SLOT))
		return nullptr;
	void *p = t_magazine.pop();

	if (!p)
		p = aligned_alloc(ZSNG_SLOT_SIZE, ZSNG_SLOT_SIZE);
	(void)gfp;
	if (p)
		__atomic_store_n(&t_slot_count.n, t_slot_count.n + 1,
				 __ATOMIC_RELAXED);
	return p;
}

void zsng_svc_slot_free(void *slot)
{
	if (!slot)
		return;
	__atomic_store_n(&t_slot_count.n, t_slot_count.n - 1, __ATOMIC_RELAXED);
	if (!t_magazine.push(slot))
		free(slot);
}

void *zsng_svc_lock_create(enum zsng_lock_role role)
{
	auto *l = new (std::nothrow) UserLock;

	if (!l)
		return nullptr;
	pthread_spin_init(&l->lock, PTHREAD_PROCESS_PRIVATE);
	l->waiters = 0;
	l->role = role;
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

	if (t_locks_held)
		check_order(l);
	if (pthread_spin_trylock(&l->lock) != 0) {
		l->waiters++;
		pthread_spin_lock(&l->lock);
		l->waiters--;
	}
	note_lock(l);
}

void zsng_svc_unlock(void *lock)
{
	auto *l = static_cast<UserLock *>(lock);
	int n = t_locks_held < kMaxHeld ? t_locks_held : kMaxHeld;
	int i = n;

	/* Not always the newest: drop this one, keep the others' order. */
	while (i-- > 0 && t_held[i] != l)
		;
	for (; i >= 0 && i + 1 < n; i++)
		t_held[i] = t_held[i + 1];
	t_locks_held--;
	pthread_spin_unlock(&l->lock);
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

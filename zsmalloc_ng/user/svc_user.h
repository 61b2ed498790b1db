// SPDX-License-Identifier: GPL-2.0
/* Test controls of the userspace service layer. */
#ifndef ZSNG_SVC_USER_H
#define ZSNG_SVC_USER_H

/* Fail the (n+1)-th allocation from now on and every one after; -1: never. */
void zsng_user_fail_after(long n);
long zsng_user_failures();

/*
 * What the fault tests assert the phase with: the allocations the core
 * asked for so far on this thread (each may be failed), and which kind of
 * allocation failed first since injection was last armed (n >= 0).
 */
enum zsng_user_alloc_kind {
	ZSNG_USER_NO_FAILURE = -1,
	ZSNG_USER_ZALLOC,	/* zsng_svc_zalloc(): pool metadata, descriptors */
	ZSNG_USER_PAGE,		/* zsng_svc_page_alloc(): a zspage's page */
	ZSNG_USER_SLOT,		/* zsng_svc_cache_alloc(): a handle slot */
};
long zsng_user_alloc_calls();
enum zsng_user_alloc_kind zsng_user_first_failure();
long zsng_user_live_pages();
long zsng_user_live_allocs();
long zsng_user_warnings();

/*
 * Lock checks for the tests (test_locks.cpp). trace_locks(1) starts
 * recording the distinct service-layer locks the calling thread takes,
 * trace_locks(0) stops; locks_traced() copies up to @max of them to @out
 * and returns how many there were. frees_under_lock() counts, over all
 * threads, the pages and allocations given back while the freeing thread
 * held a service-layer lock (the core promises none: pool.hpp, "Locks");
 * note_free() is how movable_user.cpp reports its frees. lock_role()
 * is the role (svc.h, enum zsng_lock_role) a traced lock was made for.
 * Every lock taken is checked against svc.h's order of roles, per role as
 * lockdep checks per class: one taken under a lock of its own or a later
 * role is a warning (zsng_user_warnings()).
 */
void zsng_user_trace_locks(int on);
int zsng_user_locks_traced(void **out, int max);
int zsng_user_lock_role(void *lock);
long zsng_user_frees_under_lock();
void zsng_user_note_free();
void zsng_user_set_max_pages(unsigned int n);

/*
 * The simulated page migrator (movable_user.cpp). get_movable_page()
 * returns a page handed to migration and not yet freed (the @pick-th,
 * modulo their number), with a reference the caller gives back through
 * isolate() / migrate_isolated() or put_page(); NULL if there is none.
 * isolate() and migrate_isolated() are mm/migrate.c's two steps;
 * migrate_one() is both. @sync: may wait for mappers (not MIGRATE_ASYNC).
 */
enum zsng_user_migrate_result {
	ZSNG_USER_MIGRATED,	/* moved to a new page */
	ZSNG_USER_ISOLATED,	/* isolate(): ready for migrate_isolated() */
	ZSNG_USER_LOCKED,	/* isolate(): the page lock was taken */
	ZSNG_USER_NOT_MOVABLE,	/* no longer movable, or already isolated */
	ZSNG_USER_NOT_ISOLATED,	/* isolate(): the core said no (freeing) */
	ZSNG_USER_REFUSED,	/* the core said -EBUSY (freeing), or no new page */
	ZSNG_USER_BUSY,		/* the core said -EAGAIN: mapped */
	ZSNG_USER_FREED,	/* the owner took it back while isolated */
};
long zsng_user_movable_pages();
void *zsng_user_get_movable_page(unsigned long pick);
/* The same for the page holding @addr; NULL if it is not movable. */
void *zsng_user_get_page_at(const void *addr);
void zsng_user_put_page(void *page);
int zsng_user_isolate(void *page);
int zsng_user_migrate_isolated(void *page, int sync);
int zsng_user_migrate_one(unsigned long pick, int sync);
/* Times deferred work was kicked, and deferred (defer()), in all pools. */
long zsng_user_work_kicks();
long zsng_user_work_defers();
/*
 * zsng_svc_now_ms() returns @ms from now on (-1: the steady clock again);
 * the work threads keep real time, so a test that fakes the clock flushes.
 */
void zsng_user_clock_set(long long ms);

#endif

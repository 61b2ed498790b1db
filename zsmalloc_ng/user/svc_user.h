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
void zsng_user_set_max_pages(unsigned int n);

#endif

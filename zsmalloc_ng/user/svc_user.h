// SPDX-License-Identifier: GPL-2.0
/* Test controls of the userspace service layer. */
#ifndef ZSNG_SVC_USER_H
#define ZSNG_SVC_USER_H

/* Fail the (n+1)-th allocation from now on and every one after; -1: never. */
void zsng_user_fail_after(long n);
long zsng_user_failures();
long zsng_user_live_pages();
long zsng_user_live_allocs();
long zsng_user_warnings();
void zsng_user_set_max_pages(unsigned int n);

#endif

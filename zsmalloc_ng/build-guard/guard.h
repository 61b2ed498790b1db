/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The entry points of the guard cases, declared before they are defined:
 * kernels since 6.8 compile with -Wmissing-declarations, and the cases
 * must fail for the reason they test, not for that one.
 */
#ifndef ZSNG_GUARD_H
#define ZSNG_GUARD_H
#ifdef __cplusplus
extern "C" {
#endif
int zsng_guard_next(void);
int zsng_guard_good(int x);
int zsng_guard_dtor(int x);
unsigned long zsng_guard_fpu(void);
int zsng_guard_unwind(void);
#ifdef __cplusplus
}
#endif
#endif

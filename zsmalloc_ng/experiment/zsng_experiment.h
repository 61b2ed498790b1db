/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test harness run on the allocator core (zsmalloc_ng/experiment/): the
 * hand-computed compaction scenarios, the fragmentation experiment and the
 * self-check, run identically in the kernel's testing build (make
 * ZSNG_TESTING=1: kernel/testing.c) and in userspace (zsng_experiment, the
 * unit tests). Never part of the product module, so not in zsng_core.h.
 *
 * Each result line goes to @emit; the return value is 0 or a negative errno.
 */
#ifndef ZSNG_EXPERIMENT_H
#define ZSNG_EXPERIMENT_H

#include "zsmalloc_ng_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*zsng_emit_fn)(void *ctx, const char *line);

/* The experiment's zspages_per_class; outside, it returns -EINVAL. */
#define ZSNG_EXPERIMENT_MIN_ZSPAGES 2
#define ZSNG_EXPERIMENT_MAX_ZSPAGES 4096

int zsng_scenarios_run(zsng_emit_fn emit, void *ctx);
int zsng_experiment_run(const char *pattern, int policy, unsigned long seed,
			unsigned int zspages_per_class, zsng_emit_fn emit,
			void *ctx);
/* 0 when a pool passes the load-time checks (experiment/selfcheck.cpp). */
int zsng_selfcheck_run(void);

#ifdef __cplusplus
}
#endif

#endif /* ZSNG_EXPERIMENT_H */

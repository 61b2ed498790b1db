/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zsng_ab: the in-kernel A/B benchmark of zsmalloc_ng against the stock
 * zsmalloc (Documentation/benchmarks.rst, "kernel-ab"). A test-only module:
 * the project's build compiles it, nothing installs or packages it.
 *
 * One run (a write to /sys/kernel/debug/zsng_ab/run) takes a data set, a
 * sequence of object sizes with their bytes (data.c: lz4 through the
 * crypto API on generated or given pages, or one fixed size), and puts
 * both allocators through the same phases with it (run.c), for each thread
 * count asked for, the allocators in the order asked for:
 *
 *   fill     every thread stores OBJS objects (zs_malloc + map WO + copy
 *            + unmap; zsng_store)
 *   read     every object once, in a random order: map RO, copy out, unmap
 *   churn    a random half freed and stored again with the next size
 *   free     a random 60% freed
 *   compact  the pool compacted once, by one thread
 *   destroy  the remaining 40% freed, then the pool destroyed
 *
 * Each timed phase starts on all threads at once (one generation counter
 * and a wait queue) and lasts from the first thread's start to the last
 * one's end. Between the phases, untimed, every live object is read back
 * and compared with its source: a mismatch fails the run.
 */
#ifndef ZSNG_AB_H
#define ZSNG_AB_H

#include <linux/types.h>

/* The two allocators; their names begin the result lines. */
enum ab_alloc {
	AB_ZSMALLOC,
	AB_ZSMALLOC_NG,
	AB_NR_ALLOCS,
};

enum ab_data_kind {
	AB_DATA_SWAP,	/* scripts/vm/guest/swapper.c's pages, lz4 */
	AB_DATA_MIXED,	/* scripts/vm/guest/fragmenter.c's pages, lz4 */
	AB_DATA_PAGES,	/* the pages written to debugfs "pages", lz4 */
	AB_DATA_FIXED,	/* every object of one size */
};

#define AB_MAX_THREAD_COUNTS 4
#define AB_MAX_THREADS 64
#define AB_MIN_OBJS 16
#define AB_MAX_OBJS (1u << 20)
/* Generated data sets have at most this many distinct pages. */
#define AB_MAX_SOURCES 8192u

struct ab_params {
	enum ab_data_kind data;
	unsigned int fixed_size;	/* AB_DATA_FIXED */
	char label[24];			/* the data set's name in the results */
	unsigned int objs;		/* objects per thread */
	unsigned int nr_counts;
	unsigned int threads[AB_MAX_THREAD_COUNTS];
	enum ab_alloc first;
	u64 seed;
	int policy;			/* zsmalloc_ng's; ZSNG_POLICY_DEFAULT */
	bool verify;
};

/* The objects' bytes: source s is len[s] bytes at buf + off[s]. */
struct ab_data {
	unsigned int nr;
	u8 *buf;
	u32 *off;
	u32 *len;
	u64 bytes;
	u32 min_len, max_len;
};

int ab_data_build(struct ab_data *d, const struct ab_params *p,
		  const u8 *pages, size_t pages_bytes);
void ab_data_free(struct ab_data *d);

static inline const u8 *ab_src(const struct ab_data *d, unsigned int s)
{
	return d->buf + d->off[s];
}

/* Where results go: lines appended to a text buffer (main.c). */
struct ab_out {
	char *buf;
	size_t size, len;
};

__printf(2, 3) void ab_printf(struct ab_out *out, const char *fmt, ...);

int ab_run(const struct ab_params *p, const struct ab_data *d,
	   struct ab_out *out);

extern const char *const ab_alloc_names[AB_NR_ALLOCS];

/* xorshift64: the same on both kernels and in the guest tools. */
static inline u64 ab_xorshift(u64 *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

#endif /* ZSNG_AB_H */

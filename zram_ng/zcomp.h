/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zram_ng's compression streams (zcomp.c): the bottom layer. One
 * interface over several backends: the kernel's lz4, lz4hc and zstd
 * libraries called directly, where levels and dictionaries can be passed
 * (zcomp_lz4.c and zcomp_zstd.c: the modules zram_ng_lz4 and
 * zram_ng_zstd), and the crypto API for every other algorithm, and for
 * those three when their module cannot be loaded (zcomp.c).
 */
#ifndef _ZRAM_NG_ZCOMP_H
#define _ZRAM_NG_ZCOMP_H

#include <linux/limits.h>
#include <linux/list.h>
#include <linux/local_lock.h>
#include <linux/types.h>

/* No level given: the backend's default. */
#define ZCOMP_NG_NO_LEVEL	INT_MIN

/*
 * What algorithm_params set for one algorithm: a level and a dictionary
 * (the file's bytes, owned by the device: zcomp only borrows them).
 */
struct zcomp_ng_params {
	int level;
	const void *dict;
	size_t dict_size;
};

struct zcomp_ng;

/* One compression stream per CPU; ->lock pins the task to the CPU. */
struct zcomp_ng_strm {
	local_lock_t lock;
	void *buffer;		/* two pages: output may exceed the input */
	void *ctx;		/* the backend's per-stream state */
	struct zcomp_ng *comp;
};

/*
 * A backend. ->setup checks the parameters (-EINVAL for a level out of
 * range, -EOPNOTSUPP for what it cannot do) and builds what the streams
 * share (->shared); ->ctx_create makes the state that compresses inputs
 * of up to @src_max bytes (PAGE_SIZE for a stream; a group of pages for
 * a grouping pass, group.c) and decompresses anything (may sleep);
 * ->compress takes @src_len bytes and at most *@dst_len of room, and
 * ->decompress must give exactly @dst_len bytes. Both run with the
 * stream's local lock held, or in the pass that owns the state (no
 * sleeping, no allocation).
 */
struct zcomp_ng_backend {
	const char *name;
	int (*setup)(struct zcomp_ng *comp);
	void (*release)(struct zcomp_ng *comp);
	void *(*ctx_create)(struct zcomp_ng *comp, unsigned int src_max);
	void (*ctx_destroy)(struct zcomp_ng *comp, void *ctx);
	int (*compress)(struct zcomp_ng *comp, void *ctx, const void *src,
			unsigned int src_len, void *dst,
			unsigned int *dst_len);
	int (*decompress)(struct zcomp_ng *comp, void *ctx, const void *src,
			  unsigned int src_len, void *dst,
			  unsigned int dst_len);
};

struct zcomp_ng {
	struct zcomp_ng_strm __percpu *stream;
	const char *name;
	const struct zcomp_ng_backend *be;
	const struct zcomp_ng_lib *lib;	/* whose module ->be pins, or NULL */
	struct zcomp_ng_params params;
	void *shared;		/* the backend's, for every stream */
	struct hlist_node node;	/* cpuhp instance */
};

/*
 * What a library backend module exports (EXPORT_SYMBOL_GPL, found by
 * symbol_get(): zcomp.c): its backends, NULL-terminated.
 */
extern const struct zcomp_ng_backend *const zcomp_ng_lz4_backends[];
extern const struct zcomp_ng_backend *const zcomp_ng_zstd_backends[];

int zcomp_ng_hp_init(void);
void zcomp_ng_hp_exit(void);
bool zcomp_ng_available(const char *name);
ssize_t zcomp_ng_available_show(const char *current_name, char *buf,
				ssize_t at);
struct zcomp_ng *zcomp_ng_create(const char *name,
				 const struct zcomp_ng_params *params);
void zcomp_ng_destroy(struct zcomp_ng *comp);
int zcomp_ng_check(const char *name, const struct zcomp_ng_params *params);
struct zcomp_ng_strm *zcomp_ng_stream_get(struct zcomp_ng *comp);
void zcomp_ng_stream_put(struct zcomp_ng *comp);
int zcomp_ng_compress(struct zcomp_ng_strm *zstrm, const void *src,
		      unsigned int *dst_len);
int zcomp_ng_decompress(struct zcomp_ng_strm *zstrm, const void *src,
			unsigned int src_len, void *dst);
int zcomp_ng_decompress_len(struct zcomp_ng_strm *zstrm, const void *src,
			    unsigned int src_len, void *dst,
			    unsigned int dst_len);
void *zcomp_ng_ctx_create(struct zcomp_ng *comp, unsigned int src_max);
void zcomp_ng_ctx_destroy(struct zcomp_ng *comp, void *ctx);
int zcomp_ng_compress_ctx(struct zcomp_ng *comp, void *ctx, const void *src,
			  unsigned int src_len, void *dst,
			  unsigned int *dst_len);

#endif /* _ZRAM_NG_ZCOMP_H */

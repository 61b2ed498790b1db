/* SPDX-License-Identifier: GPL-2.0 */
/* zram_ng's compression streams (zcomp.c): the bottom layer. */
#ifndef _ZRAM_NG_ZCOMP_H
#define _ZRAM_NG_ZCOMP_H

#include <linux/list.h>
#include <linux/local_lock.h>
#include <linux/types.h>

/* One compression stream per CPU; ->lock pins the task to the CPU. */
struct zcomp_ng_strm {
	local_lock_t lock;
	void *buffer;		/* two pages: output may exceed the input */
	struct crypto_comp *tfm;
};

struct zcomp_ng {
	struct zcomp_ng_strm __percpu *stream;
	const char *name;
	struct hlist_node node;	/* cpuhp instance */
};

int zcomp_ng_hp_init(void);
void zcomp_ng_hp_exit(void);
bool zcomp_ng_available(const char *name);
ssize_t zcomp_ng_available_show(const char *current_name, char *buf,
				ssize_t at);
struct zcomp_ng *zcomp_ng_create(const char *name);
void zcomp_ng_destroy(struct zcomp_ng *comp);
struct zcomp_ng_strm *zcomp_ng_stream_get(struct zcomp_ng *comp);
void zcomp_ng_stream_put(struct zcomp_ng *comp);
int zcomp_ng_compress(struct zcomp_ng_strm *zstrm, const void *src,
		      unsigned int *dst_len);
int zcomp_ng_decompress(struct zcomp_ng_strm *zstrm, const void *src,
			unsigned int src_len, void *dst);

#endif /* _ZRAM_NG_ZCOMP_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * The data sets: what the objects hold, and so how big they are.
 *
 * swap and mixed regenerate the pages of the harness's own guest tools with
 * the same arithmetic (scripts/vm/guest/swapper.c's and fragmenter.c's
 * fill()); pages takes what userspace wrote to debugfs (scripts/bench
 * writes fio's buffers there, generated with its fio workload's options).
 * Each page is compressed with lz4 through the crypto API, as 6.1's zram
 * compresses, and one that does not shrink is kept whole, PAGE_SIZE bytes,
 * as zram stores it. fixed gives every object the same size and
 * pseudo-random bytes. A data set of more distinct pages than
 * AB_MAX_SOURCES (or than objects per thread) would only cost memory: the
 * objects go round the sources.
 */
#define pr_fmt(fmt) "zsng_ab: " fmt

#include <linux/crypto.h>
#include <linux/err.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "ab.h"

/* Sources of a fixed-size data set: offsets into two pages of noise. */
#define AB_FIXED_SOURCES 64

/* swapper.c: half xorshift seeded by the page's index, half its index. */
static void swap_fill(u64 *p, u64 idx)
{
	u64 x = idx * 0x9e3779b97f4a7c15ull + 1;
	size_t i;

	for (i = 0; i < PAGE_SIZE / 16; i++)
		p[i] = ab_xorshift(&x);
	for (; i < PAGE_SIZE / 8; i++)
		p[i] = idx;
}

static u64 mix(u64 x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

/* fragmenter.c: 256..3840 bytes of xorshift, the rest the page's index. */
static void mixed_fill(u64 *p, u64 idx, u64 seed)
{
	u64 x = mix(idx ^ seed) | 1;
	size_t words = (256 + mix(idx + seed) % 15 * 256) / 8, i;

	for (i = 0; i < words; i++)
		p[i] = ab_xorshift(&x);
	for (; i < PAGE_SIZE / 8; i++)
		p[i] = idx;
}

static int data_alloc(struct ab_data *d, unsigned int nr, size_t bytes)
{
	d->nr = nr;
	d->buf = vmalloc(bytes);
	d->off = kvmalloc_array(nr, sizeof(*d->off), GFP_KERNEL);
	d->len = kvmalloc_array(nr, sizeof(*d->len), GFP_KERNEL);
	return d->buf && d->off && d->len ? 0 : -ENOMEM;
}

static int data_fixed(struct ab_data *d, unsigned int size, u64 seed)
{
	u64 x = seed | 1, *w;
	unsigned int s;
	int ret;

	ret = data_alloc(d, AB_FIXED_SOURCES, 2 * PAGE_SIZE);
	if (ret)
		return ret;
	for (w = (u64 *)d->buf; (u8 *)w < d->buf + 2 * PAGE_SIZE; w++)
		*w = ab_xorshift(&x);
	for (s = 0; s < d->nr; s++) {
		d->off[s] = s * (PAGE_SIZE / AB_FIXED_SOURCES);
		d->len[s] = size;
	}
	d->bytes = (u64)size * d->nr;
	d->min_len = size;
	d->max_len = size;
	return 0;
}

static int data_compressed(struct ab_data *d, const struct ab_params *p,
			   const u8 *pages, unsigned int nr)
{
	struct crypto_comp *tfm;
	unsigned int s, dlen;
	u8 *page, *cbuf;
	u32 pos = 0;
	int ret;

	ret = data_alloc(d, nr, (size_t)nr * PAGE_SIZE);
	if (ret)
		return ret;
	tfm = crypto_alloc_comp("lz4", 0, 0);
	if (IS_ERR(tfm)) {
		pr_err("no lz4 in the crypto API (%ld): modprobe lz4\n",
		       PTR_ERR(tfm));
		return PTR_ERR(tfm);
	}
	page = kmalloc(PAGE_SIZE, GFP_KERNEL);
	cbuf = kmalloc(2 * PAGE_SIZE, GFP_KERNEL);
	if (!page || !cbuf) {
		ret = -ENOMEM;
		goto out;
	}
	d->min_len = PAGE_SIZE;
	for (s = 0; s < nr; s++) {
		if (p->data == AB_DATA_SWAP)
			swap_fill((u64 *)page, s);
		else if (p->data == AB_DATA_MIXED)
			mixed_fill((u64 *)page, s, p->seed);
		else
			memcpy(page, pages + (size_t)s * PAGE_SIZE, PAGE_SIZE);
		dlen = 2 * PAGE_SIZE;
		ret = crypto_comp_compress(tfm, page, PAGE_SIZE, cbuf, &dlen);
		if (ret || dlen >= PAGE_SIZE) {
			dlen = PAGE_SIZE;
			memcpy(d->buf + pos, page, PAGE_SIZE);
		} else {
			memcpy(d->buf + pos, cbuf, dlen);
		}
		d->off[s] = pos;
		d->len[s] = dlen;
		pos += dlen;
		d->min_len = min_t(u32, d->min_len, dlen);
		d->max_len = max_t(u32, d->max_len, dlen);
		cond_resched();
	}
	d->bytes = pos;
	ret = 0;
out:
	kfree(cbuf);
	kfree(page);
	crypto_free_comp(tfm);
	return ret;
}

int ab_data_build(struct ab_data *d, const struct ab_params *p,
		  const u8 *pages, size_t pages_bytes)
{
	int ret;

	memset(d, 0, sizeof(*d));
	switch (p->data) {
	case AB_DATA_FIXED:
		ret = data_fixed(d, p->fixed_size, p->seed);
		break;
	case AB_DATA_PAGES:
		if (pages_bytes < PAGE_SIZE)
			return -ENODATA;
		ret = data_compressed(d, p, pages,
				      min_t(size_t, pages_bytes / PAGE_SIZE,
					    AB_MAX_SOURCES));
		break;
	default:
		ret = data_compressed(d, p, NULL,
				      min(p->objs, AB_MAX_SOURCES));
		break;
	}
	if (ret)
		ab_data_free(d);
	return ret;
}

void ab_data_free(struct ab_data *d)
{
	vfree(d->buf);
	kvfree(d->off);
	kvfree(d->len);
	memset(d, 0, sizeof(*d));
}

// SPDX-License-Identifier: GPL-2.0
/*
 * zsng_ab.ko: /sys/kernel/debug/zsng_ab/
 *
 *   pages    write: pages for data=pages (written from offset 0, in order;
 *            a write at offset 0 starts over), at most max_pages_mib
 *   run      write "data=swap|mixed|pages|fixed:SIZE [objs=N]
 *            [threads=1,all] [first=zsmalloc|zsmalloc_ng] [seed=N]
 *            [policy=NAME] [verify=0|1] [label=NAME]": runs the benchmark
 *            (ab.h) before the write returns; an error is the write's
 *            (-ENOMEM, -EIO when an object did not read back)
 *   results  read: the last run's lines (run.c), after one
 *            "data LABEL sources=N bytes=N min=N max=N ..." line
 *
 * Depends on the stock zsmalloc (zs_*, a module on 6.1, built in on 6.12)
 * and on zsmalloc_ng.ko (zsng_*): modprobe zsng_ab loads both. The zs_*
 * calls it makes have the same signatures on both kernels.
 */
#define pr_fmt(fmt) "zsng_ab: " fmt

#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/sizes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include "zsmalloc_ng.h"
#include "ab.h"

#define AB_OUT_SIZE (32 * 1024)
#define AB_DEFAULT_OBJS 4096

static unsigned int max_pages_mib = 64;
module_param(max_pages_mib, uint, 0444);
MODULE_PARM_DESC(max_pages_mib,
		 "Largest page set the pages file takes, in MiB (default: 64)");

/* One run at a time; it also guards the page set and the results. */
static DEFINE_MUTEX(ab_lock);
static u8 *user_pages;
static size_t user_bytes, user_cap;
static struct ab_out results;
static struct dentry *ab_dir;

void ab_printf(struct ab_out *out, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	out->len += vscnprintf(out->buf + out->len, out->size - out->len, fmt,
			       args);
	va_end(args);
}

static int parse_threads(struct ab_params *p, char *val)
{
	unsigned int t, i;
	char *tok;

	p->nr_counts = 0;
	while ((tok = strsep(&val, ","))) {
		if (!strcmp(tok, "all"))
			t = num_online_cpus();
		else if (kstrtouint(tok, 0, &t) || !t || t > AB_MAX_THREADS)
			return -EINVAL;
		/* "1,all" on one CPU is one count */
		for (i = 0; i < p->nr_counts && p->threads[i] != t; i++)
			;
		if (i < p->nr_counts)
			continue;
		if (p->nr_counts == AB_MAX_THREAD_COUNTS)
			return -EINVAL;
		p->threads[p->nr_counts++] = t;
	}
	return p->nr_counts ? 0 : -EINVAL;
}

static int parse_data(struct ab_params *p, const char *val)
{
	if (!strcmp(val, "swap")) {
		p->data = AB_DATA_SWAP;
	} else if (!strcmp(val, "mixed")) {
		p->data = AB_DATA_MIXED;
	} else if (!strcmp(val, "pages")) {
		p->data = AB_DATA_PAGES;
	} else if (!strncmp(val, "fixed:", 6)) {
		p->data = AB_DATA_FIXED;
		if (kstrtouint(val + 6, 0, &p->fixed_size) ||
		    !p->fixed_size || p->fixed_size > PAGE_SIZE)
			return -EINVAL;
		snprintf(p->label, sizeof(p->label), "fixed%u", p->fixed_size);
		return 0;
	} else {
		return -EINVAL;
	}
	strscpy(p->label, val, sizeof(p->label));
	return 0;
}

/* A label is one word of letters, digits, '_' and '-' (a metric name). */
static bool label_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum(*s) && *s != '_' && *s != '-')
			return false;
	return true;
}

static int parse_params(struct ab_params *p, char *buf)
{
	char *tok, *val, label[sizeof(p->label)] = "";
	bool have_data = false;
	int ret = 0;

	*p = (struct ab_params){
		.objs = AB_DEFAULT_OBJS,
		.nr_counts = 1,
		.threads = { 1 },
		.first = AB_ZSMALLOC_NG,
		.seed = 1,
		.policy = ZSNG_POLICY_DEFAULT,
		.verify = true,
	};
	while (!ret && (tok = strsep(&buf, " \t\n"))) {
		if (!*tok)
			continue;
		val = strchr(tok, '=');
		if (!val)
			return -EINVAL;
		*val++ = 0;
		if (!strcmp(tok, "data")) {
			ret = parse_data(p, val);
			have_data = true;
		} else if (!strcmp(tok, "objs")) {
			ret = kstrtouint(val, 0, &p->objs);
			if (!ret && (p->objs < AB_MIN_OBJS ||
				     p->objs > AB_MAX_OBJS))
				ret = -EINVAL;
		} else if (!strcmp(tok, "threads")) {
			ret = parse_threads(p, val);
		} else if (!strcmp(tok, "first")) {
			if (!strcmp(val, ab_alloc_names[AB_ZSMALLOC]))
				p->first = AB_ZSMALLOC;
			else if (!strcmp(val, ab_alloc_names[AB_ZSMALLOC_NG]))
				p->first = AB_ZSMALLOC_NG;
			else
				ret = -EINVAL;
		} else if (!strcmp(tok, "seed")) {
			ret = kstrtou64(val, 0, &p->seed);
		} else if (!strcmp(tok, "policy")) {
			p->policy = zsng_policy_from_name(val);
			ret = p->policy < 0 ? -EINVAL : 0;
		} else if (!strcmp(tok, "verify")) {
			ret = kstrtobool(val, &p->verify);
		} else if (!strcmp(tok, "label")) {
			if (strscpy(label, val, sizeof(label)) < 0 ||
			    !label_ok(label))
				ret = -EINVAL;
		} else {
			ret = -EINVAL;
		}
	}
	if (!ret && !have_data)
		ret = -EINVAL;
	if (!ret && *label)
		strscpy(p->label, label, sizeof(p->label));
	return ret;
}

static ssize_t run_write(struct file *file, const char __user *ubuf,
			 size_t len, loff_t *ppos)
{
	struct ab_params p;
	struct ab_data d;
	char *buf;
	int ret;

	if (len > 255)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = parse_params(&p, buf);
	kfree(buf);
	if (ret)
		return ret;

	mutex_lock(&ab_lock);
	results.len = 0;
	results.buf[0] = 0;
	ret = ab_data_build(&d, &p, user_pages, user_bytes);
	if (!ret) {
		ab_printf(&results,
			  "data %s sources=%u bytes=%llu min=%u max=%u objs=%u seed=%llu first=%s policy=%s\n",
			  p.label, d.nr, d.bytes, d.min_len, d.max_len, p.objs,
			  p.seed, ab_alloc_names[p.first],
			  zsng_policy_name(p.policy == ZSNG_POLICY_DEFAULT ?
					   zsng_default_policy() : p.policy));
		ret = ab_run(&p, &d, &results);
		ab_data_free(&d);
	}
	mutex_unlock(&ab_lock);
	return ret ? ret : len;
}

static const struct file_operations run_fops = {
	.owner = THIS_MODULE,
	.write = run_write,
	.llseek = noop_llseek,
};

static ssize_t results_read(struct file *file, char __user *ubuf, size_t len,
			    loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&ab_lock);
	ret = simple_read_from_buffer(ubuf, len, ppos, results.buf,
				      results.len);
	mutex_unlock(&ab_lock);
	return ret;
}

static const struct file_operations results_fops = {
	.owner = THIS_MODULE,
	.read = results_read,
	.llseek = default_llseek,
};

/* Makes room for @need bytes of pages, doubling; under ab_lock. */
static int pages_reserve(size_t need)
{
	size_t cap = max_t(size_t, user_cap, SZ_1M);
	u8 *n;

	if (need <= user_cap)
		return 0;
	while (cap < need)
		cap *= 2;
	cap = min_t(size_t, cap, (size_t)max_pages_mib << 20);
	n = vmalloc(cap);
	if (!n)
		return -ENOMEM;
	if (user_pages)
		memcpy(n, user_pages, user_bytes);
	vfree(user_pages);
	user_pages = n;
	user_cap = cap;
	return 0;
}

static ssize_t pages_write(struct file *file, const char __user *ubuf,
			   size_t len, loff_t *ppos)
{
	loff_t pos = *ppos;
	int ret;

	mutex_lock(&ab_lock);
	if (pos == 0)
		user_bytes = 0;
	if (pos != user_bytes) {
		ret = -EINVAL;	/* in order only */
		goto out;
	}
	if (len > ((size_t)max_pages_mib << 20) - user_bytes) {
		ret = -EFBIG;
		goto out;
	}
	ret = pages_reserve(user_bytes + len);
	if (ret)
		goto out;
	if (copy_from_user(user_pages + user_bytes, ubuf, len)) {
		ret = -EFAULT;
		goto out;
	}
	user_bytes += len;
	*ppos = user_bytes;
	ret = 0;
out:
	mutex_unlock(&ab_lock);
	return ret ? ret : len;
}

static const struct file_operations pages_fops = {
	.owner = THIS_MODULE,
	.write = pages_write,
	.llseek = noop_llseek,
};

static int __init ab_init(void)
{
	if (!max_pages_mib || max_pages_mib > 1024) {
		pr_err("max_pages_mib=%u is outside 1..1024\n", max_pages_mib);
		return -EINVAL;
	}
	results.buf = kvzalloc(AB_OUT_SIZE, GFP_KERNEL);
	if (!results.buf)
		return -ENOMEM;
	results.size = AB_OUT_SIZE;
	ab_dir = debugfs_create_dir("zsng_ab", NULL);
	debugfs_create_file("run", 0200, ab_dir, NULL, &run_fops);
	debugfs_create_file("results", 0400, ab_dir, NULL, &results_fops);
	debugfs_create_file("pages", 0200, ab_dir, NULL, &pages_fops);
	return 0;
}

static void __exit ab_exit(void)
{
	debugfs_remove_recursive(ab_dir);
	vfree(user_pages);
	kvfree(results.buf);
}

module_init(ab_init);
module_exit(ab_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("zsng_ab: in-kernel A/B benchmark of zsmalloc_ng against the stock zsmalloc (test only)");

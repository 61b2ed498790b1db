// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel side of the service layer (zsmalloc_ng/core/svc.h): one-line
 * wrappers over the page allocator, slab, spinlocks and a per-CPU mapping
 * area, so that the C++ core never includes a kernel header.
 */
#define pr_fmt(fmt) "zsmalloc_ng: " fmt

#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/sched.h>
#include <linux/percpu.h>
#include <linux/local_lock.h>
#include <linux/module.h>
#include <linux/debugfs.h>
#include "svc.h"
#include "zsng_internal.h"

static unsigned int max_pages_per_zspage = ZSNG_DEFAULT_CHAIN_PAGES;
module_param(max_pages_per_zspage, uint, 0444);
MODULE_PARM_DESC(max_pages_per_zspage,
		 "Longest zspage chain in pages, "
		 __stringify(ZSNG_MIN_CHAIN_PAGES) ".."
		 __stringify(ZSNG_MAX_CHAIN_PAGES)
		 ", for pools created from now on (default: "
		 __stringify(ZSNG_DEFAULT_CHAIN_PAGES) ")");

static struct kmem_cache *zsng_handle_cache;

struct zsng_map_area {
	local_lock_t lock;
	char *buf;
};

static DEFINE_PER_CPU(struct zsng_map_area, zsng_map_area) = {
	.lock = INIT_LOCAL_LOCK(lock),
};

/*
 * Fault injection for the reliability tests (selftests/reliability), in the
 * one place every allocation of the core passes: Debian's kernel has no
 * CONFIG_FAULT_INJECTION. Like fault_attr's interval and times: with
 * fail_every = N > 0, every Nth allocation fails, at most fail_times times
 * (-1: no limit); fail_calls counts the allocations seen while armed
 * (write 0 to it, then 1 to fail_times and N to fail_every: the Nth
 * allocation from now fails) and fail_injected the failures. Off (0) by
 * default, and then it costs one READ_ONCE. __GFP_NOFAIL never fails.
 */
static struct {
	u32 every;
	atomic_t times;
	atomic_t calls;
	atomic_t injected;
} zsng_fail = { .times = ATOMIC_INIT(-1) };

static bool zsng_should_fail(gfp_t gfp)
{
	u32 every = READ_ONCE(zsng_fail.every);

	if (likely(!every))
		return false;
	if (gfp & __GFP_NOFAIL)
		return false;
	if ((u32)atomic_inc_return(&zsng_fail.calls) % every)
		return false;
	if (atomic_read(&zsng_fail.times) >= 0 &&
	    atomic_dec_if_positive(&zsng_fail.times) < 0)
		return false;
	atomic_inc(&zsng_fail.injected);
	return true;
}

void zsng_svc_debugfs_init(struct dentry *dir)
{
	debugfs_create_u32("fail_every", 0600, dir, &zsng_fail.every);
	debugfs_create_atomic_t("fail_times", 0600, dir, &zsng_fail.times);
	debugfs_create_atomic_t("fail_calls", 0600, dir, &zsng_fail.calls);
	debugfs_create_atomic_t("fail_injected", 0600, dir,
				&zsng_fail.injected);
}

/*
 * Pages must be directly addressable: the core keeps page addresses. Not
 * movable either: page migration of zspages is not implemented.
 */
static gfp_t zsng_gfp(unsigned int gfp)
{
	gfp_t g = gfp ? (__force gfp_t)gfp : GFP_KERNEL;

	return g & ~(__GFP_HIGHMEM | __GFP_MOVABLE);
}

void *zsng_svc_page_alloc(unsigned int gfp)
{
	struct page *page;

	if (zsng_should_fail(zsng_gfp(gfp)))
		return NULL;
	page = alloc_page(zsng_gfp(gfp));

	return page ? page_address(page) : NULL;
}

void zsng_svc_page_free(void *page)
{
	free_page((unsigned long)page);
}

void *zsng_svc_zalloc(unsigned long size, unsigned int gfp)
{
	if (zsng_should_fail(zsng_gfp(gfp)))
		return NULL;
	return kvzalloc(size, zsng_gfp(gfp));
}

void zsng_svc_free(void *ptr)
{
	kvfree(ptr);
}

/* All pools share one cache of handle slots, like zsmalloc's zs_handle. */
void *zsng_svc_cache_create(const char *name, unsigned long size)
{
	if (WARN_ON(size > 16))
		return NULL;
	return zsng_handle_cache;
}

void zsng_svc_cache_destroy(void *cache)
{
}

void *zsng_svc_cache_alloc(void *cache, unsigned int gfp)
{
	if (zsng_should_fail(zsng_gfp(gfp)))
		return NULL;
	return kmem_cache_alloc(cache, zsng_gfp(gfp));
}

void zsng_svc_cache_free(void *cache, void *obj)
{
	kmem_cache_free(cache, obj);
}

void *zsng_svc_lock_create(void)
{
	spinlock_t *lock = kmalloc(sizeof(*lock), GFP_KERNEL);

	if (lock)
		spin_lock_init(lock);
	return lock;
}

void zsng_svc_lock_destroy(void *lock)
{
	kfree(lock);
}

void zsng_svc_lock(void *lock)
{
	spin_lock(lock);
}

void zsng_svc_unlock(void *lock)
{
	spin_unlock(lock);
}

int zsng_svc_lock_contended(void *lock)
{
	return spin_is_contended((spinlock_t *)lock);
}

void zsng_svc_cond_resched(void)
{
	cond_resched();
}

void zsng_svc_cpu_relax(void)
{
	cpu_relax();
}

void *zsng_svc_map_begin(void)
{
	local_lock(&zsng_map_area.lock);
	return this_cpu_read(zsng_map_area.buf);
}

void *zsng_svc_map_area(void)
{
	return this_cpu_read(zsng_map_area.buf);
}

void zsng_svc_map_end(void)
{
	local_unlock(&zsng_map_area.lock);
}

void zsng_svc_log(const char *msg)
{
	pr_info("%s\n", msg);
}

void zsng_svc_warn(const char *file, int line, const char *cond)
{
	WARN(1, "zsmalloc_ng: %s:%d: %s\n", file, line, cond);
}

unsigned int zsng_svc_max_pages_per_zspage(void)
{
	return max_pages_per_zspage;
}

int zsng_svc_init(void)
{
	int cpu;

	BUILD_BUG_ON(ZSNG_PAGE_SIZE != PAGE_SIZE);
	if (max_pages_per_zspage < ZSNG_MIN_CHAIN_PAGES ||
	    max_pages_per_zspage > ZSNG_MAX_CHAIN_PAGES) {
		pr_err("max_pages_per_zspage=%u is outside %u..%u\n",
		       max_pages_per_zspage, ZSNG_MIN_CHAIN_PAGES,
		       ZSNG_MAX_CHAIN_PAGES);
		return -EINVAL;
	}
	zsng_handle_cache = kmem_cache_create("zsng_handle", 16, 16, 0, NULL);
	if (!zsng_handle_cache)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		char *buf = kmalloc_node(ZSNG_MAP_AREA_SIZE, GFP_KERNEL,
					 cpu_to_node(cpu));

		if (!buf) {
			zsng_svc_exit();
			return -ENOMEM;
		}
		per_cpu(zsng_map_area, cpu).buf = buf;
	}
	return 0;
}

void zsng_svc_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		kfree(per_cpu(zsng_map_area, cpu).buf);
		per_cpu(zsng_map_area, cpu).buf = NULL;
	}
	kmem_cache_destroy(zsng_handle_cache);
	zsng_handle_cache = NULL;
}

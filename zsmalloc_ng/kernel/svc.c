// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel side of the service layer (zsmalloc_ng/core/svc.h): one-line
 * wrappers over the page allocator, slab and spinlocks, so that the C++
 * core never includes a kernel header. The rest of the layer: movable
 * pages in movable.c, deferred work in work.c, the per-CPU map area in
 * map_area.c, the chain length parameter in params.c; every allocation
 * asks fault_inject.c first (the testing build's; the product's stub says
 * no).
 */
#define pr_fmt(fmt) "zsmalloc_ng: " fmt

#include <linux/cache.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/sched.h>
#include "svc.h"
#include "zsng_internal.h"

/* Handle slots of every pool, like zsmalloc's zs_handle. */
static struct kmem_cache *zsng_handle_cache;

/*
 * Zspage descriptors, a cache per chain length (index: pages - 1), made
 * for 1..max_pages_per_zspage when the module loads (the parameter is
 * read-only, so no pool asks for more) and shared by every pool.
 */
static struct kmem_cache *zsng_desc_cache[ZSNG_MAX_CHAIN_PAGES];

/*
 * Pages must be directly addressable: the core keeps page addresses. Only
 * a movable pool's zspage pages keep __GFP_MOVABLE (movable.c); metadata
 * and the pages of other pools cannot move.
 */
static gfp_t zsng_gfp(unsigned int gfp)
{
	gfp_t g = gfp ? (__force gfp_t)gfp : GFP_KERNEL;

	return g & ~(__GFP_HIGHMEM | __GFP_MOVABLE);
}

/* Every allocation first asks fault_inject.c (testing build). */
static void *zsng_page_alloc(gfp_t gfp)
{
	struct page *page;

	if (zsng_should_fail(gfp))
		return NULL;
	page = alloc_page(gfp);

	return page ? page_address(page) : NULL;
}

void *zsng_svc_page_alloc(unsigned int gfp)
{
	return zsng_page_alloc(zsng_gfp(gfp));
}

void *zsng_svc_movable_page_alloc(unsigned int gfp)
{
	return zsng_page_alloc(zsng_gfp(gfp) |
			       ((__force gfp_t)gfp & __GFP_MOVABLE));
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

void *zsng_svc_slot_alloc(unsigned int gfp)
{
	if (zsng_should_fail(zsng_gfp(gfp)))
		return NULL;
	return kmem_cache_alloc(zsng_handle_cache, zsng_gfp(gfp));
}

void zsng_svc_slot_free(void *slot)
{
	kmem_cache_free(zsng_handle_cache, slot);
}

void *zsng_svc_desc_alloc(unsigned int pages, unsigned int gfp)
{
	if (WARN_ON_ONCE(!pages || pages > ZSNG_MAX_CHAIN_PAGES ||
			 !zsng_desc_cache[pages - 1]))
		return NULL;
	if (zsng_should_fail(zsng_gfp(gfp)))
		return NULL;
	return kmem_cache_zalloc(zsng_desc_cache[pages - 1], zsng_gfp(gfp));
}

void zsng_svc_desc_free(void *desc, unsigned int pages)
{
	kmem_cache_free(zsng_desc_cache[pages - 1], desc);
}

/*
 * A lockdep class per lock role (svc.h), named after it: every lock is
 * made here, and one spin_lock_init() would put them all in one class, so
 * that a deferred lock taken under a class lock would read as recursive
 * locking. Static, as lockdep wants its keys (freed with the module).
 */
static struct lock_class_key zsng_lock_keys[ZSNG_NR_LOCK_ROLES];

/*
 * A cache line of its own: the core has one lock per size class, and
 * CPUs working in neighbouring classes must not bounce one line between
 * them (kmalloc() aligns a multiple of the line size to the line).
 */
void *zsng_svc_lock_create(enum zsng_lock_role role)
{
	spinlock_t *lock =
		kmalloc(ALIGN(sizeof(*lock), L1_CACHE_BYTES), GFP_KERNEL);

	if (!lock || WARN_ON_ONCE((unsigned int)role >= ZSNG_NR_LOCK_ROLES)) {
		kfree(lock);
		return NULL;
	}
	spin_lock_init(lock);
	lockdep_set_class_and_name(lock, &zsng_lock_keys[role],
				   zsng_lock_role_name(role));
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

void zsng_svc_log(const char *msg)
{
	pr_info("%s\n", msg);
}

void zsng_svc_warn(const char *file, int line, const char *cond)
{
	WARN(1, "zsmalloc_ng: %s:%d: %s\n", file, line, cond);
}

static void zsng_desc_caches_destroy(void)
{
	unsigned int i;

	for (i = 0; i < ZSNG_MAX_CHAIN_PAGES; i++) {
		kmem_cache_destroy(zsng_desc_cache[i]);
		zsng_desc_cache[i] = NULL;
	}
}

static int zsng_desc_caches_create(void)
{
	char name[16];	/* kmem_cache_create() keeps a copy */
	unsigned int i, size;

	for (i = 0; i < zsng_svc_max_pages_per_zspage(); i++) {
		snprintf(name, sizeof(name), "zsng_zspage%u", i + 1);
		size = ZSNG_ZSPAGE_HEAD_BYTES + (i + 1) * sizeof(void *);
		zsng_desc_cache[i] = kmem_cache_create(name, size, 0, 0, NULL);
		if (!zsng_desc_cache[i]) {
			zsng_desc_caches_destroy();
			return -ENOMEM;
		}
	}
	return 0;
}

int zsng_svc_init(void)
{
	BUILD_BUG_ON(ZSNG_PAGE_SIZE != PAGE_SIZE);
	zsng_handle_cache = kmem_cache_create("zsng_handle", ZSNG_SLOT_SIZE,
					      ZSNG_SLOT_SIZE, 0, NULL);
	if (!zsng_handle_cache)
		return -ENOMEM;
	if (zsng_desc_caches_create()) {
		kmem_cache_destroy(zsng_handle_cache);
		zsng_handle_cache = NULL;
		return -ENOMEM;
	}
	return 0;
}

void zsng_svc_exit(void)
{
	zsng_desc_caches_destroy();
	kmem_cache_destroy(zsng_handle_cache);
	zsng_handle_cache = NULL;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The service layer: the only door between the portable C++ allocator core
 * and its environment. The kernel implements it in zsmalloc_ng/kernel/:
 * svc.c (pages, slabs, locks, log), movable.c (movable pages), work.c
 * (deferred work), map_area.c (per-CPU map areas) and params.c (the chain
 * length parameter), every allocation asking fault_inject.c first (the
 * testing build's, make ZSNG_TESTING=1); the userspace build in
 * zsmalloc_ng/user/svc_user.cpp and movable_user.cpp over aligned_alloc()
 * and pthreads, with deterministic allocation-failure injection.
 *
 * Plain C, no kernel or libc header, so both C and C++ include it; the
 * errno values and limits it shares with the kernel API are in
 * zsmalloc_ng_abi.h. Each function is small and obvious; none may fail
 * except those that allocate (*_alloc, *_create), which return NULL.
 */
#ifndef ZSNG_SVC_H
#define ZSNG_SVC_H

#include "zsmalloc_ng_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ZSNG_PAGE_SHIFT 12
#define ZSNG_PAGE_SIZE (1UL << ZSNG_PAGE_SHIFT)

/*
 * Memory. Pages are order-0, directly addressable (never highmem), and
 * identified by their address. gfp is the caller's gfp_t, passed through;
 * ZSNG_GFP_KERNEL asks for the environment's default sleeping allocation
 * (GFP_KERNEL), used for pool metadata.
 */
#define ZSNG_GFP_KERNEL 0u
void *zsng_svc_page_alloc(unsigned int gfp);
void zsng_svc_page_free(void *page);
void *zsng_svc_zalloc(unsigned long size, unsigned int gfp);
void zsng_svc_free(void *ptr);

/*
 * Movable pages (pools created with ZSNG_POOL_MOVABLE; the protocol is at
 * the top of core/migrate.cpp). movable_page_alloc() keeps the caller's
 * __GFP_MOVABLE. set_movable() records @owner (the core's zspage) in the
 * page and hands it to the kernel's page migration, which from then on may
 * call zsng_core_page_isolate() and zsng_core_page_migrate() with the page
 * locked. The page lock is the kernel's: trylock() never sleeps, lock()
 * may. movable_page_free() takes a locked page: it is taken back from
 * migration, unlocked and its reference dropped (a migrator that still
 * holds one frees it later).
 */
void *zsng_svc_movable_page_alloc(unsigned int gfp);
void zsng_svc_page_set_movable(void *page, void *owner);
int zsng_svc_page_trylock(void *page);
void zsng_svc_page_lock(void *page);
void zsng_svc_page_unlock(void *page);
void zsng_svc_movable_page_free(void *page);

/*
 * Deferred work (a delayed workqueue item in the kernel): kick() runs
 * @fn(@arg) soon in process context, once however often it was kicked
 * before it ran (a run already pending keeps its time); defer() runs it
 * @ms milliseconds from now, moving a pending run to then, earlier or
 * later; flush() runs a pending run at once and waits until none is
 * pending or running; destroy() waits for a run in progress (a pending
 * one is dropped) and frees it. create() returns NULL without memory.
 * kick() and defer() may be called in any context, locks held. @role
 * names the item's lockdep class, as a lock's role does (below): flushing
 * one kind of item from the other must not read as a flush of itself.
 *
 * now_ms(): a monotonic clock in milliseconds (jiffies in the kernel: its
 * resolution is a tick, 4 ms at HZ=250).
 */
enum zsng_work_role {
	ZSNG_WORK_DEFERRED_FREE,	/* a movable pool's deferred frees */
	ZSNG_WORK_AUTO_COMPACT,		/* a pool's self-compaction */
	ZSNG_NR_WORK_ROLES
};

void *zsng_svc_work_create(enum zsng_work_role role,
			   void (*fn)(void *arg), void *arg);
void zsng_svc_work_kick(void *work);
void zsng_svc_work_defer(void *work, unsigned int ms);
void zsng_svc_work_flush(void *work);
void zsng_svc_work_destroy(void *work);
unsigned long long zsng_svc_now_ms(void);

/*
 * Handle slots: ZSNG_SLOT_SIZE bytes, as aligned, from one cache that
 * every pool shares (the kernel's slab "zsng_handle", like zsmalloc's
 * zs_handle), made when the module loads.
 */
#define ZSNG_SLOT_SIZE 16
void *zsng_svc_slot_alloc(unsigned int gfp);
void zsng_svc_slot_free(void *slot);

/*
 * Zspage descriptors of pools without an LRU: ZSNG_ZSPAGE_HEAD_BYTES and
 * one page address per page of the zspage (@pages, 1..max_pages_per_zspage),
 * zeroed. The kernel has a slab cache per chain length ("zsng_zspage1",
 * "zsng_zspage2", ...), shared by every pool like the handle slots: a
 * descriptor costs its own size instead of the next kmalloc size (120
 * bytes instead of 128 for 8 pages, 72 instead of 96 for 2), and each
 * length shows alone in /proc/slabinfo when booted with slab_nomerge,
 * which is how the benchmarks count the whole footprint. desc_free() takes
 * the @pages the descriptor was allocated with.
 */
#define ZSNG_ZSPAGE_HEAD_BYTES 56
void *zsng_svc_desc_alloc(unsigned int pages, unsigned int gfp);
void zsng_svc_desc_free(void *desc, unsigned int pages);

/*
 * The core's locks, spinlocks; contended() tells compaction to yield.
 * Each is created for a role, one of those below (core/pool.hpp, "Locks"),
 * and a role is a lock class: in the kernel every role has a lockdep
 * class of its own, named by zsng_lock_role_name(), instead of one class
 * for every lock made here; the userspace build checks the order below
 * on every lock taken. The roles are in lock order: a lock is taken only
 * while every lock held has an earlier role, so never under a lock of its
 * own role (two of one role at once would need lockdep's nesting
 * annotation, and the core has no such path).
 */
enum zsng_lock_role {
	ZSNG_LOCK_CLASS,	/* a size class's lists and zspages */
	ZSNG_LOCK_LRU,		/* an LRU pool's LRU, and every class's lock */
	ZSNG_LOCK_DEFERRED,	/* a movable pool's deferred frees: a leaf */
	ZSNG_NR_LOCK_ROLES
};

static inline const char *zsng_lock_role_name(enum zsng_lock_role role)
{
	switch (role) {
	case ZSNG_LOCK_CLASS:
		return "zsng_class_lock";
	case ZSNG_LOCK_LRU:
		return "zsng_lru_lock";
	case ZSNG_LOCK_DEFERRED:
		return "zsng_deferred_lock";
	default:
		return "zsng_bad_lock_role";
	}
}

void *zsng_svc_lock_create(enum zsng_lock_role role);
void zsng_svc_lock_destroy(void *lock);
void zsng_svc_lock(void *lock);
void zsng_svc_unlock(void *lock);
int zsng_svc_lock_contended(void *lock);
void zsng_svc_cond_resched(void);
void zsng_svc_cpu_relax(void);

/*
 * Object access. map_begin() pins the caller to its CPU (no sleeping until
 * map_end()) and returns that CPU's area of ZSNG_MAP_AREA_SIZE bytes: a
 * PAGE_SIZE buffer to assemble an object that spans two pages, then room
 * for the core's own per-mapping state. map_area() returns the same area
 * again while pinned.
 */
#define ZSNG_MAP_AREA_SIZE (ZSNG_PAGE_SIZE + 64)
void *zsng_svc_map_begin(void);
void *zsng_svc_map_area(void);
void zsng_svc_map_end(void);

void zsng_svc_log(const char *msg);
void zsng_svc_warn(const char *file, int line, const char *cond);

/* The chain length limit, read when a pool is created (module parameter). */
unsigned int zsng_svc_max_pages_per_zspage(void);

#ifdef __cplusplus
}
#endif

#endif /* ZSNG_SVC_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * Page migration: the kernel's memory compaction (and memory offlining,
 * CMA, ...) may move the pages of a movable pool's zspages, as upstream
 * zsmalloc's have been since Linux 4.8. Without it every zspage page pins
 * the pageblock it landed in, and a machine that has swapped for a while
 * runs out of 2 MiB blocks.
 *
 * The kernel side is a struct movable_operations (kernel/movable.c): with
 * the page locked, the kernel asks isolate, then migrate(dst, src), or
 * putback if it gave up. The core sees none of it: it sees an owner (the
 * Zspage the page was handed to migration with, zsng_svc_page_set_movable())
 * and page addresses. The service layer keeps the owner in the page
 * (page->private); the Zspage names its Pool. Both stay valid while the
 * page is locked: freeing a zspage needs every one of its page locks
 * (below), and a pool is destroyed only after its zspages.
 *
 * What a migration does (migrate(), under the class lock): wait until the
 * zspage is unmapped (mapcount 0: as compaction waits for a source) or, in
 * MIGRATE_ASYNC, refuse with -EAGAIN; copy the 4 KiB; replace the address in
 * the zspage's page array. Nothing else holds a page address: handles are
 * {zspage, index}, object headers name handle slots, so handles stay valid
 * and no object is touched. Every reader of zs->pages[] holds the class
 * lock or a mapcount it raised under the class lock, so none can see a
 * page being replaced, and no write can land in the old page after the
 * copy. The zspage's class is fixed (Zspage::class_idx), so the migrator
 * finds the lock from the page alone.
 *
 * Lock order, with the page lock added:
 *
 *   page lock (the migrator's)  ->  class lock  ->  mapcount (waited on)
 *                                               ->  deferred lock
 *
 * The class lock holder never waits for a page lock: free_zspage() only
 * tries them. If one is taken (a migrator is between isolate and migrate,
 * or in the middle of one), the zspage is marked freeing and goes to the
 * pool's deferred list (under the deferred lock); a work item
 * (free_deferred(), no class lock held) sleeps on each page lock, then
 * gives the pages back. A freeing zspage's pages are never migrated
 * (migrate() returns -EBUSY, which the kernel does not retry), so the
 * pages the work item waits for stay the zspage's; a migrator holding one
 * finds the zspage freeing under the class lock and returns, never
 * waiting for a page lock of ours.
 *
 * A zspage freed while one of its pages is isolated (the kernel holds a
 * reference, not the lock): zsng_svc_movable_page_free() takes the page
 * back from migration under its lock, so the kernel, which checks that
 * under the same lock, puts the page back without calling us and drops
 * the last reference itself.
 *
 * Pool destruction and module unload: destroy() frees every zspage (under
 * its class lock, as above), then flushes and destroys the work item and
 * frees what is still deferred, sleeping on the page locks. When it
 * returns, every page the pool had is either freed or taken back from
 * migration under its lock, so no page names the module's
 * movable_operations, and no callback is still running: each runs with the
 * page lock held, which destroy() has since taken. Pages are handed to
 * migration only when their zspage is fully built (alloc_zspage()), so a
 * migration never copies a page the allocator is still writing without
 * the lock.
 */
#include "pool_internal.hpp"

namespace zsng
{
/*
 * The kernel asks before it takes a page away to migrate it. A freeing
 * zspage says no; the rest is checked again under the class lock when the
 * migration comes. The page lock keeps @zs alive; freeing is set under the
 * class lock, and a stale read only costs a refused migration.
 */
bool Pool::page_isolate(Zspage *zs)
{
	return !__atomic_load_n(&zs->freeing, __ATOMIC_RELAXED);
}

int Pool::page_migrate(Zspage *zs, void *src, void *dst, bool may_wait)
{
	return zs->pool->migrate(zs, src, dst, may_wait);
}

/* Which of @zs's pages is @page, or nr_pages. */
static u32 page_index(const Zspage *zs, const void *page)
{
	u32 i = 0;

	while (i < zs->nr_pages && zs->pages[i] != page)
		i++;
	return i;
}

int Pool::migrate(Zspage *zs, void *src, void *dst, bool may_wait)
{
	SizeClass *c = &classes_[zs->class_idx];
	bool mapped;
	u32 i;
	int ret = 0;

	zsng_svc_lock(c->lock);
	mapped = __atomic_load_n(&zs->mapcount, __ATOMIC_ACQUIRE);
	i = page_index(zs, src);
	if (zs->freeing)
		ret = -ZSNG_EBUSY;
	else if (mapped && !may_wait)
		ret = -ZSNG_EAGAIN;
	/* The owner in the page and the zspage disagree: a bug. */
	else if (ZSNG_WARN_ON(i == zs->nr_pages))
		ret = -ZSNG_EINVAL;
	if (ret) {
		zsng_svc_unlock(c->lock);
		add_relaxed(migrate_refused_, 1);
		return ret;
	}
	/* New mappers need the lock; current ones do not sleep. */
	if (mapped)
		wait_unmapped(zs);
	__builtin_memcpy(dst, src, kPageSize);
	zs->pages[i] = dst;
	zsng_svc_unlock(c->lock);
	add_relaxed(pages_migrated_, 1);
	return 0;
}

void Pool::run_deferred(void *pool)
{
	static_cast<Pool *>(pool)->free_deferred();
}

/* May sleep on page locks; takes the deferred lock only to unlink and count. */
void Pool::free_deferred()
{
	for (;;) {
		Zspage *zs;
		u32 pages;

		zsng_svc_lock(deferred_lock_);
		if (deferred_.empty()) {
			zsng_svc_unlock(deferred_lock_);
			return;
		}
		zs = zspage_of(deferred_.next);
		zs->list.del();
		zsng_svc_unlock(deferred_lock_);

		pages = zs->nr_pages;
		for (u32 i = 0; i < pages; i++)
			zsng_svc_page_lock(zs->pages[i]);
		release_pages(zs);

		zsng_svc_lock(deferred_lock_);
		pages_deferred_ -= pages;
		add_relaxed(pages_used_, -(long)pages);
		zsng_svc_unlock(deferred_lock_);
	}
}

} // namespace zsng

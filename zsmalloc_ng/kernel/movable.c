// SPDX-License-Identifier: GPL-2.0
/*
 * Movable zspage pages: the struct movable_operations the kernel's page
 * migration calls, and the service-layer functions (core/svc.h) that hand
 * pages to migration and take them back. The protocol (who locks what,
 * deferred freeing, pool destruction) is at the top of core/migrate.cpp;
 * this file is the kernel half of it.
 *
 * A movable page holds its owner (the core's zspage) in page->private. It
 * is handed to migration with __SetPageMovable() and taken back with
 * __ClearPageMovable() (compat/migrate.h), both under the page lock, as
 * the kernel asks: from
 * then on the kernel, which checks under the same lock, does not call us
 * for that page again. That is what makes rmmod safe once every pool is
 * destroyed: no page names zsng_movable_ops any more.
 */
#define pr_fmt(fmt) "zsmalloc_ng: " fmt

#include <linux/mm.h>
#include <linux/pagemap.h>
#include "compat/migrate.h"
#include "svc.h"
#include "zsng_internal.h"

static bool zsng_page_isolate(struct page *page, isolate_mode_t mode)
{
	return zsng_core_page_isolate((void *)page_private(page));
}

static const struct movable_operations zsng_movable_ops;

/* Both pages are locked; @src is isolated. */
static int zsng_page_migrate(struct page *dst, struct page *src,
			     enum migrate_mode mode)
{
	void *owner = (void *)page_private(src);
	int ret;

	if (compat_migrate_mode_no_copy(mode))
		return -EINVAL;
	ret = zsng_core_page_migrate(owner, page_address(src),
				     page_address(dst), mode != MIGRATE_ASYNC);
	if (ret)
		return ret;
	/* @dst is ours now: our reference, owner and ops. */
	get_page(dst);
	set_page_private(dst, (unsigned long)owner);
	compat_set_page_movable(dst, &zsng_movable_ops);
	/* @src is not: the kernel drops its own reference, which frees it. */
	compat_clear_page_movable(src);
	set_page_private(src, 0);
	put_page(src);
	return MIGRATEPAGE_SUCCESS;
}

/* A failed migration gives the page back: the core kept no state. */
static void zsng_page_putback(struct page *page)
{
}

static const struct movable_operations zsng_movable_ops = {
	.isolate_page = zsng_page_isolate,
	.migrate_page = zsng_page_migrate,
	.putback_page = zsng_page_putback,
};

void zsng_svc_page_set_movable(void *addr, void *owner)
{
	struct page *page = virt_to_page(addr);

	/* Nobody else knows this page yet: the lock is free. */
	WARN_ON(!trylock_page(page));
	set_page_private(page, (unsigned long)owner);
	compat_set_page_movable(page, &zsng_movable_ops);
	unlock_page(page);
}

int zsng_svc_page_trylock(void *addr)
{
	return trylock_page(virt_to_page(addr));
}

void zsng_svc_page_lock(void *addr)
{
	lock_page(virt_to_page(addr));
}

void zsng_svc_page_unlock(void *addr)
{
	unlock_page(virt_to_page(addr));
}

/* Locked: take it back from migration, then drop our reference. */
void zsng_svc_movable_page_free(void *addr)
{
	struct page *page = virt_to_page(addr);

	compat_clear_page_movable(page);
	set_page_private(page, 0);
	unlock_page(page);
	put_page(page);
}

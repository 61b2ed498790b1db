/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Page migration: modes, and the movable-page calls.
 *
 * Linux 6.10 removed MIGRATE_SYNC_NO_COPY (the mode in which the caller
 * copies the page itself, for device memory). A driver that copies under
 * its own lock cannot serve it and refuses it with -EINVAL, as zsmalloc
 * does; on 6.10 and later there is nothing to refuse.
 */
#ifndef ZSNG_COMPAT_MIGRATE_H
#define ZSNG_COMPAT_MIGRATE_H

#include <linux/migrate.h>
#include "kernel_version.h"

static inline bool compat_migrate_mode_no_copy(enum migrate_mode mode)
{
#if ZSNG_KERNEL_SINCE(6, 10)
	return false;
#else
	return mode == MIGRATE_SYNC_NO_COPY;
#endif
}

/*
 * Handing a page to migration and taking it back (the page locked). 6.1 and
 * 6.12 have __SetPageMovable() / __ClearPageMovable(); later kernels turn
 * movable_operations into a page type, and these two are where that lands.
 */
static inline void compat_set_page_movable(struct page *page,
					   const struct movable_operations *ops)
{
	__SetPageMovable(page, ops);
}

static inline void compat_clear_page_movable(struct page *page)
{
	__ClearPageMovable(page);
}

#endif /* ZSNG_COMPAT_MIGRATE_H */

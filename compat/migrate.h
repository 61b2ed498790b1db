/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Page migration modes.
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

#endif /* ZSNG_COMPAT_MIGRATE_H */

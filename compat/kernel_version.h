/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernels this tree supports.
 *
 * zsmalloc_ng and zram_ng build from one source tree for Debian's 6.1 and
 * 6.12 series. Every kernel API that differs between them is papered over
 * by one header in compat/, named for what it papers over; each entry says
 * which upstream release changed the API. No other file tests
 * LINUX_VERSION_CODE (scripts/style checks that).
 *
 * Only the two series are built and tested (make check boots both). The
 * kernels in between (6.2 - 6.11) took the API changes one release at a
 * time, and each compat entry switches at the release its comment names,
 * but nobody has built or run them: they are refused here rather than left
 * to fail in some less obvious way. Kernels after 6.12 are let through to
 * build: a failure there is a new compat entry to write.
 */
#ifndef ZSNG_COMPAT_KERNEL_VERSION_H
#define ZSNG_COMPAT_KERNEL_VERSION_H

#include <linux/version.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#error "zsmalloc_ng needs Linux 6.1 or later"
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0) && \
	LINUX_VERSION_CODE < KERNEL_VERSION(6, 12, 0)
#error "zsmalloc_ng is built and tested on the 6.1 and 6.12 series only"
#endif

/* An API changed in release (major, minor): true on that release and later. */
#define ZSNG_KERNEL_SINCE(major, minor) \
	(LINUX_VERSION_CODE >= KERNEL_VERSION(major, minor, 0))

#endif /* ZSNG_COMPAT_KERNEL_VERSION_H */

// SPDX-License-Identifier: GPL-2.0
/* The C half of the guard-test module; never loaded. */
#include <linux/module.h>
#include "guard.h"

int zsng_guard_next(void)
{
	return 1;
}
MODULE_LICENSE("GPL");

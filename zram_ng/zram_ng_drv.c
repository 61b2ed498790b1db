// SPDX-License-Identifier: GPL-2.0
/* Placeholder until the block driver lands: proves the dependency works. */
#include <linux/module.h>
#include "zsmalloc_ng.h"

static int __init zram_ng_init(void)
{
	pr_info("zram_ng: using zsmalloc_ng policy %s\n",
		zsng_policy_name(ZSNG_POLICY_RATIO));
	return 0;
}

static void __exit zram_ng_exit(void)
{
}

module_init(zram_ng_init);
module_exit(zram_ng_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("zram_ng: compressed RAM block device on zsmalloc_ng");

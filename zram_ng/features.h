/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What main.c uses of the feature files (sysfs.c, writeback.c,
 * recompress.c, grouping.c, idle.c, debugfs.c). Only main.c and the features
 * themselves (for their own declarations) include it: the features do not
 * call each other, and the layers below do not call the features.
 */
#ifndef _ZRAM_NG_FEATURES_H
#define _ZRAM_NG_FEATURES_H

#include "zram_ng.h"

/* sysfs.c */
extern const struct attribute_group zram_ng_disk_group;
void zram_ng_reset_device(struct zram_ng *zram);

/* writeback.c, recompress.c, grouping.c, idle.c */
extern const struct attribute_group zram_ng_writeback_group;
extern const struct attribute_group zram_ng_recomp_group;
extern const struct attribute_group zram_ng_grouping_group;
extern const struct attribute_group zram_ng_idle_group;
void zram_ng_writeback_dev_init(struct zram_ng *zram);

/* debugfs.c */
void zram_ng_debugfs_init(void);
void zram_ng_debugfs_exit(void);
void zram_ng_debugfs_register(struct zram_ng *zram);
void zram_ng_debugfs_unregister(struct zram_ng *zram);

#endif /* _ZRAM_NG_FEATURES_H */

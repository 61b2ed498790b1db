// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/zsmalloc_ng/
 *   <pool>/classes  per-class table, like zsmalloc's, plus objs_moved
 *   <pool>/stats    the pool's counters, one "name value" per line
 *   fail_every, fail_times, fail_calls, fail_injected
 *                   allocation fault injection (fault_inject.c), and
 *   scenarios, experiment
 *                   (testing.c): the testing build's only
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include "zsmalloc_ng.h"
#include "zsng_internal.h"

static struct dentry *zsng_debugfs_root;

static int classes_show(struct seq_file *s, void *v)
{
	struct zsng_pool *pool = s->private;
	struct zsng_class_stats cs;
	unsigned int i, g, n = zsng_core_nr_classes(pool->core);
	const char *col;

	seq_printf(s, "%5s %5s", "class", "size");
	/* The pool's policy decides the columns: its names come with it. */
	for (g = 0; (col = zsng_core_group_name(pool->core, g)); g++)
		seq_printf(s, " %12s", col);
	seq_printf(s, " %13s %10s %10s %16s %8s %10s %11s %10s\n",
		   "obj_allocated", "obj_used", "pages_used", "pages_per_zspage",
		   "freeable", "objs_moved", "short_pages", "long_after");
	for (i = 0; i < n; i++) {
		zsng_core_class_stats(pool->core, i, &cs);
		seq_printf(s, "%5u %5u", i, cs.size);
		for (g = 0; g < cs.nr_groups; g++)
			seq_printf(s, " %12lu", cs.groups[g]);
		seq_printf(s, " %13lu %10lu %10lu %16u %8lu %10lu %11u %10lu\n",
			   cs.obj_allocated, cs.obj_used, cs.pages_used,
			   cs.pages_per_zspage, cs.freeable, cs.objs_moved,
			   cs.short_pages_per_zspage, cs.long_after);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(classes);

static int stats_show(struct seq_file *s, void *v)
{
	struct zsng_pool *pool = s->private;
	struct zsng_pool_stats ps;

	zsng_core_pool_stats(pool->core, &ps);
	seq_printf(s, "policy %s\n",
		   zsng_core_policy_name(zsng_core_policy(pool->core)));
	seq_printf(s, "movable %u\n", ps.movable);
	seq_printf(s, "pages_used %lu\n", ps.pages_used);
	seq_printf(s, "objs_allocated %lu\n", ps.objs_allocated);
	seq_printf(s, "objs_used %lu\n", ps.objs_used);
	seq_printf(s, "pages_compacted %lu\n", ps.pages_compacted);
	seq_printf(s, "objs_moved %lu\n", ps.objs_moved);
	seq_printf(s, "pages_migrated %lu\n", ps.pages_migrated);
	seq_printf(s, "migrate_refused %lu\n", ps.migrate_refused);
	seq_printf(s, "frees_deferred %lu\n", ps.frees_deferred);
	seq_printf(s, "pages_deferred %lu\n", ps.pages_deferred);
	seq_printf(s, "lru %u\n", !!(ps.flags & ZSNG_POOL_LRU));
	seq_printf(s, "auto_compact %u\n", !!(ps.flags & ZSNG_POOL_AUTO_COMPACT));
	seq_printf(s, "growing_chains %u\n",
		   !!(ps.flags & ZSNG_POOL_GROWING_CHAINS));
	seq_printf(s, "auto_compactions %lu\n", ps.auto_compactions);
	seq_printf(s, "borrow_slots %u\n",
		   !!(ps.flags & ZSNG_POOL_BORROW_SLOTS));
	seq_printf(s, "slots_borrowed %lu\n", ps.slots_borrowed);
	seq_printf(s, "least_waste_chains %u\n",
		   !!(ps.flags & ZSNG_POOL_LEAST_WASTE));
	seq_printf(s, "objs_evicted %lu\n", ps.objs_evicted);
	seq_printf(s, "evict_failed %lu\n", ps.evict_failed);
	seq_printf(s, "pages_reclaimed %lu\n", ps.pages_reclaimed);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

/* The root directory, where the testing build adds its files. */
struct dentry *zsng_debugfs_init(void)
{
	zsng_debugfs_root = debugfs_create_dir("zsmalloc_ng", NULL);
	zsng_fault_inject_debugfs_init(zsng_debugfs_root);
	return zsng_debugfs_root;
}

void zsng_debugfs_exit(void)
{
	debugfs_remove_recursive(zsng_debugfs_root);
}

void zsng_debugfs_pool_add(struct zsng_pool *pool)
{
	struct dentry *dir;

	dir = debugfs_create_dir(pool->name, zsng_debugfs_root);
	if (IS_ERR(dir)) {
		pr_warn("zsmalloc_ng: no debugfs for pool %s\n", pool->name);
		return;
	}
	pool->debugfs_dir = dir;
	debugfs_create_file("classes", 0444, dir, pool, &classes_fops);
	debugfs_create_file("stats", 0444, dir, pool, &stats_fops);
}

void zsng_debugfs_pool_remove(struct zsng_pool *pool)
{
	debugfs_remove_recursive(pool->debugfs_dir);
	pool->debugfs_dir = NULL;
}

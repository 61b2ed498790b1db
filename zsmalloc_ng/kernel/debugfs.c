// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/zsmalloc_ng/
 *   <pool>/classes  per-class table, like zsmalloc's, plus objs_moved
 *   <pool>/stats    the pool's counters, one "name value" per line
 *   scenarios       read: runs the hand-computed compaction scenarios
 *   experiment      write "PATTERN POLICY SEED ZSPAGES_PER_CLASS", then
 *                   read: runs the fragmentation experiment in the kernel
 *   fail_every, fail_times, fail_calls, fail_injected
 *                   allocation fault injection (fault_inject.c)
 * The last two print the same lines as the userspace build, so the VM
 * tests can compare kernel and userspace counts line by line.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>
#include <linux/string.h>
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

static void seq_emit(void *ctx, const char *line)
{
	seq_printf(ctx, "%s\n", line);
}

static int scenarios_show(struct seq_file *s, void *v)
{
	int ret = zsng_core_run_scenarios(seq_emit, s);

	seq_printf(s, "result=%d\n", ret);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(scenarios);

static DEFINE_MUTEX(experiment_lock);
static struct {
	char pattern[16];
	int policy;
	unsigned long seed;
	unsigned int zspages;
} experiment = { "published", ZSNG_POLICY_RATIO, 1, 16 };

static int experiment_show(struct seq_file *s, void *v)
{
	int ret;

	mutex_lock(&experiment_lock);
	ret = zsng_core_run_experiment(experiment.pattern, experiment.policy,
				       experiment.seed, experiment.zspages,
				       seq_emit, s);
	mutex_unlock(&experiment_lock);
	seq_printf(s, "result=%d\n", ret);
	return 0;
}

static int experiment_open(struct inode *inode, struct file *file)
{
	/* The output of all classes is larger than seq_file's first try. */
	return single_open_size(file, experiment_show, NULL, 256 * 1024);
}

static ssize_t experiment_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	char buf[96], pattern[16], policy[16];
	unsigned long seed;
	unsigned int zspages;
	int p;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	if (sscanf(buf, "%15s %15s %lu %u", pattern, policy, &seed,
		   &zspages) != 4)
		return -EINVAL;
	p = zsng_policy_from_name(policy);
	if (p < 0 || zspages < ZSNG_EXPERIMENT_MIN_ZSPAGES ||
	    zspages > ZSNG_EXPERIMENT_MAX_ZSPAGES)
		return -EINVAL;
	mutex_lock(&experiment_lock);
	strscpy(experiment.pattern, pattern, sizeof(experiment.pattern));
	experiment.policy = p;
	experiment.seed = seed;
	experiment.zspages = zspages;
	mutex_unlock(&experiment_lock);
	return len;
}

static const struct file_operations experiment_fops = {
	.owner = THIS_MODULE,
	.open = experiment_open,
	.read = seq_read,
	.write = experiment_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static int stats_show(struct seq_file *s, void *v)
{
	struct zsng_pool *pool = s->private;
	struct zsng_pool_stats ps;

	zsng_core_pool_stats(pool->core, &ps);
	seq_printf(s, "policy %s\n",
		   zsng_policy_name(zsng_core_policy(pool->core)));
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
	seq_printf(s, "objs_evicted %lu\n", ps.objs_evicted);
	seq_printf(s, "evict_failed %lu\n", ps.evict_failed);
	seq_printf(s, "pages_reclaimed %lu\n", ps.pages_reclaimed);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

void zsng_debugfs_init(void)
{
	zsng_debugfs_root = debugfs_create_dir("zsmalloc_ng", NULL);
	debugfs_create_file("scenarios", 0400, zsng_debugfs_root, NULL,
			    &scenarios_fops);
	debugfs_create_file("experiment", 0600, zsng_debugfs_root, NULL,
			    &experiment_fops);
	zsng_fault_inject_debugfs_init(zsng_debugfs_root);
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

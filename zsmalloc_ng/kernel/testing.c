// SPDX-License-Identifier: GPL-2.0
/*
 * The testing build's glue (make ZSNG_TESTING=1; Documentation/build.rst):
 * built only with the experiment objects, never into the product module,
 * as WireGuard keeps its selftests behind DEBUG. Without it,
 * zsng_testing_init() is the stub in zsng_internal.h.
 *
 *   at load     the self-check (experiment/selfcheck.cpp): a failure
 *               refuses the load; its result stays readable in
 *               /sys/module/zsmalloc_ng/parameters/selftest_result, so a
 *               test reads this load's result, not an older dmesg line
 *   /sys/kernel/debug/zsmalloc_ng/
 *     scenarios   read: runs the hand-computed compaction scenarios
 *     experiment  write "PATTERN POLICY SEED ZSPAGES_PER_CLASS", then
 *                 read: runs the fragmentation experiment in the kernel
 * The two files print the same lines as the userspace build
 * (zsng_experiment), so the VM tests compare kernel and userspace counts
 * line by line.
 */
#define pr_fmt(fmt) "zsmalloc_ng: " fmt

#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>
#include <linux/string.h>
#include "svc.h"
#include "zsng_experiment.h"
#include "zsng_internal.h"

/* Set at load, before anyone can read it: a modprobe value is overwritten. */
static int selftest_result = -ENODATA;
module_param(selftest_result, int, 0444);
MODULE_PARM_DESC(selftest_result,
		 "Testing build: result of this load's self-check, 0 = passed (read-only)");

static void seq_emit(void *ctx, const char *line)
{
	seq_printf(ctx, "%s\n", line);
}

static int scenarios_show(struct seq_file *s, void *v)
{
	int ret = zsng_scenarios_run(seq_emit, s);

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
	ret = zsng_experiment_run(experiment.pattern, experiment.policy,
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
	p = zsng_core_policy_from_name(policy);
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

int zsng_testing_init(struct dentry *debugfs_root)
{
	selftest_result = zsng_selfcheck_run();
	if (selftest_result) {
		pr_err("self-check FAILED (%d): refusing to load\n",
		       selftest_result);
		return -EIO;
	}
	pr_info("self-check passed (C++ core, %u pages per zspage at most)\n",
		zsng_svc_max_pages_per_zspage());
	debugfs_create_file("scenarios", 0400, debugfs_root, NULL,
			    &scenarios_fops);
	debugfs_create_file("experiment", 0600, debugfs_root, NULL,
			    &experiment_fops);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * zram_ng's debugfs: zram_ng/<device>/block_state lists the slots holding
 * data: index, access time, and the flags s(ame), w(ritten back), h(uge),
 * i(dle), in the format of Linux 6.1's zram with
 * CONFIG_ZRAM_MEMORY_TRACKING, then r(ecompressed with a secondary
 * algorithm) and n (no algorithm shrank it: incompressible), which
 * upstream added with recompression (6.2), then zram_ng's own g (a
 * member of a group: group.c).
 */
#define pr_fmt(fmt) "zram_ng: " fmt

#include <linux/debugfs.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include "features.h"
#include "slot.h"

static struct dentry *zram_ng_debugfs_root;

/*
 * block_state: a seq_file whose position is a slot index. init_lock is
 * held for read from ->start to ->stop, so the table stays; each line is
 * printed under its slot's lock.
 */
static bool zram_ng_next_allocated(struct zram_ng *zram, loff_t *pos)
{
	u32 nr_pages = zram->disksize >> PAGE_SHIFT;

	for (; *pos < nr_pages; (*pos)++) {
		bool allocated;

		/* the slots without a leaf are empty: a leaf at a time */
		*pos = zram_ng_slot_next_present(zram, *pos, nr_pages);
		if (*pos == nr_pages)
			break;
		if (!slot_lock(zram, *pos))
			continue;
		allocated = slot_allocated(zram, *pos);
		slot_unlock(zram, *pos);
		if (allocated)
			return true;
	}
	return false;
}

static void *block_state_start(struct seq_file *m, loff_t *pos)
{
	struct zram_ng *zram = m->private;

	down_read(&zram->init_lock);
	/* as 6.1: reading it before disksize is an error */
	if (!zram_ng_init_done(zram))
		return ERR_PTR(-EINVAL);
	return zram_ng_next_allocated(zram, pos) ? pos : NULL;
}

static void *block_state_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct zram_ng *zram = m->private;

	(*pos)++;
	return zram_ng_next_allocated(zram, pos) ? pos : NULL;
}

static void block_state_stop(struct seq_file *m, void *v)
{
	struct zram_ng *zram = m->private;

	up_read(&zram->init_lock);
}

static int block_state_show(struct seq_file *m, void *v)
{
	struct zram_ng *zram = m->private;
	u32 index = *(loff_t *)v;
	struct timespec64 ts;
	char flags[8];

	/* emptied since ->next found it */
	if (!slot_lock(zram, index))
		return SEQ_SKIP;
	ts = ktime_to_timespec64(slot_ac_time(zram, index));
	flags[0] = slot_test_flag(zram, index, ZRAM_NG_SAME) ? 's' : '.';
	flags[1] = slot_test_flag(zram, index, ZRAM_NG_WB) ? 'w' : '.';
	flags[2] = slot_test_flag(zram, index, ZRAM_NG_HUGE) ? 'h' : '.';
	flags[3] = slot_test_flag(zram, index, ZRAM_NG_IDLE) ? 'i' : '.';
	flags[4] = slot_priority(zram, index) ? 'r' : '.';
	flags[5] = slot_test_flag(zram, index, ZRAM_NG_INCOMPRESSIBLE) ?
		   'n' : '.';
	flags[6] = slot_test_flag(zram, index, ZRAM_NG_GROUPED) ? 'g' : '.';
	flags[7] = '\0';
	slot_unlock(zram, index);

	seq_printf(m, "%12u %12lld.%06lu %s\n", index, (s64)ts.tv_sec,
		   ts.tv_nsec / NSEC_PER_USEC, flags);
	return 0;
}

static const struct seq_operations block_state_sops = {
	.start = block_state_start,
	.next = block_state_next,
	.stop = block_state_stop,
	.show = block_state_show,
};

static int block_state_open(struct inode *inode, struct file *file)
{
	int ret = seq_open(file, &block_state_sops);

	if (!ret)
		((struct seq_file *)file->private_data)->private =
			inode->i_private;
	return ret;
}

static const struct file_operations block_state_fops = {
	.owner = THIS_MODULE,
	.open = block_state_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = seq_release,
};

void zram_ng_debugfs_init(void)
{
	zram_ng_debugfs_root = debugfs_create_dir("zram_ng", NULL);
}

void zram_ng_debugfs_exit(void)
{
	debugfs_remove_recursive(zram_ng_debugfs_root);
}

void zram_ng_debugfs_register(struct zram_ng *zram)
{
	zram->debugfs_dir = debugfs_create_dir(zram->disk->disk_name,
					       zram_ng_debugfs_root);
	debugfs_create_file("block_state", 0400, zram->debugfs_dir, zram,
			    &block_state_fops);
}

void zram_ng_debugfs_unregister(struct zram_ng *zram)
{
	debugfs_remove_recursive(zram->debugfs_dir);
	zram->debugfs_dir = NULL;
}

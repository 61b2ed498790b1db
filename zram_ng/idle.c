// SPDX-License-Identifier: GPL-2.0
/*
 * zram_ng's idle tracking, as Linux 6.1's zram with
 * CONFIG_ZRAM_MEMORY_TRACKING: every read or write of a slot stamps it
 * with the boot-time clock and clears its idle flag (slot.c); writing
 * "all" to idle marks every slot holding data idle, writing a number
 * marks those not accessed for that many seconds. Writeback ("writeback
 * idle") and recompression ("type=idle") then take the idle ones.
 */
#define pr_fmt(fmt) "zram_ng: " fmt

#include <linux/device.h>
#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>
#include "features.h"
#include "slot.h"

/*
 * Marks idle the slots holding data last accessed before @cutoff (every
 * one if @all). A slot under writeback is left alone: its writeback reads
 * the idle flag to see whether the slot changed.
 */
static void zram_ng_mark_idle(struct zram_ng *zram, bool all, ktime_t cutoff)
{
	u32 nr_pages = zram->disksize >> PAGE_SHIFT;
	u32 index;

	for (index = 0; index < nr_pages; index++) {
		/* the slots without a leaf are empty: a leaf at a time */
		index = zram_ng_slot_next_present(zram, index, nr_pages);
		if (index == nr_pages)
			break;
		if (!slot_lock(zram, index))
			continue;
		if (slot_allocated(zram, index) &&
		    !slot_test_flag(zram, index, ZRAM_NG_UNDER_WB) &&
		    (all || ktime_before(slot_ac_time(zram, index), cutoff)))
			slot_set_flag(zram, index, ZRAM_NG_IDLE);
		slot_unlock(zram, index);
		cond_resched();
	}
}

/*
 * "all", or an age in seconds (any base kstrtoull() reads). -EINVAL for
 * anything else and on a device not initialised. An age beyond the time
 * since boot marks nothing (6.1 would overflow computing the cutoff).
 */
static ssize_t idle_store(struct device *dev, struct device_attribute *attr,
			  const char *buf, size_t len)
{
	struct zram_ng *zram = zram_ng_dev_to_zram(dev);
	ktime_t now = ktime_get_boottime();
	ktime_t cutoff = 0;
	bool all = false;
	ssize_t ret = len;
	u64 age;

	if (sysfs_streq(buf, "all")) {
		all = true;
	} else {
		if (kstrtoull(buf, 0, &age))
			return -EINVAL;
		if (age < (u64)ktime_to_ns(now) / NSEC_PER_SEC + 1)
			cutoff = ktime_sub(now, ns_to_ktime(age * NSEC_PER_SEC));
	}

	down_read(&zram->init_lock);
	if (!zram_ng_init_done(zram))
		ret = -EINVAL;
	else
		zram_ng_mark_idle(zram, all, cutoff);
	up_read(&zram->init_lock);
	return ret;
}

static DEVICE_ATTR_WO(idle);

static struct attribute *zram_ng_idle_attrs[] = {
	&dev_attr_idle.attr,
	NULL,
};

const struct attribute_group zram_ng_idle_group = {
	.attrs = zram_ng_idle_attrs,
};

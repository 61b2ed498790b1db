// SPDX-License-Identifier: GPL-2.0
/*
 * zram_ng's per-disk sysfs ABI: the attributes of zram in Linux 6.1 with
 * the same formats and errors, plus objs_moved as mm_stat's 10th column and
 * allocator_policy. Every handler parses, takes init_lock, checks the
 * state and prints with sysfs_emit: nothing else. The writeback
 * attributes (backing_dev, writeback, writeback_limit*, bd_stat) are in
 * writeback.c, idle in idle.c, recomp_algorithm and recompress in
 * recompress.c: groups of their own, in the same folder (main.c lists
 * them).
 *
 * The device's lifecycle is here too: disksize initialises it (the slot
 * table, the pool and the streams: slot.c), reset takes it back, by the
 * protocol below, which hot_remove and module exit (main.c) follow as
 * well.
 */
#define pr_fmt(fmt) "zram_ng: " fmt

#include <linux/ctype.h>
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/part_stat.h>
#include <linux/string.h>
#include "backing.h"
#include "features.h"
#include "slot.h"
#include "zcomp.h"

/*
 * zsmalloc_ng's zspages are longer than 6.1 zsmalloc's (8 pages against
 * 4), so random frees empty fewer of them: without compaction, a device
 * would hold more memory after frees than the stock zram. The pool
 * compacts itself when frees leave an eighth of it to gain
 * (ZSNG_POOL_AUTO_COMPACT; Documentation/zsmalloc_ng.rst, "zswap: LRU,
 * reclaim and self-compaction").
 */
static bool auto_compact = true;
module_param(auto_compact, bool, 0644);
MODULE_PARM_DESC(auto_compact,
		 "Devices initialised from now on compact their pool by themselves when frees leave 1/8 of it to gain (default: Y)");

static ssize_t disksize_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	struct zram_ng *zram = zram_ng_dev_to_zram(dev);
	u64 disksize;

	down_read(&zram->init_lock);
	disksize = zram->disksize;
	up_read(&zram->init_lock);
	return sysfs_emit(buf, "%llu\n", disksize);
}

/*
 * A size for disksize and mem_limit: memparse() reads it (a number in any
 * base, then an optional K/M/G/T/P/E; what follows, such as echo's
 * newline, is ignored). What memparse() does not do is say when the value
 * does not fit in 64 bits: it wraps silently (2^64 would be a mem_limit of
 * 0, "no limit"). So the digits it read are parsed again by kstrtoull(),
 * which reports ERANGE, and the suffix's shift is checked against what is
 * left. Nothing parsed is EINVAL.
 */
static int zram_ng_parse_size(const char *buf, u64 *out)
{
	static const char suffixes[] = "KMGTPE";
	bool hex = buf[0] == '0' && tolower(buf[1]) == 'x';
	unsigned int shift = 0;
	const char *suffix;
	char digits[24];
	size_t len;
	char *end;
	u64 val;
	int ret;

	*out = memparse(buf, &end);
	len = end - buf;
	/* nothing, or a "0x" with no digit (memparse() reads its 0) */
	if (!len || (hex && len < 3))
		return -EINVAL;
	/* a hex number's E is a digit, never the exa suffix */
	suffix = strchr(suffixes, toupper(end[-1]));
	if (suffix && !(hex && isxdigit(end[-1]))) {
		shift = 10 * (suffix - suffixes + 1);
		len--;
	}
	if (len >= sizeof(digits))
		return -ERANGE;
	memcpy(digits, buf, len);
	digits[len] = '\0';
	ret = kstrtoull(digits, 0, &val);
	if (ret)
		return ret;
	if (val > U64_MAX >> shift)
		return -ERANGE;
	return 0;
}

/*
 * Called with init_lock held for write by disksize_store. @disksize is
 * page aligned and non-zero.
 */
static int zram_ng_init_device(struct zram_ng *zram, u64 disksize)
{
	unsigned int pool_flags;
	int ret;

	pool_flags = READ_ONCE(auto_compact) ? ZSNG_POOL_AUTO_COMPACT : 0;
	ret = zram_ng_slots_init(zram, disksize, pool_flags);
	if (ret)
		return ret;
	zram->disksize = disksize;
	set_capacity_and_notify(zram->disk, disksize >> SECTOR_SHIFT);
	return 0;
}

static ssize_t disksize_store(struct device *dev, struct device_attribute *attr,
			      const char *buf, size_t len)
{
	struct zram_ng *zram = zram_ng_dev_to_zram(dev);
	u64 disksize;
	int ret;

	ret = zram_ng_parse_size(buf, &disksize);
	if (ret)
		return ret;
	/* 0, and sizes PAGE_ALIGN would wrap to 0 */
	if (!disksize || disksize > U64_MAX - PAGE_SIZE)
		return -EINVAL;

	down_write(&zram->init_lock);
	if (zram_ng_init_done(zram))
		ret = -EBUSY;
	else
		ret = zram_ng_init_device(zram, PAGE_ALIGN(disksize));
	up_write(&zram->init_lock);
	return ret ? ret : len;
}

static ssize_t initstate_show(struct device *dev, struct device_attribute *attr,
			      char *buf)
{
	struct zram_ng *zram = zram_ng_dev_to_zram(dev);
	bool val;

	down_read(&zram->init_lock);
	val = zram_ng_init_done(zram);
	up_read(&zram->init_lock);
	return sysfs_emit(buf, "%u\n", val);
}

/*
 * Called with nothing held, on a device claimed (->claim) and drained, or
 * that nobody can see: frees what disksize and backing_dev set up.
 */
void zram_ng_reset_device(struct zram_ng *zram)
{
	u32 prio;

	down_write(&zram->init_lock);

	zram->limit_pages = 0;
	set_capacity_and_notify(zram->disk, 0);
	part_stat_set_all(zram->disk->part0, 0);

	zram_ng_slots_free(zram);
	zram->disksize = 0;
	memset(&zram->stats, 0, sizeof(zram->stats));
	/* as upstream: the secondary algorithms are forgotten on reset */
	memset(zram->recomp_algs, 0, sizeof(zram->recomp_algs));
	/* and so are algorithm_params */
	for (prio = 0; prio < ZRAM_NG_MAX_COMPS; prio++)
		zram_ng_comp_params_reset(zram, prio);
	/* after the slots: freeing a WB slot frees its block */
	zram_ng_backing_release(zram);

	up_write(&zram->init_lock);
}

/*
 * The reset protocol, for reset_store:
 *  - an open device (mounted, swapped on, held by a tool) is refused;
 *  - ->claim, set under open_mutex, keeps anyone from opening it while we
 *    work, and a concurrent reset or remove from starting;
 *  - sync_blockdev() drains the writeback of the last closer before the
 *    slots go away.
 */
static int zram_ng_reset(struct zram_ng *zram)
{
	struct gendisk *disk = zram->disk;

	mutex_lock(&disk->open_mutex);
	if (disk_openers(disk) || zram->claim) {
		mutex_unlock(&disk->open_mutex);
		return -EBUSY;
	}
	zram->claim = true;
	mutex_unlock(&disk->open_mutex);

	sync_blockdev(disk->part0);
	zram_ng_reset_device(zram);

	mutex_lock(&disk->open_mutex);
	zram->claim = false;
	mutex_unlock(&disk->open_mutex);
	return 0;
}

static ssize_t reset_store(struct device *dev, struct device_attribute *attr,
			   const char *buf, size_t len)
{
	unsigned short do_reset;
	int ret;

	ret = kstrtou16(buf, 10, &do_reset);
	if (ret)
		return ret;
	if (!do_reset)
		return -EINVAL;

	ret = zram_ng_reset(zram_ng_dev_to_zram(dev));
	return ret ? ret : len;
}

static ssize_t mem_limit_store(struct device *dev,
			       struct device_attribute *attr,
			       const char *buf, size_t len)
{
	struct zram_ng *zram = zram_ng_dev_to_zram(dev);
	u64 limit;
	int ret;

	ret = zram_ng_parse_size(buf, &limit);
	if (ret)
		return ret;
	/* fits in 64 bits, but PAGE_ALIGN would wrap it to 0 */
	if (limit > U64_MAX - PAGE_SIZE)
		return -EINVAL;

	/*
	 * One word, read once by each write: no lock. 6.1's zram takes
	 * init_lock for write here, which queues every later reader of it
	 * (compact, the statistics) behind a writeback or recompression
	 * pass that holds it for read for seconds: the soak's compactions
	 * fell tenfold when those passes joined it.
	 */
	WRITE_ONCE(zram->limit_pages, PAGE_ALIGN(limit) >> PAGE_SHIFT);
	return len;
}

static ssize_t mem_used_max_store(struct device *dev,
				  struct device_attribute *attr,
				  const char *buf, size_t len)
{
	struct zram_ng *zram = zram_ng_dev_to_zram(dev);
	unsigned long val;
	int ret;

	ret = kstrtoul(buf, 10, &val);
	if (ret || val != 0)
		return -EINVAL;

	down_read(&zram->init_lock);
	if (zram_ng_init_done(zram))
		atomic_long_set(&zram->stats.max_used_pages,
				zsng_get_total_pages(zram->mem_pool));
	up_read(&zram->init_lock);
	return len;
}

static ssize_t compact_store(struct device *dev, struct device_attribute *attr,
			     const char *buf, size_t len)
{
	struct zram_ng *zram = zram_ng_dev_to_zram(dev);

	down_read(&zram->init_lock);
	if (!zram_ng_init_done(zram)) {
		up_read(&zram->init_lock);
		return -EINVAL;
	}
	zsng_compact(zram->mem_pool);
	up_read(&zram->init_lock);
	return len;
}

static ssize_t comp_algorithm_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	struct zram_ng *zram = zram_ng_dev_to_zram(dev);
	ssize_t sz;

	down_read(&zram->init_lock);
	sz = zcomp_ng_available_show(zram->compressor, buf, 0);
	up_read(&zram->init_lock);
	return sz;
}

static ssize_t comp_algorithm_store(struct device *dev,
				    struct device_attribute *attr,
				    const char *buf, size_t len)
{
	struct zram_ng *zram = zram_ng_dev_to_zram(dev);
	char name[ZRAM_NG_MAX_ALGO_NAME];
	int ret = 0;

	if (strscpy(name, buf, sizeof(name)) < 0)
		return -EINVAL;
	strim(name);
	/* the crypto API does not ignore a trailing newline; we do */
	if (!name[0] || !zcomp_ng_available(name))
		return -EINVAL;

	down_write(&zram->init_lock);
	if (zram_ng_init_done(zram)) {
		ret = -EBUSY;
	} else if (strcmp(zram->compressor, name)) {
		/* another algorithm: the old one's parameters go */
		strscpy(zram->compressor, name, sizeof(zram->compressor));
		zram_ng_comp_params_reset(zram, ZRAM_NG_PRIMARY_COMP);
	}
	up_write(&zram->init_lock);
	return ret ? ret : len;
}

/* Compatibility: one stream per CPU, whatever is written. */
static ssize_t max_comp_streams_show(struct device *dev,
				     struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", num_online_cpus());
}

static ssize_t max_comp_streams_store(struct device *dev,
				      struct device_attribute *attr,
				      const char *buf, size_t len)
{
	return len;
}

/* The policy the device's pool has, or will have when disksize is set. */
static int zram_ng_resolve_policy(struct zram_ng *zram)
{
	if (zram->mem_pool)
		return zsng_pool_policy(zram->mem_pool);
	if (zram->policy != ZSNG_POLICY_DEFAULT)
		return zram->policy;
	return zsng_default_policy();
}

static ssize_t allocator_policy_show(struct device *dev,
				     struct device_attribute *attr, char *buf)
{
	struct zram_ng *zram = zram_ng_dev_to_zram(dev);
	ssize_t sz = 0;
	int policy, i;

	down_read(&zram->init_lock);
	policy = zram_ng_resolve_policy(zram);
	up_read(&zram->init_lock);

	for (i = 0; i < ZSNG_POLICY_NR; i++)
		sz += sysfs_emit_at(buf, sz, i == policy ? "[%s]%s" : "%s%s",
				    zsng_policy_name(i),
				    i == ZSNG_POLICY_NR - 1 ? "\n" : " ");
	return sz;
}

static ssize_t allocator_policy_store(struct device *dev,
				      struct device_attribute *attr,
				      const char *buf, size_t len)
{
	struct zram_ng *zram = zram_ng_dev_to_zram(dev);
	char name[32];
	int policy, ret = 0;

	if (strscpy(name, buf, sizeof(name)) < 0)
		return -EINVAL;
	policy = zsng_policy_from_name(strim(name));
	if (policy < 0)
		return -EINVAL;

	down_write(&zram->init_lock);
	if (zram_ng_init_done(zram))
		ret = -EBUSY;
	else
		zram->policy = policy;
	up_write(&zram->init_lock);
	return ret ? ret : len;
}

static ssize_t io_stat_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct zram_ng *zram = zram_ng_dev_to_zram(dev);
	ssize_t ret;

	down_read(&zram->init_lock);
	ret = sysfs_emit(buf, "%8llu %8llu %8llu %8llu\n",
			 /* failed_reads */ (u64)atomic64_read(&zram->stats.failed_reads),
			 /* failed_writes */ (u64)atomic64_read(&zram->stats.failed_writes),
			 /* invalid_io */ (u64)atomic64_read(&zram->stats.invalid_io),
			 /* notify_free */ (u64)atomic64_read(&zram->stats.notify_free));
	up_read(&zram->init_lock);
	return ret;
}

/*
 * zram_ng's own figures, which no zram file has: bd_retired, the backing
 * device's blocks retired after a write error, and bd_quarantined, its
 * blocks freed but kept from reuse until the reads that may still name
 * them complete (backing.c), both in 4 KiB units as bd_stat counts;
 * table_bytes, the bytes of the slot table (its top array and its
 * leaves: slot.c), which mm_stat does not count. Columns are only ever
 * appended (tools/lib/stat-columns).
 */
static ssize_t ng_stat_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct zram_ng *zram = zram_ng_dev_to_zram(dev);
	u64 quarantined = 0;
	ssize_t ret;

	down_read(&zram->init_lock);
	if (zram->backing.bdev)
		quarantined = zram_ng_bd_nr_quarantined(zram);
	ret = sysfs_emit(buf, "%8llu %8llu %8llu\n",
			 /* bd_retired */
			 ZRAM_NG_FOUR_K((u64)atomic64_read(&zram->stats.bd_retired)),
			 /* bd_quarantined */
			 ZRAM_NG_FOUR_K(quarantined),
			 /* table_bytes */
			 (u64)atomic64_read(&zram->stats.table_bytes));
	up_read(&zram->init_lock);
	return ret;
}

/*
 * zram's nine columns, in zram's order and units, then objs_moved: the
 * objects compaction copied to free pages_compacted pages. Each argument
 * names its column: tools/lib/stat-columns lists them for the tools, and
 * scripts/tests/test-stat-columns checks the two agree.
 */
static ssize_t mm_stat_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct zram_ng *zram = zram_ng_dev_to_zram(dev);
	struct zsng_pool_stats pool_stats = {};
	unsigned long mem_used = 0, max_used;
	ssize_t ret;

	down_read(&zram->init_lock);
	if (zram_ng_init_done(zram)) {
		/* the compaction frees have already asked for, if any */
		zsng_pool_settle(zram->mem_pool);
		mem_used = zsng_get_total_pages(zram->mem_pool);
		zsng_pool_stats(zram->mem_pool, &pool_stats);
	}
	max_used = atomic_long_read(&zram->stats.max_used_pages);
	ret = sysfs_emit(buf,
			 "%8llu %8llu %8llu %8lu %8lu %8llu %8lu %8llu %8llu %8lu\n",
			 /* orig_data_size */
			 (u64)atomic64_read(&zram->stats.pages_stored) << PAGE_SHIFT,
			 /* compr_data_size */
			 (u64)atomic64_read(&zram->stats.compr_data_size),
			 /* mem_used_total */ (u64)mem_used << PAGE_SHIFT,
			 /* mem_limit */ READ_ONCE(zram->limit_pages) << PAGE_SHIFT,
			 /* mem_used_max */ max_used << PAGE_SHIFT,
			 /* same_pages */ (u64)atomic64_read(&zram->stats.same_pages),
			 /* pages_compacted */ pool_stats.pages_compacted,
			 /* huge_pages */ (u64)atomic64_read(&zram->stats.huge_pages),
			 /* huge_pages_since */
			 (u64)atomic64_read(&zram->stats.huge_pages_since),
			 /* objs_moved */ pool_stats.objs_moved);
	up_read(&zram->init_lock);
	return ret;
}

static ssize_t debug_stat_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct zram_ng *zram = zram_ng_dev_to_zram(dev);
	ssize_t ret;

	down_read(&zram->init_lock);
	ret = sysfs_emit(buf, "version: %d\n%8llu %8llu\n", 1,
			 (u64)atomic64_read(&zram->stats.writestall),
			 (u64)atomic64_read(&zram->stats.miss_free));
	up_read(&zram->init_lock);
	return ret;
}

static DEVICE_ATTR_RW(disksize);
static DEVICE_ATTR_RO(initstate);
static DEVICE_ATTR_WO(reset);
static DEVICE_ATTR_WO(mem_limit);
static DEVICE_ATTR_WO(mem_used_max);
static DEVICE_ATTR_WO(compact);
static DEVICE_ATTR_RW(comp_algorithm);
static DEVICE_ATTR_RW(max_comp_streams);
static DEVICE_ATTR_RW(allocator_policy);
static DEVICE_ATTR_RO(io_stat);
static DEVICE_ATTR_RO(ng_stat);
static DEVICE_ATTR_RO(mm_stat);
static DEVICE_ATTR_RO(debug_stat);

static struct attribute *zram_ng_disk_attrs[] = {
	/* lifecycle */
	&dev_attr_disksize.attr,
	&dev_attr_initstate.attr,
	&dev_attr_reset.attr,
	/* memory */
	&dev_attr_mem_limit.attr,
	&dev_attr_mem_used_max.attr,
	&dev_attr_compact.attr,
	/* configuration */
	&dev_attr_comp_algorithm.attr,
	&dev_attr_max_comp_streams.attr,
	&dev_attr_allocator_policy.attr,
	/* statistics */
	&dev_attr_io_stat.attr,
	&dev_attr_ng_stat.attr,
	&dev_attr_mm_stat.attr,
	&dev_attr_debug_stat.attr,
	NULL,
};

const struct attribute_group zram_ng_disk_group = {
	.attrs = zram_ng_disk_attrs,
};

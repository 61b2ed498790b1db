/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zsmalloc_ng: what the C++ allocator core and its C users must agree on.
 *
 * The one boundary header. The C++ core (zsmalloc_ng/core/), the kernel
 * glue (zsmalloc_ng/kernel/), the kernel API (zsmalloc_ng.h), the userspace
 * build, the tests, the fuzzer and the benchmark all include it; nothing
 * here is written down a second time. Plain C with no includes, so that the
 * freestanding C++ core can include it too. The C++ side pins its own enums
 * and structs to these with static_assert (core/policy.hpp, core/pool.hpp),
 * the kernel side its errno values with BUILD_BUG_ON (kernel/main.c).
 */
#ifndef _ZSMALLOC_NG_ABI_H
#define _ZSMALLOC_NG_ABI_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Fullness grouping + compaction policy of a pool. The numeric values are
 * ABI for the module parameter and the debugfs files: only append. Adding
 * one is this enumerator, its name in core/policy.cpp's table and a case in
 * core/policy.hpp's switches: the compiler reports each one missing.
 */
enum zsng_policy {
	ZSNG_POLICY_LEGACY,		/* 6.1: 4 groups, 6.1 compaction loop */
	ZSNG_POLICY_LEGACY_GROUPS,	/* 4 groups, reworked compaction */
	ZSNG_POLICY_RATIO,		/* 12 in-use ratio groups, reworked */
	ZSNG_POLICY_EXACT,		/* one group per in-use count, reworked */
	ZSNG_POLICY_NR,
	ZSNG_POLICY_DEFAULT = -1,	/* the module parameter's choice */
};

enum zsng_mapmode {
	ZSNG_MM_RW,	/* read and write */
	ZSNG_MM_RO,	/* read only: nothing is written back on unmap */
	ZSNG_MM_WO,	/* write only: the old contents are not copied in */
};

/*
 * Fullness-group columns shown in the statistics and debugfs: the four
 * groups of Linux 6.1 (legacy, legacy-groups) or the twelve in-use ratio
 * columns (ratio, and exact summarised as ratio).
 */
#define ZSNG_LEGACY_GROUPS 4
#define ZSNG_RATIO_GROUPS 12
#define ZSNG_MAX_SHOWN_GROUPS ZSNG_RATIO_GROUPS

/*
 * Pages per zspage at most (the max_pages_per_zspage module parameter):
 * upstream chains were 4 pages until 6.2 and are 8 since 6.3; 16 is
 * CONFIG_ZSMALLOC_CHAIN_SIZE's maximum.
 */
#define ZSNG_MIN_CHAIN_PAGES 4
#define ZSNG_DEFAULT_CHAIN_PAGES 8
#define ZSNG_MAX_CHAIN_PAGES 16

/*
 * Errors the core returns (negated, or as an unsigned long handle), with
 * Linux's errno values.
 */
#define ZSNG_EAGAIN 11
#define ZSNG_ENOMEM 12
#define ZSNG_EBUSY 16
#define ZSNG_EINVAL 22
#define ZSNG_MAX_ERRNO 4095

/* A handle that is an error value (-4095..-1), as IS_ERR_VALUE() says. */
static inline int zsng_is_error(unsigned long handle)
{
	return handle >= (unsigned long)-ZSNG_MAX_ERRNO;
}

/*
 * Pool creation flags.
 * ZSNG_POOL_MOVABLE: the zspage pages are allocated with the caller's
 *   __GFP_MOVABLE and the kernel's page migration may move them (the
 *   protocol is in core/migrate.cpp).
 * ZSNG_POOL_LRU: the zspages are kept in the order of their last
 *   allocation, and zsng_core_reclaim() evicts the oldest one's objects
 *   through a callback (zswap's writeback; core/lru.cpp).
 * ZSNG_POOL_AUTO_COMPACT: the pool compacts itself, in a work item, when a
 *   free leaves a class with ZSNG_AUTO_COMPACT_MIN_PAGES pages to gain and
 *   at least 1/ZSNG_AUTO_COMPACT_RATIO of its pages, or (checked every
 *   ZSNG_AUTO_COMPACT_CHECK_FREES frees of a class) the whole pool with
 *   ZSNG_AUTO_COMPACT_POOL_MIN_PAGES to gain and 1/RATIO of its pages: for
 *   users that never call compact (zswap) and for zram_ng's devices, whose
 *   memory after frees must not stay above the stock zram's. The run waits
 *   for the frees to settle: ZSNG_AUTO_COMPACT_SETTLE_MS after the last
 *   free that found it due, ZSNG_AUTO_COMPACT_MAX_DEFER_MS after the first
 *   at the latest (core/compaction.cpp says why).
 * ZSNG_POOL_GROWING_CHAINS: a size class takes zspages of at most
 *   ZSNG_MIN_CHAIN_PAGES pages (6.1 zsmalloc's geometry) until it holds
 *   enough objects for the longer chain's better packing to pay for its
 *   longer tail (core/size_class.hpp); then zspages of up to the pool's
 *   chain length.
 * ZSNG_POOL_BORROW_SLOTS: an object whose class has no free slot takes one
 *   of a larger class of the same short geometry (the classes 6.1's
 *   zsmalloc merges into one) that has, before a zspage is allocated for
 *   it: neighbouring classes share their partly filled zspages
 *   (core/pool.cpp, "Borrowed slots").
 * ZSNG_POOL_LEAST_WASTE: a class's (long) chain is the length that leaves
 *   the fewest bytes unused, one page for a power of two (the rule of
 *   6.3's and later zsmalloc), not the largest used percentage (6.1's):
 *   the pool's classes are then the kernel's own zsmalloc's on 6.3+
 *   (core/size_class.hpp).
 */
#define ZSNG_POOL_MOVABLE 0x1u
#define ZSNG_POOL_LRU 0x2u
#define ZSNG_POOL_AUTO_COMPACT 0x4u
#define ZSNG_POOL_GROWING_CHAINS 0x8u
#define ZSNG_POOL_BORROW_SLOTS 0x10u
#define ZSNG_POOL_LEAST_WASTE 0x20u
#define ZSNG_POOL_FLAGS (ZSNG_POOL_MOVABLE | ZSNG_POOL_LRU | \
			 ZSNG_POOL_AUTO_COMPACT | ZSNG_POOL_GROWING_CHAINS | \
			 ZSNG_POOL_BORROW_SLOTS | ZSNG_POOL_LEAST_WASTE)
#define ZSNG_AUTO_COMPACT_MIN_PAGES 16
#define ZSNG_AUTO_COMPACT_RATIO 8
#define ZSNG_AUTO_COMPACT_CHECK_FREES 16
#define ZSNG_AUTO_COMPACT_POOL_MIN_PAGES 4
#define ZSNG_AUTO_COMPACT_SETTLE_MS 250
#define ZSNG_AUTO_COMPACT_MAX_DEFER_MS 5000

/* A pool's counters; the core fills it, the kernel API hands it on. */
struct zsng_pool_stats {
	unsigned long pages_compacted;	/* pages freed by compaction */
	unsigned long objs_moved;	/* objects copied by compaction */
	unsigned long pages_used;	/* pages held by zspages now */
	unsigned long objs_allocated;	/* object slots in all zspages */
	unsigned long objs_used;	/* slots holding a live object */
	unsigned long pages_migrated;	/* pages the kernel's migration moved */
	unsigned long migrate_refused;	/* migrations refused: busy */
	unsigned long frees_deferred;	/* zspages freed later: a page locked */
	unsigned long pages_deferred;	/* pages waiting for that now */
	unsigned int movable;		/* ZSNG_POOL_MOVABLE was given */
	unsigned int flags;		/* ZSNG_POOL_* it was created with */
	unsigned long auto_compactions; /* runs ZSNG_POOL_AUTO_COMPACT started */
	unsigned long objs_evicted;	/* evict callbacks that succeeded */
	unsigned long evict_failed;	/* ... and that failed */
	unsigned long pages_reclaimed;	/* pages freed by zsng_core_reclaim() */
	unsigned long slots_borrowed;	/* objects put in a larger class's slot */
};

/* One size class, as debugfs's classes table and the tests see it. */
struct zsng_class_stats {
	unsigned int size;
	unsigned int pages_per_zspage;
	unsigned int objs_per_zspage;
	unsigned int nr_groups;	/* columns used in groups[] */
	unsigned long groups[ZSNG_MAX_SHOWN_GROUPS];
	unsigned long obj_allocated;
	unsigned long obj_used;
	unsigned long pages_used;
	unsigned long freeable;	/* pages compaction could free now */
	unsigned long objs_moved;
	unsigned long pages_compacted;
	int huge;
	/*
	 * ZSNG_POOL_GROWING_CHAINS: a short zspage's pages and the objects
	 * in use from which new zspages are long (0: always long)
	 */
	unsigned int short_pages_per_zspage;
	unsigned long long_after;
};

#ifdef __cplusplus
}
#endif

#endif /* _ZSMALLOC_NG_ABI_H */

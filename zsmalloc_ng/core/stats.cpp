// SPDX-License-Identifier: GPL-2.0
/*
 * Statistics.
 *
 * Per class: the zspages per shown group column (exact is summarised in
 * ratio's columns), objects allocated and used, pages, what compaction
 * could free now (can_compact(), the one definition the shrinker and
 * compaction use too), objs_moved and pages_compacted. The structs are the
 * boundary header's (zsmalloc_ng_abi.h), filled in place. Pool totals of
 * pages are kept as relaxed counters, so total_pages() takes no lock;
 * stats() takes each class's lock in turn, so its sums are of moments a
 * little apart on a busy pool. The consistency checker is in check.cpp.
 */
#include "pool_internal.hpp"

namespace zsng
{
void Pool::class_stats(u32 idx, ClassStats *out)
{
	SizeClass *c = &classes_[idx];

	zsng_svc_lock(c->lock);
	out->size = c->size;
	out->pages_per_zspage = c->pages_per_zspage;
	out->objs_per_zspage = c->objs_per_zspage;
	out->huge = c->huge;
	out->short_pages_per_zspage = c->short_pages;
	out->long_after = c->long_after;
	out->nr_groups = nr_shown_groups(policy_);
	for (u32 g = 0; g < kMaxShownGroups; g++)
		out->groups[g] = g < out->nr_groups ? c->group_count[g] : 0;
	out->obj_allocated = c->objs_allocated;
	out->obj_used = c->obj_used;
	out->pages_used = c->pages_allocated;
	out->freeable = c->can_compact();
	out->objs_moved = c->objs_moved;
	out->pages_compacted = c->pages_compacted;
	zsng_svc_unlock(c->lock);
}

void Pool::stats(PoolStats *out)
{
	out->pages_compacted = read_once(pages_compacted_);
	out->objs_moved = read_once(objs_moved_);
	out->pages_used = read_once(pages_used_);
	out->objs_allocated = 0;
	out->objs_used = 0;
	out->movable = movable_;
	out->flags = flags_;
	out->auto_compactions = read_once(auto_compactions_);
	out->slots_borrowed = read_once(slots_borrowed_);
	out->pages_migrated = read_once(pages_migrated_);
	out->migrate_refused = read_once(migrate_refused_);
	out->objs_evicted = 0;
	out->evict_failed = 0;
	out->pages_reclaimed = 0;
	if (lru_) {
		zsng_svc_lock(lru_lock_);
		out->objs_evicted = objs_evicted_;
		out->evict_failed = evict_failed_;
		out->pages_reclaimed = pages_reclaimed_;
		zsng_svc_unlock(lru_lock_);
	}
	out->frees_deferred = 0;
	out->pages_deferred = 0;
	if (movable_) {
		zsng_svc_lock(deferred_lock_);
		out->frees_deferred = frees_deferred_;
		out->pages_deferred = pages_deferred_;
		zsng_svc_unlock(deferred_lock_);
	}
	for (u32 i = 0; i < nr_classes_; i++) {
		SizeClass *c = &classes_[i];

		zsng_svc_lock(c->lock);
		out->objs_allocated += c->objs_allocated;
		out->objs_used += c->obj_used;
		zsng_svc_unlock(c->lock);
	}
}
} // namespace zsng

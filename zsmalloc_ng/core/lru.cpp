// SPDX-License-Identifier: GPL-2.0
/*
 * What a zpool user such as zswap needs and zram does not: an LRU of
 * zspages with reclaim through an evict callback (ZSNG_POOL_LRU). A pool
 * that compacts itself (ZSNG_POOL_AUTO_COMPACT) is compaction.cpp's.
 *
 * An LRU pool's zspage descriptors carry an LruLink after their page
 * addresses; pools without the flag allocate no such bytes and pay one
 * test of a bool per malloc and free. Every allocation moves its zspage
 * to the head of the pool's LRU list, so the tail is the zspage whose
 * newest object is the oldest: the one to write back first. That is the
 * order of zbud (per page) and of zsmalloc since 6.2 (per zspage).
 * Compaction does not reorder: a moved object keeps no age.
 *
 * reclaim(evict, ctx) takes the tail zspage off its group list and off the
 * LRU (onto reclaiming_; LruLink::reclaiming set), so no malloc and no
 * compaction touches it, and calls evict(ctx, handle) for each allocated
 * object, without the LRU lock: the callback writes the object back and
 * frees its handle (zswap's does, through zpool_free()). Then the zspage
 * is freed if it is empty, or listed again at the head of the LRU: -EAGAIN
 * after kReclaimTries such zspages.
 *
 * Frees during reclaim
 *
 * A handle's owner may free it at any time, also while or just before
 * evict() runs on it: zswap invalidates swap entries independently of
 * writeback. evict() must still be able to map that handle and read what
 * it held, to find out that it is stale (zbud leaves a freed buddy's bytes
 * in place during reclaim for the same reason). So free() of an object of
 * a reclaiming zspage puts the slot on the zspage's free list (no malloc
 * takes it: the zspage is on no list), which rewrites only the header
 * word, never the caller's bytes; it never frees the zspage; and if the
 * handle is the one being evicted it does not give the handle slot back:
 * reclaim does, after evict() returns. A handle passed to evict() thus
 * maps to its bytes until evict() returns, however it is freed.
 *
 * Locks: the LRU orders zspages of every class, and reclaim goes from the
 * list to a zspage and its class, so an LRU pool has one lock, lru_lock_,
 * which is also every class's lock (pool.hpp, "Locks"): what reclaim
 * touches is under it. evict() may sleep and takes its caller's locks
 * (zswap's tree lock), under which it frees handles, that is takes that
 * lock; so it is never held across evict().
 */
#include "pool_internal.hpp"

namespace zsng
{
/* Zspages reclaim() tries before it gives up: zbud's and zsmalloc's 8. */
constexpr u32 kReclaimTries = 8;

/* LRU lock (the class lock) held: @zs has just been allocated from. */
void Pool::lru_touch(Zspage *zs)
{
	ListNode *n = &lru_link(zs)->node;

	n->del();
	lru_list_.add(n);
}

/* LRU lock held: the LRU tail, taken off every list, or nullptr. */
Zspage *Pool::lru_take()
{
	LruLink *l;
	SizeClass *c;

	if (lru_list_.empty())
		return nullptr;
	l = lru_link_of(lru_list_.prev);
	c = &classes_[l->zs->class_idx];
	l->node.del();
	reclaiming_.add(&l->node);
	l->reclaiming = true;
	c->remove(l->zs);
	pages_reclaiming_ += l->zs->nr_pages;
	return l->zs;
}

/* Evicts what @zs holds; returns the pages freed or -ZSNG_EAGAIN. */
long Pool::reclaim_zspage(Zspage *zs, EvictFn evict, void *ctx)
{
	SizeClass *c = &classes_[zs->class_idx];
	LruLink *l = lru_link(zs);
	ListNode release;
	long ret = 0;

	release.init();
	u32 pages = zs->nr_pages;

	for (u32 idx = 0; idx < zs->nr_objs && !ret; idx++) {
		HandleSlot *slot;
		bool freed;

		zsng_svc_lock(lru_lock_);
		slot = c->alloced_slot(zs, idx);
		l->evicting = slot;
		l->evict_freed = false;
		zsng_svc_unlock(lru_lock_);
		if (!slot)
			continue;

		ret = evict(ctx, reinterpret_cast<ulong>(slot));

		zsng_svc_lock(lru_lock_);
		freed = l->evict_freed;
		l->evicting = nullptr;
		if (ret)
			evict_failed_++;
		else
			objs_evicted_++;
		zsng_svc_unlock(lru_lock_);
		if (freed)
			zsng_svc_slot_free(slot);
		zsng_svc_cond_resched();
	}

	zsng_svc_lock(lru_lock_);
	l->node.del();
	l->reclaiming = false;
	pages_reclaiming_ -= pages;
	if (zs->inuse == 0) {
		free_zspage(c, zs, &release);
		pages_reclaimed_ += pages;
		ret = pages;
	} else {
		/* A failed or refused eviction: the newest again, so not
		 * the next one tried. */
		c->insert(zs);
		lru_list_.add(&l->node);
		ret = -ZSNG_EAGAIN;
	}
	zsng_svc_unlock(lru_lock_);
	release_list(c, &release);
	return ret;
}

long Pool::reclaim(EvictFn evict, void *ctx)
{
	long ret = -ZSNG_EINVAL;

	if (!lru_ || !evict)
		return -ZSNG_EINVAL;
	for (u32 tries = 0; tries < kReclaimTries; tries++) {
		Zspage *zs;

		zsng_svc_lock(lru_lock_);
		zs = lru_take();
		zsng_svc_unlock(lru_lock_);
		if (!zs)
			return ret;
		ret = reclaim_zspage(zs, evict, ctx);
		if (ret > 0)
			return ret;
	}
	return ret;
}

} // namespace zsng

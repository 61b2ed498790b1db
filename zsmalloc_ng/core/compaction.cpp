// SPDX-License-Identifier: GPL-2.0
/*
 * Compaction: one at a time per pool, class by class, largest first (they
 * free most per move), each class under its lock, yielding it when it is
 * contended. The zspages it empties are given back each time it yields and
 * at the end of the class, without the lock (release_list()).
 *
 *   reworked (all policies but legacy): while a zspage's worth of slots is
 *   free: keep one destination, isolated from the fullest non-full group,
 *   until it is full; take each source from the emptiest group; move
 *   objects until the source is empty (free it) or the destination is full.
 *   legacy: 6.1's loop: isolate a source, then a destination for every
 *   batch, putting both back after each source.
 *
 * Both end a source the same way (release_src()) and yield the same way
 * (yield_lock()). A source's mappers are waited for (wait_unmapped())
 * before its objects move: new mappers need the class lock, which
 * compaction holds, and existing ones do not sleep. Destinations need no
 * wait: a mapper only touches its own object's bytes, never the free slots
 * compaction writes to.
 *
 * objs_moved counts one per object copy, pages_compacted the pages of every
 * zspage compaction freed, per class and per pool.
 *
 * can_compact() is also the shrinker's count (compactable_pages()), which
 * takes no lock: it reads the two counters as relaxed atomics (their
 * writers hold the class lock and store them with set_once()), so it may
 * see one a moment older than the other; the result is clamped at 0 and
 * is a hint either way.
 *
 * Self-compaction (ZSNG_POOL_AUTO_COMPACT)
 *
 * After a free, if the object's class has at least
 * ZSNG_AUTO_COMPACT_MIN_PAGES pages to gain (16: two 8-page zspages, 64
 * KiB) and at least 1/ZSNG_AUTO_COMPACT_RATIO (1/8) of its pages, a work
 * item compacts the pool. The minimum keeps a small pool from compacting
 * for a page's gain; the ratio bounds the waste to an eighth of a class
 * plus the minimum, and keeps the cost in proportion: a class must lose
 * another eighth of its objects before it is compacted again, so the
 * objects moved are at most about 8x those freed (in practice far fewer:
 * the emptiest sources go first). The kernel's shrinker still compacts
 * under memory pressure whatever the threshold says.
 *
 * The run waits for the frees to settle (kick_auto_compact()): it starts
 * ZSNG_AUTO_COMPACT_SETTLE_MS (250) after the last free that found the
 * pool due, and at the latest ZSNG_AUTO_COMPACT_MAX_DEFER_MS (5 s) after
 * the first. Frees come in bursts (a process swapping itself back in, an
 * exit, a discard): compacting in the middle of one copies objects that
 * the rest of the burst frees anyway, and takes class locks and a CPU
 * from the reads that cause the frees, the slowest of which then wait
 * for it. A quarter of a second without a due free is the end of a
 * burst: faster than any swap-in storm, slower than a tick (4 ms). The
 * bound keeps a steady stream of frees from deferring it for ever; the
 * memory it holds for those seconds is what the stock zram, which never
 * compacts by itself, holds until someone writes to compact. A reader of
 * the pool's figures (mm_stat, settle()) runs a pending compaction at
 * once.
 */
#include "pool_internal.hpp"

namespace zsng
{
/*
 * Pages that freeing every whole zspage's worth of free slots would give.
 * With growing chains (size_class.hpp) a class may mix short and long
 * zspages; "a zspage" is then a long one as soon as the class has one
 * (more slots than all-short zspages would have): free slots that fill
 * no long zspage may be holes in the one long zspage compaction would
 * fill, and freeing them gains nothing.
 */
ulong SizeClass::can_compact() const
{
	ulong nr_zspages = read_once(zspages);
	ulong allocated = read_once(objs_allocated);
	ulong used = read_once(obj_used);
	bool has_long = allocated > nr_zspages * short_objs;
	u32 objs = has_long ? objs_per_zspage : short_objs;
	u32 pages = has_long ? pages_per_zspage : short_pages;

	if (allocated <= used)
		return 0;
	return (allocated - used) / objs * pages;
}

void Pool::wait_unmapped(Zspage *zs)
{
	while (__atomic_load_n(&zs->mapcount, __ATOMIC_ACQUIRE))
		zsng_svc_cpu_relax();
}

static void object_copy(const SizeClass *c, Zspage *dst, u32 didx, Zspage *src,
			u32 sidx)
{
	ulong s = (ulong)sidx * c->size, d = (ulong)didx * c->size;
	ulong len = c->size;

	while (len) {
		ulong soff = s & (kPageSize - 1), doff = d & (kPageSize - 1);
		ulong n =
			min_of(len, min_of(kPageSize - soff, kPageSize - doff));

		__builtin_memcpy(
			static_cast<char *>(dst->pages[d >> kPageShift]) + doff,
			static_cast<char *>(src->pages[s >> kPageShift]) + soff,
			n);
		s += n;
		d += n;
		len -= n;
	}
}

void Pool::move_object(SizeClass *c, Zspage *src, u32 idx, Zspage *dst)
{
	HandleSlot *slot = c->alloced_slot(src, idx);
	u32 didx = c->obj_malloc(dst, slot);

	/* The header travels too: it already names the same slot. */
	object_copy(c, dst, didx, src, idx);
	c->obj_free(src, idx);
	c->objs_moved++;
	add_relaxed(objs_moved_, 1);
}

/* Lists a source again after its moves, or frees it: the pages freed. */
ulong Pool::release_src(SizeClass *c, Zspage *src, ListNode *release)
{
	u32 pages = src->nr_pages;

	if (c->putback(src) != 0)
		return 0;
	free_zspage(c, src, release);
	return pages;
}

/* Lets the class's other users in, and gives back what was freed. */
void Pool::yield_lock(SizeClass *c, ListNode *release)
{
	zsng_svc_unlock(c->lock);
	release_list(c, release);
	zsng_svc_cond_resched();
	zsng_svc_lock(c->lock);
}

/*
 * Called and returns with the class lock held; the pages freed (some of
 * them perhaps still on @release).
 */
ulong Pool::compact_reworked(SizeClass *c, ListNode *release)
{
	Zspage *dst = nullptr;
	ulong freed = 0;

	while (c->can_compact()) {
		Zspage *src;

		if (!dst) {
			dst = c->isolate_dst();
			if (!dst)
				break;
		}
		src = c->isolate_src();
		if (!src)
			break;
		wait_unmapped(src);
		for (u32 idx = 0; src->inuse && dst->inuse < dst->nr_objs;
		     idx++) {
			if (c->alloced_slot(src, idx))
				move_object(c, src, idx, dst);
		}
		freed += release_src(c, src, release);
		if (dst->inuse == dst->nr_objs ||
		    zsng_svc_lock_contended(c->lock)) {
			c->putback(dst);
			dst = nullptr;
			yield_lock(c, release);
		}
	}
	if (dst)
		c->putback(dst);
	return freed;
}

/* Linux 6.1's __zs_compact(), kept for A/B measurements; as above. */
ulong Pool::compact_legacy(SizeClass *c, ListNode *release)
{
	Zspage *src, *dst = nullptr;
	ulong freed = 0;

	while ((src = c->isolate_src())) {
		u32 cursor = 0;

		wait_unmapped(src);
		if (!c->can_compact())
			break;
		while ((dst = c->isolate_dst())) {
			bool exhausted = true;

			for (; cursor < src->nr_objs; cursor++) {
				if (!c->alloced_slot(src, cursor))
					continue;
				if (dst->inuse == dst->nr_objs) {
					exhausted = false;
					break;
				}
				move_object(c, src, cursor, dst);
			}
			if (exhausted)
				break;
			c->putback(dst);
			dst = nullptr;
			if (zsng_svc_lock_contended(c->lock))
				break;
		}
		if (!dst)
			break;
		c->putback(dst);
		dst = nullptr;
		freed += release_src(c, src, release);
		src = nullptr;
		yield_lock(c, release);
	}
	if (src)
		c->putback(src);
	return freed;
}

/* Compacts classes [@lo, @hi), largest first. */
ulong Pool::compact_range(u32 lo, u32 hi)
{
	ulong freed = 0;

	/* One compaction per pool at a time; a second caller just returns. */
	if (__atomic_exchange_n(&compacting_, 1, __ATOMIC_ACQUIRE))
		return 0;
	for (u32 i = hi; i-- > lo;) {
		SizeClass *c = &classes_[i];
		ListNode release;
		ulong n;

		if (c->huge)
			continue;
		release.init();
		zsng_svc_lock(c->lock);
		n = uses_legacy_compaction(policy_) ?
			    compact_legacy(c, &release) :
			    compact_reworked(c, &release);
		c->pages_compacted += n;
		zsng_svc_unlock(c->lock);
		release_list(c, &release);
		freed += n;
	}
	add_relaxed(pages_compacted_, (long)freed);
	__atomic_store_n(&compacting_, 0, __ATOMIC_RELEASE);
	return freed;
}

ulong Pool::compact_class(u32 class_idx)
{
	if (class_idx >= nr_classes_)
		return 0;
	return compact_range(class_idx, class_idx + 1);
}

ulong Pool::compact()
{
	return compact_range(0, nr_classes_);
}

/* The shrinker's count: no lock (see can_compact()). */
ulong Pool::compactable_pages()
{
	ulong pages = 0;

	for (u32 i = 0; i < nr_classes_; i++)
		pages += classes_[i].can_compact();
	return pages;
}

/*
 * Class lock held, after a free from class @c: due when the class alone
 * has ZSNG_AUTO_COMPACT_MIN_PAGES pages to gain and 1/RATIO of its pages.
 * Every ZSNG_AUTO_COMPACT_CHECK_FREES frees of a class it also asks for
 * the pool-wide check (*@check_pool), which the caller makes after the
 * unlock: a small pool spreads over many classes of a few pages each, none
 * of which reaches the minimum, while together they hold far more than
 * the stock zsmalloc, whose short zspages empty more often under random
 * frees.
 */
bool Pool::auto_compact_due(SizeClass *c, bool *check_pool)
{
	ulong gain = c->can_compact();

	if (gain >= ZSNG_AUTO_COMPACT_MIN_PAGES &&
	    gain * ZSNG_AUTO_COMPACT_RATIO >= c->pages_allocated)
		return true;
	if (++c->frees_unchecked >= ZSNG_AUTO_COMPACT_CHECK_FREES) {
		c->frees_unchecked = 0;
		*check_pool = true;
	}
	return false;
}

/*
 * No lock: the shrinker's lockless count over every class (a few hundred
 * relaxed loads) against the pool's pages. Due at 1/RATIO of the pool and
 * at least ZSNG_AUTO_COMPACT_POOL_MIN_PAGES.
 */
bool Pool::auto_compact_pool_due()
{
	ulong gain = compactable_pages();

	return gain >= ZSNG_AUTO_COMPACT_POOL_MIN_PAGES &&
	       gain * ZSNG_AUTO_COMPACT_RATIO >= read_once(pages_used_);
}

void Pool::settle()
{
	if (compact_work_)
		zsng_svc_work_flush(compact_work_);
}

/*
 * No lock, any context, after a free found the pool due. The first due
 * free of a burst stamps compact_due_since_; each one (up to one a
 * SETTLE_MS / 8: a timer is not rearmed for every free) moves the run to
 * SETTLE_MS from now, until MAX_DEFER_MS after the first, when the run
 * keeps the time it has, at most SETTLE_MS away. The run clears both
 * stamps before it compacts: a free that still read the old ones was made
 * before, and that compaction sees it.
 */
void Pool::kick_auto_compact()
{
	u64 now = zsng_svc_now_ms();
	u64 since = __atomic_load_n(&compact_due_since_, __ATOMIC_ACQUIRE);
	u64 last = __atomic_load_n(&compact_deferred_at_, __ATOMIC_ACQUIRE);

	if (!since) {
		since = now;
		__atomic_store_n(&compact_due_since_, now, __ATOMIC_RELEASE);
	}
	if (now - since >= ZSNG_AUTO_COMPACT_MAX_DEFER_MS)
		return;
	if (last && now - last < ZSNG_AUTO_COMPACT_SETTLE_MS / 8)
		return;
	__atomic_store_n(&compact_deferred_at_, now, __ATOMIC_RELEASE);
	zsng_svc_work_defer(compact_work_, ZSNG_AUTO_COMPACT_SETTLE_MS);
}

void Pool::run_auto_compact(void *arg)
{
	Pool *pool = static_cast<Pool *>(arg);

	__atomic_store_n(&pool->compact_due_since_, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&pool->compact_deferred_at_, 0, __ATOMIC_SEQ_CST);
	add_relaxed(pool->auto_compactions_, 1);
	pool->compact();
}

} // namespace zsng

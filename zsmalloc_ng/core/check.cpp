// SPDX-License-Identifier: GPL-2.0
/*
 * What only tests call: the consistency checker and the experiment's
 * oracle (class_inuse_counts()). In the kernel, the testing build's only
 * (make ZSNG_TESTING=1, Kbuild), as the experiment and the self-check that
 * call it: the product module has none of it. The userspace build always
 * has it (the unit tests, the fuzzer, zsng_replay).
 *
 * check_consistency() walks every list, each class under its lock, and
 * checks each invariant the rest of the core relies on; the tests, the
 * fuzzer and the experiment call it after every step that could break
 * one. Its pool-wide totals hold only while nothing else runs in the
 * pool: it is a test's tool.
 */
#include "zsng_core.h"
#include "pool_internal.hpp"

namespace zsng
{
u32 Pool::class_inuse_counts(u32 idx, u32 *out, u32 max)
{
	SizeClass *c = &classes_[idx];
	u32 n = 0;

	zsng_svc_lock(c->lock);
	for (u32 g = 0; g < c->nr_groups; g++) {
		for (ListNode *p = c->groups[g].next; p != &c->groups[g];
		     p = p->next) {
			if (n < max)
				out[n] = zspage_of(p)->inuse;
			n++;
		}
	}
	zsng_svc_unlock(c->lock);
	return n;
}

#define CHECK(cond)                          \
	do {                                 \
		if (ZSNG_WARN_ON(!(cond))) { \
			ok = false;          \
			goto out;            \
		}                            \
	} while (0)

/*
 * Class lock held: @c's lists, descriptors and counters. Adds the class's
 * pages, listed zspages and reclaiming pages to @t.
 */
bool Pool::check_class(SizeClass *c, u32 i, CheckTotals *t)
{
	bool ok = true;
	ulong zspages = 0, used = 0, objs = 0, pages = 0;
	ulong shown[kMaxShownGroups] = {};

	for (u32 g = 0; g < c->nr_groups; g++) {
		bool bit = Bitmap::find_first(c->nonempty, g, g) >= 0;

		CHECK(bit == !c->groups[g].empty());
		for (ListNode *p = c->groups[g].next; p != &c->groups[g];
		     p = p->next) {
			Zspage *zs = zspage_of(p);
			u32 alloced = 0, free_len = 0;

			CHECK(!zs->isolated && zs->group == g);
			/* the class's long geometry or, growing, its short */
			CHECK((zs->nr_pages == c->pages_per_zspage &&
			       zs->nr_objs == c->objs_per_zspage) ||
			      (zs->nr_pages == c->short_pages &&
			       zs->nr_objs == c->short_objs));
			CHECK(g == group_of_zspage(c, zs).group);
			CHECK(zs->inuse > 0 && zs->inuse <= zs->nr_objs);
			CHECK(zs->class_idx == i);
			for (u32 idx = 0; idx < zs->nr_objs; idx++) {
				HandleSlot *s = c->alloced_slot(zs, idx);

				if (!s)
					continue;
				CHECK(s->zspage == zs && s->idx == idx &&
				      s->class_idx == i);
				/* its own class, or a borrower of its run */
				CHECK(s->origin_idx == i ||
				      (s->origin_idx < i &&
				       classes_[s->origin_idx].borrow_last >=
					       i));
				alloced++;
			}
			CHECK(alloced == zs->inuse);
			if (!c->huge) {
				for (u32 f = zs->freeobj; f != kNoObj;
				     f = (u32)(*obj_header(c, zs, f) >> 1)) {
					CHECK(f < zs->nr_objs);
					CHECK(!c->alloced_slot(zs, f));
					CHECK(++free_len <= zs->nr_objs);
				}
				CHECK(free_len + alloced == zs->nr_objs);
			}
			zspages++;
			used += zs->inuse;
			objs += zs->nr_objs;
			pages += zs->nr_pages;
			shown[zs->shown]++;
		}
	}
	t->lru_listed += zspages;
	/*
	 * Reclaim holds zspages on no group list (lru.cpp); only an LRU
	 * pool has any, and its class lock is the LRU lock.
	 */
	for (ListNode *p = reclaiming_.next; p != &reclaiming_; p = p->next) {
		Zspage *zs = lru_link_of(p)->zs;

		if (zs->class_idx != i)
			continue;
		CHECK(lru_link(zs)->reclaiming);
		zspages++;
		used += zs->inuse;
		objs += zs->nr_objs;
		pages += zs->nr_pages;
		t->reclaiming += zs->nr_pages;
	}
	CHECK(zspages == c->zspages);
	CHECK(used == c->obj_used);
	CHECK(objs == c->objs_allocated && pages == c->pages_allocated);
	for (u32 g = 0; g < kMaxShownGroups; g++)
		CHECK(shown[g] == c->group_count[g]);
	t->pages += pages;
	t->used += used;
	t->demand += c->shares_tails ? read_once(c->demand) : used;
out:
	return ok;
}

/* The deferred list (deferred lock held); false on a bad entry. */
bool Pool::check_deferred(ulong *pages)
{
	bool ok = true;

	*pages = 0;
	for (ListNode *p = deferred_.next; p != &deferred_; p = p->next) {
		Zspage *zs = zspage_of(p);

		CHECK(zs->freeing && !zs->inuse && !zs->mapcount);
		*pages += zs->nr_pages;
	}
	/* free_deferred() counts one off only once it is released. */
	CHECK(*pages <= pages_deferred_);
	*pages = pages_deferred_;
out:
	return ok;
}

/* The LRU (LRU lock held) against the classes' totals in @t. */
bool Pool::check_lru(const CheckTotals *t)
{
	bool ok = true;
	ulong n = 0;

	for (ListNode *p = lru_list_.next; p != &lru_list_; p = p->next) {
		CHECK(!lru_link_of(p)->reclaiming);
		CHECK(++n <= t->lru_listed);
	}
	CHECK(n == t->lru_listed);
	CHECK(t->reclaiming == pages_reclaiming_);
out:
	return ok;
}

bool Pool::check_consistency()
{
	bool ok = true;
	CheckTotals t = {};
	ulong pages_deferred = 0;

	for (u32 i = 0; ok && i < nr_classes_; i++) {
		SizeClass *c = &classes_[i];

		zsng_svc_lock(c->lock);
		ok = check_class(c, i, &t);
		zsng_svc_unlock(c->lock);
	}
	if (ok && movable_) {
		zsng_svc_lock(deferred_lock_);
		ok = check_deferred(&pages_deferred);
		zsng_svc_unlock(deferred_lock_);
	}
	if (ok && lru_) {
		zsng_svc_lock(lru_lock_);
		ok = check_lru(&t);
		zsng_svc_unlock(lru_lock_);
	}
	if (ok) {
		CHECK(t.pages + pages_deferred == read_once(pages_used_));
		/* every object is of one class's sizes (quiescent pool) */
		CHECK(t.demand == t.used);
	}
out:
	return ok;
}
} // namespace zsng

extern "C" int zsng_core_check(struct zsng_core_pool *pool)
{
	zsng::Pool *p = reinterpret_cast<zsng::Pool *>(pool);

	return p->check_consistency() ? 0 : -1;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Fullness groups (the policies are described in policy.hpp).
 *
 * Each class keeps one list of zspages per group of its policy, a bitmap
 * of the groups that are not empty (so the fullest and the emptiest
 * non-empty group are a word scan away, even for exact's objs + 1 groups),
 * the number of zspages per shown stats column, and a table from in-use
 * count to {group, column}: the policies' group functions divide, and
 * every malloc and free asks. A zspage isolated by compaction is on no
 * list; putback() lists it again, or reports it empty so that it is freed.
 */
#include "pool_internal.hpp"

namespace zsng
{
bool init_class_groups(SizeClass *c, const ClassGeometry &geo, Policy policy)
{
	const u32 objs = geo.objs_per_zspage;
	const u32 nr = nr_groups(policy, objs);
	const ulong lists = sizeof(ListNode) * nr;
	const ulong bits = sizeof(u64) * Bitmap::words_for(nr);
	const ulong columns = sizeof(ulong) * kMaxShownGroups;
	const ulong table = sizeof(GroupOf) * (objs + 1);
	const ulong short_table = sizeof(GroupOf) * (geo.short_objs + 1);
	char *mem = static_cast<char *>(zsng_svc_zalloc(
		lists + bits + columns + table + short_table, ZSNG_GFP_KERNEL));

	if (!mem)
		return false;
	c->size = geo.size;
	c->pages_per_zspage = geo.pages_per_zspage;
	c->objs_per_zspage = objs;
	c->huge = geo.huge;
	c->legacy_order = uses_legacy_groups(policy);
	c->short_pages = geo.short_pages;
	c->short_objs = geo.short_objs;
	c->long_after = geo.long_after;
	c->nr_groups = nr;
	c->groups = reinterpret_cast<ListNode *>(mem);
	c->nonempty = reinterpret_cast<u64 *>(mem + lists);
	c->group_count = reinterpret_cast<ulong *>(mem + lists + bits);
	c->group_of_inuse =
		reinterpret_cast<GroupOf *>(mem + lists + bits + columns);
	for (u32 g = 0; g < nr; g++)
		c->groups[g].init();
	c->group_of_short = c->group_of_inuse + objs + 1;
	for (u32 n = 0; n <= objs; n++)
		c->group_of_inuse[n] = { (u16)group_of(policy, n, objs),
					 (u16)shown_group_of(policy, n, objs) };
	/*
	 * A short zspage by its own fill; full is the class's full group
	 * (exact's groups count objects: a short zspage is full before the
	 * count that means full for a long one).
	 */
	for (u32 n = 0; n <= geo.short_objs; n++) {
		u32 g = n == geo.short_objs ?
				nr - 1 :
				group_of(policy, n, geo.short_objs);

		c->group_of_short[n] = {
			(u16)g, (u16)shown_group_of(policy, n, geo.short_objs)
		};
	}
	return true;
}

void free_class_groups(SizeClass *c)
{
	zsng_svc_free(c->groups);
	c->groups = nullptr;
}

void SizeClass::insert(Zspage *zs)
{
	GroupOf g = group_of_zspage(this, zs);
	ListNode *head = &groups[g.group];

	/*
	 * 6.1's "inuse optimisation": a zspage with fewer objects than the
	 * head goes second, so the head stays the fullest for allocation.
	 */
	if (legacy_order && !head->empty() &&
	    zs->inuse < zspage_of(head->next)->inuse)
		head->next->add(&zs->list);
	else
		head->add(&zs->list);
	zs->group = g.group;
	zs->shown = g.shown;
	zs->isolated = false;
	Bitmap::set(nonempty, g.group);
	group_count[zs->shown]++;
}

void SizeClass::remove(Zspage *zs)
{
	zs->list.del();
	if (groups[zs->group].empty())
		Bitmap::clear(nonempty, zs->group);
	group_count[zs->shown]--;
}

/*
 * Called after zs->inuse changed. Moves a listed zspage to the list its new
 * in-use count calls for; returns its group.
 */
u32 SizeClass::fix_group(Zspage *zs)
{
	GroupOf g = group_of_zspage(this, zs);

	if (!zs->isolated && (g.group != zs->group || g.shown != zs->shown)) {
		remove(zs);
		insert(zs);
	}
	return g.group;
}

/* The fullest zspage that is neither empty nor full, still listed. */
Zspage *SizeClass::find_fullest()
{
	int g = Bitmap::find_last(nonempty, 1, nr_groups - 2);

	return g < 0 ? nullptr : zspage_of(groups[g].next);
}

Zspage *SizeClass::isolate_dst()
{
	Zspage *zs = find_fullest();

	if (zs) {
		remove(zs);
		zs->isolated = true;
	}
	return zs;
}

Zspage *SizeClass::isolate_src()
{
	int g = Bitmap::find_first(nonempty, 1, nr_groups - 2);
	Zspage *zs;

	if (g < 0)
		return nullptr;
	zs = zspage_of(groups[g].next);
	remove(zs);
	zs->isolated = true;
	return zs;
}

/* Lists an isolated zspage again; returns its group (0: empty, free it). */
u32 SizeClass::putback(Zspage *zs)
{
	u32 g = group_of_zspage(this, zs).group;

	if (g != 0)
		insert(zs);
	return g;
}

} // namespace zsng

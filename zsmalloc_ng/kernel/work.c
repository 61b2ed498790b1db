// SPDX-License-Identifier: GPL-2.0
/*
 * Deferred work of the service layer (core/svc.h): a delayed workqueue
 * item per user (a movable pool's deferred frees, a pool that compacts
 * itself), run in process context on the system workqueue. kick() queues
 * it with no delay unless it is pending already; defer() is
 * mod_delayed_work(), which moves a pending run. Creation asks
 * fault_inject.c first (testing build), like every allocation of the core.
 */
#include <linux/jiffies.h>
#include <linux/workqueue.h>
#include <linux/lockdep.h>
#include <linux/slab.h>
#include "svc.h"
#include "zsng_internal.h"

struct zsng_work {
	struct delayed_work dwork;
	void (*fn)(void *arg);
	void *arg;
};

static void zsng_work_fn(struct work_struct *work)
{
	struct zsng_work *w = container_of(to_delayed_work(work),
					   struct zsng_work, dwork);

	w->fn(w->arg);
}

/*
 * A lockdep class per kind of item (svc.h), as svc.c gives each lock role
 * one: INIT_WORK() alone would make every item of ours one class.
 */
static struct lock_class_key zsng_work_keys[ZSNG_NR_WORK_ROLES];
static const char *const zsng_work_names[ZSNG_NR_WORK_ROLES] = {
	[ZSNG_WORK_DEFERRED_FREE] = "zsng_deferred_free_work",
	[ZSNG_WORK_AUTO_COMPACT] = "zsng_auto_compact_work",
};

void *zsng_svc_work_create(enum zsng_work_role role,
			   void (*fn)(void *arg), void *arg)
{
	struct zsng_work *w;

	if (WARN_ON_ONCE((unsigned int)role >= ZSNG_NR_WORK_ROLES))
		return NULL;
	if (zsng_should_fail(GFP_KERNEL))
		return NULL;
	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return NULL;
	/*
	 * Without CONFIG_LOCKDEP the work has no lockdep_map, and
	 * lockdep_init_map() is a macro that does not expand its first
	 * argument.
	 */
	INIT_DELAYED_WORK(&w->dwork, zsng_work_fn);
	lockdep_init_map(&w->dwork.work.lockdep_map, zsng_work_names[role],
			 &zsng_work_keys[role], 0);
	w->fn = fn;
	w->arg = arg;
	return w;
}

static struct delayed_work *zsng_dwork(void *work)
{
	return &((struct zsng_work *)work)->dwork;
}

void zsng_svc_work_kick(void *work)
{
	queue_delayed_work(system_wq, zsng_dwork(work), 0);
}

void zsng_svc_work_defer(void *work, unsigned int ms)
{
	mod_delayed_work(system_wq, zsng_dwork(work), msecs_to_jiffies(ms));
}

void zsng_svc_work_flush(void *work)
{
	flush_delayed_work(zsng_dwork(work));
}

void zsng_svc_work_destroy(void *work)
{
	cancel_delayed_work_sync(zsng_dwork(work));
	kfree(work);
}

unsigned long long zsng_svc_now_ms(void)
{
	return jiffies64_to_msecs(get_jiffies_64());
}

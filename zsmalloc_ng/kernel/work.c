// SPDX-License-Identifier: GPL-2.0
/*
 * Deferred work of the service layer (core/svc.h): a workqueue item per
 * user (a pool that compacts itself, ZSNG_POOL_AUTO_COMPACT), run in process
 * context on the system workqueue. Creation asks fault_inject.c first,
 * like every allocation of the core.
 */
#include <linux/workqueue.h>
#include <linux/slab.h>
#include "svc.h"
#include "zsng_internal.h"

struct zsng_work {
	struct work_struct work;
	void (*fn)(void *arg);
	void *arg;
};

static void zsng_work_fn(struct work_struct *work)
{
	struct zsng_work *w = container_of(work, struct zsng_work, work);

	w->fn(w->arg);
}

void *zsng_svc_work_create(void (*fn)(void *arg), void *arg)
{
	struct zsng_work *w;

	if (zsng_should_fail(GFP_KERNEL))
		return NULL;
	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return NULL;
	INIT_WORK(&w->work, zsng_work_fn);
	w->fn = fn;
	w->arg = arg;
	return w;
}

void zsng_svc_work_kick(void *work)
{
	schedule_work(&((struct zsng_work *)work)->work);
}

void zsng_svc_work_flush(void *work)
{
	flush_work(&((struct zsng_work *)work)->work);
}

void zsng_svc_work_destroy(void *work)
{
	cancel_work_sync(&((struct zsng_work *)work)->work);
	kfree(work);
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A shrinker that the compat layer allocates.
 *
 * Linux 6.7 changed how a shrinker is made. Until 6.6 its owner embeds a
 * struct shrinker and calls register_shrinker(s, fmt, ...); since 6.7
 * shrinker_alloc(flags, fmt, ...) allocates it (with ->private_data for the
 * owner), shrinker_register() publishes it, and shrinker_free()
 * unregisters it and frees it after an RCU grace period. Both kernels get
 * the 6.7 shape here: create, private data, destroy.
 */
#ifndef ZSNG_COMPAT_SHRINKER_H
#define ZSNG_COMPAT_SHRINKER_H

#include <linux/shrinker.h>
#include <linux/slab.h>
#include "kernel_version.h"

typedef unsigned long (*compat_shrinker_fn)(struct shrinker *s,
					    struct shrink_control *sc);

#if ZSNG_KERNEL_SINCE(6, 7)

static inline struct shrinker *
compat_shrinker_create(const char *name, compat_shrinker_fn count,
		       compat_shrinker_fn scan, void *private_data)
{
	struct shrinker *s = shrinker_alloc(0, "%s", name);

	if (!s)
		return NULL;
	s->count_objects = count;
	s->scan_objects = scan;
	s->seeks = DEFAULT_SEEKS;
	s->private_data = private_data;
	shrinker_register(s);
	return s;
}

static inline void *compat_shrinker_private(struct shrinker *s)
{
	return s->private_data;
}

static inline void compat_shrinker_destroy(struct shrinker *s)
{
	shrinker_free(s);
}

#else /* until 6.6: embedded and registered by its owner */

struct compat_shrinker {
	struct shrinker shrinker;
	void *private_data;
};

static inline struct shrinker *
compat_shrinker_create(const char *name, compat_shrinker_fn count,
		       compat_shrinker_fn scan, void *private_data)
{
	struct compat_shrinker *cs = kzalloc(sizeof(*cs), GFP_KERNEL);

	if (!cs)
		return NULL;
	cs->shrinker.count_objects = count;
	cs->shrinker.scan_objects = scan;
	cs->shrinker.seeks = DEFAULT_SEEKS;
	cs->private_data = private_data;
	if (register_shrinker(&cs->shrinker, "%s", name)) {
		kfree(cs);
		return NULL;
	}
	return &cs->shrinker;
}

static inline void *compat_shrinker_private(struct shrinker *s)
{
	return container_of(s, struct compat_shrinker, shrinker)->private_data;
}

static inline void compat_shrinker_destroy(struct shrinker *s)
{
	unregister_shrinker(s);
	kfree(container_of(s, struct compat_shrinker, shrinker));
}

#endif

#endif /* ZSNG_COMPAT_SHRINKER_H */

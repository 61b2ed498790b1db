// SPDX-License-Identifier: GPL-2.0
/*
 * The per-CPU map area of the service layer (core/svc.h): a PAGE_SIZE
 * buffer where map() assembles an object that spans two pages, then room
 * for the core's per-mapping state. Its local_lock is the first lock of
 * the core's lock order (core/pool.hpp): taken by map, write and store
 * before the pool lock, it pins the mapper to its CPU until unmap.
 */
#include <linux/percpu.h>
#include <linux/local_lock.h>
#include <linux/slab.h>
#include "svc.h"
#include "zsng_internal.h"

struct zsng_map_area {
	local_lock_t lock;
	char *buf;
};

static DEFINE_PER_CPU(struct zsng_map_area, zsng_map_area) = {
	.lock = INIT_LOCAL_LOCK(lock),
};

void *zsng_svc_map_begin(void)
{
	local_lock(&zsng_map_area.lock);
	return this_cpu_read(zsng_map_area.buf);
}

void *zsng_svc_map_area(void)
{
	return this_cpu_read(zsng_map_area.buf);
}

void zsng_svc_map_end(void)
{
	local_unlock(&zsng_map_area.lock);
}

int zsng_map_area_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		char *buf = kmalloc_node(ZSNG_MAP_AREA_SIZE, GFP_KERNEL,
					 cpu_to_node(cpu));

		if (!buf) {
			zsng_map_area_exit();
			return -ENOMEM;
		}
		per_cpu(zsng_map_area, cpu).buf = buf;
	}
	return 0;
}

void zsng_map_area_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		kfree(per_cpu(zsng_map_area, cpu).buf);
		per_cpu(zsng_map_area, cpu).buf = NULL;
	}
}

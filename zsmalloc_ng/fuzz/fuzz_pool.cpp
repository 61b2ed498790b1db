// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: random operation sequences against a shadow model.
 *
 * The first byte picks the policy (and the chain limit), the second whether
 * the pool is movable (the simulated migrator then moves random pages
 * between operations) and whether it keeps an LRU (op 6|16 then reclaims a
 * zspage through an evict callback that checks and frees each object, and
 * sometimes fails) and whether its chains grow (ZSNG_POOL_GROWING_CHAINS:
 * classes mix short and long zspages) and its classes lend each other
 * slots (ZSNG_POOL_BORROW_SLOTS); then each op is one byte of
 * opcode and a few bytes
 * of argument. The shadow keeps, per
 * live handle, its length and the seed of its contents, so every read,
 * every free and a periodic full sweep check every byte; zsng_core_check()
 * runs every 64 ops and at the end. Allocation failures are injected by
 * the input too; a failed malloc must return -ENOMEM and change nothing.
 */
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "stamp.hpp"
#include "svc.h"
#include "svc_user.h"
#include "zsng_core.h"

namespace
{
struct Obj {
	unsigned long h, len;
	uint32_t seed;
};

struct Input {
	const uint8_t *p;
	size_t n;

	bool empty() const
	{
		return n == 0;
	}
	uint8_t u8()
	{
		if (!n)
			return 0;
		n--;
		return *p++;
	}
	uint16_t u16()
	{
		return (uint16_t)(u8() | u8() << 8);
	}
};

void fill(zsng_core_pool *pool, const Obj &o, enum zsng_mapmode mode)
{
	zsng::stamp_fill(zsng_core_map(pool, o.h, mode), o.len, o.seed);
	zsng_core_unmap(pool, o.h);
}

void verify(zsng_core_pool *pool, const Obj &o)
{
	if (zsng::stamp_first_bad(zsng_core_map(pool, o.h, ZSNG_MM_RO), o.len,
				  o.seed) >= 0)
		__builtin_trap();
	zsng_core_unmap(pool, o.h);
}

/* reclaim()'s callback: every handle it gets must be live in the shadow. */
struct Evict {
	zsng_core_pool *pool;
	std::vector<Obj> *live;
	int fail_at;
	int calls;
};

int evict(void *ctx, unsigned long h)
{
	Evict *e = static_cast<Evict *>(ctx);
	std::vector<Obj> &live = *e->live;
	size_t i = 0;

	while (i < live.size() && live[i].h != h)
		i++;
	if (i == live.size())
		__builtin_trap();
	verify(e->pool, live[i]);
	if (e->calls++ == e->fail_at)
		return -5;
	zsng_core_free(e->pool, h);
	live[i] = live.back();
	live.pop_back();
	return 0;
}

void check(zsng_core_pool *pool)
{
	if (zsng_core_check(pool) != 0 || zsng_user_warnings() != 0)
		__builtin_trap();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Input in{ data, size };
	uint8_t first = in.u8();
	int policy = first % ZSNG_POLICY_NR;
	unsigned int max_pages = ZSNG_MIN_CHAIN_PAGES +
				 (first >> 2) % (ZSNG_MAX_CHAIN_PAGES -
						 ZSNG_MIN_CHAIN_PAGES + 1);
	long pages0 = zsng_user_live_pages(), allocs0 = zsng_user_live_allocs();
	std::vector<Obj> live;
	uint32_t next_seed = 1;
	unsigned int ops = 0;

	uint8_t second = in.u8();
	bool movable = second & 1, lru = second & 2, growing = second & 4;
	bool borrow = second & 8;
	zsng_core_pool *pool = zsng_core_create(
		policy, max_pages,
		(movable ? ZSNG_POOL_MOVABLE : 0) | (lru ? ZSNG_POOL_LRU : 0) |
			(growing ? ZSNG_POOL_GROWING_CHAINS : 0) |
			(borrow ? ZSNG_POOL_BORROW_SLOTS : 0));
	if (!pool)
		__builtin_trap();
	unsigned int nr = zsng_core_nr_classes(pool);

	while (!in.empty() && ops++ < 4096) {
		uint8_t op = in.u8();

		switch (op % 8) {
		case 0:
		case 1: { /* alloc: sizes 0..4097 reach both error paths */
			unsigned long len = in.u16() % 4098;
			uint8_t fail = in.u8();
			Obj o{ 0, len, next_seed++ };

			/* Some allocations run with injection armed. */
			if (fail < 32)
				zsng_user_fail_after(fail % 4);
			/* op & 16: through store(), bytes and all */
			if (op & 16) {
				static unsigned char buf[ZSNG_PAGE_SIZE + 1];

				zsng::stamp_fill(buf, len, o.seed);
				o.h = zsng_core_store(pool, buf, len, 0);
			} else {
				o.h = zsng_core_malloc(pool, len, 0);
			}
			zsng_user_fail_after(-1);
			if (len == 0 || len > ZSNG_PAGE_SIZE) {
				if (o.h != (unsigned long)-ZSNG_EINVAL)
					__builtin_trap();
				break;
			}
			if (o.h == (unsigned long)-ZSNG_ENOMEM) {
				if (fail >= 32)
					__builtin_trap();
				break;
			}
			if (zsng_is_error(o.h))
				__builtin_trap();
			if (op & 16)
				verify(pool, o);
			else
				fill(pool, o, op & 8 ? ZSNG_MM_WO : ZSNG_MM_RW);
			live.push_back(o);
			break;
		}
		case 2: { /* free */
			if (live.empty())
				break;
			size_t i = in.u16() % live.size();

			verify(pool, live[i]);
			zsng_core_free(pool, live[i].h);
			live[i] = live.back();
			live.pop_back();
			break;
		}
		case 3: { /* rewrite in place through RW */
			if (live.empty())
				break;
			Obj &o = live[in.u16() % live.size()];

			verify(pool, o);
			o.seed = next_seed++;
			fill(pool, o, ZSNG_MM_RW);
			break;
		}
		case 4: /* read; op & 16: migrate a page first */
			if (op & 16) {
				bool any = zsng_user_movable_pages() > 0;
				int r = zsng_user_migrate_one(in.u16(),
							      op & 32);

				/* Single-threaded: nothing is ever busy. */
				if (any != (movable && !live.empty()) ||
				    r != (any ? ZSNG_USER_MIGRATED :
						ZSNG_USER_NOT_MOVABLE))
					__builtin_trap();
			}
			if (!live.empty())
				verify(pool, live[in.u16() % live.size()]);
			break;
		case 5: { /* compact everything */
			unsigned long can = zsng_core_compactable_pages(pool);
			unsigned long before = zsng_core_total_pages(pool);
			unsigned long freed = zsng_core_compact(pool);

			if (freed > can ||
			    zsng_core_total_pages(pool) != before - freed)
				__builtin_trap();
			/* Single-threaded: every policy frees all it can. */
			if (zsng_core_compactable_pages(pool) != 0)
				__builtin_trap();
			break;
		}
		case 6: /* compact one class, sometimes out of range */
			if (op & 16) {
				/* op & 16: reclaim, the n-th evict failing */
				Evict e{ pool, &live, in.u8() % 8 - 1, 0 };
				unsigned long before =
					zsng_core_total_pages(pool);
				long r = zsng_core_reclaim(pool, evict, &e);

				if (!lru || before == 0 ? r != -ZSNG_EINVAL :
				    r > 0 ? zsng_core_total_pages(pool) !=
						    before - r :
					    r != -ZSNG_EAGAIN)
					__builtin_trap();
				break;
			}
			zsng_core_compact_class(pool, in.u8() % (nr + 2));
			break;
		case 7: /* sweep */
			for (const Obj &o : live)
				verify(pool, o);
			break;
		}
		if (ops % 64 == 0)
			check(pool);
	}
	check(pool);
	for (const Obj &o : live) {
		verify(pool, o);
		zsng_core_free(pool, o.h);
	}
	if (zsng_core_total_pages(pool) != 0)
		__builtin_trap();
	zsng_core_destroy(pool);
	if (zsng_user_live_pages() != pages0 ||
	    zsng_user_live_allocs() != allocs0)
		__builtin_trap();
	return 0;
}

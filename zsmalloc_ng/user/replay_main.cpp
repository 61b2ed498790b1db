// SPDX-License-Identifier: GPL-2.0
/*
 * zsng_replay: stores a list of compressed object sizes in a userspace
 * zsmalloc_ng pool, the way zram_ng stores them, and prints where the
 * pages went, class by class. scripts/realmem-model feeds it the sizes of
 * a real-memory data set (one per page, as zram_ng's compressor would
 * give) and sets it beside the stock zsmalloc's computed pool: the
 * memory question of issue 28 asked at any pool size in seconds, without
 * a VM.
 *
 *   zsng_replay [--chain N] [--flags F] [--policy P] [--repeat R] < SIZES
 *
 * SIZES: one decimal size per line, 1..4096 (the compressed length;
 * zram_ng stores a page whole, 4096 bytes, from the pool's
 * huge_class_size up, and so does this). The whole list is stored R times
 * over (a pool R times the data set, as the bench's BENCH_REALMEM_MIB
 * repeats its image). Nothing is freed, as when realmem writes its data
 * out. --flags is ZSNG_POOL_* as a number (zram_ng on 6.1 asks for
 * growing chains and borrowed slots: 0x18).
 *
 * Prints JSON: the pool's totals and one entry per class that holds
 * anything. Exits 1 on bad input or a failed allocation, with a message.
 */
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "zsng_core.h"

static int usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [--chain N] [--flags F] [--policy NAME] [--repeat R] < SIZES\n",
		prog);
	return 2;
}

static bool parse_ulong(const char *s, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 0);
	return !errno && end != s && !*end;
}

int main(int argc, char **argv)
{
	unsigned long chain = ZSNG_DEFAULT_CHAIN_PAGES, flags = 0, repeat = 1;
	int policy = ZSNG_POLICY_RATIO;

	for (int i = 1; i < argc; i++) {
		if (i + 1 >= argc)
			return usage(argv[0]);
		const char *opt = argv[i], *val = argv[++i];
		bool ok = true;

		if (!strcmp(opt, "--chain"))
			ok = parse_ulong(val, &chain);
		else if (!strcmp(opt, "--flags"))
			ok = parse_ulong(val, &flags);
		else if (!strcmp(opt, "--repeat"))
			ok = parse_ulong(val, &repeat) && repeat >= 1;
		else if (!strcmp(opt, "--policy"))
			ok = (policy = zsng_core_policy_from_name(val)) >= 0;
		else
			return usage(argv[0]);
		if (!ok) {
			fprintf(stderr, "zsng_replay: %s: bad value '%s'\n",
				opt, val);
			return 2;
		}
	}

	std::vector<unsigned long> sizes;
	unsigned long v;
	char line[64];
	for (unsigned long n = 1; fgets(line, sizeof(line), stdin); n++) {
		line[strcspn(line, "\n")] = 0;
		if (!parse_ulong(line, &v) || v < 1 || v > 4096) {
			fprintf(stderr,
				"zsng_replay: line %lu: not a size in 1..4096: '%s'\n",
				n, line);
			return 1;
		}
		sizes.push_back(v);
	}

	zsng_core_pool *pool = zsng_core_create(policy, (unsigned int)chain,
						(unsigned int)flags);
	if (!pool) {
		fprintf(stderr,
			"zsng_replay: no pool (chain %lu, flags %#lx)\n", chain,
			flags);
		return 1;
	}
	unsigned long huge = zsng_core_huge_class_size(pool), stored = 0,
		      whole = 0;
	for (unsigned long r = 0; r < repeat; r++) {
		for (unsigned long s : sizes) {
			unsigned long len = s >= huge ? 4096 : s;
			unsigned long h = zsng_core_malloc(pool, len, 0);

			if (!h || h >= (unsigned long)-4095) {
				fprintf(stderr,
					"zsng_replay: allocation of %lu bytes failed\n",
					len);
				zsng_core_destroy(pool);
				return 1;
			}
			stored++;
			whole += len == 4096;
		}
	}
	if (zsng_core_check(pool)) {
		fprintf(stderr, "zsng_replay: the pool fails its own check\n");
		zsng_core_destroy(pool);
		return 1;
	}

	printf("{\"objects\": %lu, \"whole_pages\": %lu, \"huge_class_size\": %lu, "
	       "\"total_pages\": %lu, \"classes\": [",
	       stored, whole, huge, zsng_core_total_pages(pool));
	const char *sep = "";
	for (unsigned int i = 0; i < zsng_core_nr_classes(pool); i++) {
		zsng_class_stats cs;

		zsng_core_class_stats(pool, i, &cs);
		if (!cs.obj_used && !cs.pages_used)
			continue;
		printf("%s\n {\"size\": %u, \"pages_per_zspage\": %u, \"objs_per_zspage\": %u, "
		       "\"short_pages_per_zspage\": %u, \"obj_used\": %lu, \"pages_used\": %lu}",
		       sep, cs.size, cs.pages_per_zspage, cs.objs_per_zspage,
		       cs.short_pages_per_zspage, cs.obj_used, cs.pages_used);
		sep = ",";
	}
	printf("\n]}\n");
	zsng_core_destroy(pool);
	return 0;
}

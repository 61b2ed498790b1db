// SPDX-License-Identifier: GPL-2.0
/*
 * swapper: the swap workload's process (scripts/bench swap). Run inside a
 * memory cgroup whose memory.max is below MIB, it touches MIB MiB of partly
 * compressible pages, then reads them back PASSES times, verifying every
 * page, so everything beyond the limit goes out to the swap device and
 * comes back. Built static on the host, run in the VM.
 *
 *   swapper MIB PASSES DONEFILE
 *   swapper --dump MIB        the first pass's pages on stdout (the data
 *                             of scripts/bench recompress and writeback)
 *
 * Each page is half pseudo-random (seeded by its index: incompressible)
 * and half a repeating pattern, so lz4 gets about 2:1, the ratio real
 * anonymous memory often shows. After the last pass it prints
 * "verified=1 pages=N" (or verified=0 and exits 1), creates DONEFILE and
 * waits for SIGTERM, so the caller can read mm_stat while the data is
 * still resident in the swap device.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE 4096

static void fill(uint64_t *p, uint64_t idx, unsigned int pass)
{
	uint64_t x = idx * 0x9e3779b97f4a7c15ull + 1;
	size_t i;

	for (i = 0; i < PAGE / 16; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = x;
	}
	for (; i < PAGE / 8; i++)
		p[i] = idx | (uint64_t)pass << 56;
}

int main(int argc, char **argv)
{
	static uint64_t want[PAGE / 8];
	unsigned long mib, passes, npages, n, bad = 0;
	unsigned int pass;
	char *buf;
	int fd;

	if (argc == 3 && !strcmp(argv[1], "--dump")) {
		npages = strtoul(argv[2], NULL, 0) * 256;
		for (n = 0; n < npages; n++) {
			fill(want, n, 0);
			if (fwrite(want, PAGE, 1, stdout) != 1)
				return 1;
		}
		return fflush(stdout) ? 1 : 0;
	}
	if (argc != 4) {
		fprintf(stderr, "usage: swapper MIB PASSES DONEFILE | --dump MIB\n");
		return 2;
	}
	mib = strtoul(argv[1], NULL, 0);
	passes = strtoul(argv[2], NULL, 0);
	npages = mib * 256;
	buf = mmap(NULL, npages * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (n = 0; n < npages; n++)
		fill((uint64_t *)(buf + n * PAGE), n, 0);
	/* Each pass verifies what the previous one wrote, then rewrites it. */
	for (pass = 1; pass <= passes; pass++) {
		for (n = 0; n < npages; n++) {
			uint64_t *p = (uint64_t *)(buf + n * PAGE);

			fill(want, n, pass - 1);
			if (memcmp(p, want, PAGE))
				bad++;
			if (pass < passes)
				fill(p, n, pass);
		}
	}
	printf("verified=%d pages=%lu bad=%lu\n", bad == 0, npages, bad);
	fflush(stdout);
	fd = open(argv[3], O_CREAT | O_WRONLY, 0644);
	if (fd >= 0)
		close(fd);
	if (bad)
		return 1;
	pause();
	return 0;
}

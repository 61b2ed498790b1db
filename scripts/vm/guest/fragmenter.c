// SPDX-License-Identifier: GPL-2.0
/*
 * fragmenter: the pageblocks workload's process (scripts/bench pageblocks,
 * issue 12's scenario). Run inside a memory cgroup whose memory.max is well
 * below MIB, it writes MIB MiB of mixed-size data (each page a
 * pseudo-random run of 256..3840 bytes, the rest a pattern, so lz4 sizes
 * spread over most size classes) with MADV_NOHUGEPAGE, so most of it goes
 * out to the swap device; then it frees a pseudo-random half of the pages
 * (MADV_DONTNEED: their swap slots are freed, leaving the device's zspages
 * half used), creates DONEFILE and waits.
 *
 * On SIGUSR1 it reads back every page it kept (swapping them in), prints
 * "verified=1 kept=N" (or verified=0) and creates DONEFILE.verified; on
 * SIGTERM it exits. On SIGUSR2 (before SIGUSR1) it frees POKE_PAGES kept
 * pages spread over the whole buffer (so that many are surely swapped
 * out), leaves them out of the verification and creates DONEFILE.poked:
 * the zswap workload's way to make zswap free a few entries, the only
 * thing that refreshes its pool_total_size on 6.1.
 * Built static on the host, run in the VM.
 *
 *   fragmenter MIB SEED DONEFILE
 *
 * The block mode is the small-pool scenario of scripts/bench smallpool
 * (issue 17): the same pages written straight to a block device, then a
 * pseudo-random PERCENT of them discarded one page at a time (BLKDISCARD),
 * so the device's pool is left fragmented; "verify" reads back every page
 * that was not discarded and compares it.
 *
 *   fragmenter --block write|verify DEV PAGES SEED PERCENT
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/fs.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE 4096

/*
 * Freed swap slots wait in a per-CPU cache of 64 before the kernel really
 * frees them (and zswap hears of it): 512 pages flush it several times.
 */
#define POKE_PAGES 512

static volatile sig_atomic_t verify_requested, poke_requested;

static void on_usr1(int sig)
{
	verify_requested = 1;
}

static void on_usr2(int sig)
{
	poke_requested = 1;
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

static void fill(uint64_t *p, uint64_t idx, uint64_t seed)
{
	uint64_t x = mix(idx ^ seed) | 1;
	size_t random_words = (256 + mix(idx + seed) % 15 * 256) / 8, i;

	for (i = 0; i < random_words; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = x;
	}
	for (; i < PAGE / 8; i++)
		p[i] = idx;
}

static int kept(uint64_t idx, uint64_t seed)
{
	return mix(idx * 31 + seed) & 1;
}

/* The block mode's discards: about PERCENT of the pages, by index. */
static int discarded(uint64_t idx, uint64_t seed, unsigned int percent)
{
	return mix(idx * 31 + seed) % 100 < percent;
}

static int block_mode(int argc, char **argv)
{
	static uint64_t page[PAGE / 8] __attribute__((aligned(PAGE)));
	static uint64_t want[PAGE / 8];
	unsigned long npages, n, nkept = 0, bad = 0;
	unsigned int percent;
	uint64_t seed, range[2];
	int write_mode, fd;

	if (argc != 7 || (strcmp(argv[2], "write") && strcmp(argv[2], "verify"))) {
		fprintf(stderr, "usage: fragmenter --block write|verify DEV PAGES SEED PERCENT\n");
		return 2;
	}
	write_mode = !strcmp(argv[2], "write");
	npages = strtoul(argv[4], NULL, 0);
	seed = strtoull(argv[5], NULL, 0);
	percent = strtoul(argv[6], NULL, 0);
	fd = open(argv[3], (write_mode ? O_WRONLY : O_RDONLY) | O_DIRECT);
	if (fd < 0) {
		perror(argv[3]);
		return 1;
	}
	for (n = 0; n < npages; n++) {
		if (write_mode) {
			fill(page, n, seed);
			if (pwrite(fd, page, PAGE, n * PAGE) != PAGE) {
				perror("pwrite");
				return 1;
			}
			continue;
		}
		if (discarded(n, seed, percent))
			continue;
		nkept++;
		fill(want, n, seed);
		if (pread(fd, page, PAGE, n * PAGE) != PAGE) {
			perror("pread");
			return 1;
		}
		if (memcmp(page, want, PAGE))
			bad++;
	}
	if (!write_mode) {
		printf("verified=%d kept=%lu bad=%lu\n", bad == 0, nkept, bad);
		return bad ? 1 : 0;
	}
	for (n = 0; n < npages; n++) {
		if (!discarded(n, seed, percent)) {
			nkept++;
			continue;
		}
		range[0] = n * PAGE;
		range[1] = PAGE;
		if (ioctl(fd, BLKDISCARD, range)) {
			perror("BLKDISCARD");
			return 1;
		}
	}
	printf("written=%lu kept=%lu\n", npages, nkept);
	return 0;
}

static void touch(const char *path)
{
	int fd = open(path, O_CREAT | O_WRONLY, 0644);

	if (fd >= 0)
		close(fd);
}

int main(int argc, char **argv)
{
	static uint64_t want[PAGE / 8];
	unsigned long mib, npages, n, nkept = 0, bad = 0;
	unsigned char *poked;
	uint64_t seed;
	char done[4096];
	sigset_t usr1, waiting;
	char *buf;

	if (argc > 1 && !strcmp(argv[1], "--block"))
		return block_mode(argc, argv);
	if (argc != 4) {
		fprintf(stderr, "usage: fragmenter MIB SEED DONEFILE\n");
		return 2;
	}
	mib = strtoul(argv[1], NULL, 0);
	seed = strtoull(argv[2], NULL, 0);
	npages = mib * 256;
	/* Blocked until sigsuspend(), so an early SIGUSR1 is not lost. */
	signal(SIGUSR1, on_usr1);
	signal(SIGUSR2, on_usr2);
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigaddset(&usr1, SIGUSR2);
	sigprocmask(SIG_BLOCK, &usr1, &waiting);
	buf = mmap(NULL, npages * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	poked = calloc(npages, 1);
	if (!poked) {
		perror("calloc");
		return 1;
	}
	madvise(buf, npages * PAGE, MADV_NOHUGEPAGE);
	for (n = 0; n < npages; n++)
		fill((uint64_t *)(buf + n * PAGE), n, seed);
	for (n = 0; n < npages; n++) {
		if (kept(n, seed))
			nkept++;
		else
			madvise(buf + n * PAGE, PAGE, MADV_DONTNEED);
	}
	printf("written=%lu kept=%lu\n", npages, nkept);
	fflush(stdout);
	touch(argv[3]);
	while (!verify_requested) {
		unsigned long k;

		sigsuspend(&waiting);
		if (!poke_requested)
			continue;
		poke_requested = 0;
		/* the first kept page not yet poked after each of the marks */
		for (k = 0; k < POKE_PAGES; k++) {
			for (n = k * (npages / POKE_PAGES); n < npages; n++)
				if (kept(n, seed) && !poked[n])
					break;
			if (n == npages)
				continue;
			madvise(buf + n * PAGE, PAGE, MADV_DONTNEED);
			poked[n] = 1;
			nkept--;
		}
		snprintf(done, sizeof(done), "%s.poked", argv[3]);
		touch(done);
	}
	for (n = 0; n < npages; n++) {
		if (!kept(n, seed) || poked[n])
			continue;
		fill(want, n, seed);
		if (memcmp(buf + n * PAGE, want, PAGE))
			bad++;
	}
	printf("verified=%d kept=%lu bad=%lu\n", bad == 0, nkept, bad);
	fflush(stdout);
	snprintf(done, sizeof(done), "%s.verified", argv[3]);
	touch(done);
	pause();
	return bad ? 1 : 0;
}

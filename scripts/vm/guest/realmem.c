// SPDX-License-Identifier: GPL-2.0
/*
 * realmem: the realmem workload's process (scripts/bench realmem). It
 * writes a data set of real application memory (an image made by
 * scripts/mkdatasets: 4 KiB pages, none all zero) into anonymous memory,
 * MIB MiB of it (the image repeated when MIB is larger, its first pages
 * when smaller), from inside a memory cgroup whose memory.max is below MIB,
 * so that it is swapped out as it is written. Then it pushes out what is
 * still resident (MADV_PAGEOUT), says so and waits; the caller reads
 * mm_stat with everything out and lifts the limit. On SIGUSR1 it touches
 * every page once in a random order (xorshift64 from SEED: the same order
 * on both stacks), timing each first touch, a read of one byte between
 * two clock_gettime() calls, then checks every page against the image.
 *
 *   realmem IMAGE MIB SEED READYFILE [by-swap-type]
 *
 * Output, "key value" lines on stdout: pages, fill_ms (writing it all),
 * resident_pages (left in memory after the page-out: 0 when all went out),
 * pageout_tries (rounds of MADV_PAGEOUT that took),
 * swapin_total_ms (the touching loop, wall time), swapin_p50_us,
 * swapin_p90_us, swapin_p99_us, swapin_max_us (of the timed touches),
 * swapin_majflt (major faults during the loop: the swap-ins), and
 * verified=1 (or verified=0, exit status 1). Built static on the host by
 * scripts/vm/build-guest-tool, run in the VM.
 *
 * by-swap-type (the swapin workload: two swap devices of one priority,
 * between which the kernel spreads the pages in batches): each page's swap
 * device is read from /proc/self/pagemap once everything is out (its swap
 * type, bits 0-4, of a swapped entry, bit 62), and the latencies are
 * given per type as well: typeT_pages, typeT_swapin_p50_us, _p90_us,
 * _p99_us, _max_us, _mean_us. The two devices are then timed in one pass,
 * their swap-ins interleaved: whatever slows the machine meanwhile slows
 * both alike. Pages still resident are counted in resident_pages only.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

#define PAGE 4096UL
/* Pages per read() while filling: a few at a time, as a program writes. */
#define CHUNK 16UL

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + t.tv_nsec;
}

static uint64_t xorshift64(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static long majflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_majflt;
}

/* the image's page n % nimg read into dst */
static int image_page(int fd, unsigned long nimg, unsigned long n, char *dst)
{
	off_t off = (off_t)(n % nimg) * PAGE;
	ssize_t r = pread(fd, dst, PAGE, off);

	return r == (ssize_t)PAGE ? 0 : -1;
}

static int die(const char *what)
{
	fprintf(stderr, "realmem: %s: %s\n", what, strerror(errno));
	return 1;
}

/* pages of [buf, buf + npages * PAGE) resident or in the swap cache */
static unsigned long resident(char *buf, unsigned long npages, unsigned char *vec)
{
	unsigned long n, r = 0;

	if (mincore(buf, npages * PAGE, vec))
		return npages;
	for (n = 0; n < npages; n++)
		r += vec[n] & 1;
	return r;
}

/*
 * Lock every mapping of this process but [buf, buf + len): its text, data,
 * heap and stack come back in now if the cgroup's limit pushed them out
 * while filling, and stay, so that the only major faults of the timed loop
 * are the buffer's own swap-ins (one extra, a stack page once, made
 * swapin_majflt 2049 for 2048 pages). Best effort: a mapping that cannot
 * be locked is left as it is.
 */
static void lock_all_but(char *buf, unsigned long len)
{
	unsigned long lo, hi, b = (unsigned long)buf;
	char line[512];
	FILE *maps = fopen("/proc/self/maps", "r");

	if (!maps)
		return;
	while (fgets(line, sizeof(line), maps)) {
		if (sscanf(line, "%lx-%lx", &lo, &hi) != 2)
			continue;
		if (strstr(line, "[vvar]") || strstr(line, "[vsyscall]") ||
		    strstr(line, "[vdso]"))
			continue;
		if (hi <= b || lo >= b + len) {
			mlock((void *)lo, hi - lo);
			continue;
		}
		if (lo < b)
			mlock((void *)lo, b - lo);
		if (hi > b + len)
			mlock((void *)(b + len), hi - (b + len));
	}
	fclose(maps);
}

/* the latency at fraction q of the sorted lat[n], in microseconds */
static double pct_us(const uint64_t *lat, unsigned long n, double q)
{
	unsigned long i = (unsigned long)(q * (double)(n - 1) + 0.5);

	return lat[i] / 1000.0;
}

#define NO_TYPE 0xff
#define PM_SWAP (1ull << 62)
#define PM_SWAP_TYPE_MASK 0x1full

/*
 * The swap type of each page of [buf, buf + npages * PAGE) into type[]
 * (NO_TYPE: not swapped out). 0 on success.
 */
static int swap_types(char *buf, unsigned long npages, unsigned char *type)
{
	unsigned long n, first = (unsigned long)buf / PAGE;
	uint64_t e[512];
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0)
		return -1;
	for (n = 0; n < npages; n += 512) {
		unsigned long k = npages - n < 512 ? npages - n : 512, j;

		if (pread(fd, e, k * 8, (off_t)(first + n) * 8) != (ssize_t)(k * 8)) {
			close(fd);
			return -1;
		}
		for (j = 0; j < k; j++)
			type[n + j] = e[j] & PM_SWAP ? (unsigned char)(e[j] & PM_SWAP_TYPE_MASK) :
						      NO_TYPE;
	}
	close(fd);
	return 0;
}

/* the latencies lat[] of the pages order[] of swap type t, per type */
static void print_types(const uint64_t *lat, const uint32_t *order, const unsigned char *type,
			unsigned long npages, uint64_t *scratch)
{
	unsigned int t;

	for (t = 0; t < 32; t++) {
		unsigned long n = 0, k;
		double sum = 0;

		for (k = 0; k < npages; k++) {
			if (type[order[k]] == t) {
				scratch[n++] = lat[k];
				sum += lat[k];
			}
		}
		if (!n)
			continue;
		qsort(scratch, n, sizeof(*scratch), cmp_u64);
		printf("type%u_pages %lu\n", t, n);
		printf("type%u_swapin_p50_us %.2f\ntype%u_swapin_p90_us %.2f\n", t,
		       pct_us(scratch, n, 0.50), t, pct_us(scratch, n, 0.90));
		printf("type%u_swapin_p99_us %.2f\ntype%u_swapin_max_us %.2f\n", t,
		       pct_us(scratch, n, 0.99), t, scratch[n - 1] / 1000.0);
		printf("type%u_swapin_mean_us %.3f\n", t, sum / n / 1000.0);
	}
}

int main(int argc, char **argv)
{
	unsigned long mib, npages, nimg, n, k, bad = 0, left;
	uint64_t seed, t0, t1, loop0, fill0, *lat, *scratch = NULL;
	uint32_t *order;
	unsigned char *vec, *type = NULL;
	int by_type;
	char *buf, want[PAGE];
	struct stat st;
	sigset_t usr1;
	long flt0;
	int fd, ready, sig, tries, cpu;
	cpu_set_t cpus, one;

	by_type = argc == 6 && !strcmp(argv[5], "by-swap-type");
	if (argc != 5 && !by_type) {
		fprintf(stderr, "usage: realmem IMAGE MIB SEED READYFILE [by-swap-type]\n");
		return 2;
	}
	mib = strtoul(argv[2], NULL, 0);
	seed = strtoull(argv[3], NULL, 0) | 1;
	npages = mib * 256;
	if (!npages || npages > UINT32_MAX) {
		fprintf(stderr, "realmem: MIB must be 1 to %u\n", UINT32_MAX / 256);
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st))
		return die(argv[1]);
	nimg = st.st_size / PAGE;
	if (!nimg || st.st_size % PAGE) {
		fprintf(stderr, "realmem: %s: not whole 4 KiB pages\n", argv[1]);
		return 1;
	}
	/* SIGUSR1 is taken with sigwait(), never delivered */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);

	lat = malloc(npages * sizeof(*lat));
	order = malloc(npages * sizeof(*order));
	vec = malloc(npages);
	if (!lat || !order || !vec)
		return die("malloc");
	if (by_type) {
		type = malloc(npages);
		scratch = malloc(npages * sizeof(*scratch));
		if (!type || !scratch)
			return die("malloc");
		memset(type, NO_TYPE, npages);
		memset(scratch, 0, npages * sizeof(*scratch));
	}
	/* the touching order first: nothing of it is made while timing */
	for (n = 0; n < npages; n++)
		order[n] = n;
	for (n = npages - 1; n > 0; n--) {
		uint32_t j = xorshift64(&seed) % (n + 1), t = order[n];

		order[n] = order[j];
		order[j] = t;
	}
	/* and every page of the metadata touched, so none is swapped in later */
	memset(lat, 0, npages * sizeof(*lat));
	memset(vec, 0, npages);
	if (mlock(lat, npages * sizeof(*lat)) || mlock(order, npages * sizeof(*order)))
		fprintf(stderr, "realmem: mlock: %s (latencies may include their own swap-ins)\n",
			strerror(errno));

	buf = mmap(NULL, npages * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return die("mmap");
	/* no transparent huge pages: swap works on 4 KiB pages here */
	madvise(buf, npages * PAGE, MADV_NOHUGEPAGE);

	fill0 = now_ns();
	for (n = 0; n < npages; n += k) {
		k = CHUNK;
		if (k > npages - n)
			k = npages - n;
		if (n % nimg + k > nimg)
			k = nimg - n % nimg;
		if (pread(fd, buf + n * PAGE, k * PAGE, (off_t)(n % nimg) * PAGE) !=
		    (ssize_t)(k * PAGE))
			return die("reading the image");
	}
	t1 = now_ns();
	printf("pages %lu\nfill_ms %.1f\n", npages, (t1 - fill0) / 1e6);

	/*
	 * What the limit left in memory goes out too. MADV_PAGEOUT drains
	 * only this CPU's batch of pages on their way to the LRU and skips
	 * pages in another CPU's (6.12 left 7 to 64 resident a run that way),
	 * so it is asked from every CPU this process may run on.
	 */
	sched_getaffinity(0, sizeof(cpus), &cpus);
	for (tries = 0; tries < 10; tries++) {
		left = resident(buf, npages, vec);
		if (!left)
			break;
		for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
			if (!CPU_ISSET(cpu, &cpus))
				continue;
			CPU_ZERO(&one);
			CPU_SET(cpu, &one);
			sched_setaffinity(0, sizeof(one), &one);
			if (madvise(buf, npages * PAGE, MADV_PAGEOUT))
				return die("madvise(MADV_PAGEOUT)");
		}
		sched_setaffinity(0, sizeof(cpus), &cpus);
	}
	printf("resident_pages %lu\npageout_tries %d\n", resident(buf, npages, vec), tries);
	if (by_type && swap_types(buf, npages, type))
		return die("/proc/self/pagemap");
	fflush(stdout);

	ready = open(argv[4], O_CREAT | O_WRONLY, 0644);
	if (ready < 0)
		return die(argv[4]);
	close(ready);
	if (sigwait(&usr1, &sig))
		return die("sigwait");

	lock_all_but(buf, npages * PAGE);
	flt0 = majflt();
	loop0 = now_ns();
	for (k = 0; k < npages; k++) {
		/* volatile: the one-byte read must happen, between the clocks */
		volatile char *p = buf + (unsigned long)order[k] * PAGE;

		t0 = now_ns();
		(void)*p;
		t1 = now_ns();
		lat[k] = t1 - t0;
	}
	t1 = now_ns();
	printf("swapin_total_ms %.1f\n", (t1 - loop0) / 1e6);
	printf("swapin_majflt %ld\n", majflt() - flt0);

	for (n = 0; n < npages; n++) {
		if (image_page(fd, nimg, n, want))
			return die("reading the image");
		if (memcmp(buf + n * PAGE, want, PAGE))
			bad++;
	}
	if (by_type)
		print_types(lat, order, type, npages, scratch);
	qsort(lat, npages, sizeof(*lat), cmp_u64);
	printf("swapin_p50_us %.2f\nswapin_p90_us %.2f\nswapin_p99_us %.2f\nswapin_max_us %.2f\n",
	       pct_us(lat, npages, 0.50), pct_us(lat, npages, 0.90),
	       pct_us(lat, npages, 0.99), lat[npages - 1] / 1000.0);
	printf("verified=%d bad=%lu\n", bad == 0, bad);
	return bad ? 1 : 0;
}

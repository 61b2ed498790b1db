// SPDX-License-Identifier: GPL-2.0
/*
 * wbrace: does a read of a block device ever return another page's data?
 * The race of issue 27: a read of a written-back zram_ng slot takes the
 * slot's block number under the slot lock and reads the block after
 * dropping it. If the slot is overwritten or discarded meanwhile, its block
 * is freed, and the next writeback may put another slot's page into it
 * before the read reaches the backing device: the read returns another
 * LBA's data. selftests/zram_ng/test_wb_race.sh and the soak's wbrace
 * worker run this against zram_ng with the backing device behind dm-delay
 * (reads delayed, writes not), while a shell loop marks every page idle
 * and writes the idle pages back. Built static on the host, run in the VM.
 *
 *   wbrace DEV FIRST_PAGE NPAGES SECONDS [--readers N] [--writers N]
 *          [--discard PCT] [--pause US] [--eio-ok]
 *
 * The pages [FIRST_PAGE, FIRST_PAGE + NPAGES) of DEV (4 KiB pages) are
 * first written once, in order; then for SECONDS:
 *
 * - writers (default 2) rewrite a random page of their own with a new
 *   generation (pwrite, O_DIRECT), or discard it (BLKDISCARD of its 4 KiB,
 *   PCT percent of the operations, default 10), then sleep US
 *   microseconds (default 1000). Writer w owns the pages whose index is w
 *   modulo the number of writers: one page's operations never overlap,
 *   so what a page holds is always what its last completed operation left.
 * - readers (default 4) read a random page of the range (pread, O_DIRECT)
 *   and classify what they got.
 *
 * A page of generation G at LBA L (its page index on DEV) carries in each
 * of its eight 512-byte sectors a tag (a magic number, the sector's number,
 * L, G and a checksum of those) and, after it, one 64-bit word derived
 * from (L, G, sector) repeated to the sector's end. So the page compresses
 * well (zram_ng keeps it compressed and writes it back), it is never
 * same-filled (zram_ng keeps such pages without a handle and never writes
 * them back), two pages or two generations never have the same content,
 * and a torn page (sectors of two writes) or a stray byte is caught.
 *
 * The generations come from one counter, so they are unique and grow with
 * time. Per page, the writers publish the generation of the last operation
 * they issued and of the last discard they issued before the I/O, and the
 * generation (and kind) of the last operation that completed after it. A
 * reader notes the last completed operation before its read and the last
 * issued ones after it; the read may return what any operation in between
 * left, and nothing else:
 *
 *   reads_ok     this page's tag, generation G with
 *                done-before <= G <= issued-after
 *   zero_pages   all zeros, and the page was discarded by the last
 *                operation completed before the read or by one issued
 *                since (an all-zero page is accepted only then)
 *   foreign_lba  a whole, consistent page, but of another LBA: the bug
 *   corrupt      anything else that is not a consistent page: bad magic
 *                or checksum, sectors of different pages or generations,
 *                a wrong fill
 *   stale        this page's tag, but a generation (or zeros) that its
 *                operations could not have left: an older page than the
 *                last completed write, or data after a completed discard
 *   read_errors  the read failed (EIO): accepted only with --eio-ok (a
 *                backing device made to fail); wrong data never is
 *
 * The first few wrong pages are described on stderr. Last, one line of
 * counts on stdout:
 *   wbrace: reads R reads_ok R zero_pages Z foreign_lba F corrupt C
 *           stale S read_errors E writes W discards D write_errors X
 * Exit status 1 when foreign_lba, corrupt, stale or write_errors is not 0,
 * or read_errors is not 0 without --eio-ok; 2 for a usage or setup error.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define PAGE_BYTES	4096
#define SECTOR_BYTES	512
#define SECTORS		(PAGE_BYTES / SECTOR_BYTES)
#define FILL_WORDS	((SECTOR_BYTES - sizeof(struct tag)) / sizeof(unsigned long long))
#define WBRACE_MAGIC	0x57425243u	/* "WBRC" */
#define MAX_THREADS	64
/* How many wrong pages are described on stderr. */
#define MAX_REPORTS	10

/* The head of every 512-byte sector. */
struct tag {
	unsigned int magic;
	unsigned int sector;
	unsigned long long lba;
	unsigned long long gen;
	unsigned long long sum;
};

struct sector {
	struct tag tag;
	unsigned long long fill[FILL_WORDS];
};

static_assert(sizeof(struct sector) == SECTOR_BYTES, "a tagged sector is 512 bytes");

/* What a read returned; counted per reader, printed under these names. */
enum verdict { V_OK, V_ZERO, V_FOREIGN, V_CORRUPT, V_STALE, V_EIO, V_NR };

static const char * const verdict_name[V_NR] = {
	"reads_ok", "zero_pages", "foreign_lba", "corrupt", "stale", "read_errors",
};

/*
 * Per page, written only by its owner (one writer), read by everyone:
 * done:      (generation << 1) | discarded, of the last completed operation
 * issued:    generation of the last operation issued
 * discarded: generation of the last discard issued
 */
struct page_state {
	unsigned long long done;
	unsigned long long issued;
	unsigned long long discarded;
};

struct counts {
	unsigned long long reads, verdicts[V_NR];
	unsigned long long writes, discards, write_errors;
};

static int fd;
static unsigned long long first, npages;
static unsigned int nreaders = 4, nwriters = 2, discard_pct = 10;
static unsigned int pause_us = 1000;
static bool eio_ok;
static struct page_state *state;
static unsigned long long gen_counter;
static int stop;		/* set once, by main(), when the time is up */
static int reports;
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned long long mix(unsigned long long x)
{
	/* splitmix64's finaliser: every input bit moves every output bit */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static unsigned long long tag_sum(const struct tag *t)
{
	unsigned long long head = (unsigned long long)t->magic << 32 | t->sector;

	return mix(mix(mix(head) ^ t->lba) ^ t->gen);
}

static unsigned long long fill_word(unsigned long long lba,
				    unsigned long long gen, unsigned int sector)
{
	return mix(lba * SECTORS + sector) ^ mix(~gen);
}

static void make_page(void *buf, unsigned long long lba, unsigned long long gen)
{
	struct sector *s = buf;
	unsigned int i, j;

	for (i = 0; i < SECTORS; i++) {
		unsigned long long w = fill_word(lba, gen, i);

		s[i].tag.magic = WBRACE_MAGIC;
		s[i].tag.sector = i;
		s[i].tag.lba = lba;
		s[i].tag.gen = gen;
		s[i].tag.sum = tag_sum(&s[i].tag);
		for (j = 0; j < FILL_WORDS; j++)
			s[i].fill[j] = w;
	}
}

static bool all_zero(const void *buf)
{
	const unsigned long long *w = buf;
	unsigned int i;

	for (i = 0; i < PAGE_BYTES / sizeof(*w); i++)
		if (w[i])
			return false;
	return true;
}

/*
 * A page that is whole and consistent: every sector tagged with the
 * first sector's (lba, gen) and filled accordingly. Its tag in @lba, @gen.
 */
static bool consistent(const void *buf, unsigned long long *lba, unsigned long long *gen)
{
	const struct sector *s = buf;
	unsigned int i, j;

	for (i = 0; i < SECTORS; i++) {
		const struct tag *t = &s[i].tag;
		unsigned long long w;

		if (t->magic != WBRACE_MAGIC || t->sector != i ||
		    t->sum != tag_sum(t))
			return false;
		if (i == 0) {
			*lba = t->lba;
			*gen = t->gen;
		} else if (t->lba != *lba || t->gen != *gen) {
			return false;
		}
		w = fill_word(*lba, *gen, i);
		for (j = 0; j < FILL_WORDS; j++)
			if (s[i].fill[j] != w)
				return false;
	}
	return true;
}

static unsigned long long load(unsigned long long *p)
{
	return __atomic_load_n(p, __ATOMIC_SEQ_CST);
}

static void store(unsigned long long *p, unsigned long long v)
{
	__atomic_store_n(p, v, __ATOMIC_SEQ_CST);
}

static unsigned long long rnd(unsigned long long *seed)
{
	*seed = mix(*seed + 0x9e3779b97f4a7c15ull);
	return *seed;
}

static void report(const char *what, unsigned long long lba, const void *buf,
		   unsigned long long done, unsigned long long issued)
{
	const struct tag *t = buf;

	pthread_mutex_lock(&report_lock);
	if (reports++ < MAX_REPORTS)
		fprintf(stderr,
			"wbrace: %s: page %llu read magic %#x lba %llu gen %llu (done before: gen %llu%s, issued after: gen %llu)\n",
			what, lba, t->magic, t->lba, t->gen, done >> 1,
			done & 1 ? " discard" : "", issued);
	pthread_mutex_unlock(&report_lock);
}

static enum verdict check(const void *buf, unsigned long long lba,
			  unsigned long long done, unsigned long long issued,
			  unsigned long long discarded)
{
	unsigned long long got_lba, gen;

	if (all_zero(buf)) {
		/* zeros only from a discard not followed by a completed write */
		if ((done & 1) || discarded > done >> 1)
			return V_ZERO;
		report("zeros, no discard", lba, buf, done, issued);
		return V_STALE;
	}
	if (!consistent(buf, &got_lba, &gen)) {
		report("corrupt", lba, buf, done, issued);
		return V_CORRUPT;
	}
	if (got_lba != lba) {
		report("foreign lba", lba, buf, done, issued);
		return V_FOREIGN;
	}
	if (gen < done >> 1 || gen > issued) {
		report("stale", lba, buf, done, issued);
		return V_STALE;
	}
	return V_OK;
}

static void *reader(void *arg)
{
	struct counts *c = arg;
	unsigned long long seed = (uintptr_t)arg ^ (unsigned long long)getpid() << 32;
	void *buf;

	if (posix_memalign(&buf, PAGE_BYTES, PAGE_BYTES))
		return NULL;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		unsigned long long i = rnd(&seed) % npages, lba = first + i;
		unsigned long long done = load(&state[i].done), issued, discarded;
		ssize_t n;

		n = pread(fd, buf, PAGE_BYTES, lba * PAGE_BYTES);
		issued = load(&state[i].issued);
		discarded = load(&state[i].discarded);
		c->reads++;
		if (n == PAGE_BYTES) {
			c->verdicts[check(buf, lba, done, issued, discarded)]++;
		} else if (n < 0 && errno == EIO) {
			c->verdicts[V_EIO]++;
		} else {
			fprintf(stderr, "wbrace: read of page %llu: %zd, %s\n",
				lba, n, strerror(errno));
			c->verdicts[V_CORRUPT]++;
		}
	}
	free(buf);
	return NULL;
}

/* One write or discard of page @i, its state published around it. */
static int page_op(void *buf, unsigned long long i, bool discard)
{
	unsigned long long gen = __atomic_add_fetch(&gen_counter, 1, __ATOMIC_SEQ_CST);
	unsigned long long lba = first + i;
	int ret;

	if (discard) {
		unsigned long long range[2] = { lba * PAGE_BYTES, PAGE_BYTES };

		store(&state[i].discarded, gen);
		store(&state[i].issued, gen);
		ret = ioctl(fd, BLKDISCARD, range);
	} else {
		make_page(buf, lba, gen);
		store(&state[i].issued, gen);
		ret = pwrite(fd, buf, PAGE_BYTES, lba * PAGE_BYTES) == PAGE_BYTES ? 0 : -1;
	}
	if (ret) {
		fprintf(stderr, "wbrace: %s of page %llu: %s\n",
			discard ? "discard" : "write", lba,
			strerror(errno));
		/* what the page holds now is not known: stop checking it */
		return -1;
	}
	store(&state[i].done, gen << 1 | discard);
	return 0;
}

struct writer_arg {
	struct counts c;
	unsigned int id;
};

static void *writer(void *arg)
{
	struct writer_arg *w = arg;
	unsigned long long seed = w->id * 0x5851f42d4c957f2dull ^
				  (unsigned long long)getpid() << 32;
	unsigned long long mine = (npages - w->id + nwriters - 1) / nwriters;
	void *buf;

	if (posix_memalign(&buf, PAGE_BYTES, PAGE_BYTES))
		return NULL;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED) && mine) {
		unsigned long long i = w->id + rnd(&seed) % mine * nwriters;
		bool discard = rnd(&seed) % 100 < discard_pct;

		if (page_op(buf, i, discard)) {
			w->c.write_errors++;
			break;
		}
		if (discard)
			w->c.discards++;
		else
			w->c.writes++;
		if (pause_us)
			usleep(pause_us);
	}
	free(buf);
	return NULL;
}

static void bad_usage(void)
{
	fprintf(stderr,
		"usage: wbrace DEV FIRST_PAGE NPAGES SECONDS [--readers N] [--writers N]\n"
		"              [--discard PCT] [--pause US] [--eio-ok]\n");
	exit(2);
}

static unsigned long number(const char *s, unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || v > max)
		bad_usage();
	return v;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "readers", required_argument, NULL, 'r' },
		{ "writers", required_argument, NULL, 'w' },
		{ "discard", required_argument, NULL, 'd' },
		{ "pause", required_argument, NULL, 'p' },
		{ "eio-ok", no_argument, NULL, 'e' },
		{ NULL, 0, NULL, 0 },
	};
	static struct counts rc[MAX_THREADS];
	static struct writer_arg wa[MAX_THREADS];
	pthread_t rt[MAX_THREADS], wt[MAX_THREADS];
	struct counts t = { 0 };
	unsigned long seconds;
	unsigned int i, v;
	void *buf;
	int opt;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'r':
			nreaders = number(optarg, MAX_THREADS);
			break;
		case 'w':
			nwriters = number(optarg, MAX_THREADS);
			break;
		case 'd':
			discard_pct = number(optarg, 100);
			break;
		case 'p':
			pause_us = number(optarg, 1000000);
			break;
		case 'e':
			eio_ok = true;
			break;
		default:
			bad_usage();
		}
	}
	if (argc - optind != 4)
		bad_usage();
	first = number(argv[optind + 1], ~0ul / PAGE_BYTES);
	npages = number(argv[optind + 2], ~0ul / PAGE_BYTES - first);
	seconds = number(argv[optind + 3], 86400);
	if (!npages || !nwriters || npages < nwriters)
		bad_usage();

	fd = open(argv[optind], O_RDWR | O_DIRECT);
	if (fd < 0) {
		perror(argv[optind]);
		return 2;
	}
	state = calloc(npages, sizeof(*state));
	if (!state || posix_memalign(&buf, PAGE_BYTES, PAGE_BYTES)) {
		perror("wbrace: memory");
		return 2;
	}
	/* The whole range once, in order: every page has a known content. */
	for (i = 0; i < npages; i++) {
		if (page_op(buf, i, false)) {
			fprintf(stderr, "wbrace: filling the range failed\n");
			return 2;
		}
	}

	for (i = 0; i < nwriters; i++) {
		wa[i].id = i;
		if (pthread_create(&wt[i], NULL, writer, &wa[i]))
			return 2;
	}
	for (i = 0; i < nreaders; i++)
		if (pthread_create(&rt[i], NULL, reader, &rc[i]))
			return 2;
	sleep(seconds);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < nwriters; i++) {
		pthread_join(wt[i], NULL);
		t.writes += wa[i].c.writes;
		t.discards += wa[i].c.discards;
		t.write_errors += wa[i].c.write_errors;
	}
	for (i = 0; i < nreaders; i++) {
		pthread_join(rt[i], NULL);
		t.reads += rc[i].reads;
		for (v = 0; v < V_NR; v++)
			t.verdicts[v] += rc[i].verdicts[v];
	}
	printf("wbrace: reads %llu", t.reads);
	for (v = 0; v < V_NR; v++)
		printf(" %s %llu", verdict_name[v], t.verdicts[v]);
	printf(" writes %llu discards %llu write_errors %llu\n", t.writes,
	       t.discards, t.write_errors);
	if (t.verdicts[V_FOREIGN] || t.verdicts[V_CORRUPT] ||
	    t.verdicts[V_STALE] || t.write_errors ||
	    (t.verdicts[V_EIO] && !eio_ok))
		return 1;
	return 0;
}

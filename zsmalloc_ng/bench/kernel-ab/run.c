// SPDX-License-Identifier: GPL-2.0
/*
 * The phases of one allocator at one thread count (ab.h), on kernel
 * threads bound one to each online CPU in turn, and their result lines:
 *
 *   ALLOC LABEL THREADS PHASE key=value...
 *
 * with ops (operations: objects stored, read or freed; a churn op is one
 * free and one store), bytes (object bytes stored or read), ns (the
 * phase's wall time: first thread's start to last thread's end) and the
 * pool's pages after it; compaction's line has the pages before and after,
 * pages_freed, objs_displaced (both sides) and objs_moved (zsmalloc_ng's
 * count of copies) instead (alloc.h). The host turns them into ns per op
 * and MB/s.
 *
 * The coordinator is the process that wrote the run file: it releases a
 * phase by bumping a generation counter and waits for the last thread to
 * end it. Threads and coordinator wait with wait_event_idle(): a long
 * phase under an emulator must not look like a hung task.
 */
#define pr_fmt(fmt) "zsng_ab: " fmt

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include "alloc.h"

const char *const ab_alloc_names[AB_NR_ALLOCS] = {
	[AB_ZSMALLOC] = "zsmalloc",
	[AB_ZSMALLOC_NG] = "zsmalloc_ng",
};

enum ab_phase {
	AB_FILL,
	AB_READ,
	AB_CHURN,
	AB_FREE,
	AB_DESTROY,	/* the threads' part: free what is left */
	AB_VERIFY,	/* untimed: compare every live object with its source */
};

/*
 * A thread yields every this many operations: long phases under TCG would
 * otherwise hold a CPU for seconds. The check is the same on both sides.
 */
#define AB_RESCHED_MASK 63

/* Churn: the half of the objects; free: 60% of them. */
#define AB_CHURN_SHARE(n) ((n) / 2)
#define AB_FREE_SHARE(n) ((n) * 3 / 5)

struct ab_ctx;

struct ab_thread {
	struct ab_ctx *ctx;
	struct task_struct *task;
	unsigned int id;
	unsigned long *handle;	/* per object; 0 once freed */
	u32 *src;		/* per object: its source in the data set */
	u32 *order;		/* a permutation of the objects, per phase */
	unsigned long *loc;	/* location words before compaction (alloc.h) */
	u8 *copy;		/* PAGE_SIZE: where reads copy to */
	u64 rng;
	u64 start, end;		/* ktime ns of the last phase */
	u64 ops, bytes;
	unsigned long bad;	/* objects that did not read back as stored */
	int err;
};

struct ab_ctx {
	const struct ab_params *p;
	const struct ab_data *d;
	struct ab_pool pool;
	unsigned int nr_threads;
	struct ab_thread *threads;
	enum ab_phase phase;
	unsigned int gen;	/* bumped to release a phase */
	atomic_t pending;	/* threads still in the phase */
	wait_queue_head_t go, done;
};

static void shuffle(struct ab_thread *t)
{
	unsigned int i, j, n = t->ctx->p->objs;

	for (i = n - 1; i > 0; i--) {
		j = ab_xorshift(&t->rng) % (i + 1);
		swap(t->order[i], t->order[j]);
	}
}

static bool store(struct ab_thread *t, unsigned int i)
{
	const struct ab_data *d = t->ctx->d;
	u32 s = t->src[i];

	t->handle[i] = ab_store(&t->ctx->pool, ab_src(d, s), d->len[s]);
	if (unlikely(!t->handle[i])) {
		t->err = -ENOMEM;
		return false;
	}
	t->bytes += d->len[s];
	return true;
}

static void drop(struct ab_thread *t, unsigned int i)
{
	ab_free(&t->ctx->pool, t->handle[i]);
	t->handle[i] = 0;
}

static void do_phase(struct ab_thread *t, enum ab_phase ph)
{
	struct ab_ctx *c = t->ctx;
	const struct ab_data *d = c->d;
	unsigned int n = c->p->objs, i, j;
	u32 len;

	switch (ph) {
	case AB_FILL:
		for (i = 0; i < n && store(t, i); i++) {
			t->ops++;
			if (!(i & AB_RESCHED_MASK))
				cond_resched();
		}
		break;
	case AB_READ:
		for (j = 0; j < n; j++) {
			i = t->order[j];
			len = d->len[t->src[i]];
			ab_read(&c->pool, t->handle[i], t->copy, len);
			t->bytes += len;
			t->ops++;
			if (!(j & AB_RESCHED_MASK))
				cond_resched();
		}
		break;
	case AB_CHURN:
		/* Each freed object comes back with the next size along. */
		for (j = 0; j < AB_CHURN_SHARE(n); j++) {
			i = t->order[j];
			drop(t, i);
			t->src[i] = (t->src[i] + d->nr / 2 + 1) % d->nr;
			if (!store(t, i))
				break;
			t->ops++;
			if (!(j & AB_RESCHED_MASK))
				cond_resched();
		}
		break;
	case AB_FREE:
		for (j = 0; j < AB_FREE_SHARE(n); j++) {
			drop(t, t->order[j]);
			t->ops++;
			if (!(j & AB_RESCHED_MASK))
				cond_resched();
		}
		break;
	case AB_DESTROY:
		for (i = 0; i < n; i++) {
			if (!t->handle[i])
				continue;
			drop(t, i);
			t->ops++;
			if (!(i & AB_RESCHED_MASK))
				cond_resched();
		}
		break;
	case AB_VERIFY:
		for (i = 0; i < n; i++) {
			if (!t->handle[i])
				continue;
			len = d->len[t->src[i]];
			ab_read(&c->pool, t->handle[i], t->copy, len);
			if (memcmp(t->copy, ab_src(d, t->src[i]), len))
				t->bad++;
			if (!(i & AB_RESCHED_MASK))
				cond_resched();
		}
		break;
	}
}

static int thread_fn(void *arg)
{
	struct ab_thread *t = arg;
	struct ab_ctx *c = t->ctx;
	unsigned int seen = 0;

	for (;;) {
		/* Pairs with run_phase()'s release: the phase is set. */
		wait_event_idle(c->go, smp_load_acquire(&c->gen) != seen ||
				kthread_should_stop());
		if (kthread_should_stop())
			break;
		seen = READ_ONCE(c->gen);
		t->start = ktime_get_ns();
		/* A thread that failed to store only takes part in freeing. */
		if (!t->err || c->phase == AB_DESTROY)
			do_phase(t, c->phase);
		t->end = ktime_get_ns();
		shuffle(t);	/* the next phase's order, outside the timing */
		if (atomic_dec_and_test(&c->pending))
			wake_up(&c->done);
	}
	return 0;
}

/* Runs one phase on every thread; returns its wall time in ns. */
static u64 run_phase(struct ab_ctx *c, enum ab_phase ph)
{
	u64 start = U64_MAX, end = 0;
	unsigned int k;

	for (k = 0; k < c->nr_threads; k++) {
		c->threads[k].ops = 0;
		c->threads[k].bytes = 0;
	}
	c->phase = ph;
	atomic_set(&c->pending, c->nr_threads);
	/* The phase and the counters before the threads see the new gen. */
	smp_store_release(&c->gen, c->gen + 1);
	wake_up_all(&c->go);
	wait_event_idle(c->done, !atomic_read_acquire(&c->pending));
	for (k = 0; k < c->nr_threads; k++) {
		start = min(start, c->threads[k].start);
		end = max(end, c->threads[k].end);
	}
	return end - start;
}

static u64 sum_ops(struct ab_ctx *c)
{
	u64 ops = 0;
	unsigned int k;

	for (k = 0; k < c->nr_threads; k++)
		ops += c->threads[k].ops;
	return ops;
}

static u64 sum_bytes(struct ab_ctx *c)
{
	u64 bytes = 0;
	unsigned int k;

	for (k = 0; k < c->nr_threads; k++)
		bytes += c->threads[k].bytes;
	return bytes;
}

static int first_error(struct ab_ctx *c)
{
	unsigned int k;

	for (k = 0; k < c->nr_threads; k++)
		if (c->threads[k].err)
			return c->threads[k].err;
	return 0;
}

static int verify(struct ab_ctx *c, const char *when)
{
	unsigned long bad = 0;
	unsigned int k;

	if (!c->p->verify)
		return 0;
	run_phase(c, AB_VERIFY);
	for (k = 0; k < c->nr_threads; k++)
		bad += c->threads[k].bad;
	if (!bad)
		return 0;
	pr_err("%s: %lu objects did not read back as stored %s\n",
	       ab_alloc_names[c->pool.kind], bad, when);
	return -EIO;
}

/* Records, or counts the changes of, every live object's location. */
static unsigned long locations(struct ab_ctx *c, bool compare)
{
	unsigned long moved = 0, w;
	unsigned int k, i;

	for (k = 0; k < c->nr_threads; k++) {
		struct ab_thread *t = &c->threads[k];

		for (i = 0; i < c->p->objs; i++) {
			if (!t->handle[i])
				continue;
			w = ab_location(&c->pool, t->handle[i]);
			if (compare)
				moved += w != t->loc[i];
			else
				t->loc[i] = w;
		}
	}
	return moved;
}

static int compact_pool(struct ab_ctx *c, struct ab_out *out,
			const char *prefix)
{
	struct ab_pool *pool = &c->pool;
	unsigned long before, after, compacted, copied, displaced;
	u64 t0, ns;

	before = ab_total_pages(pool);
	compacted = ab_pages_compacted(pool);
	copied = ab_objs_copied(pool);
	locations(c, false);
	t0 = ktime_get_ns();
	ab_compact(pool);
	ns = ktime_get_ns() - t0;
	after = ab_total_pages(pool);
	compacted = ab_pages_compacted(pool) - compacted;
	copied = ab_objs_copied(pool) - copied;
	displaced = locations(c, true);
	ab_printf(out, "%s compact ops=1 ns=%llu", prefix, ns);
	ab_printf(out, " pages_before=%lu pages_after=%lu pages_freed=%lu objs_displaced=%lu",
		  before, after, compacted, displaced);
	if (pool->kind == AB_ZSMALLOC) {
		ab_printf(out, "\n");
		return 0;
	}
	ab_printf(out, " objs_moved=%lu\n", copied);
	/* Every object displaced was copied at least once (alloc.h). */
	if (displaced > copied || (copied && !displaced)) {
		pr_err("%lu objects displaced, %lu copied: has HandleSlot changed?\n",
		       displaced, copied);
		return -EPROTO;
	}
	return 0;
}

/* The phase's line: ops, bytes, ns and the pool's pages after it. */
static void report(struct ab_ctx *c, struct ab_out *out, const char *prefix,
		   const char *phase, u64 ns)
{
	ab_printf(out, "%s %s ops=%llu bytes=%llu ns=%llu pages=%lu\n", prefix,
		  phase, sum_ops(c), sum_bytes(c), ns,
		  ab_total_pages(&c->pool));
}

static int nth_online_cpu(unsigned int n)
{
	unsigned int i = 0;
	int cpu;

	n %= num_online_cpus();
	for_each_online_cpu(cpu)
		if (i++ == n)
			return cpu;
	return cpumask_first(cpu_online_mask);
}

static void threads_free(struct ab_ctx *c)
{
	unsigned int k;

	for (k = 0; k < c->nr_threads; k++) {
		struct ab_thread *t = &c->threads[k];

		if (t->task)
			kthread_stop(t->task);
		kvfree(t->handle);
		kvfree(t->src);
		kvfree(t->order);
		kvfree(t->loc);
		kfree(t->copy);
	}
	kfree(c->threads);
}

static int threads_start(struct ab_ctx *c)
{
	unsigned int n = c->p->objs, k, i;

	c->threads = kcalloc(c->nr_threads, sizeof(*c->threads), GFP_KERNEL);
	if (!c->threads)
		return -ENOMEM;
	for (k = 0; k < c->nr_threads; k++) {
		struct ab_thread *t = &c->threads[k];

		t->ctx = c;
		t->id = k;
		t->rng = (c->p->seed + 1) * 0x9e3779b97f4a7c15ull + k;
		t->handle = kvcalloc(n, sizeof(*t->handle), GFP_KERNEL);
		t->src = kvmalloc_array(n, sizeof(*t->src), GFP_KERNEL);
		t->order = kvmalloc_array(n, sizeof(*t->order), GFP_KERNEL);
		t->loc = kvmalloc_array(n, sizeof(*t->loc), GFP_KERNEL);
		t->copy = kmalloc(PAGE_SIZE, GFP_KERNEL);
		if (!t->handle || !t->src || !t->order || !t->loc || !t->copy)
			return -ENOMEM;
		/* The threads start at different places in the data set. */
		for (i = 0; i < n; i++) {
			t->src[i] = (i + (u64)k * c->d->nr / c->nr_threads) %
				    c->d->nr;
			t->order[i] = i;
		}
		shuffle(t);
	}
	for (k = 0; k < c->nr_threads; k++) {
		struct ab_thread *t = &c->threads[k];
		struct task_struct *task;

		task = kthread_create(thread_fn, t, "zsng_ab/%u", k);
		if (IS_ERR(task))
			return PTR_ERR(task);
		kthread_bind(task, nth_online_cpu(k));
		t->task = task;
		wake_up_process(task);
	}
	return 0;
}

static int run_one(const struct ab_params *p, const struct ab_data *d,
		   enum ab_alloc kind, unsigned int nr_threads,
		   struct ab_out *out)
{
	struct ab_ctx c = {
		.p = p,
		.d = d,
		.nr_threads = nr_threads,
	};
	bool destroyed = false;
	char prefix[64];
	u64 ns, t0;
	int ret;

	snprintf(prefix, sizeof(prefix), "%s %s %u", ab_alloc_names[kind],
		 p->label, nr_threads);
	init_waitqueue_head(&c.go);
	init_waitqueue_head(&c.done);
	ret = ab_pool_create(&c.pool, kind, p->policy);
	if (ret)
		return ret;
	ret = threads_start(&c);
	if (ret)
		goto out;

	ns = run_phase(&c, AB_FILL);
	ret = first_error(&c);
	if (ret)
		goto destroy;
	report(&c, out, prefix, "fill", ns);
	ret = verify(&c, "after fill");
	if (ret)
		goto destroy;
	ns = run_phase(&c, AB_READ);
	report(&c, out, prefix, "read", ns);
	ns = run_phase(&c, AB_CHURN);
	ret = first_error(&c);
	if (ret)
		goto destroy;
	report(&c, out, prefix, "churn", ns);
	ret = verify(&c, "after churn");
	if (ret)
		goto destroy;
	ns = run_phase(&c, AB_FREE);
	report(&c, out, prefix, "free", ns);
	ret = compact_pool(&c, out, prefix);
	if (!ret)
		ret = verify(&c, "after compaction");
destroy:
	/*
	 * A pool is emptied before it is destroyed, as zram empties it on
	 * reset: zsmalloc's handle cache would complain of live objects.
	 */
	ns = run_phase(&c, AB_DESTROY);
	if (!ret) {
		t0 = ktime_get_ns();
		ab_pool_destroy(&c.pool);
		t0 = ktime_get_ns() - t0;
		destroyed = true;
		ab_printf(out, "%s destroy ops=%llu bytes=0 ns=%llu pool_ns=%llu pages=0\n",
			  prefix, sum_ops(&c), ns + t0, t0);
	}
out:
	threads_free(&c);
	if (!destroyed)
		ab_pool_destroy(&c.pool);
	return ret;
}

int ab_run(const struct ab_params *p, const struct ab_data *d,
	   struct ab_out *out)
{
	enum ab_alloc order[AB_NR_ALLOCS] = {
		p->first,
		p->first == AB_ZSMALLOC ? AB_ZSMALLOC_NG : AB_ZSMALLOC,
	};
	unsigned int i, k;
	int ret;

	for (i = 0; i < p->nr_counts; i++) {
		for (k = 0; k < AB_NR_ALLOCS; k++) {
			ret = run_one(p, d, order[k], p->threads[i], out);
			if (ret) {
				pr_err("%s, %s, %u threads: error %d\n",
				       ab_alloc_names[order[k]], p->label,
				       p->threads[i], ret);
				return ret;
			}
		}
	}
	return 0;
}

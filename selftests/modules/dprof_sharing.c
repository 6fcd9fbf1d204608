// SPDX-License-Identifier: GPL-2.0
/*
 * dprof_sharing: objects whose fields are used in ways known in advance,
 * by two kthreads pinned on CPUs A and B, so that object access histories
 * (and later the miss classification) can be checked against ground truth.
 *
 * Each round: A allocates one object and initialises it; A and B then run
 * ITERS iterations concurrently; A hands the object over through a
 * one-slot queue; B takes it and frees it.  Per object and field (one
 * cache line each unless stated), every access being one instruction:
 *
 *   offset  field          CPU A                     CPU B
 *        0  shared_count   ITERS reads, ITERS writes ITERS reads, ITERS writes
 *       64  written_by_a   ITERS writes              -           (line 1)
 *       72  written_by_b   -                         ITERS writes (line 1)
 *      128  read_mostly    1 write, ITERS reads      ITERS reads
 *      192  private_count  1 write, ITERS reads,     -
 *                          ITERS writes
 *      256  handoff_seq    1 write                   1 read
 *
 * true sharing (0), false sharing (64/72), read-mostly (128), CPU-private
 * (192), hand-off through a queue (256); every other offset is padding
 * that nothing touches.  The table is the ground truth the selftests use.
 *
 * The same rounds on objects of the cache dprof_atomics ("atomics ..."),
 * whose fields are shared the way the kernel shares: through atomics and
 * locks.  Per object and iteration, each field on its own line unless
 * stated (R: load, W: store, X: read-modify-write, a write for coherence):
 *
 *   field          CPU A                        CPU B
 *   refs           refcount_inc, refcount_dec   the same: X X
 *                  (lock xadd each): X X
 *   cas_word       READ_ONCE, try_cmpxchg:      the same: R X
 *                  R X (no retry: lockstep)
 *   xchg_word      xchg: X                      the same: X
 *   lock           spin_lock (lock cmpxchg,     the same: X W
 *                  uncontended), spin_unlock
 *                  (store release): X W
 *   bits           bit_spin_lock (lock bts),    the same: X X
 *                  bit_spin_unlock (lock and): X X
 *   plain_by_a     WRITE_ONCE: W                -            (line of
 *   hammered_by_b  -                            atomic_inc   hammered_by_b)
 *                                               twice: X X
 *   private_by_a   atomic64_inc: X              -
 *   handoff_seq    1 W                          1 R
 *
 * plus A's initialising stores to refs, lock and private_by_a (1 W
 * each).  Expected: refs, cas_word, xchg_word, lock and bits true
 * sharing (both CPUs write them); plain_by_a and hammered_by_b false
 * sharing (one line, each written by one CPU); private_by_a neither (an
 * atomic used by one CPU shares nothing).  Offsets are in "stats"
 * (offsetof, so a debug kernel's larger spinlock_t moves them).
 *
 * String instructions (test-string-truth.sh): "strings ROUNDS ITERS A B
 * [PAUSE_US]" runs lockstep rounds on dprof_sharing objects where each
 * iteration A clears the first 256 bytes with one rep stosq and B copies
 * them out with one rep movsq, so every offset below 256 takes one
 * access of each per iteration (plus the hand-off at 256, as ever).  A
 * data breakpoint sees each: the CPU traps inside the instruction after
 * the iteration that hit; QEMU's TCG reports only the first watched
 * offset of the instruction, which dprof makes up for (module/strop.h).
 *
 * A merged alias (test-cache-alias.sh): "dprof_alias", 192 bytes, no
 * constructor, is merged by SLUB into a compatible cache (its sysfs entry
 * is a symlink); unloading destroys the alias, which only drops a
 * reference.  "alias N" allocates and frees N objects through it.
 *
 * Control: write "run ROUNDS ITERS A B [PAUSE_US [LOCKSTEP]]" or
 * "atomics ROUNDS ITERS A B [PAUSE_US]" (always in lockstep) to
 * /sys/kernel/debug/dprof_sharing/ctl (returns when done);
 * /sys/kernel/debug/dprof_sharing/stats shows what ran.  PAUSE_US (up to
 * 10000) spaces the iterations out (busy wait, both threads), so that a
 * field is touched at a pace real objects see instead of in a tight loop.
 * LOCKSTEP=1 makes A's and B's iterations alternate (A's i-th, B's i-th,
 * A's (i+1)-th, ...; they sleep, not spin, while waiting), so the
 * interleaving, and with it which access follows another CPU's write, is
 * fixed whatever the scheduler does (a single-threaded TCG guest would
 * otherwise run one thread's whole loop before the other's).  Neither
 * changes the counts per iteration.
 *
 * A global, shared the way the kernel shares its globals (the ground
 * truth of watch_symbols=): "global ROUNDS ITERS A B [PAUSE_US]" runs the
 * rounds above in lockstep on dprof_sharing objects that nobody touches,
 * and per iteration
 *
 *   dprof_sharing_global   CPU A                 CPU B
 *   both (offset 0)        atomic_long_inc: X    atomic_long_inc: X
 *   a_only (offset 64)     atomic_long_inc: X    -
 *
 * so "both" is true sharing (written by both CPUs, each increment after
 * the other CPU's) and "a_only", an atomic on its own line used by one
 * CPU, is neither.  The variable is not exported: dprof finds it in
 * /proc/kallsyms.
 *
 * Working sets with known cache behaviour: "hold conflict N MS" keeps N
 * page-sized, page-aligned objects (cache dprof_conflict) and touches
 * the first line of each for MS milliseconds (replacing a 64th of them
 * after each pass, so that lives end all along): every object's line falls
 * in the sets whose index is a multiple of (page size / line size), too
 * few for N lines (conflict).  "hold capacity N MS" does the same with N
 * 256-byte objects (cache dprof_capacity), touching all four lines: spread
 * evenly over the sets, more lines than a small cache holds (capacity).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include <linux/kthread.h>
#include <linux/completion.h>
#include <linux/mutex.h>
#include <linux/wait.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/sched.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/bit_spinlock.h>
#include <linux/atomic.h>

/*
 * The struct as written.  scripts/check-advise-loop.sh builds the module
 * a second time, as dprof_sharing_adv, with DPROF_SHARING_LAYOUT naming a
 * header that scripts/advise-to-c.py generated from dprof-view advise's
 * proposal (the same members in the proposed order, with static asserts
 * of each offset), and DPROF_SHARING_CACHE naming the cache apart, so
 * that one referee run can tell the two builds' objects apart.  The code
 * uses the members by name only: both builds do the same accesses.
 */
#ifndef DPROF_SHARING_CACHE
#define DPROF_SHARING_CACHE "dprof_sharing"
#endif
#ifdef DPROF_SHARING_LAYOUT
#include DPROF_SHARING_LAYOUT
#else
struct dprof_sharing_obj {
	u64 shared_count;	/*   0 */
	u64 pad0[7];
	u64 written_by_a;	/*  64 */
	u64 written_by_b;	/*  72 */
	u64 pad1[6];
	u64 read_mostly;	/* 128 */
	u64 pad2[7];
	u64 private_count;	/* 192 */
	u64 pad3[7];
	u64 handoff_seq;	/* 256 */
	u64 pad4[7];
};				/* 320 bytes */
#endif

/* Each field on its own line: a larger spinlock_t cannot shift the others. */
struct dprof_atomics_obj {
	refcount_t refs ____cacheline_aligned;
	u64 cas_word ____cacheline_aligned;
	unsigned long xchg_word ____cacheline_aligned;
	spinlock_t lock ____cacheline_aligned;
	unsigned long bits ____cacheline_aligned;
	u64 plain_by_a ____cacheline_aligned;
	atomic_t hammered_by_b;		/* plain_by_a's line */
	u64 handoff_seq ____cacheline_aligned;
	atomic64_t private_by_a ____cacheline_aligned;
};

/*
 * What a run does to one kind of object: A's initialisation and each
 * thread's iteration.  The hand-off field is written by A and read by B.
 */
struct workload {
	struct kmem_cache **cache;
	void (*init)(void *obj, unsigned long round);
	void (*iter_a)(void *obj, unsigned long i);
	void (*iter_b)(void *obj, unsigned long i);
	size_t handoff;		/* offset of the u64 hand-off field */
};

static struct kmem_cache *cache, *atomics_cache;
static struct kmem_cache *conflict_cache, *capacity_cache, *large_cache;
static struct kmem_cache *alias_cache;
static struct dentry *dir;
static DEFINE_MUTEX(lock);	/* one run at a time */

/* The state of a run, shared by the two kthreads. */
static struct {
	unsigned long rounds, iters, pause_us;
	bool lockstep;
	unsigned long step;		/* lockstep: 2i for A's i-th, 2i+1 B's */
	const struct workload *wl;
	void *cur;			/* this round's object */
	void *slot;			/* the one-slot hand-off queue */
	unsigned long started;		/* rounds A has started */
	unsigned long b_done;		/* rounds B has finished */
	wait_queue_head_t wq;
	struct completion a_done, b_done_all;
	int err;
} run;

static unsigned long total_rounds, atomics_rounds, bad_handoffs, misplaced;

static void ctor(void *p)
{
	memset(p, 0, sizeof(struct dprof_sharing_obj));
}

static void atomics_ctor(void *p)
{
	memset(p, 0, sizeof(struct dprof_atomics_obj));
}

/* A constructor keeps SLUB's free pointer out of the held objects. */
static void hold_ctor(void *p)
{
	memset(p, 0, 64);
}

/* Keeps the compiler from merging a load and a store into one instruction. */
static void bump(u64 *field)
{
	u64 v = READ_ONCE(*field);

	barrier();
	WRITE_ONCE(*field, v + 1);
}

/* Lockstep: wait for this thread's turn, and pass the turn on. */
static void turn_wait(unsigned long want)
{
	if (!run.lockstep)
		return;
	/* Pairs with turn_pass(): the other thread's accesses came first. */
	wait_event(run.wq, smp_load_acquire(&run.step) == want);
}

static void turn_pass(unsigned long next)
{
	if (run.lockstep) {
		/* This iteration's accesses before the other thread's. */
		smp_store_release(&run.step, next);
		wake_up_all(&run.wq);
	}
}

/* Between iterations: PAUSE_US of work that touches no object field. */
static void pace(void)
{
	if (run.pause_us) {
		udelay(run.pause_us);
		cond_resched();
	}
}

/* ---- the plain fields (dprof_sharing) ---- */

static void sharing_obj_init(void *obj, unsigned long r)
{
	struct dprof_sharing_obj *o = obj;

	WRITE_ONCE(o->read_mostly, r);
	WRITE_ONCE(o->private_count, 0);
}

static void sharing_iter_a(void *obj, unsigned long i)
{
	struct dprof_sharing_obj *o = obj;

	bump(&o->shared_count);
	WRITE_ONCE(o->written_by_a, i);
	(void)READ_ONCE(o->read_mostly);	/* volatile: the load stays */
	bump(&o->private_count);
}

static void sharing_iter_b(void *obj, unsigned long i)
{
	struct dprof_sharing_obj *o = obj;

	bump(&o->shared_count);
	WRITE_ONCE(o->written_by_b, i);
	(void)READ_ONCE(o->read_mostly);	/* volatile: the load stays */
}

static const struct workload sharing_wl = {
	.cache = &cache,
	.init = sharing_obj_init,
	.iter_a = sharing_iter_a,
	.iter_b = sharing_iter_b,
	.handoff = offsetof(struct dprof_sharing_obj, handoff_seq),
};

/* ---- a global (watch_symbols=) ---- */

struct dprof_sharing_globals {
	atomic_long_t both;	/*  0 */
	long pad0[7];
	atomic_long_t a_only;	/* 64 */
	long pad1[7];
};				/* 128 bytes */

struct dprof_sharing_globals dprof_sharing_global __aligned(64);

static void global_init(void *obj, unsigned long r)
{
}

static void global_iter_a(void *obj, unsigned long i)
{
	atomic_long_inc(&dprof_sharing_global.both);
	atomic_long_inc(&dprof_sharing_global.a_only);
}

static void global_iter_b(void *obj, unsigned long i)
{
	atomic_long_inc(&dprof_sharing_global.both);
}

static const struct workload global_wl = {
	.cache = &cache,
	.init = global_init,
	.iter_a = global_iter_a,
	.iter_b = global_iter_b,
	.handoff = offsetof(struct dprof_sharing_obj, handoff_seq),
};

/* ---- string instructions (strop.h) ---- */

#define STRINGS_WORDS	(offsetof(struct dprof_sharing_obj, handoff_seq) / 8)

static void strings_init(void *obj, unsigned long r)
{
}

/* One rep stosq over the object's first 256 bytes: a memset, not inlined. */
static void strings_iter_a(void *obj, unsigned long i)
{
	unsigned long cx, di;

	asm volatile("rep stosq"
		     : "=&c"(cx), "=&D"(di)
		     : "0"(STRINGS_WORDS), "1"(obj), "a"(0UL)
		     : "memory");
}

/* One rep movsq of the same bytes out of the object: a memcpy. */
static void strings_iter_b(void *obj, unsigned long i)
{
	u64 copy[STRINGS_WORDS];
	unsigned long cx, di, si;

	asm volatile("rep movsq"
		     : "=&c"(cx), "=&D"(di), "=&S"(si)
		     : "0"(STRINGS_WORDS), "1"(copy), "2"(obj)
		     : "memory");
	barrier_data(copy);
}

static const struct workload strings_wl = {
	.cache = &cache,
	.init = strings_init,
	.iter_a = strings_iter_a,
	.iter_b = strings_iter_b,
	.handoff = offsetof(struct dprof_sharing_obj, handoff_seq),
};

/*
 * A per-CPU variable, for naming samples in per-CPU areas
 * (test-data-samples.sh): never accessed here; the test gives dprof
 * sampler=inject samples at its copies, whose addresses "stats" prints
 * from per_cpu_ptr().
 */
struct dprof_sharing_counters {
	long events;		/*  0 */
	long pad[7];
	long drops;		/* 64 */
};

DEFINE_PER_CPU(struct dprof_sharing_counters, dprof_sharing_pcpu);

/* ---- atomics and locks (dprof_atomics) ---- */

static void atomics_init(void *obj, unsigned long r)
{
	struct dprof_atomics_obj *o = obj;

	refcount_set(&o->refs, 1);
	spin_lock_init(&o->lock);
	atomic64_set(&o->private_by_a, 0);
}

/* The accesses both threads make, as the table says. */
static void atomics_both(struct dprof_atomics_obj *o, unsigned long i)
{
	u64 old;

	refcount_inc(&o->refs);
	refcount_dec(&o->refs);
	old = READ_ONCE(o->cas_word);
	while (!try_cmpxchg(&o->cas_word, &old, old + 1))
		;
	xchg(&o->xchg_word, i);
	spin_lock(&o->lock);
	spin_unlock(&o->lock);
	bit_spin_lock(0, &o->bits);
	bit_spin_unlock(0, &o->bits);
}

static void atomics_iter_a(void *obj, unsigned long i)
{
	struct dprof_atomics_obj *o = obj;

	atomics_both(o, i);
	WRITE_ONCE(o->plain_by_a, i);
	atomic64_inc(&o->private_by_a);
}

static void atomics_iter_b(void *obj, unsigned long i)
{
	struct dprof_atomics_obj *o = obj;

	atomics_both(o, i);
	atomic_inc(&o->hammered_by_b);
	atomic_inc(&o->hammered_by_b);
}

static const struct workload atomics_wl = {
	.cache = &atomics_cache,
	.init = atomics_init,
	.iter_a = atomics_iter_a,
	.iter_b = atomics_iter_b,
	.handoff = offsetof(struct dprof_atomics_obj, handoff_seq),
};

static u64 *handoff_of(void *obj)
{
	return (u64 *)((char *)obj + run.wl->handoff);
}

static int thread_a(void *arg)
{
	const struct workload *wl = run.wl;
	unsigned long r, i;

	for (r = 1; r <= run.rounds; r++) {
		void *o = kmem_cache_alloc(*wl->cache, GFP_KERNEL);

		if (!o) {
			run.err = -ENOMEM;
			break;
		}
		wl->init(o, r);
		WRITE_ONCE(run.cur, o);
		WRITE_ONCE(run.step, 0);
		/* Publishes the initialised object to B (acquire in B). */
		smp_store_release(&run.started, r);
		wake_up_all(&run.wq);
		for (i = 0; i < run.iters; i++) {
			turn_wait(2 * i);
			wl->iter_a(o, i);
			turn_pass(2 * i + 1);
			pace();
		}
		/* The queue holds one object: wait until B took the last. */
		wait_event(run.wq, !READ_ONCE(run.slot));
		WRITE_ONCE(*handoff_of(o), r);
		/* The hand-off field is visible before the object is queued. */
		smp_store_release(&run.slot, o);
		wake_up_all(&run.wq);
		/* Pairs with B's release: the object is freed. */
		wait_event(run.wq, smp_load_acquire(&run.b_done) >= r);
		if (raw_smp_processor_id() != (long)arg)
			misplaced++;
	}
	/* Lets B out of its wait when A stopped early. */
	smp_store_release(&run.started, run.rounds + 1);
	wake_up_all(&run.wq);
	complete(&run.a_done);
	return 0;
}

static int thread_b(void *arg)
{
	const struct workload *wl = run.wl;
	unsigned long r, i;

	for (r = 1; r <= run.rounds; r++) {
		void *o;

		/* Pairs with A's release of the new object. */
		wait_event(run.wq, smp_load_acquire(&run.started) >= r);
		if (run.err)
			break;
		o = READ_ONCE(run.cur);
		for (i = 0; i < run.iters; i++) {
			turn_wait(2 * i + 1);
			wl->iter_b(o, i);
			turn_pass(2 * i + 2);
			pace();
		}
		wait_event(run.wq, READ_ONCE(run.slot));
		o = xchg(&run.slot, NULL);	/* full barrier: sees the hand-off */
		if (READ_ONCE(*handoff_of(o)) != r)
			bad_handoffs++;
		if (raw_smp_processor_id() != (long)arg)
			misplaced++;
		kmem_cache_free(*wl->cache, o);
		/* The round is over: A may start the next one. */
		smp_store_release(&run.b_done, r);
		wake_up_all(&run.wq);
	}
	complete(&run.b_done_all);
	return 0;
}

static int start_on(int (*fn)(void *), int cpu, const char *name,
		    struct task_struct **task)
{
	*task = kthread_create_on_cpu(fn, (void *)(long)cpu, cpu, name);
	if (IS_ERR(*task))
		return PTR_ERR(*task);
	get_task_struct(*task);
	wake_up_process(*task);
	return 0;
}

static int do_run(const struct workload *wl, unsigned long rounds,
		  unsigned long iters, int a, int b, unsigned long pause_us,
		  bool lockstep)
{
	struct task_struct *ta, *tb;
	int ret;

	if (a == b || !cpu_online(a) || !cpu_online(b) || !rounds ||
	    iters > 1000000 || pause_us > 10000)
		return -EINVAL;
	memset(&run, 0, sizeof(run));
	init_waitqueue_head(&run.wq);
	init_completion(&run.a_done);
	init_completion(&run.b_done_all);
	run.wl = wl;
	run.rounds = rounds;
	run.iters = iters;
	run.pause_us = pause_us;
	run.lockstep = lockstep;
	cpus_read_lock();
	ret = start_on(thread_b, b, "dprof_share_b/%u", &tb);
	if (ret)
		goto out;
	ret = start_on(thread_a, a, "dprof_share_a/%u", &ta);
	if (ret) {
		/* B waits for rounds that never start: let it see an error. */
		run.err = ret;
		/* Publishes the error with the end of the rounds. */
		smp_store_release(&run.started, rounds + 1);
		wake_up_all(&run.wq);
		wait_for_completion(&run.b_done_all);
		kthread_stop(tb);
		put_task_struct(tb);
		goto out;
	}
	/*
	 * kthread_stop() before a thread ran would keep its function from
	 * ever running: wait for both to finish, then reap them.
	 */
	wait_for_completion(&run.a_done);
	wait_for_completion(&run.b_done_all);
	kthread_stop(ta);
	kthread_stop(tb);
	put_task_struct(ta);
	put_task_struct(tb);
	if (wl == &atomics_wl)
		atomics_rounds += run.b_done;
	else
		total_rounds += run.b_done;
	ret = run.err;
out:
	cpus_read_unlock();
	return ret;
}

#define HOLD_MAX 65536

/*
 * Keep @n objects live for @ms, touching @lines lines of each, replacing
 * 1/64th of them after every pass so that lives end and begin all along
 * (object access histories follow new objects to their free), then free
 * them all.
 */
static int hold(struct kmem_cache *c, unsigned long n, unsigned long ms,
		unsigned int lines)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms), i, next = 0;
	void **objs;
	int ret = 0;

	if (!n || n > HOLD_MAX || ms > 10000)
		return -EINVAL;
	objs = kvcalloc(n, sizeof(*objs), GFP_KERNEL);
	if (!objs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		objs[i] = kmem_cache_alloc(c, GFP_KERNEL);
		if (!objs[i]) {
			ret = -ENOMEM;
			break;
		}
	}
	while (!ret && time_before(jiffies, end)) {
		for (i = 0; i < n; i++) {
			unsigned int l;

			for (l = 0; l < lines; l++)
				bump((u64 *)((char *)objs[i] + l * 64));
		}
		for (i = 0; i < DIV_ROUND_UP(n, 64) && !ret; i++) {
			kmem_cache_free(c, objs[next]);
			objs[next] = kmem_cache_alloc(c, GFP_KERNEL);
			if (!objs[next])
				ret = -ENOMEM;
			next = (next + 1) % n;
		}
		cond_resched();
	}
	for (i = 0; i < n; i++)
		if (objs[i])
			kmem_cache_free(c, objs[i]);
	kvfree(objs);
	return ret;
}

static ssize_t ctl_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	char cmd[80], what[16];
	const struct workload *wl = &sharing_wl;
	unsigned long rounds, iters, pause_us = 0;
	int a, b, lockstep = 0, ret;

	if (count >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, count))
		return -EFAULT;
	cmd[count] = '\0';
	if (sscanf(cmd, "hold %15s %lu %lu", what, &rounds, &iters) == 3) {
		if (!strcmp(what, "conflict"))
			ret = hold(conflict_cache, rounds, iters, 1);
		else if (!strcmp(what, "capacity"))
			ret = hold(capacity_cache, rounds, iters, 4);
		else
			ret = -EINVAL;
		return ret ? ret : count;
	}
	if (sscanf(cmd, "alias %lu", &rounds) == 1) {
		for (; rounds; rounds--) {
			void *obj = kmem_cache_alloc(alias_cache, GFP_KERNEL);

			if (!obj)
				return -ENOMEM;
			kmem_cache_free(alias_cache, obj);
		}
		return count;
	}
	if (sscanf(cmd, "atomics %lu %lu %d %d %lu", &rounds, &iters, &a, &b,
		   &pause_us) >= 4) {
		wl = &atomics_wl;
		lockstep = 1;	/* uncontended: no lock or cmpxchg retries */
	} else if (sscanf(cmd, "global %lu %lu %d %d %lu", &rounds, &iters,
			  &a, &b, &pause_us) >= 4) {
		wl = &global_wl;
		lockstep = 1;	/* each increment follows the other CPU's */
	} else if (sscanf(cmd, "strings %lu %lu %d %d %lu", &rounds, &iters,
			  &a, &b, &pause_us) >= 4) {
		wl = &strings_wl;
		lockstep = 1;
	} else if (sscanf(cmd, "run %lu %lu %d %d %lu %d", &rounds, &iters,
			  &a, &b, &pause_us, &lockstep) < 4 ||
		   lockstep < 0 || lockstep > 1) {
		return -EINVAL;
	}
	mutex_lock(&lock);
	ret = do_run(wl, rounds, iters, a, b, pause_us, lockstep);
	mutex_unlock(&lock);
	return ret ? ret : count;
}

static const struct file_operations ctl_fops = {
	.owner = THIS_MODULE,
	.write = ctl_write,
};

static int stats_show(struct seq_file *m, void *v)
{
	unsigned int cpu;

	mutex_lock(&lock);
	seq_printf(m, "rounds %lu\n", total_rounds);
	seq_printf(m, "bad_handoffs %lu\n", bad_handoffs);
	seq_printf(m, "misplaced %lu\n", misplaced);
	seq_printf(m, "object_size %u\n", kmem_cache_size(cache));
	seq_printf(m, "atomics_rounds %lu\n", atomics_rounds);
	seq_printf(m, "atomics_object_size %u\n", kmem_cache_size(atomics_cache));
#define SHOW_OFFSET(f) \
	seq_printf(m, "atomics_offset %s %zu\n", #f, \
		   offsetof(struct dprof_atomics_obj, f))
	SHOW_OFFSET(refs);
	SHOW_OFFSET(cas_word);
	SHOW_OFFSET(xchg_word);
	SHOW_OFFSET(lock);
	SHOW_OFFSET(bits);
	SHOW_OFFSET(plain_by_a);
	SHOW_OFFSET(hammered_by_b);
	SHOW_OFFSET(handoff_seq);
	SHOW_OFFSET(private_by_a);
#undef SHOW_OFFSET
#define SHOW_OFFSET(f) \
	seq_printf(m, "sharing_offset %s %zu\n", #f, \
		   offsetof(struct dprof_sharing_obj, f))
	SHOW_OFFSET(shared_count);
	SHOW_OFFSET(written_by_a);
	SHOW_OFFSET(written_by_b);
	SHOW_OFFSET(read_mostly);
	SHOW_OFFSET(private_count);
	SHOW_OFFSET(handoff_seq);
#undef SHOW_OFFSET
	seq_printf(m, "global_offset both %zu\n",
		   offsetof(struct dprof_sharing_globals, both));
	seq_printf(m, "global_offset a_only %zu\n",
		   offsetof(struct dprof_sharing_globals, a_only));
	seq_printf(m, "global both %ld a_only %ld\n",
		   atomic_long_read(&dprof_sharing_global.both),
		   atomic_long_read(&dprof_sharing_global.a_only));
	/* Raw addresses for the tests (debugfs, root only). */
	seq_printf(m, "global_addr %lx\n",
		   (unsigned long)&dprof_sharing_global);
	seq_printf(m, "pcpu_offset drops %zu\n",
		   offsetof(struct dprof_sharing_counters, drops));
	for_each_possible_cpu(cpu) {
		seq_printf(m, "pcpu_addr %u %lx\n", cpu,
			   (unsigned long)per_cpu_ptr(&dprof_sharing_pcpu, cpu));
		seq_printf(m, "per_cpu_offset %u %lx\n", cpu,
			   per_cpu_offset(cpu));
	}
	mutex_unlock(&lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static int __init sharing_init(void)
{
	/*
	 * Objects start on a cache line, so the fields' lines are as the
	 * table says; the constructor keeps SLUB's free pointer out of the
	 * object (and the cache unmerged).
	 */
	cache = kmem_cache_create(DPROF_SHARING_CACHE,
				  sizeof(struct dprof_sharing_obj), 0,
				  SLAB_HWCACHE_ALIGN, ctor);
	if (!cache)
		return -ENOMEM;
	atomics_cache = kmem_cache_create("dprof_atomics",
					  sizeof(struct dprof_atomics_obj), 0,
					  SLAB_HWCACHE_ALIGN, atomics_ctor);
	conflict_cache = kmem_cache_create("dprof_conflict", PAGE_SIZE,
					   PAGE_SIZE, 0, hold_ctor);
	capacity_cache = kmem_cache_create("dprof_capacity", 256, 0,
					   SLAB_HWCACHE_ALIGN, hold_ctor);
	/*
	 * Objects past 64 KiB, whose offsets dprof cannot record in 16
	 * bits: only for the load to refuse (test-bad-params.sh); no object
	 * is ever allocated from it.
	 */
	large_cache = kmem_cache_create("dprof_large", 96 << 10, 0, 0,
					hold_ctor);
	alias_cache = kmem_cache_create("dprof_alias", 192, 0, 0, NULL);
	if (!atomics_cache || !conflict_cache || !capacity_cache ||
	    !large_cache || !alias_cache) {
		kmem_cache_destroy(alias_cache);
		kmem_cache_destroy(large_cache);
		kmem_cache_destroy(capacity_cache);
		kmem_cache_destroy(conflict_cache);
		kmem_cache_destroy(atomics_cache);
		kmem_cache_destroy(cache);
		return -ENOMEM;
	}
	dir = debugfs_create_dir("dprof_sharing", NULL);
	debugfs_create_file("ctl", 0200, dir, NULL, &ctl_fops);
	debugfs_create_file("stats", 0400, dir, NULL, &stats_fops);
	return 0;
}

static void __exit sharing_exit(void)
{
	debugfs_remove_recursive(dir);
	kmem_cache_destroy(alias_cache);
	kmem_cache_destroy(large_cache);
	kmem_cache_destroy(capacity_cache);
	kmem_cache_destroy(conflict_cache);
	kmem_cache_destroy(atomics_cache);
	kmem_cache_destroy(cache);
}

module_init(sharing_init);
module_exit(sharing_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("dprof test workload: fields shared, private, read-mostly and handed over in known ways");
MODULE_INFO(test, "Y");

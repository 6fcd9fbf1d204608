// SPDX-License-Identifier: GPL-2.0
/*
 * dprof_fastpath: a long-lived object touched on two known paths, for
 * dprof-view advise by hot path (the table, the groups, the guard).
 *
 * At load it allocates `objects` objects of struct fastpath_obj from a
 * cache of its own, "dprof_fastpath", and starts two kthreads that sweep
 * them for as long as it is loaded (objects that outlive every history,
 * as a socket does):
 *
 *  transmit, CPU 0: fastpath_tx_one() reads tx_ro_a, tx_ro_b and
 *	both_ro, adds to tx_rw under lock, increments both_rw (atomic);
 *	every fourth object it also runs fastpath_rx_one() nested, as a
 *	loopback's receive runs inside a send.
 *  receive, CPU 1: fastpath_rx_one() reads rx_ro and both_ro, adds to
 *	rx_rw (atomic) under lock, increments both_rw (atomic).
 *
 * The two sweeps go in opposite directions, so the lock is seldom
 * contended (a spinning waiter's loads would blur the lock's stores).
 * With the paths named tx=fastpath_tx_one and rx=fastpath_rx_one (the
 * innermost on a chain wins: the nested receive is receive), the
 * maintainers' table is known in advance:
 *
 *	member   tx           rx
 *	rx_ro    -            read_mostly
 *	tx_ro_a  read_mostly  -
 *	both_ro  read_mostly  read_mostly
 *	tx_rw    read_write   -
 *	both_rw  read_write   read_write
 *	tx_ro_b  read_mostly  -
 *	lock     read_write   read_write
 *	rx_rw    -            read_write
 *
 * and the cold_* members are on no path.  Today each hot member sits on
 * a line of its own (tx touches 6 lines, rx 5); their 56 bytes fit one.
 *
 * With hold=1 the kthreads wait for a write to debugfs
 * dprof_fastpath/go, so that a profiler loaded in between sees every
 * call.  The calls of fastpath_tx_one() and fastpath_rx_one(), nested
 * ones included, are counted by the sweeps (not inside the functions,
 * whose instructions are the samples' ground truth): debugfs stats, and
 * the kernel log at unload, when they are final (dprof's ops= is held
 * to them).
 *
 * The struct has one cache-line group, fastpath_obj_tx, from tx_ro_a to
 * tx_rw; the build dprof_fastpath_moved.ko (FASTPATH_MOVED) moves tx_rw
 * out of it, for the guard's two builds.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/kthread.h>
#include <linux/wait.h>
#include <linux/atomic.h>
#include <linux/spinlock.h>
#include <linux/cache.h>

/* The kernel's markers (include/linux/cache.h, 6.8 on); 6.1 lacks them. */
#ifndef __cacheline_group_begin
#define __cacheline_group_begin(GROUP) __u8 __cacheline_group_begin__##GROUP[0]
#define __cacheline_group_end(GROUP) __u8 __cacheline_group_end__##GROUP[0]
#endif

struct fastpath_obj {
	u64 rx_ro;			/* line 0 */
	u64 cold_a[7];

	__cacheline_group_begin(fastpath_obj_tx);

	u64 tx_ro_a;			/* line 1 */
	u64 cold_b[7];
	u64 both_ro;			/* line 2 */
	u64 cold_c[7];
#ifndef FASTPATH_MOVED
	u64 tx_rw;			/* line 3 */
	u64 cold_d[7];

	__cacheline_group_end(fastpath_obj_tx);
#else
	__cacheline_group_end(fastpath_obj_tx);

	u64 tx_rw;			/* line 3, out of the group */
	u64 cold_d[7];
#endif
	atomic_t both_rw;		/* line 4 */
	u32 cold_e;
	u64 cold_f[7];
	u64 tx_ro_b;			/* line 5 */
	u64 cold_g[7];
	spinlock_t lock;		/* line 6 */
	u32 cold_h;
	u64 cold_i[7];
	atomic_long_t rx_rw;		/* line 7 */
	u64 cold_j[7];
};

static unsigned int objects = 256;
module_param(objects, uint, 0444);
MODULE_PARM_DESC(objects, "Objects swept (16..65536, default 256)");

static struct kmem_cache *cache;
static struct fastpath_obj **objs;
static struct task_struct *tx_thread, *rx_thread;
static atomic64_t tx_sweeps, rx_sweeps;
static atomic64_t tx_calls, rx_calls;	/* of the two functions */
static struct dentry *dir;

static bool hold;
module_param(hold, bool, 0444);
MODULE_PARM_DESC(hold, "The sweeps wait for a write to debugfs dprof_fastpath/go");
static bool go;
static DECLARE_WAIT_QUEUE_HEAD(go_wq);

static void wait_for_go(void)
{
	wait_event_interruptible(go_wq, READ_ONCE(go) || kthread_should_stop());
}

static noinline void fastpath_rx_one(struct fastpath_obj *o)
{
	u64 r = READ_ONCE(o->rx_ro) + READ_ONCE(o->both_ro);

	spin_lock(&o->lock);
	atomic_long_add(r | 1, &o->rx_rw);
	spin_unlock(&o->lock);
	atomic_inc(&o->both_rw);
}

static noinline void fastpath_tx_one(struct fastpath_obj *o, unsigned int i)
{
	u64 r = READ_ONCE(o->tx_ro_a) + READ_ONCE(o->tx_ro_b) +
		READ_ONCE(o->both_ro);

	spin_lock(&o->lock);
	WRITE_ONCE(o->tx_rw, o->tx_rw + (r | 1));
	spin_unlock(&o->lock);
	atomic_inc(&o->both_rw);
	if (!(i & 3))
		fastpath_rx_one(o);	/* receive inside a send */
}

static int fastpath_tx_thread(void *unused)
{
	unsigned int i;

	wait_for_go();
	while (!kthread_should_stop()) {
		for (i = 0; i < objects; i++)
			fastpath_tx_one(objs[i], i);
		atomic64_inc(&tx_sweeps);
		atomic64_add(objects, &tx_calls);
		atomic64_add((objects + 3) / 4, &rx_calls);	/* nested */
		cond_resched();
	}
	return 0;
}

static int fastpath_rx_thread(void *unused)
{
	unsigned int i;

	wait_for_go();
	while (!kthread_should_stop()) {
		for (i = objects; i-- > 0;)
			fastpath_rx_one(objs[i]);
		atomic64_inc(&rx_sweeps);
		atomic64_add(objects, &rx_calls);
		cond_resched();
	}
	return 0;
}

static int stats_show(struct seq_file *m, void *v)
{
	seq_printf(m, "objects %u size %zu\n", objects,
		   sizeof(struct fastpath_obj));
	seq_printf(m, "tx sweeps %lld rx sweeps %lld\n",
		   (long long)atomic64_read(&tx_sweeps),
		   (long long)atomic64_read(&rx_sweeps));
	seq_printf(m, "calls fastpath_tx_one %lld fastpath_rx_one %lld\n",
		   (long long)atomic64_read(&tx_calls),
		   (long long)atomic64_read(&rx_calls));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static ssize_t go_write(struct file *file, const char __user *buf,
			size_t count, loff_t *ppos)
{
	WRITE_ONCE(go, true);
	wake_up_all(&go_wq);
	return count;
}

static const struct file_operations go_fops = {
	.owner = THIS_MODULE,
	.write = go_write,
};

static void free_all(void)
{
	unsigned int i;

	for (i = 0; objs && i < objects; i++)
		if (objs[i])
			kmem_cache_free(cache, objs[i]);
	kvfree(objs);
	kmem_cache_destroy(cache);
}

static struct task_struct *start(int (*fn)(void *), const char *name,
				 unsigned int cpu)
{
	struct task_struct *t = kthread_create(fn, NULL, "%s", name);

	if (!IS_ERR(t)) {
		kthread_bind(t, cpu);
		wake_up_process(t);
	}
	return t;
}

static int __init fastpath_init(void)
{
	unsigned int i;

	if (objects < 16 || objects > 65536 || num_online_cpus() < 2) {
		pr_err("objects=%u must be 16..65536, and 2 CPUs online\n",
		       objects);
		return -EINVAL;
	}
	cache = kmem_cache_create("dprof_fastpath", sizeof(struct fastpath_obj),
				  0, SLAB_HWCACHE_ALIGN, NULL);
	objs = kvcalloc(objects, sizeof(*objs), GFP_KERNEL);
	if (!cache || !objs)
		goto nomem;
	for (i = 0; i < objects; i++) {
		objs[i] = kmem_cache_zalloc(cache, GFP_KERNEL);
		if (!objs[i])
			goto nomem;
		spin_lock_init(&objs[i]->lock);
		objs[i]->rx_ro = i;
		objs[i]->tx_ro_a = i;
		objs[i]->tx_ro_b = i;
		objs[i]->both_ro = i;
	}
	tx_thread = start(fastpath_tx_thread, "dprof_fp_tx", 0);
	if (IS_ERR(tx_thread)) {
		free_all();
		return PTR_ERR(tx_thread);
	}
	rx_thread = start(fastpath_rx_thread, "dprof_fp_rx", 1);
	if (IS_ERR(rx_thread)) {
		kthread_stop(tx_thread);
		free_all();
		return PTR_ERR(rx_thread);
	}
	dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("stats", 0400, dir, NULL, &stats_fops);
	debugfs_create_file("go", 0200, dir, NULL, &go_fops);
	if (!hold)
		go_write(NULL, NULL, 0, NULL);
	return 0;
nomem:
	free_all();
	return -ENOMEM;
}

static void __exit fastpath_exit(void)
{
	debugfs_remove_recursive(dir);
	kthread_stop(tx_thread);
	kthread_stop(rx_thread);
	pr_info("calls fastpath_tx_one %lld fastpath_rx_one %lld\n",
		(long long)atomic64_read(&tx_calls),
		(long long)atomic64_read(&rx_calls));
	free_all();
}

module_init(fastpath_init);
module_exit(fastpath_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("dprof ground truth: a long-lived object on two known paths");

// SPDX-License-Identifier: GPL-2.0
/*
 * dprof_caches: slab caches created and destroyed the ways that ended
 * target lives wrongly (issue "Review", points 1-3), for
 * selftests/test-cache-lives.sh.  Commands, written to
 * /sys/kernel/debug/dprof_caches/ctl, return when done:
 *
 *   storm N     create N caches dprof_storm_<i> (SLAB_TYPESAFE_BY_RCU, so
 *               never merged; one object allocated and freed in each, so
 *               target=all's rescan sees them)
 *   destroy     destroy every storm cache at once: one kthread each,
 *               released together, so all their kmem_cache_destroy()
 *               calls are in flight together (they queue on slab_mutex)
 *   alias SIZE  create dprof_alias_a of SIZE bytes, then dprof_alias_b of
 *               the same size, which SLUB merges into dprof_alias_a (with
 *               slab merging on): one struct kmem_cache, two references
 *   unalias     destroy both from two threads on two CPUs released
 *               together; a kprobe on kmem_cache_destroy() holds each
 *               call at its entry (up to 100 ms) until both are there,
 *               so both are in flight when the first returns: that
 *               return must not bring the target back while the second
 *               destroy, the one that frees the cache, runs
 *   churn N     N rounds of: create dprof_churn_<i>, allocate and free one
 *               object, destroy it; while target=all rescans
 *   rcu N       allocate N objects of dprof_rcu (created at load; 64 bytes
 *               with an rcu_head) and free every one with kfree_rcu(),
 *               which hands them back later in batches (kfree_bulk() ->
 *               kmem_cache_free_bulk(NULL, ...), or one by one)
 *   keep        create dprof_keeper (the same size as the churn caches, so
 *               it is likely to land where one of them was) and allocate
 *               100 objects from it, kept until unload
 *   buckets     kmem_buckets_create("dprof_bkt"): a cache dprof_bkt-N for
 *               every kmalloc size N, the way msg_msg and memdup_user
 *               allocate on kernels with CONFIG_SLAB_BUCKETS (EOPNOTSUPP
 *               without it: Debian's 6.1)
 *   bucket_alloc N SIZE
 *               allocate N objects of SIZE bytes with kmem_buckets_alloc()
 *               (so from dprof_bkt-<kmalloc size of SIZE>), then kfree()
 *               them all
 *
 * /sys/kernel/debug/dprof_caches/stats: "storm N alias A keeper K
 * meet_timeouts T" (unalias calls that did not meet within 100 ms).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/kthread.h>
#include <linux/completion.h>
#include <linux/atomic.h>
#include <linux/uaccess.h>
#include <linux/kprobes.h>
#include <linux/delay.h>
#include <linux/rcupdate.h>
#include <linux/version.h>

/*
 * kvfree_rcu_barrier() exists from 6.12; 6.1's kfree_rcu batches drain
 * within seconds of an rcu_barrier(), which is all a test module needs.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#define dprof_kvfree_rcu_barrier()	kvfree_rcu_barrier()
#else
#define dprof_kvfree_rcu_barrier()	msleep(5000)
#endif

#define MAX_STORM	256
#define CHURN_SIZE	456	/* an odd size: its own caches, not merged */
#define KEEPER_OBJS	100

static struct kmem_cache *storm[MAX_STORM];
static unsigned int nr_storm;
static struct kmem_cache *alias_a, *alias_b;
static struct kmem_cache *keeper;
static void *keeper_objs[KEEPER_OBJS];
static struct dentry *dir;
static DEFINE_MUTEX(ctl_lock);

struct rcu_obj {
	struct rcu_head rcu;
	u64 payload[6];
};

static struct kmem_cache *rcu_cache;
static bool rcu_used;

#ifdef CONFIG_SLAB_BUCKETS
/* A kmem_buckets *, spelled out: checkpatch takes the typedef for a value. */
static struct kmem_cache *(*buckets)[KMALLOC_SHIFT_HIGH + 1];

static int buckets_create(void)
{
	if (buckets)
		return -EBUSY;
	buckets = kmem_buckets_create("dprof_bkt", 0, 0, 0, NULL);
	return buckets ? 0 : -ENOMEM;
}

static int bucket_alloc(unsigned int n, unsigned int size)
{
	void **objs;
	unsigned int i;
	int ret = 0;

	if (!buckets || !n || n > 100000 || !size || size > 8192)
		return -EINVAL;
	objs = kvcalloc(n, sizeof(*objs), GFP_KERNEL);
	if (!objs)
		return -ENOMEM;
	for (i = 0; i < n && !ret; i++) {
		objs[i] = kmem_buckets_alloc(buckets, size, GFP_KERNEL);
		if (!objs[i])
			ret = -ENOMEM;
	}
	for (i = 0; i < n; i++)
		kfree(objs[i]);
	kvfree(objs);
	return ret;
}

/*
 * No kmem_buckets_destroy() in 6.12: destroy each cache once (smaller
 * sizes share one), then the array, a slab object kfree() takes back.
 */
static void buckets_destroy(void)
{
	unsigned int i, j;

	if (!buckets)
		return;
	for (i = 0; i < ARRAY_SIZE(*buckets); i++) {
		bool seen = false;

		for (j = 0; j < i; j++)
			seen |= (*buckets)[j] == (*buckets)[i];
		if (!seen)
			kmem_cache_destroy((*buckets)[i]);
	}
	kfree(buckets);
	buckets = NULL;
}
#else
static int buckets_create(void)
{
	return -EOPNOTSUPP;
}

static int bucket_alloc(unsigned int n, unsigned int size)
{
	return -EOPNOTSUPP;
}

static void buckets_destroy(void)
{
}
#endif

/* unalias: the merged cache whose destroys meet at entry, and how many came. */
static const struct kmem_cache *meet_cache;
static atomic_t meet_count;
static unsigned int meet_timeouts;

static int meet_pre(struct kprobe *kp, struct pt_regs *regs)
{
	const void *s = (const void *)regs_get_kernel_argument(regs, 0);
	unsigned int waited = 0;

	if (!s || s != READ_ONCE(meet_cache))
		return 0;
	atomic_inc(&meet_count);
	while (atomic_read(&meet_count) < 2 && waited++ < 100000)
		udelay(1);
	if (atomic_read(&meet_count) < 2)
		meet_timeouts++;
	return 0;
}

static struct kprobe meet_probe = {
	.symbol_name = "kmem_cache_destroy",
	.pre_handler = meet_pre,
};

/* A cache with one object allocated and freed: a rescan's cue. */
static struct kmem_cache *cache_touched(const char *name, unsigned int size,
					slab_flags_t flags)
{
	struct kmem_cache *s = kmem_cache_create(name, size, 0, flags, NULL);
	void *obj;

	if (!s)
		return NULL;
	obj = kmem_cache_alloc(s, GFP_KERNEL);
	if (obj)
		kmem_cache_free(s, obj);
	return s;
}

static int storm_create(unsigned int n)
{
	char name[32];

	if (nr_storm || !n || n > MAX_STORM)
		return -EINVAL;
	for (nr_storm = 0; nr_storm < n; nr_storm++) {
		snprintf(name, sizeof(name), "dprof_storm_%u", nr_storm);
		storm[nr_storm] = cache_touched(name, 64, SLAB_TYPESAFE_BY_RCU);
		if (!storm[nr_storm])
			return -ENOMEM;
	}
	return 0;
}

/* Threads that each destroy one cache once all of them are ready. */
struct destroyer {
	struct kmem_cache *s;
	struct completion *go;
	atomic_t *ready;
	struct completion done;
};

static int destroyer_fn(void *arg)
{
	struct destroyer *d = arg;

	atomic_inc(d->ready);
	wait_for_completion(d->go);
	kmem_cache_destroy(d->s);
	complete(&d->done);
	return 0;
}

static int destroy_together(struct kmem_cache **caches, unsigned int n)
{
	struct task_struct *task;
	DECLARE_COMPLETION_ONSTACK(go);
	struct destroyer *d;
	atomic_t ready = ATOMIC_INIT(0);
	unsigned int i, started = 0;
	bool *running;

	d = kcalloc(n, sizeof(*d), GFP_KERNEL);
	running = kcalloc(n, sizeof(*running), GFP_KERNEL);
	if (!d || !running) {
		kfree(d);
		kfree(running);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		d[i].s = caches[i];
		d[i].go = &go;
		d[i].ready = &ready;
		init_completion(&d[i].done);
		task = kthread_create(destroyer_fn, &d[i], "dprof_destroy/%u", i);
		running[i] = !IS_ERR(task);
		if (!running[i])
			continue;
		/* Spread over the CPUs: the destroys must overlap. */
		kthread_bind(task, cpumask_nth(i % num_online_cpus(),
					       cpu_online_mask));
		wake_up_process(task);
		started++;
	}
	while (atomic_read(&ready) < started)
		schedule_timeout_uninterruptible(1);
	complete_all(&go);
	for (i = 0; i < n; i++) {
		if (running[i])
			wait_for_completion(&d[i].done);
		else
			kmem_cache_destroy(caches[i]);	/* no thread: here */
		caches[i] = NULL;
	}
	kfree(running);
	kfree(d);
	return 0;
}

static int churn(unsigned int rounds)
{
	static unsigned int seq;
	char name[32];
	unsigned int i;

	for (i = 0; i < rounds; i++) {
		struct kmem_cache *s;

		snprintf(name, sizeof(name), "dprof_churn_%u", seq++);
		s = cache_touched(name, CHURN_SIZE, 0);
		if (!s)
			return -ENOMEM;
		kmem_cache_destroy(s);
		cond_resched();
	}
	return 0;
}

static int rcu_free(unsigned int n)
{
	unsigned int i;

	rcu_used = true;
	for (i = 0; i < n; i++) {
		struct rcu_obj *o = kmem_cache_alloc(rcu_cache, GFP_KERNEL);

		if (!o)
			return -ENOMEM;
		o->payload[0] = i;
		kfree_rcu(o, rcu);
		if (!(i % 256))
			cond_resched();
	}
	return 0;
}

static int keep(void)
{
	unsigned int i;

	if (keeper)
		return -EBUSY;
	keeper = kmem_cache_create("dprof_keeper", CHURN_SIZE, 0, 0, NULL);
	if (!keeper)
		return -ENOMEM;
	for (i = 0; i < KEEPER_OBJS; i++)
		keeper_objs[i] = kmem_cache_alloc(keeper, GFP_KERNEL);
	return 0;
}

static int handle(const char *cmd)
{
	struct kmem_cache *pair[2];
	char name[16];
	unsigned int n = 0, size = 0;
	int ret;

	if (sscanf(cmd, "%15s %u %u", name, &n, &size) < 1)
		return -EINVAL;
	if (!strcmp(name, "buckets"))
		return buckets_create();
	if (!strcmp(name, "bucket_alloc"))
		return bucket_alloc(n, size);
	if (!strcmp(name, "storm"))
		return storm_create(n);
	if (!strcmp(name, "destroy")) {
		if (!nr_storm)
			return -EINVAL;
		destroy_together(storm, nr_storm);
		nr_storm = 0;
		return 0;
	}
	if (!strcmp(name, "alias")) {
		if (alias_a || !n)
			return -EINVAL;
		alias_a = cache_touched("dprof_alias_a", n, 0);
		alias_b = cache_touched("dprof_alias_b", n, 0);
		return alias_a && alias_b ? 0 : -ENOMEM;
	}
	if (!strcmp(name, "unalias")) {
		if (!alias_a || !alias_b)
			return -EINVAL;
		pair[0] = alias_a;
		pair[1] = alias_b;
		alias_a = NULL;
		alias_b = NULL;
		atomic_set(&meet_count, 0);
		WRITE_ONCE(meet_cache, pair[0] == pair[1] ? pair[0] : NULL);
		ret = destroy_together(pair, 2);
		WRITE_ONCE(meet_cache, NULL);
		return ret;
	}
	if (!strcmp(name, "churn"))
		return churn(n);
	if (!strcmp(name, "keep"))
		return keep();
	if (!strcmp(name, "rcu"))
		return rcu_free(n);
	return -EINVAL;
}

static ssize_t ctl_write(struct file *file, const char __user *ubuf,
			 size_t len, loff_t *ppos)
{
	char cmd[64];
	int ret;

	if (len >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, len))
		return -EFAULT;
	cmd[len] = 0;
	mutex_lock(&ctl_lock);
	ret = handle(cmd);
	mutex_unlock(&ctl_lock);
	return ret ? ret : len;
}

static const struct file_operations ctl_fops = {
	.owner = THIS_MODULE,
	.write = ctl_write,
};

static int stats_show(struct seq_file *m, void *v)
{
	seq_printf(m, "storm %u alias %d keeper %d meet_timeouts %u\n",
		   nr_storm, !!alias_a, !!keeper, meet_timeouts);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static int __init caches_init(void)
{
	int ret;

	rcu_cache = kmem_cache_create("dprof_rcu", sizeof(struct rcu_obj), 0,
				      0, NULL);
	if (!rcu_cache)
		return -ENOMEM;
	ret = register_kprobe(&meet_probe);
	if (ret) {
		kmem_cache_destroy(rcu_cache);
		return ret;
	}
	dir = debugfs_create_dir("dprof_caches", NULL);
	debugfs_create_file("ctl", 0200, dir, NULL, &ctl_fops);
	debugfs_create_file("stats", 0400, dir, NULL, &stats_fops);
	return 0;
}

static void __exit caches_exit(void)
{
	unsigned int i;

	debugfs_remove_recursive(dir);
	unregister_kprobe(&meet_probe);
	buckets_destroy();
	if (nr_storm)
		destroy_together(storm, nr_storm);
	kmem_cache_destroy(alias_b);
	kmem_cache_destroy(alias_a);
	if (keeper) {
		for (i = 0; i < KEEPER_OBJS; i++)
			if (keeper_objs[i])
				kmem_cache_free(keeper, keeper_objs[i]);
		kmem_cache_destroy(keeper);
	}
	/* kfree_rcu()'s batches must be back before the cache goes. */
	if (rcu_used) {
		rcu_barrier();
		dprof_kvfree_rcu_barrier();
	}
	kmem_cache_destroy(rcu_cache);
}

module_init(caches_init);
module_exit(caches_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("dprof ground truth: slab caches created and destroyed concurrently");
MODULE_INFO(test, "Y");

// SPDX-License-Identifier: GPL-2.0
/*
 * dprof_older: objects older than dprof.ko that its load-time scan cannot
 * establish, some of them busy, for selftests/test-older-by-use.sh.
 *
 * At load it creates the cache dprof_older (64-byte objects, a
 * constructor so that SLUB never merges it) and allocates `objects`
 * objects on the loading CPU: far fewer than a slab holds, so their slab
 * has free slots (a CPU slab, or partial) and the scan counts them "not
 * established".  The first `busy` of them are busy: a kthread on the
 * last online CPU does atomic increments of each one's counter in turn,
 * forever, its pointer in a register; the others are never touched
 * again.  So the objects the CPUs hold in registers are exactly the busy
 * ones, and only they may become live older objects by their use.
 *
 * /sys/kernel/debug/dprof_older/stats: "objects N busy B incs I".
 * Writing "free" to /sys/kernel/debug/dprof_older/ctl stops the kthread
 * and frees every object (their frees must end what dprof knows of
 * them).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

struct older_obj {
	atomic_long_t hits;	/* offset 0: the busy objects' counter */
	u64 pad[7];
};

static unsigned int objects = 8;
module_param(objects, uint, 0444);
MODULE_PARM_DESC(objects, "Objects allocated at load (default 8, at most 32)");
static unsigned int busy = 2;
module_param(busy, uint, 0444);
MODULE_PARM_DESC(busy, "Of them, busy ones (default 2)");

#define MAX_OBJECTS 32

static struct kmem_cache *cache;
static struct older_obj *objs[MAX_OBJECTS];
static struct task_struct *worker;
static atomic64_t incs;
static struct dentry *dir;
static DEFINE_MUTEX(ctl_lock);

static void older_ctor(void *p)
{
	memset(p, 0, sizeof(struct older_obj));
}

static int worker_fn(void *unused)
{
	unsigned int i, k;

	while (!kthread_should_stop()) {
		for (i = 0; i < busy; i++) {
			struct older_obj *o = READ_ONCE(objs[i]);

			for (k = 0; k < 1000; k++)
				atomic_long_inc(&o->hits);
			atomic64_add(1000, &incs);
		}
		/* Busy, but a kernel thread among others: 1 ms of rest. */
		usleep_range(1000, 1100);
	}
	return 0;
}

static void free_all(void)
{
	unsigned int i;

	if (worker)
		kthread_stop(worker);
	worker = NULL;
	for (i = 0; i < MAX_OBJECTS; i++) {
		if (objs[i])
			kmem_cache_free(cache, objs[i]);
		objs[i] = NULL;
	}
}

static int stats_show(struct seq_file *m, void *v)
{
	unsigned int i, n = 0;

	mutex_lock(&ctl_lock);
	for (i = 0; i < MAX_OBJECTS; i++)
		n += !!objs[i];
	mutex_unlock(&ctl_lock);
	seq_printf(m, "objects %u busy %u incs %lld\n", n, n ? busy : 0,
		   atomic64_read(&incs));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static ssize_t ctl_write(struct file *f, const char __user *ubuf,
			 size_t len, loff_t *pos)
{
	char buf[16];

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	if (strcmp(strim(buf), "free"))
		return -EINVAL;
	mutex_lock(&ctl_lock);
	free_all();
	mutex_unlock(&ctl_lock);
	return len;
}

static const struct file_operations ctl_fops = {
	.owner = THIS_MODULE,
	.write = ctl_write,
};

static int __init older_init(void)
{
	unsigned int i;

	if (!objects || objects > MAX_OBJECTS || busy > objects)
		return -EINVAL;
	cache = kmem_cache_create("dprof_older", sizeof(struct older_obj), 0,
				  0, older_ctor);
	if (!cache)
		return -ENOMEM;
	for (i = 0; i < objects; i++) {
		objs[i] = kmem_cache_alloc(cache, GFP_KERNEL);
		if (!objs[i])
			goto nomem;
	}
	if (busy) {
		worker = kthread_create(worker_fn, NULL, "dprof_older");
		if (IS_ERR(worker)) {
			worker = NULL;
			goto nomem;
		}
		kthread_bind(worker, cpumask_last(cpu_online_mask));
		wake_up_process(worker);
	}
	dir = debugfs_create_dir("dprof_older", NULL);
	debugfs_create_file("stats", 0444, dir, NULL, &stats_fops);
	debugfs_create_file("ctl", 0200, dir, NULL, &ctl_fops);
	return 0;
nomem:
	free_all();
	kmem_cache_destroy(cache);
	return -ENOMEM;
}

static void __exit older_exit(void)
{
	debugfs_remove_recursive(dir);
	free_all();
	kmem_cache_destroy(cache);
}

module_init(older_init);
module_exit(older_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("dprof test: older objects in a slab with free slots, two of them busy");

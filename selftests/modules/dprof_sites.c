// SPDX-License-Identifier: GPL-2.0
/*
 * dprof_sites: one kmalloc cache, two allocation sites, accessed in a
 * known ratio, for kmalloc-N's samples split by site.
 *
 * At load it allocates `objects` objects of 48 bytes (kmalloc-64) in
 * sites_alloc_hot() and as many of 40 in sites_alloc_cold(), two functions
 * that are never inlined, so that each allocation's call site names its
 * function.  Load it after dprof.ko: the allocations are then recorded.
 *
 * A kthread on CPU 1 sweeps forever over every object and does atomic
 * increments of its counter (offset 0): 3 per visit on a hot object, 1
 * on a cold one.  Every increment is the same instructions, so a
 * sampler uniform over instructions (the operand sampler under -icount)
 * puts 3/4 of these objects' samples on the hot site and 1/4 on the
 * cold one.
 *
 * Read /sys/kernel/debug/dprof_sites/stats: objects per site, the
 * increments per visit, the sweeps done.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/kthread.h>
#include <linux/atomic.h>

#define HOT_RATE	3
#define COLD_RATE	1

struct site_obj {
	atomic_long_t hits;	/* 0: the accessed counter */
	u64 pad[4];
};

static unsigned int objects = 4096;
module_param(objects, uint, 0444);
MODULE_PARM_DESC(objects, "Objects per site (64..65536, default 4096)");

static struct site_obj **hot, **cold;
static struct task_struct *sweeper;
static atomic64_t sweeps;
static struct dentry *dir;

/*
 * The stores after the calls keep them calls (a tail call would leave
 * the allocator's return address in sites_init()), and the sizes differ
 * (48 and 40, both kmalloc-64) so that the compiler cannot fold the two
 * functions into one.
 */
static noinline bool sites_alloc_hot(struct site_obj **slot)
{
	*slot = kzalloc(sizeof(**slot) + 8, GFP_KERNEL);
	return *slot;
}

static noinline bool sites_alloc_cold(struct site_obj **slot)
{
	*slot = kzalloc(sizeof(**slot), GFP_KERNEL);
	return *slot;
}

static void touch(struct site_obj **objs, unsigned int rate)
{
	unsigned int i, r;

	for (i = 0; i < objects; i++)
		for (r = 0; r < rate; r++)
			atomic_long_inc(&objs[i]->hits);
}

static int sweep_fn(void *unused)
{
	while (!kthread_should_stop()) {
		touch(hot, HOT_RATE);
		touch(cold, COLD_RATE);
		atomic64_inc(&sweeps);
		cond_resched();
	}
	return 0;
}

static int stats_show(struct seq_file *m, void *v)
{
	seq_printf(m, "site sites_alloc_hot objects %u rate %u\n", objects,
		   HOT_RATE);
	seq_printf(m, "site sites_alloc_cold objects %u rate %u\n", objects,
		   COLD_RATE);
	seq_printf(m, "sweeps %lld\n", (long long)atomic64_read(&sweeps));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static void free_all(void)
{
	unsigned int i;

	for (i = 0; i < objects; i++) {
		if (hot)
			kfree(hot[i]);
		if (cold)
			kfree(cold[i]);
	}
	kvfree(hot);
	kvfree(cold);
}

static int __init sites_init(void)
{
	unsigned int i;

	if (objects < 64 || objects > 65536 || num_online_cpus() < 2) {
		pr_err("objects=%u must be 64..65536, and 2 CPUs online\n",
		       objects);
		return -EINVAL;
	}
	hot = kvcalloc(objects, sizeof(*hot), GFP_KERNEL);
	cold = kvcalloc(objects, sizeof(*cold), GFP_KERNEL);
	if (!hot || !cold)
		goto nomem;
	/* Interleaved: neither site's objects sit apart in their own slabs. */
	for (i = 0; i < objects; i++) {
		if (!sites_alloc_hot(&hot[i]) || !sites_alloc_cold(&cold[i]))
			goto nomem;
	}
	sweeper = kthread_create(sweep_fn, NULL, "dprof_sites");
	if (IS_ERR(sweeper)) {
		free_all();
		return PTR_ERR(sweeper);
	}
	kthread_bind(sweeper, 1);
	wake_up_process(sweeper);
	dir = debugfs_create_dir("dprof_sites", NULL);
	debugfs_create_file("stats", 0400, dir, NULL, &stats_fops);
	return 0;
nomem:
	free_all();
	return -ENOMEM;
}

static void __exit sites_exit(void)
{
	debugfs_remove_recursive(dir);
	kthread_stop(sweeper);
	free_all();
}

module_init(sites_init);
module_exit(sites_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("dprof ground truth: one kmalloc cache, two allocation sites accessed 3:1");

// SPDX-License-Identifier: GPL-2.0
/*
 * dprof_rank: types whose share of all accesses is known in advance, with
 * objects allocated before dprof loads, for the all-types ranking
 * (target=all).
 *
 * At load it creates four caches, dprof_rank_0 .. dprof_rank_3, with 32-byte
 * objects (one watch group of four 8-byte offsets covers a whole object),
 * and allocates `objects` objects in each on CPU 0, plus `objects` objects
 * with kmalloc(32) (cache kmalloc-32).  Then one slab's worth of filler per
 * cache, never touched, so that every slab holding a test object is full
 * and no longer a CPU slab: the scan can establish all of them.
 *
 * A kthread on CPU 1 sweeps forever over every test object and does
 * `rate` atomic increments of its counter (offset 0) per sweep:
 *
 *   dprof_rank_0  16     kmalloc-32 (ours)  8     dprof_rank_1  4
 *   dprof_rank_2   2     dprof_rank_3       1
 *
 * With equal object counts a type's share of the test accesses is its rate
 * over the sum (16/31, 8/31, ...): the ranking must follow the rates.
 * Per object visited it also increments a per-CPU counter (this_cpu_inc:
 * %gs-relative) and a global one (RIP-relative), once each: 5 of each
 * for every 31 object increments, the operand sampler's variables.
 *
 * Read /sys/kernel/debug/dprof_rank/stats: per type its cache, objects,
 * rate, the objects that sit in slabs holding only test and filler objects
 * (counted from the objects' own addresses: the ground truth for the
 * scan), and the sweeps done.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/kthread.h>
#include <linux/workqueue.h>
#include <linux/atomic.h>
#include <linux/sort.h>
#include <linux/percpu.h>

#define NR_TYPES	5
#define KMALLOC_TYPE	1	/* index of the kmalloc(32) type */
#define OBJ_SIZE	32

struct rank_obj {
	atomic_long_t hits;	/* 0: the accessed counter */
	u64 pad[3];
};

static unsigned int objects = 8192;
module_param(objects, uint, 0444);
MODULE_PARM_DESC(objects, "Objects per type (default 8192)");

struct rank_type {
	const char *cache_name;	/* our caches; NULL for kmalloc */
	unsigned int rate;
	struct kmem_cache *cache;
	struct rank_obj **objs;
	struct rank_obj **filler;
	unsigned int nr_filler;
	unsigned int in_full_slabs;
};

static struct rank_type types[NR_TYPES] = {
	{ "dprof_rank_0", 16 }, { NULL, 8 }, { "dprof_rank_1", 4 },
	{ "dprof_rank_2", 2 }, { "dprof_rank_3", 1 },
};

static struct task_struct *sweeper;
static atomic64_t sweeps;
static DEFINE_PER_CPU(unsigned long, dprof_rank_pcpu);
static atomic_long_t dprof_rank_global;
static struct dentry *dir;

static void *type_alloc(struct rank_type *t)
{
	return t->cache ? kmem_cache_zalloc(t->cache, GFP_KERNEL) :
			  kzalloc(OBJ_SIZE, GFP_KERNEL);
}

static void type_free(struct rank_type *t, void *obj)
{
	if (t->cache)
		kmem_cache_free(t->cache, obj);
	else
		kfree(obj);
}

static int addr_cmp(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a;
	unsigned long y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/*
 * Test objects in slabs where every slot holds one of our objects (test
 * or filler): the scan must find these live.  Computed from addresses
 * alone.
 */
static unsigned int count_in_full_slabs(struct rank_type *t)
{
	unsigned int n = objects + t->nr_filler, i, k, start, full = 0;
	unsigned long *addr = kvcalloc(n, sizeof(*addr), GFP_KERNEL);

	if (!addr)
		return 0;
	/* Objects are 32-byte aligned: bit 0 tags a test object. */
	for (i = 0; i < objects; i++)
		addr[i] = (unsigned long)t->objs[i] | 1;
	for (i = 0; i < t->nr_filler; i++)
		addr[objects + i] = (unsigned long)t->filler[i];
	sort(addr, n, sizeof(*addr), addr_cmp, NULL);
	for (start = 0; start < n; start = i) {
		struct folio *f = virt_to_folio((void *)(addr[start] & ~1UL));

		unsigned long step = ULONG_MAX;

		for (i = start; i < n &&
		     virt_to_folio((void *)(addr[i] & ~1UL)) == f; i++)
			if (i > start)
				step = min(step, (addr[i] & ~1UL) -
					   (addr[i - 1] & ~1UL));
		/*
		 * Every slot of the slab is ours: count the test objects.  The
		 * stride is the smallest gap (32, or more with slub_debug's
		 * metadata); SLUB fits slab size / stride slots.
		 */
		if (i - start > 1 && i - start == folio_size(f) / step)
			for (k = start; k < i; k++)
				full += addr[k] & 1;
	}
	kvfree(addr);
	return full;
}

static int sweep_fn(void *unused)
{
	unsigned int t, i, r;

	while (!kthread_should_stop()) {
		for (t = 0; t < NR_TYPES; t++)
			for (i = 0; i < objects; i++) {
				for (r = 0; r < types[t].rate; r++)
					atomic_long_inc(&types[t].objs[i]->hits);
				this_cpu_inc(dprof_rank_pcpu);
				atomic_long_inc(&dprof_rank_global);
			}
		atomic64_inc(&sweeps);
		cond_resched();
	}
	return 0;
}

static int stats_show(struct seq_file *m, void *v)
{
	unsigned int t;

	for (t = 0; t < NR_TYPES; t++)
		seq_printf(m, "type %s objects %u rate %u in_full_slabs %u filler %u\n",
			   types[t].cache_name ? types[t].cache_name : "kmalloc-32",
			   objects, types[t].rate, types[t].in_full_slabs,
			   types[t].nr_filler);
	seq_printf(m, "sweeps %lld\n", (long long)atomic64_read(&sweeps));
	seq_printf(m, "variables dprof_rank_pcpu %lu (CPU 1) dprof_rank_global %ld, per object visited\n",
		   per_cpu(dprof_rank_pcpu, 1),
		   atomic_long_read(&dprof_rank_global));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static void free_all(void)
{
	unsigned int t, i;

	for (t = 0; t < NR_TYPES; t++) {
		struct rank_type *ty = &types[t];

		for (i = 0; ty->objs && i < objects; i++)
			if (ty->objs[i])
				type_free(ty, ty->objs[i]);
		for (i = 0; ty->filler && i < ty->nr_filler; i++)
			if (ty->filler[i])
				type_free(ty, ty->filler[i]);
		kvfree(ty->objs);
		kvfree(ty->filler);
		ty->objs = NULL;
		ty->filler = NULL;
		kmem_cache_destroy(ty->cache);
		ty->cache = NULL;
	}
}

/* On CPU 0, so that each cache fills its slabs one after the other. */
static long alloc_all(void *unused)
{
	unsigned int t, i;

	for (t = 0; t < NR_TYPES; t++) {
		struct rank_type *ty = &types[t];

		ty->objs = kvcalloc(objects, sizeof(*ty->objs), GFP_KERNEL);
		ty->nr_filler = PAGE_SIZE / OBJ_SIZE;
		ty->filler = kvcalloc(ty->nr_filler, sizeof(*ty->filler),
				      GFP_KERNEL);
		if (!ty->objs || !ty->filler)
			return -ENOMEM;
		for (i = 0; i < objects; i++) {
			ty->objs[i] = type_alloc(ty);
			if (!ty->objs[i])
				return -ENOMEM;
		}
		for (i = 0; i < ty->nr_filler; i++) {
			ty->filler[i] = type_alloc(ty);
			if (!ty->filler[i])
				return -ENOMEM;
		}
		ty->in_full_slabs = count_in_full_slabs(ty);
	}
	return 0;
}

static int __init rank_init(void)
{
	unsigned int t;
	long ret;

	if (objects < 64 || objects > 65536 || num_online_cpus() < 2) {
		pr_err("objects=%u must be 64..65536, and 2 CPUs online\n",
		       objects);
		return -EINVAL;
	}
	for (t = 0; t < NR_TYPES; t++) {
		if (!types[t].cache_name)
			continue;
		/* No constructor, no flags: stride == object size. */
		types[t].cache = kmem_cache_create(types[t].cache_name,
						   OBJ_SIZE, 0, 0, NULL);
		if (!types[t].cache) {
			free_all();
			return -ENOMEM;
		}
	}
	ret = work_on_cpu(0, alloc_all, NULL);
	if (ret) {
		free_all();
		return ret;
	}
	sweeper = kthread_create(sweep_fn, NULL, "dprof_rank");
	if (IS_ERR(sweeper)) {
		free_all();
		return PTR_ERR(sweeper);
	}
	kthread_bind(sweeper, 1);
	wake_up_process(sweeper);
	dir = debugfs_create_dir("dprof_rank", NULL);
	debugfs_create_file("stats", 0400, dir, NULL, &stats_fops);
	return 0;
}

static void __exit rank_exit(void)
{
	debugfs_remove_recursive(dir);
	kthread_stop(sweeper);
	free_all();
}

module_init(rank_init);
module_exit(rank_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("dprof ground truth: types accessed at known rates, allocated before dprof");

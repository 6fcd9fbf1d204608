// SPDX-License-Identifier: GPL-2.0
/*
 * dprof_strings: the same stores made by a string instruction and by
 * plain moves, for the operand sampler's rule on rep strings.
 *
 * At load it creates two caches of 64-byte objects, dprof_str_rep and
 * dprof_str_mov, and allocates `objects` objects in each.  A kthread on
 * CPU 1 sweeps forever: each dprof_str_rep object is cleared with
 * memset() of `len` bytes (a call, the length not a constant: the
 * kernel's memset, rep stosb where the CPU has ERMS), each dprof_str_mov
 * object gets len / 8 WRITE_ONCE() stores of 8 bytes (movq).  Both write
 * the same 8-byte slots once a visit, which is what the referee counts
 * for a string (one access per 8-byte slot, referee/oracle.c) and what
 * the operand sampler's slot rule keeps (module/operand.c): their
 * samples should come 1:1.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/kthread.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/atomic.h>

#define OBJ_SIZE	64

struct str_obj {
	u64 q[OBJ_SIZE / 8];
};

static unsigned int objects = 4096;
module_param(objects, uint, 0444);
MODULE_PARM_DESC(objects, "Objects per cache (64..65536, default 4096)");

static unsigned int len = OBJ_SIZE;
module_param(len, uint, 0444);
MODULE_PARM_DESC(len, "Bytes written a visit, a multiple of 8 (8..64, default 64)");

static struct kmem_cache *rep_cache, *mov_cache;
static struct str_obj **rep_objs, **mov_objs;
static struct task_struct *sweeper;
static atomic64_t sweeps;
static struct dentry *dir;

static int sweep_fn(void *unused)
{
	unsigned int i, k, n;
	u64 v = 0;

	while (!kthread_should_stop()) {
		n = READ_ONCE(len);
		v++;
		for (i = 0; i < objects; i++)
			memset(rep_objs[i], (int)v, n);
		for (i = 0; i < objects; i++)
			for (k = 0; k < n / 8; k++)
				WRITE_ONCE(mov_objs[i]->q[k], v);
		atomic64_inc(&sweeps);
		cond_resched();
	}
	return 0;
}

static int stats_show(struct seq_file *m, void *v)
{
	seq_printf(m, "caches dprof_str_rep dprof_str_mov objects %u len %u sweeps %lld\n",
		   objects, len, (long long)atomic64_read(&sweeps));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static void free_objs(struct kmem_cache *c, struct str_obj **objs)
{
	unsigned int i;

	for (i = 0; objs && i < objects; i++)
		if (objs[i])
			kmem_cache_free(c, objs[i]);
	kvfree(objs);
}

static void free_all(void)
{
	free_objs(rep_cache, rep_objs);
	free_objs(mov_cache, mov_objs);
	kmem_cache_destroy(rep_cache);
	kmem_cache_destroy(mov_cache);
}

static int __init strings_init(void)
{
	unsigned int i;

	if (objects < 64 || objects > 65536 || len < 8 || len > OBJ_SIZE ||
	    len % 8 || num_online_cpus() < 2) {
		pr_err("objects=%u must be 64..65536, len=%u 8..64 in steps of 8, and 2 CPUs online\n",
		       objects, len);
		return -EINVAL;
	}
	rep_cache = kmem_cache_create("dprof_str_rep", OBJ_SIZE, 0, 0, NULL);
	mov_cache = kmem_cache_create("dprof_str_mov", OBJ_SIZE, 0, 0, NULL);
	rep_objs = kvcalloc(objects, sizeof(*rep_objs), GFP_KERNEL);
	mov_objs = kvcalloc(objects, sizeof(*mov_objs), GFP_KERNEL);
	if (!rep_cache || !mov_cache || !rep_objs || !mov_objs)
		goto nomem;
	for (i = 0; i < objects; i++) {
		rep_objs[i] = kmem_cache_zalloc(rep_cache, GFP_KERNEL);
		mov_objs[i] = kmem_cache_zalloc(mov_cache, GFP_KERNEL);
		if (!rep_objs[i] || !mov_objs[i])
			goto nomem;
	}
	sweeper = kthread_create(sweep_fn, NULL, "dprof_strings");
	if (IS_ERR(sweeper)) {
		free_all();
		return PTR_ERR(sweeper);
	}
	kthread_bind(sweeper, 1);
	wake_up_process(sweeper);
	dir = debugfs_create_dir("dprof_strings", NULL);
	debugfs_create_file("stats", 0400, dir, NULL, &stats_fops);
	return 0;
nomem:
	free_all();
	return -ENOMEM;
}

static void __exit strings_exit(void)
{
	debugfs_remove_recursive(dir);
	kthread_stop(sweeper);
	free_all();
}

module_init(strings_init);
module_exit(strings_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("dprof ground truth: the same stores by rep stosb and by movq");

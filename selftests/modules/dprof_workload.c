// SPDX-License-Identifier: GPL-2.0
/*
 * dprof_workload: a slab cache of its own whose allocations, frees and
 * accesses are known in advance, so dprof's output can be checked against
 * ground truth.
 *
 * Control: write one command to /sys/kernel/debug/dprof_workload/ctl
 *   alloc N CPU       allocate N objects on CPU and hold them
 *   free N CPU        free the N oldest held objects on CPU (kmem_cache_free)
 *   kfree N CPU       same through kfree()
 *   bulk N CPU        allocate N objects with kmem_cache_alloc_bulk, hold them
 *   bulkfree N CPU    free N held objects with kmem_cache_free_bulk
 *   churn N CPU       N times: allocate and free one object on CPU
 *   handoff N A B     allocate N objects on CPU A, free them on CPU B
 *   resolve CPU       check dprof_resolve() on held objects, from hard-IRQ
 *                     context on CPU (needs dprof.ko loaded)
 *   stress CPU        start a kthread on CPU that allocates and frees
 *                     until "stop"
 *   stop              stop the stress kthread
 *   pin CPU           create a pinned cpu-clock perf event on CPU and keep
 *                     it: perf schedules that CPU's context out and in
 *                     again, and on 6.1 the breakpoints share it
 *   unpin             release the pinned events
 *   watch             another user of the debug registers: a wide kernel
 *                     breakpoint (register_wide_hw_breakpoint, read/write,
 *                     8 bytes) on the module's variable "poked", counting
 *                     its traps; perf reschedules every CPU's breakpoints
 *                     when it comes (dprof's may change registers)
 *   unwatch           release it (the traps counted so far stay)
 *   poke N CPU        N writes to "poked" on CPU: N traps while watched
 *   reset             free every held object, zero the counters
 * Read /sys/kernel/debug/dprof_workload/stats: what the workload did, per
 * CPU, in the order "cpu <n> allocs <a> frees <f>", then "held <h>" and the
 * last resolver check; "held_addr" is the oldest held object (the next
 * one "free" takes), "kmalloc_addr" a kmalloc-512 buffer held from load to
 * unload (a slab object of another cache, for samples outside the target),
 * "watch_traps" and "pokes" what the watch counted and what was poked.
 * Read /sys/kernel/debug/dprof_workload/held: the address of every held
 * object, one a line (hex, no 0x).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <linux/kthread.h>
#include <linux/mutex.h>
#include <linux/list.h>
#include <linux/cpu.h>
#include <linux/kfence.h>
#include <linux/perf_event.h>
#include <linux/hw_breakpoint.h>
#include "resolve.h"

#define WORKLOAD_MAX_CPUS	64
#define RESOLVE_OBJECTS		32

/*
 * The profiled struct.  Its layout is part of the ground truth: tests
 * compute expected offsets from it, not from dprof's output.
 */
struct dprof_workload_obj {
	u64 magic;		/*   0: written at allocation */
	u32 alloc_cpu;		/*   8 */
	u32 seq;		/*  12 */
	struct list_head link;	/*  16: held-object list */
	u8 payload[288];	/*  32 */
};				/* 320 bytes */

static bool red_zone;
module_param(red_zone, bool, 0444);
MODULE_PARM_DESC(red_zone,
		 "Make the cache with slub_debug red zones (SLAB_RED_ZONE): every object sits past its slot on the stride grid");

static struct kmem_cache *cache;
static struct dentry *dir;
static DEFINE_MUTEX(lock);	/* held list, counters, stress thread */
static LIST_HEAD(held);
static unsigned long nr_held;
static unsigned long allocs[WORKLOAD_MAX_CPUS], frees[WORKLOAD_MAX_CPUS];
static unsigned long misplaced;	/* operations that ran on the wrong CPU */
static struct task_struct *stress_task;
static struct perf_event *pinned[WORKLOAD_MAX_CPUS];
/* The other breakpoint user's variable, its breakpoint and counts. */
static u64 poked __aligned(8);
static struct perf_event * __percpu *watch_bp;
static atomic_long_t watch_traps;
static unsigned long pokes;

static void watch_trap(struct perf_event *bp, struct perf_sample_data *data,
		       struct pt_regs *regs)
{
	atomic_long_inc(&watch_traps);
}

static int op_watch(void)
{
	struct perf_event_attr attr;
	struct perf_event * __percpu *bp;

	if (watch_bp)
		return -EBUSY;
	hw_breakpoint_init(&attr);
	attr.bp_addr = (unsigned long)&poked;
	attr.bp_len = HW_BREAKPOINT_LEN_8;
	attr.bp_type = HW_BREAKPOINT_RW;
	bp = register_wide_hw_breakpoint(&attr, watch_trap, NULL);
	if (IS_ERR(bp))
		return PTR_ERR(bp);
	watch_bp = bp;
	return 0;
}

static void op_unwatch(void)
{
	if (watch_bp)
		unregister_wide_hw_breakpoint(watch_bp);
	watch_bp = NULL;
}

static long op_poke(void *arg)
{
	unsigned long *n = arg, i;

	for (i = 0; i < *n; i++)
		WRITE_ONCE(poked, i);
	return 0;
}

/* "pin CPU": a pinned event of someone else's, as a user's tool makes. */
static int op_pin(int cpu)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.pinned = 1,
	};
	struct perf_event *ev;

	if (pinned[cpu])
		return -EBUSY;
	ev = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
	if (IS_ERR(ev))
		return PTR_ERR(ev);
	pinned[cpu] = ev;
	return 0;
}

static void unpin_all(void)
{
	int cpu;

	for (cpu = 0; cpu < WORKLOAD_MAX_CPUS; cpu++) {
		if (pinned[cpu])
			perf_event_release_kernel(pinned[cpu]);
		pinned[cpu] = NULL;
	}
}

static u32 seq;
static void *kmalloc_buf;
/*
 * Objects KFENCE served (kernels with CONFIG_KFENCE): they sit in KFENCE's
 * pool, off the stride grid, and dprof counts them off_grid.
 */
static atomic_long_t kfence_allocs;

static void *wl_alloc(void)
{
	void *obj = kmem_cache_alloc(cache, GFP_KERNEL);

	if (obj && is_kfence_address(obj))
		atomic_long_inc(&kfence_allocs);
	return obj;
}

static struct {
	unsigned long ok, failed;
	char first_failure[128];
	int err;		/* -ENOENT etc. for the whole check */
} resolve_result;

/* A constructor keeps SLUB from merging the cache with another one. */
static void obj_ctor(void *p)
{
	memset(p, 0, sizeof(struct dprof_workload_obj));
}

static void count(unsigned long *counter, int want_cpu)
{
	int cpu = raw_smp_processor_id();

	if (cpu != want_cpu)
		misplaced++;
	if (cpu < WORKLOAD_MAX_CPUS)
		counter[cpu]++;
}

static void obj_init(struct dprof_workload_obj *obj)
{
	obj->magic = 0x64707266776b6c64ULL;
	obj->alloc_cpu = raw_smp_processor_id();
	obj->seq = seq++;
}

struct op {
	const char *name;
	unsigned long n;
	int cpu;
	long done;
};

static long op_alloc(void *arg)
{
	struct op *op = arg;
	struct dprof_workload_obj *obj;

	for (op->done = 0; op->done < op->n; op->done++) {
		obj = wl_alloc();
		if (!obj)
			return -ENOMEM;
		count(allocs, op->cpu);
		obj_init(obj);
		list_add_tail(&obj->link, &held);
		nr_held++;
	}
	return 0;
}

static long op_free(void *arg)
{
	struct op *op = arg;
	struct dprof_workload_obj *obj;
	bool use_kfree = !strcmp(op->name, "kfree");

	for (op->done = 0; op->done < op->n && !list_empty(&held);
	     op->done++) {
		obj = list_first_entry(&held, struct dprof_workload_obj, link);
		list_del(&obj->link);
		nr_held--;
		count(frees, op->cpu);
		if (use_kfree)
			kfree(obj);
		else
			kmem_cache_free(cache, obj);
	}
	return op->done == op->n ? 0 : -ENOENT;
}

static long op_bulk(void *arg)
{
	struct op *op = arg;
	void **objs;
	long i, got;

	objs = kcalloc(op->n, sizeof(*objs), GFP_KERNEL);
	if (!objs)
		return -ENOMEM;
	got = kmem_cache_alloc_bulk(cache, GFP_KERNEL, op->n, objs);
	for (i = 0; i < got; i++) {
		struct dprof_workload_obj *obj = objs[i];

		if (is_kfence_address(obj))
			atomic_long_inc(&kfence_allocs);
		count(allocs, op->cpu);
		obj_init(obj);
		list_add_tail(&obj->link, &held);
		nr_held++;
	}
	kfree(objs);
	op->done = got;
	return got == op->n ? 0 : -ENOMEM;
}

static long op_bulkfree(void *arg)
{
	struct op *op = arg;
	struct dprof_workload_obj *obj;
	void **objs;
	long n = 0;

	objs = kcalloc(op->n, sizeof(*objs), GFP_KERNEL);
	if (!objs)
		return -ENOMEM;
	while (n < op->n && !list_empty(&held)) {
		obj = list_first_entry(&held, struct dprof_workload_obj, link);
		list_del(&obj->link);
		nr_held--;
		objs[n++] = obj;
		count(frees, op->cpu);
	}
	kmem_cache_free_bulk(cache, n, objs);
	kfree(objs);
	op->done = n;
	return n == op->n ? 0 : -ENOENT;
}

/*
 * Guest time of the last churn, per allocate+free, in 1/10 ns: under
 * QEMU's -icount guest time counts instructions, so the bench reads the
 * cost of the hooks from it (busybox date has no nanoseconds).
 */
static u64 churn_tenth_ns_per_op;

/*
 * Markers for the insncount QEMU plugin (referee/insncount.c, make
 * bench-insns): long nops whose displacement spells "DPR1" and "DPR0".
 * The plugin counts the instructions this vCPU executes between them, so
 * the churn loop's hooks are counted per function and per call.
 */
static __always_inline void insncount_on(void)
{
	asm volatile(".byte 0x0f, 0x1f, 0x80\n\t.long 0x44505231");
}

static __always_inline void insncount_off(void)
{
	asm volatile(".byte 0x0f, 0x1f, 0x80\n\t.long 0x44505230");
}

static long op_churn(void *arg)
{
	struct op *op = arg;
	struct dprof_workload_obj *obj;
	u64 start = ktime_get_ns();

	insncount_on();
	for (op->done = 0; op->done < op->n; op->done++) {
		obj = wl_alloc();
		if (!obj)
			return -ENOMEM;
		count(allocs, op->cpu);
		obj_init(obj);
		count(frees, op->cpu);
		kmem_cache_free(cache, obj);
	}
	insncount_off();
	if (op->n)
		churn_tenth_ns_per_op = div64_u64(10 * (ktime_get_ns() - start),
						  op->n);
	return 0;
}

/* ---- resolver check, run in hard-IRQ context through an IPI ---------- */
struct resolve_check {
	int (*resolve)(unsigned long addr, struct dprof_resolved *out);
	struct dprof_workload_obj *objs[RESOLVE_OBJECTS];
	int nr;
	void *freed;		/* freed object: must not resolve */
	void *foreign;		/* kmalloc'd, not a target: must not resolve */
	unsigned int object_size;
	unsigned int stride_pad;	/* stride > object size: metadata */
	bool red_zone;		/* the bytes before each object: red zone */
};

static void expect(struct resolve_check *c, unsigned long addr, bool hit,
		   unsigned long base, unsigned int offset, const char *what)
{
	struct dprof_resolved r = {};
	int ret = c->resolve(addr, &r);
	bool good = hit ? (!ret && r.base == base && r.offset == offset) :
			  ret == -ENOENT;

	if (good) {
		resolve_result.ok++;
		return;
	}
	if (!resolve_result.failed++)
		snprintf(resolve_result.first_failure,
			 sizeof(resolve_result.first_failure),
			 "%s: ret %d base %s offset %u (want %u)", what, ret,
			 r.base == base ? "right" : "wrong", r.offset, offset);
}

static void resolve_on_cpu(void *arg)
{
	struct resolve_check *c = arg;
	static const unsigned int probes[] = { 0, 1, 7, 8, 16, 100, 319 };
	unsigned long local;
	int i, p;

	for (i = 0; i < c->nr; i++) {
		unsigned long base = (unsigned long)c->objs[i];

		for (p = 0; p < ARRAY_SIZE(probes); p++)
			expect(c, base + probes[p], true, base, probes[p],
			       "interior address");
		if (c->stride_pad)
			expect(c, base + c->object_size, false, 0, 0,
			       "metadata past object_size");
		if (c->red_zone)
			expect(c, base - 1, false, 0, 0, "left red zone");
	}
	expect(c, (unsigned long)c->freed, false, 0, 0, "freed object");
	expect(c, (unsigned long)c->freed + 8, false, 0, 0,
	       "inside freed object");
	expect(c, (unsigned long)c->foreign, false, 0, 0, "kmalloc object");
	expect(c, (unsigned long)&local, false, 0, 0, "stack address");
	expect(c, (unsigned long)&nr_held, false, 0, 0, "module data");
	expect(c, 0, false, 0, 0, "NULL");
	expect(c, (unsigned long)-4096L, false, 0, 0, "top of address space");
}

static long op_resolve(int cpu)
{
	struct resolve_check *c;
	struct dprof_workload_obj *obj;
	int ret;

	memset(&resolve_result, 0, sizeof(resolve_result));
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	c->resolve = symbol_get(dprof_resolve);
	if (!c->resolve) {
		resolve_result.err = -ENOENT;
		kfree(c);
		return -ENOENT;	/* dprof.ko not loaded */
	}
	list_for_each_entry(obj, &held, link) {
		if (c->nr == RESOLVE_OBJECTS)
			break;
		/* KFENCE objects are off the grid: dprof does not resolve them */
		if (!is_kfence_address(obj))
			c->objs[c->nr++] = obj;
	}
	c->object_size = kmem_cache_size(cache);
	c->stride_pad = 1;	/* the constructor puts SLUB's free pointer after */
	c->red_zone = red_zone;
	c->freed = wl_alloc();
	c->foreign = kmalloc(64, GFP_KERNEL);
	if (!c->freed || !c->foreign) {
		ret = -ENOMEM;
		goto out;
	}
	count(allocs, raw_smp_processor_id());
	count(frees, raw_smp_processor_id());
	kmem_cache_free(cache, c->freed);
	ret = smp_call_function_single(cpu, resolve_on_cpu, c, 1);
out:
	kfree(c->foreign);
	symbol_put(dprof_resolve);
	kfree(c);
	resolve_result.err = ret;
	return ret;
}

static int stress_fn(void *arg)
{
	int cpu = (long)arg;

	while (!kthread_should_stop()) {
		void *obj = wl_alloc();

		if (obj) {
			allocs[cpu]++;
			frees[cpu]++;
			kmem_cache_free(cache, obj);
		}
		cond_resched();
	}
	return 0;
}

static void free_all_held(void)
{
	struct dprof_workload_obj *obj, *next;

	list_for_each_entry_safe(obj, next, &held, link) {
		list_del(&obj->link);
		kmem_cache_free(cache, obj);
	}
	nr_held = 0;
}

static int run_on(int cpu, long (*fn)(void *), struct op *op)
{
	if (cpu < 0 || cpu >= WORKLOAD_MAX_CPUS || !cpu_online(cpu))
		return -EINVAL;
	return work_on_cpu(cpu, fn, op);
}

static int handle(char *cmd)
{
	char name[16];
	unsigned long n = 0;
	int a = -1, b = -1, fields;
	struct op op = {};

	fields = sscanf(cmd, "%15s %lu %d %d", name, &n, &a, &b);
	if (fields < 1)
		return -EINVAL;
	op.name = name;
	op.n = n;
	op.cpu = a;
	if (!strcmp(name, "reset")) {
		free_all_held();
		memset(allocs, 0, sizeof(allocs));
		memset(frees, 0, sizeof(frees));
		misplaced = 0;
		atomic_long_set(&watch_traps, 0);
		pokes = 0;
		return 0;
	}
	if (!strcmp(name, "stop")) {
		if (stress_task)
			kthread_stop(stress_task);
		stress_task = NULL;
		return 0;
	}
	if (!strcmp(name, "unpin")) {
		unpin_all();
		return 0;
	}
	if (!strcmp(name, "watch"))
		return op_watch();
	if (!strcmp(name, "unwatch")) {
		op_unwatch();
		return 0;
	}
	if (!strcmp(name, "poke") && fields == 3) {
		if (a < 0 || a >= WORKLOAD_MAX_CPUS || !cpu_online(a))
			return -EINVAL;
		pokes += n;
		return work_on_cpu(a, op_poke, &n);
	}
	if (!strcmp(name, "pin")) {
		if (fields < 2 || n >= WORKLOAD_MAX_CPUS || !cpu_online(n))
			return -EINVAL;
		return op_pin(n);
	}
	if (!strcmp(name, "resolve") || !strcmp(name, "stress")) {
		/* "resolve CPU", "stress CPU": the CPU is the second field */
		a = n;
		if (fields < 2 || a < 0 || a >= WORKLOAD_MAX_CPUS ||
		    !cpu_online(a))
			return -EINVAL;
		if (name[0] == 'r')
			return op_resolve(a);
		if (stress_task)
			return -EBUSY;
		stress_task = kthread_create_on_cpu(stress_fn, (void *)(long)a,
						    a, "dprof_stress/%u");
		if (IS_ERR(stress_task)) {
			int err = PTR_ERR(stress_task);

			stress_task = NULL;
			return err;
		}
		wake_up_process(stress_task);
		return 0;
	}
	if (fields < 3)
		return -EINVAL;
	if (!strcmp(name, "alloc"))
		return run_on(a, op_alloc, &op);
	if (!strcmp(name, "free") || !strcmp(name, "kfree"))
		return run_on(a, op_free, &op);
	if (!strcmp(name, "bulk"))
		return run_on(a, op_bulk, &op);
	if (!strcmp(name, "bulkfree"))
		return run_on(a, op_bulkfree, &op);
	if (!strcmp(name, "churn"))
		return run_on(a, op_churn, &op);
	if (!strcmp(name, "handoff") && fields == 4) {
		int ret = run_on(a, op_alloc, &op);

		if (ret)
			return ret;
		op.cpu = b;
		return run_on(b, op_free, &op);
	}
	return -EINVAL;
}

static ssize_t ctl_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	char cmd[64];
	int ret;

	if (count >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, count))
		return -EFAULT;
	cmd[count] = '\0';
	mutex_lock(&lock);
	ret = handle(strim(cmd));
	mutex_unlock(&lock);
	return ret ? ret : count;
}

static const struct file_operations ctl_fops = {
	.owner = THIS_MODULE,
	.write = ctl_write,
};

static int stats_show(struct seq_file *m, void *v)
{
	int cpu;

	mutex_lock(&lock);
	for_each_online_cpu(cpu) {
		if (cpu >= WORKLOAD_MAX_CPUS)
			break;
		seq_printf(m, "cpu %d allocs %lu frees %lu\n", cpu,
			   allocs[cpu], frees[cpu]);
	}
	seq_printf(m, "held %lu\n", nr_held);
	seq_printf(m, "misplaced %lu\n", misplaced);
	seq_printf(m, "kfence_allocs %ld\n", atomic_long_read(&kfence_allocs));
	seq_printf(m, "object_size %u\n", kmem_cache_size(cache));
	seq_printf(m, "churn_ns_per_op %llu.%llu\n", churn_tenth_ns_per_op / 10,
		   churn_tenth_ns_per_op % 10);
	seq_printf(m, "resolve_ok %lu\n", resolve_result.ok);
	seq_printf(m, "resolve_failed %lu\n", resolve_result.failed);
	seq_printf(m, "resolve_err %d\n", resolve_result.err);
	if (resolve_result.failed)
		seq_printf(m, "resolve_first_failure %s\n",
			   resolve_result.first_failure);
	/* Raw addresses, for tests (the file is root's, 0400). */
	if (!list_empty(&held))
		seq_printf(m, "held_addr %lx\n", (unsigned long)
			   list_first_entry(&held, struct dprof_workload_obj,
					    link));
	seq_printf(m, "kmalloc_addr %lx\n", (unsigned long)kmalloc_buf);
	seq_printf(m, "watch_traps %ld\n", atomic_long_read(&watch_traps));
	seq_printf(m, "pokes %lu\n", pokes);
	mutex_unlock(&lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static int held_show(struct seq_file *m, void *v)
{
	struct dprof_workload_obj *obj;

	mutex_lock(&lock);
	list_for_each_entry(obj, &held, link)
		seq_printf(m, "%lx\n", (unsigned long)obj);
	mutex_unlock(&lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(held);

static int __init workload_init(void)
{
	cache = kmem_cache_create("dprof_workload",
				  sizeof(struct dprof_workload_obj), 0,
				  red_zone ? SLAB_RED_ZONE : 0, obj_ctor);
	if (!cache)
		return -ENOMEM;
	kmalloc_buf = kmalloc(512, GFP_KERNEL);
	if (!kmalloc_buf) {
		kmem_cache_destroy(cache);
		return -ENOMEM;
	}
	dir = debugfs_create_dir("dprof_workload", NULL);
	debugfs_create_file("ctl", 0200, dir, NULL, &ctl_fops);
	debugfs_create_file("stats", 0400, dir, NULL, &stats_fops);
	debugfs_create_file("held", 0400, dir, NULL, &held_fops);
	return 0;
}

static void __exit workload_exit(void)
{
	debugfs_remove_recursive(dir);
	mutex_lock(&lock);
	if (stress_task)
		kthread_stop(stress_task);
	free_all_held();
	unpin_all();
	op_unwatch();
	mutex_unlock(&lock);
	kmem_cache_destroy(cache);
	kfree(kmalloc_buf);
}

module_init(workload_init);
module_exit(workload_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("dprof test workload with known ground truth");
MODULE_INFO(test, "Y");

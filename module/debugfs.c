// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/dprof/: every file is 0400 and supports read() only,
 * so the tree stays usable under lockdown=integrity (Secure Boot), which
 * refuses debugfs files with write bits, mmap or ioctl; the one exception
 * is "inject" (0200, write only), which refuses writes unless
 * sampler=inject (under lockdown it cannot be opened; nothing else needs
 * it).  Created last at load, removed first at unload (main.c): no reader
 * reaches a table that is not there.  Runtime control is by module
 * parameters.  Every file but "version" checks at open what perf checks
 * for kernel data (perfmon_capable(), LOCKDOWN_PERF).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/debugfs.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/uaccess.h>
#include <linux/ktime.h>
#include "uapi/dprof.h"
#include "testparams.h"
#include "calibrate.h"
#include "target.h"
#include "allocount.h"
#include "liveset.h"
#include "trackrate.h"
#include "ring.h"
#include "slab.h"
#include "stats.h"
#include "costs.h"
#include "sample.h"
#include "inject.h"
#include "facts.h"
#include "profile.h"
#include "scan.h"
#include "debugfs.h"
#include "own.h"
#include "plan.h"
#include "opcount.h"
#include "collector.h"

#define EVENTS_BOUNCE	(64 * 1024)
#define EVENTS_MIN_READ	64	/* read() of "events": the largest record */

static struct dentry *dir;
static unsigned int files_missing;	/* dprof_debugfs_init() says why */
static atomic_t events_open = ATOMIC_INIT(0);
/* Threads that share the one open descriptor share its bounce buffer. */
static DEFINE_MUTEX(events_read_lock);

/*
 * The files carry kernel addresses (objects, call sites, per-CPU
 * offsets) and samples of every task's accesses: what perf gives only to
 * perfmon_capable() callers (CAP_PERFMON or CAP_SYS_ADMIN), and to no
 * one under lockdown=confidentiality.  Mode 0400 alone would give them to
 * any process running as root, whatever capabilities it dropped.
 */
static int may_read_kernel_data(void)
{
	if (!perfmon_capable())
		return -EPERM;
	return security_locked_down(LOCKDOWN_PERF);
}

static int guarded_open(struct inode *inode, struct file *file)
{
	return may_read_kernel_data();
}

/* DEFINE_SHOW_ATTRIBUTE with the check above at open. */
#define DPROF_SHOW_ATTRIBUTE(__name)					\
static int __name##_open(struct inode *inode, struct file *file)	\
{									\
	int ret = may_read_kernel_data();				\
									\
	return ret ? ret : single_open(file, __name##_show,		\
				       inode->i_private);		\
}									\
									\
static const struct file_operations __name##_fops = {			\
	.owner		= THIS_MODULE,					\
	.open		= __name##_open,				\
	.read		= seq_read,					\
	.llseek		= seq_lseek,					\
	.release	= single_release,				\
}

static int version_show(struct seq_file *m, void *v)
{
	seq_printf(m, "dprof %s abi %d\n", DPROF_VERSION, DPROF_ABI_VERSION);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(version);

static int targets_show(struct seq_file *m, void *v)
{
	unsigned int i;

	seq_puts(m, "# index name object_size stride flags\n");
	for (i = 0; i < dprof_nr_targets; i++) {
		const struct dprof_target *t = &dprof_targets[i];

		seq_printf(m, "%u %s %u %u %u\n", i, t->name, t->object_size,
			   t->stride, READ_ONCE(t->flags));
	}
	return 0;
}
DPROF_SHOW_ATTRIBUTE(targets);

static u64 lost_total(void)
{
	return dprof_ring_lost_total() + dprof_slab_bulk_missed() +
	       dprof_slab_free_bulk_missed();
}

static int dropped_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%llu\n", lost_total());
	return 0;
}
DPROF_SHOW_ATTRIBUTE(dropped);

static void show_layout(struct seq_file *m)
{
	static const char *const names[] = {
		"slab.slab_cache", "kmem_cache.size",
		"kmem_cache.name", "kmem_cache.list", "slab.counters",
		"kmem_cache.red_left_pad",
	};
	/* What is lost without an optional field. */
	static const char *const missing[] = {
		"", "", "", "", "not found: no scan of older objects",
		"not found: objects of caches with red zones are off-grid",
	};
	const int offs[] = {
		dprof_layout.slab_cache, dprof_layout.cache_size,
		dprof_layout.cache_name, dprof_layout.cache_list,
		dprof_layout.slab_counters, dprof_layout.cache_red_left_pad,
	};
	int i;

	BUILD_BUG_ON(ARRAY_SIZE(offs) != ARRAY_SIZE(dprof_layout.overridden));
	seq_puts(m, "layout:\n");
	for (i = 0; i < ARRAY_SIZE(names); i++)
		seq_printf(m, "  %-23s offset %4d  (%s)\n", names[i], offs[i],
			   dprof_layout.overridden[i] ? "parameter" :
			   offs[i] >= 0 ? "calibrated" :
			   i == 5 && dprof_layout.no_red_zones ?
			   "not needed: kernel without SLUB debugging" :
			   missing[i]);
}

static void show_cpu_row(struct seq_file *m, const char *label,
			 const struct dprof_cpu_stats *s)
{
	seq_printf(m, "  %-5s %10llu %10llu %10llu %10llu %10llu %10llu\n",
		   label, s->allocs, s->frees, s->frees_not_live, s->untracked,
		   s->off_grid, s->ring_lost);
}

#define SCALED_NOTE \
	": object counts scaled"

static unsigned int late_targets(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < READ_ONCE(dprof_nr_targets); i++)
		n += !!(dprof_targets[i].flags & DPROF_TARGET_LATE);
	return n;
}

/*
 * The caches followed more sparsely than the base rule, raised for their
 * allocation rate: "NAME=N" each (dprof-view reads this line).
 */
static void show_track_per_cache(struct seq_file *m, unsigned int one_in)
{
	unsigned int nr = READ_ONCE(dprof_nr_targets), t, shown = 0;
	const struct dprof_target *tg;

	for (t = 0; t < nr; t++) {
		tg = &dprof_targets[t];
		if (tg->flags & DPROF_TARGET_VAR ||
		    (1U << READ_ONCE(tg->track_shift)) <= one_in)
			continue;
		seq_printf(m, "%s %s=%u", shown ? "" :
			   "track_one_in per cache (the others at the above):",
			   tg->name, 1U << READ_ONCE(tg->track_shift));
		shown++;
	}
	if (shown)
		seq_putc(m, '\n');
}

/* A raise waiting for its sweep (liveset.c, track_raise()). */
#define SWEEP_OWED_NOTE \
	" (one owed: run once the raised caches' lookups would cost more, or within 10 s)"

/*
 * The records per CPU and the hooks' costs.  The two sums are on the heap:
 * on the stack, with KASAN's red zones around them, status_show()'s frame
 * grew past the 2 KB the debug kernel allows.
 */
static int show_records(struct seq_file *m)
{
	struct dprof_cpu_stats *sum, *cpu_sum;
	char label[16];
	int cpu;

	sum = kcalloc(2, sizeof(*sum), GFP_KERNEL);
	if (!sum)
		return -ENOMEM;
	cpu_sum = sum + 1;
	seq_puts(m, "records per CPU:\n");
	seq_printf(m, "  %-5s %10s %10s %10s %10s %10s %10s\n", "cpu",
		   "allocs", "frees", "not_live", "untracked", "off_grid",
		   "ring_lost");
	for_each_possible_cpu(cpu) {
		memset(cpu_sum, 0, sizeof(*cpu_sum));
		dprof_stats_sum(cpu_sum, cpu);
		dprof_stats_sum(sum, cpu);
		if (!cpu_online(cpu) && !cpu_sum->allocs && !cpu_sum->frees)
			continue;
		snprintf(label, sizeof(label), "%d", cpu);
		show_cpu_row(m, label, cpu_sum);
	}
	show_cpu_row(m, "all", sum);
	seq_printf(m, "duplicate allocs (missed frees): %llu\n", sum->duplicates);
	seq_printf(m, "bulk probe misses: alloc %lu free %lu\n",
		   dprof_slab_bulk_missed(), dprof_slab_free_bulk_missed());
	seq_printf(m, "dropped: %llu\n", lost_total());
	dprof_costs_show(m, sum);
	kfree(sum);
	return 0;
}

static int status_show(struct seq_file *m, void *v)
{
	unsigned long capacity, live, pending, max_probe;
	unsigned int one_in, raises, rate_raises, max_rate, aliases, overflow;
	unsigned int sweeps;
	bool track_auto, owed;
	u64 swept, own_refused;
	unsigned long own_objects;
	u64 elapsed = ktime_get_mono_fast_ns() - dprof_load_time_ns();
	unsigned int i;
	int ret;

	seq_printf(m, "dprof %s abi %d\n", DPROF_VERSION, DPROF_ABI_VERSION);
	seq_printf(m, "enabled: %d\n", READ_ONCE(dprof_enabled));
	if (files_missing)
		seq_printf(m, "WARNING: %u debugfs files missing (no memory at load): unload and load again\n",
			   files_missing);
	seq_printf(m, "loaded_for_s: %llu.%03llu\n", elapsed / NSEC_PER_SEC,
		   (elapsed % NSEC_PER_SEC) / NSEC_PER_MSEC);
	seq_printf(m, "targets: %u\n", dprof_nr_targets);
	dprof_target_life_stats(&aliases, &overflow);
	if (aliases)
		seq_printf(m, "  merged aliases destroyed: %u (targets kept; allocations during each kmem_cache_destroy() not recorded)\n",
			   aliases);
	if (overflow || dprof_slab_destroy_missed())
		seq_printf(m, "  WARNING: %u kmem_cache_destroy() calls not followed at entry (%lu missed by the probe; over %d in flight): their targets died only when their struct kmem_cache was freed\n",
			   overflow, dprof_slab_destroy_missed(),
			   DPROF_DESTROYS_IN_FLIGHT);
	for (i = 0; i < dprof_nr_targets && !dprof_target_all; i++) {
		const struct dprof_target *t = &dprof_targets[i];

		seq_printf(m, "  [%u] %s object_size=%u stride=%u",
			   i, t->name, t->object_size, t->stride);
		if (t->left_pad)
			seq_printf(m, " red_zone=%u", t->left_pad);
		seq_printf(m, "%s%s\n",
			   t->flags & DPROF_TARGET_VAR ? " variable" :
			   t->flags & DPROF_TARGET_KMALLOC ? " kmalloc" : "",
			   t->flags & DPROF_TARGET_DEAD ? " DESTROYED" : "");
	}
	for (i = 0; i < dprof_nr_targets && dprof_target_all; i++)
		if (dprof_targets[i].flags & DPROF_TARGET_VAR)
			seq_printf(m, "  [%u] %s object_size=%u variable%s\n", i,
				   dprof_targets[i].name,
				   dprof_targets[i].object_size,
				   dprof_targets[i].flags & DPROF_TARGET_DEAD ?
				   " GONE" : "");
	if (dprof_target_missed_siblings())
		seq_printf(m, "kmalloc()s of a targeted size not profiled, in %s: target=size-N names them all\n",
			   dprof_target_missed_siblings());
	if (dprof_target_all) {
		u64 unknown;
		unsigned int over, too_large, rescans, retried, own, shared;
		bool counting;

		dprof_target_all_stats(&unknown, &over, &too_large, &rescans,
				       &retried);
		seq_printf(m, "target=all: %u caches (%u created after load), %u beyond the limit of %d and %u of objects over %u bytes not profiled\n",
			   dprof_nr_targets, late_targets(), over,
			   DPROF_MAX_TARGETS, too_large, DPROF_MAX_OBJECT_SIZE);
		seq_printf(m, "  %llu allocations from caches not yet seen, %u rescans\n",
			   unknown, rescans);
		if (retried)
			seq_printf(m, "  rescans that met a cache being destroyed: %u (walked again)\n",
				   retried);
		dprof_alloc_count_stats(&counting, &own, &shared);
		if (counting)
			seq_printf(m, "  allocations counted by cache: every one for %u caches; %u share a counter with another, scaled from their tracked ones (the young windows' and lives' scale)\n",
				   own, shared);
		else
			seq_puts(m, "  allocations not counted by cache (no memory for the counters): the young windows' and lives' scale is the tracked allocations, scaled\n");
	}
	show_layout(m);
	dprof_slab_show_hooks(m);
	dprof_liveset_stats(&capacity, &live, &pending, &max_probe);
	seq_printf(m, "live objects: %lu of %lu slots (longest probe %lu; %lu more pending: older objects not yet told live)\n",
		   live, capacity, max_probe, pending);
	dprof_track_stats(&one_in, &track_auto, &raises, &rate_raises,
			  &max_rate, &swept, &sweeps, &owed);
	seq_printf(m, "track_one_in: %u (%s; by address hash%s); raised %u times (%u for the allocation rate, at most %u a second per CPU)\n",
		   one_in, track_auto ? "adaptive" : "fixed",
		   one_in > 1 ? SCALED_NOTE : "", raises, rate_raises,
		   max_rate);
	seq_printf(m, "  sweeps of the set: %u, %llu entries dropped%s\n",
		   sweeps, swept, owed ? SWEEP_OWED_NOTE : "");
	show_track_per_cache(m, one_in);
	if (READ_ONCE(dprof_track_gate))
		seq_printf(m, "track gate: the hooks test 1 in %u before looking a cache up; %u caches followed more closely (the low set, %u of %u bits) take the lookup on every call\n",
			   1U << READ_ONCE(dprof_track_gate),
			   READ_ONCE(dprof_low_nr),
			   bitmap_weight(dprof_low_caches, 1U << DPROF_LOW_BITS),
			   1U << DPROF_LOW_BITS);
	dprof_ops_show(m);
	dprof_own_stats(&own_objects, &own_refused);
	seq_printf(m, "own objects: %lu perf events of dprof's, %llu lookups refused them (not profiled as the workload's)\n",
		   own_objects, own_refused);
	dprof_scan_show(m);
	ret = show_records(m);
	if (ret)
		return ret;
	dprof_history_show(m, true);
	dprof_sample_show(m, true);
	return 0;
}
DPROF_SHOW_ATTRIBUTE(status);

static int profile_show(struct seq_file *m, void *v)
{
	seq_puts(m, "# dprof data profile\n");
	dprof_sample_show(m, false);
	return 0;
}
DPROF_SHOW_ATTRIBUTE(profile);

/*
 * The figures the views need, typed (uapi/dprof.h, struct dprof_facts):
 * built once per open by the seq_file, so a reader in pieces gets one
 * consistent copy.
 */
static int facts_show(struct seq_file *m, void *v)
{
	size_t len;
	void *facts = dprof_facts_build(&len);

	if (!facts)
		return -ENOMEM;
	seq_write(m, facts, len);
	kvfree(facts);
	return 0;
}
DPROF_SHOW_ATTRIBUTE(facts);

/* Whole table entries of @entry bytes per read(), from @fill. */
static ssize_t table_read(char __user *ubuf, size_t count, loff_t *ppos,
			  size_t entry,
			  size_t (*fill)(void *buf, size_t room, loff_t *pos))
{
	ssize_t ret;
	void *buf;

	if (count < entry)
		return -EINVAL;
	count = min_t(size_t, count, EVENTS_BOUNCE);
	buf = kvmalloc(count, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	ret = fill(buf, count, ppos);
	if (ret && copy_to_user(ubuf, buf, ret))
		ret = -EFAULT;
	kvfree(buf);
	return ret;
}

/* Aggregated samples, whole struct dprof_sample_agg entries. */
static ssize_t samples_read(struct file *file, char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	return table_read(ubuf, count, ppos, sizeof(struct dprof_sample_agg),
			  dprof_sample_read);
}

static const struct file_operations samples_fops = {
	.owner = THIS_MODULE,
	.open = guarded_open,
	.read = samples_read,
};

/* Samples in no slab object, whole struct dprof_data_agg entries. */
static ssize_t data_samples_read(struct file *file, char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	return table_read(ubuf, count, ppos, sizeof(struct dprof_data_agg),
			  dprof_sample_read_data);
}

static const struct file_operations data_samples_fops = {
	.owner = THIS_MODULE,
	.open = guarded_open,
	.read = data_samples_read,
};

/* The history cover plans, whole struct dprof_plan_item entries. */
static ssize_t plans_read(struct file *file, char __user *ubuf, size_t count,
			  loff_t *ppos)
{
	return table_read(ubuf, count, ppos, sizeof(struct dprof_plan_item),
			  dprof_plan_read);
}

static const struct file_operations plans_fops = {
	.owner = THIS_MODULE,
	.open = guarded_open,
	.read = plans_read,
};

/* The ops= functions' calls, whole struct dprof_op_count entries. */
static ssize_t ops_read(struct file *file, char __user *ubuf, size_t count,
			loff_t *ppos)
{
	return table_read(ubuf, count, ppos, sizeof(struct dprof_op_count),
			  dprof_ops_read);
}

static const struct file_operations ops_fops = {
	.owner = THIS_MODULE,
	.open = guarded_open,
	.read = ops_read,
};

/*
 * Each CPU id's per-CPU area offset (__u64, 0 for impossible CPUs): a
 * per-CPU variable's copy on CPU c is at its symbol plus offset c, which
 * is how dprof-view names samples in per-CPU data.
 */
static ssize_t percpu_read(struct file *file, char __user *ubuf, size_t count,
			   loff_t *ppos)
{
	size_t len = nr_cpu_ids * sizeof(u64);
	unsigned int cpu;
	ssize_t ret;
	u64 *offs;

	offs = kvcalloc(nr_cpu_ids, sizeof(*offs), GFP_KERNEL);
	if (!offs)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		offs[cpu] = per_cpu_offset(cpu);
	ret = simple_read_from_buffer(ubuf, count, ppos, offs, len);
	kvfree(offs);
	return ret;
}

static const struct file_operations percpu_fops = {
	.owner = THIS_MODULE,
	.open = guarded_open,
	.read = percpu_read,
};

static ssize_t inject_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	return dprof_sample_inject(ubuf, count);
}

static const struct file_operations inject_fops = {
	.owner = THIS_MODULE,
	.open = guarded_open,
	.write = inject_write,
};

static int histories_show(struct seq_file *m, void *v)
{
	dprof_history_show(m, false);
	return 0;
}
DPROF_SHOW_ATTRIBUTE(histories);

/* One reader at a time: reading consumes the records. */
static int events_open_file(struct inode *inode, struct file *file)
{
	void *bounce;
	int ret = may_read_kernel_data();

	if (ret)
		return ret;
	if (atomic_cmpxchg(&events_open, 0, 1))
		return -EBUSY;
	bounce = vmalloc(EVENTS_BOUNCE);
	if (!bounce) {
		atomic_set(&events_open, 0);
		return -ENOMEM;
	}
	file->private_data = bounce;
	/* Its own work is not the workload's (sample.h). */
	dprof_sample_set_reader(task_tgid_nr(current));
	return stream_open(inode, file);
}

static int events_release(struct inode *inode, struct file *file)
{
	dprof_sample_set_reader(0);
	vfree(file->private_data);
	atomic_set(&events_open, 0);
	return 0;
}

/* Whole records only; 0 means the rings are empty right now. */
static ssize_t events_read(struct file *file, char __user *ubuf, size_t count,
			   loff_t *ppos)
{
	size_t len;
	ssize_t ret;

	if (count < EVENTS_MIN_READ)
		return -EINVAL;
	if (mutex_lock_interruptible(&events_read_lock))
		return -ERESTARTSYS;
	len = dprof_ring_drain(file->private_data, min_t(size_t, count,
							 EVENTS_BOUNCE));
	ret = len;
	if (len && copy_to_user(ubuf, file->private_data, len))
		ret = -EFAULT;
	mutex_unlock(&events_read_lock);
	return ret;
}

static const struct file_operations events_fops = {
	.owner = THIS_MODULE,
	.open = events_open_file,
	.release = events_release,
	.read = events_read,
};

/* Every file of the interface; the mode says who may read or write. */
static const struct {
	const char *name;
	umode_t mode;
	const struct file_operations *fops;
} debugfs_files[] = {
	{ DPROF_FILE_STATUS, 0400, &status_fops },
	{ DPROF_FILE_VERSION, 0400, &version_fops },
	{ DPROF_FILE_TARGETS, 0400, &targets_fops },
	{ DPROF_FILE_DROPPED, 0400, &dropped_fops },
	{ DPROF_FILE_EVENTS, 0400, &events_fops },
	{ DPROF_FILE_HISTORIES, 0400, &histories_fops },
	{ DPROF_FILE_PROFILE, 0400, &profile_fops },
	{ DPROF_FILE_SAMPLES, 0400, &samples_fops },
	{ DPROF_FILE_DATA_SAMPLES, 0400, &data_samples_fops },
	{ DPROF_FILE_PERCPU, 0400, &percpu_fops },
	{ DPROF_FILE_PLANS, 0400, &plans_fops },
	{ DPROF_FILE_OPS, 0400, &ops_fops },
	{ DPROF_FILE_FACTS, 0400, &facts_fops },
	/* Refuses writes unless sampler=inject. */
	{ DPROF_FILE_INJECT, 0200, &inject_fops },
};

/*
 * The interface, status first: a load that cannot create it fails.  Past
 * it the load must not fail (a reader may hold a file open, and a module
 * whose init failed is freed whatever its references: the close would
 * run freed text); a missing file is logged and counted in status.
 */
int dprof_debugfs_init(void)
{
	struct dentry *d;
	unsigned int i;

	dir = debugfs_create_dir(DPROF_DEBUGFS_DIR, NULL);
	if (IS_ERR(dir)) {
		pr_err("cannot create debugfs directory (%ld); is debugfs mounted and not disabled?\n",
		       PTR_ERR(dir));
		return PTR_ERR(dir);
	}
	files_missing = 0;
	for (i = 0; i < ARRAY_SIZE(debugfs_files); i++) {
		d = debugfs_create_file(debugfs_files[i].name,
					debugfs_files[i].mode, dir, NULL,
					debugfs_files[i].fops);
		if (!IS_ERR(d))
			continue;
		pr_err("cannot create debugfs file %s (%ld)%s\n",
		       debugfs_files[i].name, PTR_ERR(d),
		       i ? ": unload and load again" : "");
		if (!i) {
			dprof_debugfs_exit();
			return PTR_ERR(d);
		}
		files_missing++;
	}
	dprof_test_files(dir);
	return 0;
}

void dprof_debugfs_exit(void)
{
	debugfs_remove_recursive(dir);
	dir = NULL;
}

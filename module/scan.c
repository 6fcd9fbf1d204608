// SPDX-License-Identifier: GPL-2.0
/*
 * Objects older than the module.  The hooks only see allocations made
 * after load; a kthread walks every page of memory once, finds the slabs
 * of target caches, and establishes which of their objects are live.
 *
 * Liveness without SLUB's private freelists: a slab whose counters say
 * every object is allocated (inuse == objects) and that is not frozen (a
 * CPU's slab, whose inuse says nothing) holds only live objects.  Its
 * objects enter the live set as *pending* (invisible to samples, windows
 * and lookups, but removed by a free like any entry).  After an RCU grace
 * period the slab's cache pointer and counters are read again: unchanged,
 * the objects become live; changed, they leave the set (rolled back).
 * The grace period closes the one gap of the second look: the free
 * tracepoint fires before the object is freed, so a free whose hook ran
 * before an object entered the set could still be on its way to the
 * counters.  kmem_cache_free() does not sleep, so on kernels without full
 * preemption (Debian's default) every free whose hook ran before the
 * insert has reached the counters when the grace period ends; with
 * preempt=full a free preempted for a whole grace period could slip
 * through (its object would then show as a duplicate when reallocated).
 * Objects in slabs with free slots (partial or CPU slabs) are counted as
 * "not established" and never tracked: no sample, window or view
 * attributes an access to them.
 *
 * Reads of struct page/slab are plain loads of memory that is always
 * mapped (the memmap); object memory is never read.  The walk runs in its
 * own kthread with cond_resched() and reports its progress in "status".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kthread.h>
#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/mmzone.h>
#include <linux/nodemask.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/timex.h>
#include <linux/rcupdate.h>
#include "uapi/dprof.h"
#include "compat.h"
#include "calibrate.h"
#include "target.h"
#include "liveset.h"
#include "scan.h"
#include "byuse.h"

struct scan_counters {
	u64 pages;		/* page frames walked */
	u64 slabs;		/* slabs of target caches */
	u64 full_slabs;		/* whose objects were established live */
	u64 established;	/* objects established live and older */
	u64 after_load;		/* in full slabs, but the hooks saw them */
	u64 tracked;		/* of them entered the live set */
	u64 partial;		/* allocated objects in slabs with free slots */
	u64 frozen;		/* objects in CPU slabs: liveness unknown */
	u64 rolled_back;	/* slabs that changed while being entered */
	u64 irregular;		/* slabs not laid out on the stride grid */
	u64 start_ns, end_ns;
	u64 total_pages;	/* spanned by the online nodes */
};

static struct scan_counters sc;
static struct task_struct *scan_thread;
static bool scan_wanted;
static bool scan_no_hooks;	/* target=all under sampler=operand */
static bool scan_quarantine;	/* off: full slabs may hold freed objects */
static unsigned int scan_delay_ms;	/* tests: start the walk this late */

static u32 slab_counters(struct folio *folio)
{
	return READ_ONCE(*(u32 *)((char *)folio + dprof_layout.slab_counters));
}

/* A full slab whose objects are pending, until the grace period ends. */
struct pending_slab {
	struct folio *folio;
	struct kmem_cache *cache;
	u32 counters;
	u32 hooked;	/* objects the alloc hook had already entered */
	int target;
};

#define BATCH_SLABS	256

static struct pending_slab *batch;
static unsigned int batch_len;

static unsigned long slab_object(const struct pending_slab *p, u32 i)
{
	const struct dprof_target *t = &dprof_targets[p->target];

	return (unsigned long)folio_address(p->folio) + t->left_pad +
	       (unsigned long)i * t->stride;
}

/*
 * Confirm or roll back every slab of the batch, then let go of the set
 * (its lock is held from the batch's first insert: no sweep may change
 * the rules between a pending insert and its commit).  A full slab may hold
 * objects allocated after load, which the alloc hook entered and
 * recorded (the walk overlaps the workload; on a large or debug kernel
 * it takes seconds): they are not older than the module, and counting
 * them again would count them twice.
 */
static void batch_finish(void)
{
	unsigned int k;
	u32 i;

	if (!batch_len)
		return;
	synchronize_rcu();
	for (k = 0; k < batch_len; k++) {
		const struct pending_slab *p = &batch[k];
		u32 objects = (p->counters >> 16) & 0x7fff, n = 0, older;
		bool same = dprof_cache_of(folio_address(p->folio), NULL) ==
			    p->cache && slab_counters(p->folio) == p->counters;

		for (i = 0; i < objects; i++) {
			unsigned long obj = slab_object(p, i);

			if (!dprof_track_wanted(p->target, obj))
				continue;
			/*
			 * A rollback drops the entries still pending: those
			 * an allocation made live since are new objects the
			 * hook saw, and stay.
			 */
			if (same)
				n += dprof_liveset_commit(obj);
			else
				dprof_liveset_drop_pending(obj);
		}
		if (!same) {
			sc.rolled_back++;
			continue;
		}
		sc.full_slabs++;
		older = objects - min(p->hooked, objects);
		sc.after_load += objects - older;
		if (!older)
			continue;
		sc.established += older;
		sc.tracked += n;
		dprof_older_add(p->target, slab_object(p, 0), older, n);
	}
	batch_len = 0;
	dprof_liveset_unlock();
	cond_resched();
}

static void scan_slab(struct folio *folio)
{
	struct kmem_cache *s = dprof_cache_of(folio_address(folio), NULL);
	const struct dprof_target *t;
	struct pending_slab *p;
	u32 counters, objects, inuse, i;
	int target = dprof_target_of_cache(s);

	if (target < 0)
		return;
	t = &dprof_targets[target];
	sc.slabs++;
	counters = slab_counters(folio);
	objects = (counters >> 16) & 0x7fff;
	inuse = counters & 0xffff;
	if (!t->stride || objects != folio_size(folio) / t->stride) {
		sc.irregular++;		/* KFENCE, a race */
		return;
	}
	if (counters >> 31) {
		sc.frozen += objects;
		return;
	}
	if (inuse != objects) {
		sc.partial += min(inuse, objects);
		return;
	}
	/* The set is held from a batch's first insert to its commit. */
	if (!batch_len)
		dprof_liveset_lock();
	p = &batch[batch_len++];
	p->folio = folio;
	p->cache = s;
	p->counters = counters;
	p->hooked = 0;
	p->target = target;
	/* The counters were read before any object entered the set. */
	smp_mb();
	for (i = 0; i < objects; i++) {
		unsigned long obj = slab_object(p, i);

		if (dprof_track_wanted(target, obj) &&
		    dprof_liveset_insert_pending(obj, target) ==
		    DPROF_LIVE_DUPLICATE)
			p->hooked++;
	}
	if (batch_len == BATCH_SLABS)
		batch_finish();
}

static void scan_range(unsigned long start, unsigned long end)
{
	unsigned long pfn;

	for (pfn = start; pfn < end; pfn++) {
		struct page *page = pfn_to_online_page(pfn);
		struct folio *folio;

		WRITE_ONCE(sc.pages, sc.pages + 1);
		if (!(pfn & 1023)) {
			cond_resched();
			if (kthread_should_stop())
				return;
		}
		if (!page)
			continue;
		folio = page_folio(page);
		/* Heads only: a slab is visited once, at its first page. */
		if (&folio->page != page || !folio_test_slab(folio))
			continue;
		scan_slab(folio);
	}
}

static int scan_fn(void *unused)
{
	int nid;

	if (scan_delay_ms)
		schedule_timeout_killable(msecs_to_jiffies(scan_delay_ms));
	if (kthread_should_stop())
		goto out;
	/*
	 * The walk holds nothing for long: the set's lock one batch at a
	 * time (a load, an unload and a sweep wait one batch at most).
	 */
	for_each_online_node(nid) {
		scan_range(node_start_pfn(nid), node_end_pfn(nid));
		if (kthread_should_stop())
			break;
	}
	batch_finish();
	WRITE_ONCE(sc.end_ns, ktime_get_mono_fast_ns());
out:
	/* Wait to be stopped: kthread_stop() needs the task. */
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

#define SCAN_QUARANTINE_NOTE \
	"scan: off: KASAN's quarantine (CONFIG_KASAN_GENERIC) keeps freed objects in use in their slabs, so a full slab is not a slab of live objects: objects older than the module are not profiled"

static bool scan_enabled = true;
module_param_named(scan, scan_enabled, bool, 0444);
MODULE_PARM_DESC(scan,
		 "Find the live objects allocated before load (a kthread walks memory once; progress in status) (default Y)");

int dprof_scan_init(unsigned int test_delay_ms, bool hooks)
{
	bool enabled = scan_enabled && hooks;
	int nid;

	memset(&sc, 0, sizeof(sc));
	scan_no_hooks = !hooks;
	scan_wanted = enabled;
	scan_delay_ms = test_delay_ms;
	scan_quarantine = enabled && DPROF_FREE_QUARANTINE;
	if (scan_quarantine)
		pr_warn("%s\n", SCAN_QUARANTINE_NOTE);
	/* Older objects can be told live: byuse.c may establish some too. */
	dprof_byuse_want(enabled && !scan_quarantine &&
			 dprof_layout.slab_counters >= 0);
	if (!enabled || scan_quarantine || dprof_layout.slab_counters < 0)
		return 0;
	for_each_online_node(nid)
		sc.total_pages += node_spanned_pages(nid);
	batch = kvcalloc(BATCH_SLABS, sizeof(*batch), GFP_KERNEL);
	if (!batch)
		return -ENOMEM;
	return 0;
}

/* After the hooks are in: a free during the walk is seen by them. */
void dprof_scan_start(void)
{
	struct task_struct *t;

	if (!batch)
		return;
	sc.start_ns = ktime_get_mono_fast_ns();
	t = kthread_run(scan_fn, NULL, "dprof-scan");
	if (IS_ERR(t)) {
		pr_warn("cannot start the scan of older objects (%ld): only objects allocated from now on are profiled\n",
			PTR_ERR(t));
		return;
	}
	scan_thread = t;
}

void dprof_scan_exit(void)
{
	if (scan_thread)
		kthread_stop(scan_thread);
	scan_thread = NULL;
	kvfree(batch);
	batch = NULL;
}

void dprof_scan_show(struct seq_file *m)
{
	u64 pages = READ_ONCE(sc.pages), end = READ_ONCE(sc.end_ns);
	u64 ms;

	if (scan_no_hooks) {
		seq_puts(m, "scan: off: no allocation hooks to follow the objects it would find\n");
		return;
	}
	if (!scan_wanted) {
		seq_puts(m, "scan: off (scan=0): objects older than the module are not profiled\n");
		return;
	}
	if (scan_quarantine) {
		seq_printf(m, "%s\n", SCAN_QUARANTINE_NOTE);
		return;
	}
	if (dprof_layout.slab_counters < 0) {
		seq_puts(m, "scan: off: slab.counters not calibrated (set slab_counters_offset=): objects older than the module are not profiled\n");
		return;
	}
	if (!sc.start_ns) {
		seq_puts(m, "scan: not started\n");
		return;
	}
	ms = div_u64((end ? end : ktime_get_mono_fast_ns()) - sc.start_ns,
		     NSEC_PER_MSEC);
	seq_printf(m, "scan: %s, %llu of %llu pages (%llu MiB) in %llu ms\n",
		   end ? "done" : "running", pages, sc.total_pages,
		   pages >> (20 - PAGE_SHIFT), ms);
	seq_printf(m, "  older objects: %llu established live in %llu full slabs (%llu tracked; %llu more there were allocated after load)\n",
		   sc.established, sc.full_slabs, sc.tracked, sc.after_load);
	seq_printf(m, "  not established: %llu in slabs with free slots, %llu in CPU slabs; %llu slabs changed while scanned (rolled back), %llu irregular; %llu target slabs seen\n",
		   sc.partial, sc.frozen, sc.rolled_back, sc.irregular,
		   sc.slabs);
}

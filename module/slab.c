// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation and free hooks: every allocation and free of a target object
 * becomes an ALLOC or FREE record (the thesis' address set) and updates the
 * live-object set the resolver reads.
 *
 * - Tracepoints kmem_cache_alloc/kmem_cache_free carry the cache pointer;
 *   kfree (always) and kmalloc (only with a kmalloc-N target) do not, so
 *   the cache is read from the object's slab.  kfree is hooked even without
 *   kmalloc targets because kfree() of a kmem_cache object is legal and a
 *   missed free would leave a stale entry in the live set.
 * - kmem_cache_alloc_bulk and kmem_cache_free_bulk fire no tracepoint
 *   (skbuff's NAPI cache and kfree_rcu batches use them): a kretprobe and a
 *   kprobe cover them.  The free-side kprobe runs at function entry, before
 *   any object is freed, like the kmem_cache_free tracepoint.
 * - A kretprobe on kmem_cache_destroy stops a target while its cache is
 *   being destroyed, and the free of its struct kmem_cache (a
 *   kmem_cache_free of the "kmem_cache" cache) ends it for good, so that
 *   a destroyed cache's pointer, if reused, is never mistaken for the
 *   target (target.c, "lives of target caches").
 * - Objects are tracked 1 in 2^track_shift of their cache by address hash
 *   (liveset.c: per cache, raised for the allocation rate in auto mode):
 *   the probes test the rule inline after the cache lookup, so an
 *   untracked object costs a few instructions more than a non-target's
 *   and no call (dprof_alloc_wanted()); while every target is sampled,
 *   the sparsest rule they all share drops most objects before the
 *   lookup (dprof_alloc_maybe()).  An allocation from a cache that is no
 *   target yet asks adopt.c to look for new caches (among those that
 *   pass that rule).
 *
 * All handlers run with preemption disabled, may nest with interrupts and
 * NMIs, never sleep, allocate or print.  One takes a lock: the free of a
 * struct kmem_cache (process or softirq context, never NMI) ends its
 * target under target.c's life_lock, a raw spinlock with interrupts off
 * that the destroy probes and the targets' publication take likewise.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/moduleparam.h>
#include <linux/tracepoint.h>
#include <linux/timex.h>
#include <linux/mm.h>
#include <linux/seq_file.h>
#include <trace/events/kmem.h>
#include "uapi/dprof.h"
#include "calibrate.h"
#include "target.h"
#include "allocount.h"
#include "liveset.h"
#include "byuse.h"
#include "slab.h"
#include "stats.h"
#include "ring.h"
#include "watch.h"
#include "dprof_trace.h"
#include "compat.h"

/* The runtime switch every hook checks; the parameter lives with them. */
bool dprof_enabled = true;
module_param_named(enable, dprof_enabled, bool, 0644);
MODULE_PARM_DESC(enable,
		 "Record allocations and frees, and sampler=operand's samples (runtime: /sys/module/dprof/parameters/enable, default Y)");

/*
 * The ALLOC or FREE record at @now, written in place in this CPU's ring
 * (ring.h): the hooks' straight path holds no record on the stack and
 * makes no call but the clock's.
 */
static __always_inline void emit_object(u8 kind, int target, u8 flags,
					u64 now, unsigned long addr,
					unsigned long call_site)
{
	struct dprof_rec_hdr hdr = {
		.kind = kind,
		.flags = flags,
		.size = sizeof(struct dprof_obj_event),
		.cpu = smp_processor_id(),
		.target = target,
	};
	struct dprof_obj_event *ev;

	ev = dprof_ring_reserve(sizeof(*ev), kind);
	if (!ev)
		return;
	ev->time_ns = now;
	ev->addr = addr;
	ev->call_site = call_site;
	dprof_ring_commit(ev, &hdr);
}

/*
 * @slab_base: the object's slab's address where the hook found it already
 * (kmalloc looks the cache up from the page), else 0.
 */
static void object_alloc(int target, const void *ptr, unsigned long call_site,
			 u8 flags, unsigned long slab_base)
{
	struct dprof_target *t = &dprof_targets[target];
	unsigned long base = (unsigned long)ptr;
	u64 part = dprof_part_start(), now;

	if (!dprof_track_wanted(target, base)) {
		/* Not tracked, but a history may start with it. */
		dprof_history_pick(target, base, call_site);
		return;
	}
	dprof_byuse_touch(base);	/* not older than the module */
	if ((!slab_base && !dprof_cache_of_object(ptr, &slab_base)) ||
	    base - slab_base < t->left_pad ||
	    (base - slab_base - t->left_pad) % t->stride) {
		flags |= DPROF_OBJ_OFF_GRID;
		this_cpu_inc(dprof_stats.off_grid);
	}
	dprof_part_end(&part, DPROF_SIDE_ALLOC, DPROF_PART_FILTER);
	switch (dprof_liveset_insert(base, target)) {
	case DPROF_LIVE_INSERTED:
		break;
	case DPROF_LIVE_FULL:
		flags |= DPROF_OBJ_UNTRACKED;
		this_cpu_inc(dprof_stats.untracked);
		break;
	case DPROF_LIVE_DUPLICATE:
		this_cpu_inc(dprof_stats.duplicates);
		break;
	}
	dprof_part_end(&part, DPROF_SIDE_ALLOC, DPROF_PART_LIVESET);
	this_cpu_inc(dprof_stats.allocs);
	/* The rate the budget looks at (liveset.c): a lost count is no harm. */
	data_race(t->tracked++);
	/*
	 * The type's allocations, each tracked one as the 2^shift it stands
	 * for: the young windows' and lives' scale (profile.c).  Racy, as
	 * above.
	 */
	data_race(t->allocs_scaled += 1UL << READ_ONCE(t->track_shift));
	trace_dprof_alloc(target, flags, base, call_site);
	now = ktime_get_mono_fast_ns();
	dprof_part_end(&part, DPROF_SIDE_ALLOC, DPROF_PART_RECORD);
	emit_object(DPROF_REC_ALLOC, target, flags, now, base, call_site);
	dprof_part_end(&part, DPROF_SIDE_ALLOC, DPROF_PART_RING);
	dprof_history_pick(target, base, call_site);
	dprof_part_end(&part, DPROF_SIDE_ALLOC, DPROF_PART_HISTORY);
	dprof_part_call(DPROF_SIDE_ALLOC);
}

/*
 * A free ends what dprof knows of the object even while paused (enable=0):
 * its history ends, it leaves the live set and its window, and the free
 * of a life whose allocation was recorded is recorded too.  Otherwise a
 * life would run on past its free, the resolver would count the reused
 * memory as the old object and a history could span two lives.  Only the
 * frees of objects allocated while paused, never recorded, are skipped.
 */
static void object_free(int target, const void *ptr, unsigned long call_site,
			u8 flags)
{
	u64 part = dprof_part_start(), now;
	bool paused = !READ_ONCE(dprof_enabled);

	dprof_history_free(target, (unsigned long)ptr, call_site);
	dprof_part_end(&part, DPROF_SIDE_FREE, DPROF_PART_HISTORY);
	/* Sampled tracking: this object never entered the set. */
	if (!dprof_track_maybe(target, (unsigned long)ptr))
		return;
	dprof_byuse_touch((unsigned long)ptr);	/* no longer older */
	dprof_part_end(&part, DPROF_SIDE_FREE, DPROF_PART_FILTER);
	if (!dprof_liveset_remove((unsigned long)ptr)) {
		if (paused)
			return;	/* allocated while paused: never recorded */
		/*
		 * Passed only the older rule of a sweep under way: never
		 * tracked, or swept out (its free is not recorded).
		 */
		if (!dprof_track_wanted(target, (unsigned long)ptr))
			return;
		flags |= DPROF_OBJ_NOT_LIVE;
		this_cpu_inc(dprof_stats.frees_not_live);
	} else {
		dprof_window_free((unsigned long)ptr);
	}
	dprof_part_end(&part, DPROF_SIDE_FREE, DPROF_PART_LIVESET);
	this_cpu_inc(dprof_stats.frees);
	trace_dprof_free(target, flags, (unsigned long)ptr, call_site);
	now = ktime_get_mono_fast_ns();
	dprof_part_end(&part, DPROF_SIDE_FREE, DPROF_PART_RECORD);
	emit_object(DPROF_REC_FREE, target, flags, now, (unsigned long)ptr,
		    call_site);
	dprof_part_end(&part, DPROF_SIDE_FREE, DPROF_PART_RING);
	dprof_part_call(DPROF_SIDE_FREE);
}

/* Target of an object whose cache is unknown (kmalloc, kfree, bulk). */
static int target_of_object(const void *ptr)
{
	struct kmem_cache *s = dprof_cache_of_object(ptr, NULL);

	return s ? dprof_target_of_cache(s) : -1;
}

/*
 * The kmem_cache tracepoint hooks.  An untimed call is a counter, a
 * countdown and the cache index lookup, then nothing on an object of no
 * target and a tail call on a target's: no frame of their own.  The timed
 * calls (1 in 16, dprof_cost_count()) go through a function of their own
 * that does the same under the clock.
 */
static noinline void cache_alloc_timed(unsigned long call_site,
				       const void *ptr, struct kmem_cache *s)
{
	u64 start = dprof_cost_start(DPROF_HOOK_CACHE_ALLOC);
	int target = dprof_alloc_maybe((unsigned long)ptr) ||
		     dprof_track_low(s) ? dprof_target_of_cache(s) : -2;
	bool hit = target >= 0 && dprof_alloc_wanted(target, (unsigned long)ptr);

	if (hit)
		object_alloc(target, ptr, call_site, 0, 0);
	else if (target == -1 && dprof_target_all)
		dprof_target_unknown_alloc();
	dprof_cost_leave(DPROF_HOOK_CACHE_ALLOC, true, hit, start);
}

static void probe_cache_alloc(void *data, unsigned long call_site,
			      const void *ptr, struct kmem_cache *s,
			      gfp_t gfp_flags, int node)
{
	int target;

	if (!READ_ONCE(dprof_enabled) || !ptr)
		return;
	dprof_count_allocs(s, 1);
	if (dprof_cost_count(DPROF_HOOK_CACHE_ALLOC)) {
		cache_alloc_timed(call_site, ptr, s);
		return;
	}
	if (likely(!dprof_alloc_maybe((unsigned long)ptr)) &&
	    likely(!dprof_track_low(s)))
		return;
	target = dprof_target_of_cache(s);
	if (likely(target < 0)) {
		if (unlikely(dprof_target_all))
			dprof_target_unknown_alloc();
		return;
	}
	if (likely(!dprof_alloc_wanted(target, (unsigned long)ptr)))
		return;
	this_cpu_inc(dprof_stats.cost[DPROF_HOOK_CACHE_ALLOC].hits);
	object_alloc(target, ptr, call_site, 0, 0);
}

static noinline void cache_free_timed(unsigned long call_site,
				      const void *ptr,
				      const struct kmem_cache *s)
{
	u64 start = dprof_cost_start(DPROF_HOOK_CACHE_FREE);
	int target = dprof_free_maybe((unsigned long)ptr) ||
		     dprof_track_low(s) ? dprof_target_of_cache(s) : -1;
	bool hit = target >= 0 && dprof_free_wanted(target, (unsigned long)ptr);

	if (hit)
		object_free(target, ptr, call_site, 0);
	/* A struct kmem_cache: that cache is gone, whatever its destroy said. */
	if (unlikely(s == dprof_cache_cache))
		dprof_target_cache_freed(ptr);
	dprof_cost_leave(DPROF_HOOK_CACHE_FREE, true, hit, start);
}

static void probe_cache_free(void *data, unsigned long call_site,
			     const void *ptr, const struct kmem_cache *s)
{
	int target;

	/* Frees are seen while paused too (object_free()). */
	if (!ptr)
		return;
	if (dprof_cost_count(DPROF_HOOK_CACHE_FREE)) {
		cache_free_timed(call_site, ptr, s);
		return;
	}
	/* A struct kmem_cache: that cache is gone, whatever its destroy said. */
	if (unlikely(s == dprof_cache_cache))
		dprof_target_cache_freed(ptr);
	if (likely(!dprof_free_maybe((unsigned long)ptr)) &&
	    likely(!dprof_track_low(s)))
		return;
	target = dprof_target_of_cache(s);
	if (likely(target < 0) ||
	    likely(!dprof_free_wanted(target, (unsigned long)ptr)))
		return;
	this_cpu_inc(dprof_stats.cost[DPROF_HOOK_CACHE_FREE].hits);
	object_free(target, ptr, call_site, 0);
}

static void probe_kmalloc(void *data, unsigned long call_site,
			  const void *ptr, size_t bytes_req,
			  size_t bytes_alloc, gfp_t gfp_flags, int node)
{
	unsigned long slab_base;
	struct kmem_cache *s;
	u64 start = 0;
	bool timed, hit, maybe;
	int target;

	if (!READ_ONCE(dprof_enabled) || ZERO_OR_NULL_PTR(ptr))
		return;
	timed = dprof_cost_enter(DPROF_HOOK_KMALLOC, &start);
	maybe = dprof_alloc_maybe((unsigned long)ptr);
	/*
	 * Under target=all the low set is almost never empty: the cache is
	 * looked up on every call anyway, and counted (allocount.h).
	 */
	if (!maybe && !dprof_track_low_any() &&
	    !READ_ONCE(dprof_alloc_counts)) {
		dprof_cost_leave(DPROF_HOOK_KMALLOC, timed, false, start);
		return;
	}
	/* The slab's address with the cache: the grid check needs it too. */
	s = dprof_cache_of_object(ptr, &slab_base);
	if (s)
		dprof_count_allocs(s, 1);
	target = s && (maybe || dprof_track_low(s)) ?
		 dprof_target_of_cache(s) : -2;
	hit = target >= 0 && dprof_alloc_wanted(target, (unsigned long)ptr);
	if (hit)
		object_alloc(target, ptr, call_site, DPROF_OBJ_KMALLOC,
			     slab_base);
	else if (target == -1 && dprof_target_all)
		dprof_target_unknown_alloc();
	dprof_cost_leave(DPROF_HOOK_KMALLOC, timed, hit, start);
}

static void probe_kfree(void *data, unsigned long call_site, const void *ptr)
{
	struct kmem_cache *s;
	u64 start = 0;
	bool timed, hit, maybe;
	int target = -1;

	/* Frees are seen while paused too (object_free()). */
	if (ZERO_OR_NULL_PTR(ptr))
		return;
	timed = dprof_cost_enter(DPROF_HOOK_KFREE, &start);
	/* No target could want it: no page lookup for its cache. */
	maybe = dprof_free_maybe((unsigned long)ptr);
	if (maybe || dprof_track_low_any()) {
		s = dprof_cache_of_object(ptr, NULL);
		target = s && (maybe || dprof_track_low(s)) ?
			 dprof_target_of_cache(s) : -1;
	}
	hit = target >= 0 && dprof_free_wanted(target, (unsigned long)ptr);
	if (hit)
		object_free(target, ptr, call_site, DPROF_OBJ_KMALLOC);
	dprof_cost_leave(DPROF_HOOK_KFREE, timed, hit, start);
}

/* kmem_cache_alloc_bulk(s, flags, size, p): objects are known on return. */
struct alloc_bulk_call {
	void **objects;
	unsigned long call_site;
	int target;
	struct kmem_cache *cache;
};

static int alloc_bulk_entry(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	struct alloc_bulk_call *call = (void *)ri->data;
	struct kmem_cache *s;

	if (!READ_ONCE(dprof_enabled))
		return 1;
	s = (struct kmem_cache *)regs_get_kernel_argument(regs, 0);
	call->cache = s;
	call->target = dprof_target_of_cache(s);
	if (call->target < 0)
		return 1;	/* not a target: skip the return handler */
	call->objects = (void **)regs_get_kernel_argument(regs, 3);
	call->call_site = dprof_entry_call_site(regs);
	return 0;
}

static int alloc_bulk_return(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	struct alloc_bulk_call *call = (void *)ri->data;
	long i, n = (int)regs_return_value(regs);
	u64 start = get_cycles();

	if (n > 0)
		dprof_count_allocs(call->cache, n);
	for (i = 0; i < n; i++)
		object_alloc(call->target, call->objects[i], call->call_site,
			     DPROF_OBJ_BULK, 0);
	dprof_cost_add(DPROF_HOOK_ALLOC_BULK, true, get_cycles() - start);
	return 0;
}

static struct kretprobe alloc_bulk_probe = {
	.kp.symbol_name = DPROF_SYM_ALLOC_BULK,
	.entry_handler = alloc_bulk_entry,
	.handler = alloc_bulk_return,
	.data_size = sizeof(struct alloc_bulk_call),
};

/* kmem_cache_free_bulk(s, size, p), s == NULL from kfree_bulk(). */
static int free_bulk_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct kmem_cache *s;
	void **objects;
	size_t i, n;
	unsigned long call_site;
	u64 start;
	bool hit = false;
	int target = -1;

	/* Frees are seen while paused too (object_free()). */
	start = get_cycles();
	s = (struct kmem_cache *)regs_get_kernel_argument(regs, 0);
	n = regs_get_kernel_argument(regs, 1);
	objects = (void **)regs_get_kernel_argument(regs, 2);
	if (s) {
		target = dprof_target_of_cache(s);
		if (target < 0)
			goto out;
	}
	call_site = dprof_entry_call_site(regs);
	for (i = 0; i < n; i++) {
		int t = s ? target : target_of_object(objects[i]);

		if (t < 0 || ZERO_OR_NULL_PTR(objects[i]))
			continue;
		object_free(t, objects[i], call_site, DPROF_OBJ_BULK);
		hit = true;
	}
out:
	dprof_cost_add(DPROF_HOOK_FREE_BULK, hit, get_cycles() - start);
	return 0;
}

static struct kprobe free_bulk_probe = {
	.symbol_name = DPROF_SYM_FREE_BULK,
	.pre_handler = free_bulk_pre,
};

/*
 * kmem_cache_destroy(s): at entry the target stops (its objects are all
 * freed by now; dprof holds none, it never allocates from a target); on
 * return it dies for good if the cache left slab_caches, or lives again if
 * only a merged alias's reference was dropped (target.c keeps the count of
 * destroys in flight).  kmem_cache_destroy() sleeps, so many can be in
 * flight: the probe has an instance for as many as target.c counts.
 */
struct cache_destroy_call {
	const struct kmem_cache *s;
};

static int cache_destroy_entry(struct kretprobe_instance *ri,
			       struct pt_regs *regs)
{
	struct cache_destroy_call *call = (void *)ri->data;
	bool tracked;

	call->s = (const void *)regs_get_kernel_argument(regs, 0);
	if (!call->s)
		return 1;
	dprof_target_destroy_begin(call->s, &tracked);
	return tracked ? 0 : 1;	/* 1: no return handler */
}

static int cache_destroy_return(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	struct cache_destroy_call *call = (void *)ri->data;

	dprof_target_destroy_end(call->s);
	return 0;
}

static struct kretprobe cache_destroy_probe = {
	.kp.symbol_name = DPROF_SYM_CACHE_DESTROY,
	.entry_handler = cache_destroy_entry,
	.handler = cache_destroy_return,
	.data_size = sizeof(struct cache_destroy_call),
	.maxactive = DPROF_DESTROYS_IN_FLIGHT,
};

int dprof_slab_destroy_init(void)
{
	int ret = register_kretprobe(&cache_destroy_probe);

	if (ret)
		pr_err("cannot probe %s (%d)\n", DPROF_SYM_CACHE_DESTROY, ret);
	return ret;
}

void dprof_slab_destroy_exit(void)
{
	unregister_kretprobe(&cache_destroy_probe);
}

/* Destroys the probe had no instance for: not seen at entry. */
unsigned long dprof_slab_destroy_missed(void)
{
	return cache_destroy_probe.nmissed;
}

static bool kmalloc_hooked;
static bool hooked;	/* dprof_slab_init() done: main.c may skip it */

static void unregister_tracepoints(void)
{
	unregister_trace_kfree(probe_kfree, NULL);
	if (kmalloc_hooked)
		unregister_trace_kmalloc(probe_kmalloc, NULL);
	unregister_trace_kmem_cache_free(probe_cache_free, NULL);
	unregister_trace_kmem_cache_alloc(probe_cache_alloc, NULL);
	kmalloc_hooked = false;
}

static int register_tracepoints(void)
{
	int ret;

	ret = register_trace_kmem_cache_alloc(probe_cache_alloc, NULL);
	if (ret)
		goto err;
	ret = register_trace_kmem_cache_free(probe_cache_free, NULL);
	if (ret)
		goto err_alloc;
	if (dprof_have_kmalloc_target) {
		ret = register_trace_kmalloc(probe_kmalloc, NULL);
		if (ret)
			goto err_free;
		kmalloc_hooked = true;
	}
	ret = register_trace_kfree(probe_kfree, NULL);
	if (ret)
		goto err_kmalloc;
	return 0;

err_kmalloc:
	if (kmalloc_hooked)
		unregister_trace_kmalloc(probe_kmalloc, NULL);
	kmalloc_hooked = false;
err_free:
	unregister_trace_kmem_cache_free(probe_cache_free, NULL);
err_alloc:
	unregister_trace_kmem_cache_alloc(probe_cache_alloc, NULL);
err:
	pr_err("cannot attach to the kmem tracepoints (%d)\n", ret);
	return ret;
}

int dprof_slab_init(void)
{
	int ret;

	/* Enough instances for every CPU to be inside the bulk allocator. */
	alloc_bulk_probe.maxactive = max_t(int, 64, 4 * num_possible_cpus());
	ret = register_kretprobe(&alloc_bulk_probe);
	if (ret) {
		pr_err("cannot probe %s (%d)\n", DPROF_SYM_ALLOC_BULK, ret);
		return ret;
	}
	ret = register_kprobe(&free_bulk_probe);
	if (ret) {
		pr_err("cannot probe %s (%d)\n", DPROF_SYM_FREE_BULK, ret);
		goto err_alloc_bulk;
	}
	ret = register_tracepoints();
	if (ret)
		goto err_free_bulk;
	hooked = true;
	return 0;

err_free_bulk:
	unregister_kprobe(&free_bulk_probe);
err_alloc_bulk:
	unregister_kretprobe(&alloc_bulk_probe);
	return ret;
}

void dprof_slab_exit(void)
{
	if (!hooked)
		return;
	hooked = false;
	unregister_tracepoints();
	unregister_kprobe(&free_bulk_probe);
	unregister_kretprobe(&alloc_bulk_probe);
	/* No handler may still run when the rings and live set go away. */
	tracepoint_synchronize_unregister();
}

/*
 * Which hooks are armed, and why (status).  All of them stay armed from
 * load to unload: every allocation and free of a target is recorded, the
 * exact address set; enable=0 skips allocations, never frees.
 */
bool dprof_slab_hooked(void)
{
	return hooked;
}

void dprof_slab_show_hooks(struct seq_file *m)
{
	if (!hooked) {
		seq_puts(m, "hooks: no allocation or free hook (target=all: samples typed by their slab page; history=1, track_one_in= or named targets arm them)\n");
		seq_printf(m, "  kretprobe %s: a target stops while its cache is destroyed\n",
			   DPROF_SYM_CACHE_DESTROY);
		return;
	}
	seq_puts(m, "hooks, armed from load to unload (every target allocation and free is recorded: the exact address set; enable=0 skips allocations, not frees):\n");
	seq_puts(m, "  tracepoint kmem_cache_alloc, kmem_cache_free: the targets' objects, and the free of a struct kmem_cache, which ends its target\n");
	seq_printf(m, "  tracepoint kmalloc: %s\n", kmalloc_hooked ?
		   "kmalloc-N targets" : "off (no kmalloc-N target)");
	seq_puts(m, "  tracepoint kfree: a kfree() of any target's object is legal, and a missed free would leave a stale live object\n");
	seq_printf(m, "  kretprobe %s and kprobe %s: bulk allocations and frees (the NAPI skb cache, kfree_rcu batches), which fire no tracepoint\n",
		   DPROF_SYM_ALLOC_BULK, DPROF_SYM_FREE_BULK);
	seq_printf(m, "  kretprobe %s: a target stops while its cache is destroyed\n",
		   DPROF_SYM_CACHE_DESTROY);
}

/* Instances the bulk-allocation kretprobe could not track: lost allocs. */
unsigned long dprof_slab_bulk_missed(void)
{
	return alloc_bulk_probe.nmissed;
}

unsigned long dprof_slab_free_bulk_missed(void)
{
	return free_bulk_probe.nmissed;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stats.c: per-CPU counters and the handlers' own costs, with the inline
 * timing the hooks use.
 */
#ifndef _DPROF_STATS_H
#define _DPROF_STATS_H

#include <linux/types.h>
#include <linux/percpu.h>
#include <linux/jump_label.h>
#include <linux/timex.h>

enum dprof_hook {
	DPROF_HOOK_CACHE_ALLOC,	/* tracepoint kmem_cache_alloc */
	DPROF_HOOK_CACHE_FREE,	/* tracepoint kmem_cache_free */
	DPROF_HOOK_KMALLOC,	/* tracepoint kmalloc */
	DPROF_HOOK_KFREE,	/* tracepoint kfree */
	DPROF_HOOK_ALLOC_BULK,	/* kretprobe kmem_cache_alloc_bulk */
	DPROF_HOOK_FREE_BULK,	/* kprobe kmem_cache_free_bulk */
	DPROF_HOOK_BP_HIT,	/* debug-register hit (collector.c) */
	DPROF_HOOK_SAMPLE,	/* IBS/PEBS sample (sample.c) */
	DPROF_HOOK_INUSE_TICK,	/* in-use tick (inuse.c); hit: it found one */
	DPROF_HOOK_CHAIN,	/* a sample's call chain (chain.c); hit: frames */
	DPROF_HOOK_OPS,		/* kprobe of an ops= function (opcount.c) */
	DPROF_NR_HOOKS,
};

struct dprof_cost {
	u64 calls;	/* every invocation, target or not */
	u64 hits;	/* of those, invocations on a target object */
	u64 timed;	/* invocations timed and not slow */
	u64 timed_hits;	/* of those, invocations on a target object */
	u64 cycles;	/* get_cycles() spent in the body of the timed calls */
	u64 hit_cycles;	/* of those, in the invocations on targets */
	u64 max_cycles;
	u64 slow;	/* timed calls over DPROF_COST_SLOW, not in the sums */
	int countdown;	/* slab hooks: calls until the next timed one */
};

/*
 * A hook body over this many cycles was interrupted, not slow: by an
 * interrupt on a host, and under QEMU -icount mostly by QEMU switching
 * its one thread to the other vCPU, whose instructions advance the
 * shared clock too (such calls take some 940,000 cycles there: 100 of
 * 190,000 added 150 to the average).  They are counted apart.  The bulk
 * hooks, which loop over their objects, keep every call.
 */
#define DPROF_COST_SLOW	20000

/*
 * Where a target's alloc or free hook spends its instructions, measured
 * only with cost_parts=1 (a static branch otherwise): get_cycles() after
 * each part of object_alloc() and object_free() (slab.c).
 */
enum dprof_part {
	DPROF_PART_FILTER,	/* sampled tracking, slab grid check */
	DPROF_PART_LIVESET,	/* live-set insert or remove (and windows) */
	DPROF_PART_RECORD,	/* counters, trace event (off: a nop), clock */
	DPROF_PART_RING,	/* the record: reserve, fill, publish */
	DPROF_PART_HISTORY,	/* history arming and ends */
	DPROF_NR_PARTS,
};

enum dprof_side { DPROF_SIDE_ALLOC, DPROF_SIDE_FREE, DPROF_NR_SIDES };

struct dprof_cpu_stats {
	u64 allocs;		/* ALLOC records produced */
	u64 frees;		/* FREE records produced */
	u64 frees_not_live;	/* frees of objects not in the live set */
	u64 untracked;		/* allocs the live set had no room for */
	u64 duplicates;		/* allocs of objects already live */
	u64 off_grid;		/* allocs off the stride grid */
	u64 ring_lost;		/* records the ring had no room for */
	struct dprof_cost cost[DPROF_NR_HOOKS];
	u64 part_calls[DPROF_NR_SIDES];		/* cost_parts=1 */
	u64 part_cycles[DPROF_NR_SIDES][DPROF_NR_PARTS];
};

DECLARE_PER_CPU(struct dprof_cpu_stats, dprof_stats);
DECLARE_STATIC_KEY_FALSE(dprof_cost_parts);

/* Start of a measured hook body: 0 unless cost_parts=1. */
static inline u64 dprof_part_start(void)
{
	return static_branch_unlikely(&dprof_cost_parts) ? get_cycles() : 0;
}

/* Part @part of @side ended now: charge it since *@t, restart *@t. */
static inline void dprof_part_end(u64 *t, enum dprof_side side,
				  enum dprof_part part)
{
	u64 now;

	if (!static_branch_unlikely(&dprof_cost_parts))
		return;
	now = get_cycles();
	/* An interrupted part (see DPROF_COST_SLOW) counts as nothing. */
	if (now - *t <= DPROF_COST_SLOW)
		this_cpu_add(dprof_stats.part_cycles[side][part], now - *t);
	*t = now;
}

static inline void dprof_part_call(enum dprof_side side)
{
	if (static_branch_unlikely(&dprof_cost_parts))
		this_cpu_inc(dprof_stats.part_calls[side]);
}

extern const char *const dprof_hook_names[DPROF_NR_HOOKS];
void dprof_stats_sum(struct dprof_cpu_stats *sum, int cpu);
/*
 * A history of @target ended with the free of its object (@moved: it was
 * touched on another CPU than its allocation's); and the two counts.
 */
void dprof_target_history_done(unsigned int target, bool moved);
void dprof_target_moves(unsigned int target, u64 *moved, u64 *histories);
u64 dprof_load_time_ns(void);
/* cost_parts= (stats.c): the hooks' costs part by part. */
void dprof_stats_init(void);
/*
 * get_cycles() ticks per 1000 instructions, measured at load on a loop of
 * known length (0: not measured).  Under QEMU -icount guest time counts
 * instructions, so ticks convert to instructions exactly there.
 */
u64 dprof_ticks_per_kinsn(void);
u64 dprof_timing_pair_ticks(void);

/* A timed call of @hook took @cycles (out of line: 1 call in 16). */
void dprof_cost_timed(enum dprof_hook hook, bool hit, u64 cycles);

/* A call of @hook timed whole (#DB and PMU handlers: every call). */
static inline void dprof_cost_add(enum dprof_hook hook, bool hit, u64 cycles)
{
	this_cpu_inc(dprof_stats.cost[hook].calls);
	if (hit)
		this_cpu_inc(dprof_stats.cost[hook].hits);
	dprof_cost_timed(hook, hit, cycles);
}

/*
 * The slab hooks time one call in DPROF_COST_EVERY on average, per CPU
 * and hook, so that a call on an object of no target costs a few
 * instructions and no clock read: a countdown, restarted at a jittered
 * length (from the clock's low bits) so that the timed calls do not
 * follow a periodic pattern of target and other calls.  Calls and hits
 * are counted exactly; the instructions per call are those of the timed
 * ones.  dprof_cost_enter() counts the call and says whether to time it,
 * reading the clock into *@start if so.
 */
#define DPROF_COST_EVERY	16

/* Count a call of @hook; true when it is one to time. */
static __always_inline bool dprof_cost_count(enum dprof_hook hook)
{
	this_cpu_inc(dprof_stats.cost[hook].calls);
	return unlikely(this_cpu_dec_return(dprof_stats.cost[hook].countdown)
			<= 0);
}

/* A timed call of @hook begins: the clock, and the countdown restarted. */
static __always_inline u64 dprof_cost_start(enum dprof_hook hook)
{
	u64 start = get_cycles();

	this_cpu_write(dprof_stats.cost[hook].countdown,
		       1 + (start & (2 * DPROF_COST_EVERY - 1)));
	return start;
}

static __always_inline bool dprof_cost_enter(enum dprof_hook hook, u64 *start)
{
	if (likely(!dprof_cost_count(hook)))
		return false;
	*start = dprof_cost_start(hook);
	return true;
}

static __always_inline void dprof_cost_leave(enum dprof_hook hook, bool timed,
					     bool hit, u64 start)
{
	if (hit)
		this_cpu_inc(dprof_stats.cost[hook].hits);
	if (unlikely(timed))
		dprof_cost_timed(hook, hit, get_cycles() - start);
}

#endif /* _DPROF_STATS_H */

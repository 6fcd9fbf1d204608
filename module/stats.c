// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU counters of what the hooks did and what they cost.  Hooks update
 * only their own CPU's copy; readers sum them in process context.
 */
#include <linux/percpu.h>
#include <linux/string.h>
#include <linux/ktime.h>
#include <linux/moduleparam.h>
#include <linux/irqflags.h>
#include <linux/math64.h>
#include <linux/timex.h>
#include "uapi/dprof.h"
#include "stats.h"

DEFINE_PER_CPU(struct dprof_cpu_stats, dprof_stats);
DEFINE_STATIC_KEY_FALSE(dprof_cost_parts);

const char *const dprof_hook_names[DPROF_NR_HOOKS] = {
	[DPROF_HOOK_CACHE_ALLOC] = "tp:kmem_cache_alloc",
	[DPROF_HOOK_CACHE_FREE] = "tp:kmem_cache_free",
	[DPROF_HOOK_KMALLOC] = "tp:kmalloc",
	[DPROF_HOOK_KFREE] = "tp:kfree",
	[DPROF_HOOK_ALLOC_BULK] = "kretprobe:alloc_bulk",
	[DPROF_HOOK_FREE_BULK] = "kprobe:free_bulk",
	[DPROF_HOOK_BP_HIT] = "hw_breakpoint:hit",
	[DPROF_HOOK_SAMPLE] = "perf:sample",
	[DPROF_HOOK_INUSE_TICK] = "perf:inuse-tick",
	[DPROF_HOOK_CHAIN] = "sample:callchain",
	[DPROF_HOOK_OPS] = "kprobe:ops",
};

/* Per target: complete histories, and those whose object changed CPU. */
static atomic64_t target_histories[DPROF_MAX_TARGETS];
static atomic64_t target_moved[DPROF_MAX_TARGETS];
static u64 load_time_ns;
static u64 ticks_per_kinsn;
static u64 pair_ticks;

#define CALIBRATION_LOOPS 1000000	/* of two instructions each */

/*
 * Ticks of 2 M instructions (dec, jnz), interrupts off so that no
 * handler's instructions count: under -icount the same each time; on
 * hardware an estimate (a tight loop retires faster than hook code).
 */
static noinline u64 calibrate(void)
{
	unsigned long n = CALIBRATION_LOOPS, flags;
	u64 start, ticks;

	local_irq_save(flags);
	start = get_cycles();
	asm volatile("1:\n\tdec %0\n\tjnz 1b" : "+r" (n) : : "cc");
	ticks = get_cycles() - start;
	local_irq_restore(flags);
	return div64_u64(ticks * 1000, 2 * CALIBRATION_LOOPS);
}

/*
 * Ticks between two get_cycles() with nothing between them, the least of
 * 64 tries: what the timing itself adds to every figure of the status.
 */
static noinline u64 empty_pair(void)
{
	u64 least = U64_MAX, start, ticks;
	unsigned long flags;
	int i;

	local_irq_save(flags);
	for (i = 0; i < 64; i++) {
		start = get_cycles();
		ticks = get_cycles() - start;
		least = min(least, ticks);
	}
	local_irq_restore(flags);
	return least;
}

static bool cost_parts;
module_param(cost_parts, bool, 0444);
MODULE_PARM_DESC(cost_parts,
		 "Measure where a target's alloc and free hooks spend their instructions, part by part (status; costs a few get_cycles() per target call; default N)");

void dprof_stats_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&dprof_stats, cpu), 0,
		       sizeof(struct dprof_cpu_stats));
	load_time_ns = ktime_get_mono_fast_ns();
	ticks_per_kinsn = calibrate();
	pair_ticks = empty_pair();
	/*
	 * Before the hooks exist: no hook sees the key change; the key
	 * leaves with the module.
	 */
	if (cost_parts)
		static_branch_enable(&dprof_cost_parts);
}

u64 dprof_ticks_per_kinsn(void)
{
	return ticks_per_kinsn;
}

u64 dprof_timing_pair_ticks(void)
{
	return pair_ticks;
}

u64 dprof_load_time_ns(void)
{
	return load_time_ns;
}

/* Add CPU @cpu's counters to @sum. */
void dprof_stats_sum(struct dprof_cpu_stats *sum, int cpu)
{
	const struct dprof_cpu_stats *s = per_cpu_ptr(&dprof_stats, cpu);
	int h;

	sum->allocs += READ_ONCE(s->allocs);
	sum->frees += READ_ONCE(s->frees);
	sum->frees_not_live += READ_ONCE(s->frees_not_live);
	sum->untracked += READ_ONCE(s->untracked);
	sum->duplicates += READ_ONCE(s->duplicates);
	sum->off_grid += READ_ONCE(s->off_grid);
	sum->ring_lost += READ_ONCE(s->ring_lost);
	for (h = 0; h < DPROF_NR_HOOKS; h++) {
		const struct dprof_cost *c = &s->cost[h];

		sum->cost[h].calls += READ_ONCE(c->calls);
		sum->cost[h].hits += READ_ONCE(c->hits);
		sum->cost[h].timed += READ_ONCE(c->timed);
		sum->cost[h].timed_hits += READ_ONCE(c->timed_hits);
		sum->cost[h].cycles += READ_ONCE(c->cycles);
		sum->cost[h].hit_cycles += READ_ONCE(c->hit_cycles);
		sum->cost[h].slow += READ_ONCE(c->slow);
		sum->cost[h].max_cycles = max(sum->cost[h].max_cycles,
					      READ_ONCE(c->max_cycles));
	}
	for (h = 0; h < DPROF_NR_SIDES; h++) {
		int p;

		sum->part_calls[h] += READ_ONCE(s->part_calls[h]);
		for (p = 0; p < DPROF_NR_PARTS; p++)
			sum->part_cycles[h][p] += READ_ONCE(s->part_cycles[h][p]);
	}
}

void dprof_cost_timed(enum dprof_hook hook, bool hit, u64 cycles)
{
	struct dprof_cost *c = this_cpu_ptr(&dprof_stats.cost[hook]);

	/* Interrupt context may nest here: the sums are best effort. */
	if (cycles > c->max_cycles)
		c->max_cycles = cycles;
	if (cycles > DPROF_COST_SLOW && hook != DPROF_HOOK_ALLOC_BULK &&
	    hook != DPROF_HOOK_FREE_BULK) {
		c->slow++;
		return;
	}
	c->timed++;
	c->cycles += cycles;
	if (hit) {
		c->timed_hits++;
		c->hit_cycles += cycles;
	}
}

void dprof_target_history_done(unsigned int target, bool moved)
{
	atomic64_inc(&target_histories[target]);
	if (moved)
		atomic64_inc(&target_moved[target]);
}

void dprof_target_moves(unsigned int target, u64 *moved, u64 *histories)
{
	*moved = atomic64_read(&target_moved[target]);
	*histories = atomic64_read(&target_histories[target]);
}

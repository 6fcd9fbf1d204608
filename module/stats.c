// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU counters of what the hooks did and what they cost.  Hooks update
 * only their own CPU's copy; readers sum them in process context.
 */
#include <linux/percpu.h>
#include <linux/string.h>
#include <linux/ktime.h>
#include "dprof.h"

DEFINE_PER_CPU(struct dprof_cpu_stats, dprof_stats);

const char *const dprof_hook_names[DPROF_NR_HOOKS] = {
	[DPROF_HOOK_CACHE_ALLOC] = "tp:kmem_cache_alloc",
	[DPROF_HOOK_CACHE_FREE] = "tp:kmem_cache_free",
	[DPROF_HOOK_KMALLOC] = "tp:kmalloc",
	[DPROF_HOOK_KFREE] = "tp:kfree",
	[DPROF_HOOK_ALLOC_BULK] = "kretprobe:alloc_bulk",
	[DPROF_HOOK_FREE_BULK] = "kprobe:free_bulk",
	[DPROF_HOOK_BP_HIT] = "hw_breakpoint:hit",
	[DPROF_HOOK_SAMPLE] = "perf:sample",
};

static u64 load_time_ns;

void dprof_stats_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&dprof_stats, cpu), 0,
		       sizeof(struct dprof_cpu_stats));
	load_time_ns = ktime_get_mono_fast_ns();
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
		sum->cost[h].cycles += READ_ONCE(c->cycles);
		sum->cost[h].max_cycles = max(sum->cost[h].max_cycles,
					      READ_ONCE(c->max_cycles));
	}
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The handler-cost table of debugfs "status": each hook's calls, cycles
 * and instructions per call against its budget, and with cost_parts=1 a
 * target hook's parts (the counts are stats.c's).
 */
#include <linux/math64.h>
#include <linux/seq_file.h>
#include "stats.h"
#include "sample.h"
#include "costs.h"
#include "testparams.h"

/*
 * Instruction budgets: a hook on an object nothing follows, and on a
 * followed one; 0 where none applies (bulk calls vary with their size):
 * issue "Cheap enough to leave on"'s 20 and 150, before them 100 and 400
 * ("Costs that repeat"), timing's own few instructions included.
 */
static const unsigned int budget_other[DPROF_NR_HOOKS] = {
	[DPROF_HOOK_CACHE_ALLOC] = 20, [DPROF_HOOK_CACHE_FREE] = 20,
	[DPROF_HOOK_KMALLOC] = 20, [DPROF_HOOK_KFREE] = 20,
	[DPROF_HOOK_BP_HIT] = 500,	/* a hit nothing is recorded for */
	[DPROF_HOOK_SAMPLE] = 300,	/* a sample outside targets */
};

static const unsigned int budget_target[DPROF_NR_HOOKS] = {
	[DPROF_HOOK_CACHE_ALLOC] = 150, [DPROF_HOOK_CACHE_FREE] = 150,
	[DPROF_HOOK_KMALLOC] = 150, [DPROF_HOOK_KFREE] = 150,
	[DPROF_HOOK_BP_HIT] = 500, [DPROF_HOOK_SAMPLE] = 300,
};

/*
 * A budget is judged only where instructions are counted exactly: on a
 * host, cycles over a dec/jnz loop's cycles per instruction is an
 * estimate that an out-of-order core's overlap and the cache make too
 * high or too low, and a flag on it would be a verdict on noise.
 */
static unsigned int hook_budget(int h, bool target)
{
	if (!dprof_test_exact_counts())
		return 0;
	/* A sampler with a budget of its own (the operand sampler's tick). */
	if (h == DPROF_HOOK_SAMPLE && dprof_sampler()->budget)
		return dprof_sampler()->budget;
	return target ? budget_target[h] : budget_other[h];
}

/* "123/400" instructions against the budget, or "-". */
static void insn_text(char *buf, size_t len, u64 cycles, u64 calls,
		      unsigned int budget)
{
	u64 per_k = dprof_ticks_per_kinsn();
	u64 insn;

	if (!calls || !per_k) {
		snprintf(buf, len, "-");
		return;
	}
	insn = div64_u64(cycles * 1000, calls * per_k);
	if (budget)
		snprintf(buf, len, "%llu/%u%s", insn, budget,
			 insn > budget ? "!" : "");
	else
		snprintf(buf, len, "%llu", insn);
}

/* cost_parts=1: a target hook's instructions, part by part. */
static void show_parts(struct seq_file *m, const struct dprof_cpu_stats *sum)
{
	static const char *const sides[DPROF_NR_SIDES] = { "alloc", "free" };
	static const char *const parts[DPROF_NR_PARTS] = {
		[DPROF_PART_FILTER] = "filter",
		[DPROF_PART_LIVESET] = "live set",
		[DPROF_PART_RECORD] = "record",
		[DPROF_PART_RING] = "ring write",
		[DPROF_PART_HISTORY] = "history",
	};
	int side, p;

	for (side = 0; side < DPROF_NR_SIDES; side++) {
		u64 calls = sum->part_calls[side];
		char buf[32];

		if (!calls)
			continue;
		seq_printf(m, "  target %s parts (cost_parts=1, %llu calls), instructions per call:",
			   sides[side], calls);
		for (p = 0; p < DPROF_NR_PARTS; p++) {
			insn_text(buf, sizeof(buf), sum->part_cycles[side][p],
				  calls, 0);
			seq_printf(m, " %s %s", parts[p], buf);
		}
		seq_putc(m, '\n');
	}
}

void dprof_costs_show(struct seq_file *m, const struct dprof_cpu_stats *sum)
{
	u64 per_k = dprof_ticks_per_kinsn();
	bool exact;
	int h;

	seq_printf(m, "handler costs (get_cycles() around the body, all CPUs; the slab hooks time 1 call in %d on average, the others every call):\n",
		   DPROF_COST_EVERY);
	if (dprof_test_exact_counts())
		seq_printf(m, "  instructions = cycles / %llu.%03llu, counted exactly (QEMU -icount); insn other/target against the budget (! over)\n",
			   per_k / 1000, per_k % 1000);
	else
		seq_printf(m, "  ~insn: estimated, cycles / %llu.%03llu (a dec/jnz loop's cycles per instruction at load); budgets are judged under -icount only\n",
			   per_k / 1000, per_k % 1000);
	seq_printf(m, "  the timing itself: two get_cycles() with nothing between read %llu cycles apart, included in every figure below\n",
		   dprof_timing_pair_ticks());
	seq_printf(m, "  slow: timed calls over %u cycles (interrupted), left out of the averages\n",
		   DPROF_COST_SLOW);
	exact = dprof_test_exact_counts();
	seq_printf(m, "  %-22s %12s %12s %10s %10s %8s %14s %14s\n", "hook",
		   "calls", "on targets", "avg cyc", "max cyc", "slow",
		   exact ? "insn other" : "~insn other",
		   exact ? "insn target" : "~insn target");
	for (h = 0; h < DPROF_NR_HOOKS; h++) {
		const struct dprof_cost *c = &sum->cost[h];
		char other[32], target[32];

		insn_text(other, sizeof(other), c->cycles - c->hit_cycles,
			  c->timed - c->timed_hits, hook_budget(h, false));
		insn_text(target, sizeof(target), c->hit_cycles, c->timed_hits,
			  hook_budget(h, true));
		seq_printf(m, "  %-22s %12llu %12llu %10llu %10llu %8llu %14s %14s\n",
			   dprof_hook_names[h], c->calls, c->hits,
			   c->timed ? div64_u64(c->cycles, c->timed) : 0,
			   c->max_cycles, c->slow, other, target);
	}
	show_parts(m, sum);
}

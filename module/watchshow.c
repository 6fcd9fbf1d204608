// SPDX-License-Identifier: GPL-2.0
/*
 * The watch's part of debugfs "histories" (see watch.h): the debug
 * registers held, what was found written behind dprof's back, the
 * limits, the traps and what arming, disarming and the hit handler cost.
 */
#include <linux/math64.h>
#include <linux/seq_file.h>
#include "watch.h"
#include "stats.h"
#include "watch_config.h"

/* The registers, the limits and the costs of arming and of the handler. */
void dprof_watch_show(struct seq_file *m)
{
	const struct dprof_history_config *cfg = &dprof_watch_cfg;
	const struct watch_stats *c = &dprof_watch_stats;
	struct dprof_cpu_stats sum = {};
	const struct dprof_cost *hit = &sum.cost[DPROF_HOOK_BP_HIT];
	u64 per_k = dprof_ticks_per_kinsn(), traps, first_ns, now_ns;
	struct watch_regs r;
	int cpu;

	for_each_possible_cpu(cpu)
		dprof_stats_sum(&sum, cpu);
	dprof_watch_regs(&r);
	first_ns = dprof_watch_first_arm_ns();
	now_ns = watch_now_ns();
	seq_printf(m, "  debug registers: %u of 4 held (%u free at load, watch_slots=%u%s), length %u, on %u of %u CPUs online (the others isolated)\n",
		   r.held, r.free_at_load, r.slots,
		   r.slots ? "" : ": all free but one", cfg->len,
		   r.watched, r.online);
	seq_printf(m, "  registers: %llu found moved by perf, %llu rewritten behind dprof (set again, the watch flagged), %llu traps on an address no longer watched\n",
		   r.moved, r.rewritten, r.stale);
	seq_printf(m, "  limits: history_max_arms=%u/s history_max_hits=%u/s history_timeout_ms=%u history_wait_ms=%u, 1 object watched at a time\n",
		   cfg->max_arms, cfg->max_hits, cfg->timeout_ms, cfg->wait_ms);
	traps = atomic64_read(&dprof_watch_hits.traps);
	seq_printf(m, "  traps: %llu", traps);
	if (first_ns && now_ns > first_ns)
		seq_printf(m, " (%llu per second since the first arm)",
			   div64_u64(traps * NSEC_PER_SEC, now_ns - first_ns));
	seq_printf(m, "; watch_max_traps=%u/s%s: %llu turns put off, by %llu ms in all\n",
		   cfg->max_traps, cfg->max_traps ? "" : " (no bound)",
		   c->rests, div_u64(c->rest_ns, NSEC_PER_MSEC));
	/* Only the kinds that ran: an average of none is no figure. */
	seq_puts(m, "  costs in cycles:");
	if (hit->timed)
		seq_printf(m, " hit %llu avg, %llu max (%llu hits);",
			   div64_u64(hit->cycles, hit->timed),
			   hit->max_cycles, hit->calls);
	if (r.here_arms)
		seq_printf(m, " arm at allocation %llu avg, %llu max (%llu);",
			   div64_u64(r.here_cycles, r.here_arms),
			   r.here_max, r.here_arms);
	if (c->arms)
		seq_printf(m, " arm by the collector %llu avg, %llu max (%llu);",
			   div64_u64(c->arm_cycles, c->arms),
			   c->arm_max_cycles, c->arms);
	if (c->disarms)
		seq_printf(m, " disarm %llu avg (%llu)",
			   div64_u64(c->disarm_cycles, c->disarms),
			   c->disarms);
	if (!hit->timed && !r.here_arms && !c->arms && !c->disarms)
		seq_puts(m, " none yet");
	seq_putc(m, '\n');
	/*
	 * An arm or disarm is process context (the collector thread): it
	 * takes every CPU's registers with IPIs, so its instructions are
	 * spread over the CPUs; these count the thread's own wait too.
	 */
	if (per_k && c->arms && c->disarms)
		seq_printf(m, "  costs in instructions: arm %llu, disarm %llu per call (the collector thread, IPIs and waits included; cycles / %llu.%03llu)\n",
			   div64_u64(c->arm_cycles * 1000, c->arms * per_k),
			   div64_u64(c->disarm_cycles * 1000,
				     c->disarms * per_k),
			   per_k / 1000, per_k % 1000);
}

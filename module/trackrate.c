// SPDX-License-Identifier: GPL-2.0
/*
 * The tracking rate rule (auto mode, track_one_in=0): every RATE_PERIOD_MS
 * a work counts each target's tracked allocations of the period, and
 * while they pass the budget, track_max_rate per online CPU, the busiest
 * target is followed at half its rate (dprof_track_raise(), liveset.c,
 * which publishes the rule and sweeps the set).  So the budget goes to
 * the caches allocated slowly, followed in full, and the busy ones are
 * sampled.  Above the live set: it only calls down into it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/moduleparam.h>
#include <linux/workqueue.h>
#include <linux/cpumask.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/time.h>
#include <linux/timekeeping.h>
#include <linux/math64.h>
#include "target.h"
#include "liveset.h"
#include "trackrate.h"

#define RATE_PERIOD_MS	20
/* A period's raises at most: each halves the busiest target's count. */
#define RATE_MAX_RAISES	64

static unsigned int track_max_rate = 2048;
module_param(track_max_rate, uint, 0444);
MODULE_PARM_DESC(track_max_rate,
		 "With track_one_in=0: tracked allocations per second per online CPU at most (64..1000000, default 2048); above it, track_one_in doubles");

static unsigned int rate_last[DPROF_MAX_TARGETS];	/* tracked, last period */
static unsigned int rate_count[DPROF_MAX_TARGETS];	/* in this period */
static u8 rate_by[DPROF_MAX_TARGETS];			/* raises decided */
static unsigned int rate_raises;	/* raises for the allocation rate */
static u64 rate_taken_ns;		/* when rate_take() last counted */
static void rate_check(struct work_struct *work);
static DECLARE_DELAYED_WORK(rate_work, rate_check);

int dprof_track_rate_params(void)
{
	if (track_max_rate < 64 || track_max_rate > 1000000) {
		pr_err("track_max_rate=%u: must be between 64 and 1000000\n",
		       track_max_rate);
		return -EINVAL;
	}
	return 0;
}

/* Each target's tracked allocations since the last call, and their sum. */
static u64 rate_take(unsigned int nr_targets)
{
	unsigned int t, cur;
	u64 sum = 0;

	for (t = 0; t < nr_targets; t++) {
		/* The hooks' racy increments: a rate, not a total. */
		cur = data_race(READ_ONCE(dprof_targets[t].tracked));
		rate_count[t] = cur - rate_last[t];
		rate_last[t] = cur;
		sum += rate_count[t];
	}
	rate_taken_ns = ktime_get_mono_fast_ns();
	return sum;
}

/*
 * Auto mode, every RATE_PERIOD_MS: while the tracked allocations of the
 * period pass the budget (track_max_rate per online CPU), the busiest
 * cache is followed at half its rate.  So the budget goes to the caches
 * allocated slowly, followed in full (a server's few sockets), and the
 * busy ones are sampled (its skbuffs).  A burst is tracked in full for
 * one period at most.
 */
static void rate_check(struct work_struct *work)
{
	unsigned int nr_targets = READ_ONCE(dprof_nr_targets), t, k;
	/*
	 * The period as it was: a work run late (a busy or emulated
	 * machine) counts more than RATE_PERIOD_MS of allocations, and held
	 * to one period's budget that raised slow caches with the busy ones.
	 */
	u64 period_ms = clamp_t(u64, div_u64(ktime_get_mono_fast_ns() -
					     rate_taken_ns, NSEC_PER_MSEC),
				RATE_PERIOD_MS, MSEC_PER_SEC);
	u64 budget = max_t(u64, 1, (u64)track_max_rate * num_online_cpus() *
			   period_ms / MSEC_PER_SEC);
	u64 sum = rate_take(nr_targets), raised;
	bool any = false;
	int best;

	dprof_track_lift_to_floor();
	memset(rate_by, 0, nr_targets);
	raised = 0;
	for (k = 0; k < RATE_MAX_RAISES && sum > budget; k++) {
		best = -1;
		for (t = 0; t < nr_targets; t++)
			if (dprof_targets[t].track_shift + rate_by[t] <
			    DPROF_TRACK_MAX_SHIFT &&
			    (best < 0 || rate_count[t] > rate_count[best]))
				best = t;
		if (best < 0 || !rate_count[best])
			break;
		/*
		 * The lookups it costs until the sweep: its frees the older
		 * rule passes, or every call while it is in the low set.
		 */
		if (!rate_by[best])
			raised += READ_ONCE(dprof_targets[best].low) ?
				  (u64)rate_count[best] <<
				  dprof_targets[best].sweep_shift :
				  rate_count[best];
		rate_by[best]++;
		sum -= rate_count[best] - rate_count[best] / 2;
		rate_count[best] /= 2;
		any = true;
	}
	/* The raises' lookups a second, until the sweep drops their entries. */
	if (any && dprof_track_raise(rate_by,
				     div_u64(raised * MSEC_PER_SEC, period_ms))) {
		rate_raises++;
		/* A sweep took time: count from its end. */
		rate_take(nr_targets);
	} else {
		dprof_track_sweep_owed();
	}
	dprof_liveset_adapt();
	/*
	 * Unbound: on a CPU-bound CPU's own queue (an allocation loop in a
	 * kernel thread that never yields) the check waited for the loop to
	 * end, and tracked all of it.
	 */
	queue_delayed_work(system_unbound_wq, &rate_work,
			   msecs_to_jiffies(RATE_PERIOD_MS));
}

/* Once the hooks are in; stopped before anything a sweep ends. */
void dprof_track_rate_start(void)
{
	struct dprof_track_counts c;

	dprof_track_counts(&c);
	rate_raises = 0;
	if (!c.is_auto)
		return;
	rate_take(READ_ONCE(dprof_nr_targets));
	queue_delayed_work(system_unbound_wq, &rate_work,
			   msecs_to_jiffies(RATE_PERIOD_MS));
}

void dprof_track_rate_stop(void)
{
	cancel_delayed_work_sync(&rate_work);
}

void dprof_track_stats(unsigned int *one_in, bool *is_auto,
		       unsigned int *nr_raises, unsigned int *nr_rate_raises,
		       unsigned int *max_rate, u64 *nr_swept,
		       unsigned int *nr_sweeps, bool *owed)
{
	struct dprof_track_counts c;

	dprof_track_counts(&c);
	*one_in = c.one_in;
	*is_auto = c.is_auto;
	*nr_raises = c.raises;
	*nr_rate_raises = READ_ONCE(rate_raises);
	*max_rate = track_max_rate;
	*nr_swept = c.swept;
	*nr_sweeps = c.sweeps;
	*owed = c.owed;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The collector thread ("dprof-history"), the one place that arms and
 * disarms the watch (see watch.h for the files and history.c for the
 * design).  When the watch's next deadline comes, or a hook kicks it,
 * it moves the watch one step (it sleeps while nothing is due): from
 * IDLE it takes a turn (variables every other turn, then histories and
 * sample windows alternately, history_max_arms per second for all of
 * them), and it ends what ran out of time, was freed, or belongs to a
 * destroyed cache.  Also here: the #DB handler, which sends
 * each hit to the history or the window it belongs to, the set-up, and
 * the debugfs report.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kthread.h>
#include <linux/moduleparam.h>
#include <linux/timex.h>
#include <linux/seq_file.h>
#include "uapi/dprof.h"
#include "watch.h"
#include "plan.h"
#include "inuse.h"
#include "compat.h"
#include "target.h"
#include "allocount.h"
#include "slab.h"
#include "stats.h"
#include "watch_config.h"
#include "collector.h"
#include "strop.h"

static struct task_struct *thread;
static unsigned int offsets_per_watch;	/* offsets one history watches, 1-4 */
static bool next_is_window;
static bool next_is_young;
static bool next_is_var;

/* Whether the collector has anything to watch. */
static bool watching(void)
{
	return dprof_watch_cfg.enabled || dprof_watch_cfg.windows ||
	       dprof_watch_cfg.variables;
}

/* ---- #DB context ------------------------------------------------------- */

/* One watched offset accessed: to the window or history it belongs to. */
static bool count_hit(unsigned long word, unsigned int w,
		      struct pt_regs *regs, u64 when)
{
	if (word_state(word) == W_SAMPLING)
		return dprof_window_hit(w, regs);
	if (word_state(word) == W_ACTIVE) {
		dprof_history_hit(word, w, regs, when);
		return true;
	}
	atomic64_inc(&dprof_watch_hits.outside_life);
	return false;
}

/*
 * Breakpoint handler, from #DB (NMI-like).  The context: which watched
 * offset.  A trap counts only while the register holds the watch's
 * address (watch.c: an IPI not yet run, or a register rewritten behind
 * dprof, leaves an older address there).  A rep string instruction that
 * ran to its end before it trapped also counts the other watched offsets
 * it went through (strop.h); the kind of every access comes from the
 * instruction, in userspace.
 */
static void watch_hit(struct perf_event *bp, struct perf_sample_data *data,
		      struct pt_regs *regs)
{
	unsigned int w = (unsigned long)bp->overflow_handler_context, rest, i;
	u64 start = get_cycles(), when = watch_now_ns();
	unsigned long word = atomic_long_read(&dprof_watch.word);
	unsigned long addr;
	bool emitted = false, dest = false;

	BUILD_BUG_ON(NR_WATCH_OFFSETS > DPROF_STROP_MAX);
	smp_rmb();	/* word before alloc_ns, paired with the claim */
	addr = READ_ONCE(dprof_watch.addr);
	if (!dprof_watch_trap_ok(w) || dprof_strop_counted(regs, addr, w, when))
		goto out;
	atomic64_inc(&dprof_watch_hits.traps);
	emitted = count_hit(word, w, regs, when);
	rest = dprof_strop_rest(regs, addr, dprof_watch.offset,
				READ_ONCE(dprof_watch.nr_offsets),
				dprof_watch_cfg.len, w, when, &dest);
	if (rest)
		atomic64_add(hweight32(rest), &dprof_watch_hits.string_rest);
	for (i = 0; rest; i++, rest >>= 1)
		if (rest & 1)
			emitted |= count_hit(word, i, regs, when);
out:
	dprof_cost_add(DPROF_HOOK_BP_HIT, emitted, get_cycles() - start);
}

/* ---- the thread -------------------------------------------------------- */

/*
 * The trap budget (watch_max_traps): a turn at the registers (a window,
 * a history, a variable's watch) that trapped T times holds the next
 * one off until T / max_traps seconds after it began, so the traps
 * average at most max_traps a second however hot the watched fields.
 * A turn's own length is never cut: a window ended by its count would
 * read its object low (it stops where the accesses were dense), while a
 * rest after it changes only when the next window opens, not what any
 * window counts; objects and offsets are drawn as before.  What a rest
 * does change is which moments are watched: a workload whose busy
 * phases make windows trap more is watched less right after them.
 */
/*
 * A turn follows the last one this long after it ended: the turn rate of
 * the 5 ms poll the collector had (some 47 turns a second on memcached),
 * not twice it (design.rst, "Known limits": twice the windows cost some
 * 17 M instructions a second more).
 */
#define COLLECTOR_TURN_GAP_NS	(8 * NSEC_PER_MSEC)
static u64 next_turn_ns;	/* no turn before, after the last */
static u64 turn_ns;		/* the current turn began */
static u64 turn_traps;		/* dprof_watch_hits.traps then */
static u64 rest_until_ns;	/* no turn before */

static void turn_began(u64 now)
{
	turn_ns = now;
	turn_traps = atomic64_read(&dprof_watch_hits.traps);
}

/* After the registers were parked: no trap of this turn is to come. */
static void turn_ended(void)
{
	const struct dprof_history_config *cfg = &dprof_watch_cfg;
	u64 traps = atomic64_read(&dprof_watch_hits.traps) - turn_traps;
	u64 until;

	if (!cfg->max_traps || !turn_ns)
		return;
	until = turn_ns + div_u64(traps * NSEC_PER_SEC, cfg->max_traps);
	turn_ns = 0;
	if (until > watch_now_ns()) {
		rest_until_ns = until;
		dprof_watch_stats.rests++;
		dprof_watch_stats.rest_ns += until - watch_now_ns();
	}
}

/* Every breakpoint released; then what the watch did is counted. */
static void disarm(void)
{
	struct watch *w = &dprof_watch;
	unsigned long word = atomic_long_read(&w->word);
	struct hist_plan *p = dprof_plan(w->target);

	dprof_watch_disarm();
	turn_ended();
	dprof_window_disarmed();
	if (w->end_reason) {
		dprof_watch_stats.ends[w->end_reason]++;
		if ((w->end_reason == DPROF_HIST_FREED ||
		     w->end_reason == DPROF_HIST_WINDOW) &&
		    !w->cpus_changed && w->plan_item < p->nr_items)
			p->done[w->plan_item]++;
		/*
		 * A life: watched from its allocation to its free or the
		 * timeout, every hit counted (disarmed everywhere), on one
		 * item of the plan, the items in turn.
		 */
		if ((w->end_reason == DPROF_HIST_FREED ||
		     w->end_reason == DPROF_HIST_TIMEOUT) && !w->window &&
		    !w->cpus_changed && !atomic_read(&w->dropped) &&
		    w->plan_item < p->nr_items)
			dprof_plan_count_window(w->target, DPROF_WINDOW_LIFE,
						(u64)atomic_read(&w->elements) *
						DPROF_WINDOW_RHO_ONE);
	}
	w->addr = 0;
	next_turn_ns = watch_now_ns() + COLLECTOR_TURN_GAP_NS;
	atomic_long_set_release(&w->word, make_word(word_id(word), W_IDLE));
}

/* IDLE: the next turn at the registers. */
static void take_turn(void)
{
	const struct dprof_history_config *cfg = &dprof_watch_cfg;
	bool window;

	/* Variables take every other turn; the rest as before. */
	next_is_var = !next_is_var;
	if (cfg->variables && next_is_var && dprof_history_arm_variable())
		return;
	if (!cfg->enabled && !cfg->windows)
		return;
	/* Histories and windows take turns at the registers. */
	window = cfg->windows && (!cfg->enabled || next_is_window);
	next_is_window = !window;
	if (window && !cfg->lives) {
		/*
		 * Young and old windows alternate; a young turn with no
		 * type named yet (the any gate just opened) goes to an old.
		 * With lives the histories stand for the young ages and
		 * young windows weigh nothing in the estimates: their turns
		 * go to the old windows, half of them in use, whose few
		 * windows a run made the busiest types' estimates swing
		 * (design.rst, "Lives").
		 */
		next_is_young = !next_is_young;
		if (next_is_young && dprof_window_pick_next())
			return;
	}
	/* A window that did not arm leaves the turn to a history. */
	if (!window || (!dprof_window_arm() && cfg->enabled))
		dprof_history_arm_next();
}

/*
 * The longest the collector sleeps while it has nothing to end: its
 * rings of objects in use are folded then (and kicked when half full).
 */
#define COLLECTOR_IDLE_NS	(250 * NSEC_PER_MSEC)
/* After a turn that armed nothing (no type drawn yet): try again. */
#define COLLECTOR_RETRY_NS	(20 * NSEC_PER_MSEC)

/*
 * One step of the watch; returns when the next is due (ns), unless a hook
 * kicks the collector first: the free of the watched object, the any
 * gate naming a type, a tick's ring half full.
 */
static u64 collector_step(unsigned int *arms_this_second, u64 second_end)
{
	const struct dprof_history_config *cfg = &dprof_watch_cfg;
	struct watch *w = &dprof_watch;
	/*
	 * Acquire: a young window's hook publishes SAMPLING with a release
	 * after setting its deadline and counters, read below.
	 */
	unsigned long word = atomic_long_read_acquire(&w->word);
	u64 now = watch_now_ns(), idle = now + COLLECTOR_IDLE_NS;
	bool dead = READ_ONCE(dprof_targets[w->target].flags) &
		    DPROF_TARGET_DEAD;

	if (cfg->windows)
		dprof_inuse_fold(dprof_old_age(cfg));
	switch (word_state(word)) {
	case W_IDLE:
		if (!watching() || !READ_ONCE(dprof_enabled))
			return idle;
		if (*arms_this_second >= cfg->max_arms)
			return min(second_end, idle);
		if (now < max(rest_until_ns, next_turn_ns))
			return min(max(rest_until_ns, next_turn_ns), idle);
		(*arms_this_second)++;
		turn_began(now);
		take_turn();
		/* A turn that armed nothing waits for a type to be named. */
		if (word_state(atomic_long_read(&w->word)) == W_IDLE)
			return now + COLLECTOR_RETRY_NS;
		return now;
	case W_SAMPLING:
		if (now < w->deadline_ns && !dead)
			return min(w->deadline_ns, idle);
		if (atomic_long_cmpxchg(&w->word, word,
					make_word(word_id(word), W_ENDED)) != word)
			break;	/* the free hook ended it first: next step */
		dprof_window_ended(false);
		disarm();
		break;
	case W_WAITING:
		if (now < w->deadline_ns && !dead)
			return min(w->deadline_ns, idle);
		dprof_pick_close();
		if (atomic_long_cmpxchg(&w->word, word,
					make_word(word_id(word), W_ENDED)) != word)
			break;
		if (w->window)
			dprof_watch_stats.windows_unclaimed++;
		else
			dprof_watch_stats.expired++;
		disarm();
		break;
	case W_ACTIVE:
		if (w->var) {
			if (now < w->deadline_ns && !dead)
				return min(w->deadline_ns, idle);
			if (dprof_history_end(dead ? DPROF_HIST_UNLOAD :
					      DPROF_HIST_WINDOW, 0))
				disarm();
			break;
		}
		if (now - READ_ONCE(w->alloc_ns) <
		    (u64)cfg->timeout_ms * NSEC_PER_MSEC && !dead)
			return min(READ_ONCE(w->alloc_ns) +
				   (u64)cfg->timeout_ms * NSEC_PER_MSEC, idle);
		if (dprof_history_end(dead ? DPROF_HIST_UNLOAD :
				      DPROF_HIST_TIMEOUT, 0))
			disarm();
		break;
	case W_ENDED:
		if (w->window)
			dprof_window_ended(true);
		disarm();
		break;
	default:	/* CLAIMING, ENDING: a hook is in the middle of it */
		return now + NSEC_PER_MSEC;
	}
	return now;
}

static void collector_finish(void)
{
	unsigned long word;

	dprof_pick_close();
	word = atomic_long_read(&dprof_watch.word);

	switch (word_state(word)) {
	case W_ACTIVE:
		dprof_history_end(DPROF_HIST_UNLOAD, 0);
		break;
	case W_WAITING:
	case W_SAMPLING:
		atomic_long_set(&dprof_watch.word,
				make_word(word_id(word), W_ENDED));
		break;
	default:
		break;
	}
	if (word_state(atomic_long_read(&dprof_watch.word)) != W_IDLE)
		disarm();
}

static int collector(void *unused)
{
	unsigned int arms_this_second = 0;
	u64 second = watch_now_ns(), next = second, now;

	while (!kthread_should_stop()) {
		now = watch_now_ns();
		if (next > now)
			dprof_watch_wait(nsecs_to_jiffies(next - now) + 1);
		now = watch_now_ns();
		if (now - second >= NSEC_PER_SEC) {
			second = now;
			arms_this_second = 0;
			atomic_set(&dprof_watch_hits.this_second, 0);
		}
		next = collector_step(&arms_this_second, second + NSEC_PER_SEC);
		cond_resched();
	}
	collector_finish();
	return 0;
}

/* ---- set-up ------------------------------------------------------------ */

/*
 * The parameters of histories and sample windows, checked before
 * anything is set up (main.c calls dprof_history_params() first).
 */
static bool history_enabled = true;
static bool history_asked;	/* history= was given at load */

static int history_set(const char *val, const struct kernel_param *kp)
{
	int ret = param_set_bool(val, kp);

	if (!ret)
		history_asked = true;
	return ret;
}

static const struct kernel_param_ops history_ops = {
	.set = history_set,
	.get = param_get_bool,
};

module_param_cb(history, &history_ops, &history_enabled, 0444);
MODULE_PARM_DESC(history,
		 "Collect object access histories with debug registers (default Y; with target=all and sampler=operand N unless given)");

static char *history_mode = "set";
module_param(history_mode, charp, 0444);
MODULE_PARM_DESC(history_mode,
		 "set: each history watches two offsets, a round covers every offset once (default); pairs: a round covers every pair of offsets");

static char *history_offsets;
module_param(history_offsets, charp, 0444);
MODULE_PARM_DESC(history_offsets,
		 "Byte offsets to watch, comma-separated, multiples of history_len (default: every offset of the object)");

static unsigned int history_len = 8;
module_param(history_len, uint, 0444);
MODULE_PARM_DESC(history_len, "Bytes watched at each offset: 1, 2, 4 or 8 (default 8)");

static unsigned int history_max_arms = 100;
module_param(history_max_arms, uint, 0444);
MODULE_PARM_DESC(history_max_arms,
		 "Objects armed per second at most (1..10000, default 100)");

static unsigned int history_max_hits = 20000;
module_param(history_max_hits, uint, 0444);
MODULE_PARM_DESC(history_max_hits,
		 "History elements recorded per second at most, the rest counted as dropped (100..10000000, default 20000)");

/*
 * 20,000 a second: some 2 % of one CPU where a trap costs 1 us (a
 * hardware #DB with dprof's handler), 1.3 % of the guest under -icount
 * (about 640 instructions a trap, make bench-insns -w memcached); the
 * memcached case traps 3,800-12,000 a second on average, so the default
 * bounds the worst case (every CPU hammering a watched field) and holds
 * memcached back only in its bursts.
 */
static unsigned int watch_max_traps = 20000;
module_param(watch_max_traps, uint, 0444);
MODULE_PARM_DESC(watch_max_traps,
		 "Debug-register traps per second, all CPUs, that sample windows and histories may cost on average: after one that trapped T times, the next waits until T/watch_max_traps seconds after its start (0 or 100..10000000, default 20000; 0: no bound)");

static unsigned int history_timeout_ms = 1000;
module_param(history_timeout_ms, uint, 0444);
MODULE_PARM_DESC(history_timeout_ms,
		 "End a history whose object lives longer than this (10..4000, default 1000)");

static unsigned int history_wait_ms = 500;
module_param(history_wait_ms, uint, 0444);
MODULE_PARM_DESC(history_wait_ms,
		 "Give up on an armed address not reallocated within this time (10..60000, default 500)");

static bool window_lives = true;
module_param(window_lives, bool, 0444);
MODULE_PARM_DESC(window_lives,
		 "watch sampler with histories picked on every CPU: Y: each history is a life, the type's accesses below history_timeout_ms are estimated from its lives, the old windows start at the timeout and take the young windows' turns; N: from young windows, the old ones starting at sample_window_ms (default Y)");

static char *pick_types = "spread";
module_param(pick_types, charp, 0444);
MODULE_PARM_DESC(pick_types,
		 "target=all: how the type of a young window or a life (a history) is drawn: rate, in proportion to its allocations over the last quarter second, every one counted by cache; sqrt, to their square root (rare types get more windows); spread, half by rate and half by rate times the spread of what one life of the type stands for so far (large objects whose lives vary get more of them); gate, the type of the first allocation after an instant, whatever its cache (it under-draws types allocated right after another, Apache's TCP sockets). With rate, sqrt and spread a type drawn that allocates under 100 times a second gives its turn to the gate, whose type comes soon (default spread)");

static char *history_cpus;
module_param(history_cpus, charp, 0444);
MODULE_PARM_DESC(history_cpus,
		 "history_pick=Y: only allocations on these CPUs start a history (a cpulist such as 0 or 0-3,8; default: every CPU), e.g. the CPUs of the server whose objects matter");

static unsigned int sample_window_ms = 20;
module_param(sample_window_ms, uint, 0444);
MODULE_PARM_DESC(sample_window_ms,
		 "watch sampler: how long one window watches the offsets of a random live object, and one watch of a watch_symbols= variable lasts (default 20 ms)");

static bool range_ok(const char *name, unsigned int value, unsigned int lo,
		     unsigned int hi)
{
	if (value >= lo && value <= hi)
		return true;
	pr_err("%s=%u: must be between %u and %u\n", name, value, lo, hi);
	return false;
}

int dprof_history_params(struct dprof_history_config *hc)
{
	hc->enabled = history_enabled;
	hc->asked = history_asked;
	hc->len = history_len;
	hc->max_arms = history_max_arms;
	hc->max_hits = history_max_hits;
	hc->max_traps = watch_max_traps;
	hc->timeout_ms = history_timeout_ms;
	hc->wait_ms = history_wait_ms;
	hc->offsets = history_offsets;
	if (!strcmp(history_mode, "set")) {
		hc->pairs = false;
	} else if (!strcmp(history_mode, "pairs")) {
		hc->pairs = true;
	} else {
		pr_err("history_mode=%s: must be set or pairs\n", history_mode);
		return -EINVAL;
	}
	if (history_len != 1 && history_len != 2 && history_len != 4 &&
	    history_len != 8) {
		pr_err("history_len=%u: must be 1, 2, 4 or 8\n", history_len);
		return -EINVAL;
	}
	if (!range_ok("history_max_arms", history_max_arms, 1, 10000) ||
	    !range_ok("history_max_hits", history_max_hits, 100, 10000000) ||
	    (watch_max_traps &&
	     !range_ok("watch_max_traps", watch_max_traps, 100, 10000000)) ||
	    !range_ok("history_timeout_ms", history_timeout_ms, 10, 4000) ||
	    !range_ok("history_wait_ms", history_wait_ms, 10, 60000) ||
	    !range_ok("sample_window_ms", sample_window_ms, 1, 1000))
		return -EINVAL;
	hc->window_ms = sample_window_ms;
	if (!strcmp(pick_types, "rate")) {
		hc->pick_types = DPROF_DRAW_RATE;
	} else if (!strcmp(pick_types, "sqrt")) {
		hc->pick_types = DPROF_DRAW_SQRT;
	} else if (!strcmp(pick_types, "spread")) {
		hc->pick_types = DPROF_DRAW_SPREAD;
	} else if (!strcmp(pick_types, "gate")) {
		hc->pick_types = DPROF_DRAW_GATE;
	} else {
		pr_err("pick_types=%s: must be spread, rate, sqrt or gate\n",
		       pick_types);
		return -EINVAL;
	}
	cpumask_setall(&hc->pick_cpus);
	if (history_cpus && *history_cpus &&
	    (cpulist_parse(history_cpus, &hc->pick_cpus) ||
	     !cpumask_intersects(&hc->pick_cpus, cpu_possible_mask))) {
		pr_err("history_cpus=%s: not a list of this machine's CPUs (e.g. 0 or 0-3,8)\n",
		       history_cpus);
		return -EINVAL;
	}
	/* Lives stand for every allocation only if any CPU's may start one. */
	hc->lives = window_lives && history_enabled &&
		    !(history_cpus && *history_cpus);
	return 0;
}

int dprof_history_init(const struct dprof_history_config *config)
{
	const struct dprof_history_config *cfg = &dprof_watch_cfg;
	unsigned int i;
	int ret;

	dprof_watch_cfg = *config;
	atomic_long_set(&dprof_watch.word, make_word(0, W_IDLE));
	if (!watching())
		return 0;
	/*
	 * The old windows' objects in use (without them, uniform draws),
	 * before any breakpoint, so that a CPU coming online gets its tick
	 * before its breakpoints (the hotplug states run in order).
	 */
	if (cfg->windows && !cfg->no_inuse) {
		ret = dprof_inuse_init();
		if (ret)
			pr_warn("no in-use ticks (%d): old sample windows draw their objects uniformly\n",
				ret);
	}
	/* The handler first: parking arms every register it keeps. */
	ret = dprof_watch_setup(watch_hit);
	if (ret) {
		dprof_inuse_exit();
		return ret;
	}
	offsets_per_watch = dprof_watch_park();
	if (!offsets_per_watch) {
		pr_warn("no debug register to keep (status says how many were free): object access histories and sample windows off\n");
		dprof_watch_teardown();
		dprof_inuse_exit();
		return 0;
	}
	dprof_plans_init(cfg->len, cfg->offsets, cfg->pairs,
			 offsets_per_watch, cfg->window_ms, cfg->lives);
	/* Named caches: bad history_offsets fail the load, not later. */
	for (i = 0; i < dprof_nr_targets && !dprof_target_all; i++) {
		ret = dprof_plan_ensure(i);
		if (ret)
			goto err_plans;
	}
	/* Before the first window: what a sweep of the set drops ends it. */
	dprof_window_init();
	thread = kthread_run(collector, NULL, "dprof-history");
	if (IS_ERR(thread)) {
		ret = PTR_ERR(thread);
		thread = NULL;
		goto err_window;
	}
	return 0;

err_window:
	dprof_window_exit();
err_plans:
	dprof_plans_free();
	dprof_watch_teardown();
	dprof_inuse_exit();
	return ret;
}

void dprof_history_exit(void)
{
	if (thread)
		kthread_stop(thread);	/* ends and disarms the watch */
	thread = NULL;
	dprof_watch_sync();
	dprof_watch_teardown();
	dprof_inuse_exit();	/* after the breakpoints, as it came before */
	dprof_window_exit();
	dprof_plans_free();
}

/* After the hooks are gone: no kick may run once the module is freed. */
void dprof_history_sync(void)
{
	dprof_watch_sync();
}

/* ---- reporting --------------------------------------------------------- */

static const char *const state_names[] = {
	[W_IDLE] = "idle", [W_ARMING] = "arming", [W_WAITING] = "waiting",
	[W_CLAIMING] = "claiming", [W_ACTIVE] = "watching",
	[W_ENDING] = "ending", [W_ENDED] = "ended",
	[W_SAMPLING] = "sampling",
};

static void show_plan(struct seq_file *m, unsigned int t)
{
	const struct hist_plan *p = dprof_plan(t);
	unsigned int i, covered = 0;
	u32 rounds = U32_MAX;
	u64 total = 0, elapsed, rate;

	for (i = 0; i < p->nr_items; i++) {
		covered += p->done[i] > 0;
		rounds = min(rounds, p->done[i]);
		total += p->done[i];
	}
	if (!p->nr_items)
		rounds = 0;
	/* Per second of the load so far, in tenths. */
	elapsed = max_t(u64, watch_now_ns() - dprof_load_time_ns(), 1);
	rate = div64_u64(total * 10 * NSEC_PER_SEC, elapsed);
	seq_printf(m, "  [%u] %s: %u offsets, %u groups of <=%u a round (%s); complete histories %llu (%llu.%llu/s), rounds complete %u, groups covered %u/%u\n",
		   t, dprof_targets[t].name, p->nr_members, p->nr_items,
		   offsets_per_watch,
		   dprof_watch_cfg.pairs && offsets_per_watch > 1 ?
		   "every pair together" : "each offset once",
		   total, rate / 10, rate % 10, rounds, covered, p->nr_items);
	if (dprof_watch_cfg.windows && p->nr_items) {
		u64 lo = U64_MAX, hi = 0;

		for (i = 0; i < p->nr_items; i++) {
			lo = min(lo, p->exposure_ns[i]);
			hi = max(hi, p->exposure_ns[i]);
		}
		seq_printf(m, "      sample windows %llu, watched per group %llu-%llu ms\n",
			   p->windows,
			   div_u64(lo, NSEC_PER_MSEC), div_u64(hi, NSEC_PER_MSEC));
	}
}

void dprof_history_show(struct seq_file *m, bool brief)
{
	const struct dprof_history_config *cfg = &dprof_watch_cfg;
	const struct watch_stats *c = &dprof_watch_stats;
	const struct watch_hits *h = &dprof_watch_hits;
	unsigned long word = atomic_long_read(&dprof_watch.word);
	u64 first_ns = dprof_watch_first_arm_ns();
	u64 elapsed = first_ns ? watch_now_ns() - first_ns : 0;
	u64 hits = 0;
	unsigned int t;
	int cpu;

	if (!watching()) {
		seq_puts(m, "histories: off (history=0)\n");
		return;
	}
	if (!offsets_per_watch) {
		seq_puts(m, "histories: off: no debug register kept (gdb, perf or ptrace hold them, or watch_slots leaves them)\n");
		dprof_watch_show(m);
		return;
	}
	if (cfg->enabled && first_ns)
		seq_printf(m, "histories: %s, watch %u, %llu complete in %llu.%03llu s since the first arm\n",
			   state_names[word_state(word)], word_id(word),
			   c->ends[DPROF_HIST_FREED], elapsed / NSEC_PER_SEC,
			   (elapsed % NSEC_PER_SEC) / NSEC_PER_MSEC);
	else if (cfg->enabled)
		seq_printf(m, "histories: %s, watch %u, none armed yet\n",
			   state_names[word_state(word)], word_id(word));
	else
		seq_printf(m, "histories: off (history=0); registers %s, watch %u\n",
			   state_names[word_state(word)], word_id(word));
	if (cfg->windows)
		dprof_window_show(m);
	dprof_watch_show(m);
	if (cfg->variables)
		seq_printf(m, "variable watches: %llu opened, %llu complete (sample_window_ms=%u each, every other turn)\n",
			   c->var_watches, c->ends[DPROF_HIST_WINDOW],
			   cfg->window_ms);
	seq_printf(m, "  ends: freed %llu, timeout %llu, unload %llu; no allocation in time %llu; registers busy %llu\n",
		   c->ends[DPROF_HIST_FREED], c->ends[DPROF_HIST_TIMEOUT],
		   c->ends[DPROF_HIST_UNLOAD], c->expired, c->nospc);
	for_each_possible_cpu(cpu)
		hits += READ_ONCE(per_cpu_ptr(&dprof_stats, cpu)->cost[DPROF_HOOK_BP_HIT].hits);
	seq_printf(m, "  hits: %llu recorded (%llu in sample windows), %llu dropped by history_max_hits, %llu outside a life or window, %llu ip out of range\n",
		   hits, (u64)atomic64_read(&h->window),
		   (u64)atomic64_read(&h->rate_dropped),
		   (u64)atomic64_read(&h->outside_life),
		   (u64)atomic64_read(&h->ip_out_of_range));
	seq_printf(m, "  rep strings: %llu watched offsets passed after the string's one trap (counted with it)\n",
		   (u64)atomic64_read(&h->string_rest));
	if (brief)
		return;
	seq_puts(m, "coverage:\n");
	for (t = 0; t < dprof_nr_targets; t++)
		if (dprof_plan_built(t))
			show_plan(m, t);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * A clock of busy time for the samplers that read the interrupted
 * kernel: a pinned hard hrtimer per CPU, whose callback gets the
 * interrupted registers from get_irq_regs(), as perf's cpu-clock takes
 * them, and calls its user's function in kernel mode.
 *
 * Quiet where nothing runs: a tick that finds its CPU idle does not come
 * again, and the scheduler's sched_switch tracepoint starts it when the
 * CPU next switches to a task, after a random part of a period.  So an
 * idle CPU is woken at most once after it goes idle, not every period (a
 * cpu-clock perf event's hrtimer fires idle or not), and a busy instant
 * is as likely to be sampled as another: a restart after a whole period
 * would fall at one phase of a periodic task and miss it (a test's
 * kthread, 1 ms apart, was never sampled so).  Stopping the tick at every
 * switch to idle instead costs an hrtimer cancel and start at each one: a
 * ping-pong server's every request (memcached under the referee ran 252 s
 * instead of 100).  Isolated CPUs (cpus.h) get no tick.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpuhotplug.h>
#include <linux/hrtimer.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <asm/irq_regs.h>
#include "cpus.h"
#include "compat.h"
#include "tick.h"

/*
 * How late a kernel tick ran after its expiry, in buckets of powers of
 * two microseconds: < 1, < 2, < 4 ... < 64, and 64 or more.  A tick that
 * expires while its CPU runs with interrupts off is taken when they come
 * back on, at the instruction after the sti or popf, late by the rest of
 * that section: the delays show how much of the busy time the samplers
 * see only so.
 */
#define TICK_LATE_BUCKETS	8

struct tick_cpu {
	struct hrtimer timer;
	u64 late[TICK_LATE_BUCKETS];
	u64 kernel_ticks;	/* fn called */
	u64 stops;		/* the tick found its CPU idle and stopped */
	u32 phase_state;	/* xorshift32: the restarts' random phases */
	bool on;		/* set up on this CPU (hotplug) */
	bool stopped;		/* no tick queued: sched_switch starts it */
};

static DEFINE_PER_CPU(struct tick_cpu, tick_cpu);
static u64 tick_period_ns;
static dprof_tick_fn tick_fn;
static int tick_hotplug_state = -1;
static struct tracepoint *sched_switch_tp;

static u32 tick_phase(struct tick_cpu *c);

static enum hrtimer_restart tick_timer(struct hrtimer *t)
{
	struct tick_cpu *c = container_of(t, struct tick_cpu, timer);
	struct pt_regs *regs = get_irq_regs();
	ktime_t now;

	if (!READ_ONCE(c->on))
		return HRTIMER_NORESTART;
	if (is_idle_task(current)) {
		/* Nothing runs here: sched_switch starts it again. */
		WRITE_ONCE(c->stopped, true);
		WRITE_ONCE(c->stops, c->stops + 1);
		return HRTIMER_NORESTART;
	}
	now = hrtimer_cb_get_time(t);
	if (regs && !user_mode(regs)) {
		s64 late = ktime_to_ns(ktime_sub(now, hrtimer_get_expires(t)));
		unsigned int b = late > 0 ? fls64((u64)late / NSEC_PER_USEC) : 0;

		b = min_t(unsigned int, b, TICK_LATE_BUCKETS - 1);
		WRITE_ONCE(c->late[b], c->late[b] + 1);
		WRITE_ONCE(c->kernel_ticks, c->kernel_ticks + 1);
		tick_fn(regs, late);
	}
	/*
	 * The next tick between half a period and one and a half, as DCPI
	 * randomizes its intervals: a fixed period keeps its phase against
	 * a loop of about its length (under -icount, a period is an exact
	 * count of instructions) and samples a few of its instructions.
	 */
	hrtimer_forward(t, now,
			ns_to_ktime(tick_period_ns / 2 + tick_phase(c)));
	return HRTIMER_RESTART;
}

/*
 * A random part of a period, from the CPU's own xorshift32 (seeded at
 * set-up): under the scheduler's runqueue lock nothing of random.c's,
 * whose reseed may queue work, is called.
 */
static u32 tick_phase(struct tick_cpu *c)
{
	u32 x = c->phase_state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	c->phase_state = x;
	return (u32)(((u64)x * tick_period_ns) >> 32);
}

/* On the tick's own CPU, interrupts off: after a random part of a period. */
static void tick_start_here(struct tick_cpu *c)
{
	WRITE_ONCE(c->stopped, false);
	hrtimer_start(&c->timer, ns_to_ktime(1000 + tick_phase(c)),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

/*
 * The scheduler switches this CPU (interrupts off, its runqueue locked;
 * the scheduler's own hrtick starts hrtimers there too): to a task, on a
 * CPU whose tick stopped, the tick starts again.  Every other switch
 * costs this test.
 */
static void tick_switch(void *data, DPROF_SCHED_SWITCH_ARGS)
{
	struct tick_cpu *c = this_cpu_ptr(&tick_cpu);

	if (likely(!READ_ONCE(c->stopped)) || is_idle_task(next) ||
	    !READ_ONCE(c->on))
		return;
	tick_start_here(c);
}

/* Hotplug runs these on the CPU concerned (process context). */
static int tick_cpu_online(unsigned int cpu)
{
	struct tick_cpu *c = per_cpu_ptr(&tick_cpu, cpu);

	if (!dprof_cpu_watched(cpu))
		return 0;
	hrtimer_init(&c->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	c->timer.function = tick_timer;
	c->phase_state = get_random_u32() | 1;	/* xorshift: never 0 */
	WRITE_ONCE(c->on, true);
	local_irq_disable();
	tick_start_here(c);
	local_irq_enable();
	return 0;
}

static int tick_cpu_offline(unsigned int cpu)
{
	struct tick_cpu *c = per_cpu_ptr(&tick_cpu, cpu);

	if (!READ_ONCE(c->on))
		return 0;
	WRITE_ONCE(c->on, false);
	hrtimer_cancel(&c->timer);
	return 0;
}

static void find_sched_switch(struct tracepoint *tp, void *unused)
{
	if (!strcmp(tp->name, "sched_switch"))
		sched_switch_tp = tp;
}

int dprof_tick_start(u64 period_ns, dprof_tick_fn fn)
{
	unsigned int cpu;
	int ret;

	if (WARN_ON_ONCE(tick_fn) || period_ns < 2000 || period_ns > U32_MAX)
		return -EINVAL;
	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&tick_cpu, cpu), 0, sizeof(struct tick_cpu));
	tick_period_ns = period_ns;
	tick_fn = fn;
	/* The scheduler's tracepoint is not exported: found by its name. */
	for_each_kernel_tracepoint(find_sched_switch, NULL);
	ret = sched_switch_tp ?
	      tracepoint_probe_register(sched_switch_tp, tick_switch, NULL) :
	      -ENOENT;
	if (ret)
		goto err;
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "dprof/tick",
				tick_cpu_online, tick_cpu_offline);
	if (ret < 0)
		goto err_probe;
	tick_hotplug_state = ret;
	return 0;
err_probe:
	tracepoint_probe_unregister(sched_switch_tp, tick_switch, NULL);
	tracepoint_synchronize_unregister();
err:
	sched_switch_tp = NULL;
	tick_fn = NULL;
	return ret;
}

/* No tick runs when it returns; the counts stay for the show. */
void dprof_tick_stop(void)
{
	/* No switch starts a tick after this; then the ticks go. */
	if (sched_switch_tp) {
		tracepoint_probe_unregister(sched_switch_tp, tick_switch, NULL);
		tracepoint_synchronize_unregister();
		sched_switch_tp = NULL;
	}
	if (tick_hotplug_state > 0)
		cpuhp_remove_state(tick_hotplug_state);
	tick_hotplug_state = -1;
	tick_fn = NULL;
}

void dprof_tick_counts(u64 *kernel_ticks, u64 *stops)
{
	unsigned int cpu;

	*kernel_ticks = 0;
	*stops = 0;
	for_each_possible_cpu(cpu) {
		const struct tick_cpu *c = per_cpu_ptr(&tick_cpu, cpu);

		*kernel_ticks += READ_ONCE(c->kernel_ticks);
		*stops += READ_ONCE(c->stops);
	}
}

void dprof_tick_show(struct seq_file *m)
{
	u64 late[TICK_LATE_BUCKETS] = { 0 };
	unsigned int cpu, b;

	for_each_possible_cpu(cpu)
		for (b = 0; b < TICK_LATE_BUCKETS; b++)
			late[b] += READ_ONCE(per_cpu_ptr(&tick_cpu, cpu)->late[b]);
	seq_puts(m, "  kernel ticks by delay after expiry:");
	for (b = 0; b < TICK_LATE_BUCKETS - 1; b++)
		seq_printf(m, " <%uus %llu", 1u << b, late[b]);
	seq_printf(m, " >=%uus %llu\n", 1u << (b - 1), late[b]);
}

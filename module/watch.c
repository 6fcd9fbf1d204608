// SPDX-License-Identifier: GPL-2.0
/*
 * The watch and its debug registers (see watch.h): the watched object's
 * fields and state word, its breakpoints on every watched CPU and CPU
 * hotplug (the kick that wakes the collector is kick.c's, what
 * "histories" prints of the registers watchshow.c's).  Everything that arms
 * or disarms goes through dprof_watch_publish(), dprof_watch_arm() and
 * dprof_watch_disarm(), which also count what it costs.
 *
 * The breakpoints are made once, at load (dprof_watch_park()): per-CPU
 * kernel counters (not register_wide_hw_breakpoint, which covers only the
 * CPUs online when it is called), read/write, history_len bytes, on
 * parking addresses inside dprof that nothing accesses.  They are kept
 * for the module's life ("parked") and pointed at the watched object by
 * writing the address registers: on the local CPU directly, on the others
 * by an asynchronous IPI that sets each CPU's registers from the current
 * watch when it runs, so late or repeated ones do no harm.  perf's
 * per-arm way (a counter made and released on every CPU for every object)
 * takes milliseconds; an skbuff lives microseconds.
 *
 * What that takes from the machine:
 *  - registers: watch_slots of the four on every watched CPU, by default
 *    every one free at load but one, so that gdb, ptrace, kgdb and perf's
 *    mem: events still get one;
 *  - CPUs: the watched ones are those not isolated (isolcpus=,
 *    nohz_full=: cpu_is_isolated()); an isolated CPU gets no breakpoint,
 *    no IPI, and its accesses are not seen;
 *  - IPIs: one per watched CPU for each arm and each disarm, bounded by
 *    history_max_arms a second.
 *
 * Registers behind dprof's back.  perf installs a CPU's breakpoints in
 * first-free order and installs every one again whenever another comes to
 * that CPU (ctx_resched()), writing each one's counter_arch_bp() address:
 * dprof keeps that copy in step with every register write (compat.h), so
 * the address survives but the register may change.  So before it writes,
 * dprof finds each of its breakpoints by the address it last gave it
 * (locate()).  hw_breakpoint_restore() (after every text_poke(), under
 * kgdb, after a KVM exit) writes perf's own copy of the registers
 * (cpu_debugreg, out of a module's reach), the addresses of the last
 * install: found the same way, set again, and the watch they were
 * following flagged.  A trap counts for the watch only while the register
 * that raised it holds the watch's current address (dprof_watch_trap_ok());
 * the others are counted as stale.
 *
 * Locking order: the CPU hotplug lock, then watch_lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <linux/cpuhotplug.h>
#include <linux/cpu.h>
#include <linux/smp.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/timex.h>
#include "uapi/dprof.h"
#include "watch.h"
#include "own.h"
#include "compat.h"
#include "cpus.h"
#include "stats.h"
#include "watch_config.h"

struct watch dprof_watch;
struct dprof_history_config dprof_watch_cfg;
struct watch_stats dprof_watch_stats;
struct watch_hits dprof_watch_hits;

/* Per CPU: the breakpoints and what dprof knows of their registers. */
struct watch_cpu {
	struct perf_event *bp[MAX_BPS];
	int slot[MAX_BPS];	/* DR index of bp[w], -1 none */
	/* the address bp[w]'s register and perf's copy were given last */
	unsigned long written[MAX_BPS];
	call_single_data_t sync;	/* sets this CPU's registers */
	int sync_queued;	/* that IPI is queued or running */
	/* written on this CPU with interrupts off, read by status */
	u64 rewritten;		/* found otherwise: someone wrote them */
	u64 moved;		/* found in another register: perf reinstalled */
	u64 stale;		/* traps on an address no longer watched */
	/* arms at an allocation (dprof_watch_arm_here()), this CPU's part */
	u64 here_arms, here_cycles, here_max_cycles;
	u64 here_first_ns;	/* the first, 0 before it */
};

/* The parking addresses: one word per register, never accessed. */
static u64 park_area[MAX_BPS] __aligned(64);

static DEFINE_PER_CPU(struct watch_cpu, watch_cpu);
static unsigned int nr_bps;		/* breakpoints kept per watched CPU */
static unsigned int free_at_load;	/* registers no one held at load */
static DEFINE_MUTEX(watch_lock);	/* breakpoints, after cpus_read_lock */
static bool parked;			/* under watch_lock */
static perf_overflow_handler_t hit_handler;
static int hotplug_state = -1;
static u32 next_id = 1;

static unsigned int watch_slots;
module_param(watch_slots, uint, 0444);
MODULE_PARM_DESC(watch_slots,
		 "Debug registers dprof may hold on each CPU, 1..4, one offset of an object each (default 0: every one free at load but one, left for gdb, ptrace and perf)");

static void sync_wait(unsigned int cpu);

/*
 * After the hooks are gone: no kick, and no IPI a hook sent to arm the
 * other CPUs, may run once the module is freed (a hook that claimed a
 * pick just as the collector stopped can send one after the teardown's
 * own wait).
 */
void dprof_watch_sync(void)
{
	unsigned int cpu;

	dprof_kick_sync();
	for_each_possible_cpu(cpu)
		sync_wait(cpu);
	/* A handler that cleared its flag may still be returning. */
	synchronize_rcu();
}

/* ---- the registers of this CPU (interrupts off) ------------------------ */

/*
 * Find each breakpoint's register: the one it was in, if it still holds
 * the address dprof gave it; else the register that does (perf
 * reinstalled the CPU's breakpoints, counted as moved); else the same one,
 * rewritten behind dprof (counted: false).
 */
static bool locate_in(struct watch_cpu *wc, const unsigned long *dr,
		      unsigned long dr7)
{
	unsigned int w, i;
	bool held = true;

	for (w = 0; w < nr_bps; w++) {
		int at = READ_ONCE(wc->slot[w]);

		if (at < 0 || (dr[at] == wc->written[w] &&
			       dprof_dr7_enabled(dr7, at)))
			continue;
		for (i = 0; i < 4; i++)
			if (dr[i] == wc->written[w] &&
			    dprof_dr7_enabled(dr7, i) &&
			    dprof_dr7_type(dr7, i) == DPROF_DR_RW_READWRITE)
				break;
		if (i < 4) {
			WRITE_ONCE(wc->slot[w], i);
			WRITE_ONCE(wc->moved, wc->moved + 1);
		} else {
			held = false;
		}
	}
	return held;
}

static bool locate(struct watch_cpu *wc)
{
	unsigned long dr[4], dr7;

	dprof_read_debugregs(dr, &dr7);
	return locate_in(wc, dr, dr7);
}

/* The address breakpoint @w of this CPU is to hold for the watch now. */
static unsigned long wanted_address(unsigned int w)
{
	unsigned long addr = READ_ONCE(dprof_watch.addr);

	if (addr && w < READ_ONCE(dprof_watch.nr_offsets))
		return addr + dprof_watch.offset[w];
	return (unsigned long)&park_area[w];
}

/*
 * This CPU's registers from the watch as it is now, each in the register
 * and in perf's copy.  Registers found rewritten are counted; when they
 * were following the watch still running, this CPU missed its accesses
 * for a while, which is flagged.  An address that is not aligned to the
 * watched length never reaches a register (perf would refuse it): that
 * breakpoint is parked instead.
 */
static void sync_registers(void)
{
	struct watch_cpu *wc = this_cpu_ptr(&watch_cpu);
	unsigned long addr = READ_ONCE(dprof_watch.addr);
	unsigned int w;

	if (!nr_bps || !wc->bp[0])
		return;
	if (!locate(wc)) {
		WRITE_ONCE(wc->rewritten, wc->rewritten + 1);
		if (addr && READ_ONCE(dprof_watch.nr_offsets) &&
		    wc->written[0] == addr + dprof_watch.offset[0])
			WRITE_ONCE(dprof_watch.cpus_changed, true);
	}
	for (w = 0; w < nr_bps; w++) {
		unsigned long val = wanted_address(w);
		int at = READ_ONCE(wc->slot[w]);

		if (val & (dprof_watch_cfg.len - 1))
			val = (unsigned long)&park_area[w];
		if (at < 0)
			continue;
		dprof_bp_retarget(wc->bp[w], at, val);
		wc->written[w] = val;
	}
}

/*
 * #DB, for a trap of breakpoint @w: true when its register holds the
 * address the watch wants now.  False for a register that an IPI has not
 * pointed at the new watch yet (a trap on the last object, which may be
 * free by now) or that was rewritten behind dprof: counted as stale, and
 * this CPU's registers are set again at once.  The register is found
 * first: perf may have moved the breakpoint since dprof last looked.
 */
bool dprof_watch_trap_ok(unsigned int w)
{
	struct watch_cpu *wc = this_cpu_ptr(&watch_cpu);
	unsigned long dr[4], dr7;
	int at;

	if (w >= nr_bps || !wc->bp[0])
		return false;
	dprof_read_debugregs(dr, &dr7);
	locate_in(wc, dr, dr7);
	at = READ_ONCE(wc->slot[w]);
	if (at >= 0 && dr[at] == wc->written[w] &&
	    wc->written[w] == wanted_address(w))
		return true;
	WRITE_ONCE(wc->stale, wc->stale + 1);
	sync_registers();
	return false;
}

/* This CPU: which debug register perf gave each parked breakpoint. */
static void find_slots(void *unused)
{
	struct watch_cpu *wc = this_cpu_ptr(&watch_cpu);
	unsigned long dr7, addr[4];
	unsigned int w, i;

	dprof_read_debugregs(addr, &dr7);
	for (w = 0; w < MAX_BPS; w++) {
		WRITE_ONCE(wc->slot[w], -1);
		wc->written[w] = (unsigned long)&park_area[w];
		for (i = 0; i < 4 && w < nr_bps && wc->bp[w]; i++)
			if (dprof_dr7_enabled(dr7, i) &&
			    addr[i] == (unsigned long)&park_area[w])
				WRITE_ONCE(wc->slot[w], i);
	}
	sync_registers();	/* a CPU coming online joins the watch */
}

/* The in-use tick (hard irq): rewritten registers set again, flagged. */
void dprof_watch_check_here(void)
{
	struct watch_cpu *wc = this_cpu_ptr(&watch_cpu);
	unsigned long dr[4], dr7;
	unsigned int w;

	if (!READ_ONCE(parked) || !wc->bp[0])
		return;
	dprof_read_debugregs(dr, &dr7);
	for (w = 0; w < nr_bps; w++) {
		int at = READ_ONCE(wc->slot[w]);

		if (at >= 0 && dr[at] != wc->written[w]) {
			sync_registers();
			return;
		}
	}
}

static void sync_ipi(void *unused)
{
	struct watch_cpu *wc = this_cpu_ptr(&watch_cpu);

	WRITE_ONCE(wc->sync_queued, 0);
	/* Cleared before the watch is read: one published later sends again. */
	smp_mb();
	sync_registers();
}

/*
 * Queue @cpu's IPI unless one is queued or running: it reads the watch
 * when it runs.  Never on a csd whose last call may still be running:
 * the kernel unlocks an asynchronous csd before it calls its function.
 */
static void queue_sync(unsigned int cpu)
{
	struct watch_cpu *wc = per_cpu_ptr(&watch_cpu, cpu);

	if (xchg(&wc->sync_queued, 1))
		return;
	if (smp_call_function_single_async(cpu, &wc->sync))
		WRITE_ONCE(wc->sync_queued, 0);	/* offline */
}

/*
 * From the allocation hook (any context but NMI, preemption off): the
 * watch was just published on @dprof_watch.addr.  This CPU's registers
 * now, before the object reaches its caller; the other watched CPUs' by
 * an asynchronous IPI.
 */
void dprof_watch_arm_here(void)
{
	unsigned int cpu, self = smp_processor_id();
	struct watch_cpu *wc = this_cpu_ptr(&watch_cpu);
	u64 start = get_cycles();
	unsigned long flags;

	local_irq_save(flags);
	sync_registers();
	local_irq_restore(flags);
	for_each_online_cpu(cpu)
		if (cpu != self && dprof_cpu_watched(cpu))
			queue_sync(cpu);
	/*
	 * One claim at a time (the W_CLAIMING cmpxchg), so no arm nests
	 * here; status reads these racily.
	 */
	start = get_cycles() - start;
	wc->here_arms++;
	wc->here_cycles += start;
	wc->here_max_cycles = max(wc->here_max_cycles, start);
	if (!wc->here_first_ns)
		wc->here_first_ns = watch_now_ns();
}

/* Until no IPI of dprof's is queued for @cpu or running there. */
static void sync_wait(unsigned int cpu)
{
	while (READ_ONCE(per_cpu_ptr(&watch_cpu, cpu)->sync_queued))
		cpu_relax();
}

/* ---- making and releasing them (process context) ----------------------- */

static void release_cpu(unsigned int cpu)
{
	struct watch_cpu *wc = per_cpu_ptr(&watch_cpu, cpu);
	int i;

	for (i = 0; i < MAX_BPS; i++) {
		if (wc->bp[i]) {
			dprof_own_release(wc->bp[i]);
			wc->bp[i] = NULL;
		}
		wc->slot[i] = -1;
	}
}

/* @n breakpoints on @cpu's parking addresses; 0 or -errno, none kept. */
static int make_cpu(unsigned int cpu, unsigned int n)
{
	struct watch_cpu *wc = per_cpu_ptr(&watch_cpu, cpu);
	struct perf_event_attr attr;
	struct perf_event *bp;
	unsigned int w;

	for (w = 0; w < n; w++) {
		hw_breakpoint_init(&attr);
		attr.bp_addr = (unsigned long)&park_area[w];
		attr.bp_len = dprof_watch_cfg.len;
		attr.bp_type = HW_BREAKPOINT_RW;
		bp = dprof_own_counter(&attr, cpu, hit_handler,
				       (void *)(unsigned long)w);
		if (IS_ERR(bp)) {
			release_cpu(cpu);
			return PTR_ERR(bp);
		}
		wc->bp[w] = bp;
	}
	return 0;
}

/* The tick reads slot[] then bp[] with interrupts off: a grace period. */
static void unpublish_slots(unsigned int cpu)
{
	struct watch_cpu *wc = per_cpu_ptr(&watch_cpu, cpu);
	int i;

	for (i = 0; i < MAX_BPS; i++)
		WRITE_ONCE(wc->slot[i], -1);
}

static void release_all(void)
{
	unsigned int cpu;

	WRITE_ONCE(parked, false);
	for_each_possible_cpu(cpu)
		unpublish_slots(cpu);
	synchronize_rcu();
	for_each_possible_cpu(cpu) {
		sync_wait(cpu);
		release_cpu(cpu);
	}
	/* A sync IPI may still be returning: see dprof_watch_sync(). */
	synchronize_rcu();
}

static int make_all(unsigned int n)
{
	unsigned int cpu;
	int ret;

	for_each_online_cpu(cpu) {
		if (!dprof_cpu_watched(cpu))
			continue;
		ret = make_cpu(cpu, n);
		if (ret) {
			for_each_possible_cpu(cpu)
				release_cpu(cpu);
			return ret;
		}
	}
	return 0;
}

static int watch_cpu_online(unsigned int cpu)
{
	mutex_lock(&watch_lock);
	if (parked && dprof_cpu_watched(cpu)) {
		WRITE_ONCE(dprof_watch.cpus_changed, true);
		if (make_cpu(cpu, nr_bps))
			dprof_watch_stats.nospc++;
		else
			smp_call_function_single(cpu, find_slots, NULL, 1);
	}
	mutex_unlock(&watch_lock);
	return 0;
}

static int watch_cpu_offline(unsigned int cpu)
{
	mutex_lock(&watch_lock);
	if (parked && READ_ONCE(dprof_watch.addr))
		WRITE_ONCE(dprof_watch.cpus_changed, true);
	unpublish_slots(cpu);
	synchronize_rcu();
	sync_wait(cpu);
	release_cpu(cpu);
	synchronize_rcu();
	mutex_unlock(&watch_lock);
	return 0;
}

int dprof_watch_setup(perf_overflow_handler_t handler)
{
	unsigned int cpu;
	int ret;

	if (watch_slots > MAX_BPS) {
		pr_err("watch_slots=%u: must be between 1 and %d (0: all free but one)\n",
		       watch_slots, MAX_BPS);
		return -EINVAL;
	}
	hit_handler = handler;
	for_each_possible_cpu(cpu) {
		struct watch_cpu *wc = per_cpu_ptr(&watch_cpu, cpu);

		INIT_CSD(&wc->sync, sync_ipi, NULL);
		memset(wc->slot, -1, sizeof(wc->slot));
	}
	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "dprof/history",
					watch_cpu_online, watch_cpu_offline);
	if (ret < 0)
		return ret;
	hotplug_state = ret;
	return 0;
}

/*
 * Keep breakpoints on every watched CPU for good: as many as watch_slots
 * says of those free on every CPU now.  Returns how many (0: none, the
 * reason in status).
 */
unsigned int dprof_watch_park(void)
{
	unsigned int n, want, cpu;
	int ret = -ENOSPC;

	cpus_read_lock();
	mutex_lock(&watch_lock);
	for (n = MAX_BPS; n > 0; n--) {
		ret = make_all(n);
		if (!ret)
			break;
	}
	free_at_load = n;
	if (n) {
		for_each_possible_cpu(cpu)
			release_cpu(cpu);
	} else if (ret != -ENOSPC) {
		pr_warn("debug registers unavailable (%d)\n", ret);
	}
	want = watch_slots ? min(watch_slots, free_at_load) :
	       free_at_load ? free_at_load - 1 : 0;
	nr_bps = 0;
	if (want && !make_all(want)) {
		nr_bps = want;
		WRITE_ONCE(parked, true);
		on_each_cpu(find_slots, NULL, 1);
	}
	mutex_unlock(&watch_lock);
	cpus_read_unlock();
	return nr_bps;
}

void dprof_watch_teardown(void)
{
	unsigned int cpu;

	cpus_read_lock();
	mutex_lock(&watch_lock);
	if (parked)
		release_all();
	nr_bps = 0;
	mutex_unlock(&watch_lock);
	cpus_read_unlock();
	/* No sync may run once the module is gone. */
	for_each_possible_cpu(cpu)
		sync_wait(cpu);
	if (hotplug_state >= 0)
		cpuhp_remove_state_nocalls(hotplug_state);
	hotplug_state = -1;
}

/* ---- arming and disarming (the collector thread) ----------------------- */

u32 dprof_watch_next_id(void)
{
	return next_id++;
}

void dprof_watch_publish(u32 id, enum watch_kind kind, int target,
			 unsigned long addr, unsigned int item,
			 const u16 *offsets)
{
	struct watch *w = &dprof_watch;
	unsigned int i;

	w->addr = addr;
	w->target = target;
	w->plan_item = item;
	/* The plan item's offsets; NO_OFFSET pads the end. */
	for (i = 0; i < NR_WATCH_OFFSETS && offsets[i] != DPROF_HIST_NO_OFFSET;
	     i++)
		w->offset[i] = offsets[i];
	w->nr_offsets = i;
	w->cpus_changed = false;
	w->end_reason = 0;
	w->window = kind == WATCH_WINDOW;
	w->young = false;
	w->var = kind == WATCH_VARIABLE;
	w->cut_ns = 0;
	w->watched_ns = 0;
	w->cut = false;
	atomic_long_set_release(&w->word, make_word(id, W_ARMING));
}

static void sync_now(void *unused)
{
	sync_registers();
}

/* Every watched CPU's registers from the watch, waiting for each. */
static void sync_all(void)
{
	struct cpumask cpus;
	unsigned int cpu;

	cpumask_clear(&cpus);
	for_each_online_cpu(cpu)
		if (dprof_cpu_watched(cpu))
			cpumask_set_cpu(cpu, &cpus);
	on_each_cpu_mask(&cpus, sync_now, NULL, 1);
}

/* The first arm of any kind (by the collector or at an allocation), 0 none. */
u64 dprof_watch_first_arm_ns(void)
{
	u64 first = dprof_watch_stats.first_arm_ns, t;
	int cpu;

	for_each_possible_cpu(cpu) {
		t = READ_ONCE(per_cpu_ptr(&watch_cpu, cpu)->here_first_ns);
		if (t && (!first || t < first))
			first = t;
	}
	return first;
}

int dprof_watch_arm(u32 id)
{
	struct watch_stats *s = &dprof_watch_stats;
	u64 start = get_cycles();

	/* cpus_read_lock() held: not asserted, the kernel does not export that */
	mutex_lock(&watch_lock);
	if (!parked) {
		mutex_unlock(&watch_lock);
		s->nospc++;
		dprof_watch.addr = 0;
		atomic_long_set_release(&dprof_watch.word,
					make_word(id, W_IDLE));
		return -ENOSPC;
	}
	sync_all();
	mutex_unlock(&watch_lock);
	start = get_cycles() - start;
	s->arms++;
	s->arm_cycles += start;
	s->arm_max_cycles = max(s->arm_max_cycles, start);
	if (!s->first_arm_ns)
		s->first_arm_ns = watch_now_ns();
	return 0;
}

void dprof_watch_disarm(void)
{
	u64 start = get_cycles();

	cpus_read_lock();
	mutex_lock(&watch_lock);
	WRITE_ONCE(dprof_watch.addr, 0);
	if (parked)
		sync_all();
	mutex_unlock(&watch_lock);
	cpus_read_unlock();
	dprof_watch_stats.disarms++;
	dprof_watch_stats.disarm_cycles += get_cycles() - start;
}

/* What dprof_watch_show() prints of the registers (watchshow.c). */
void dprof_watch_regs(struct watch_regs *r)
{
	int cpu;

	memset(r, 0, sizeof(*r));
	r->held = nr_bps;
	r->free_at_load = free_at_load;
	r->slots = watch_slots;
	r->online = num_online_cpus();
	for_each_possible_cpu(cpu) {
		const struct watch_cpu *wc = per_cpu_ptr(&watch_cpu, cpu);

		r->rewritten += READ_ONCE(wc->rewritten);
		r->moved += READ_ONCE(wc->moved);
		r->stale += READ_ONCE(wc->stale);
		r->here_arms += READ_ONCE(wc->here_arms);
		r->here_cycles += READ_ONCE(wc->here_cycles);
		r->here_max = max(r->here_max, READ_ONCE(wc->here_max_cycles));
	}
	for_each_online_cpu(cpu)
		r->watched += dprof_cpu_watched(cpu);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The watch and its debug registers (see watch.h): the watched object's
 * fields and state word, its breakpoints on every CPU, CPU hotplug, and
 * the kick that wakes the collector.  Everything that arms or disarms
 * goes through dprof_watch_publish(), dprof_watch_arm() and
 * dprof_watch_disarm(), which also count what it costs.
 *
 * Breakpoints are per-CPU kernel counters created by dprof (not
 * register_wide_hw_breakpoint, which covers only the CPUs online when it
 * is called); a hotplug callback arms a CPU that comes online and
 * releases one that goes, and the history is flagged CPUS_CHANGED.
 * Locking order: the CPU hotplug lock, then watch_lock.
 *
 * Parked mode (dprof_watch_parked: history_pick with one breakpoint per
 * offset; design.rst, "Objects chosen at allocation"): the breakpoints
 * are created once per CPU on parking addresses inside dprof and kept;
 * arming writes the address registers, on the local CPU directly and on
 * the others through an asynchronous IPI that sets each CPU's registers
 * from the current watch when it runs, so late or repeated ones do no
 * harm.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <linux/cpuhotplug.h>
#include <linux/cpu.h>
#include <linux/irq_work.h>
#include <linux/smp.h>
#include <linux/kthread.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/wait.h>
#include <linux/timex.h>
#include <linux/seq_file.h>
#include "uapi/dprof.h"
#include "watch.h"
#include "own.h"
#include "allocount.h"
#include "compat.h"
#include "stats.h"
#include "watch_config.h"

struct watch dprof_watch;
struct dprof_history_config dprof_watch_cfg;
struct watch_stats dprof_watch_stats;
struct watch_hits dprof_watch_hits;
unsigned int dprof_watch_bps_per_offset = 1;

/*
 * Per CPU: the breakpoints (nr_offsets * bps_per_offset of them) and the
 * last write trap, see dprof_watch_second_report().
 */
struct watch_cpu {
	struct perf_event *bp[MAX_BPS];
	int slot[MAX_BPS];	/* parked mode: DR index of bp[w], -1 none */
	call_single_data_t sync;	/* parked mode: set this CPU's registers */
	struct pt_regs *w_regs;
	unsigned long w_ip;
	unsigned int w_watch;
	/* parked mode: the address slot[w] holds, perf's copy too */
	unsigned long written[MAX_BPS];
	u64 rewritten;		/* found otherwise: someone wrote them */
};

bool dprof_watch_parked;
int dprof_pick = DPROF_PICK_CLOSED;
/* The type an allocation through the "any" gate named, or -1. */
static atomic_t pick_named = ATOMIC_INIT(-1);
/* The parking addresses: one word per register, never accessed. */
static u64 park_area[MAX_BPS] __aligned(64);

static DEFINE_PER_CPU(struct watch_cpu, watch_cpu);
static unsigned int parked_offsets;	/* breakpoints kept per CPU */
static DEFINE_MUTEX(watch_lock);	/* breakpoints, after cpus_read_lock */
static bool armed;			/* under watch_lock */
static perf_overflow_handler_t hit_handler;
static int hotplug_state = -1;
static unsigned int slots;		/* debug registers dprof could get */
static u32 next_id = 1;

/* ---- the kick ---------------------------------------------------------- */

static DECLARE_WAIT_QUEUE_HEAD(kick_wq);
static bool kicked;

static void kick_fn(struct irq_work *w)
{
	WRITE_ONCE(kicked, true);
	wake_up(&kick_wq);
}

/* Static: the hooks can kick before the set-up and after the teardown. */
static struct irq_work kick_work = IRQ_WORK_INIT(kick_fn);

void dprof_watch_kick(void)
{
	irq_work_queue(&kick_work);
}

/* The collector's sleep: until a kick, a stop, or 5 ms. */
void dprof_watch_wait(void)
{
	wait_event_interruptible_timeout(kick_wq, READ_ONCE(kicked) ||
					 kthread_should_stop(),
					 msecs_to_jiffies(5));
	WRITE_ONCE(kicked, false);
}

/* After the hooks are gone: no kick may run once the module is freed. */
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

	irq_work_sync(&kick_work);
	for_each_possible_cpu(cpu)
		sync_wait(cpu);
}

/* ---- the registers (process context, cpus_read_lock + watch_lock) ------ */

static void disarm_cpu(unsigned int cpu)
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
	wc->w_regs = NULL;
}

static int arm_cpu(unsigned int cpu)
{
	struct watch_cpu *wc = per_cpu_ptr(&watch_cpu, cpu);
	const unsigned int per_offset = dprof_watch_bps_per_offset;
	struct perf_event_attr attr;
	struct perf_event *bp;
	unsigned int w, k, n = 0;
	void *ctx;

	for (w = 0; w < (dprof_watch_parked ? parked_offsets :
			 dprof_watch.nr_offsets); w++) {
		for (k = 0; k < per_offset; k++) {
			bool write_only = k == 0 && per_offset > 1;

			if (n == MAX_BPS) {	/* the plan outgrew the registers */
				disarm_cpu(cpu);
				return -ENOSPC;
			}
			ctx = (void *)(unsigned long)(w << 1 | write_only);
			hw_breakpoint_init(&attr);
			attr.bp_addr = dprof_watch_parked ?
				       (unsigned long)&park_area[w] :
				       dprof_watch.addr + dprof_watch.offset[w];
			attr.bp_len = dprof_watch_cfg.len;
			attr.bp_type = write_only ? HW_BREAKPOINT_W :
				       HW_BREAKPOINT_RW;
			bp = dprof_own_counter(&attr, cpu, hit_handler, ctx);
			if (IS_ERR(bp)) {
				disarm_cpu(cpu);
				return PTR_ERR(bp);
			}
			wc->bp[n++] = bp;
		}
	}
	return 0;
}

/* On each CPU: is every write-only breakpoint below its read/write twin? */
static void check_slot_order(void *bad)
{
	unsigned long dr7, addr[4];
	unsigned int w, i;

	dprof_read_debugregs(addr, &dr7);
	for (w = 0; w < dprof_watch.nr_offsets; w++) {
		unsigned long a = dprof_watch.addr + dprof_watch.offset[w];
		int wslot = -1, rwslot = -1;

		for (i = 0; i < 4; i++) {
			unsigned int type = dprof_dr7_type(dr7, i);

			if (!dprof_dr7_enabled(dr7, i) || addr[i] != a)
				continue;
			if (type == DPROF_DR_RW_WRITE && wslot < 0)
				wslot = i;
			else if (type == DPROF_DR_RW_READWRITE && rwslot < 0)
				rwslot = i;
		}
		if (wslot < 0 || rwslot < 0 || wslot > rwslot)
			WRITE_ONCE(*(bool *)bad, true);
	}
}

/* ---- parked mode ------------------------------------------------------ */

/*
 * Do this CPU's parked registers hold what it wrote?  perf's reschedules
 * write each breakpoint's counter_arch_bp() address (dprof_bp_point()
 * keeps it in step), but hw_breakpoint_restore() after a text_poke()
 * (a static key: a CPU going offline flips some), kgdb or a KVM exit
 * writes cpu_debugreg, perf's last install, out of dprof's reach.
 */
static bool slots_held(const struct watch_cpu *wc)
{
	unsigned long dr[4], dr7;
	unsigned int w;

	dprof_read_debugregs(dr, &dr7);
	for (w = 0; w < parked_offsets; w++) {
		int i = READ_ONCE(wc->slot[w]);

		if (i >= 0 && dr[i] != wc->written[w])
			return false;
	}
	return true;
}

/*
 * This CPU's registers from the watch as it is now: its offsets while an
 * object is armed (addr set), the parking addresses otherwise, each in
 * the register and in perf's copy.  Interrupts off (an IPI, the hook's
 * own section, the in-use tick).  Registers found rewritten are counted;
 * when they were following the watch still running, this CPU missed its
 * accesses for a while, which is flagged.
 */
static void sync_registers(void)
{
	struct watch_cpu *wc = this_cpu_ptr(&watch_cpu);
	unsigned long addr = READ_ONCE(dprof_watch.addr);
	unsigned int nr = READ_ONCE(dprof_watch.nr_offsets), w;

	if (!slots_held(wc)) {
		wc->rewritten++;
		if (addr && nr && wc->written[0] == addr + dprof_watch.offset[0])
			WRITE_ONCE(dprof_watch.cpus_changed, true);
	}
	for (w = 0; w < parked_offsets; w++) {
		unsigned long val = addr && w < nr ?
				    addr + dprof_watch.offset[w] :
				    (unsigned long)&park_area[w];
		int i = READ_ONCE(wc->slot[w]);

		if (i < 0)
			continue;
		dprof_bp_point(wc->bp[w], val);
		dprof_write_debugreg(i, val);
		wc->written[w] = val;
	}
}

/* This CPU: which debug register perf gave each parked breakpoint. */
static void find_slots(void *unused)
{
	struct watch_cpu *wc = this_cpu_ptr(&watch_cpu);
	unsigned long dr7, addr[4];
	unsigned int w, i;

	dprof_read_debugregs(addr, &dr7);
	for (w = 0; w < MAX_BPS; w++) {
		wc->slot[w] = -1;
		wc->written[w] = (unsigned long)&park_area[w];
		for (i = 0; i < 4 && w < parked_offsets; i++)
			if (dprof_dr7_enabled(dr7, i) &&
			    addr[i] == (unsigned long)&park_area[w])
				wc->slot[w] = i;
	}
	sync_registers();	/* a CPU coming online joins the watch */
}

/* The in-use tick (hard irq): rewritten registers set again, flagged. */
void dprof_watch_check_here(void)
{
	if (READ_ONCE(dprof_watch_parked) &&
	    !slots_held(this_cpu_ptr(&watch_cpu)))
		sync_registers();
}

static void sync_ipi(void *unused)
{
	sync_registers();
}

/*
 * From the allocation hook (any context but NMI, preemption off): the
 * watch was just published on @dprof_watch.addr.  This CPU's registers
 * now, before the object reaches its caller; the others' by an
 * asynchronous IPI.  A CPU whose IPI is still pending (-EBUSY) syncs to
 * the newest watch anyway.
 */
void dprof_watch_arm_here(void)
{
	unsigned int cpu, self = smp_processor_id();
	unsigned long flags;

	local_irq_save(flags);
	sync_registers();
	local_irq_restore(flags);
	for_each_online_cpu(cpu) {
		struct watch_cpu *wc = per_cpu_ptr(&watch_cpu, cpu);

		if (cpu != self)
			smp_call_function_single_async(cpu, &wc->sync);
	}
}

/*
 * The any gate matched an allocation of @target (hook context): it names
 * the type, once, and closes.  The name waits for the collector.
 */
void dprof_pick_name(int target)
{
	if (atomic_cmpxchg(&pick_named, -1, target) == -1) {
		WRITE_ONCE(dprof_pick, DPROF_PICK_CLOSED);
		dprof_watch_kick();
	}
}

int dprof_pick_take_name(void)
{
	/* From the counters, without the gate's timing (allocount.h). */
	int target = dprof_alloc_count_draw(dprof_watch_cfg.pick_types);

	if (target >= 0)
		return target;
	target = atomic_xchg(&pick_named, -1);

	if (target < 0 && READ_ONCE(dprof_pick) == DPROF_PICK_CLOSED)
		WRITE_ONCE(dprof_pick, DPROF_PICK_ANY);
	return target;
}

void dprof_pick_open(int target)
{
	/* After the watch is WAITING: a hook that sees the gate finds it ready. */
	smp_store_release(&dprof_pick, target);
}

void dprof_pick_close(void)
{
	WRITE_ONCE(dprof_pick, DPROF_PICK_CLOSED);
	atomic_set(&pick_named, -1);
}

/* Until no IPI of dprof's is pending for @cpu: none may outlive it. */
static void sync_wait(unsigned int cpu)
{
	while (dprof_csd_pending(&per_cpu_ptr(&watch_cpu, cpu)->sync))
		cpu_relax();
}

/* The tick reads slot[], then bp[], irqs off: a grace period after this. */
static void unpublish_slots(unsigned int cpu)
{
	struct watch_cpu *wc = per_cpu_ptr(&watch_cpu, cpu);
	int i;

	for (i = 0; i < MAX_BPS; i++)
		WRITE_ONCE(wc->slot[i], -1);
}

static void disarm_all(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		unpublish_slots(cpu);
	if (dprof_watch_parked)
		synchronize_rcu();
	for_each_possible_cpu(cpu)
		disarm_cpu(cpu);
	armed = false;
}

static int arm_all(void)
{
	unsigned int cpu;
	bool bad = false;
	int ret;

	for_each_online_cpu(cpu) {
		ret = arm_cpu(cpu);
		if (ret) {
			disarm_all();
			return ret;
		}
	}
	armed = true;
	if (dprof_watch_bps_per_offset > 1)
		on_each_cpu(check_slot_order, &bad, 1);
	dprof_watch.rw_unsure = bad || dprof_watch_bps_per_offset == 1;
	return 0;
}

static int watch_cpu_online(unsigned int cpu)
{
	mutex_lock(&watch_lock);
	if (armed) {
		WRITE_ONCE(dprof_watch.cpus_changed, true);
		if (arm_cpu(cpu))
			dprof_watch_stats.nospc++;
		else if (dprof_watch_parked)
			smp_call_function_single(cpu, find_slots, NULL, 1);
	}
	mutex_unlock(&watch_lock);
	return 0;
}

static int watch_cpu_offline(unsigned int cpu)
{
	mutex_lock(&watch_lock);
	if (armed && (!dprof_watch_parked || READ_ONCE(dprof_watch.addr)))
		WRITE_ONCE(dprof_watch.cpus_changed, true);
	unpublish_slots(cpu);
	if (dprof_watch_parked)
		synchronize_rcu();
	disarm_cpu(cpu);
	sync_wait(cpu);
	mutex_unlock(&watch_lock);
	return 0;
}

int dprof_watch_setup(perf_overflow_handler_t handler)
{
	unsigned int cpu;
	int ret;

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
 * Parked mode, after dprof_watch_probe_slots(): keep @offsets breakpoints
 * on every CPU for good.  0, or -errno with nothing kept.
 */
int dprof_watch_park(unsigned int offsets)
{
	int ret;

	cpus_read_lock();
	mutex_lock(&watch_lock);
	parked_offsets = offsets;
	dprof_watch_parked = true;
	dprof_watch.addr = 0;
	ret = arm_all();
	if (ret) {
		dprof_watch_parked = false;
		parked_offsets = 0;
	} else {
		on_each_cpu(find_slots, NULL, 1);
	}
	mutex_unlock(&watch_lock);
	cpus_read_unlock();
	return ret;
}

void dprof_watch_teardown(void)
{
	unsigned int cpu;

	if (dprof_watch_parked) {
		cpus_read_lock();
		mutex_lock(&watch_lock);
		disarm_all();
		dprof_watch_parked = false;
		mutex_unlock(&watch_lock);
		cpus_read_unlock();
	}
	/* No sync may run once the module is gone. */
	for_each_possible_cpu(cpu)
		sync_wait(cpu);
	if (hotplug_state >= 0)
		cpuhp_remove_state_nocalls(hotplug_state);
	hotplug_state = -1;
}

unsigned int dprof_watch_probe_slots(void)
{
	static u64 probe_target;
	const unsigned int per_offset = dprof_watch_bps_per_offset;
	unsigned int n;
	int ret = 0;

	cpus_read_lock();
	mutex_lock(&watch_lock);
	dprof_watch.addr = (unsigned long)&probe_target;
	memset(dprof_watch.offset, 0, sizeof(dprof_watch.offset));
	for (n = MAX_BPS / per_offset; n > 0; n--) {
		dprof_watch.nr_offsets = n;
		ret = arm_all();
		disarm_all();
		if (!ret)
			break;
	}
	dprof_watch.addr = 0;
	mutex_unlock(&watch_lock);
	cpus_read_unlock();
	if (ret && ret != -ENOSPC)
		pr_warn("debug registers unavailable (%d)\n", ret);
	slots = n * per_offset;
	return slots;
}

bool dprof_watch_tells_writes(void)
{
	return dprof_watch_bps_per_offset > 1;
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

int dprof_watch_arm(u32 id)
{
	struct watch_stats *s = &dprof_watch_stats;
	u64 start = get_cycles();
	int ret;

	/* cpus_read_lock() held: not asserted, the kernel does not export that */
	mutex_lock(&watch_lock);
	if (dprof_watch_parked) {
		on_each_cpu(sync_ipi, NULL, 1);
		ret = 0;
	} else {
		ret = arm_all();
	}
	mutex_unlock(&watch_lock);
	if (ret) {
		if (ret == -ENOSPC)
			s->nospc++;
		dprof_watch.addr = 0;
		atomic_long_set_release(&dprof_watch.word,
					make_word(id, W_IDLE));
		return ret;
	}
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
	if (dprof_watch_parked) {
		WRITE_ONCE(dprof_watch.addr, 0);
		on_each_cpu(sync_ipi, NULL, 1);
	} else {
		disarm_all();
	}
	mutex_unlock(&watch_lock);
	cpus_read_unlock();
	dprof_watch_stats.disarms++;
	dprof_watch_stats.disarm_cycles += get_cycles() - start;
}

/*
 * A write trips the write-only breakpoint (context bit 0) and, on CPUs
 * that report every match, its read/write twin right after it in the same
 * #DB, with the same trap frame and ip: that second report is not a read.
 */
bool dprof_watch_second_report(struct pt_regs *regs, unsigned int w,
			       bool write_bp)
{
	struct watch_cpu *wc = this_cpu_ptr(&watch_cpu);

	if (write_bp) {
		wc->w_regs = regs;
		wc->w_ip = regs->ip;
		wc->w_watch = w;
		return false;
	}
	if (wc->w_regs == regs && wc->w_ip == regs->ip && wc->w_watch == w) {
		wc->w_regs = NULL;
		return true;
	}
	wc->w_regs = NULL;
	return false;
}

/* The registers, the limits and the costs of arming and of the handler. */
void dprof_watch_show(struct seq_file *m)
{
	const struct dprof_history_config *cfg = &dprof_watch_cfg;
	const struct watch_stats *c = &dprof_watch_stats;
	const unsigned int per_offset = dprof_watch_bps_per_offset;
	const unsigned int offsets = slots / per_offset;
	struct dprof_cpu_stats sum = {};
	const struct dprof_cost *hit = &sum.cost[DPROF_HOOK_BP_HIT];
	u64 per_k = dprof_ticks_per_kinsn();
	int cpu;

	for_each_possible_cpu(cpu)
		dprof_stats_sum(&sum, cpu);
	seq_printf(m, "  debug registers: %u of 4 (%u offset%s per object, %s), length %u\n",
		   slots, offsets, offsets > 1 ? "s" : "",
		   per_offset > 1 ?
		   "write + read/write breakpoint each" :
		   "one read/write breakpoint each: the kind comes from the instruction",
		   cfg->len);
	if (dprof_watch_parked) {
		u64 rewritten = 0;

		for_each_possible_cpu(cpu)
			rewritten += per_cpu_ptr(&watch_cpu, cpu)->rewritten;
		seq_printf(m, "  registers rewritten behind dprof: %llu (hw_breakpoint_restore() after a text_poke(), kgdb, KVM; set again at the next arm or in-use tick, the watch they were following flagged cpus-changed)\n",
			   rewritten);
	}
	seq_printf(m, "  limits: history_max_arms=%u/s history_max_hits=%u/s history_timeout_ms=%u history_wait_ms=%u, 1 object watched at a time\n",
		   cfg->max_arms, cfg->max_hits, cfg->timeout_ms, cfg->wait_ms);
	seq_printf(m, "  traps: %llu (%llu per second since the first arm); watch_max_traps=%u/s%s: %llu turns put off, by %llu ms in all\n",
		   (u64)atomic64_read(&dprof_watch_hits.traps),
		   c->first_arm_ns && watch_now_ns() > c->first_arm_ns ?
		   div64_u64((u64)atomic64_read(&dprof_watch_hits.traps) *
			     NSEC_PER_SEC, watch_now_ns() - c->first_arm_ns) :
		   0, cfg->max_traps, cfg->max_traps ? "" : " (no bound)",
		   c->rests, div_u64(c->rest_ns, NSEC_PER_MSEC));
	seq_printf(m, "  costs: hit handler %llu cycles avg (%llu max, %llu hits), arm %llu cycles avg (%llu max, %llu arms), disarm %llu cycles avg (%llu disarms)\n",
		   hit->timed ? div64_u64(hit->cycles, hit->timed) : 0,
		   hit->max_cycles, hit->calls,
		   c->arms ? div64_u64(c->arm_cycles, c->arms) : 0,
		   c->arm_max_cycles, c->arms,
		   c->disarms ? div64_u64(c->disarm_cycles, c->disarms) : 0,
		   c->disarms);
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

// SPDX-License-Identifier: GPL-2.0
/*
 * Object access histories with debug registers (thesis 5.3): every access
 * to one or two watched offsets of one target object, from allocation to
 * free, on every CPU.
 *
 * Why the object is chosen before it exists.  Arming a breakpoint on every
 * CPU takes process context and IPIs (milliseconds under TCG); an skbuff
 * lives ~50 us.  Arming after the allocation would miss most lives, and
 * always their beginning.  So the collector thread allocates one object of
 * the target cache itself, on the CPU that allocates that type most, arms
 * the breakpoints on its address, and frees it there: SLUB's per-CPU
 * freelist is LIFO, so the next allocation on that CPU returns exactly the
 * watched address.  The allocation hook only compares the address and
 * opens the history; the free hook closes it.  Neither arms or disarms.
 *
 * Why two breakpoints per offset.  x86 cannot trap reads alone.  Each
 * offset gets a write-only breakpoint (created first, so it takes the lower
 * debug register) and a read/write one on the same bytes.  A write trips the
 * write breakpoint; a read trips only the read/write one.  When a CPU
 * reports both for one write (both DR6 bits, as the SDM specifies), the
 * read/write report comes second in the same #DB, with the same trap frame
 * and ip, and is recognised and not counted twice.  A CPU that reports
 * only the lower register (QEMU's emulation may stop at the first match)
 * gives the same answer; the ground-truth selftest checks the split in
 * the guest.  The slot order is
 * checked on every CPU after arming; if it is not as required the history
 * is flagged DPROF_HIST_RW_UNSURE instead of guessing.
 *
 * The life of a watch (one at a time; x86 has four debug registers):
 *   IDLE -> ARMING (thread) -> WAITING (thread, reserve freed)
 *   WAITING -> CLAIMING -> ACTIVE (alloc hook, address matches)
 *   ACTIVE -> ENDING -> ENDED (free hook; or thread on timeout/unload)
 *   WAITING -> ENDED (thread: not reallocated within history_wait_ms)
 *   ENDED -> IDLE (thread, after every breakpoint is released)
 * The state and the history id share one word, so a handler that sees
 * ACTIVE also sees which history it belongs to; hits in any other state
 * are dropped and counted.  A watched address freed and reallocated before
 * the thread disarms stays ENDED: two lives are never mixed.
 *
 * Sample windows (the watch sampler, sampler=watch or auto without IBS/PEBS)
 * use the same registers and states:
 *   IDLE -> ARMING (thread: a random live object from the live set, the
 *           least-exposed offsets of its type's plan)
 *   ARMING -> SAMPLING -> ENDED (thread, after sample_window_ms)
 *   ARMING or SAMPLING -> ENDED (free hook: the object died)
 * Every trapped access to a live target object is an access sample.  The
 * thread alternates between histories and windows, one arm each, so both
 * get the registers in turn and history_max_arms caps the two together.
 * The free hook checks the window after the object left the live set, and
 * the thread checks the live set after publishing the window: one of the
 * two always sees the other, so no window outlives its object unnoticed.
 *
 * CPU hotplug: breakpoints are per-CPU kernel counters created by dprof
 * (not register_wide_hw_breakpoint, which covers only the CPUs online when
 * it is called); a hotplug callback arms a CPU that comes online and
 * releases one that goes, and the history is flagged CPUS_CHANGED.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <linux/kthread.h>
#include <linux/cpuhotplug.h>
#include <linux/cpu.h>
#include <linux/irq_work.h>
#include <linux/workqueue.h>
#include <linux/mutex.h>
#include <linux/wait.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/timex.h>
#include <linux/ktime.h>
#include <linux/seq_file.h>
#include "dprof.h"
#include "dprof_trace.h"
#include "plan.h"
#include "compat.h"

#define NR_WATCH_OFFSETS	DPROF_HIST_MAX_OFFSETS
#define MAX_BPS			4	/* x86 debug address registers */

enum watch_state {
	W_IDLE,
	W_ARMING,
	W_WAITING,
	W_CLAIMING,
	W_ACTIVE,
	W_ENDING,
	W_ENDED,
	W_SAMPLING,	/* a sample window is open */
};

#define STATE_BITS	3
#define STATE_MASK	((1UL << STATE_BITS) - 1)
#define word_state(w)	((w) & STATE_MASK)
#define word_id(w)	((u32)((w) >> STATE_BITS))
#define make_word(id, st) (((unsigned long)(id) << STATE_BITS) | (st))

/* The one watched object.  Fields are written before the state publishes them. */
struct watch {
	atomic_long_t word;	/* history id and enum watch_state */
	unsigned long addr;	/* object base; 0 when nothing is armed */
	int target;
	u16 offset[NR_WATCH_OFFSETS];
	unsigned int nr_offsets;
	u32 plan_item;
	bool rw_unsure;
	bool cpus_changed;
	u64 alloc_ns;		/* set in CLAIMING, read once ACTIVE */
	u16 alloc_cpu;
	bool moved;		/* touched on a CPU other than alloc_cpu */
	u64 deadline_ns;	/* WAITING: give up after */
	u8 end_reason;
	atomic_t elements;
	atomic_t dropped;	/* by the hit-rate limit */
	bool window;		/* a sample window, not a history */
	bool var;		/* a history on a variable (watch_symbols=) */
	u64 open_ns;		/* SAMPLING since */
	u64 cut_ns;		/* when the free hook ended the window */
	bool counting;		/* window samples since hits_at_open */
	u64 hits_at_open;	/* window_hits when the window opened */
	u64 watched_ns;		/* how long the window was open */
	bool cut;		/* the window was ended by a free */
};

/*
 * Per CPU: the breakpoints (nr_offsets * bps_per_offset of them) and the
 * last write trap, see bp_hit().
 */
struct hist_cpu {
	struct perf_event *bp[MAX_BPS];
	struct pt_regs *w_regs;
	unsigned long w_ip;
	unsigned int w_watch;
};

struct hist_counters {
	u64 arms, arm_cycles, arm_max_cycles;
	u64 disarms, disarm_cycles;
	u64 expired;		/* not reallocated within wait_ms */
	u64 reserve_failed;	/* could not allocate the object to watch */
	u64 nospc;		/* debug registers held by someone else */
	u64 ends[DPROF_HIST_WINDOW + 1];
	u64 first_arm_ns;
	u64 windows_full;	/* ran for sample_window_ms */
	u64 windows_cut;	/* the object was freed while watched */
	u64 windows_missed;	/* freed before the window opened */
	u64 windows_no_object;	/* no live target object found */
	u64 windows_skipped;	/* turns skipped: the type's objects die first */
	u64 var_watches;	/* watches on variables (watch_symbols=) */
};

static struct dprof_history_config cfg;

/* Whether the collector has anything to watch. */
static bool watching(void)
{
	return cfg.enabled || cfg.windows || cfg.variables;
}

static struct watch watch;
static DEFINE_PER_CPU(struct hist_cpu, hist_cpu);
DEFINE_PER_CPU(int, dprof_self_alloc);
static struct hist_counters counters;	/* thread only, read racily */
static atomic64_t hits_outside_life;	/* before alloc or after free */
static atomic64_t hits_rate_dropped;
static atomic64_t ip_out_of_range;
static atomic_t hits_window;		/* elements this second */
static atomic64_t window_hits;		/* samples taken in windows */
/* Per target: complete histories, and those whose object changed CPU. */
static atomic64_t target_histories[DPROF_MAX_TARGETS];
static atomic64_t target_moved[DPROF_MAX_TARGETS];
static unsigned int slots;		/* debug registers dprof could get */
static unsigned int offsets_per_watch;	/* offsets one history watches, 1-4 */
static unsigned int bps_per_offset;	/* 2: reads told from writes, 1: not */
static bool armed;			/* under hist_lock */
static DEFINE_MUTEX(hist_lock);		/* breakpoints, after cpus_read_lock */
static struct task_struct *thread;
static DECLARE_WAIT_QUEUE_HEAD(thread_wq);
static bool thread_kick;
static int hotplug_state = -1;
/*
 * The object held while arming, and its target.  The collector touches
 * a target's cache only inside a reserve section (reserve_fn,
 * release_fn: interrupts off, so bounded) that kmem_cache_destroy()
 * waits out; see dprof_history_cache_destroyed().
 */
static void *reserve;
static int reserve_target = -1;
static atomic_t reserve_section;	/* target + 1 while in one, else 0 */
static atomic64_t reserve_destroyed;	/* given back by a destroy */
static DEFINE_PER_CPU(u64, prev_allocs);

static void kick_fn(struct irq_work *w)
{
	WRITE_ONCE(thread_kick, true);
	wake_up(&thread_wq);
}

/* Static: the hooks can kick before dprof_history_init() and after exit. */
static struct irq_work kick_work = IRQ_WORK_INIT(kick_fn);

static u64 now_ns(void)
{
	return ktime_get_mono_fast_ns();
}

/* ---- #DB context ------------------------------------------------------- */

static void emit_element(unsigned long word, unsigned int w, bool write,
			 struct pt_regs *regs, u64 when)
{
	struct dprof_hist_elem el;
	u64 since;

	/* Stamped before the state was read: an earlier stamp is pre-alloc. */
	since = when - READ_ONCE(watch.alloc_ns);
	if ((s64)since < 0) {
		atomic64_inc(&hits_outside_life);
		return;
	}
	if (atomic_inc_return(&hits_window) > cfg.max_hits) {
		atomic_inc(&watch.dropped);
		atomic64_inc(&hits_rate_dropped);
		return;
	}
	el.kind = DPROF_REC_HIST_ELEM;
	el.size = sizeof(el);
	el.cpu = smp_processor_id();
	el.tag = (word_id(word) & DPROF_ELEM_ID_MASK) |
		 DPROF_ELEM_WATCH(w) |
		 (write ? DPROF_ELEM_WRITE : 0);
	if (regs->ip >> 31 == (~0UL >> 31)) {
		el.ip_lo = (u32)regs->ip;
	} else {
		el.ip_lo = 0;
		atomic64_inc(&ip_out_of_range);
	}
	el.time_ns = min_t(u64, since, U32_MAX);
	atomic_inc(&watch.elements);
	trace_dprof_hist_elem(word_id(word), READ_ONCE(watch.addr),
			      watch.offset[w], regs->ip, write, el.time_ns);
	dprof_ring_write(&el, sizeof(el));
	if (el.cpu != READ_ONCE(watch.alloc_cpu))
		WRITE_ONCE(watch.moved, true);
	dprof_sample_watch(watch.target, watch.offset[w], regs->ip,
			   bps_per_offset > 1, write, false);
}

/*
 * Breakpoint handler, from #DB (NMI-like).  Context bit 0: write-only
 * breakpoint; the rest: which watched offset.
 */
static void bp_hit(struct perf_event *bp, struct perf_sample_data *data,
		   struct pt_regs *regs)
{
	unsigned long ctx = (unsigned long)bp->overflow_handler_context;
	unsigned int w = ctx >> 1;
	bool write_bp = ctx & 1;
	struct hist_cpu *hc = this_cpu_ptr(&hist_cpu);
	u64 start = get_cycles(), when = now_ns();
	unsigned long word = atomic_long_read(&watch.word);
	bool emitted = false;

	smp_rmb();	/* word before alloc_ns, paired with the claim */
	if (write_bp) {
		hc->w_regs = regs;
		hc->w_ip = regs->ip;
		hc->w_watch = w;
	} else if (hc->w_regs == regs && hc->w_ip == regs->ip &&
		   hc->w_watch == w) {
		/* Second report of a write already recorded. */
		hc->w_regs = NULL;
		goto out;
	} else {
		hc->w_regs = NULL;
	}
	if (word_state(word) == W_SAMPLING) {
		/* Freed and reused by the same cache is still this type. */
		if (dprof_liveset_contains(READ_ONCE(watch.addr))) {
			dprof_sample_watch(watch.target, watch.offset[w],
					   regs->ip, bps_per_offset > 1, write_bp,
					   true);
			atomic64_inc(&window_hits);
			emitted = true;
		} else {
			atomic64_inc(&hits_outside_life);
		}
		goto out;
	}
	if (word_state(word) != W_ACTIVE) {
		atomic64_inc(&hits_outside_life);
		goto out;
	}
	emit_element(word, w, write_bp, regs, when);
	emitted = true;
out:
	dprof_cost_add(DPROF_HOOK_BP_HIT, emitted, get_cycles() - start);
}

/* ---- slab hook context ------------------------------------------------- */

/*
 * The watch (CLAIMING or ARMING, armed) becomes the history @id of the
 * object at @base: its BEGIN record, then ACTIVE.  From the allocation
 * hook, or from the collector for a variable (no call site).
 */
static void begin_history(u32 id, int target, unsigned long base,
			  unsigned long call_site)
{
	struct dprof_hist_begin b;
	unsigned int i;

	watch.alloc_ns = now_ns();
	watch.alloc_cpu = raw_smp_processor_id();
	watch.moved = false;
	atomic_set(&watch.elements, 0);
	atomic_set(&watch.dropped, 0);
	memset(&b, 0, sizeof(b));
	b.hdr.kind = DPROF_REC_HIST_BEGIN;
	b.hdr.size = sizeof(b);
	b.hdr.cpu = watch.alloc_cpu;
	b.hdr.target = target;
	b.hdr.flags = watch.rw_unsure ? DPROF_HIST_RW_UNSURE : 0;
	b.time_ns = watch.alloc_ns;
	b.addr = base;
	b.call_site = call_site;
	b.id = id;
	for (i = 0; i < NR_WATCH_OFFSETS; i++)
		b.offset[i] = i < watch.nr_offsets ? watch.offset[i] :
			      DPROF_HIST_NO_OFFSET;
	b.len = cfg.len;
	b.nr_offsets = watch.nr_offsets;
	b.plan_item = watch.plan_item;
	/* BEGIN precedes every element of this history in this CPU's ring. */
	dprof_ring_write(&b, sizeof(b));
	smp_wmb();	/* alloc_ns before ACTIVE */
	atomic_long_set(&watch.word, make_word(id, W_ACTIVE));
}

void dprof_history_alloc(int target, unsigned long base,
			 unsigned long call_site)
{
	unsigned long word = atomic_long_read(&watch.word);

	if (base != READ_ONCE(watch.addr) || word_state(word) != W_WAITING ||
	    target != READ_ONCE(watch.target))
		return;
	if (atomic_long_cmpxchg(&watch.word, word,
				make_word(word_id(word), W_CLAIMING)) != word)
		return;
	begin_history(word_id(word), target, base, call_site);
}

static void emit_end(unsigned long word, u8 reason, unsigned long call_site)
{
	struct dprof_hist_end e;

	memset(&e, 0, sizeof(e));
	e.hdr.kind = DPROF_REC_HIST_END;
	e.hdr.size = sizeof(e);
	e.hdr.cpu = raw_smp_processor_id();
	e.hdr.target = watch.target;
	e.hdr.flags = (READ_ONCE(watch.cpus_changed) ?
		       DPROF_HIST_CPUS_CHANGED : 0) |
		      (atomic_read(&watch.dropped) ? DPROF_HIST_TRUNCATED : 0);
	e.time_ns = now_ns();
	e.call_site = call_site;
	e.id = word_id(word);
	e.elements = atomic_read(&watch.elements);
	e.dropped = atomic_read(&watch.dropped);
	e.reason = reason;
	watch.end_reason = reason;
	dprof_ring_write(&e, sizeof(e));
	if (reason == DPROF_HIST_FREED) {
		atomic64_inc(&target_histories[watch.target]);
		if (READ_ONCE(watch.moved) || e.hdr.cpu != watch.alloc_cpu)
			atomic64_inc(&target_moved[watch.target]);
	}
}

/* Ends the active history; false if it was not active. */
static bool end_history(u8 reason, unsigned long call_site)
{
	unsigned long word = atomic_long_read(&watch.word);

	if (word_state(word) != W_ACTIVE)
		return false;
	/* From here on no hit is attributed to the history. */
	if (atomic_long_cmpxchg(&watch.word, word,
				make_word(word_id(word), W_ENDING)) != word)
		return false;
	emit_end(word, reason, call_site);
	atomic_long_set_release(&watch.word,
				make_word(word_id(word), W_ENDED));
	return true;
}

void dprof_history_free(int target, unsigned long base,
			unsigned long call_site)
{
	/* The free hook runs before the object is freed. */
	if (base == READ_ONCE(watch.addr) && target == READ_ONCE(watch.target) &&
	    end_history(DPROF_HIST_FREED, call_site))
		irq_work_queue(&kick_work);
}

/*
 * After the object left the live set (the barrier of its removal orders
 * that before these loads): end a sample window on it.
 */
void dprof_window_free(unsigned long base)
{
	unsigned long word = atomic_long_read_acquire(&watch.word);
	unsigned int state = word_state(word);

	if ((state != W_ARMING && state != W_SAMPLING) ||
	    !READ_ONCE(watch.window) || base != READ_ONCE(watch.addr))
		return;
	WRITE_ONCE(watch.cut_ns, now_ns());
	if (atomic_long_cmpxchg(&watch.word, word,
				make_word(word_id(word), W_ENDED)) == word)
		irq_work_queue(&kick_work);
}

/*
 * kmem_cache_destroy() of a target, after it was marked dead: give back
 * the object held, if any, before the cache goes.  A handshake with the
 * collector's reserve sections: each side publishes its flag (DEAD here,
 * reserve_section there), then a full barrier, then reads the other's.
 * Either the section sees DEAD and leaves the cache alone, or this sees
 * the section and waits for it (interrupts are off there: it cannot be
 * this CPU, and it ends in microseconds), then takes what it published.
 */
void dprof_history_cache_destroyed(int target)
{
	unsigned long flags;
	void *obj;

	/* DEAD (set by the caller) before reserve_section is read */
	smp_mb();
	while (atomic_read_acquire(&reserve_section) == target + 1)
		cpu_relax();
	/* Pairs with reserve_fn()'s release: reserve_target is current */
	obj = smp_load_acquire(&reserve);
	/*
	 * A reserve of another target stays; this target's cannot be
	 * replaced now (no section runs for a dead target), so the
	 * cmpxchg loses only to the collector's own release.
	 */
	if (!obj || READ_ONCE(reserve_target) != target ||
	    cmpxchg(&reserve, obj, NULL) != obj)
		return;
	local_irq_save(flags);
	this_cpu_write(dprof_self_alloc, 1);
	kmem_cache_free(dprof_targets[target].cache, obj);
	this_cpu_write(dprof_self_alloc, 0);
	local_irq_restore(flags);
	atomic64_inc(&reserve_destroyed);
	/* The collector notices the dead target within its 5 ms poll. */
}

/* ---- arming (process context, cpus_read_lock + hist_lock) -------------- */

static void disarm_cpu(unsigned int cpu)
{
	struct hist_cpu *hc = per_cpu_ptr(&hist_cpu, cpu);
	int i;

	for (i = 0; i < MAX_BPS; i++) {
		if (hc->bp[i]) {
			perf_event_release_kernel(hc->bp[i]);
			hc->bp[i] = NULL;
		}
	}
	hc->w_regs = NULL;
}

static int arm_cpu(unsigned int cpu)
{
	struct hist_cpu *hc = per_cpu_ptr(&hist_cpu, cpu);
	struct perf_event_attr attr;
	struct perf_event *bp;
	unsigned int w, k, n = 0;
	void *ctx;

	for (w = 0; w < watch.nr_offsets; w++) {
		for (k = 0; k < bps_per_offset; k++) {
			bool write_only = k == 0 && bps_per_offset > 1;

			if (n == MAX_BPS) {	/* the plan outgrew the registers */
				disarm_cpu(cpu);
				return -ENOSPC;
			}
			ctx = (void *)(unsigned long)(w << 1 | write_only);
			hw_breakpoint_init(&attr);
			attr.bp_addr = watch.addr + watch.offset[w];
			attr.bp_len = cfg.len;
			attr.bp_type = write_only ? HW_BREAKPOINT_W :
				       HW_BREAKPOINT_RW;
			bp = perf_event_create_kernel_counter(&attr, cpu, NULL,
							      bp_hit, ctx);
			if (IS_ERR(bp)) {
				disarm_cpu(cpu);
				return PTR_ERR(bp);
			}
			hc->bp[n++] = bp;
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
	for (w = 0; w < watch.nr_offsets; w++) {
		int wslot = -1, rwslot = -1;

		for (i = 0; i < 4; i++) {
			unsigned int type = dprof_dr7_type(dr7, i);

			if (!dprof_dr7_enabled(dr7, i) ||
			    addr[i] != watch.addr + watch.offset[w])
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

static void disarm_all(void)
{
	unsigned int cpu;

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
	if (bps_per_offset > 1)
		on_each_cpu(check_slot_order, &bad, 1);
	watch.rw_unsure = bad || bps_per_offset == 1;
	return 0;
}

static int hist_cpu_online(unsigned int cpu)
{
	mutex_lock(&hist_lock);
	if (armed) {
		WRITE_ONCE(watch.cpus_changed, true);
		if (arm_cpu(cpu))
			counters.nospc++;
	}
	mutex_unlock(&hist_lock);
	return 0;
}

static int hist_cpu_offline(unsigned int cpu)
{
	mutex_lock(&hist_lock);
	if (armed)
		WRITE_ONCE(watch.cpus_changed, true);
	disarm_cpu(cpu);
	mutex_unlock(&hist_lock);
	return 0;
}

/* ---- the object to watch ----------------------------------------------- */

struct reserve_req {
	int target;
	void *obj;
};

/*
 * Opens a reserve section on this CPU (interrupts off): false, and no
 * section, if @target is dead.  Pairs with dprof_history_cache_destroyed().
 */
static bool reserve_section_open(int target)
{
	atomic_set(&reserve_section, target + 1);
	/* reserve_section is seen before DEAD is read (a plain store) */
	smp_mb();
	if (READ_ONCE(dprof_targets[target].flags) & DPROF_TARGET_DEAD) {
		atomic_set_release(&reserve_section, 0);
		return false;
	}
	return true;
}

static void reserve_section_close(void)
{
	atomic_set_release(&reserve_section, 0);
}

/*
 * Runs on the chosen CPU.  Interrupts are off so that the hooks, which
 * ignore dprof's own allocations, cannot mistake another one for it,
 * and so that a destroy waiting for the section waits microseconds.
 */
static long reserve_fn(void *arg)
{
	struct reserve_req *req = arg;
	unsigned long flags;
	void *obj;

	local_irq_save(flags);
	if (reserve_section_open(req->target)) {
		/* Tests only: widen the window a destroy must not slip into. */
		if (unlikely(cfg.test_reserve_delay_ms))
			mdelay(cfg.test_reserve_delay_ms);
		this_cpu_write(dprof_self_alloc, 1);
		obj = kmem_cache_alloc(dprof_targets[req->target].cache,
				       GFP_NOWAIT | __GFP_NOWARN);
		this_cpu_write(dprof_self_alloc, 0);
		if (obj) {
			WRITE_ONCE(reserve_target, req->target);
			/* reserve_target before reserve: see ..._destroyed() */
			smp_store_release(&reserve, obj);
		}
		req->obj = obj;
		reserve_section_close();
	}
	local_irq_restore(flags);
	return 0;
}

/*
 * Frees the reserve on this CPU: its freelist hands it out next.  A
 * destroy may have taken it already (then the target is dead).
 */
static long release_fn(void *arg)
{
	int target = (long)arg;
	unsigned long flags;
	void *obj;

	local_irq_save(flags);
	if (reserve_section_open(target)) {
		obj = xchg(&reserve, NULL);
		if (obj) {
			this_cpu_write(dprof_self_alloc, 1);
			kmem_cache_free(dprof_targets[target].cache, obj);
			this_cpu_write(dprof_self_alloc, 0);
		}
		reserve_section_close();
	}
	local_irq_restore(flags);
	return 0;
}

/* The online CPU that allocated most target objects since the last arm. */
static unsigned int busiest_cpu(void)
{
	unsigned int cpu, best = raw_smp_processor_id();
	u64 best_n = 0;

	for_each_online_cpu(cpu) {
		u64 n = READ_ONCE(per_cpu(dprof_stats, cpu).allocs);
		u64 delta = n - per_cpu(prev_allocs, cpu);

		per_cpu(prev_allocs, cpu) = n;
		if (delta > best_n) {
			best_n = delta;
			best = cpu;
		}
	}
	return best;
}

/* ---- the collector thread ---------------------------------------------- */

static unsigned int next_target;
static u32 next_id = 1;

/* The watch's offsets from a plan item (NO_OFFSET pads the end). */
static void watch_set_offsets(const u16 *item)
{
	unsigned int i;

	for (i = 0; i < NR_WATCH_OFFSETS &&
	     item[i] != DPROF_HIST_NO_OFFSET; i++)
		watch.offset[i] = item[i];
	watch.nr_offsets = i;
}

static int pick_target(void)
{
	unsigned int i;

	for (i = 0; i < dprof_nr_targets; i++) {
		unsigned int t = (next_target + i) % dprof_nr_targets;

		/* A variable has no cache to reserve from: dprof_var_next(). */
		if (!(READ_ONCE(dprof_targets[t].flags) &
		      (DPROF_TARGET_DEAD | DPROF_TARGET_VAR)) &&
		    dprof_plan(t)->nr_items) {
			next_target = t + 1;
			return t;
		}
	}
	return -1;
}

/* An arm that began at @start succeeded: count its cost. */
static void count_arm(u64 start)
{
	start = get_cycles() - start;
	counters.arms++;
	counters.arm_cycles += start;
	counters.arm_max_cycles = max(counters.arm_max_cycles, start);
	if (!counters.first_arm_ns)
		counters.first_arm_ns = now_ns();
}

static void arm_next(void)
{
	struct hist_plan *p;
	struct reserve_req req;
	unsigned int cpu, item;
	u64 start;
	int target = pick_target(), ret;
	u32 id;

	if (target < 0)
		return;
	p = dprof_plan(target);
	item = dprof_plan_next(p);
	cpus_read_lock();
	cpu = busiest_cpu();
	req.target = target;
	req.obj = NULL;
	work_on_cpu(cpu, reserve_fn, &req);
	if (!req.obj) {
		counters.reserve_failed++;
		goto out;
	}
	id = next_id++;
	watch.addr = (unsigned long)req.obj;
	watch.target = target;
	watch.plan_item = item;
	watch_set_offsets(p->items[item]);
	watch.cpus_changed = false;
	watch.end_reason = 0;
	watch.window = false;
	watch.var = false;
	atomic_long_set_release(&watch.word, make_word(id, W_ARMING));

	start = get_cycles();
	mutex_lock(&hist_lock);
	ret = arm_all();
	mutex_unlock(&hist_lock);
	if (ret) {
		if (ret == -ENOSPC)
			counters.nospc++;
		work_on_cpu(cpu, release_fn, (void *)(long)target);
		atomic_long_set_release(&watch.word, make_word(id, W_IDLE));
		watch.addr = 0;
		goto out;
	}
	count_arm(start);
	watch.deadline_ns = now_ns() + (u64)cfg.wait_ms * NSEC_PER_MSEC;
	atomic_long_set_release(&watch.word, make_word(id, W_WAITING));
	/* Free it where it was allocated: the next allocation there is it. */
	work_on_cpu(cpu, release_fn, (void *)(long)target);
out:
	cpus_read_unlock();
}

static void window_missed(struct hist_plan *p)
{
	p->window_backoff = clamp(p->window_backoff * 2, 1U, 64U);
	p->window_skip = p->window_backoff;
}

/*
 * Arms the published watch @id on every CPU, counting the cost; on
 * failure the watch is IDLE again.  0 or -errno.
 */
static int arm_counted(u32 id)
{
	u64 start = get_cycles();
	int ret;

	cpus_read_lock();
	mutex_lock(&hist_lock);
	ret = arm_all();
	mutex_unlock(&hist_lock);
	cpus_read_unlock();
	if (ret) {
		if (ret == -ENOSPC)
			counters.nospc++;
		watch.addr = 0;
		atomic_long_set_release(&watch.word, make_word(id, W_IDLE));
		return ret;
	}
	count_arm(start);
	return 0;
}

/* Opens a sample window; false if it did not take the registers. */
static bool arm_window(void)
{
	struct dprof_resolved r;
	struct hist_plan *p;
	unsigned long base;
	unsigned int item;
	u32 id;

	if (!dprof_liveset_pick(&base) ||
	    dprof_resolve(base, &r) || r.base != base ||
	    (READ_ONCE(dprof_targets[r.target].flags) & DPROF_TARGET_DEAD) ||
	    dprof_plan_ensure(r.target) || !dprof_plan(r.target)->nr_items) {
		counters.windows_no_object++;
		return false;
	}
	p = dprof_plan(r.target);
	/*
	 * Objects that die before the registers are armed (skbuffs live
	 * microseconds, an arm takes milliseconds) would make every window
	 * an arm for nothing: after each miss, skip twice as many turns
	 * (up to 64) for this type; an opened window resets it.
	 */
	if (p->window_skip) {
		p->window_skip--;
		counters.windows_skipped++;
		return false;
	}
	item = dprof_plan_next_window(p);
	id = next_id++;
	watch.window = true;
	watch.var = false;
	watch.addr = base;
	watch.target = r.target;
	watch.plan_item = item;
	watch_set_offsets(p->items[item]);
	watch.cpus_changed = false;
	watch.end_reason = 0;
	watch.cut_ns = 0;
	watch.watched_ns = 0;
	watch.cut = false;
	atomic_long_set_release(&watch.word, make_word(id, W_ARMING));
	/* Publish the window before checking that the object still lives. */
	smp_mb();
	if (!dprof_liveset_contains(base)) {
		counters.windows_missed++;
		window_missed(p);
		watch.addr = 0;
		atomic_long_set_release(&watch.word, make_word(id, W_IDLE));
		return false;
	}
	if (arm_counted(id))
		return true;	/* the turn was taken */
	p->windows++;
	/* Before SAMPLING: no hit of this window goes uncounted. */
	watch.hits_at_open = atomic64_read(&window_hits);
	watch.counting = true;
	watch.open_ns = now_ns();
	watch.deadline_ns = watch.open_ns +
			    (u64)cfg.window_ms * NSEC_PER_MSEC;
	if (atomic_long_cmpxchg(&watch.word, make_word(id, W_ARMING),
				make_word(id, W_SAMPLING)) !=
	    make_word(id, W_ARMING)) {
		/* Freed while arming: ENDED, the next step disarms. */
		counters.windows_missed++;
		window_missed(p);
		watch.open_ns = 0;
	} else {
		p->window_backoff = 0;
	}
	return true;
}

/* A window ended (@cut: by the free of its object): credit its exposure. */
static void window_ended(bool cut)
{
	struct hist_plan *p = dprof_plan(watch.target);
	u64 end = cut ? READ_ONCE(watch.cut_ns) : now_ns();

	watch.watched_ns = 0;
	watch.cut = cut;
	if (!watch.open_ns)
		return;		/* never opened: counted as missed */
	if (cut)
		counters.windows_cut++;
	else
		counters.windows_full++;
	if (!watch.cpus_changed && watch.plan_item < p->nr_items &&
	    end > watch.open_ns)
		p->exposure_ns[watch.plan_item] += end - watch.open_ns;
	if (end > watch.open_ns)
		watch.watched_ns = end - watch.open_ns;
	watch.open_ns = 0;
}

static void disarm(void)
{
	unsigned long word = atomic_long_read(&watch.word);
	u64 start = get_cycles();
	struct hist_plan *p = dprof_plan(watch.target);

	cpus_read_lock();
	mutex_lock(&hist_lock);
	disarm_all();
	mutex_unlock(&hist_lock);
	cpus_read_unlock();
	counters.disarms++;
	counters.disarm_cycles += get_cycles() - start;
	if (watch.window && watch.counting) {
		/* Disarmed everywhere: no hit of this window is still to come. */
		u64 y = atomic64_read(&window_hits) - watch.hits_at_open;

		WRITE_ONCE(p->window_samples, p->window_samples + y);
		WRITE_ONCE(p->window_samples_sq, p->window_samples_sq + y * y);
		watch.counting = false;
		trace_dprof_window(watch.target, watch.addr, watch.offset,
				   watch.nr_offsets, watch.watched_ns, y,
				   watch.cut);
	}
	if (watch.end_reason) {
		counters.ends[watch.end_reason]++;
		if ((watch.end_reason == DPROF_HIST_FREED ||
		     watch.end_reason == DPROF_HIST_WINDOW) &&
		    !watch.cpus_changed && watch.plan_item < p->nr_items)
			p->done[watch.plan_item]++;
	}
	watch.addr = 0;
	atomic_long_set_release(&watch.word,
				make_word(word_id(word), W_IDLE));
}

/*
 * watch_symbols=: watch a variable for sample_window_ms, as a history
 * that begins now (a BEGIN record without a call site) and ends with
 * DPROF_HIST_WINDOW.  False if nothing was armed.
 */
static bool arm_variable(void)
{
	int target = dprof_var_next();
	struct hist_plan *p;
	unsigned int item;
	u32 id;

	if (target < 0 || dprof_plan_ensure(target) || !dprof_plan(target)->nr_items)
		return false;
	p = dprof_plan(target);
	item = dprof_plan_next(p);
	id = next_id++;
	watch.addr = dprof_targets[target].var_addr;
	watch.target = target;
	watch.plan_item = item;
	watch_set_offsets(p->items[item]);
	watch.cpus_changed = false;
	watch.end_reason = 0;
	watch.window = false;
	watch.var = true;
	atomic_long_set_release(&watch.word, make_word(id, W_ARMING));
	if (arm_counted(id))
		return true;	/* the turn was taken */
	counters.var_watches++;
	/* The deadline before ACTIVE: the collector reads it then. */
	watch.deadline_ns = now_ns() + (u64)cfg.window_ms * NSEC_PER_MSEC;
	/* As an allocation would, with the collector as the "allocator". */
	begin_history(id, target, watch.addr, 0);
	return true;
}

static bool next_is_window;
static bool next_is_var;

static void collector_step(unsigned int *arms_this_second)
{
	unsigned long word = atomic_long_read(&watch.word);
	u64 now = now_ns();
	bool dead = READ_ONCE(dprof_targets[watch.target].flags) &
		    DPROF_TARGET_DEAD;
	bool window;

	switch (word_state(word)) {
	case W_IDLE:
		if (!watching() || !READ_ONCE(dprof_enabled) ||
		    *arms_this_second >= cfg.max_arms)
			break;
		(*arms_this_second)++;
		/* Variables take every other turn; the rest as before. */
		next_is_var = !next_is_var;
		if (cfg.variables && next_is_var && arm_variable())
			break;
		if (!cfg.enabled && !cfg.windows)
			break;
		/* Histories and windows take turns at the registers. */
		window = cfg.windows && (!cfg.enabled || next_is_window);
		next_is_window = !window;
		/* A window that did not arm leaves the turn to a history. */
		if (!window || (!arm_window() && cfg.enabled))
			arm_next();
		break;
	case W_SAMPLING:
		if (now < watch.deadline_ns && !dead)
			break;
		if (atomic_long_cmpxchg(&watch.word, word,
					make_word(word_id(word), W_ENDED)) != word)
			break;	/* the free hook ended it first */
		window_ended(false);
		disarm();
		break;
	case W_WAITING:
		if (now < watch.deadline_ns && !dead)
			break;
		if (atomic_long_cmpxchg(&watch.word, word,
					make_word(word_id(word), W_ENDED)) != word)
			break;
		counters.expired++;
		disarm();
		break;
	case W_ACTIVE:
		if (watch.var) {
			if (now < watch.deadline_ns && !dead)
				break;
			if (end_history(dead ? DPROF_HIST_UNLOAD :
					DPROF_HIST_WINDOW, 0))
				disarm();
			break;
		}
		if (now - READ_ONCE(watch.alloc_ns) <
		    (u64)cfg.timeout_ms * NSEC_PER_MSEC && !dead)
			break;
		if (end_history(dead ? DPROF_HIST_UNLOAD : DPROF_HIST_TIMEOUT,
				0))
			disarm();
		break;
	case W_ENDED:
		if (watch.window)
			window_ended(true);
		disarm();
		break;
	default:	/* CLAIMING, ENDING: a hook is in the middle of it */
		break;
	}
}

static void collector_finish(void)
{
	unsigned long word = atomic_long_read(&watch.word);

	switch (word_state(word)) {
	case W_ACTIVE:
		end_history(DPROF_HIST_UNLOAD, 0);
		break;
	case W_WAITING:
	case W_SAMPLING:
		atomic_long_set(&watch.word, make_word(word_id(word), W_ENDED));
		break;
	default:
		break;
	}
	if (word_state(atomic_long_read(&watch.word)) != W_IDLE)
		disarm();
}

static int collector(void *unused)
{
	unsigned int arms_this_second = 0;
	u64 window = now_ns();

	while (!kthread_should_stop()) {
		wait_event_interruptible_timeout(thread_wq,
						 READ_ONCE(thread_kick) ||
						 kthread_should_stop(),
						 msecs_to_jiffies(5));
		WRITE_ONCE(thread_kick, false);
		if (now_ns() - window >= NSEC_PER_SEC) {
			window = now_ns();
			arms_this_second = 0;
			atomic_set(&hits_window, 0);
		}
		collector_step(&arms_this_second);
	}
	collector_finish();
	return 0;
}

/* ---- set-up ------------------------------------------------------------ */

/* How many debug registers can dprof hold on every CPU right now? */
static unsigned int probe_slots(void)
{
	static u64 probe_target;
	unsigned int n;
	int ret = 0;

	cpus_read_lock();
	mutex_lock(&hist_lock);
	watch.addr = (unsigned long)&probe_target;
	memset(watch.offset, 0, sizeof(watch.offset));
	for (n = MAX_BPS / bps_per_offset; n > 0; n--) {
		watch.nr_offsets = n;
		ret = arm_all();
		disarm_all();
		if (!ret)
			break;
	}
	watch.addr = 0;
	mutex_unlock(&hist_lock);
	cpus_read_unlock();
	if (ret && ret != -ENOSPC)
		pr_warn("debug registers unavailable (%d)\n", ret);
	return n * bps_per_offset;
}

#define QUARANTINE_NOTE \
	"histories: KASAN's quarantine (CONFIG_KASAN_GENERIC) holds freed objects back, so the object freed to be watched is seldom allocated again within history_wait_ms; expect few histories on this kernel"

int dprof_history_init(const struct dprof_history_config *config)
{
	unsigned int i;
	int ret;

	cfg = *config;
	atomic_long_set(&watch.word, make_word(0, W_IDLE));
	if (!watching())
		return 0;
	bps_per_offset = cfg.split_rw ? 2 : 1;
	slots = probe_slots();
	offsets_per_watch = slots / bps_per_offset;
	if (!offsets_per_watch) {
		pr_warn("no free debug registers: object access histories and sample windows off\n");
		return 0;
	}
	if (cfg.enabled && DPROF_FREE_QUARANTINE)
		pr_warn("%s\n", QUARANTINE_NOTE);
	dprof_plans_init(cfg.len, cfg.offsets, cfg.pairs, offsets_per_watch);
	/* Named caches: bad history_offsets fail the load, not later. */
	for (i = 0; i < dprof_nr_targets && !dprof_target_all; i++) {
		ret = dprof_plan_ensure(i);
		if (ret)
			goto err_plans;
	}
	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "dprof/history",
					hist_cpu_online, hist_cpu_offline);
	if (ret < 0)
		goto err_plans;
	hotplug_state = ret;
	thread = kthread_run(collector, NULL, "dprof-history");
	if (IS_ERR(thread)) {
		ret = PTR_ERR(thread);
		thread = NULL;
		goto err_hotplug;
	}
	return 0;

err_hotplug:
	cpuhp_remove_state_nocalls(hotplug_state);
	hotplug_state = -1;
err_plans:
	dprof_plans_free();
	return ret;
}

void dprof_history_exit(void)
{
	if (thread)
		kthread_stop(thread);	/* ends and disarms the watch */
	thread = NULL;
	irq_work_sync(&kick_work);
	if (hotplug_state >= 0)
		cpuhp_remove_state_nocalls(hotplug_state);
	hotplug_state = -1;
	if (reserve)
		pr_warn("watched object still held at exit\n");
	dprof_plans_free();
}

/* After the hooks are gone: no kick may run once the module is freed. */
void dprof_history_sync(void)
{
	irq_work_sync(&kick_work);
}

/* ---- reporting --------------------------------------------------------- */

bool dprof_history_tells_writes(void)
{
	return bps_per_offset > 1;
}

void dprof_history_windows(unsigned int target, struct dprof_window_sums *w)
{
	memset(w, 0, sizeof(*w));
	if (!dprof_plan_built(target))
		return;
	w->windows = READ_ONCE(dprof_plan(target)->windows);
	w->samples = READ_ONCE(dprof_plan(target)->window_samples);
	w->samples_sq = READ_ONCE(dprof_plan(target)->window_samples_sq);
}

void dprof_history_moves(unsigned int target, u64 *moved, u64 *histories)
{
	*moved = atomic64_read(&target_moved[target]);
	*histories = atomic64_read(&target_histories[target]);
}

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
	u64 total = 0;

	for (i = 0; i < p->nr_items; i++) {
		covered += p->done[i] > 0;
		rounds = min(rounds, p->done[i]);
		total += p->done[i];
	}
	if (!p->nr_items)
		rounds = 0;
	seq_printf(m, "  [%u] %s: %u offsets watched, %u groups of up to %u per round (%s); complete histories %llu, rounds complete %u, groups covered %u/%u\n",
		   t, dprof_targets[t].name, p->nr_members, p->nr_items,
		   offsets_per_watch,
		   cfg.pairs && offsets_per_watch > 1 ?
		   "every pair watched together" : "each offset once",
		   total, rounds, covered, p->nr_items);
	if (cfg.windows && p->nr_items) {
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
	unsigned long word = atomic_long_read(&watch.word);
	const struct hist_counters *c = &counters;
	u64 elapsed = c->first_arm_ns ? now_ns() - c->first_arm_ns : 0;
	struct dprof_cpu_stats sum = {};
	const struct dprof_cost *hit = &sum.cost[DPROF_HOOK_BP_HIT];
	u64 per_k = dprof_ticks_per_kinsn();
	unsigned int t;
	int cpu;

	if (!watching()) {
		seq_puts(m, "histories: off (history=0)\n");
		return;
	}
	if (!offsets_per_watch) {
		seq_puts(m, "histories: off: no free debug registers (gdb, perf or ptrace hold them)\n");
		return;
	}
	for_each_possible_cpu(cpu)
		dprof_stats_sum(&sum, cpu);
	if (cfg.enabled)
		seq_printf(m, "histories: %s, watch %u, %llu complete in %llu.%03llu s\n",
			   state_names[word_state(word)], word_id(word),
			   c->ends[DPROF_HIST_FREED], elapsed / NSEC_PER_SEC,
			   (elapsed % NSEC_PER_SEC) / NSEC_PER_MSEC);
	else
		seq_printf(m, "histories: off (history=0); registers %s, watch %u\n",
			   state_names[word_state(word)], word_id(word));
	if (cfg.enabled && DPROF_FREE_QUARANTINE)
		seq_printf(m, "  %s\n", QUARANTINE_NOTE);
	if (cfg.windows)
		seq_printf(m, "sample windows: %llu full, %llu cut short by a free, %llu missed (freed before armed), %llu found no live object, %llu turns skipped after misses; %llu samples; sample_window_ms=%u%s\n",
			   c->windows_full, c->windows_cut, c->windows_missed,
			   c->windows_no_object, c->windows_skipped,
			   (u64)atomic64_read(&window_hits), cfg.window_ms,
			   cfg.enabled ? ", taking turns with histories" : "");
	seq_printf(m, "  debug registers: %u of 4 (%u offset%s per object, %s), length %u\n",
		   slots, offsets_per_watch, offsets_per_watch > 1 ? "s" : "",
		   bps_per_offset > 1 ?
		   "write + read/write breakpoint each" :
		   "one read/write breakpoint each: the kind comes from the instruction",
		   cfg.len);
	seq_printf(m, "  limits: history_max_arms=%u/s history_max_hits=%u/s history_timeout_ms=%u history_wait_ms=%u, 1 object watched at a time\n",
		   cfg.max_arms, cfg.max_hits, cfg.timeout_ms, cfg.wait_ms);
	seq_printf(m, "  costs: hit handler %llu cycles avg (%llu max, %llu hits), arm %llu cycles avg (%llu max, %llu arms), disarm %llu cycles avg (%llu disarms)\n",
		   hit->calls ? div64_u64(hit->cycles, hit->calls) : 0,
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
	if (cfg.variables)
		seq_printf(m, "variable watches: %llu opened, %llu complete (sample_window_ms=%u each, every other turn)\n",
			   c->var_watches, c->ends[DPROF_HIST_WINDOW],
			   cfg.window_ms);
	seq_printf(m, "  ends: freed %llu, timeout %llu, unload %llu; not reallocated in time %llu; reserve failed %llu; registers busy %llu\n",
		   c->ends[DPROF_HIST_FREED], c->ends[DPROF_HIST_TIMEOUT],
		   c->ends[DPROF_HIST_UNLOAD], c->expired, c->reserve_failed,
		   c->nospc);
	seq_printf(m, "  reserve: %s, %s; %llu given back by kmem_cache_destroy()\n",
		   READ_ONCE(reserve) ? "held" : "none",
		   atomic_read(&reserve_section) ? "in a section" :
		   "no section",
		   (u64)atomic64_read(&reserve_destroyed));
	seq_printf(m, "  hits: %llu recorded (%llu in sample windows), %llu dropped by history_max_hits, %llu outside a life or window, %llu ip out of range\n",
		   hit->hits, (u64)atomic64_read(&window_hits),
		   (u64)atomic64_read(&hits_rate_dropped),
		   (u64)atomic64_read(&hits_outside_life),
		   (u64)atomic64_read(&ip_out_of_range));
	if (brief)
		return;
	seq_puts(m, "coverage:\n");
	for (t = 0; t < dprof_nr_targets; t++)
		if (dprof_plan_built(t))
			show_plan(m, t);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Object access histories with debug registers (thesis 5.3): every access
 * to a few watched offsets of one target object, from allocation to free,
 * on every watched CPU.
 *
 * Why the object is chosen at its allocation.  Arming a breakpoint on
 * every CPU through perf takes process context and IPIs (milliseconds
 * under TCG); an skbuff lives ~50 us.  So the breakpoints are made once
 * and kept ("parked", watch.c; design.rst, "Objects chosen at
 * allocation"), and the collector opens a gate: the next allocation of
 * the chosen type claims it, points this CPU's registers at the object
 * before the object reaches its caller and the other CPUs' by an
 * asynchronous IPI.  The free hook closes the history.  dprof never
 * allocates or frees an object of a cache it does not own.
 *
 * One read/write breakpoint per offset: x86 cannot trap reads alone, and
 * record decodes the kind of each access from the instruction at the trap
 * (BEGIN carries DPROF_HIST_RW_UNSURE to say so).
 *
 * The life of a watch (one at a time; x86 has four debug registers):
 *   IDLE -> ARMING -> WAITING (collector: published, the type's gate open)
 *   WAITING -> CLAIMING -> ACTIVE (alloc hook: the gate's allocation)
 *   ACTIVE -> ENDING -> ENDED (free hook; or collector on timeout/unload)
 *   WAITING -> ENDED (collector: no allocation within history_wait_ms)
 *   ENDED -> IDLE (collector, after every register is parked again)
 * The state and the history id share one word, so a handler that sees
 * ACTIVE also sees which history it belongs to; hits in any other state
 * are dropped and counted.
 *
 * Sample windows (window.c) use the same registers and states; the
 * collector (collector.c) takes turns between them, histories and
 * variables, and watch.c points the registers of every CPU.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/seq_file.h>
#include "uapi/dprof.h"
#include "watch.h"
#include "dprof_trace.h"
#include "plan.h"
#include "target.h"
#include "ring.h"
#include "stats.h"
#include "sample.h"
#include "symbols.h"

static unsigned int next_target;

/* ---- #DB context ------------------------------------------------------- */

/* An access to the history's object: its element, and a sample. */
void dprof_history_hit(unsigned long word, unsigned int w,
		       struct pt_regs *regs, u64 when)
{
	struct watch *wa = &dprof_watch;
	struct dprof_hist_elem el;
	u64 since;

	/* Stamped before the state was read: an earlier stamp is pre-alloc. */
	since = when - READ_ONCE(wa->alloc_ns);
	if ((s64)since < 0) {
		atomic64_inc(&dprof_watch_hits.outside_life);
		return;
	}
	if (atomic_inc_return(&dprof_watch_hits.this_second) >
	    dprof_watch_cfg.max_hits) {
		atomic_inc(&wa->dropped);
		atomic64_inc(&dprof_watch_hits.rate_dropped);
		return;
	}
	el.kind = DPROF_REC_HIST_ELEM;
	el.reserved = 0;
	el.size = sizeof(el);
	el.cpu = smp_processor_id();
	/* No DPROF_ELEM_WRITE: record decodes the kind from the ip. */
	el.tag = (word_id(word) & DPROF_ELEM_ID_MASK) | DPROF_ELEM_WATCH(w);
	if (regs->ip >> 31 == (~0UL >> 31)) {
		el.ip_lo = (u32)regs->ip;
	} else {
		el.ip_lo = 0;
		atomic64_inc(&dprof_watch_hits.ip_out_of_range);
	}
	el.time_ns = min_t(u64, since, U32_MAX);
	atomic_inc(&wa->elements);
	trace_dprof_hist_elem(word_id(word), READ_ONCE(wa->addr),
			      wa->offset[w], regs->ip, false, el.time_ns);
	dprof_ring_write(&el, sizeof(el));
	if (el.cpu != READ_ONCE(wa->alloc_cpu))
		WRITE_ONCE(wa->moved, true);
	dprof_sample_watch(wa->target, wa->offset[w], regs->ip, false);
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

	dprof_watch.alloc_ns = watch_now_ns();
	dprof_watch.alloc_cpu = raw_smp_processor_id();
	dprof_watch.moved = false;
	atomic_set(&dprof_watch.elements, 0);
	atomic_set(&dprof_watch.dropped, 0);
	memset(&b, 0, sizeof(b));
	b.hdr.kind = DPROF_REC_HIST_BEGIN;
	b.hdr.size = sizeof(b);
	b.hdr.cpu = dprof_watch.alloc_cpu;
	b.hdr.target = target;
	/* The breakpoints do not tell reads from writes: record decodes. */
	b.hdr.flags = DPROF_HIST_RW_UNSURE;
	b.time_ns = dprof_watch.alloc_ns;
	b.addr = base;
	b.call_site = call_site;
	b.id = id;
	for (i = 0; i < NR_WATCH_OFFSETS; i++)
		b.offset[i] = i < dprof_watch.nr_offsets ?
			      dprof_watch.offset[i] : DPROF_HIST_NO_OFFSET;
	b.len = dprof_watch_cfg.len;
	b.nr_offsets = dprof_watch.nr_offsets;
	b.plan_item = dprof_watch.plan_item;
	/* BEGIN precedes every element of this history in this CPU's ring. */
	dprof_ring_write(&b, sizeof(b));
	smp_wmb();	/* alloc_ns before ACTIVE */
	atomic_long_set(&dprof_watch.word, make_word(id, W_ACTIVE));
}

/*
 * The pick gate matched this allocation (watch.h).  Through the "any"
 * gate it only names the type that allocated; through a type's gate the
 * object becomes the watched one: the watch takes its address, this
 * CPU's registers are armed before the object reaches its caller, the
 * other CPUs' at their next interrupt, and the history (or the sample
 * window, window.c) begins.
 */
void dprof_history_picked(int target, unsigned long base,
			  unsigned long call_site)
{
	unsigned long word;

	if (READ_ONCE(dprof_pick) == DPROF_PICK_ANY) {
		dprof_pick_name(target);
		return;
	}
	word = atomic_long_read(&dprof_watch.word);
	if (word_state(word) != W_WAITING || READ_ONCE(dprof_watch.addr) ||
	    target != READ_ONCE(dprof_watch.target))
		return;
	/* history_cpus= chooses where histories start; windows go anywhere. */
	if (!READ_ONCE(dprof_watch.window) &&
	    !cpumask_test_cpu(raw_smp_processor_id(),
			      &dprof_watch_cfg.pick_cpus))
		return;
	if (atomic_long_cmpxchg(&dprof_watch.word, word,
				make_word(word_id(word), W_CLAIMING)) != word)
		return;
	WRITE_ONCE(dprof_pick, DPROF_PICK_CLOSED);
	WRITE_ONCE(dprof_watch.addr, base);
	dprof_watch_arm_here();
	if (dprof_watch.window)
		dprof_window_claimed(word, base);
	else
		begin_history(word_id(word), target, base, call_site);
}

static void emit_end(unsigned long word, u8 reason, unsigned long call_site)
{
	struct dprof_hist_end e;

	memset(&e, 0, sizeof(e));
	e.hdr.kind = DPROF_REC_HIST_END;
	e.hdr.size = sizeof(e);
	e.hdr.cpu = raw_smp_processor_id();
	e.hdr.target = dprof_watch.target;
	e.hdr.flags = (READ_ONCE(dprof_watch.cpus_changed) ?
		       DPROF_HIST_CPUS_CHANGED : 0) |
		      (atomic_read(&dprof_watch.dropped) ?
		       DPROF_HIST_TRUNCATED : 0);
	e.time_ns = watch_now_ns();
	e.call_site = call_site;
	e.id = word_id(word);
	e.elements = atomic_read(&dprof_watch.elements);
	e.dropped = atomic_read(&dprof_watch.dropped);
	e.reason = reason;
	dprof_watch.end_reason = reason;
	dprof_ring_write(&e, sizeof(e));
	if (reason == DPROF_HIST_FREED)
		dprof_target_history_done(dprof_watch.target,
					  READ_ONCE(dprof_watch.moved) ||
					  e.hdr.cpu != dprof_watch.alloc_cpu);
}

/* Ends the active history; false if it was not active. */
bool dprof_history_end(u8 reason, unsigned long call_site)
{
	unsigned long word = atomic_long_read(&dprof_watch.word);

	if (word_state(word) != W_ACTIVE)
		return false;
	/* From here on no hit is attributed to the history. */
	if (atomic_long_cmpxchg(&dprof_watch.word, word,
				make_word(word_id(word), W_ENDING)) != word)
		return false;
	emit_end(word, reason, call_site);
	atomic_long_set_release(&dprof_watch.word,
				make_word(word_id(word), W_ENDED));
	return true;
}

void dprof_history_freed(int target, unsigned long base,
			 unsigned long call_site)
{
	if (READ_ONCE(dprof_watch.window)) {
		/* A young window's object may be untracked: end it here. */
		dprof_window_freed(base);
		return;
	}
	if (base == READ_ONCE(dprof_watch.addr) &&
	    target == READ_ONCE(dprof_watch.target) &&
	    dprof_history_end(DPROF_HIST_FREED, call_site))
		dprof_watch_kick();
}

static int pick_target(void)
{
	unsigned int i;

	for (i = 0; i < dprof_nr_targets; i++) {
		unsigned int t = (next_target + i) % dprof_nr_targets;

		/* A variable is never allocated: dprof_var_next(). */
		if (!(READ_ONCE(dprof_targets[t].flags) &
		      (DPROF_TARGET_DEAD | DPROF_TARGET_VAR)) &&
		    dprof_plan(t)->nr_items) {
			next_target = t + 1;
			return t;
		}
	}
	return -1;
}

/*
 * Parked breakpoints (design.rst, "Objects chosen at allocation"): open
 * the gate for the next allocation of a target.  Named targets take
 * turns; under target=all a type is drawn (dprof_pick_take_name(): the
 * "any" gate names one and the turn after opens that type's gate, or,
 * with pick_types=spread, rate or sqrt, from the allocation counters).
 */
void dprof_history_arm_next(void)
{
	struct hist_plan *p;
	unsigned int item;
	int target;
	u32 id;

	if (dprof_target_all) {
		target = dprof_pick_take_name();
		if (target < 0)
			return;
		dprof_plan_count_alloc_draw(target);
		if (READ_ONCE(dprof_targets[target].flags) &
		    (DPROF_TARGET_DEAD | DPROF_TARGET_VAR) ||
		    dprof_plan_ensure(target) || !dprof_plan(target)->nr_items)
			return;
	} else {
		target = pick_target();
		if (target < 0)
			return;
	}
	p = dprof_plan(target);
	item = dprof_plan_next(p);
	id = dprof_watch_next_id();
	dprof_watch_publish(id, WATCH_HISTORY, target, 0, item,
			    p->items[item]);
	dprof_watch.deadline_ns = watch_now_ns() +
		(u64)dprof_watch_cfg.wait_ms * NSEC_PER_MSEC;
	atomic_long_set_release(&dprof_watch.word, make_word(id, W_WAITING));
	dprof_pick_open(target);
}

/*
 * watch_symbols=: watch a variable for sample_window_ms, as a history
 * that begins now (a BEGIN record without a call site) and ends with
 * DPROF_HIST_WINDOW.  False if nothing was armed.
 */
bool dprof_history_arm_variable(void)
{
	int target = dprof_var_next();
	struct hist_plan *p;
	unsigned int item;
	int ret;
	u32 id;

	if (target < 0 || dprof_plan_ensure(target) ||
	    !dprof_plan(target)->nr_items)
		return false;
	p = dprof_plan(target);
	item = dprof_plan_next(p);
	id = dprof_watch_next_id();
	dprof_watch_publish(id, WATCH_VARIABLE, target,
			    dprof_targets[target].var_addr, item,
			    p->items[item]);
	cpus_read_lock();
	ret = dprof_watch_arm(id);
	cpus_read_unlock();
	if (ret)
		return true;	/* the turn was taken */
	dprof_watch_stats.var_watches++;
	/* The deadline before ACTIVE: the collector reads it then. */
	dprof_watch.deadline_ns = watch_now_ns() +
		(u64)dprof_watch_cfg.window_ms * NSEC_PER_MSEC;
	/* As an allocation would, with the collector as the "allocator". */
	begin_history(id, target, dprof_watch.addr, 0);
	return true;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Object access histories with debug registers (thesis 5.3): every access
 * to one or two watched offsets of one target object, from allocation to
 * free, on every CPU.
 *
 * With history_pick=1 (the default) the object is instead the next
 * allocation of its type, claimed through the pick gate and armed in the
 * allocation hook on parked breakpoints (watch.c; design.rst, "Objects
 * chosen at allocation"); the life below is the same from ACTIVE on, and
 * WAITING means the gate is open.  What follows is history_pick=0's way.
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
 * Sample windows (window.c) use the same registers and states; the
 * collector (collector.c) takes turns between them, histories and
 * variables, and dprof_watch.c arms whichever it chose on every CPU.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/cpu.h>
#include <linux/irqflags.h>
#include <linux/workqueue.h>
#include <linux/slab.h>
#include <linux/seq_file.h>
#include "uapi/dprof.h"
#include "watch.h"
#include "dprof_trace.h"
#include "plan.h"
#include "target.h"
#include "ring.h"
#include "stats.h"
#include "history.h"
#include "sample.h"
#include "symbols.h"

DEFINE_PER_CPU(int, dprof_self_alloc);
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
static unsigned int next_target;

/* ---- #DB context ------------------------------------------------------- */

/* An access to the history's object: its element, and a sample. */
void dprof_history_hit(unsigned long word, unsigned int w, bool write,
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
	el.tag = (word_id(word) & DPROF_ELEM_ID_MASK) |
		 DPROF_ELEM_WATCH(w) |
		 (write ? DPROF_ELEM_WRITE : 0);
	if (regs->ip >> 31 == (~0UL >> 31)) {
		el.ip_lo = (u32)regs->ip;
	} else {
		el.ip_lo = 0;
		atomic64_inc(&dprof_watch_hits.ip_out_of_range);
	}
	el.time_ns = min_t(u64, since, U32_MAX);
	atomic_inc(&wa->elements);
	trace_dprof_hist_elem(word_id(word), READ_ONCE(wa->addr),
			      wa->offset[w], regs->ip, write, el.time_ns);
	dprof_ring_write(&el, sizeof(el));
	if (el.cpu != READ_ONCE(wa->alloc_cpu))
		WRITE_ONCE(wa->moved, true);
	dprof_sample_watch(wa->target, wa->offset[w], regs->ip,
			   dprof_watch_bps_per_offset > 1, write, false);
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
	b.hdr.flags = dprof_watch.rw_unsure ? DPROF_HIST_RW_UNSURE : 0;
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

void dprof_history_claim(int target, unsigned long base,
			 unsigned long call_site)
{
	unsigned long word = atomic_long_read(&dprof_watch.word);

	if (base != READ_ONCE(dprof_watch.addr) ||
	    word_state(word) != W_WAITING ||
	    target != READ_ONCE(dprof_watch.target))
		return;
	if (atomic_long_cmpxchg(&dprof_watch.word, word,
				make_word(word_id(word), W_CLAIMING)) != word)
		return;
	begin_history(word_id(word), target, base, call_site);
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
		if (unlikely(dprof_watch_cfg.test_reserve_delay_ms))
			mdelay(dprof_watch_cfg.test_reserve_delay_ms);
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

/*
 * Reserves an object of the next target on the CPU that allocates most,
 * arms the registers on it, and frees it there: SLUB hands it out again
 * on that CPU's next allocation, which the allocation hook claims.
 */
/*
 * Parked breakpoints (design.rst, "Objects chosen at allocation"): open
 * the gate for the next allocation of a target.  Named targets take
 * turns; under target=all a type is drawn (dprof_pick_take_name(): the
 * "any" gate names one and the turn after opens that type's gate, or,
 * with pick_types=spread, rate or sqrt, from the allocation counters).
 */
static void pick_next(void)
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

void dprof_history_arm_next(void)
{
	struct hist_plan *p;
	struct reserve_req req;
	unsigned int cpu, item;
	int target;
	u32 id;

	if (dprof_watch_parked) {
		pick_next();
		return;
	}
	target = pick_target();
	if (target < 0)
		return;
	p = dprof_plan(target);
	item = dprof_plan_next(p);
	/* The CPU stays online until its reserve is freed. */
	cpus_read_lock();
	cpu = busiest_cpu();
	req.target = target;
	req.obj = NULL;
	work_on_cpu(cpu, reserve_fn, &req);
	if (!req.obj) {
		dprof_watch_stats.reserve_failed++;
		goto out;
	}
	id = dprof_watch_next_id();
	dprof_watch_publish(id, WATCH_HISTORY, target,
			    (unsigned long)req.obj, item, p->items[item]);
	if (dprof_watch_arm(id)) {
		work_on_cpu(cpu, release_fn, (void *)(long)target);
		goto out;
	}
	dprof_watch.deadline_ns = watch_now_ns() +
		(u64)dprof_watch_cfg.wait_ms * NSEC_PER_MSEC;
	atomic_long_set_release(&dprof_watch.word, make_word(id, W_WAITING));
	/* Free it where it was allocated: the next allocation there is it. */
	work_on_cpu(cpu, release_fn, (void *)(long)target);
out:
	cpus_read_unlock();
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

bool dprof_history_holds_reserve(void)
{
	return READ_ONCE(reserve);
}

void dprof_history_show_reserve(struct seq_file *m)
{
	seq_printf(m, "  reserve: %s, %s; %llu given back by kmem_cache_destroy()\n",
		   READ_ONCE(reserve) ? "held" : "none",
		   atomic_read(&reserve_section) ? "in a section" :
		   "no section",
		   (u64)atomic64_read(&reserve_destroyed));
}

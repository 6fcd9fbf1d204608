/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one watched object and what the four files of the debug-register
 * machinery share (the design is at the top of history.c).  Calls go one
 * way, down this list:
 *
 *   collector.c  the thread that takes turns between histories, windows
 *                and variables; the #DB handler; set-up and the report
 *   history.c    the life of a history: the object picked at its
 *                allocation, BEGIN, elements, END
 *   window.c     sample windows on live objects (the watch sampler)
 *   watch.c      the watch's word, its registers on every CPU and their
 *                cost, CPU hotplug, and the kick that wakes the collector
 *   pick.c       the pick gate: which allocation a watch claims
 */
#ifndef DPROF_WATCH_H
#define DPROF_WATCH_H

#include <linux/atomic.h>
#include <linux/ktime.h>
#include <linux/perf_event.h>
#include "liveset.h"
#include "watch_config.h"

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

/* What the collector arms the registers for. */
enum watch_kind {
	WATCH_HISTORY,		/* an object from its allocation */
	WATCH_WINDOW,		/* a sample window on a live object */
	WATCH_VARIABLE,		/* a watch_symbols= variable */
};

/* The one watched object.  Fields are written before the state publishes them. */
struct watch {
	atomic_long_t word;	/* history id and enum watch_state */
	unsigned long addr;	/* object base; 0 when nothing is armed */
	int target;
	u16 offset[NR_WATCH_OFFSETS];
	unsigned int nr_offsets;
	u32 plan_item;
	bool cpus_changed;
	u64 alloc_ns;		/* set in CLAIMING, read once ACTIVE */
	u16 alloc_cpu;
	bool moved;		/* touched on a CPU other than alloc_cpu */
	u64 deadline_ns;	/* WAITING: give up after */
	u8 end_reason;
	atomic_t elements;
	atomic_t dropped;	/* by the hit-rate limit */
	bool window;		/* a sample window, not a history */
	bool young;		/* a window picked at allocation */
	bool var;		/* a history on a variable (watch_symbols=) */
	u64 open_ns;		/* SAMPLING since */
	u64 cut_ns;		/* when the free hook ended the window */
	bool counting;		/* window samples since hits_at_open */
	u64 hits_at_open;	/* window hits when the window opened */
	atomic_t slot_hits[NR_WATCH_OFFSETS];	/* this window's, per offset */
	u64 watched_ns;		/* how long the window was open */
	bool cut;		/* the window was ended by a free */
	u32 rho;		/* the draw's weight (window.c) */
	u32 rho_item;		/* the item draw's (plan.c) */
	bool in_use;		/* an old window drawn by its use */
};

/* Counters of the collector's work: written by its thread only, read racily. */
struct watch_stats {
	u64 arms, arm_cycles, arm_max_cycles;
	u64 disarms, disarm_cycles;
	u64 expired;		/* no allocation claimed the gate in wait_ms */
	u64 nospc;		/* debug registers held by someone else */
	u64 ends[DPROF_HIST_WINDOW + 1];
	u64 first_arm_ns;
	u64 windows_full;	/* ran for sample_window_ms */
	u64 windows_cut;	/* the object was freed while watched */
	u64 windows_missed;	/* freed before the window opened */
	u64 windows_no_object;	/* no live target object found */
	u64 windows_skipped;	/* turns skipped: the type's objects die first */
	u64 windows_young;	/* windows opened at an allocation */
	u64 windows_unclaimed;	/* type gates no allocation took in wait_ms */
	u64 windows_young_drawn; /* kept old objects gone when their turn came */
	u64 var_watches;	/* watches on variables (watch_symbols=) */
	u64 rests;		/* turns put off by watch_max_traps */
	u64 rest_ns;		/* the time they were put off by, in all */
};

/* Counters of the #DB handler. */
struct watch_hits {
	atomic64_t outside_life;	/* before alloc or after free */
	atomic64_t rate_dropped;	/* by history_max_hits */
	atomic64_t ip_out_of_range;
	atomic64_t window;		/* samples taken in windows */
	atomic64_t traps;		/* #DB handled, for watch_max_traps */
	/* offsets a rep string instruction went through untrapped (strop.h) */
	atomic64_t string_rest;
	atomic_t this_second;		/* elements, for history_max_hits */
};

extern struct watch dprof_watch;
extern struct dprof_history_config dprof_watch_cfg;
extern struct watch_stats dprof_watch_stats;
extern struct watch_hits dprof_watch_hits;

static inline u64 watch_now_ns(void)
{
	return ktime_get_mono_fast_ns();
}

/*
 * From the slab hooks, for target objects: the one watched address is
 * compared here, so that every other object costs the hook a load and a
 * compare instead of a call (some 20 instructions of each target alloc
 * and free under -icount).
 */
void dprof_history_picked(int target, unsigned long base,
			  unsigned long call_site);

/*
 * The pick gate (design.rst, "Objects chosen at allocation"): which
 * target's next allocation becomes the watched object, DPROF_PICK_ANY
 * for any target's (which only names the type), DPROF_PICK_CLOSED when
 * none.  Written by the collector and by the hook that claims it.
 */
#define DPROF_PICK_CLOSED	(-1)
#define DPROF_PICK_ANY		(-2)
extern int dprof_pick;

/* From every target allocation hook, before anything else. */
static inline void dprof_history_pick(int target, unsigned long base,
				      unsigned long call_site)
{
	int want = READ_ONCE(dprof_pick);

	if (unlikely(want != DPROF_PICK_CLOSED) &&
	    (want == target || want == DPROF_PICK_ANY))
		dprof_history_picked(target, base, call_site);
}

void dprof_history_freed(int target, unsigned long base,
			 unsigned long call_site);
void dprof_window_freed(unsigned long base);

/* The free hook runs before the object is freed. */
static inline void dprof_history_free(int target, unsigned long base,
				      unsigned long call_site)
{
	if (unlikely(base == READ_ONCE(dprof_watch.addr)))
		dprof_history_freed(target, base, call_site);
}

/*
 * Whether a hook must do anything for the object at @base of @target:
 * with sampled tracking most objects are neither in the live set nor the
 * watched one, and while the pick gate is closed nothing else in the
 * hooks concerns them.  So an untracked object costs a target's probe a
 * hash and two loads more than a non-target's, and no call.
 */
static inline bool dprof_alloc_wanted(int target, unsigned long base)
{
	return dprof_track_wanted(target, base) ||
	       unlikely(READ_ONCE(dprof_pick) != DPROF_PICK_CLOSED) ||
	       unlikely(base == READ_ONCE(dprof_watch.addr));
}

/* The same for a free: the oldest rule (a sweep may be under way). */
static inline bool dprof_free_wanted(int target, unsigned long base)
{
	return dprof_track_maybe(target, base) ||
	       unlikely(base == READ_ONCE(dprof_watch.addr));
}

/*
 * Before the cache lookup: false when no target outside the low set
 * could want the object at @base (see dprof_track_gate), so that most
 * calls cost neither the lookup nor, for kfree, the page; the caller
 * then asks dprof_track_low() of the cache, when it has it.
 */
static inline bool dprof_alloc_maybe(unsigned long base)
{
	return dprof_track_rule(base, READ_ONCE(dprof_track_gate)) ||
	       unlikely(READ_ONCE(dprof_pick) != DPROF_PICK_CLOSED) ||
	       unlikely(base == READ_ONCE(dprof_watch.addr));
}

static inline bool dprof_free_maybe(unsigned long base)
{
	return dprof_track_rule(base, READ_ONCE(dprof_track_gate)) ||
	       unlikely(base == READ_ONCE(dprof_watch.addr));
}

/*
 * After the object left the live set: the full barrier of its removal
 * orders that before this load (see window.c).
 */
static inline void dprof_window_free(unsigned long base)
{
	if (unlikely(base == READ_ONCE(dprof_watch.addr)))
		dprof_window_freed(base);
}

/* ---- watch.c ------------------------------------------------------------ */
/*
 * The registers' handler, and CPU hotplug: 0 or -errno.  Before any arm;
 * teardown after the last disarm.
 */
int dprof_watch_setup(perf_overflow_handler_t handler);
void dprof_watch_teardown(void);
/*
 * Keeps breakpoints on every watched CPU, retargeted from then on: as
 * many as watch_slots allows of the registers free now.  Returns how
 * many, one watched offset each (0: none).
 */
unsigned int dprof_watch_park(void);
/* A fresh watch id. */
u32 dprof_watch_next_id(void);
/*
 * The one way a watch begins: its fields set, then ARMING for @id.  For
 * a history the object is 0 until its allocation claims it, for a window
 * a live object, for a variable its address.
 */
void dprof_watch_publish(u32 id, enum watch_kind kind, int target,
			 unsigned long addr, unsigned int item,
			 const u16 *offsets);
/*
 * Points every watched CPU's registers at the published watch, counting
 * the cost; on failure the watch is IDLE again.  Caller holds
 * cpus_read_lock().
 */
int dprof_watch_arm(u32 id);
/* The first arm of either kind, watch_now_ns() time; 0 before it. */
u64 dprof_watch_first_arm_ns(void);
/* Parks every breakpoint again, counting the cost (takes the locks). */
void dprof_watch_disarm(void);
/* From the allocation hook: arm the published watch. */
void dprof_watch_arm_here(void);
/* The in-use tick: set this CPU's registers again if someone rewrote them. */
void dprof_watch_check_here(void);
/* #DB: does breakpoint @w's register hold the watch's address now? */
bool dprof_watch_trap_ok(unsigned int w);
/*
 * The pick gate's other side.  dprof_pick_take_name(): a type drawn from
 * the allocation counters by pick_types= (allocount.h); without them,
 * with pick_types=gate, or when the type drawn allocates too seldom, the
 * type the any gate named since the last call,
 * or -1 after opening the any gate (if closed).  dprof_pick_open(): a
 * type's gate, once its watch is WAITING.  dprof_pick_close(): no hook
 * claims anything after this.
 */
void dprof_pick_name(int target);
int dprof_pick_take_name(void);
void dprof_pick_open(int target);
void dprof_pick_close(void);
void dprof_watch_sync(void);

/* ---- kick.c -------------------------------------------------------------- */
/* Wakes the collector (any context); its sleep, at most @timeout jiffies. */
void dprof_watch_kick(void);
void dprof_watch_wait(unsigned long timeout);
/* No kick queued or running after it (dprof_watch_sync()). */
void dprof_kick_sync(void);

/* ---- watchshow.c --------------------------------------------------------- */
/* The registers and the costs of arming, racily summed (watch.c). */
struct watch_regs {
	unsigned int held, free_at_load, slots, watched, online;
	u64 rewritten, moved, stale;
	u64 here_arms, here_cycles, here_max;	/* arms at an allocation */
};

void dprof_watch_regs(struct watch_regs *r);
/* The registers, the limits, the traps and the costs, for "histories". */
void dprof_watch_show(struct seq_file *m);

/* ---- window.c ----------------------------------------------------------- */
bool dprof_window_arm(void);
void dprof_window_init(void);
void dprof_window_exit(void);
/* A window on the next allocation of a type: its turn, and its claim. */
bool dprof_window_pick_next(void);
void dprof_window_claimed(unsigned long word, unsigned long base);
void dprof_window_ended(bool cut);
/* After the disarm: the window's samples go to its type's sums. */
void dprof_window_disarmed(void);
bool dprof_window_hit(unsigned int w, struct pt_regs *regs);
void dprof_window_show(struct seq_file *m);
/* sampler=watch (sample.h's operations). */
extern const struct dprof_sampler_ops dprof_watch_sampler;

/* ---- history.c ---------------------------------------------------------- */
void dprof_history_arm_next(void);
bool dprof_history_arm_variable(void);
bool dprof_history_end(u8 reason, unsigned long call_site);
void dprof_history_hit(unsigned long word, unsigned int w,
		       struct pt_regs *regs, u64 when);

#endif

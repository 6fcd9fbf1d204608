/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Declarations shared by the files of dprof.ko.  Each subsystem exposes
 * dprof_<x>_init()/dprof_<x>_exit(); main.c calls them in order and unwinds
 * in reverse.
 */
#ifndef _DPROF_H
#define _DPROF_H

#include <linux/types.h>
#include <linux/percpu.h>
#include <linux/cpumask.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/jump_label.h>
#include <linux/hash.h>
#include <linux/timex.h>
#include "uapi/dprof.h"

/* ---- main.c: module parameters ---------------------------------------- */
extern bool dprof_enabled;	/* runtime switch, checked by every hook */

#include "calibrate.h"

/* ---- target.c, adopt.c: the caches being profiled ---------------------- */
struct dprof_target {
	struct kmem_cache *cache;	/* identity only on hot paths */
	unsigned int object_size;
	unsigned int stride;
	unsigned int left_pad;		/* slub_debug's left red zone */
	unsigned int flags;		/* DPROF_TARGET_* */
	u64 older;			/* objects the scan found live */
	unsigned long var_addr;		/* DPROF_TARGET_VAR: the variable */
	bool gone;			/* dead for good (target.c life_lock) */
	/*
	 * Objects followed 1 in 2^track_shift by address hash (liveset.c);
	 * frees test sweep_shift, the oldest rule still in the set.
	 */
	unsigned int track_shift;
	unsigned int sweep_shift;
	bool low;			/* in the low set (liveset.c low_lock) */
	char name[DPROF_NAME_LEN];
	/* Tracked allocations, counted racily (a rate, not a total). */
	unsigned int tracked;
	/*
	 * Its allocations since load, each tracked one counted as the
	 * 2^track_shift it stands for (racy: a lost add is an allocation
	 * less in the young windows' and lives' scale, profile.c).
	 */
	u64 allocs_scaled;
};

extern struct dprof_target dprof_targets[DPROF_MAX_TARGETS];
extern unsigned int dprof_nr_targets;
extern bool dprof_have_kmalloc_target;
extern bool dprof_target_all;	/* target=all */

#define DPROF_MAX_NAMED_TARGETS	8	/* names in target= */
/* With the siblings size-N adds (kmalloc-cg-N, buckets, random caches). */
#define DPROF_MAX_LISTED_TARGETS	64
/* Offsets in records and tables are 16 bits (struct dprof_sample_agg). */
#define DPROF_MAX_OBJECT_SIZE	65536

int dprof_target_init(const char *spec);
void dprof_target_start(void);
void dprof_target_stop(void);
void dprof_target_exit(void);
/*
 * Cache pointer -> target index, for the hooks (any context): open
 * addressing keyed by the pointer, written only under target.c's lock in
 * process context, read with plain loads.  An entry is never moved; a
 * dead cache's entry becomes a tombstone (target.c, "lives of target
 * caches"), so a new cache at the same address is a new target.
 * The lookup is inline: every allocation and free in the system asks.
 */
#define DPROF_INDEX_BITS	13	/* 8192 slots for at most 4095 targets */
#define DPROF_INDEX_PROBES	32
#define DPROF_INDEX_TOMB	((struct kmem_cache *)1UL)

struct dprof_cache_slot {
	struct kmem_cache *cache;	/* NULL empty, INDEX_TOMB removed */
	int target;
};

extern struct dprof_cache_slot dprof_cache_index[1 << DPROF_INDEX_BITS];

static inline unsigned int dprof_index_slot(const struct kmem_cache *s,
					    unsigned int i)
{
	return (hash_ptr(s, DPROF_INDEX_BITS) + i) &
	       ((1U << DPROF_INDEX_BITS) - 1);
}

/* Index of the live target whose cache is @s, or -1.  Any context. */
static inline int dprof_target_of_cache(const struct kmem_cache *s)
{
	unsigned int i;

	if (!s)
		return -1;
	for (i = 0; i < DPROF_INDEX_PROBES; i++) {
		const struct dprof_cache_slot *slot =
			&dprof_cache_index[dprof_index_slot(s, i)];
		struct kmem_cache *c = READ_ONCE(slot->cache);
		int t;

		if (!c)
			return -1;
		if (c != s)
			continue;
		t = READ_ONCE(slot->target);
		if (READ_ONCE(dprof_targets[t].flags) & DPROF_TARGET_DEAD)
			return -1;
		return t;
	}
	return -1;
}

/*
 * Destroys in flight that target.c counts at once, per cache pointer;
 * the destroy probe's instances are as many.  Beyond them a destroy is
 * not seen at entry (counted in status); its cache still dies for good
 * when its struct kmem_cache is freed.
 */
#define DPROF_DESTROYS_IN_FLIGHT	1024
/* kmem_cache_destroy(@s) entered: the target it stops, or -1. */
int dprof_target_destroy_begin(const struct kmem_cache *s, bool *tracked);
/* kmem_cache_destroy(@s) returned (when its begin was tracked). */
void dprof_target_destroy_end(const struct kmem_cache *s);
/* The struct kmem_cache at @s is being freed. */
void dprof_target_cache_freed(const struct kmem_cache *s);
void dprof_target_life_stats(unsigned int *aliases, unsigned int *overflow);
/*
 * For adopt.c, which decides what becomes a target: under the lock it
 * fills dprof_targets[dprof_nr_targets] and publishes it for cache @s,
 * read by a walk that began at dprof_target_life_seq() @since (-EAGAIN:
 * @s began dying since then).
 */
void dprof_target_lock(void);
void dprof_target_unlock(void);
u64 dprof_target_life_seq(void);
int dprof_target_publish(struct kmem_cache *s, u64 since);
bool dprof_target_known(const struct kmem_cache *s);
void dprof_target_clear(void);
void dprof_target_unknown_alloc(void);
/* watch_symbols=: a kernel variable as a target; its index or -errno. */
int dprof_target_add_variable(const char *name, unsigned long addr,
			      unsigned int size);
/* Its module is going: no sample or watch is attributed to it again. */
void dprof_target_var_gone(int target);
void dprof_target_all_stats(u64 *unknown, unsigned int *over_limit,
			    unsigned int *too_large, unsigned int *nr_rescans,
			    unsigned int *retried);
/* target=kmalloc-N: the caches of size N it leaves out, or NULL. */
const char *dprof_target_missed_siblings(void);

/* ---- liveset.c: NMI-safe set of live target objects -------------------- */
enum dprof_liveset_result {
	DPROF_LIVE_INSERTED,
	DPROF_LIVE_FULL,	/* no free slot within the probe bound */
	DPROF_LIVE_DUPLICATE,	/* already present: a free was missed */
};

/*
 * @one_in: track 1 object in @one_in (a power of two) by address hash;
 * 0: auto, starting from @expected objects and halving when full.
 */
int dprof_liveset_init(unsigned int max_objects, unsigned int one_in,
		       unsigned long expected, unsigned int max_rate);
void dprof_liveset_start(void);
void dprof_liveset_stop(void);
void dprof_liveset_exit(void);
/*
 * Tracking 1 object in 2^shift, per target: inline, because every target
 * hook asks (a call into liveset.c cost more than the rule).  New targets
 * start at dprof_track_base (track_one_in, or auto's starting point).
 */
extern unsigned int dprof_track_base;
/*
 * The sparsest rule every target's objects pass, the least sweep_shift
 * (and the base with target=all, whose new caches start there): an
 * address that fails it is tracked in no cache (a
 * rule of shift s passes only addresses that pass every smaller shift),
 * so the probes drop it before looking its cache up.  Only rises.
 */
extern unsigned int dprof_track_floor;

/*
 * The gate (auto mode): the probes test an address against the rule of
 * shift dprof_track_gate, at least DPROF_TRACK_GATE, before they look its
 * cache up.  Caches followed more closely than that (the slow ones, at
 * 1 in 1 to 1 in 16) are the low set: a bitmap hashed by cache pointer,
 * tested on the calls the gate stops, so their objects still reach the
 * lookup and every other cache's calls mostly do not.  Without it a
 * single slow cache followed in full held the floor at 1 and put every
 * allocation and free of the kernel through the lookup (target=all).
 */
#define DPROF_TRACK_GATE	5
/*
 * 2^16 bits (8 KiB): with some 250 slow caches low under target=all, a
 * busy cache shares a bit with one of them 0.4% of the time (6% with
 * 2^12: on one boot the skbuffs' hooks took 88 instructions a call
 * instead of 46, as if every call had taken the lookup).
 */
#define DPROF_LOW_BITS		16
extern unsigned int dprof_track_gate;
extern unsigned int dprof_low_nr;
extern unsigned long dprof_low_caches[];

static inline bool dprof_track_low_any(void)
{
	return READ_ONCE(dprof_low_nr);
}

/* Whether @s may be a low cache: its calls need the lookup. */
static inline bool dprof_track_low(const struct kmem_cache *s)
{
	return dprof_track_low_any() &&
	       test_bit(hash_ptr((void *)s, DPROF_LOW_BITS), dprof_low_caches);
}

/*
 * Process context: @t enters or leaves the low set as its sweep_shift
 * says (before it is published, after each sweep, when it is buried);
 * dprof_track_low_drop(): @t was not published after all.
 */
void dprof_track_low_sync(struct dprof_target *t);
void dprof_track_low_drop(struct dprof_target *t);
/* Every target, after the rules changed (process context; lowset.c). */
void dprof_track_low_sync_all(void);

static inline bool dprof_track_rule(unsigned long base, unsigned int shift)
{
	/* Top bits of a product with an odd constant (not the slot hash's). */
	return !shift || !((base * 0xff51afd7ed558ccdUL) >> (64 - shift));
}

/* Whether @base of @target enters the set now (alloc hooks). */
static inline bool dprof_track_wanted(int target, unsigned long base)
{
	return dprof_track_rule(base,
				READ_ONCE(dprof_targets[target].track_shift));
}

/* Whether @base of @target may be in the set (free hooks: the oldest rule). */
static inline bool dprof_track_maybe(int target, unsigned long base)
{
	return dprof_track_rule(base,
				READ_ONCE(dprof_targets[target].sweep_shift));
}

void dprof_liveset_adapt(void);
void dprof_liveset_lock(void);
void dprof_liveset_unlock(void);
void dprof_track_stats(unsigned int *one_in, bool *is_auto,
		       unsigned int *nr_raises, unsigned int *nr_rate_raises,
		       unsigned int *max_rate, u64 *nr_swept,
		       unsigned int *nr_sweeps, bool *owed);
/* A target about to be published starts at the current base rule. */
void dprof_track_init_target(struct dprof_target *t);
enum dprof_liveset_result dprof_liveset_insert(unsigned long base, int target);
enum dprof_liveset_result dprof_liveset_insert_pending(unsigned long base,
						       int target);
bool dprof_liveset_commit(unsigned long base);
bool dprof_liveset_remove(unsigned long base);
bool dprof_liveset_contains(unsigned long base);
unsigned long dprof_liveset_age(unsigned long base);
/*
 * @fn gets each live entry's target as its slot says (racy: an insert
 * under way may show the slot's previous one; resolve before use).
 */
void dprof_liveset_for_each(void (*fn)(unsigned long base, unsigned long age,
				       int target, void *arg), void *arg);
/*
 * Who is told of each entry a sweep of the set drops (an object that left
 * the set without a free: a window on it must end).  The set is the bottom
 * layer and the windows above it, so they register the callback (off the
 * hot path: sweeps run in a work); NULL tells no one.
 */
void dprof_liveset_on_sweep_drop(void (*fn)(unsigned long base));
void dprof_liveset_stats(unsigned long *capacity, unsigned long *live,
			 unsigned long *max_probe);

/* ---- resolve.c: address -> (target, object, offset): resolve.h -------- */
/* ---- ring.c: per-CPU output rings -------------------------------------- */
int dprof_ring_init(unsigned long bytes_per_cpu);
void dprof_ring_exit(void);
bool dprof_ring_write(const void *rec, unsigned int size);
/* Copy whole records of every CPU into @buf; returns bytes copied. */
size_t dprof_ring_drain(void *buf, size_t room);
u64 dprof_ring_lost_total(void);

/* ---- slab.c: allocation/free hooks ------------------------------------- */
/* The kmem_cache_destroy() probe: before any target is looked for. */
int dprof_slab_destroy_init(void);
void dprof_slab_destroy_exit(void);
unsigned long dprof_slab_destroy_missed(void);
struct seq_file;
void dprof_slab_show_hooks(struct seq_file *m);
int dprof_slab_init(void);
void dprof_slab_exit(void);
/* Calls the kprobes could not follow (their nmissed): lost records. */
unsigned long dprof_slab_bulk_missed(void);
unsigned long dprof_slab_free_bulk_missed(void);

/* ---- stats.c: per-CPU counters and handler costs ----------------------- */
enum dprof_hook {
	DPROF_HOOK_CACHE_ALLOC,	/* tracepoint kmem_cache_alloc */
	DPROF_HOOK_CACHE_FREE,	/* tracepoint kmem_cache_free */
	DPROF_HOOK_KMALLOC,	/* tracepoint kmalloc */
	DPROF_HOOK_KFREE,	/* tracepoint kfree */
	DPROF_HOOK_ALLOC_BULK,	/* kretprobe kmem_cache_alloc_bulk */
	DPROF_HOOK_FREE_BULK,	/* kprobe kmem_cache_free_bulk */
	DPROF_HOOK_BP_HIT,	/* debug-register hit (collector.c) */
	DPROF_HOOK_SAMPLE,	/* IBS/PEBS sample (sample.c) */
	DPROF_NR_HOOKS,
};

struct dprof_cost {
	u64 calls;	/* every invocation, target or not */
	u64 hits;	/* of those, invocations on a target object */
	u64 timed;	/* invocations timed and not slow */
	u64 timed_hits;	/* of those, invocations on a target object */
	u64 cycles;	/* get_cycles() spent in the body of the timed calls */
	u64 hit_cycles;	/* of those, in the invocations on targets */
	u64 max_cycles;
	u64 slow;	/* timed calls over DPROF_COST_SLOW, not in the sums */
	int countdown;	/* slab hooks: calls until the next timed one */
};

/*
 * A hook body over this many cycles was interrupted, not slow: by an
 * interrupt on a host, and under QEMU -icount mostly by QEMU switching
 * its one thread to the other vCPU, whose instructions advance the
 * shared clock too (such calls take some 940,000 cycles there: 100 of
 * 190,000 added 150 to the average).  They are counted apart.  The bulk
 * hooks, which loop over their objects, keep every call.
 */
#define DPROF_COST_SLOW	20000

/*
 * Where a target's alloc or free hook spends its instructions, measured
 * only with cost_parts=1 (a static branch otherwise): get_cycles() after
 * each part of object_alloc() and object_free() (slab.c).
 */
enum dprof_part {
	DPROF_PART_FILTER,	/* sampled tracking, slab grid check */
	DPROF_PART_LIVESET,	/* live-set insert or remove (and windows) */
	DPROF_PART_RECORD,	/* counters, trace event (off: a nop), clock */
	DPROF_PART_RING,	/* the record: reserve, fill, publish */
	DPROF_PART_HISTORY,	/* history arming and ends */
	DPROF_NR_PARTS,
};

enum dprof_side { DPROF_SIDE_ALLOC, DPROF_SIDE_FREE, DPROF_NR_SIDES };

struct dprof_cpu_stats {
	u64 allocs;		/* ALLOC records produced */
	u64 frees;		/* FREE records produced */
	u64 frees_not_live;	/* frees of objects not in the live set */
	u64 untracked;		/* allocs the live set had no room for */
	u64 duplicates;		/* allocs of objects already live */
	u64 off_grid;		/* allocs off the stride grid */
	u64 ring_lost;		/* records the ring had no room for */
	struct dprof_cost cost[DPROF_NR_HOOKS];
	u64 part_calls[DPROF_NR_SIDES];		/* cost_parts=1 */
	u64 part_cycles[DPROF_NR_SIDES][DPROF_NR_PARTS];
};

DECLARE_PER_CPU(struct dprof_cpu_stats, dprof_stats);
DECLARE_STATIC_KEY_FALSE(dprof_cost_parts);

/* Start of a measured hook body: 0 unless cost_parts=1. */
static inline u64 dprof_part_start(void)
{
	return static_branch_unlikely(&dprof_cost_parts) ? get_cycles() : 0;
}

/* Part @part of @side ended now: charge it since *@t, restart *@t. */
static inline void dprof_part_end(u64 *t, enum dprof_side side,
				  enum dprof_part part)
{
	u64 now;

	if (!static_branch_unlikely(&dprof_cost_parts))
		return;
	now = get_cycles();
	/* An interrupted part (see DPROF_COST_SLOW) counts as nothing. */
	if (now - *t <= DPROF_COST_SLOW)
		this_cpu_add(dprof_stats.part_cycles[side][part], now - *t);
	*t = now;
}

static inline void dprof_part_call(enum dprof_side side)
{
	if (static_branch_unlikely(&dprof_cost_parts))
		this_cpu_inc(dprof_stats.part_calls[side]);
}

extern const char *const dprof_hook_names[DPROF_NR_HOOKS];
void dprof_stats_sum(struct dprof_cpu_stats *sum, int cpu);
/*
 * A history of @target ended with the free of its object (@moved: it was
 * touched on another CPU than its allocation's); and the two counts.
 */
void dprof_target_history_done(unsigned int target, bool moved);
void dprof_target_moves(unsigned int target, u64 *moved, u64 *histories);
u64 dprof_load_time_ns(void);
void dprof_stats_init(bool parts);
/*
 * get_cycles() ticks per 1000 instructions, measured at load on a loop of
 * known length (0: not measured).  Under QEMU -icount guest time counts
 * instructions, so ticks convert to instructions exactly there.
 */
u64 dprof_ticks_per_kinsn(void);
u64 dprof_timing_pair_ticks(void);

/* A timed call of @hook took @cycles (out of line: 1 call in 16). */
void dprof_cost_timed(enum dprof_hook hook, bool hit, u64 cycles);

/* A call of @hook timed whole (#DB and PMU handlers: every call). */
static inline void dprof_cost_add(enum dprof_hook hook, bool hit, u64 cycles)
{
	this_cpu_inc(dprof_stats.cost[hook].calls);
	if (hit)
		this_cpu_inc(dprof_stats.cost[hook].hits);
	dprof_cost_timed(hook, hit, cycles);
}

/*
 * The slab hooks time one call in DPROF_COST_EVERY on average, per CPU
 * and hook, so that a call on an object of no target costs a few
 * instructions and no clock read: a countdown, restarted at a jittered
 * length (from the clock's low bits) so that the timed calls do not
 * follow a periodic pattern of target and other calls.  Calls and hits
 * are counted exactly; the instructions per call are those of the timed
 * ones.  dprof_cost_enter() counts the call and says whether to time it,
 * reading the clock into *@start if so.
 */
#define DPROF_COST_EVERY	16

/* Count a call of @hook; true when it is one to time. */
static __always_inline bool dprof_cost_count(enum dprof_hook hook)
{
	this_cpu_inc(dprof_stats.cost[hook].calls);
	return unlikely(this_cpu_dec_return(dprof_stats.cost[hook].countdown)
			<= 0);
}

/* A timed call of @hook begins: the clock, and the countdown restarted. */
static __always_inline u64 dprof_cost_start(enum dprof_hook hook)
{
	u64 start = get_cycles();

	this_cpu_write(dprof_stats.cost[hook].countdown,
		       1 + (start & (2 * DPROF_COST_EVERY - 1)));
	return start;
}

static __always_inline bool dprof_cost_enter(enum dprof_hook hook, u64 *start)
{
	if (likely(!dprof_cost_count(hook)))
		return false;
	*start = dprof_cost_start(hook);
	return true;
}

static __always_inline void dprof_cost_leave(enum dprof_hook hook, bool timed,
					     bool hit, u64 start)
{
	if (hit)
		this_cpu_inc(dprof_stats.cost[hook].hits);
	if (unlikely(timed))
		dprof_cost_timed(hook, hit, get_cycles() - start);
}

/* ---- collector.c, history.c, window.c, watch.c: debug registers --------- */
struct dprof_history_config {
	bool enabled;		/* histories */
	bool windows;		/* sample windows for the watch sampler */
	bool variables;		/* watches on watch_symbols= variables */
	unsigned int window_ms;	/* length of one sample window */
	bool pairs;		/* every pair of members, else a history set */
	unsigned int len;	/* bytes per watched offset: 1, 2, 4, 8 */
	bool split_rw;		/* write + read/write breakpoint per offset */
	unsigned int max_arms;	/* objects armed per second */
	unsigned int max_hits;	/* elements recorded per second */
	unsigned int max_traps;	/* #DB per second on average; 0: no bound */
	unsigned int timeout_ms;	/* longest life followed */
	unsigned int wait_ms;	/* wait for the armed address to be reused */
	const char *offsets;	/* members to cover, NULL: every offset */
	unsigned int test_reserve_delay_ms;	/* tests: hold each reserve */
	bool pick;		/* objects chosen at allocation (watch.c) */
	struct cpumask pick_cpus;	/* where a pick may be claimed */
	/*
	 * Lives (design.rst, "Lives"): the histories, picked at allocation
	 * on every CPU, are the windows of ages below timeout_ms, and the
	 * old strata start there; else young windows below window_ms.
	 */
	bool lives;
};

int dprof_history_init(const struct dprof_history_config *config);
void dprof_history_exit(void);
void dprof_history_sync(void);
/*
 * The hooks' calls (dprof_history_alloc(), dprof_history_free(),
 * dprof_window_free()) are inline in watch.h: they compare the address
 * with the watched one before calling.
 */
void dprof_history_cache_destroyed(int target);
struct seq_file;
void dprof_history_show(struct seq_file *m, bool brief);
/* Whether the breakpoints tell writes from reads (history_split_rw=1). */
bool dprof_watch_tells_writes(void);
/*
 * The three kinds of sample window, which sample disjoint accesses
 * (design.rst, "Objects chosen at allocation" and "Objects in use"):
 *   DPROF_WINDOW_OLD    on a live object older than a window and not in
 *                       use, of a type in rotation, from a census of the
 *                       live set: accesses at ages >= sample_window_ms
 *   DPROF_WINDOW_YOUNG  on an object picked at its allocation, watched
 *                       from there: accesses at ages < sample_window_ms
 *   DPROF_WINDOW_INUSE  on an old object in use (inuse.c: the CPUs'
 *                       registers held it lately), drawn by its use
 *   DPROF_WINDOW_LIFE   a history: an object picked at its allocation,
 *                       watched until its free or history_timeout_ms
 *                       (design.rst, "Lives"); with lives on, it stands
 *                       for the ages below the timeout, YOUNG does not
 *                       count, and OLD and INUSE start at the timeout
 */
enum dprof_window_kind {
	DPROF_WINDOW_OLD,
	DPROF_WINDOW_YOUNG,
	DPROF_WINDOW_INUSE,
	DPROF_WINDOW_LIFE,
	DPROF_NR_WINDOW_KINDS,
};

/* The age where the old strata begin, in jiffies (lives or windows). */
static inline unsigned long dprof_old_age(const struct dprof_history_config *c)
{
	return msecs_to_jiffies(c->lives ? c->timeout_ms : c->window_ms);
}

/* One kind of window on one type: its windows, their samples, its draws. */
struct dprof_window_sums {
	u64 windows;
	/*
	 * y: a window's samples times its draw's weight rho (window.c), in
	 * 1/DPROF_WINDOW_RHO_ONE (2^16) samples.
	 */
	u64 samples;		/* sum over the windows of y */
	u64 samples_sq;		/* sum of (y / 2^8)^2 */
	/*
	 * OLD: its live objects older than a window and not in use, summed
	 * over the censuses (scaled by the tracking rate, each census
	 * weighed by the milliseconds since the last); INUSE: the same of
	 * all its old objects (the draws' weights are relative to them);
	 * YOUNG: its allocations drawn by the any gate (by the histories'
	 * turns too), how many windows it got; not its scale (allocs).
	 */
	u64 draws;
	/*
	 * YOUNG and LIFE: the type's allocations since load (dprof_target's
	 * allocs_scaled).  Their windows are one allocation each of the
	 * type, so the samples per window times this count is the type's:
	 * the gate's draws (the first allocation after an instant) favour
	 * a type that allocates first after a pause (memcslap's iovec,
	 * kmalloc-192, drawn 7 times as often as the skbuff allocated in the
	 * same sendmsg), so they say how many windows a type gets, not how
	 * often it allocates.
	 */
	u64 allocs;
	/*
	 * A window watches one item of the plan, the items in turn: its
	 * samples are the object's over cover_num / cover_den (the plan's
	 * items times its members, over the offsets its items hold; the
	 * items' count in history_mode=set).  0 / 0 before a plan.
	 */
	u64 cover_num, cover_den;
};

/*
 * What the counts are out of, to put the kinds on one scale (samples per
 * second of the type):
 *   OLD, INUSE    (samples / windows) (draws / censuses) / window
 *   YOUNG, LIFE   (samples / windows) allocs / elapsed
 */
struct dprof_window_scale {
	u64 censuses;		/* their weights' sum */
	u64 elapsed_ms;		/* since load */
	unsigned int window_ms;
	bool lives;		/* LIFE stands for YOUNG (dprof_history_config) */
};

/* From the plans (plan.c), where the windows count them; racy reads. */
void dprof_plan_window_sums(unsigned int target,
			    struct dprof_window_sums sums[DPROF_NR_WINDOW_KINDS]);
/* The draws' part of the scale and window_ms (plan.c). */
void dprof_plan_window_scale(struct dprof_window_scale *scale);

/* ---- sample.c: access samples, aggregated per CPU ----------------------- */
#define DPROF_SAMPLER_AUTO	100	/* pick the best available */

/* The sampler= names, indexed by enum dprof_sampler (one table). */
extern const char *const dprof_sampler_names[DPROF_SAMPLER_INJECT + 1];

/* test_perf= (sampler=inject only): a counter through the IBS/PEBS path */
enum dprof_test_perf {
	DPROF_TEST_PERF_OFF,
	DPROF_TEST_PERF_SOFTWARE,	/* cpu-clock on every CPU */
	DPROF_TEST_PERF_REFUSE,		/* a PMU type nobody registers */
};

struct dprof_sample_config {
	int sampler;		/* enum dprof_sampler or DPROF_SAMPLER_AUTO */
	enum dprof_test_perf test_perf;
	u64 period;		/* 0: the sampler's default */
	unsigned int table_entries;	/* per CPU, a power of two */
	bool records;		/* also emit every sample to the rings */
};

int dprof_sample_init(const struct dprof_sample_config *sc);
void dprof_sample_exit(void);
/*
 * From the debug-register handler: one access to a target object, trapped
 * by a sample window (@window) or by a history watch.  @rw_known: the
 * breakpoints told a read from a write (@write); else neither is counted
 * and "record" decodes the kind from the instruction at @ip.
 */
void dprof_sample_watch(int target, unsigned int offset, unsigned long ip,
			bool rw_known, bool write, bool window);
/* The sampler in use (after dprof_sample_init()). */
enum dprof_sampler dprof_sample_which(void);
size_t dprof_sample_read(void *buf, size_t room, loff_t *pos);
size_t dprof_sample_read_data(void *buf, size_t room, loff_t *pos);
/* sampler=inject: run the samples of @len bytes of text (debugfs). */
ssize_t dprof_sample_inject(const char __user *ubuf, size_t len);
void dprof_sample_show(struct seq_file *m, bool brief);
/* facts.c: debugfs "facts", the views' figures, typed (uapi); kvfree() it. */
void *dprof_facts_build(size_t *len);
/* profile.c: the sample counts and each target's share, for the facts. */
struct dprof_facts;
struct dprof_target_fact;
int dprof_profile_facts(struct dprof_facts *f, struct dprof_target_fact *tf,
			unsigned int nr);
/* Set while dprof allocates or frees an object itself: hooks ignore it. */
DECLARE_PER_CPU(int, dprof_self_alloc);

/* ---- scan.c: objects older than the module ---------------------------- */
int dprof_scan_init(bool enabled, unsigned int test_delay_ms);
void dprof_scan_start(void);
void dprof_scan_exit(void);
void dprof_scan_show(struct seq_file *m);

/* ---- debugfs.c --------------------------------------------------------- */
int dprof_debugfs_init(void);
void dprof_debugfs_exit(void);

/* ---- symbols.c: kernel variables named in watch_symbols= -------------- */
#define DPROF_MAX_VARIABLES	8

int dprof_symbols_init(const char *spec);
void dprof_symbols_exit(void);
unsigned int dprof_nr_variables(void);
struct dprof_resolved;
/* The variable holding @addr; any context (NMI included). */
int dprof_var_resolve(unsigned long addr, struct dprof_resolved *r);
/* Collector: the next variable to watch, round robin; -1 if none. */
int dprof_var_next(void);

#endif /* _DPROF_H */

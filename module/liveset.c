// SPDX-License-Identifier: GPL-2.0
/*
 * The set of live target objects, usable from any context (NMI and #DB
 * included): a preallocated open-addressing table of object base addresses.
 *
 * - Insert (allocation hooks) claims a slot with cmpxchg().  Two inserts of
 *   the same address cannot race: an object is allocated once at a time.
 * - Remove (free hooks) turns the slot into a tombstone, which later inserts
 *   reuse.  The set never shrinks or rehashes, so readers never see a table
 *   move.
 * - Probing is linear and bounded by PROBE_LIMIT both ways: lookups stay
 *   O(1) however many tombstones pile up, and an insert that finds no slot
 *   within the bound fails (counted by the caller as "untracked") instead of
 *   spinning.
 * rhashtable and xarray are not usable here: their writers take locks and
 * allocate.
 *
 * Tracking is sampled per cache: only objects whose address hash has
 * its top track_shift bits zero enter the set.  The rule depends on the
 * address and the cache alone, so the free hook knows without a lookup
 * in the set whether an object may be in it, the load-time scan applies
 * the same rule, and a cache's objects are sampled alike whatever their
 * age (its shares need no correction; its counts scale by 2^shift).  In
 * auto mode (the default) every cache's rate halves when the set fills,
 * and every RATE_PERIOD_MS, while the tracked allocations of the period
 * pass track_max_rate per online CPU, the busiest cache's halves: the
 * budget goes to the slow caches, followed in full, and the busy ones
 * are sampled.  A raise publishes the new rules, waits for every hook
 * still using the old ones (they run with preemption off), and sweeps
 * the entries the new rules reject; until the sweep ends, frees test the
 * old rules (sweep_shift).
 *
 * Each slot has a birth time beside it (jiffies, 32 bits), so that the
 * sample windows drawn from the set can leave out objects younger than a
 * window: those are the windows picked at allocation's to sample
 * (window.c), and the two estimates must not count an access twice.  The
 * birth is written after the slot is claimed, so a pick racing the insert
 * may read the slot's previous birth: the object then looks older than it
 * is, once, in process context, which the estimate tolerates.  Entries of
 * the load-time scan are born long ago (BORN_BEFORE_LOAD).
 */
#include <linux/vmalloc.h>
#include <linux/jiffies.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/atomic.h>
#include <linux/sched.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>
#include <linux/cpumask.h>
#include "dprof.h"
#include "watch.h"

#define SLOT_EMPTY	0UL
#define SLOT_TOMB	1UL	/* object addresses are never 1 */
/*
 * Objects are at least 8-byte aligned, so bit 1 is free to mark an entry
 * as pending: entered by the scan, liveness not yet confirmed.  Pending
 * entries are invisible to lookups and picks; frees remove them; the scan
 * commits or removes them.
 */
#define SLOT_PENDING	2UL
#define PROBE_LIMIT	64

static inline bool slot_live(unsigned long v)
{
	return v > SLOT_TOMB && !(v & SLOT_PENDING);
}

static unsigned long *slots;
static u32 *born;			/* jiffies of each slot's insert */
static unsigned int slot_bits;
/*
 * Entries in the set, per CPU (an entry may leave on another CPU than it
 * entered: only the sum means anything).  Per CPU so that the hooks of
 * different CPUs do not bounce one counter's line at every allocation.
 */
static DEFINE_PER_CPU(long, live_count);

static long live_total(void)
{
	long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu(live_count, cpu));
	return sum;
}

static unsigned int max_probe_seen;
unsigned int dprof_track_base;		/* new targets' shift */
unsigned int dprof_track_floor;		/* min(base, every sweep_shift) */
static bool track_auto;
static unsigned int raises;		/* times the rate was halved */
static unsigned int rate_raises;	/* of them, for the allocation rate */
static u64 swept;			/* entries the sweeps dropped */
static DEFINE_MUTEX(track_lock);	/* scan inserts vs sweep */
/* Auto mode's budget: tracked allocations per second per online CPU. */
static unsigned int track_max_rate;
static unsigned int rate_last[DPROF_MAX_TARGETS];	/* tracked, last period */
static unsigned int rate_count[DPROF_MAX_TARGETS];	/* in this period */
static u8 rate_by[DPROF_MAX_TARGETS];			/* raises decided */
/* A period's raises at most: each halves the busiest target's count. */
#define RATE_MAX_RAISES	64
static void rate_check(struct work_struct *work);
static DECLARE_DELAYED_WORK(rate_work, rate_check);
#define RATE_PERIOD_MS	20

#define TRACK_MAX_SHIFT	20
/* The scan's objects are older than the module: 2^30 jiffies (12 days at HZ=1000) before now. */
#define BORN_BEFORE_LOAD	BIT(30)

int dprof_liveset_init(unsigned int max_objects, unsigned int one_in,
		       unsigned long expected, unsigned int max_rate)
{
	/* Twice the expected maximum keeps the load factor at or below 1/2. */
	unsigned long nr = roundup_pow_of_two((unsigned long)max_objects * 2);
	unsigned int i;
	int cpu;

	slots = vzalloc(array_size(nr, sizeof(*slots)));
	born = vzalloc(array_size(nr, sizeof(*born)));
	if (!slots || !born) {
		vfree(slots);
		vfree(born);
		slots = NULL;
		born = NULL;
		return -ENOMEM;
	}
	slot_bits = ilog2(nr);
	for_each_possible_cpu(cpu)
		per_cpu(live_count, cpu) = 0;
	max_probe_seen = 0;
	raises = 0;
	rate_raises = 0;
	swept = 0;
	track_max_rate = max_rate;
	track_auto = !one_in;
	dprof_track_base = one_in ? ilog2(one_in) : 0;
	/* Auto: start where @expected objects fill three quarters. */
	while (track_auto && dprof_track_base < TRACK_MAX_SHIFT &&
	       (expected >> dprof_track_base) > (unsigned long)max_objects * 3 / 4)
		dprof_track_base++;
	/* The targets named at load came before the rule. */
	for (i = 0; i < dprof_nr_targets; i++)
		dprof_track_init_target(&dprof_targets[i]);
	dprof_track_floor = dprof_track_base;
	return 0;
}

/* Scan inserts and sweeps exclude each other (process context). */
void dprof_liveset_lock(void)
{
	mutex_lock(&track_lock);
}

void dprof_liveset_unlock(void)
{
	mutex_unlock(&track_lock);
}

void dprof_track_init_target(struct dprof_target *t)
{
	unsigned int shift = READ_ONCE(dprof_track_base);

	t->track_shift = shift;
	t->sweep_shift = shift;
}

/* The target of a live set entry, or -1 (a racing free emptied its page). */
static int entry_target(unsigned long base)
{
	return dprof_target_of_cache(dprof_cache_of((const void *)base, NULL));
}

/*
 * Track 2^@by[t] times fewer objects of each target t, or of all targets
 * and those adopted later, by one halving, when @by is NULL (process
 * context).  False when the load-time scan, which holds track_lock for
 * its whole walk, is running: try next time.
 */
static bool track_raise(const u8 *by)
{
	unsigned long nr = 1UL << slot_bits, i, v;
	unsigned int t, nr_targets = READ_ONCE(dprof_nr_targets), floor;
	struct dprof_target *tg;
	int target;

	if (!mutex_trylock(&track_lock))
		return false;
	if (!by)
		WRITE_ONCE(dprof_track_base,
			   min(dprof_track_base + 1, (unsigned int)TRACK_MAX_SHIFT));
	for (t = 0; t < nr_targets; t++) {
		tg = &dprof_targets[t];
		WRITE_ONCE(tg->track_shift,
			   min(tg->track_shift + (by ? by[t] : 1),
			       (unsigned int)TRACK_MAX_SHIFT));
	}
	/* Hooks run with preemption off: after this none uses the old rule. */
	synchronize_rcu();
	for (i = 0; i < nr; i++) {
		if (!(i & 0xffff))
			cond_resched();
		v = READ_ONCE(slots[i]);
		if (v <= SLOT_TOMB)
			continue;
		target = entry_target(v & ~SLOT_PENDING);
		if (target < 0 ||
		    dprof_track_wanted(target, v & ~SLOT_PENDING))
			continue;
		/* Freed meanwhile; no commit races: the scan holds track_lock. */
		if (cmpxchg(&slots[i], v, SLOT_TOMB) != v)
			continue;
		this_cpu_dec(live_count);
		swept++;
		/* It left the set: a window on it must end, as on a free. */
		if (!(v & SLOT_PENDING))
			dprof_window_free(v);
	}
	/* Only target=all adopts caches after load, at the base. */
	floor = dprof_target_all ? READ_ONCE(dprof_track_base) :
		TRACK_MAX_SHIFT;
	for (t = 0; t < nr_targets; t++) {
		tg = &dprof_targets[t];
		WRITE_ONCE(tg->sweep_shift, tg->track_shift);
		/* Variables are never in the set: no rule to keep. */
		if (!(tg->flags & DPROF_TARGET_VAR))
			floor = min(floor, tg->sweep_shift);
	}
	/*
	 * Targets adopted meanwhile start at the base, which the floor is
	 * then never above; the floor only rises, so no hook holds a higher
	 * one.
	 */
	WRITE_ONCE(dprof_track_floor, max(floor, dprof_track_floor));
	raises++;
	mutex_unlock(&track_lock);
	return true;
}

/*
 * Auto mode, process context: once the set holds more than 3/8 of its
 * slots (3/4 of max_objects), track half as many objects of every cache.
 */
void dprof_liveset_adapt(void)
{
	if (!slots || !track_auto ||
	    live_total() * 8 <= (long)(1UL << slot_bits) * 3 ||
	    dprof_track_base >= TRACK_MAX_SHIFT)
		return;
	track_raise(NULL);
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
	u64 budget = max_t(u64, 1, (u64)track_max_rate * num_online_cpus() *
			   RATE_PERIOD_MS / MSEC_PER_SEC);
	u64 sum = rate_take(nr_targets);
	unsigned int floor = READ_ONCE(dprof_track_floor);
	bool any = false;
	int best;

	/*
	 * A target adopted while a raise lifted the floor may start below
	 * it: its objects entered only past the floor (the probes test it
	 * first), so lift its rules to the floor, which its counts' scale
	 * and status then say.  Under track_lock, so that no raise of
	 * adopt.c's rescan (the set filling) runs meanwhile.
	 */
	if (mutex_trylock(&track_lock)) {
		for (t = 0; t < nr_targets; t++)
			if (dprof_targets[t].track_shift < floor) {
				WRITE_ONCE(dprof_targets[t].track_shift, floor);
				WRITE_ONCE(dprof_targets[t].sweep_shift, floor);
			}
		mutex_unlock(&track_lock);
	}

	memset(rate_by, 0, nr_targets);
	for (k = 0; k < RATE_MAX_RAISES && sum > budget; k++) {
		best = -1;
		for (t = 0; t < nr_targets; t++)
			if (dprof_targets[t].track_shift + rate_by[t] <
			    TRACK_MAX_SHIFT &&
			    (best < 0 || rate_count[t] > rate_count[best]))
				best = t;
		if (best < 0 || !rate_count[best])
			break;
		rate_by[best]++;
		sum -= rate_count[best] - rate_count[best] / 2;
		rate_count[best] /= 2;
		any = true;
	}
	if (any && track_raise(rate_by)) {
		rate_raises++;
		/* The sweep took time: count from its end. */
		rate_take(nr_targets);
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
void dprof_liveset_start(void)
{
	if (!track_auto || !track_max_rate)
		return;
	rate_take(READ_ONCE(dprof_nr_targets));
	queue_delayed_work(system_unbound_wq, &rate_work,
			   msecs_to_jiffies(RATE_PERIOD_MS));
}

void dprof_liveset_stop(void)
{
	cancel_delayed_work_sync(&rate_work);
}

void dprof_track_stats(unsigned int *one_in, bool *is_auto,
		       unsigned int *nr_raises, unsigned int *nr_rate_raises,
		       unsigned int *max_rate, u64 *nr_swept)
{
	*one_in = 1U << READ_ONCE(dprof_track_base);
	*is_auto = track_auto;
	*nr_raises = READ_ONCE(raises);
	*nr_rate_raises = READ_ONCE(rate_raises);
	*max_rate = track_max_rate;
	*nr_swept = READ_ONCE(swept);
}

void dprof_liveset_exit(void)
{
	vfree(slots);
	vfree(born);
	slots = NULL;
	born = NULL;
}

static inline unsigned long slot_index(unsigned long base, unsigned int i)
{
	return (hash_64(base, slot_bits) + i) & ((1UL << slot_bits) - 1);
}

static void note_probe(unsigned int i)
{
	if (i > READ_ONCE(max_probe_seen))
		WRITE_ONCE(max_probe_seen, i);
}

static enum dprof_liveset_result insert(unsigned long base, unsigned long val,
					u32 when)
{
	unsigned long *free_slot, seen;
	unsigned int i;

retry:
	free_slot = NULL;
	seen = SLOT_EMPTY;
	for (i = 0; i < PROBE_LIMIT; i++) {
		unsigned long *slot = &slots[slot_index(base, i)];
		unsigned long v = READ_ONCE(*slot);

		if (v == base || v == (base | SLOT_PENDING))
			return DPROF_LIVE_DUPLICATE;
		if (v == SLOT_TOMB && !free_slot) {
			free_slot = slot;
			seen = v;
		}
		if (v == SLOT_EMPTY) {
			if (!free_slot) {
				free_slot = slot;
				seen = v;
			}
			break;	/* base cannot be further along */
		}
	}
	if (!free_slot)
		return DPROF_LIVE_FULL;
	if (cmpxchg(free_slot, seen, val) != seen)
		goto retry;	/* another object took the slot */
	WRITE_ONCE(born[free_slot - slots], when);
	note_probe(i);
	this_cpu_inc(live_count);
	return DPROF_LIVE_INSERTED;
}

enum dprof_liveset_result dprof_liveset_insert(unsigned long base)
{
	return insert(base, base, (u32)jiffies);
}

/* The scan: enter @base as pending (invisible until committed). */
enum dprof_liveset_result dprof_liveset_insert_pending(unsigned long base)
{
	return insert(base, base | SLOT_PENDING,
		      (u32)jiffies - BORN_BEFORE_LOAD);
}

/* The slot holding @base, live or pending, with its value in @v; or NULL. */
static unsigned long *find_slot(unsigned long base, unsigned long *v)
{
	unsigned int i;

	if (!slots || base <= SLOT_TOMB)
		return NULL;
	for (i = 0; i < PROBE_LIMIT; i++) {
		unsigned long *slot = &slots[slot_index(base, i)];

		*v = READ_ONCE(*slot);
		if (*v == SLOT_EMPTY)
			return NULL;
		if (*v == base || *v == (base | SLOT_PENDING))
			return slot;
	}
	return NULL;
}

/* Make a pending @base live; false if a free or a sweep removed it. */
bool dprof_liveset_commit(unsigned long base)
{
	unsigned long *slot, v;

	slot = find_slot(base, &v);
	return slot && v == (base | SLOT_PENDING) && cmpxchg(slot, v, base) == v;
}

bool dprof_liveset_remove(unsigned long base)
{
	unsigned long *slot, v;

	while ((slot = find_slot(base, &v))) {
		/* A commit (pending -> live) may race: look again. */
		if (cmpxchg(slot, v, SLOT_TOMB) != v)
			continue;
		this_cpu_dec(live_count);
		/* A pending entry was not live yet: nothing watched it. */
		return v == base;
	}
	return false;
}

bool dprof_liveset_contains(unsigned long base)
{
	unsigned long v;

	return find_slot(base, &v) && v == base;
}

/*
 * How long ago live @base entered the set, in jiffies (process context);
 * 0 if it is not in the set.  Objects of the load-time scan are 2^30
 * jiffies old at least.
 */
unsigned long dprof_liveset_age(unsigned long base)
{
	unsigned long *slot, v;

	slot = find_slot(base, &v);
	if (!slot || v != base)
		return 0;
	return (u32)jiffies - READ_ONCE(born[slot - slots]);
}

/*
 * Calls @fn on every live entry with its age in jiffies (process
 * context; entries inserted or removed meanwhile may be seen or not).
 */
void dprof_liveset_for_each(void (*fn)(unsigned long base, unsigned long age,
				       void *arg), void *arg)
{
	unsigned long nr = slots ? 1UL << slot_bits : 0, i, v;
	u32 now = jiffies;

	for (i = 0; i < nr; i++) {
		if (!(i & 0xffff))
			cond_resched();
		v = READ_ONCE(slots[i]);
		if (slot_live(v))
			fn(v, (u32)(now - READ_ONCE(born[i])), arg);
	}
}

void dprof_liveset_stats(unsigned long *capacity, unsigned long *live,
			 unsigned long *max_probe)
{
	*capacity = slots ? 1UL << slot_bits : 0;
	*live = max(live_total(), 0L);
	*max_probe = READ_ONCE(max_probe_seen);
}

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
 * and the busiest cache's when the tracked allocations pass their budget
 * (trackrate.c).  A raise publishes the new rules; a sweep, at once when
 * it pays or later (dprof_track_raise()), waits for every hook still using the
 * old ones (they run with preemption off) and drops the entries the new
 * rules reject; until it ends, frees test the old rules (sweep_shift).
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
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

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
#include <linux/moduleparam.h>
#include <linux/mm.h>
#include <linux/vmstat.h>
#include "uapi/dprof.h"
#include "calibrate.h"
#include "target.h"
#include "liveset.h"

#define SLOT_EMPTY	0UL
#define SLOT_TOMB	1UL	/* object addresses are never 1 */
/*
 * Objects are at least 8-byte aligned, so bit 1 is free to mark an entry
 * as pending: entered by the scan or byuse.c, liveness not yet
 * confirmed.  Pending entries are invisible to lookups and picks; frees
 * remove them, an allocation makes them live (a new object); whoever
 * entered them commits or removes them.
 */
#define SLOT_PENDING	2UL
#define PROBE_LIMIT	64

static inline bool slot_live(unsigned long v)
{
	return v > SLOT_TOMB && !(v & SLOT_PENDING);
}

static unsigned long *slots;
static u32 *born;			/* jiffies of each slot's insert */
/*
 * Each slot's target, written after the claim as born is: the sweeps and
 * the census read it instead of finding the cache from the page and the
 * index (some 150 instructions an entry, 40,000 entries a census under
 * target=all).  A reader racing an insert may see the slot's previous
 * target: the census's picks are resolved again before use, and a sweep
 * looks the cache up before it drops an entry.
 */
static u16 *owner;
static unsigned int slot_bits;
/*
 * Entries in the set, per CPU (an entry may leave on another CPU than it
 * entered: only the sum means anything).  Per CPU so that the hooks of
 * different CPUs do not bounce one counter's line at every allocation.
 */
static DEFINE_PER_CPU(long, live_count);
/* Of them, pending (the scan's, byuse.c's): in the set, not yet live. */
static DEFINE_PER_CPU(long, pending_count);

static long sum_over_cpus(long __percpu *counter)
{
	long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(*per_cpu_ptr(counter, cpu));
	return sum;
}

static long live_total(void)
{
	return sum_over_cpus(&live_count);
}

static long pending_total(void)
{
	return sum_over_cpus(&pending_count);
}

/*
 * The first slot from @i on that holds an entry (live or pending: a value
 * above SLOT_TOMB), or @nr.  The sweeps and the census walk every slot,
 * most of them empty or tombstones (2 M under target=all): eight at a
 * time, one OR and one compare for the eight, cut a walk from some 10 M
 * instructions to 3 M.
 */
static unsigned long next_entry(unsigned long i, unsigned long nr)
{
	const unsigned long *p;

	for (;;) {
		/* One at a time up to a multiple of 8, or to the end. */
		for (; i < nr && ((i & 7) || i + 8 > nr); i++)
			if (READ_ONCE(slots[i]) > SLOT_TOMB)
				return i;
		if (i >= nr)
			return nr;
		/* Then eight at a time while all eight are empty. */
		for (p = &slots[i]; i + 8 <= nr; i += 8, p += 8) {
			if (unlikely(!(i & 0xffff)))
				cond_resched();
			if ((READ_ONCE(p[0]) | READ_ONCE(p[1]) |
			     READ_ONCE(p[2]) | READ_ONCE(p[3]) |
			     READ_ONCE(p[4]) | READ_ONCE(p[5]) |
			     READ_ONCE(p[6]) | READ_ONCE(p[7])) > SLOT_TOMB)
				break;
		}
		/* An entry among these eight (or one a free just removed). */
		for (; i < nr; i++) {
			if (READ_ONCE(slots[i]) > SLOT_TOMB)
				return i;
			if (!((i + 1) & 7))
				break;
		}
		i++;
	}
}

static unsigned int max_probe_seen;
unsigned int dprof_track_base;		/* new targets' shift */
unsigned int dprof_track_floor;		/* min(base, every sweep_shift) */
static unsigned int gate_min;		/* DPROF_TRACK_GATE in auto mode */
static bool track_auto;
static unsigned int raises;		/* times the rate was halved */
static u64 swept;			/* entries the sweeps dropped */
static unsigned int sweeps;		/* walks of the set for raises */
static bool sweep_owed;			/* rules raised since the last */
static unsigned long last_sweep;	/* jiffies at its end */
/* Lookups a period the rules raised since the last sweep still cost. */
static u64 owed_lookups;
/* An owed sweep is paid after this at the latest. */
#define SWEEP_MAX_MS	10000
static DEFINE_MUTEX(track_lock);	/* scan inserts vs sweep */

/* The scan's objects are older than the module: 2^30 jiffies (12 days at HZ=1000) before now. */
#define BORN_BEFORE_LOAD	BIT(30)

static unsigned int max_objects;
module_param(max_objects, uint, 0444);
MODULE_PARM_DESC(max_objects,
		 "Live target objects tracked for address resolution (256..16777216; default 0: 65536, 1048576 with target=all); 16 bytes of table each");

static unsigned int track_one_in;
module_param(track_one_in, uint, 0444);
MODULE_PARM_DESC(track_one_in,
		 "Track 1 object in N (a power of two, by address hash; 1: all, the exact address set); 0 (default): adaptive, from 1 (named caches) or the slab size at load (target=all), halved whenever max_objects fills or the tracked allocations pass track_max_rate");

int dprof_liveset_params(void)
{
	if (track_one_in && !is_power_of_2(track_one_in)) {
		pr_err("track_one_in=%u: must be 0 (auto) or a power of two\n",
		       track_one_in);
		return -EINVAL;
	}
	if (max_objects && (max_objects < 256 || max_objects > 16777216)) {
		pr_err("max_objects=%u: must be between 256 and 16777216\n",
		       max_objects);
		return -EINVAL;
	}
	return 0;
}

/* Objects in slabs now, roughly: slab memory over a typical 64-byte stride. */
static unsigned long slab_objects_estimate(void)
{
	unsigned long pages =
		global_node_page_state_pages(NR_SLAB_RECLAIMABLE_B) +
		global_node_page_state_pages(NR_SLAB_UNRECLAIMABLE_B);

	return pages * (PAGE_SIZE / 64);
}

int dprof_liveset_init(void)
{
	unsigned int objects = max_objects ? max_objects :
			       dprof_target_all ? 1048576 : 65536;
	/* target=all starts where the slabs' objects fill three quarters. */
	unsigned long expected = dprof_target_all ? slab_objects_estimate() : 0;
	/* Twice the expected maximum keeps the load factor at or below 1/2. */
	unsigned long nr = roundup_pow_of_two((unsigned long)objects * 2);
	unsigned int one_in = track_one_in;
	unsigned int i;
	int cpu;

	slots = vzalloc(array_size(nr, sizeof(*slots)));
	born = vzalloc(array_size(nr, sizeof(*born)));
	owner = vzalloc(array_size(nr, sizeof(*owner)));
	if (!slots || !born || !owner) {
		dprof_liveset_exit();
		return -ENOMEM;
	}
	slot_bits = ilog2(nr);
	for_each_possible_cpu(cpu) {
		per_cpu(live_count, cpu) = 0;
		per_cpu(pending_count, cpu) = 0;
	}
	max_probe_seen = 0;
	raises = 0;
	swept = 0;
	sweeps = 0;
	sweep_owed = false;
	owed_lookups = 0;
	last_sweep = jiffies;
	track_auto = !one_in;
	dprof_track_base = one_in ? ilog2(one_in) : 0;
	/* Auto: start where @expected objects fill three quarters. */
	while (track_auto && dprof_track_base < DPROF_TRACK_MAX_SHIFT &&
	       (expected >> dprof_track_base) > (unsigned long)objects * 3 / 4)
		dprof_track_base++;
	/*
	 * A fixed rule follows every cache alike: the floor is the rule and
	 * nothing is low.  Auto mode follows slow caches more closely than
	 * the gate lets through.
	 */
	gate_min = track_auto ? DPROF_TRACK_GATE : 0;
	dprof_track_floor = dprof_track_base;
	dprof_track_gate = max(dprof_track_floor, gate_min);
	/* The targets named (or walked) at load came before the rule. */
	for (i = 0; i < dprof_nr_targets; i++) {
		dprof_track_init_target(&dprof_targets[i]);
		dprof_track_low_sync(&dprof_targets[i]);
	}
	return 0;
}

/*
 * Inserts of pending entries and their commits (the scan's, byuse.c's)
 * and sweeps exclude each other (process context).
 */
void dprof_liveset_lock(void)
{
	mutex_lock(&track_lock);
}

void dprof_liveset_unlock(void)
{
	mutex_unlock(&track_lock);
}

/* byuse.c's: the scan holds the lock for seconds; it tries again later. */
bool dprof_liveset_trylock(void)
{
	return mutex_trylock(&track_lock);
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
 * Drops the entries the rules no longer want (track_lock held): every
 * target's sweep_shift then catches up with its track_shift, and the
 * floor with them.
 */
/* dprof_liveset_on_sweep_drop()'s callback; track_lock orders it. */
static void (*drop_fn)(unsigned long base);

void dprof_liveset_on_sweep_drop(void (*fn)(unsigned long base))
{
	mutex_lock(&track_lock);
	drop_fn = fn;
	mutex_unlock(&track_lock);
}

static void track_sweep(void)
{
	unsigned long nr = 1UL << slot_bits, i, v;
	unsigned int t, nr_targets = READ_ONCE(dprof_nr_targets), floor;
	struct dprof_target *tg;
	int target;

	/* Hooks run with preemption off: after this none uses an old rule. */
	synchronize_rcu();
	for (i = next_entry(0, nr); i < nr; i = next_entry(i + 1, nr)) {
		v = READ_ONCE(slots[i]);
		if (v <= SLOT_TOMB)
			continue;
		/* Kept on its slot's word; dropped only on its cache's. */
		target = READ_ONCE(owner[i]);
		if (target < nr_targets &&
		    dprof_track_wanted(target, v & ~SLOT_PENDING))
			continue;
		target = entry_target(v & ~SLOT_PENDING);
		if (target < 0 ||
		    dprof_track_wanted(target, v & ~SLOT_PENDING))
			continue;
		/*
		 * Freed meanwhile; no commit races: the scan and byuse.c
		 * commit holding track_lock.
		 */
		if (cmpxchg(&slots[i], v, SLOT_TOMB) != v)
			continue;
		this_cpu_dec(live_count);
		if (v & SLOT_PENDING)
			this_cpu_dec(pending_count);
		swept++;
		/* It left the set: a window on it must end, as on a free. */
		if (!(v & SLOT_PENDING) && drop_fn)
			drop_fn(v);
	}
	/* Only target=all adopts caches after load, at the base. */
	floor = dprof_target_all ? READ_ONCE(dprof_track_base) :
		DPROF_TRACK_MAX_SHIFT;
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
	/* The gate rises only with the floor: nothing is below it then. */
	WRITE_ONCE(dprof_track_gate, max(dprof_track_floor, gate_min));
	dprof_track_low_sync_all();
	sweeps++;
	sweep_owed = false;
	owed_lookups = 0;
	last_sweep = jiffies;
}

/*
 * Whether a sweep pays for itself within a second: until it runs, the
 * raised caches cost @lookups lookups in the set a second (some 100
 * instructions each, make bench-insns: their frees that only the older
 * rules pass, and every call of a cache still in the low set), against
 * a walk of every slot (some 2 instructions a slot, 20 an entry).
 */
static bool sweep_pays(u64 lookups)
{
	return lookups * 100 >=
	       (2UL << slot_bits) + 20UL * max(live_total(), 0L);
}

/*
 * Track 2^@by[t] times fewer objects of each target t, whose rules cost
 * @lookups a second until the sweep; or of all targets and those adopted
 * later, by one halving, when @by is NULL (process context).  False when
 * the load-time scan, which holds track_lock for its whole walk, is
 * running: try next time.
 *
 * The new rules apply to allocations at once; the sweep that drops the
 * entries they reject walks every slot (2 M under target=all).  It runs
 * at once when it pays (sweep_pays(): a flood's raises) or the set is
 * full (@by NULL: the slots are needed now); the small raises that
 * follow a noisy rate owe it, and trackrate.c pays it once their
 * lookups add up, or after SWEEP_MAX_MS.  Until the sweep, frees test the
 * older rules.
 */
bool dprof_track_raise(const u8 *by, u64 lookups)
{
	unsigned int t, nr_targets = READ_ONCE(dprof_nr_targets);
	struct dprof_target *tg;

	if (!mutex_trylock(&track_lock))
		return false;
	if (!by)
		WRITE_ONCE(dprof_track_base,
			   min(dprof_track_base + 1, (unsigned int)DPROF_TRACK_MAX_SHIFT));
	for (t = 0; t < nr_targets; t++) {
		tg = &dprof_targets[t];
		WRITE_ONCE(tg->track_shift,
			   min(tg->track_shift + (by ? by[t] : 1),
			       (unsigned int)DPROF_TRACK_MAX_SHIFT));
	}
	raises++;
	owed_lookups += lookups;
	if (!by || sweep_pays(owed_lookups))
		track_sweep();
	else
		WRITE_ONCE(sweep_owed, true);
	mutex_unlock(&track_lock);
	return true;
}

/*
 * A target adopted while a raise lifted the floor may start below it:
 * its objects entered only past the floor (the probes test it first), so
 * its rules are lifted to the floor, which its counts' scale and status
 * then say.  Under track_lock, so that no raise of adopt.c's rescan (the
 * set filling) runs meanwhile; skipped while one does.
 */
void dprof_track_lift_to_floor(void)
{
	unsigned int t, nr_targets = READ_ONCE(dprof_nr_targets);
	unsigned int floor = READ_ONCE(dprof_track_floor);

	if (!mutex_trylock(&track_lock))
		return;
	for (t = 0; t < nr_targets; t++) {
		struct dprof_target *tg = &dprof_targets[t];

		if (tg->track_shift < floor) {
			WRITE_ONCE(tg->track_shift, floor);
			WRITE_ONCE(tg->sweep_shift, floor);
			dprof_track_low_sync(tg);
		} else if (READ_ONCE(tg->low) && READ_ONCE(tg->gone)) {
			/* Buried: its bit need not cost lookups. */
			dprof_track_low_sync(tg);
		}
	}
	mutex_unlock(&track_lock);
}

void dprof_track_counts(struct dprof_track_counts *c)
{
	c->one_in = 1U << READ_ONCE(dprof_track_base);
	c->is_auto = track_auto;
	c->raises = READ_ONCE(raises);
	c->swept = READ_ONCE(swept);
	c->sweeps = READ_ONCE(sweeps);
	c->owed = READ_ONCE(sweep_owed);
}

/* The sweep the raises owe, once it pays or is due. */
void dprof_track_sweep_owed(void)
{
	if (!READ_ONCE(sweep_owed) ||
	    time_before(jiffies, last_sweep + msecs_to_jiffies(SWEEP_MAX_MS)) ||
	    !mutex_trylock(&track_lock))
		return;
	if (sweep_owed)
		track_sweep();
	mutex_unlock(&track_lock);
}

/*
 * Auto mode, process context: once the set holds more than 3/8 of its
 * slots (3/4 of max_objects), track half as many objects of every cache.
 */
void dprof_liveset_adapt(void)
{
	if (!slots || !track_auto ||
	    live_total() * 8 <= (long)(1UL << slot_bits) * 3 ||
	    dprof_track_base >= DPROF_TRACK_MAX_SHIFT)
		return;
	dprof_track_raise(NULL, 0);
}

void dprof_liveset_exit(void)
{
	vfree(slots);
	vfree(born);
	vfree(owner);
	slots = NULL;
	born = NULL;
	owner = NULL;
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
					u32 when, int target)
{
	unsigned long *free_slot, seen;
	unsigned int i;

retry:
	free_slot = NULL;
	seen = SLOT_EMPTY;
	for (i = 0; i < PROBE_LIMIT; i++) {
		unsigned long *slot = &slots[slot_index(base, i)];
		unsigned long v = READ_ONCE(*slot);

		if (v == (base | SLOT_PENDING) && val == base) {
			/*
			 * The allocation of an object entered as pending
			 * (the scan's, or byuse.c's): it was free, and this
			 * is a new object.  The entry counts already.
			 */
			if (cmpxchg(slot, v, val) != v)
				goto retry;
			WRITE_ONCE(born[slot - slots], when);
			WRITE_ONCE(owner[slot - slots], target);
			this_cpu_dec(pending_count);
			return DPROF_LIVE_INSERTED;
		}
		if (v == base && val == base) {
			/*
			 * An allocation of a live object: its free was not
			 * seen, or it was established by use while free
			 * (byuse.c).  This is a new object: born now.
			 */
			WRITE_ONCE(born[slot - slots], when);
			WRITE_ONCE(owner[slot - slots], target);
			return DPROF_LIVE_DUPLICATE;
		}
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
	WRITE_ONCE(owner[free_slot - slots], target);
	note_probe(i);
	this_cpu_inc(live_count);
	if (val & SLOT_PENDING)
		this_cpu_inc(pending_count);
	return DPROF_LIVE_INSERTED;
}

enum dprof_liveset_result dprof_liveset_insert(unsigned long base, int target)
{
	return insert(base, base, (u32)jiffies, target);
}

/* The scan: enter @base as pending (invisible until committed). */
enum dprof_liveset_result dprof_liveset_insert_pending(unsigned long base,
						       int target)
{
	return insert(base, base | SLOT_PENDING,
		      (u32)jiffies - BORN_BEFORE_LOAD, target);
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
	if (!slot || v != (base | SLOT_PENDING) || cmpxchg(slot, v, base) != v)
		return false;
	this_cpu_dec(pending_count);
	return true;
}

bool dprof_liveset_remove(unsigned long base)
{
	unsigned long *slot, v;

	while ((slot = find_slot(base, &v))) {
		/* A commit (pending -> live) may race: look again. */
		if (cmpxchg(slot, v, SLOT_TOMB) != v)
			continue;
		this_cpu_dec(live_count);
		if (v != base)
			this_cpu_dec(pending_count);
		/* A pending entry was not live yet: nothing watched it. */
		return v == base;
	}
	return false;
}

/* Remove @base if it is pending; false if it is not (live, or gone). */
bool dprof_liveset_drop_pending(unsigned long base)
{
	unsigned long *slot, v;

	slot = find_slot(base, &v);
	if (!slot || v != (base | SLOT_PENDING) ||
	    cmpxchg(slot, v, SLOT_TOMB) != v)
		return false;
	this_cpu_dec(live_count);
	this_cpu_dec(pending_count);
	return true;
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
				       int target, void *arg), void *arg)
{
	unsigned long nr = slots ? 1UL << slot_bits : 0, i, v;
	u32 now = jiffies;

	for (i = next_entry(0, nr); i < nr; i = next_entry(i + 1, nr)) {
		v = READ_ONCE(slots[i]);
		if (slot_live(v))
			fn(v, (u32)(now - READ_ONCE(born[i])),
			   READ_ONCE(owner[i]), arg);
	}
}

void dprof_liveset_stats(unsigned long *capacity, unsigned long *live,
			 unsigned long *pending, unsigned long *max_probe)
{
	long p = max(pending_total(), 0L);

	*capacity = slots ? 1UL << slot_bits : 0;
	*live = max(live_total() - p, 0L);
	*pending = p;
	*max_probe = READ_ONCE(max_probe_seen);
}

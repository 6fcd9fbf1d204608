// SPDX-License-Identifier: GPL-2.0
/*
 * The set of live target objects, usable from any context (NMI and #DB
 * included): a preallocated open-addressing table of object base addresses.
 *
 * - Insert (allocation hooks) claims a slot with cmpxchg().  Two live
 *   inserts of the same address cannot race: an object is allocated once
 *   at a time.  A pending insert (the scan's, byuse.c's) can race the
 *   allocation of the same address, freed meanwhile: each looks for the
 *   other after its claim (both claims are full barriers, so at least one
 *   sees the other), and the pending one goes.
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
static DEFINE_MUTEX(track_lock);	/* scan inserts vs sweep */

/* The scan's objects are older than the module: 2^30 jiffies (12 days at HZ=1000) before now. */
#define BORN_BEFORE_LOAD	BIT(30)

static unsigned int max_objects;
static unsigned int wanted_objects;	/* max_objects, or its default */
module_param(max_objects, uint, 0444);
MODULE_PARM_DESC(max_objects,
		 "Live target objects tracked for address resolution (256..16777216; default 0: 65536, 1048576 with target=all); 16 bytes of table each");

int dprof_liveset_params(void)
{
	if (max_objects && (max_objects < 256 || max_objects > 16777216)) {
		pr_err("max_objects=%u: must be between 256 and 16777216\n",
		       max_objects);
		return -EINVAL;
	}
	return 0;
}

int dprof_liveset_init(bool hooks)
{
	unsigned int objects = !hooks ? 256 : max_objects ? max_objects :
			       dprof_target_all ? 1048576 : 65536;
	/* Twice the expected maximum keeps the load factor at or below 1/2. */
	unsigned long nr = roundup_pow_of_two((unsigned long)objects * 2);
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
	wanted_objects = objects;
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

/* The target of a live set entry, or -1 (a racing free emptied its page). */
static int entry_target(unsigned long base)
{
	return dprof_target_of_cache(dprof_cache_of((const void *)base, NULL));
}

/* dprof_liveset_on_sweep_drop()'s callback; track_lock orders it. */
static void (*drop_fn)(unsigned long base);

void dprof_liveset_on_sweep_drop(void (*fn)(unsigned long base))
{
	mutex_lock(&track_lock);
	drop_fn = fn;
	mutex_unlock(&track_lock);
}

/*
 * A sweep's walk (track_lock held, rules.c): every entry the rules of its
 * target no longer want leaves the set, after the hooks that may still
 * use an older rule are done.  Returns how many left.
 */
u64 dprof_liveset_sweep(void)
{
	unsigned long nr = 1UL << slot_bits, i, v;
	unsigned int nr_targets = READ_ONCE(dprof_nr_targets);
	u64 dropped = 0;
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
		dropped++;
		/* It left the set: a window on it must end, as on a free. */
		if (!(v & SLOT_PENDING) && drop_fn)
			drop_fn(v);
	}
	return dropped;
}

/* The objects the set was sized for: max_objects or its default. */
unsigned int dprof_liveset_objects(void)
{
	return wanted_objects;
}

/* Entries now, and the table's slots (rules.c's costs). */
long dprof_liveset_entries(void)
{
	return live_total();
}

unsigned long dprof_liveset_slots(void)
{
	return slots ? 1UL << slot_bits : 0;
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

/*
 * After @mine was claimed for @val: the same address in another slot of
 * its chain (a pending insert raced the allocation of that address) goes
 * if it is pending, or @mine goes if @mine is.  Returns false when @mine
 * was the one dropped.
 */
static bool drop_twin(unsigned long base, unsigned long val,
		      unsigned long *mine)
{
	unsigned int i;

	for (i = 0; i < PROBE_LIMIT; i++) {
		unsigned long *slot = &slots[slot_index(base, i)];
		unsigned long v = READ_ONCE(*slot);

		if (slot == mine)
			continue;
		if (v == SLOT_EMPTY)
			break;
		if (v != base && v != (base | SLOT_PENDING))
			continue;
		if (val & SLOT_PENDING) {
			if (cmpxchg(mine, val, SLOT_TOMB) != val)
				return true;	/* an allocation made it live */
			this_cpu_dec(live_count);
			this_cpu_dec(pending_count);
			return false;
		}
		if (v & SLOT_PENDING &&
		    cmpxchg(slot, v, SLOT_TOMB) == v) {
			this_cpu_dec(live_count);
			this_cpu_dec(pending_count);
		}
		return true;
	}
	return true;
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
	return drop_twin(base, val, free_slot) ? DPROF_LIVE_INSERTED :
	       DPROF_LIVE_DUPLICATE;
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

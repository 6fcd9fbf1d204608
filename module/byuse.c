// SPDX-License-Identifier: GPL-2.0
/*
 * Older objects established by use (design.rst, "Older objects
 * established by use").  The load-time scan (scan.c) can tell live only
 * the objects of full slabs; an object older than the module in a slab
 * with a free slot (every CPU's slab has one) is never a target object,
 * however busy: memcached's one UDP socket was such an object.
 *
 * The in-use tick (inuse.c) decodes the instruction it stopped before.
 * When that instruction was about to touch an object that the tracking
 * rule follows but the live set does not hold, the object is a
 * candidate: the kernel touches allocated objects, and free ones only in
 * the allocator (its freelist pointers), so a candidate touched outside
 * the allocator's functions (by name: allocator_ip()) is older and not
 * established.  A register that merely holds an object's address says
 * nothing: SLUB's fast path keeps the next free object in one, and a
 * callee leaves its scratch registers to its caller; counting those
 * once made free objects live.  Here, in the collector's process
 * context, a new candidate enters the live set as pending (invisible; a
 * free removes it, an allocation makes it a new live object:
 * liveset.c), and a candidate seen again in a later period while still
 * pending (a whole period between: a second or more later) is committed
 * as an older object.  One not seen again within BYUSE_KEEP_PERIODS
 * periods leaves the set.
 *
 * Only the collector calls the candidates' functions (one thread: no
 * lock); dprof_older_add() is the scan's too.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kallsyms.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>
#include "uapi/dprof.h"
#include "target.h"
#include "liveset.h"
#include "ring.h"
#include "byuse.h"

#define BYUSE_SLOTS		256
#define BYUSE_KEEP_PERIODS	8

struct byuse_candidate {
	unsigned long base;	/* 0: a free slot */
	u32 first;		/* the period it entered the set as pending */
	u16 target;
};

struct byuse_state {
	struct byuse_candidate cand[BYUSE_SLOTS];
	unsigned int nr;	/* slots in use */
	u32 period;
	/* What became of the candidates (status). */
	u64 sightings;		/* register sightings of candidates */
	u64 pending;		/* entered the set as pending */
	u64 established;	/* committed: older objects */
	u64 gone;		/* freed or allocated while pending */
	u64 expired;		/* not seen again: left the set */
	u64 full;		/* no slot, or the set full: not entered */
	u64 busy;		/* the scan held the set: seen, not looked at */
	u64 allocator;		/* touched by the allocator: no proof of life */
	u64 touched;		/* allocated or freed since load: not older */
};

static struct byuse_state bu;
/* Set by the scan's init: older objects wanted, and can be told live. */
static bool byuse_wanted;
static bool byuse_nomem;	/* wanted, but no memory for the filter */

unsigned long *dprof_touched;

void dprof_byuse_want(bool on)
{
	unsigned long *map = NULL;

	/* Without memory for it, status says so (no load fails for it). */
	if (on)
		map = vzalloc(BITS_TO_LONGS(1UL << DPROF_TOUCHED_BITS) *
			      sizeof(long));
	byuse_nomem = on && !map;
	WRITE_ONCE(dprof_touched, map);
	WRITE_ONCE(byuse_wanted, !!map);
}

/* After the hooks are out (and synchronised): none reads the filter. */
void dprof_byuse_teardown(void)
{
	WRITE_ONCE(byuse_wanted, false);
	vfree(dprof_touched);
	dprof_touched = NULL;
}

/* The scan and the collector: two threads add to a target's older count. */
static DEFINE_SPINLOCK(older_lock);

void dprof_older_add(int target, unsigned long first, u32 objects,
		     u32 tracked)
{
	struct dprof_slab_live rec = {
		.hdr = {
			.kind = DPROF_REC_SLAB_LIVE, .size = sizeof(rec),
			.cpu = raw_smp_processor_id(), .target = target,
		},
		.time_ns = ktime_get_mono_fast_ns(),
		.addr = first, .objects = objects, .tracked = tracked,
	};

	spin_lock(&older_lock);
	WRITE_ONCE(dprof_targets[target].older,
		   dprof_targets[target].older + objects);
	spin_unlock(&older_lock);
	dprof_ring_write(&rec, sizeof(rec));
}

void dprof_byuse_init(void)
{
	memset(&bu, 0, sizeof(bu));
}

static struct byuse_candidate *find(unsigned long base)
{
	unsigned int i;

	for (i = 0; i < BYUSE_SLOTS; i++)
		if (bu.cand[i].base == base)
			return &bu.cand[i];
	return NULL;
}

static void forget(struct byuse_candidate *c)
{
	c->base = 0;
	bu.nr--;
}

/* Out of the set if still pending; else a free or an allocation came. */
static void drop(struct byuse_candidate *c)
{
	if (dprof_liveset_drop_pending(c->base))
		bu.expired++;
	else
		bu.gone++;
	forget(c);
}

/* Seen again a period later: an older object, if still pending. */
static void confirm(struct byuse_candidate *c)
{
	if (dprof_liveset_commit(c->base)) {
		bu.established++;
		dprof_older_add(c->target, c->base, 1, 1);
	} else {
		bu.gone++;
	}
	forget(c);
}

static void enter(unsigned long base, unsigned int target)
{
	struct byuse_candidate *c;

	/* The rule may have narrowed since the tick (a sweep). */
	if (!dprof_track_wanted(target, base))
		return;
	/* Allocated or freed since load: not an older object. */
	if (test_bit(hash_long(base, DPROF_TOUCHED_BITS), dprof_touched)) {
		bu.touched++;
		return;
	}
	if (bu.nr == BYUSE_SLOTS) {
		bu.full++;
		return;
	}
	switch (dprof_liveset_insert_pending(base, target)) {
	case DPROF_LIVE_INSERTED:
		break;
	case DPROF_LIVE_FULL:
		bu.full++;
		return;
	case DPROF_LIVE_DUPLICATE:
		return;		/* live since the tick, or the scan's */
	}
	c = find(0);
	c->base = base;
	c->target = target;
	c->first = bu.period;
	bu.nr++;
	bu.pending++;
}

/*
 * Whether @ip is in the slab allocator (or a checker of it), by the name
 * of its function: there a free object's bytes are touched too.
 */
static bool allocator_ip(unsigned long ip)
{
	static const char *const words[] = {
		"slab", "kmem_cache", "kmalloc", "kfree", "kvfree", "kvmalloc",
		"krealloc", "ksize", "get_partial", "put_cpu_partial",
		"unfreeze_partials", "__put_partials", "freelist", "kasan",
		"kfence", "kmsan", "memcg",
	};
	char name[KSYM_SYMBOL_LEN];
	unsigned int i;

	sprint_symbol_no_offset(name, ip);
	for (i = 0; i < ARRAY_SIZE(words); i++)
		if (strstr(name, words[i]))
			return true;
	return false;
}

void dprof_byuse_seen(unsigned long base, unsigned int target,
		      unsigned long ip)
{
	struct byuse_candidate *c;

	if (!READ_ONCE(byuse_wanted))
		return;
	bu.sightings++;
	if (allocator_ip(ip)) {
		bu.allocator++;
		return;
	}
	/*
	 * Pending entries and commits must not race a sweep of the set (a
	 * live entry the new rule does not follow would outlive its free).
	 * The scan holds the lock for its whole walk: the next sighting
	 * tries again.
	 */
	if (!dprof_liveset_trylock()) {
		bu.busy++;
		return;
	}
	c = find(base);
	if (c && c->target != target) {
		/* Its slab went to another cache: the old entry is stale. */
		drop(c);
		c = NULL;
	}
	if (!c)
		enter(base, target);
	else if (bu.period - c->first >= 2)
		confirm(c);	/* a period apart at least: a second or more */
	dprof_liveset_unlock();
}

void dprof_byuse_period(void)
{
	unsigned int i;

	if (!READ_ONCE(byuse_wanted))
		return;
	bu.period++;
	for (i = 0; i < BYUSE_SLOTS; i++) {
		struct byuse_candidate *c = &bu.cand[i];

		/* Not seen again, or its cache destroyed (every object freed). */
		if (c->base &&
		    (bu.period - c->first > BYUSE_KEEP_PERIODS ||
		     READ_ONCE(dprof_targets[c->target].flags) &
		     DPROF_TARGET_DEAD))
			drop(c);
	}
}

/* Pending entries left behind would be invisible but held: remove them. */
void dprof_byuse_exit(void)
{
	unsigned int i;

	for (i = 0; i < BYUSE_SLOTS; i++)
		if (bu.cand[i].base)
			dprof_liveset_drop_pending(bu.cand[i].base);
	memset(&bu, 0, sizeof(bu));
}

void dprof_byuse_show(struct seq_file *m)
{
	if (!READ_ONCE(byuse_wanted)) {
		seq_printf(m, "older objects by use: off (%s)\n",
			   byuse_nomem ? "no memory for the filter of touched addresses" :
			   "no scan");
		return;
	}
	seq_printf(m, "older objects by use: %llu established; %llu sightings: %llu in the allocator, %llu while the scan held the set, %llu of addresses allocated or freed since load\n",
		   bu.established, bu.sightings, bu.allocator, bu.busy,
		   bu.touched);
	seq_printf(m, "  %llu entered as pending, %u pending now, %llu freed or allocated meanwhile, %llu not seen again or their cache destroyed, %llu not entered: table or set full\n",
		   bu.pending, bu.nr, bu.gone, bu.expired, bu.full);
}

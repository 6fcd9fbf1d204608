// SPDX-License-Identifier: GPL-2.0
/*
 * The rules that follow a cache's objects 1 in 2^shift (liveset.h): the
 * base rule of new targets (track_one_in=, or auto's starting point), the
 * raises that halve a cache's or every cache's (the set filling,
 * trackrate.c's budget), the sweeps that drop the entries a raise rejects
 * (liveset.c walks the set for them), and the floor and gate the probes
 * test before any lookup (lowset.c keeps the low set).  Process context,
 * under the set's lock (dprof_liveset_lock()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/log2.h>
#include <linux/moduleparam.h>
#include <linux/mm.h>
#include <linux/vmstat.h>
#include "uapi/dprof.h"
#include "target.h"
#include "liveset.h"

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
static unsigned int track_one_in;
module_param(track_one_in, uint, 0444);
MODULE_PARM_DESC(track_one_in,
		 "Track 1 object in N (a power of two, by address hash; 1: all, the exact address set); 0 (default): adaptive, from 1 (named caches) or the slab size at load (target=all), halved whenever max_objects fills or the tracked allocations pass track_max_rate");

int dprof_track_params(void)
{
	if (track_one_in && !is_power_of_2(track_one_in)) {
		pr_err("track_one_in=%u: must be 0 (auto) or a power of two\n",
		       track_one_in);
		return -EINVAL;
	}
	return 0;
}

bool dprof_track_asked(void)
{
	return track_one_in;
}

/* Objects in slabs now, roughly: slab memory over a typical 64-byte stride. */
static unsigned long slab_objects_estimate(void)
{
	unsigned long pages =
		global_node_page_state_pages(NR_SLAB_RECLAIMABLE_B) +
		global_node_page_state_pages(NR_SLAB_UNRECLAIMABLE_B);

	return pages * (PAGE_SIZE / 64);
}

/*
 * At load, after the set: the base rule, and in auto mode under
 * target=all one where the slabs' objects now fill three quarters of
 * the set; the targets named (or walked) at load start there.
 */
void dprof_track_rules_init(void)
{
	unsigned int objects = dprof_liveset_objects(), i;
	unsigned long expected = dprof_target_all ? slab_objects_estimate() : 0;

	raises = 0;
	swept = 0;
	sweeps = 0;
	sweep_owed = false;
	owed_lookups = 0;
	last_sweep = jiffies;
	track_auto = !track_one_in;
	dprof_track_base = track_one_in ? ilog2(track_one_in) : 0;
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
	for (i = 0; i < dprof_nr_targets; i++) {
		dprof_track_init_target(&dprof_targets[i]);
		dprof_track_low_sync(&dprof_targets[i]);
	}
}

void dprof_track_init_target(struct dprof_target *t)
{
	unsigned int shift = READ_ONCE(dprof_track_base);

	t->track_shift = shift;
	t->sweep_shift = shift;
}

static void track_sweep(void)
{
	unsigned int t, nr_targets = READ_ONCE(dprof_nr_targets), floor;
	struct dprof_target *tg;

	swept += dprof_liveset_sweep();
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
	return lookups * 100 >= 2 * dprof_liveset_slots() +
	       20UL * max(dprof_liveset_entries(), 0L);
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

	if (!dprof_liveset_trylock())
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
	dprof_liveset_unlock();
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

	if (!dprof_liveset_trylock())
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
	dprof_liveset_unlock();
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
	    !dprof_liveset_trylock())
		return;
	if (sweep_owed)
		track_sweep();
	dprof_liveset_unlock();
}

/*
 * Auto mode, process context: once the set holds more than 3/8 of its
 * slots (3/4 of max_objects), track half as many objects of every cache.
 */
void dprof_liveset_adapt(void)
{
	if (!dprof_liveset_slots() || !track_auto ||
	    dprof_liveset_entries() * 8 <= (long)dprof_liveset_slots() * 3 ||
	    dprof_track_base >= DPROF_TRACK_MAX_SHIFT)
		return;
	dprof_track_raise(NULL, 0);
}

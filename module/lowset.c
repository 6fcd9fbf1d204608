// SPDX-License-Identifier: GPL-2.0
/*
 * The low set (dprof.h, dprof_track_low()): targets followed more closely
 * than the probes' gate, whose calls must reach the cache lookup however
 * the gate falls.  Targets are hashed by cache pointer into a bitmap the
 * probes test; a bit two caches share stays set while either is low.
 * Written in process context only, under low_lock; liveset.c moves
 * targets in and out as their rules change.
 */
#include <linux/bitmap.h>
#include <linux/hash.h>
#include <linux/mutex.h>
#include "uapi/dprof.h"
#include "target.h"
#include "liveset.h"

/* The probes' gate, max(floor, gate_min): liveset.c sets it. */
unsigned int dprof_track_gate;
unsigned long dprof_low_caches[BITS_TO_LONGS(1U << DPROF_LOW_BITS)];
unsigned int dprof_low_nr;
static DEFINE_MUTEX(low_lock);

/* Whether a low target other than @t shares bit @b (low_lock held). */
static bool low_bit_shared(const struct dprof_target *t, unsigned int b)
{
	unsigned int i, nr_targets = READ_ONCE(dprof_nr_targets);

	for (i = 0; i < nr_targets; i++)
		if (&dprof_targets[i] != t && dprof_targets[i].low &&
		    hash_ptr(dprof_targets[i].cache, DPROF_LOW_BITS) == b)
			return true;
	return false;
}

/* @t in the low set or out of it (low_lock held). */
static void low_set(struct dprof_target *t, bool want)
{
	unsigned int b;

	if (want == t->low)
		return;
	b = hash_ptr(t->cache, DPROF_LOW_BITS);
	t->low = want;
	if (want) {
		set_bit(b, dprof_low_caches);
		WRITE_ONCE(dprof_low_nr, dprof_low_nr + 1);
	} else {
		/* A rare walk of the targets (a cache leaving the set). */
		if (!low_bit_shared(t, b))
			clear_bit(b, dprof_low_caches);
		WRITE_ONCE(dprof_low_nr, dprof_low_nr - 1);
	}
}

static bool low_wanted(const struct dprof_target *t)
{
	return t->cache && !(t->flags & DPROF_TARGET_VAR) &&
	       !READ_ONCE(t->gone) &&
	       READ_ONCE(t->sweep_shift) < READ_ONCE(dprof_track_gate);
}

/*
 * Entering the set happens before the target is published (its objects
 * then reach the lookup from their first allocation), leaving it only
 * once its sweep_shift passes the gate (its entries then all pass the
 * gate's rule, so their frees still reach the lookup).
 */
void dprof_track_low_sync(struct dprof_target *t)
{
	mutex_lock(&low_lock);
	low_set(t, low_wanted(t));
	mutex_unlock(&low_lock);
}

void dprof_track_low_drop(struct dprof_target *t)
{
	mutex_lock(&low_lock);
	low_set(t, false);
	mutex_unlock(&low_lock);
}

/* Every target, after its rules changed (process context). */
void dprof_track_low_sync_all(void)
{
	unsigned int t, nr_targets = READ_ONCE(dprof_nr_targets);

	mutex_lock(&low_lock);
	for (t = 0; t < nr_targets; t++)
		low_set(&dprof_targets[t], low_wanted(&dprof_targets[t]));
	mutex_unlock(&low_lock);
}

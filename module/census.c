// SPDX-License-Identifier: GPL-2.0
/*
 * The census of the live set that old and in-use windows draw from
 * (census.h; window.c draws).  The census reads each entry's target from
 * its slot and draws with a seeded prandom state: some 20 instructions
 * an entry, and a walk of the slots at 2 a slot.
 */
#include <linux/prandom.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include "uapi/dprof.h"
#include "census.h"
#include "inuse.h"
#include "liveset.h"
#include "own.h"
#include "plan.h"
#include "target.h"
#include "watch.h"
#include "watch_config.h"

struct census dprof_census;

/*
 * A walk of the live set, the census's next: every slot (2 M under
 * target=all, some 5 M instructions with the entries), so not in the
 * collector's step, which it held for as long.  Under the referee, whose
 * guest runs instructions some 200 times slower, a census in the step
 * held the registers idle 1.2 s of every 4 (design.rst, "The census in
 * a work").  The collector queues the walk with its arrays and does not
 * touch them until the work published them (done, release/acquire); it
 * then swaps them with its own, so the next walk fills the last
 * census's.
 */
struct census_walk {
	unsigned long (*keep)[CENSUS_KEEP];	/* a reservoir per target */
	u32 *seen;		/* old objects per target */
	unsigned long min_age;	/* jiffies: the collector's, at queueing */
	/* The reservoir's draws: get_random_u32() was 100 an entry. */
	struct rnd_state rnd;
	bool early;		/* queued because every kept object was dead */
	bool queued;		/* the collector's: a walk not taken yet */
	bool done;		/* the work's: the arrays are filled */
};

static struct census_walk census_walk;
static struct work_struct census_work;

static void census_visit(unsigned long base, unsigned long age, int target,
			 void *arg)
{
	struct census_walk *c = arg;
	u32 n;

	/*
	 * The slot's target, not a resolution from the page (150
	 * instructions an entry): a wrong one, from an insert under way, is
	 * caught when the pick is resolved (window_draw()).  An entry an
	 * older rule let in (a sweep is owed, liveset.c) is not on its
	 * cache's current scale: the count would be inflated.
	 */
	if (age < c->min_age || target >= READ_ONCE(dprof_nr_targets) ||
	    (READ_ONCE(dprof_targets[target].flags) &
	     (DPROF_TARGET_DEAD | DPROF_TARGET_VAR)) ||
	    !dprof_track_wanted(target, base) ||
	    dprof_own_object(dprof_targets[target].cache, base))
		return;
	n = ++c->seen[target];
	if (n <= CENSUS_KEEP)
		c->keep[target][n - 1] = base;
	else if (reciprocal_scale(prandom_u32_state(&c->rnd), n) < CENSUS_KEEP)
		c->keep[target][reciprocal_scale(prandom_u32_state(&c->rnd),
						 CENSUS_KEEP)] = base;
}

static void census_free(void)
{
	kvfree(dprof_census.seen);
	kvfree(dprof_census.old);
	kvfree(dprof_census.in_use);
	kvfree(dprof_census.keep);
	memset(&dprof_census, 0, sizeof(dprof_census));
	kvfree(census_walk.seen);
	kvfree(census_walk.keep);
	memset(&census_walk, 0, sizeof(census_walk));
}

static bool census_alloc(void)
{
	struct census_walk *b = &census_walk;
	struct census *c = &dprof_census;

	c->seen = kvcalloc(DPROF_MAX_TARGETS, sizeof(*c->seen), GFP_KERNEL);
	c->old = kvcalloc(DPROF_MAX_TARGETS, sizeof(*c->old), GFP_KERNEL);
	c->in_use = kvcalloc(DPROF_MAX_TARGETS, sizeof(*c->in_use),
			     GFP_KERNEL);
	c->keep = kvcalloc(DPROF_MAX_TARGETS, sizeof(*c->keep), GFP_KERNEL);
	b->seen = kvcalloc(DPROF_MAX_TARGETS, sizeof(*b->seen), GFP_KERNEL);
	b->keep = kvcalloc(DPROF_MAX_TARGETS, sizeof(*b->keep), GFP_KERNEL);
	if (!c->seen || !c->old || !c->in_use || !c->keep || !b->seen ||
	    !b->keep) {
		census_free();
		return false;
	}
	prandom_seed_state(&b->rnd, get_random_u64());
	return true;
}

/* The work: one walk of the live set into census_walk's arrays. */
static void census_walk_fn(struct work_struct *work)
{
	struct census_walk *b = &census_walk;

	memset(b->seen, 0, DPROF_MAX_TARGETS * sizeof(*b->seen));
	dprof_liveset_for_each(census_visit, b);
	/* The arrays before the flag: the collector reads them after it. */
	smp_store_release(&b->done, true);
}

/* The collector: the walk's arrays become the census's. */
static void census_publish(void)
{
	struct census_walk *b = &census_walk;
	struct census *c = &dprof_census;
	unsigned int t, nr;
	u64 now, weight;

	swap(c->keep, b->keep);
	swap(c->seen, b->seen);
	c->min_age = b->min_age;
	c->taken++;
	c->retaken += b->early;
	c->stale = false;
	/*
	 * Censuses come at uneven times (sooner while turns find nothing):
	 * each weighs by the time since the last, so their mean is over time.
	 */
	now = watch_now_ns();
	weight = c->at_ns ? max_t(u64, div_u64(now - c->at_ns, NSEC_PER_MSEC),
				  1) : 1;
	nr = READ_ONCE(dprof_nr_targets);
	/* The strata: old objects not in use, and all old objects. */
	dprof_inuse_count_types(c->in_use, nr);
	for (t = 0; t < nr; t++) {
		unsigned int shift = READ_ONCE(dprof_targets[t].track_shift);
		u64 cold = c->seen[t] - min(c->in_use[t], c->seen[t]);

		if (c->seen[t])
			dprof_plan_count_census(t, (cold << shift) * weight,
						((u64)c->seen[t] << shift) *
						weight);
	}
	dprof_plan_count_census_done(weight);
	/* From here on seen[] counts the kept objects a draw may take. */
	for (t = 0; t < nr; t++) {
		c->old[t] = c->seen[t];
		c->seen[t] = min_t(u32, c->seen[t], CENSUS_KEEP);
	}
	c->at_ns = now;
	c->ready = true;
}

/*
 * Takes the census a walk finished, and queues the next walk when the
 * census is CENSUS_MS old (CENSUS_RETRY_MS if stale); true if there is
 * a census to draw from, false before the first or without memory.
 */
bool dprof_census_take(void)
{
	struct census_walk *b = &census_walk;
	struct census *c = &dprof_census;
	u64 due;

	if (!c->seen && !census_alloc())
		return false;
	/* Pairs with the work's release: its arrays after the flag. */
	if (b->queued && smp_load_acquire(&b->done)) {
		b->queued = false;
		census_publish();
	}
	due = (u64)(c->stale ? CENSUS_RETRY_MS : CENSUS_MS) * NSEC_PER_MSEC;
	if (!b->queued && (!c->ready || watch_now_ns() - c->at_ns >= due)) {
		b->min_age = dprof_old_age(&dprof_watch_cfg);
		b->early = c->ready && c->stale;
		b->done = false;
		b->queued = true;
		queue_work(system_unbound_wq, &census_work);
	}
	return c->ready;
}

void dprof_census_init(void)
{
	INIT_WORK(&census_work, census_walk_fn);
}

void dprof_census_exit(void)
{
	if (census_work.func)
		cancel_work_sync(&census_work);
	census_free();
}

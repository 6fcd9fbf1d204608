/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which offsets each history covers: one cover plan per target.  A plan's
 * members are the offsets to watch (history_offsets=, else every slot of
 * the object); its items are the groups one history watches together,
 * chosen so that a round watches every member (history_mode=set) or every
 * pair of members together (history_mode=pairs).  The collector picks the
 * least-covered item for a history and the least-exposed one for a sample
 * window.  Process context only (the collector thread and load).
 */
#ifndef DPROF_PLAN_H
#define DPROF_PLAN_H

#include <linux/types.h>
#include "uapi/dprof.h"

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

/* One kind of window on one type: its windows, their samples, its draws. */
struct dprof_window_sums {
	u64 windows;
	/*
	 * y: a window's samples times its draw's weight rho (window.c), in
	 * 1/DPROF_WINDOW_RHO_ONE (2^16) samples.
	 */
	u64 samples;		/* sum over the windows of y */
	u64 samples_sq;		/* sum of (y / 2^8)^2 */
	u64 sampled;		/* windows with a sample (y > 0) */
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
	 * YOUNG and LIFE: the type's allocations since load, the caller's
	 * (profile.c; allocount.h: every one where counted, else the
	 * tracked ones scaled).  Their windows are one allocation each of the
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
	/* In-use windows counted, all types: the type draws' units. */
	u64 inuse_windows;
	u64 elapsed_ms;		/* since load */
	unsigned int window_ms;
	bool lives;		/* LIFE stands for YOUNG (dprof_history_config) */
};

/* From the plans (plan.c), where the windows count them; racy reads. */
void dprof_plan_window_sums(unsigned int target,
			    struct dprof_window_sums sums[DPROF_NR_WINDOW_KINDS],
			    u64 allocs);
/*
 * What one life (or young window) of target @t stands for, spread: the
 * root mean square of their samples times the plan's cover, in 1/2^8
 * samples of the whole object, in *@spread; false (unknown) before
 * PLAN_SPREAD_MIN_LIVES of them (the spread draw, allocount.c).
 */
bool dprof_plan_life_spread(unsigned int t, u64 *spread);
/* The draws' part of the scale and window_ms (plan.c). */
void dprof_plan_window_scale(struct dprof_window_scale *scale);

/* Which offsets each history covers: one plan per target. */
struct hist_plan {
	u16 *members;		/* byte offsets, multiples of len */
	unsigned int nr_members;
	u16 (*items)[DPROF_HIST_MAX_OFFSETS];	/* DPROF_HIST_NO_OFFSET pads */
	u32 *done;		/* complete histories per item */
	u64 *exposure_ns;	/* time sample windows watched each item */
	/* samples and windows of each item, for the windows' item draws */
	u64 *item_samples;
	u32 *item_windows;
	/* the in-use tick's hints on each item (inuse.c), and their sum */
	u32 *item_hints;
	u64 hint_total;
	unsigned int nr_items;
	unsigned int item_slots;	/* offsets over all items */
	unsigned int cursor;	/* the histories' rotation */
	unsigned int wcursor;	/* the windows' */
	unsigned int stride;	/* their step: coprime with nr_items */
	u64 windows;		/* windows opened on this type, both kinds */
	/*
	 * Per kind, samples per window y: sums of y and y^2 over the windows
	 * opened, for the type's samples per window and their error (the
	 * windows are the independent draws, not the samples; see profile.c).
	 */
	struct dprof_window_sums win[DPROF_NR_WINDOW_KINDS];
	unsigned int window_backoff;	/* turns skipped after the last miss */
	unsigned int window_skip;	/* turns still to skip */
};

/*
 * How plans are made: @len bytes per watched offset, @offsets the
 * history_offsets= list (NULL: every offset), @pairs history_mode=pairs,
 * @group the offsets one history watches (1-4); @window_ms the sample
 * windows' length, for their scale; @lives whether the histories stand
 * for the young ages (dprof_history_config).  Before any plan.
 */
void dprof_plans_init(unsigned int len, const char *offsets, bool pairs,
		      unsigned int group, unsigned int window_ms, bool lives);
/* The plan of target @t, built on first use: 0 or -errno (logged). */
int dprof_plan_ensure(unsigned int t);
/* Target @t's plan; valid (and non-empty) once dprof_plan_built(@t). */
struct hist_plan *dprof_plan(unsigned int t);
bool dprof_plan_built(unsigned int t);
/* Whole struct dprof_plan_item entries from *pos on (debugfs "plans"). */
size_t dprof_plan_read(void *buf, size_t room, loff_t *pos);
void dprof_plans_free(void);
/*
 * The least-covered item, scanning from the cursor so ties rotate, the
 * cursor stepping by the plan's stride.
 */
unsigned int dprof_plan_next(struct hist_plan *p);
/*
 * For windows: half the time the item watched least long so far (ties
 * rotating), else one drawn by its samples per window so far and by the
 * in-use tick's hints; its weight rho_item = 1 / (K p), K the items, in
 * *@rho (plan.c).
 */
unsigned int dprof_plan_next_window(struct hist_plan *p, u32 *rho);
/*
 * The in-use tick saw an instruction about to touch @offset of an object
 * of target @t (collector; dropped, and counted, before @t's plan).
 */
void dprof_plan_hint(unsigned int t, unsigned int offset);
u64 dprof_plan_hints_unplanned(void);
/* A window on item @item of @p took @samples. */
void dprof_plan_count_item(struct hist_plan *p, unsigned int item,
			   u64 samples);
/*
 * A census of the live set found @old objects of @t older than a window,
 * @cold of them not in use, times the census's weight (window.c), and
 * the census's weight.
 */
void dprof_plan_count_census(unsigned int t, u64 cold, u64 old);
void dprof_plan_count_census_done(u64 weight);
/* The any gate drew an allocation of target @t. */
void dprof_plan_count_alloc_draw(unsigned int t);
/* A window of @kind on target @t took @y samples. */
void dprof_plan_count_window(unsigned int t, enum dprof_window_kind kind,
			     u64 y);

#endif

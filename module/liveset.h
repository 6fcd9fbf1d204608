/* SPDX-License-Identifier: GPL-2.0 */
/*
 * liveset.c, rules.c and lowset.c: the NMI-safe set of live target
 * objects and the rules that follow a cache's objects 1 in N.
 */
#ifndef _DPROF_LIVESET_H
#define _DPROF_LIVESET_H

#include <linux/types.h>
#include <linux/bitops.h>
#include <linux/hash.h>
#include "trackrule.h"
#include "target.h"

enum dprof_liveset_result {
	DPROF_LIVE_INSERTED,
	DPROF_LIVE_FULL,	/* no free slot within the probe bound */
	DPROF_LIVE_DUPLICATE,	/* already present: a free was missed */
};

/*
 * max_objects= and track_one_in= (liveset.c): checked first, then the set
 * sized by max_objects (or its default, larger for target=all) and 1
 * object in track_one_in followed by address hash; 0: auto, starting
 * where the slabs' objects would fill three quarters, halving when full.
 */
int dprof_liveset_params(void);
/* @hooks: false, no allocation hook fills it (the smallest table). */
int dprof_liveset_init(bool hooks);
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
/* The sparsest rule: 1 object in 2^20 of a cache. */
#define DPROF_TRACK_MAX_SHIFT	20
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

/* rules.c: track_one_in= checked; the rules at load, after the set. */
int dprof_track_params(void);
/* track_one_in= was given (not 0, auto): the hooks are asked for. */
bool dprof_track_asked(void);
void dprof_track_rules_init(void);
unsigned int dprof_liveset_objects(void);
/* The set's side of a sweep (lock held): the entries dropped. */
u64 dprof_liveset_sweep(void);
long dprof_liveset_entries(void);
unsigned long dprof_liveset_slots(void);
void dprof_liveset_adapt(void);
void dprof_liveset_lock(void);
void dprof_liveset_unlock(void);
bool dprof_liveset_trylock(void);
/*
 * For the rate rule above (trackrate.c; process context): track 2^@by[t]
 * times fewer objects of each target t, whose rules cost @lookups a second
 * until the sweep (false: the scan holds the set, try later); pay an owed
 * sweep; lift targets adopted below the floor to it.
 */
bool dprof_track_raise(const u8 *by, u64 lookups);
void dprof_track_sweep_owed(void);
void dprof_track_lift_to_floor(void);
struct dprof_track_counts {
	unsigned int one_in;	/* the base rule, 1 in N */
	bool is_auto;		/* track_one_in=0 */
	unsigned int raises;	/* times a rule was halved */
	u64 swept;		/* entries the sweeps dropped */
	unsigned int sweeps;	/* walks of the set for raises */
	bool owed;		/* a raise waits for its sweep */
};

void dprof_track_counts(struct dprof_track_counts *c);
/* A target about to be published starts at the current base rule. */
void dprof_track_init_target(struct dprof_target *t);
enum dprof_liveset_result dprof_liveset_insert(unsigned long base, int target);
enum dprof_liveset_result dprof_liveset_insert_pending(unsigned long base,
						       int target);
bool dprof_liveset_commit(unsigned long base);
bool dprof_liveset_remove(unsigned long base);
bool dprof_liveset_drop_pending(unsigned long base);
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
/* @live: entries live; @pending: entries pending besides (not live yet). */
void dprof_liveset_stats(unsigned long *capacity, unsigned long *live,
			 unsigned long *pending, unsigned long *max_probe);

#endif /* _DPROF_LIVESET_H */

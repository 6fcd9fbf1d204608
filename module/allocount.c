// SPDX-License-Identifier: GPL-2.0
/*
 * Every allocation counted by cache (see allocount.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/random.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include "target.h"
#include "allocount.h"
#include "plan.h"

#define ALLOC_COUNT_SLOTS	BIT(DPROF_ALLOC_COUNT_BITS)

u64 __percpu *dprof_alloc_counts;

/*
 * The draw's recent rates (dprof_alloc_count_draw(), the collector's
 * only): each target's count at the last refresh, and its growth since
 * the one before.
 */
static struct {
	u64 *last;
	u32 *rate;
	u64 at_ns;
	u64 spread_max;		/* the largest known spread (the spread rule) */
} draw;

void dprof_alloc_count_init(void)
{
	u64 __percpu *c = __alloc_percpu(ALLOC_COUNT_SLOTS * sizeof(u64),
					 sizeof(u64));

	draw.last = kcalloc(DPROF_MAX_TARGETS, sizeof(*draw.last), GFP_KERNEL);
	draw.rate = kcalloc(DPROF_MAX_TARGETS, sizeof(*draw.rate), GFP_KERNEL);
	draw.at_ns = 0;
	/* Without them the tracked allocations, scaled, are the count. */
	if (!c || !draw.last || !draw.rate) {
		pr_warn("no memory for the allocation counters: young windows are scaled by the tracked allocations, their types drawn by the any gate\n");
		free_percpu(c);
		c = NULL;
	}
	WRITE_ONCE(dprof_alloc_counts, c);
}

void dprof_alloc_count_exit(void)
{
	u64 __percpu *c = dprof_alloc_counts;

	WRITE_ONCE(dprof_alloc_counts, NULL);
	free_percpu(c);
	kfree(draw.last);
	kfree(draw.rate);
	draw.last = NULL;
	draw.rate = NULL;
}

static unsigned int slot_of(const struct dprof_target *t)
{
	return hash_ptr(t->cache, DPROF_ALLOC_COUNT_BITS);
}

u16 *dprof_alloc_count_owners(void)
{
	unsigned int i, nr = READ_ONCE(dprof_nr_targets);
	u16 *owners;

	if (!READ_ONCE(dprof_alloc_counts))
		return NULL;
	owners = kcalloc(ALLOC_COUNT_SLOTS, sizeof(*owners), GFP_KERNEL);
	if (!owners)
		return NULL;
	/*
	 * Dead targets too: their counts stay in the slot.  A cache not yet
	 * adopted (the rescan runs every second) adds its allocations to its
	 * slot's owner until then, unseen.
	 */
	for (i = 0; i < nr; i++)
		if (dprof_targets[i].cache &&
		    !(dprof_targets[i].flags & DPROF_TARGET_VAR))
			owners[slot_of(&dprof_targets[i])]++;
	return owners;
}

u64 dprof_alloc_count(unsigned int t, const u16 *owners, bool *exact)
{
	const struct dprof_target *tg = &dprof_targets[t];
	u64 __percpu *c = READ_ONCE(dprof_alloc_counts);
	unsigned int slot, cpu;
	u64 sum = 0;

	if (exact)
		*exact = false;
	if (!c || !owners || !tg->cache || (tg->flags & DPROF_TARGET_VAR) ||
	    owners[slot_of(tg)] != 1)
		/* Added to racily by the hooks (slab.c): a reading. */
		return data_race(tg->allocs_scaled);
	slot = slot_of(tg);
	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(c, cpu)[slot]);
	if (exact)
		*exact = true;
	return sum;
}

void dprof_alloc_count_stats(bool *counting, unsigned int *own,
			     unsigned int *shared)
{
	unsigned int i, nr = READ_ONCE(dprof_nr_targets);
	u16 *owners = dprof_alloc_count_owners();
	bool exact;

	*counting = owners;
	*own = 0;
	*shared = 0;
	for (i = 0; owners && i < nr; i++) {
		if (!dprof_targets[i].cache ||
		    (dprof_targets[i].flags & DPROF_TARGET_VAR))
			continue;
		dprof_alloc_count(i, owners, &exact);
		if (exact)
			(*own)++;
		else
			(*shared)++;
	}
	kfree(owners);
}

/* Every DRAW_REFRESH_MS or more: a rate, not one allocation's burst. */
#define DRAW_REFRESH_MS	250
/*
 * A type drawn waits for its next allocation (up to history_wait_ms), and
 * only one object is watched at a time.  A type with fewer than
 * DRAW_MIN_COUNT allocations in the last refresh (100 a second) would
 * keep the watch idle for 10 ms or more on average: its draw goes to the
 * any gate instead, whose next allocation comes at the whole machine's
 * rate.  On a quiet machine every type is that slow and the gate does all
 * the picking (the 60 windows instead of 935 of test-all-types, when every
 * drawn type was waited for); on a server its hot types are drawn.
 */
#define DRAW_MIN_COUNT	(100 * DRAW_REFRESH_MS / MSEC_PER_SEC)
/*
 * The spread half waits for slower types: one whose lives stand for
 * much is worth a wait of 50 ms on average (a tenth of history_wait_ms).
 * Under the referee memcached's kmalloc-8k buffers came 30 a second:
 * below DRAW_MIN_COUNT, they got lives only through the gate, 1 to 13 a
 * run.  A type whose spread is not known yet (under 4 lives) counts
 * with the largest known, so that it gets them; before any type has a
 * spread the half goes to the rate draw.
 */
#define DRAW_MIN_COUNT_SPREAD	(20 * DRAW_REFRESH_MS / MSEC_PER_SEC)

static void draw_refresh(void)
{
	unsigned int i, nr = READ_ONCE(dprof_nr_targets);
	u16 *owners = dprof_alloc_count_owners();
	u64 c;

	for (i = 0; i < nr; i++) {
		c = dprof_alloc_count(i, owners, NULL);
		draw.rate[i] = min_t(u64, c - draw.last[i], U32_MAX);
		draw.last[i] = c;
	}
	kfree(owners);
	draw.spread_max = 0;
	for (i = 0; i < nr; i++)
		if (dprof_plan_life_spread(i, &c))
			draw.spread_max = max(draw.spread_max, c);
}

/* Both factors of the spread rule's weight below 2^24: sums fit 64 bits. */
#define DRAW_FACTOR_MAX	(BIT_ULL(24) - 1)

static u64 draw_weight(unsigned int t, enum dprof_draw_rule rule)
{
	u64 spread;

	if (READ_ONCE(dprof_targets[t].flags) &
	    (DPROF_TARGET_DEAD | DPROF_TARGET_VAR))
		return 0;
	switch (rule) {
	case DPROF_DRAW_SQRT:
		return int_sqrt(draw.rate[t]);
	case DPROF_DRAW_SPREAD:
		if (draw.rate[t] < DRAW_MIN_COUNT_SPREAD)
			return 0;
		/* Unknown yet: the largest, so that it gets its first lives. */
		if (!dprof_plan_life_spread(t, &spread))
			spread = draw.spread_max;
		return min_t(u64, draw.rate[t], DRAW_FACTOR_MAX) *
		       min_t(u64, spread, DRAW_FACTOR_MAX);
	default:
		return draw.rate[t];
	}
}

/* A target drawn by the weights of @rule (their sum in *@total), or -1. */
static int draw_by(enum dprof_draw_rule rule, u64 *total)
{
	unsigned int i, nr = READ_ONCE(dprof_nr_targets);
	u64 u, w;

	*total = 0;
	for (i = 0; i < nr; i++)
		*total += draw_weight(i, rule);
	if (!*total)
		return -1;
	u = get_random_u64() % *total;
	for (i = 0; i < nr; i++) {
		w = draw_weight(i, rule);
		if (u < w)
			return i;
		u -= w;
	}
	return -1;
}

/*
 * The spread rule: half the draws by rate, so every type that allocates
 * keeps lives and a type new to the run gets its first; half by rate
 * times the spread of its lives so far, Neyman's allocation of a
 * stratified sample (a type's lives in proportion to its allocations
 * times the standard deviation of what one life stands for).  A life
 * of a kmalloc-8k buffer watches 32 of its 8,192 bytes and stands for
 * 256 times its samples, one of a 232-byte sk_buff for 8 times: drawn
 * by rate alone, memcached's kmalloc-8k got 1 to 13 lives a run for its
 * 5.7 % of the accesses, skbuff_head_cache over 100 for its 8 %, and
 * kmalloc-8k's estimate went from 0 to 19 % between runs.  Which type a
 * life goes to changes only how many lives each type gets: its estimate
 * is the mean of its own lives times its own allocations.
 */
int dprof_alloc_count_draw(enum dprof_draw_rule rule)
{
	u64 now = ktime_get_mono_fast_ns(), total;
	int t = -1;

	if (!READ_ONCE(dprof_alloc_counts) || rule == DPROF_DRAW_GATE)
		return -1;
	if (now - draw.at_ns >= DRAW_REFRESH_MS * NSEC_PER_MSEC) {
		draw_refresh();
		draw.at_ns = now;
	}
	if (rule == DPROF_DRAW_SPREAD && get_random_u32_below(2)) {
		t = draw_by(DPROF_DRAW_SPREAD, &total);
		if (t >= 0)
			return t;
	}
	t = draw_by(rule == DPROF_DRAW_SQRT ? rule : DPROF_DRAW_RATE, &total);
	return t >= 0 && draw.rate[t] >= DRAW_MIN_COUNT ? t : -1;
}

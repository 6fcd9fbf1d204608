/* SPDX-License-Identifier: GPL-2.0 */
/*
 * estimate.c: the watch sampler's estimate of each type's share of the
 * accesses, and its 95% interval, from the sums of its sample windows
 * (plan.h).  profile.c prints the figures and facts.c carries them; the
 * windows themselves are window.c's.
 */
#ifndef _DPROF_ESTIMATE_H
#define _DPROF_ESTIMATE_H

#include <linux/types.h>
#include "plan.h"

/* One type's estimate: its window sums in, its weight and variance out. */
struct window_estimate {
	struct dprof_window_sums win[DPROF_NR_WINDOW_KINDS];
	/* estimated samples per second, each kind's and the type's */
	u64 part[DPROF_NR_WINDOW_KINDS];
	u64 weight;
	/* its counted kinds' windows that took a sample (lives included) */
	u64 units;
	u64 relvar;		/* var(weight) / weight^2, in 1/2^20 */
	bool relvar_unknown;	/* a kind with samples in 1 window, no pool */
	u64 fewest_df;		/* degrees of freedom of its least-known kind */
	/* No window saw an access: the weight's 95% upper bound (3 / w). */
	u64 zero_bound;
};

/* What every type's share is taken of, and the kinds' pooled spreads. */
struct window_base {
	u64 weight;		/* sum of the types' weights */
	u64 spread;		/* sum of p^2 relvar, in 1/2^40 */
	struct dprof_window_scale scale;
	/* per kind: sum of w * (per-window relative variance), and of w - 1 */
	u64 pool_sum[DPROF_NR_WINDOW_KINDS];
	u64 pool_df[DPROF_NR_WINDOW_KINDS];
};

/*
 * Three passes over the types, in this order: each type's kinds into
 * the pools, then each type's weight, then each type's part of the
 * spread.  @b starts zeroed, with its scale set.
 */
void dprof_estimate_pool(struct window_base *b,
			 const struct window_estimate *e);
void dprof_estimate_weigh(struct window_base *b, struct window_estimate *e);
void dprof_estimate_spread(struct window_base *b,
			   const struct window_estimate *e);

/* The type's share and its 95% half-width, in 1/10000. */
unsigned int dprof_estimate_share(const struct window_estimate *e,
				  const struct window_base *b);
unsigned int dprof_estimate_half95(const struct window_estimate *e,
				   const struct window_base *b);
/* No window saw an access: the share's 95% upper bound, in 1/10000. */
unsigned int dprof_estimate_below(const struct window_estimate *e,
				  const struct window_base *b);
/*
 * The part the type's kinds with windows but no sample could hold: 95%
 * upper, in 1/10000 of the weight and it together (0: none such).
 */
unsigned int dprof_estimate_unseen(const struct window_estimate *e);
/* Kind @k's part of the type's weight, in 1/10000. */
unsigned int dprof_estimate_kind_part(const struct window_estimate *e,
				      unsigned int k);

/* IBS/PEBS: the binomial 95% half-width of @s_t of @s samples, 1/10000. */
unsigned int dprof_binomial_half95(u64 s_t, u64 s);

#endif /* _DPROF_ESTIMATE_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The maths of differential profiling (McKenney, "Differential profiling",
 * 1999): the three ways to combine a bucket's measurement m1 in the less
 * stressed run with m2 in the more stressed one, and the statistics that
 * say whether a difference is real.  Pure functions, no I/O.
 */
#ifndef DPROF_DIFFSTAT_H
#define DPROF_DIFFSTAT_H

#include <stddef.h>
#include <stdint.h>

/* Ratio m2 / m1 (eq. 1); +inf when only the stressed run has the bucket. */
double diff_ratio(double m1, double m2);

/* Weighted difference d = w1 m2 - w2 m1 (eq. 3), w the work done. */
double diff_weighted(double m1, double m2, double w1, double w2);

/*
 * Projected saturation load: the load l at which the bucket's measurement
 * reaches @limit, from m1 at load l1 and m2 at load l2, projected
 * linearly (eq. 4) or as a power law m = a l^k (eq. 5, whose printed form
 * gives log l).  +inf when the measurement does not grow.
 */
double diff_saturation_linear(double m1, double m2, double l1, double l2,
			      double limit);
double diff_saturation_power(double m1, double m2, double l1, double l2,
			     double limit);

/*
 * 95% Wilson interval of a binomial proportion k of n: used for the ratio
 * of two Poisson counts, b of a + b being binomial given the total.
 */
void diff_wilson(double k, double n, double *lo, double *hi);

/*
 * 95% interval of a Poisson mean from one count @k: the exact (Garwood)
 * interval, the Poisson sum inverted, under 100; Byar's approximation,
 * within a part in a thousand of it there, from 100 on.
 */
void diff_poisson(double k, double *lo, double *hi);

/*
 * Two-sided Mann-Whitney U test of samples x (n) and y (m): exact when
 * n + m <= 30 and nothing is tied, else the normal approximation with
 * the tie correction.  Returns the p value; *u gets U of x.
 */
double diff_mann_whitney(const double *x, size_t n, const double *y,
			 size_t m, double *u);

/* xorshift64*: a fixed, seedable generator so results are reproducible. */
struct diff_rng {
	uint64_t s;
};

uint64_t diff_rng_next(struct diff_rng *r);
double diff_rng_normal(struct diff_rng *r);	/* N(0, 1) */

/* The @q quantile (0..1) of @v (n values, sorted in place). */
double diff_quantile(double *v, size_t n, double q);
/*
 * Student's t, two-sided 95 %, for @df degrees of freedom (1.96 from 30
 * on; NAN below 1): the one table the analyses' intervals use, so that a
 * few units give a wide interval, not a narrow one.
 */
double stat_t975(double df);

#endif

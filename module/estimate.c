// SPDX-License-Identifier: GPL-2.0
/*
 * The watch sampler's share of type t in the accesses:
 *	p_t = A_t / sum_u A_u,	A_t = A_t,old + A_t,inuse + A_t,young
 * the type's estimated samples per second at ages of a window and more
 * (on objects not in use, and in use) and at younger ages, from the
 * three kinds of window (dprof.h).  Each is
 *	A_t,k = r_t,k G_t c_t,k K_k
 * r_t,k = s / w its samples per window (s samples in w windows of that
 * kind on t; for in-use windows each window's samples weighed by its
 * draw's rho = H / (N n), window.c), G_t the objects' accesses per
 * access to the watched item
 * (a window watches one item of the type's plan, the items in turn: in
 * history_mode=set G is the items' count, 8 for a 232-byte sk_buff, 262
 * for a task_struct; without it a type of large objects weighed as
 * little as the few bytes of it a window watches), c_t,k its draws,
 * and K_k the kind's scale (struct
 * dprof_window_scale): old, c is the type's old objects not in use
 * summed over the censuses and K one per census per window length
 * (window.c stratifies the old windows by type); in use, the same with
 * all its old objects (rho is relative to them); young and life
 * (histories, dprof.h), c is the type's allocations since load and K
 * one per second of it (the gate's draws are not in proportion to
 * them: dprof_window_sums).  Taking s_t / sum_u s_u instead would swing
 * with how many windows each type happened to get.
 *
 * The error, linearised: var(p_t) = p_t^2 ((1 - 2 p_t) R_t + S), where
 * S = sum_u p_u^2 R_u, R_u = var(A_u) / A_u^2, and per kind
 * R_u,k = q / s^2 - 1 / w, q the sum of the squared samples per
 * window (the windows are the independent draws, not the samples).
 * Old objects and allocations are counted, not drawn.  The kinds are
 * independent: R_u = sum_k (A_u,k / A_u)^2 R_u,k.  The scales are taken
 * as exact (their counts are of every object, not of draws).
 *
 * One window tells nothing of its kind's spread.  Such a kind takes the
 * per-window relative variance of its kind's windows on every type with
 * two or more (pooled: sum_u w (w q / s^2 - 1) / sum_u (w - 1), the
 * kind's windows weighed alike), and Student's t on the pool's degrees
 * of freedom: the types' windows of one kind are drawn by one rule, so
 * their spread is the best guess at its.  Before, the type printed
 * "+-?" and ranked by its point value alone (test-all-types failed on
 * dprof_rank_1's in-use kind with one window); the referee's calibration
 * (check-referee.sh) judges the pooled intervals with the others.
 */
#include <linux/bits.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/time64.h>
#include "estimate.h"

/* Shares and variances in fixed point: 1 is SHARE_ONE. */
#define SHARE_SHIFT	20
#define SHARE_ONE	BIT_ULL(SHARE_SHIFT)
/* A relative variance of 16 is an interval wider than any share. */
#define RELVAR_MAX	(16 * SHARE_ONE)
/* A pool term's cap: 4095 of them still fit in a u64. */
#define POOL_TERM_MAX	BIT_ULL(50)
#define WEIGHT_SHIFT	16	/* estimated samples per second, fixed point */

/* a * b / c, saturated where the quotient might not fit (c > 0). */
static u64 mul_div(u64 a, u64 b, u64 c)
{
	if (fls64(a) + fls64(b) - fls64(c) >= 63)
		return U64_MAX >> 9;	/* still summable over all targets */
	return mul_u64_u64_div_u64(a, b, c);
}

/* The kind a type's estimate leaves out: lives stand for young ages. */
static bool kind_counted(const struct dprof_window_scale *sc, unsigned int k)
{
	return k != (sc->lives ? DPROF_WINDOW_YOUNG : DPROF_WINDOW_LIFE);
}

/* K_k as the fraction @num / @den of samples per second per draw. */
static void kind_scale(const struct dprof_window_scale *sc,
		       unsigned int k, u64 *num, u64 *den)
{
	if (k == DPROF_WINDOW_OLD || k == DPROF_WINDOW_INUSE) {
		/* the mean over the censuses, per window_ms */
		*num = MSEC_PER_SEC;
		*den = sc->censuses * sc->window_ms;
	} else {
		/* the type's allocations (dprof_window_sums.allocs) per second */
		*num = MSEC_PER_SEC;
		*den = sc->elapsed_ms;
	}
}

/* @a, the watched item's, as the whole object's: times G_t. */
static u64 cover(u64 a, const struct dprof_window_sums *w)
{
	return w->cover_num && w->cover_den ?
	       mul_div(a, w->cover_num, w->cover_den) : a;
}

/*
 * q / s^2 in 1/SHARE_ONE: at most 1 (a sum of squares is at most the
 * square of the sum), 1 / w when every window saw the same.  q / s^2 <=
 * max y / s: (q / s) / s, q / s in fixed point first.  s is in 1/2^16
 * samples and q in 1/2^16 squared samples (plan.c squares y / 2^8): q /
 * s^2 is the ratio over 2^16.
 */
static u64 square_ratio(const struct dprof_window_sums *w)
{
	return mul_div(mul_div(w->samples_sq, SHARE_ONE, w->samples),
		       DPROF_WINDOW_RHO_ONE, w->samples);
}

/*
 * The units a kind's mean is over: its windows on the type, but for the
 * in-use kind every type's in-use windows.  An in-use window's type was
 * drawn by its use at the time, so a type's own windows crowd into its
 * busy spells and their mean read it high; each window's samples are
 * weighed over that chance (window.c), and the sum over all the draws
 * is the Hansen-Hurwitz estimate of the type's time-averaged rate, its
 * variance over the same units (the other types' draws count 0 for it).
 */
static u64 kind_units(const struct dprof_window_sums *w,
		      const struct dprof_window_scale *sc, unsigned int k)
{
	return k == DPROF_WINDOW_INUSE && sc->inuse_windows > w->windows ?
	       sc->inuse_windows : w->windows;
}

/*
 * A_t,k in 1/2^WEIGHT_SHIFT samples per second, and R_t,k (-1 with one
 * unit: unknown); where no window of the kind saw an access, 0 and its
 * 95% upper bound in @bound (the rule of three: a sum of 0 over w windows
 * bounds the mean by 3 / w; for the in-use kind the type's own w, the
 * chance of its draws being about w over all).
 */
static u64 kind_weight(const struct dprof_window_sums *w,
		       const struct dprof_window_scale *sc,
		       unsigned int k, s64 *relvar, u64 *bound)
{
	/* Counts, taken as exact: old objects, or the type's allocations. */
	u64 n = k == DPROF_WINDOW_YOUNG || k == DPROF_WINDOW_LIFE ?
		w->allocs : w->draws;
	u64 units = kind_units(w, sc, k);
	u64 num, den, rel, sub;

	*relvar = 0;
	*bound = 0;
	kind_scale(sc, k, &num, &den);
	if (!w->windows || !n || !num || !den)
		return 0;
	if (!w->samples) {
		/* 3 samples, in the sums' 1/DPROF_WINDOW_RHO_ONE */
		*bound = cover(mul_div(mul_div(3ULL << WEIGHT_SHIFT, n,
					       w->windows), num, den), w);
		return 0;
	}
	if (units < 2) {
		*relvar = -1;
	} else {
		rel = square_ratio(w);
		sub = div64_u64(SHARE_ONE, units);
		*relvar = min_t(u64, rel > sub ? rel - sub : 0, RELVAR_MAX);
	}
	/*
	 * The sums are in 1/DPROF_WINDOW_RHO_ONE samples (window.c), the
	 * weight's fixed point.
	 */
	BUILD_BUG_ON(DPROF_WINDOW_RHO_ONE != 1 << WEIGHT_SHIFT);
	return cover(mul_div(mul_div(w->samples, n, units), num, den), w);
}

void dprof_estimate_pool(struct window_base *b,
			 const struct window_estimate *e)
{
	unsigned int k;

	for (k = 0; k < DPROF_NR_WINDOW_KINDS; k++) {
		const struct dprof_window_sums *w = &e->win[k];
		u64 spread;

		if (!kind_counted(&b->scale, k) || w->windows < 2 ||
		    !w->samples)
			continue;
		/* w (w q / s^2 - 1): w - 1 times the unbiased CV^2 */
		spread = mul_div(w->windows, square_ratio(w), 1);
		spread = spread > SHARE_ONE ? spread - SHARE_ONE : 0;
		b->pool_sum[k] += min_t(u64, mul_div(spread, w->windows, 1),
					POOL_TERM_MAX);
		b->pool_df[k] += w->windows - 1;
	}
}

void dprof_estimate_weigh(struct window_base *b, struct window_estimate *e)
{
	u64 a[DPROF_NR_WINDOW_KINDS], rv[DPROF_NR_WINDOW_KINDS], f, bound, df;
	s64 relvar;
	unsigned int k;

	e->weight = 0;
	e->units = 0;
	e->relvar = 0;
	e->relvar_unknown = false;
	e->fewest_df = 0;
	e->zero_bound = 0;
	for (k = 0; k < DPROF_NR_WINDOW_KINDS; k++) {
		a[k] = 0;
		rv[k] = 0;
		e->part[k] = 0;
		if (!kind_counted(&b->scale, k))
			continue;
		a[k] = kind_weight(&e->win[k], &b->scale, k, &relvar, &bound);
		e->part[k] = a[k];
		e->units += e->win[k].sampled;
		e->weight += a[k];
		e->zero_bound += bound;
		if (!a[k])
			continue;
		if (relvar >= 0) {
			rv[k] = relvar;
			/*
			 * The spread rests on the type's own windows, the
			 * in-use kind's too (its other units are zeros):
			 * Student's t on all the in-use draws read rare
			 * types' intervals as if known from hundreds.
			 */
			df = max_t(u64, e->win[k].windows, 2) - 1;
		} else if (b->pool_df[k]) {
			/* One window: the kind's pooled spread, over w = 1. */
			rv[k] = min_t(u64, div64_u64(b->pool_sum[k],
						     b->pool_df[k]),
				      RELVAR_MAX);
			df = b->pool_df[k];
		} else {
			e->relvar_unknown = true;
			df = 0;
		}
		if (!e->fewest_df || df < e->fewest_df)
			e->fewest_df = df;
	}
	if (!e->weight)
		return;
	for (k = 0; k < DPROF_NR_WINDOW_KINDS; k++) {
		/* (A_k / A)^2 R_k: f^2 <= 2^40, R_k <= 2^24 */
		f = mul_div(a[k], SHARE_ONE, e->weight);
		e->relvar += ((f * f) >> SHARE_SHIFT) * rv[k] >> SHARE_SHIFT;
	}
	e->relvar = min_t(u64, e->relvar, RELVAR_MAX);
	b->weight += e->weight;
}

/* p in 1/SHARE_ONE (at most SHARE_ONE). */
static u64 share_fixed(const struct window_estimate *e,
		       const struct window_base *b)
{
	return b->weight ? min_t(u64, mul_div(e->weight, SHARE_ONE, b->weight),
				 SHARE_ONE) : 0;
}

void dprof_estimate_spread(struct window_base *b,
			   const struct window_estimate *e)
{
	u64 p = share_fixed(e, b);

	/* p^2 in 1/SHARE_ONE, times relvar <= 2^24: at most 2^44 */
	b->spread += (p * p >> SHARE_SHIFT) * e->relvar;
}

unsigned int dprof_estimate_share(const struct window_estimate *e,
				  const struct window_base *b)
{
	return (10000 * share_fixed(e, b)) >> SHARE_SHIFT;
}

/*
 * Student's t at 97.5% times 1000 on @df degrees of freedom (the windows
 * of the kind with the fewest, less one): two windows that agree are not
 * a narrow interval (a type estimated from 2 windows on memcached read
 * 85.2% +- 19.1 with 1.96, for 0.0% by the referee).
 */
static u64 t975_milli(u64 df)
{
	static const u16 t[] = {
		12706, 12706, 4303, 3182, 2776, 2571, 2447, 2365, 2306, 2262,
		2228, 2201, 2179, 2160, 2145, 2131, 2120, 2110, 2101, 2093,
		2086, 2080, 2074, 2069, 2064, 2060, 2056, 2052, 2048, 2045,
	};

	return df < ARRAY_SIZE(t) ? t[df] : 1960;
}

unsigned int dprof_estimate_half95(const struct window_estimate *e,
				   const struct window_base *b)
{
	u64 p = share_fixed(e, b);
	s64 v = (s64)b->spread +
		((s64)SHARE_ONE - 2 * (s64)p) * (s64)e->relvar;

	if (v <= 0)
		return 0;
	/* sqrt(v) is sqrt(V) in 1/SHARE_ONE: p sqrt(v) <= 2^46, t <= 2^14 */
	return min_t(u64, (10 * t975_milli(e->fewest_df) * p *
			   int_sqrt64(v)) >> (2 * SHARE_SHIFT), 10000);
}

unsigned int dprof_estimate_below(const struct window_estimate *e,
				  const struct window_base *b)
{
	return div64_u64(10000 * e->zero_bound, b->weight + e->zero_bound);
}

/*
 * A kind whose windows saw nothing has part 0 and no variance, so the
 * type's share and its fields' left out whatever it holds: kmalloc-192
 * on memcached, its young windows all memcslap's iovecs and its 3 old
 * and in-use windows empty, read 1.1% +- 0.6 for the referee's 2.7%, and
 * 7 of its 12 field intervals missed the referee's shares, the older
 * objects being used at other offsets.  The views widen by it.
 */
unsigned int dprof_estimate_unseen(const struct window_estimate *e)
{
	if (!e->weight || !e->zero_bound)
		return 0;
	return min_t(u64, mul_div(10000, e->zero_bound,
				  e->weight + e->zero_bound), 10000);
}

unsigned int dprof_estimate_kind_part(const struct window_estimate *e,
				      unsigned int k)
{
	return e->weight ? mul_div(e->part[k], 10000, e->weight) : 0;
}

unsigned int dprof_binomial_half95(u64 s_t, u64 s)
{
	u64 p;

	if (!s || s_t > s)
		return 0;
	p = div64_u64(s_t << 10, s);
	return min_t(u64, div64_u64(19600 * int_sqrt64(p * (1024 - p) * s),
				    1024 * s), 10000);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Differential profiling maths (see diffstat.h).  The exact Mann-Whitney
 * distribution is counted with the usual recurrence on (n, m, u): the
 * number of arrangements of n x's and m y's with U = u.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "diffstat.h"
#include "util.h"

double diff_ratio(double m1, double m2)
{
	if (m1 == 0)
		return m2 == 0 ? 1.0 : INFINITY;
	return m2 / m1;
}

double diff_weighted(double m1, double m2, double w1, double w2)
{
	return w1 * m2 - w2 * m1;
}

double diff_saturation_linear(double m1, double m2, double l1, double l2,
			      double limit)
{
	if (m2 <= m1 || l2 <= l1)
		return INFINITY;
	return (limit - m2) * (l2 - l1) / (m2 - m1) + l2;
}

double diff_saturation_power(double m1, double m2, double l1, double l2,
			     double limit)
{
	if (m1 <= 0 || m2 <= m1 || l1 <= 0 || l2 <= l1 || limit <= 0)
		return INFINITY;
	return exp(log(limit / m2) * log(l2 / l1) / log(m2 / m1) + log(l2));
}

void diff_wilson(double k, double n, double *lo, double *hi)
{
	const double z = 1.959964;
	double p, c, h;

	if (n <= 0) {
		*lo = 0;
		*hi = 1;
		return;
	}
	p = k / n;
	c = (p + z * z / (2 * n)) / (1 + z * z / n);
	h = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n);
	*lo = c - h < 0 ? 0 : c - h;
	*hi = c + h > 1 ? 1 : c + h;
}

/* P(X <= k) for X Poisson of mean @mu (k small: the sum is short). */
static double poisson_cdf(unsigned int k, double mu)
{
	double term = exp(-mu), sum = term;

	for (unsigned int i = 1; i <= k; i++) {
		term *= mu / i;
		sum += term;
	}
	return sum;
}

/* The mean at which P(X <= k) is @p (it falls as the mean grows). */
static double poisson_mean_at(unsigned int k, double p)
{
	double lo = 0, hi = k + 10 + 10 * sqrt(k + 1.0);

	for (int it = 0; it < 100; it++) {
		double mid = (lo + hi) / 2;

		if (poisson_cdf(k, mid) > p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

#define POISSON_EXACT_BELOW 100

void diff_poisson(double k, double *lo, double *hi)
{
	const double z = 1.959964;
	double a = k + 1, t;

	if (k < POISSON_EXACT_BELOW) {
		unsigned int n = k > 0 ? (unsigned int)k : 0;

		*lo = n ? poisson_mean_at(n - 1, 0.975) : 0;
		*hi = poisson_mean_at(n, 0.025);
		return;
	}
	t = 1 - 1 / (9 * k) - z / (3 * sqrt(k));
	*lo = k * t * t * t;
	t = 1 - 1 / (9 * a) + z / (3 * sqrt(a));
	*hi = a * t * t * t;
}

struct ranked {
	double v;
	int from_x;
};

static int by_value(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	return (x->v > y->v) - (x->v < y->v);
}

/* Arrangements with U = u, for n and m up to 30 in total: a table. */
static double exact_p(size_t n, size_t m, double u)
{
	size_t umax = n * m;
	/* count[i][j][k]: ways for i x's and j y's to give U = k */
	double *count = xcalloc((n + 1) * (m + 1) * (umax + 1), sizeof(*count));
	double total = 0, tail = 0, lo, p;

#define C(i, j, k) count[((i) * (m + 1) + (j)) * (umax + 1) + (k)]
	for (size_t i = 0; i <= n; i++)
		for (size_t j = 0; j <= m; j++)
			for (size_t k = 0; k <= umax; k++) {
				if (!i || !j) {
					C(i, j, k) = k == 0;
					continue;
				}
				/* largest value an x (adds j) or a y (adds 0) */
				C(i, j, k) = (k >= j ? C(i - 1, j, k - j) : 0) +
					     C(i, j - 1, k);
			}
	lo = u < (double)umax - u ? u : (double)umax - u;
	for (size_t k = 0; k <= umax; k++) {
		total += C(n, m, k);
		if ((double)k <= lo + 1e-9)
			tail += C(n, m, k);
	}
#undef C
	free(count);
	p = 2 * tail / total;
	return p > 1 ? 1 : p;
}

double diff_mann_whitney(const double *x, size_t n, const double *y,
			 size_t m, double *u)
{
	struct ranked *all;
	double rx = 0, tie_sum = 0, mean, sd, z;
	size_t nm = n + m;
	int ties = 0;

	*u = 0;
	if (!n || !m)
		return 1;
	all = xcalloc(nm, sizeof(*all));
	for (size_t i = 0; i < n; i++)
		all[i] = (struct ranked){ x[i], 1 };
	for (size_t i = 0; i < m; i++)
		all[n + i] = (struct ranked){ y[i], 0 };
	qsort(all, nm, sizeof(*all), by_value);
	for (size_t i = 0, j; i < nm; i = j) {
		double rank;

		for (j = i + 1; j < nm && all[j].v == all[i].v; j++)
			;
		rank = (double)(i + j + 1) / 2;	/* mid-rank of i..j-1 */
		for (size_t k = i; k < j; k++)
			if (all[k].from_x)
				rx += rank;
		if (j - i > 1) {
			double t = (double)(j - i);

			ties = 1;
			tie_sum += t * t * t - t;
		}
	}
	free(all);
	*u = rx - (double)n * (double)(n + 1) / 2;
	if (!ties && nm <= 30)
		return exact_p(n, m, *u);
	mean = (double)n * (double)m / 2;
	sd = sqrt((double)n * (double)m / 12 *
		  ((double)(nm + 1) - tie_sum / ((double)nm * (double)(nm - 1))));
	if (sd <= 0)
		return 1;
	z = (fabs(*u - mean) - 0.5) / sd;	/* continuity correction */
	if (z < 0)
		z = 0;
	return erfc(z / sqrt(2));
}

uint64_t diff_rng_next(struct diff_rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dull;
}

double diff_rng_normal(struct diff_rng *r)
{
	/* Box-Muller; uniforms in (0, 1]. */
	double u1 = ((double)(diff_rng_next(r) >> 11) + 1) / 9007199254740992.0;
	double u2 = (double)(diff_rng_next(r) >> 11) / 9007199254740992.0;

	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double diff_quantile(double *v, size_t n, double q)
{
	double pos;
	size_t i;

	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), dbl_cmp);
	pos = q * (double)(n - 1);
	i = (size_t)pos;
	if (i + 1 >= n)
		return v[n - 1];
	/* Equal neighbours (infinities too: inf - inf is NAN) need no mix. */
	if (v[i] == v[i + 1] || pos == (double)i)
		return v[i];
	if (isinf(v[i]) || isinf(v[i + 1]))
		return pos - (double)i < 0.5 ? v[i] : v[i + 1];
	return v[i] + (pos - (double)i) * (v[i + 1] - v[i]);
}

double stat_t975(double df)
{
	static const double t[] = {
		0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
		2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110,
		2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
		2.052, 2.048, 2.045,
	};

	if (!(df >= 1))
		return NAN;
	return df < 30 ? t[(int)df] : 1.96;
}

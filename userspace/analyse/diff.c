// SPDX-License-Identifier: GPL-2.0
/*
 * Differential profiles (see diff.h).  A side's value for a bucket:
 * counts are summed over its recordings (rates when per_second), means
 * are pooled over their items, levels are averaged.  Error bars:
 *  - several recordings on both sides: a bootstrap over each side's
 *    recordings (the run-to-run spread, the honest one), plus the
 *    Mann-Whitney test of the per-recording values;
 *  - otherwise the sampling error alone: Wilson's interval for a ratio of
 *    two counts (b of a + b is binomial), or normal draws of each side
 *    from its count or its items' variance, through the figure;
 *  - a level (a model output) in single recordings has none.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "diff.h"
#include "diffstat.h"
#include "util.h"

void diff_table_add(struct diff_table *t, const char *key,
		    struct diff_cell c)
{
	if (!(t->n & (t->n + 1))) {	/* 0, 1, 3, 7, ...: grow */
		size_t cap = 2 * (t->n + 1);

		t->keys = xrealloc(t->keys, cap * sizeof(*t->keys));
		t->cells = xrealloc(t->cells, cap * sizeof(*t->cells));
	}
	t->keys[t->n] = xstrdup(key);
	t->cells[t->n++] = c;
}

struct entry {
	char *key;
	struct diff_cell c;
};

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->key,
		      ((const struct entry *)b)->key);
}

void diff_table_finish(struct diff_table *t, enum diff_kind kind)
{
	struct entry *e = xcalloc(t->n + 1, sizeof(*e));
	size_t m = 0;

	for (size_t i = 0; i < t->n; i++)
		e[i] = (struct entry){ t->keys[i], t->cells[i] };
	if (t->n)
		qsort(e, t->n, sizeof(*e), entry_cmp);
	for (size_t i = 0; i < t->n; i++) {
		struct diff_cell *last = m ? &e[m - 1].c : NULL;

		if (m && !strcmp(e[m - 1].key, e[i].key)) {
			/* Same name twice (two functions of one name): merge. */
			if (kind == DIFF_MEAN && last->n + e[i].c.n > 0) {
				double n = last->n + e[i].c.n;

				last->value = (last->value * last->n +
					       e[i].c.value * e[i].c.n) / n;
				last->n = n;
				last->var = NAN;
			} else {
				last->value += e[i].c.value;
				last->n += e[i].c.n;
			}
			free(e[i].key);
			continue;
		}
		e[m++] = e[i];
	}
	for (size_t i = 0; i < m; i++) {
		t->keys[i] = e[i].key;
		t->cells[i] = e[i].c;
	}
	t->n = m;
	free(e);
}

static int key_cmp(const void *k, const void *elem)
{
	return strcmp((const char *)k, *(char *const *)elem);
}

const struct diff_cell *diff_table_find(const struct diff_table *t,
					const char *key)
{
	char **hit;

	if (!t->n)
		return NULL;
	hit = bsearch(key, t->keys, t->n, sizeof(*t->keys), key_cmp);
	return hit ? &t->cells[hit - t->keys] : NULL;
}

void diff_table_free(struct diff_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->keys[i]);
	free(t->keys);
	free(t->cells);
	memset(t, 0, sizeof(*t));
}

/* --- one side ---------------------------------------------------------- */

struct side {
	double v;	/* the side's value */
	double n;	/* counts or items behind it */
	double var;	/* items' variance (means); NAN unknown */
	double count;	/* counts: the raw total, for Wilson */
	double duration;
};

/* The side made of recordings @idx[0..k) of @t (indices may repeat). */
static struct side side_of(const struct diff_table *t, const size_t *idx,
			   size_t k, const char *key, enum diff_kind kind,
			   bool per_second)
{
	struct side s = { .var = NAN };
	double sq = 0;
	bool var_known = true;

	for (size_t i = 0; i < k; i++) {
		const struct diff_table *r = &t[idx[i]];
		const struct diff_cell *c = diff_table_find(r, key);

		s.duration += r->duration_s;
		if (!c)
			continue;
		switch (kind) {
		case DIFF_COUNT:
			s.count += c->value;
			break;
		case DIFF_MEAN:
			s.v += c->value * c->n;
			s.n += c->n;
			if (isnan(c->var))
				var_known = false;
			else
				sq += c->n * (c->var + c->value * c->value);
			break;
		case DIFF_LEVEL:
			s.v += c->value;
			break;
		}
	}
	switch (kind) {
	case DIFF_COUNT:
		s.n = s.count;
		s.v = per_second ? (s.duration > 0 ? s.count / s.duration : 0) :
				   s.count;
		break;
	case DIFF_MEAN:
		if (s.n > 0) {
			s.v /= s.n;
			if (var_known)
				s.var = fmax(0, sq / s.n - s.v * s.v);
		}
		break;
	case DIFF_LEVEL:
		s.n = (double)k;
		s.v = k ? s.v / (double)k : 0;
		break;
	}
	return s;
}

/* One recording's own value, for the rank test. */
static double recording_value(const struct diff_table *r, const char *key,
			      enum diff_kind kind, bool per_second)
{
	size_t zero = 0;

	return side_of(r, &zero, 1, key, kind, per_second).v;
}

static double figure_of(const struct diff_opts *o, double a, double b,
			bool power)
{
	switch (o->method) {
	case DIFF_RATIO:
		return diff_ratio(a, b);
	case DIFF_WEIGHTED:
		return diff_weighted(a, b, o->w1, o->w2);
	case DIFF_SATURATION:
		return power ? diff_saturation_power(a, b, o->l1, o->l2, o->limit) :
			       diff_saturation_linear(a, b, o->l1, o->l2,
						      o->limit);
	}
	return NAN;
}

/* The figure's value meaning "no change"; NAN when there is none. */
static double null_of(const struct diff_opts *o)
{
	return o->method == DIFF_RATIO ? 1 : o->method == DIFF_WEIGHTED ? 0 :
	       NAN;
}

/* --- error bars -------------------------------------------------------- */

static void interval_recordings(struct diff_row *row,
				const struct diff_table *a, size_t na,
				const struct diff_table *b, size_t nb,
				enum diff_kind kind, const struct diff_opts *o,
				struct diff_rng *rng, double *draws)
{
	unsigned int n = o->resamples ? o->resamples : 2000, m = 0;
	size_t *ia = xcalloc(na, sizeof(*ia)), *ib = xcalloc(nb, sizeof(*ib));
	double *va = xcalloc(na, sizeof(*va)), *vb = xcalloc(nb, sizeof(*vb));
	double u;

	for (unsigned int it = 0; it < n; it++) {
		struct side sa, sb;
		double f;

		for (size_t i = 0; i < na; i++)
			ia[i] = diff_rng_next(rng) % na;
		for (size_t i = 0; i < nb; i++)
			ib[i] = diff_rng_next(rng) % nb;
		sa = side_of(a, ia, na, row->key, kind, o->per_second);
		sb = side_of(b, ib, nb, row->key, kind, o->per_second);
		f = figure_of(o, sa.v, sb.v, false);
		if (!isnan(f))
			draws[m++] = f;
	}
	if (m >= n / 2) {
		row->lo = diff_quantile(draws, m, 0.025);
		row->hi = diff_quantile(draws, m, 0.975);
	}
	for (size_t i = 0; i < na; i++)
		va[i] = recording_value(&a[i], row->key, kind, o->per_second);
	for (size_t i = 0; i < nb; i++)
		vb[i] = recording_value(&b[i], row->key, kind, o->per_second);
	row->p = diff_mann_whitney(va, na, vb, nb, &u);
	free(ia);
	free(ib);
	free(va);
	free(vb);
}

static void interval_sampling(struct diff_row *row, const struct side *sa,
			      const struct side *sb, enum diff_kind kind,
			      const struct diff_opts *o, struct diff_rng *rng,
			      double *draws)
{
	unsigned int n = o->resamples ? o->resamples : 2000, m = 0;
	double sda, sdb;

	if (kind == DIFF_LEVEL)
		return;
	if (kind == DIFF_COUNT && o->method == DIFF_RATIO) {
		double lo, hi, scale = 1;

		if (sa->count + sb->count <= 0)
			return;
		if (o->per_second && sb->duration > 0)
			scale = sa->duration / sb->duration;
		diff_wilson(sb->count, sa->count + sb->count, &lo, &hi);
		row->lo = lo >= 1 ? INFINITY : scale * lo / (1 - lo);
		row->hi = hi >= 1 ? INFINITY : scale * hi / (1 - hi);
		return;
	}
	if (kind == DIFF_COUNT) {
		double ka = sa->duration > 0 && o->per_second ? sa->duration : 1;
		double kb = sb->duration > 0 && o->per_second ? sb->duration : 1;

		sda = sqrt(sa->count) / ka;
		sdb = sqrt(sb->count) / kb;
	} else {
		if (isnan(sa->var) || isnan(sb->var) || sa->n <= 0 || sb->n <= 0)
			return;
		sda = sqrt(sa->var / sa->n);
		sdb = sqrt(sb->var / sb->n);
	}
	for (unsigned int it = 0; it < n; it++) {
		double xa = sa->v + sda * diff_rng_normal(rng);
		double xb = sb->v + sdb * diff_rng_normal(rng);
		double f = figure_of(o, xa < 0 ? 0 : xa, xb < 0 ? 0 : xb, false);

		if (!isnan(f))
			draws[m++] = f;
	}
	if (m >= n / 2) {
		row->lo = diff_quantile(draws, m, 0.025);
		row->hi = diff_quantile(draws, m, 0.975);
	}
}

/* --- rows -------------------------------------------------------------- */

static enum diff_method sort_method;

static int row_cmp(const void *x, const void *y)
{
	const struct diff_row *a = x, *b = y;
	double fa = a->figure, fb = b->figure;

	if ((a->state == DIFF_KEPT) != (b->state == DIFF_KEPT))
		return a->state == DIFF_KEPT ? -1 : 1;
	if (isnan(fa) != isnan(fb))
		return isnan(fa) ? 1 : -1;
	if (fa != fb && !isnan(fa)) {
		if (sort_method == DIFF_SATURATION)
			return fa < fb ? -1 : 1;
		return fa > fb ? -1 : 1;
	}
	return strcmp(a->key, b->key);
}

/* Every key of every recording of both sides, once. */
static char **all_keys(const struct diff_table *a, size_t na,
		       const struct diff_table *b, size_t nb, size_t *n)
{
	struct diff_table u = { 0 };
	char **keys;

	for (size_t i = 0; i < na + nb; i++) {
		const struct diff_table *t = i < na ? &a[i] : &b[i - na];

		for (size_t k = 0; k < t->n; k++)
			diff_table_add(&u, t->keys[k], (struct diff_cell){ 0 });
	}
	diff_table_finish(&u, DIFF_COUNT);
	keys = u.keys;
	*n = u.n;
	free(u.cells);
	return keys;
}

void diff_compute(struct diff_result *res, const struct diff_table *a,
		  size_t na, const struct diff_table *b, size_t nb,
		  enum diff_kind kind, const struct diff_opts *o)
{
	struct diff_rng rng = { o->seed ? o->seed : 0x9e3779b97f4a7c15ull };
	size_t *ia = xcalloc(na + 1, sizeof(*ia)), *ib = xcalloc(nb + 1, sizeof(*ib));
	double *draws = xcalloc(o->resamples ? o->resamples : 2000,
				sizeof(*draws));
	double null = null_of(o);
	char **keys;

	memset(res, 0, sizeof(*res));
	for (size_t i = 0; i < na; i++)
		ia[i] = i;
	for (size_t i = 0; i < nb; i++)
		ib[i] = i;
	res->error = na >= 2 && nb >= 2 ? DIFF_ERROR_RECORDINGS :
		     kind == DIFF_LEVEL ? DIFF_ERROR_NONE : DIFF_ERROR_SAMPLING;
	keys = all_keys(a, na, b, nb, &res->n);
	res->rows = xcalloc(res->n + 1, sizeof(*res->rows));
	for (size_t k = 0; k < res->n; k++) {
		struct diff_row *row = &res->rows[k];
		struct side sa = side_of(a, ia, na, keys[k], kind, o->per_second);
		struct side sb = side_of(b, ib, nb, keys[k], kind, o->per_second);

		row->key = keys[k];
		row->a = sa.v;
		row->b = sb.v;
		row->a_n = sa.n;
		row->b_n = sb.n;
		row->figure = figure_of(o, sa.v, sb.v, false);
		row->figure_power = o->method == DIFF_SATURATION ?
				    figure_of(o, sa.v, sb.v, true) : NAN;
		row->lo = row->hi = row->p = NAN;
		/* Too small to matter: counts on both sides, items on either. */
		if ((kind == DIFF_COUNT && fmax(sa.n, sb.n) < o->min) ||
		    (kind == DIFF_MEAN && fmin(sa.n, sb.n) < o->min) ||
		    (kind == DIFF_LEVEL && sa.v == 0 && sb.v == 0)) {
			row->state = DIFF_FILTERED_MIN;
			res->filtered_min++;
			continue;
		}
		if (res->error == DIFF_ERROR_RECORDINGS)
			interval_recordings(row, a, na, b, nb, kind, o, &rng,
					    draws);
		else
			interval_sampling(row, &sa, &sb, kind, o, &rng, draws);
		if (!isnan(null) && !isnan(row->lo) && row->lo <= null &&
		    null <= row->hi) {
			row->state = DIFF_FILTERED_TEST;
			res->filtered_test++;
			continue;
		}
		row->state = DIFF_KEPT;
		res->kept++;
	}
	free(keys);	/* the strings now belong to the rows */
	sort_method = o->method;
	if (res->n)
		qsort(res->rows, res->n, sizeof(*res->rows), row_cmp);
	free(draws);
	free(ia);
	free(ib);
}

void diff_result_free(struct diff_result *res)
{
	for (size_t i = 0; i < res->n; i++)
		free(res->rows[i].key);
	free(res->rows);
	memset(res, 0, sizeof(*res));
}

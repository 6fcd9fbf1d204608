/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Differential profiles (thesis 6.2; McKenney 1999): one measure in
 * corresponding buckets of two sides, A (less stressed) and B, each side
 * one or more recordings.  Per bucket: both sides' values, the combined
 * figure (ratio, weighted difference, projected saturation load), an
 * error bar, and a filter that drops buckets too small to matter or not
 * significantly different.  Plain analysis: no I/O.
 */
#ifndef DPROF_DIFF_H
#define DPROF_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How a measure's error is known. */
enum diff_kind {
	DIFF_COUNT,	/* events counted: Poisson error, summed over a side */
	DIFF_MEAN,	/* a mean over items: error from their variance */
	DIFF_LEVEL,	/* a level or model output: no error known */
};

struct diff_cell {
	double value;	/* count, mean or level */
	double n;	/* items behind a mean (counts: the count) */
	double var;	/* variance of the items; NAN when unknown */
};

/* One recording's buckets for one measure. */
struct diff_table {
	char **keys;		/* sorted */
	struct diff_cell *cells;
	size_t n;
	double duration_s;
	double work, load;	/* NAN when the recording does not say */
};

void diff_table_add(struct diff_table *t, const char *key,
		    struct diff_cell c);
/* Sorts the keys (duplicates are summed as counts); call once, at the end. */
void diff_table_finish(struct diff_table *t, enum diff_kind kind);
const struct diff_cell *diff_table_find(const struct diff_table *t,
					const char *key);
void diff_table_free(struct diff_table *t);

enum diff_method {
	DIFF_RATIO,		/* B / A, descending */
	DIFF_WEIGHTED,		/* w_A B - w_B A, descending */
	DIFF_SATURATION,	/* projected saturation load, ascending */
};

enum diff_state {
	DIFF_KEPT,
	DIFF_FILTERED_MIN,	/* too few samples or items on both sides */
	DIFF_FILTERED_TEST,	/* the interval holds "no change" */
};

enum diff_error {
	DIFF_ERROR_NONE,	/* no error bar: a level, single recordings */
	DIFF_ERROR_SAMPLING,	/* from counts or item variance, per side */
	DIFF_ERROR_RECORDINGS,	/* bootstrap over each side's recordings */
};

struct diff_opts {
	enum diff_method method;
	double w1, w2;		/* work of A and B (weighted) */
	double l1, l2;		/* load of A and B (saturation) */
	double limit;		/* saturation measurement */
	double min;		/* counts / items below this on both: filtered */
	bool per_second;	/* counts as rates over the recordings' time */
	bool keep_all;		/* mark, but do not drop, filtered rows */
	unsigned int resamples;	/* bootstrap draws (0: 2000) */
	uint64_t seed;
};

struct diff_row {
	char *key;
	double a, b;		/* side values */
	double a_n, b_n;	/* counts or items behind them */
	double figure;		/* ratio, difference or linear saturation load */
	double figure_power;	/* saturation: power-law projection */
	double lo, hi;		/* 95% interval of the figure; NAN: none */
	double p;		/* Mann-Whitney p (several recordings); NAN */
	enum diff_state state;
};

struct diff_result {
	struct diff_row *rows;	/* sorted by the method, kept rows first */
	size_t n;
	size_t kept, filtered_min, filtered_test;
	enum diff_error error;
};

void diff_compute(struct diff_result *res, const struct diff_table *a,
		  size_t na, const struct diff_table *b, size_t nb,
		  enum diff_kind kind, const struct diff_opts *o);
void diff_result_free(struct diff_result *res);

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * Differential profiling against the published toy tables of McKenney,
 * "Differential profiling" (1999), ../shared/papers/000_*.txt:
 *  - Table 2 (ratio): poly2 12.00 first, then log 1.35, poly1 1.16 (the
 *    paper truncates 70/60 = 1.1667);
 *  - Table 4 (weighted difference, w1 = 1 CPU, w2 = 2 CPUs): line 64
 *    first with 397, every value of the table's last column;
 *  - Table 1 (projected saturation, loads 1 and 2, limit 100%): LSL 20, 9
 *    and 3, so the disk saturates first although its ratio and difference
 *    are the smallest.  (The table's D column, 5/10/1, is the plain
 *    difference m2 - m1, i.e. equation 3 with w1 = w2 = 1, not with the
 *    loads as weights: 10 - 2 * 5 would be 0.)
 * and the Mann-Whitney test against exactly known p values, and the
 * filtering of diff_compute.
 */
#include <math.h>
#include <stdlib.h>
#include "harness.h"
#include "diff.h"
#include "diffstat.h"

#define NEAR(a, b, eps) (fabs((a) - (b)) <= (eps))

static void one_table(struct diff_table *t, const char *const *keys,
		      const double *v, size_t n, enum diff_kind kind)
{
	memset(t, 0, sizeof(*t));
	t->duration_s = 1;
	t->work = t->load = NAN;
	for (size_t i = 0; i < n; i++)
		diff_table_add(t, keys[i], (struct diff_cell){
			.value = v[i], .n = v[i], .var = NAN });
	diff_table_finish(t, kind);
}

/*
 * The same numbers as counts (profiling hits), with their Poisson error:
 * poly2 (1 -> 12) and log (409 -> 554) grow beyond it; poly1 (60 -> 70)
 * does not (its 95% interval holds 1), so it is filtered as such.
 */
static void test_diff_table2_counts(void)
{
	static const char *const fn[] = { "log", "poly1", "poly2" };
	static const double load3[] = { 409, 60, 1 }, load4[] = { 554, 70, 12 };
	struct diff_opts o = { .method = DIFF_RATIO };
	struct diff_table a, b;
	struct diff_result res;

	one_table(&a, fn, load3, 3, DIFF_COUNT);
	one_table(&b, fn, load4, 3, DIFF_COUNT);
	diff_compute(&res, &a, 1, &b, 1, DIFF_COUNT, &o);
	CHECK_EQ_U64(res.kept, 2);
	CHECK_EQ_U64(res.filtered_test, 1);
	if (res.n == 3) {
		CHECK(!strcmp(res.rows[0].key, "poly2"));
		CHECK(!strcmp(res.rows[1].key, "log"));
		CHECK(!strcmp(res.rows[2].key, "poly1"));
		CHECK_EQ_U64(res.rows[2].state, DIFF_FILTERED_TEST);
		CHECK(res.rows[0].lo > 1 && res.rows[1].lo > 1);
		CHECK(res.rows[2].lo < 1 && res.rows[2].hi > 1);
	}
	diff_result_free(&res);
	diff_table_free(&a);
	diff_table_free(&b);
}

/* Ranking alone: every row kept (no test), descending ratio. */
static void test_diff_table2_ranking(void)
{
	static const char *const fn[] = { "log", "poly1", "poly2" };
	static const double load3[] = { 409, 60, 1 }, load4[] = { 554, 70, 12 };
	static const char *const want[] = { "poly2", "log", "poly1" };
	static const double ratio[] = { 12.00, 1.35, 1.16 };
	struct diff_opts o = { .method = DIFF_RATIO };
	struct diff_table a, b;
	struct diff_result res;

	one_table(&a, fn, load3, 3, DIFF_LEVEL);
	one_table(&b, fn, load4, 3, DIFF_LEVEL);
	diff_compute(&res, &a, 1, &b, 1, DIFF_LEVEL, &o);
	CHECK_EQ_U64(res.n, 3);
	CHECK_EQ_U64(res.kept, 3);
	for (size_t i = 0; i < res.n && i < 3; i++) {
		CHECK(!strcmp(res.rows[i].key, want[i]));
		/* two decimals, truncated as printed in the paper */
		CHECK(NEAR(floor(res.rows[i].figure * 100) / 100, ratio[i],
			   1e-9));
	}
	diff_result_free(&res);
	diff_table_free(&a);
	diff_table_free(&b);
}

static void test_diff_table4_weighted(void)
{
	static const char *const line[] = { "64", "75", "68", "71", "72",
					    "76", "73", "65", "70", "66" };
	static const double cpu1[] = { 61, 198, 74, 96, 4, 13, 279, 16, 214, 68 };
	static const double cpu2[] = { 519, 457, 162, 206, 18, 25, 556, 21, 417,
				       108 };
	static const double d[] = { 397, 61, 14, 14, 10, -1, -2, -11, -11, -28 };
	struct diff_opts o = { .method = DIFF_WEIGHTED, .w1 = 1, .w2 = 2 };
	struct diff_table a, b;
	struct diff_result res;

	for (size_t i = 0; i < 10; i++)
		CHECK(NEAR(diff_weighted(cpu1[i], cpu2[i], 1, 2), d[i], 1e-9));
	one_table(&a, line, cpu1, 10, DIFF_LEVEL);
	one_table(&b, line, cpu2, 10, DIFF_LEVEL);
	diff_compute(&res, &a, 1, &b, 1, DIFF_LEVEL, &o);
	CHECK_EQ_U64(res.n, 10);
	if (res.n == 10) {
		CHECK(!strcmp(res.rows[0].key, "64"));
		CHECK(NEAR(res.rows[0].figure, 397, 1e-9));
		CHECK(!strcmp(res.rows[1].key, "75"));
		CHECK(!strcmp(res.rows[9].key, "66"));
		for (size_t i = 0; i < 10; i++)
			CHECK(NEAR(res.rows[i].figure, d[i], 1e-9));
	}
	diff_result_free(&res);
	diff_table_free(&a);
	diff_table_free(&b);
}

static void test_diff_table1_saturation(void)
{
	static const char *const res_name[] = { "CPU", "Memory", "Disk" };
	static const double l1[] = { 5, 20, 98 }, l2[] = { 10, 30, 99 };
	static const double lsl[] = { 20, 9, 3 }, dcol[] = { 5, 10, 1 };
	struct diff_opts o = { .method = DIFF_SATURATION, .l1 = 1, .l2 = 2,
			       .limit = 100 };
	struct diff_table a, b;
	struct diff_result res;

	for (size_t i = 0; i < 3; i++) {
		CHECK(NEAR(diff_saturation_linear(l1[i], l2[i], 1, 2, 100),
			   lsl[i], 1e-9));
		CHECK(NEAR(diff_weighted(l1[i], l2[i], 1, 1), dcol[i], 1e-9));
	}
	/* Power law: CPU grows linearly (k = 1), so it projects to 20 too. */
	CHECK(NEAR(diff_saturation_power(5, 10, 1, 2, 100), 20, 1e-9));
	CHECK(isinf(diff_saturation_linear(10, 10, 1, 2, 100)));
	one_table(&a, res_name, l1, 3, DIFF_LEVEL);
	one_table(&b, res_name, l2, 3, DIFF_LEVEL);
	diff_compute(&res, &a, 1, &b, 1, DIFF_LEVEL, &o);
	CHECK_EQ_U64(res.n, 3);
	if (res.n == 3) {
		CHECK(!strcmp(res.rows[0].key, "Disk"));
		CHECK(NEAR(res.rows[0].figure, 3, 1e-9));
		CHECK(!strcmp(res.rows[1].key, "Memory"));
		CHECK(!strcmp(res.rows[2].key, "CPU"));
		/* the power law ranks the disk first as well */
		CHECK(res.rows[0].figure_power < res.rows[1].figure_power);
		CHECK(res.rows[0].figure_power < res.rows[2].figure_power);
	}
	diff_result_free(&res);
	diff_table_free(&a);
	diff_table_free(&b);
}

static void test_diff_mann_whitney_exact(void)
{
	static const double x3[] = { 1, 2, 3 }, y3[] = { 4, 5, 6 };
	static const double x5[] = { 1, 2, 3, 4, 5 }, y5[] = { 6, 7, 8, 9, 10 };
	static const double mix[] = { 1, 3, 5 }, mix2[] = { 2, 4, 6 };
	double u;

	/* Complete separation: 2 of C(6,3) = 20 and 2 of C(10,5) = 252. */
	CHECK(NEAR(diff_mann_whitney(x3, 3, y3, 3, &u), 2.0 / 20, 1e-12));
	CHECK(NEAR(u, 0, 1e-12));
	CHECK(NEAR(diff_mann_whitney(x5, 5, y5, 5, &u), 2.0 / 252, 1e-12));
	/* U = 3 of 9: P(U <= 3) = 7 of 20 arrangements, two-sided 0.7 */
	CHECK(NEAR(diff_mann_whitney(mix, 3, mix2, 3, &u), 0.7, 1e-12));
	CHECK(NEAR(u, 3, 1e-12));
}

static void test_diff_quantile(void)
{
	double v[] = { 4, 1, 3, 2 }, w[] = { 1, INFINITY, INFINITY, INFINITY };

	CHECK(NEAR(diff_quantile(v, 4, 0.5), 2.5, 1e-12));
	CHECK(NEAR(diff_quantile(v, 4, 0), 1, 1e-12));
	/* A figure that is infinite in most draws keeps an infinite end. */
	CHECK(isinf(diff_quantile(w, 4, 0.975)));
	CHECK(isinf(diff_quantile(w, 4, 0.5)));
	CHECK(NEAR(diff_quantile(w, 4, 0.025), 1, 1e-12));
}

static void test_diff_wilson(void)
{
	double lo, hi;

	/* 5 of 10: the textbook Wilson interval 0.2366 .. 0.7634 */
	diff_wilson(5, 10, &lo, &hi);
	CHECK(NEAR(lo, 0.2366, 1e-4));
	CHECK(NEAR(hi, 0.7634, 1e-4));
}

/*
 * The exact (Garwood) 95 % intervals of a Poisson mean, from chi-square
 * tables: k = 0 [0, 3.689] (-ln 0.025), 1 [0.0253, 5.572], 10 [4.795,
 * 18.39], 50 [37.11, 65.92] and 100 [81.36, 121.6] (the last by Byar's
 * approximation).
 */
static void test_diff_poisson(void)
{
	static const double k[] = { 0, 1, 10, 50, 100 };
	static const double exact[][2] = {
		{ 0, 3.689 }, { 0.0253, 5.572 }, { 4.795, 18.39 },
		{ 37.11, 65.92 }, { 81.36, 121.6 },
	};
	double lo, hi;

	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		diff_poisson(k[i], &lo, &hi);
		CHECK(NEAR(lo, exact[i][0], 0.002 * exact[i][0] + 1e-9));
		CHECK(NEAR(hi, exact[i][1], 0.002 * exact[i][1]));
	}
}

/*
 * Filtering: a bucket under the minimum count on both sides goes; a
 * bucket whose counts do not differ beyond their Poisson error goes as
 * not significant; a real doubling stays, with an interval around 2.
 */
static void test_diff_filters(void)
{
	static const char *const k[] = { "tiny", "same", "double" };
	static const double va[] = { 3, 1000, 1000 }, vb[] = { 6, 1010, 2000 };
	struct diff_opts o = { .method = DIFF_RATIO, .min = 10 };
	struct diff_table a, b;
	struct diff_result res;

	one_table(&a, k, va, 3, DIFF_COUNT);
	one_table(&b, k, vb, 3, DIFF_COUNT);
	diff_compute(&res, &a, 1, &b, 1, DIFF_COUNT, &o);
	CHECK_EQ_U64(res.kept, 1);
	CHECK_EQ_U64(res.filtered_min, 1);
	CHECK_EQ_U64(res.filtered_test, 1);
	CHECK_EQ_U64(res.error, DIFF_ERROR_SAMPLING);
	if (res.n == 3) {
		CHECK(!strcmp(res.rows[0].key, "double"));
		CHECK(res.rows[0].lo < 2 && res.rows[0].hi > 2);
		CHECK(res.rows[0].lo > 1.8 && res.rows[0].hi < 2.2);
	}
	diff_result_free(&res);
	diff_table_free(&a);
	diff_table_free(&b);
}

/*
 * Several recordings per side: the spread between runs decides.  A
 * bucket that doubles in every run stays; one whose runs overlap
 * (3 vs 2.5-3.5 per run around the same mean) goes.
 */
static void test_diff_recordings(void)
{
	static const char *const k[] = { "grows", "noisy" };
	static const double a_runs[3][2] = { { 100, 300 }, { 110, 200 },
					     { 90, 250 } };
	static const double b_runs[3][2] = { { 210, 240 }, { 190, 290 },
					     { 205, 230 } };
	struct diff_opts o = { .method = DIFF_RATIO, .min = 10 };
	struct diff_table a[3], b[3];
	struct diff_result res;

	for (int i = 0; i < 3; i++) {
		one_table(&a[i], k, a_runs[i], 2, DIFF_COUNT);
		one_table(&b[i], k, b_runs[i], 2, DIFF_COUNT);
	}
	diff_compute(&res, a, 3, b, 3, DIFF_COUNT, &o);
	CHECK_EQ_U64(res.error, DIFF_ERROR_RECORDINGS);
	CHECK_EQ_U64(res.kept, 1);
	CHECK_EQ_U64(res.filtered_test, 1);
	if (res.n == 2) {
		CHECK(!strcmp(res.rows[0].key, "grows"));
		CHECK(NEAR(res.rows[0].figure, 605.0 / 300, 1e-9));
		/* 3 vs 3 completely separated: the exact p is 0.1 */
		CHECK(NEAR(res.rows[0].p, 0.1, 1e-12));
	}
	diff_result_free(&res);
	for (int i = 0; i < 3; i++) {
		diff_table_free(&a[i]);
		diff_table_free(&b[i]);
	}
}

const struct unit_test diff_tests[] = {
	{ "diff: paper table 2, ratio: poly2 first", test_diff_table2_ranking },
	{ "diff: table 2 as counts: poly1 is within its error",
	  test_diff_table2_counts },
	{ "diff: paper table 4, weighted difference: line 64 first",
	  test_diff_table4_weighted },
	{ "diff: paper table 1, projected saturation: disk first",
	  test_diff_table1_saturation },
	{ "diff: Mann-Whitney exact p values", test_diff_mann_whitney_exact },
	{ "diff: Wilson interval", test_diff_wilson },
	{ "diff: Poisson interval", test_diff_poisson },
	{ "diff: quantiles, infinities included", test_diff_quantile },
	{ "diff: minimum count and significance filters", test_diff_filters },
	{ "diff: several recordings: bootstrap and rank test",
	  test_diff_recordings },
	{ NULL, NULL },
};

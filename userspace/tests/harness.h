/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal unit-test harness: CHECK records a failure with its location and
 * goes on; test-main.c runs every test and ends with the line
 * "N passed, N failed" that CI reads.
 */
#ifndef DPROF_TEST_HARNESS_H
#define DPROF_TEST_HARNESS_H

#include <stdio.h>
#include <string.h>

extern int test_checks_failed;

#define CHECK(cond)                                                          \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, \
				__LINE__, #cond);                             \
			test_checks_failed++;                                \
		}                                                            \
	} while (0)

#define CHECK_EQ_U64(a, b)                                                   \
	do {                                                                 \
		unsigned long long a_ = (a), b_ = (b);                       \
		if (a_ != b_) {                                              \
			fprintf(stderr, "%s:%d: %s == %llu, expected %llu\n", \
				__FILE__, __LINE__, #a, a_, b_);             \
			test_checks_failed++;                                \
		}                                                            \
	} while (0)

#define CHECK_STR_CONTAINS(hay, needle)                                      \
	do {                                                                 \
		if (!strstr((hay), (needle))) {                              \
			fprintf(stderr, "%s:%d: \"%s\" lacks \"%s\"\n",       \
				__FILE__, __LINE__, (hay), (needle));        \
			test_checks_failed++;                                \
		}                                                            \
	} while (0)

/* Each test file lists its tests with these. */
struct unit_test {
	const char *name;
	void (*fn)(void);
};

extern const struct unit_test recfile_tests[], objects_tests[],
	sysinfo_tests[], json_tests[], histories_tests[], decode_tests[],
	perfetto_tests[], heatmap_tests[], options_tests[], columns_tests[],
	layout_tests[], paths_tests[], classify_tests[], workingset_tests[],
	rawsamples_tests[], combine_tests[], cachesim_tests[], diff_tests[],
	kinds_tests[], datasyms_tests[], report_tests[], winshare_tests[],
	judge_tests[], advise_tests[], lives_tests[], memop_tests[],
	modparams_tests[], flow_tests[], sitesplit_tests[], cachegroups_tests[],
	fastpath_tests[];

#endif

// SPDX-License-Identifier: GPL-2.0
/* Runs every unit test of dprof-view's library code. */
#include <stdio.h>
#include "harness.h"

int test_checks_failed;

static const struct unit_test *const suites[] = {
	recfile_tests, objects_tests, sysinfo_tests, json_tests,
	histories_tests, decode_tests, layout_tests, paths_tests,
	classify_tests, workingset_tests, rawsamples_tests, combine_tests,
	cachesim_tests, diff_tests, kinds_tests, datasyms_tests,
	perfetto_tests, heatmap_tests, options_tests, columns_tests,
	report_tests, winshare_tests, judge_tests, advise_tests, lives_tests,
	memop_tests, modparams_tests, flow_tests, sitesplit_tests, fastpath_tests,
	cachegroups_tests,
};

int main(void)
{
	int passed = 0, failed = 0;

	for (size_t s = 0; s < sizeof(suites) / sizeof(suites[0]); s++) {
		for (const struct unit_test *t = suites[s]; t->name; t++) {
			int before = test_checks_failed;

			t->fn();
			if (test_checks_failed == before) {
				printf("ok %s\n", t->name);
				passed++;
			} else {
				printf("not ok %s\n", t->name);
				failed++;
			}
		}
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Module parameters for tests only (testparams.h): the user's are in
 * the files they configure.  Each opens a window a test needs (a late
 * scan, a failed allocation at a chosen point of init, the counter path
 * of IBS/PEBS without their hardware).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include "uapi/dprof.h"
#include "compat.h"
#include "testparams.h"
#include "sample.h"

static char *test_perf = "off";
module_param(test_perf, charp, 0444);
MODULE_PARM_DESC(test_perf,
		 "Tests only, with sampler=inject: also open one counter per CPU through the path of the IBS and PEBS counters: software (cpu-clock, one sample per period ns, default 1 ms; no data address) or refuse (a PMU type no kernel registers: the load fails as a refused IBS or PEBS counter does); off (default)");

static unsigned int test_scan_delay_ms;
module_param(test_scan_delay_ms, uint, 0444);
MODULE_PARM_DESC(test_scan_delay_ms,
		 "Tests only: start the scan of older objects this late (0..10000 ms), as a slow walk of a large memory would, so allocations after load land in full slabs first (default 0)");

static unsigned int test_fail_nth;
module_param(test_fail_nth, uint, 0444);
MODULE_PARM_DESC(test_fail_nth,
		 "Tests only, on kernels with CONFIG_FAULT_INJECTION: the N-th slab or page allocation of the load's init fails (as /proc/<pid>/fail-nth, counted from the start of dprof's init); the kernel log says whether it was reached (default 0: off)");

static bool test_inuse = true;
module_param(test_inuse, bool, 0444);
MODULE_PARM_DESC(test_inuse,
		 "Tests only: N leaves the in-use tick out, so that a test can tell what the tick alone costs an idle CPU (default Y)");

static bool test_exact_counts;
module_param(test_exact_counts, bool, 0444);
MODULE_PARM_DESC(test_exact_counts,
		 "Tests and benches only: Y where instructions are counted exactly (QEMU -icount; the guests' modload passes it), so status judges each handler against its instruction budget; elsewhere the counts are estimates from cycles and carry no verdict (default N)");

bool dprof_test_exact_counts(void)
{
	return test_exact_counts;
}

int dprof_test_params(struct dprof_test_config *tc, int sampler)
{
	if (test_scan_delay_ms > 10000) {
		pr_err("test_scan_delay_ms=%u: must be between 0 and 10000\n",
		       test_scan_delay_ms);
		return -EINVAL;
	}
	if (!strcmp(test_perf, "off")) {
		tc->perf = DPROF_TEST_PERF_OFF;
	} else if (!strcmp(test_perf, "software")) {
		tc->perf = DPROF_TEST_PERF_SOFTWARE;
	} else if (!strcmp(test_perf, "refuse")) {
		tc->perf = DPROF_TEST_PERF_REFUSE;
	} else {
		pr_err("test_perf=%s: must be off, software or refuse\n",
		       test_perf);
		return -EINVAL;
	}
	if (tc->perf != DPROF_TEST_PERF_OFF &&
	    sampler != DPROF_SAMPLER_INJECT) {
		pr_err("test_perf=%s: a test of the counter path, needs sampler=inject\n",
		       test_perf);
		return -EINVAL;
	}
	tc->scan_delay_ms = test_scan_delay_ms;
	tc->no_inuse = !test_inuse;
	return 0;
}

static unsigned int test_rescan_ms = 1000;
module_param(test_rescan_ms, uint, 0444);
MODULE_PARM_DESC(test_rescan_ms,
		 "Tests only: target=all looks for new caches every N ms (1..1000, default 1000), to race rescans with cache destroys");

unsigned int dprof_test_rescan_ms(void)
{
	return clamp(test_rescan_ms, 1U, 1000U);
}

void dprof_test_fail_nth_note(const char *stage)
{
	if (test_fail_nth && dprof_fail_nth_get())
		pr_info("test_fail_nth=%u: %s passed %u points\n",
			test_fail_nth, stage,
			test_fail_nth - dprof_fail_nth_get());
}

/*
 * The count starts at dprof's own init, not at the module loader's
 * allocations, which vary from load to load under KASAN and kmemleak and
 * whose failures the kernel handles (and warns about) itself.
 */
int dprof_test_fail_nth_run(int (*setup)(void))
{
	unsigned int left;
	int ret;

	if (!test_fail_nth)
		return setup();
	if (!DPROF_HAVE_FAIL_NTH) {
		pr_err("test_fail_nth=%u: needs a kernel with CONFIG_FAULT_INJECTION\n",
		       test_fail_nth);
		return -EINVAL;
	}
	dprof_fail_nth_set(test_fail_nth);
	ret = setup();
	left = dprof_fail_nth_get();
	dprof_fail_nth_set(0);
	if (left)
		pr_info("test_fail_nth=%u: not reached, init passed %u points and returned %d\n",
			test_fail_nth, test_fail_nth - left, ret);
	else
		pr_info("test_fail_nth=%u: injected, init returned %d\n",
			test_fail_nth, ret);
	return ret;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The parameters only tests set (testparams.c), apart from the user's
 * (main.c): each makes a race or a failure happen on demand, and none
 * changes what dprof measures when left at 0 or off.
 */
#ifndef DPROF_TESTPARAMS_H
#define DPROF_TESTPARAMS_H

#include "sample.h"

struct dprof_test_config {
	unsigned int reserve_delay_ms;	/* history.c: hold each reserve */
	enum dprof_test_perf perf;	/* sample.c: a counter, IBS/PEBS path */
	unsigned int scan_delay_ms;	/* scan.c: start the scan this late */
};

/* The tests' parameters, checked against @sampler (sampler=): 0 or -EINVAL. */
int dprof_test_params(struct dprof_test_config *tc, int sampler);
/*
 * @setup, with test_fail_nth= failing the N-th slab or page allocation
 * from its start (kernels with CONFIG_FAULT_INJECTION); the kernel log
 * says whether it was reached.
 */
int dprof_test_fail_nth_run(int (*setup)(void));
/* test_fail_nth=: how many allocation points @stage passed, logged. */
void dprof_test_fail_nth_note(const char *stage);

#endif

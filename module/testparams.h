/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The parameters only tests set (testparams.c), apart from the user's
 * (main.c): each makes a race or a failure happen on demand, and none
 * changes what dprof measures when left at 0 or off.  Built only with
 * DPROF_TESTS (Kbuild): the packages' module has none of them.
 */
#ifndef DPROF_TESTPARAMS_H
#define DPROF_TESTPARAMS_H

#include "sample.h"

struct dentry;

struct dprof_test_config {
	enum dprof_test_perf perf;	/* sample.c: a counter, IBS/PEBS path */
	unsigned int scan_delay_ms;	/* scan.c: start the scan this late */
	bool no_inuse;			/* inuse.c: no in-use tick */
};

#ifdef DPROF_TESTS
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
/* test_rescan_ms=: how often target=all looks for new caches. */
unsigned int dprof_test_rescan_ms(void);
/* The tests' debugfs files (testfiles.c), in dprof's folder. */
void dprof_test_files(struct dentry *dir);
/* test_exact_counts=: instructions are counted exactly (QEMU -icount). */
bool dprof_test_exact_counts(void);
#else
/* The packages' build: no test knob, the defaults. */
static inline int dprof_test_params(struct dprof_test_config *tc, int sampler)
{
	tc->perf = DPROF_TEST_PERF_OFF;
	tc->scan_delay_ms = 0;
	tc->no_inuse = false;
	return 0;
}

static inline int dprof_test_fail_nth_run(int (*setup)(void))
{
	return setup();
}

static inline void dprof_test_fail_nth_note(const char *stage)
{
}

static inline unsigned int dprof_test_rescan_ms(void)
{
	return 1000;
}

static inline void dprof_test_files(struct dentry *dir)
{
}

static inline bool dprof_test_exact_counts(void)
{
	return false;
}
#endif

#endif

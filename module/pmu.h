/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hardware samplers' perf attributes (pmu.c): which PMU an IBS or
 * PEBS counter goes to and with which event, as the parameters that
 * userspace read from sysfs say, and the test counter that runs their
 * path where neither exists.  sample.c
 * creates the counters from them on every CPU.
 */
#ifndef DPROF_PMU_H
#define DPROF_PMU_H

#include <linux/perf_event.h>

struct dprof_pmu_attrs {
	struct perf_event_attr attr[2];	/* loads (or IBS op), stores */
	unsigned int nr;
};

/*
 * 0, or -ENODEV with @why saying what is missing in a sentence fit for
 * status and the load's error.
 */
int dprof_pmu_ibs(struct dprof_pmu_attrs *a, u64 period, const char **why);
int dprof_pmu_pebs(struct dprof_pmu_attrs *a, u64 period, const char **why);
/* test_perf=: cpu-clock, or (@refuse) a PMU type no kernel registers. */
void dprof_pmu_test(struct dprof_pmu_attrs *a, u64 period, bool refuse);

#endif

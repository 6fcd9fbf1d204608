/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perfsample.c: the IBS and PEBS samplers, one perf kernel counter (or
 * two: loads, stores) per online CPU, whose overflow handler hands the
 * sample's data address to the sample path (sample.c).
 */
#ifndef DPROF_PERFSAMPLE_H
#define DPROF_PERFSAMPLE_H

#include <linux/perf_event.h>
#include "pmu.h"

struct dprof_sampler_ops;

extern const struct dprof_sampler_ops dprof_ibs_sampler;
extern const struct dprof_sampler_ops dprof_pebs_sampler;

/*
 * The counters of @a on every online CPU, following hotplug, from now
 * on; 0, or -errno with *@why saying why.  One set at a time.
 */
int dprof_perf_open(const struct dprof_pmu_attrs *a, const char **why);
/* Every counter released; idempotent. */
void dprof_perf_close(void);
/* The counters' overflow handler (NMI; cpu-clock's hrtimer for tests). */
void dprof_sample_perf_hit(struct perf_event *ev, struct perf_sample_data *data,
			   struct pt_regs *regs);

#endif

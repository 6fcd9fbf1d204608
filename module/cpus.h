/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which CPUs dprof may disturb: its breakpoints (watch.c), its in-use
 * tick (inuse.c) and its hardware samplers (sample.c) go only where this
 * says, and so do the IPIs that point the breakpoints.
 */
#ifndef _DPROF_CPUS_H
#define _DPROF_CPUS_H

#include <linux/sched/isolation.h>

/*
 * Not on a CPU isolated by isolcpus= or nohz_full= (or, from 6.12, an
 * isolated cpuset partition): latency-bound work runs there and expects
 * no interrupt it did not ask for.  Its accesses are then not seen.
 */
static inline bool dprof_cpu_watched(unsigned int cpu)
{
	return !cpu_is_isolated(cpu);
}

#endif /* _DPROF_CPUS_H */

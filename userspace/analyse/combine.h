/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Combined traces (thesis 3.3, 5.4): a history watches at most two offsets
 * (debug registers), so the accesses to a whole object are put together
 * from the path traces of many offset sets, "matching up common access
 * patterns to the same offset".
 *
 * Within one family of paths (same type, allocation and free site):
 *  - every offset gets a consensus projection: the sequence of its
 *    accesses (instruction, read or write) that most histories agree on.
 *    The k-th access of that sequence is one node of the combined trace,
 *    whichever pair it was watched with;
 *  - a path whose accesses to each of its offsets equal the consensus is
 *    used; the others went another way and are counted, not merged;
 *  - each used path orders its two offsets' nodes: consecutive steps give
 *    an edge weighted by the histories on the path;
 *  - the trace is the order that keeps every offset's own sequence and
 *    breaks the least edge weight.  When every pair of offsets was watched
 *    together and the paths agree this order is unique and exact; a step
 *    whose pair was never watched is placed by its mean time since
 *    allocation and counted, and disagreeing paths give the broken weight.
 *
 * CPU changes come from the paths too: two steps adjacent in the trace are
 * adjacent in the path of their two offsets, whose flag says whether the
 * CPU changed between them (unknown when that pair was never watched).
 * Plain analysis: no I/O.
 */
#ifndef DPROF_COMBINE_H
#define DPROF_COMBINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "paths.h"

enum combined_cpu {
	COMBINED_CPU_SAME,
	COMBINED_CPU_CHANGE,
	COMBINED_CPU_UNKNOWN,	/* no path watched both steps */
};

struct combined_step {
	uint64_t ip;
	uint16_t offset;
	bool write;
	bool by_time;		/* placed by time: no path orders it */
	enum combined_cpu cpu;	/* against the step before (or allocation) */
	/*
	 * 0: on the allocating CPU, 1: on another one, by the parity of the
	 * CPU changes before it in the paths that watched it (exact for an
	 * object used by two CPUs); -1: the paths are split evenly.
	 */
	int8_t side;
	double time_mean_ns;	/* since allocation */
	uint64_t histories;	/* histories that watched this access */
	uint64_t samples, misses, latency_sum;
};

struct combined_trace {
	int target;
	uint64_t alloc_site, free_site;
	enum combined_cpu free_cpu;	/* freed on another CPU than last step */
	uint16_t *offsets;	/* watched in the family, ascending */
	uint8_t len;		/* bytes watched at each (history_len) */
	size_t nr_offsets;
	size_t pairs, pairs_watched;	/* offset pairs; ordered by a path */
	size_t paths_used, paths_other;
	uint64_t histories_used, histories_other;
	uint64_t order_weight;	/* edge weight, in histories */
	uint64_t order_broken;	/* weight the order had to go against */
	size_t by_time;		/* steps placed by time */
	struct combined_step *steps;
	size_t nr_steps;
	size_t cpu_changes;
};

struct combined_set {
	struct combined_trace *c;	/* by target, then histories used */
	size_t n;
};

/* One trace per (target, allocation site, free site) of @ps's paths. */
void combine_build(struct combined_set *cs, const struct path_set *ps);
void combine_free(struct combined_set *cs);

#endif

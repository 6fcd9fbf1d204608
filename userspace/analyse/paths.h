/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Path traces (thesis 4, 5.4): complete object access histories of a type
 * merged when they watched the same offsets and took the same execution
 * path, i.e. the same sequence of (accessing instruction, offset) steps
 * with the same CPU-change flags (CPU numbers themselves do not matter),
 * between the same allocation and free call sites.  Each step keeps the
 * mean time since allocation over the merged histories and the access
 * samples for the same (type, offset, ip).  Plain analysis: no I/O.
 */
#ifndef DPROF_PATHS_H
#define DPROF_PATHS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "histories.h"
#include "recfile.h"

struct path_step {
	uint64_t ip;		/* accessing instruction */
	uint16_t offset;	/* watched slot */
	bool write;
	bool cpu_change;	/* on another CPU than the step before */
	double time_sum_ns;	/* since allocation, summed over histories */
	/* access samples with this type, slot and ip (all CPUs) */
	uint64_t samples, misses, latency_sum;
};

struct path {
	int target;
	uint16_t offset[DPROF_HIST_MAX_OFFSETS];	/* NO_OFFSET pads */
	uint8_t nr_offsets;
	uint8_t len;		/* bytes watched at each offset */
	uint64_t alloc_site, free_site;
	bool free_cpu_change;	/* freed on another CPU than the last step */
	struct path_step *steps;
	size_t nr_steps;
	uint64_t count;		/* histories merged into this path */
	double lifetime_sum_ns;
	uint32_t first_id;	/* the first history that took it */
	uint64_t hash;
};

/* Unique paths against complete histories, in collection order. */
struct path_growth {
	size_t histories;
	size_t paths;
};

struct path_target {
	size_t histories;	/* complete histories used */
	size_t skipped;		/* histories not complete (timeout, flags) */
	size_t nr_paths;
	struct path_growth *growth;	/* one point per history */
};

struct path_set {
	struct path *p;		/* by target, then count, most first */
	size_t n;
	struct path_target *t;	/* per recording target */
	size_t nr_targets;
};

void paths_build(struct path_set *ps, const struct recording *r,
		 const struct history_set *hs);
void paths_free(struct path_set *ps);

/*
 * New unique paths among the last @frac (0..1) of @t's histories: the
 * coverage still growing says more collection would find more paths.
 */
size_t paths_new_in_tail(const struct path_target *t, double frac);

#endif

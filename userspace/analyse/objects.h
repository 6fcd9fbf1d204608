/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The address set (thesis 4.3) summarised: per target and CPU, how many
 * objects were allocated and freed, how many were freed on another CPU than
 * the one that allocated them, and how long they lived.  Plain analysis: no
 * I/O, no printing.
 */
#ifndef DPROF_OBJECTS_H
#define DPROF_OBJECTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "recfile.h"

#define OBJ_MAX_CPUS 4096

struct obj_cpu_stats {
	uint64_t allocs;
	uint64_t frees;
	uint64_t remote_frees;	/* freed here, allocated on another CPU */
};

struct obj_target_stats {
	uint64_t allocs, frees;
	uint64_t bulk_allocs, bulk_frees;
	uint64_t matched;		/* frees whose allocation was recorded */
	uint64_t remote_frees;		/* matched, on another CPU */
	/*
	 * The bounce (remote_frees / matched) over its independent units, the
	 * distinct addresses: the lives of one address are not independent
	 * (a loop that reuses one object; an address-hash sample follows
	 * the same addresses again).  The 95% half-width of the ratio with
	 * the addresses as clusters; <0 with fewer than 2 addresses.
	 */
	uint64_t bounce_addrs;
	double bounce_err;
	uint64_t unmatched_frees;	/* allocated before recording, or lost */
	uint64_t live_at_end;		/* allocated, not freed when it ended */
	uint64_t untracked;		/* module's live set was full */
	double lifetime_mean_ns;	/* over matched pairs */
	uint64_t lifetime_p50_ns, lifetime_p90_ns, lifetime_max_ns;
	struct obj_cpu_stats *cpu;	/* nr_cpus entries */
};

/* One object's life in the recording, for the working-set view. */
struct obj_life {
	uint64_t addr;
	uint64_t alloc_ns, end_ns;	/* end: free, or the recording's end */
	uint16_t target;
	bool freed;
};

struct obj_summary {
	int nr_cpus;
	struct obj_life *lives;		/* every recorded allocation */
	size_t nr_lives;
	uint64_t first_ns, last_ns;	/* span of the alloc/free events */
	size_t nr_targets;
	struct obj_target_stats *targets;
	uint64_t lost_marked;		/* records the stream says were lost */
};

int objects_summarize(const struct recording *r, struct obj_summary *out);
void objects_free(struct obj_summary *s);

#endif

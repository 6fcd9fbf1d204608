/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Object access histories rebuilt from a recording's BEGIN, ELEM and END
 * records (module/uapi/dprof.h).  Plain analysis code: no printing.
 */
#ifndef DPROF_HISTORIES_H
#define DPROF_HISTORIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "recfile.h"

struct hist_elem {
	uint64_t ip;		/* accessing instruction (trap ip if unmapped) */
	uint64_t trap_ip;	/* as the hardware reported it */
	uint64_t pos;		/* record index: order of equal times */
	uint32_t time_ns;	/* since allocation */
	uint16_t cpu;
	uint16_t offset;	/* watched byte offset in the object */
	bool write;
};

struct history {
	uint32_t id;
	uint32_t plan_item;
	int target;
	uint64_t addr;
	uint64_t alloc_ns, end_ns;	/* CLOCK_MONOTONIC */
	uint64_t alloc_site, free_site;
	uint16_t alloc_cpu, end_cpu;
	uint16_t offset[2];
	uint8_t nr_offsets, len;
	uint8_t begin_flags, end_flags;	/* DPROF_HIST_* */
	uint8_t reason;		/* DPROF_HIST_FREED...; 0: no END recorded */
	uint32_t reported_elements, dropped;
	struct hist_elem *elems;	/* sorted by time */
	size_t nr_elems;
	size_t cap;
	uint64_t begin_pos;	/* record index of BEGIN in the file */
};

struct history_set {
	struct history *h;	/* sorted by id */
	size_t n;
	uint64_t orphan_elems;	/* elements of no recorded history */
	uint64_t unmapped_ips;	/* elements whose ip the ipmap lacked */
};

/* Builds every history of @r.  Never fails on a validated recording. */
void histories_build(struct history_set *hs, const struct recording *r);
void histories_free(struct history_set *hs);
const struct history *histories_find(const struct history_set *hs,
				     uint32_t id);
/* Complete: freed while watched, with no CPU change and no drops. */
bool history_complete(const struct history *h);
/* Distinct CPUs that touched the object; bitmask of the first 64. */
uint64_t history_cpu_mask(const struct history *h);
/* Accessing ip for a trap ip via the recording's ipmap; 0 if absent. */
uint64_t ipmap_lookup(const struct recording *r, uint64_t trap_ip);

#endif

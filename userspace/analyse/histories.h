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

/* What the breakpoints said of an access (DPROF_ELEM_WRITE, RW_UNSURE). */
enum hist_reported {
	HIST_REPORTED_NONE,	/* one read/write breakpoint: not told */
	HIST_REPORTED_READ,
	HIST_REPORTED_WRITE,
};

struct hist_elem {
	uint64_t ip;		/* accessing instruction (trap ip if unmapped) */
	uint64_t trap_ip;	/* as the hardware reported it */
	uint64_t pos;		/* record index: order of equal times */
	uint32_t time_ns;	/* since allocation */
	uint16_t cpu;
	uint16_t offset;	/* watched byte offset in the object */
	uint8_t kind;		/* enum dprof_access_kind, from the instruction */
	uint8_t reported;	/* enum hist_reported, from the breakpoints */
	/*
	 * For coherence: the decoded kind when there is one (a store or a
	 * read-modify-write writes), else what the breakpoints reported;
	 * rw_known false when neither says.
	 */
	bool write;
	bool rw_known;
};

struct history {
	uint32_t id;
	uint32_t plan_item;
	int target;
	uint64_t addr;
	uint64_t alloc_ns, end_ns;	/* CLOCK_MONOTONIC */
	uint64_t alloc_site, free_site;
	uint16_t alloc_cpu, end_cpu;
	uint16_t offset[DPROF_HIST_MAX_OFFSETS];
	uint8_t nr_offsets, len;
	uint8_t begin_flags, end_flags;	/* DPROF_HIST_* */
	uint8_t reason;		/* DPROF_HIST_FREED...; 0: no END recorded */
	uint32_t reported_elements, dropped;
	uint32_t rw_unknown;	/* elements whose read/write is not known */
	struct hist_elem *elems;	/* sorted by time */
	size_t nr_elems;
	size_t cap;
	uint64_t begin_pos;	/* record index of BEGIN in the file */
};

/*
 * Access kinds of all elements: decoded from the instruction, and checked
 * against the breakpoints where both say (a load the write breakpoint
 * reported, or a store or read-modify-write it did not).
 */
struct kind_counts {
	uint64_t by_kind[DPROF_NR_ACCESS_KINDS];	/* decoded */
	uint64_t compared;	/* decoded load/store/RMW and reported */
	uint64_t load_reported_write;
	uint64_t write_reported_read;	/* store or RMW */
	uint64_t rw_unknown;	/* neither decoded nor reported */
};

struct history_set {
	struct history *h;	/* sorted by id */
	size_t n;
	uint64_t orphan_elems;	/* elements of no recorded history */
	uint64_t unmapped_ips;	/* elements whose ip the ipmap lacked */
	struct kind_counts kinds;
};

/* Builds every history of @r.  Never fails on a validated recording. */
void histories_build(struct history_set *hs, const struct recording *r);
void histories_free(struct history_set *hs);
const struct history *histories_find(const struct history_set *hs,
				     uint32_t id);
/* How it ended: "freed", "timeout", "unload", "window"; "open": no END. */
const char *history_end_name(const struct history *h);
/* Complete: freed while watched, with no CPU change and no drops. */
bool history_complete(const struct history *h);
/*
 * A life, the module's DPROF_WINDOW_LIFE: watched from its allocation to
 * its free or history_timeout_ms, every element kept, no CPU came or
 * went.  From the END's reason and dropped count and the BEGIN's and
 * END's flags, OR-ed (readers of the raw records call it too).
 */
static inline bool hist_ended_as_life(uint8_t reason, uint32_t dropped,
				      uint8_t flags)
{
	return (reason == DPROF_HIST_FREED || reason == DPROF_HIST_TIMEOUT) &&
	       !dropped &&
	       !(flags & (DPROF_HIST_CPUS_CHANGED | DPROF_HIST_TRUNCATED));
}
/* Whether two histories or paths watched the same offsets (padded arrays). */
static inline bool offsets_equal(const uint16_t *a, const uint16_t *b)
{
	for (int k = 0; k < DPROF_HIST_MAX_OFFSETS; k++)
		if (a[k] != b[k])
			return false;
	return true;
}
/* Whether an element's decoded kind and the breakpoints' report disagree. */
bool hist_elem_disagrees(const struct hist_elem *e);
/* "0,64,72": the first @n watched offsets, comma-separated. */
const char *offsets_format(const uint16_t *offset, int n, char *buf,
			   size_t len);
/* "load", "store", "rmw", "ambiguous", "unknown". */
const char *access_kind_name(unsigned int kind);
/* Distinct CPUs that touched the object; bitmask of the first 64. */
uint64_t history_cpu_mask(const struct history *h);

#endif

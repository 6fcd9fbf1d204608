/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The all-types ranking (thesis Tables 6.1, 6.4, 6.5) as data: every
 * profiled type with its share of misses (or sampled accesses), the error
 * of that share, its working set and bounce; and the samples that fell
 * outside profiled slab objects.  Built on the data profile.  Plain
 * analysis: no I/O.
 */
#ifndef DPROF_REPORT_H
#define DPROF_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "profile.h"
#include "recfile.h"

struct report_type {
	const struct profile_type *t;	/* into report.profile */
	double share;		/* of the ranked weight over all types */
	/*
	 * A variable (watch_symbols=) under the watch sampler: watched in
	 * turns, not drawn at random, so outside the shares.
	 */
	bool no_share;
	/*
	 * Watch sampler: samples only from histories, no window on the
	 * type, so nothing weighs it against the others: no share.
	 */
	bool no_window;
	double share_err;	/* half-width of its 95% interval; <0 unknown */
	/* No window saw an access: its share's 95% upper bound; <0 not so. */
	double share_upper;
	/*
	 * Watch: the part of its accesses its kinds of window that took no
	 * sample could hold (95%, the facts' unseen; 0 none), which the
	 * share leaves out, and the share's upper end with it: A of W
	 * becomes at most A / (1 - u) of W + A u / (1 - u), so (p + h) /
	 * (1 - u + (p + h) u) (< 0: no interval).
	 */
	double unseen, share_hi;
	bool window_share;	/* the share is dprof.ko's window estimate */
	uint64_t windows;	/* watch sampler: windows on the type; 0 none */
	uint64_t older;		/* objects live before load (scan) */
	uint64_t older_tracked;
	uint64_t allocs, frees;	/* tracked, during the recording */
	uint64_t live_end;	/* tracked objects live at the end */
	uint64_t ws_bytes;	/* live_end * track_one_in * object size */
	double bounce;		/* freed on another CPU; <0 unknown */
	double bounce_err;	/* its 95% half-width; <0 unknown */
	uint64_t bounce_addrs;	/* the independent units behind it */
	/*
	 * Window shares: the units behind the share that took a sample
	 * (windows of the kinds in its estimate, lives).  With fewer than
	 * 2 a positive share ranks after those with more (report.c).
	 */
	uint64_t units;
};

struct report {
	struct profile profile;
	unsigned int track_one_in;	/* the sparsest cache's; 1: all exact */
	bool all;			/* recorded with target=all */
	uint64_t weight;		/* samples or misses, all types */
	/* watch sampler: shares are the module's window estimates */
	bool window_shares;
	/* module counters: samples outside profiled live objects */
	uint64_t module_samples, other_slab, not_slab;
	size_t data_types;	/* types of samples in no slab object */
	struct report_type *types;	/* ranked, most first */
	size_t nr_types;
	/* Positive window shares on one sampled unit, ranked after. */
	size_t thin_types;
	bool by_share_alone;	/* report_rank_by_share() ranked them */
};

void report_build(const struct recording *r, const struct type_map *map,
		  struct report *rep);
/* A positive window share on fewer than two sampled units. */
bool report_type_thin(const struct report_type *t);
/* Ranks by share alone, the shares on one sampled unit among the rest. */
void report_rank_by_share(struct report *rep);
void report_free(struct report *rep);

#endif

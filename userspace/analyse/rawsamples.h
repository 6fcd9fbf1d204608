/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Raw access-sample records (sample_records=1) aggregated the way the
 * module aggregates them, by (type, offset, ip, source, CPU), so that a
 * recording holding only raw samples still has a profile.  No I/O.
 */
#ifndef DPROF_RAWSAMPLES_H
#define DPROF_RAWSAMPLES_H

#include <stddef.h>
#include "recfile.h"

/*
 * The misses of an aggregated entry that carry a latency: neither driver
 * gives stores one (PEBS weights loads, IBS DcMissLat counts loads that
 * missed), so an average latency is over the misses of entries whose
 * instruction loads, read-modify-writes included, not over pure stores.
 */
static inline uint64_t agg_latency_misses(const struct dprof_sample_agg *e)
{
	return e->loads ? e->misses : 0;
}

/* Entries in *out (caller frees); memory grows with distinct keys only. */
size_t raw_samples_aggregate(const struct recording *r,
			     struct dprof_sample_agg **out);

#endif

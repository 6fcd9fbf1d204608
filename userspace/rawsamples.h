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

/* Entries in *out (caller frees); memory grows with distinct keys only. */
size_t raw_samples_aggregate(const struct recording *r,
			     struct dprof_sample_agg **out);

#endif

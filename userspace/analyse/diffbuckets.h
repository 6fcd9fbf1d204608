/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a differential profile compares: a recording's buckets (type,
 * type.field, function, path, associativity set) for one measure, as a
 * diff_table.  Every view's figures are available where they make sense;
 * diff_buckets_build() says which combinations do not.  Plain analysis.
 */
#ifndef DPROF_DIFFBUCKETS_H
#define DPROF_DIFFBUCKETS_H

#include <stdbool.h>
#include "diff.h"
#include "typemap.h"
#include "recfile.h"
#include "workingset.h"

enum diff_by {
	DIFF_BY_TYPE,
	DIFF_BY_FIELD,
	DIFF_BY_FUNCTION,
	DIFF_BY_PATH,
	DIFF_BY_SET,
	DIFF_BY_MAX,
};

enum diff_measure {
	DIFF_M_SAMPLES,
	DIFF_M_MISSES,
	DIFF_M_LATENCY,
	DIFF_M_ALLOCS,
	DIFF_M_LIFETIME,
	DIFF_M_LIVE_OBJECTS,
	DIFF_M_LIVE_BYTES,
	DIFF_M_WS_BYTES,
	DIFF_M_SIM_MISS_RATE,
	DIFF_M_CPU_CHANGES,
	DIFF_M_REMOTE_FREES,
	DIFF_M_HISTORIES,
	DIFF_M_WS_LINES,
	DIFF_M_MAX,
};

struct diff_measure_info {
	const char *name;	/* as given to --measure */
	enum diff_kind kind;
	unsigned int by;	/* bit per enum diff_by where it exists */
	double scale;		/* shown = value * scale */
	const char *unit;	/* of the shown value */
	const char *what;	/* one line for --help and headers */
};

extern const struct diff_measure_info diff_measures[DIFF_M_MAX];
extern const char *const diff_by_names[DIFF_BY_MAX];

int diff_measure_lookup(const char *name);	/* -1 unknown */
int diff_by_lookup(const char *name);		/* -1 unknown */

/*
 * @t gets @r's buckets for @m by @by (@map names fields, @geo is the
 * cache for the working-set measures).  -1 with a reason in @err when the
 * recording cannot give that measure (misses without IBS/PEBS, ...).
 */
int diff_buckets_build(struct diff_table *t, const struct recording *r,
		       enum diff_by by, enum diff_measure m,
		       const struct type_map *map,
		       const struct ws_geometry *geo, char *err,
		       size_t errlen);

#endif

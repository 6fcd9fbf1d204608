/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The working-set view (thesis 4.2) as an occupancy model, not an LRU
 * simulation: every recorded object occupies, for its lifetime, the cache
 * lines of the fields its type touches (as the histories, or else the
 * samples, show), each with the probability that a life touches it.
 * Time-averaging over the recording gives, per type, the objects and
 * bytes it keeps in use, and per associativity set of one cache level the
 * lines competing for it.  A set with more lines than ways and at least
 * twice the average is a conflict set; a working set larger than the
 * cache with sets used evenly is a capacity problem.  Plain analysis.
 *
 * Intervals: each line's touch probability is a share of histories (the
 * independent units), with its 95% Wilson interval; an object's lines,
 * a type's bytes and a set's lines sum the lines' bounds, as if the
 * lines of an object erred together (they come from the same histories),
 * which is the conservative way.  Conflict and capacity are decided only
 * where the interval is on one side: a set whose lines' upper bound is a
 * conflict but whose lower bound is not is undecided, and counted.
 * Samples (no histories) give touched lines without an interval.
 */
#ifndef DPROF_WORKINGSET_H
#define DPROF_WORKINGSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "histories.h"
#include "objects.h"
#include "recfile.h"

struct ws_geometry {
	unsigned int level;	/* 1, 2, 3 */
	uint64_t size;		/* bytes */
	unsigned int ways, line, sets;
};

struct ws_type {
	unsigned int target;
	double objects;		/* live on average */
	double lines_per_object;	/* expected lines a life touches */
	double bytes;		/* objects * lines_per_object * line */
	double lines_lo, lines_hi;	/* 95% bounds of lines_per_object */
	double bytes_lo, bytes_hi;
	uint64_t histories;	/* complete histories behind the lines */
	uint64_t fewest;	/* fewest histories behind one touched line */
	bool from_histories;	/* else from samples, or nothing known */
};

#define WS_MAX_HOT 16

struct ws_hot_set {
	unsigned int set;
	double lines;
	double *by_type;	/* nr_types entries */
};

struct workingset {
	struct ws_geometry geo;
	double duration_ns;
	struct ws_type *types;
	size_t nr_types;
	double *set_lines;	/* geo.sets entries */
	double *set_lo, *set_hi;	/* their 95% bounds */
	double avg_set_lines, max_set_lines;
	struct ws_hot_set hot[WS_MAX_HOT];	/* conflict sets, most first */
	size_t nr_hot;
	size_t nr_conflict_undecided;	/* sets a conflict by hi, not lo */
	double total_lines, total_lo, total_hi;
	bool conflict, capacity;
	bool capacity_undecided;	/* the interval straddles the cache */
	/*
	 * Lives followed up to 1 in this many (the recording's track_one_in,
	 * per cache): each stands for as many of its cache; the sampling
	 * error is not in the intervals.
	 */
	unsigned int track_one_in;
};

/*
 * The recorded geometry of data cache @level (0: the first data or
 * unified level); false when the recording has none.
 */
bool ws_geometry_from(const struct recording *r, unsigned int level,
		      struct ws_geometry *g);
/* Largest cache the models simulate, in lines (1 GiB of 64-byte lines). */
#define WS_MAX_LINES (UINT64_C(1) << 24)
/* Whether a geometry is one the models can hold (see workingset.c). */
bool ws_geometry_ok(uint64_t sets, uint64_t ways, uint64_t line);
/* "32K,8,64" (size with K/M, ways, line) -> geometry; false: malformed. */
bool ws_parse_cache(const char *s, struct ws_geometry *g);
void workingset_build(struct workingset *ws, const struct recording *r,
		      const struct history_set *hs,
		      const struct obj_summary *objs,
		      const struct ws_geometry *geo);
void workingset_free(struct workingset *ws);

#endif

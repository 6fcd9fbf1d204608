/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lives: a type's accesses per second estimated from its complete
 * histories, each a window whose exposure is one object's whole life
 * (design.rst, "Lives").  A history watches
 * one of the plan's G items of an object drawn at allocation, so the mean
 * samples per life times G is the accesses of a life, and times the
 * type's allocations per second (tracked ones, scaled by how sparsely
 * the cache was followed) the accesses per second of the objects that
 * die within a history's timeout.  The histories are the units: the
 * interval is Student's t over them.  What outlives a history (a
 * timeout, objects from before the recording) is not in it: the share of
 * histories that timed out says how much of the type that leaves out.
 * Plain analysis: no I/O.
 */
#ifndef DPROF_LIVES_H
#define DPROF_LIVES_H

#include <stddef.h>
#include <stdint.h>
#include "histories.h"
#include "recfile.h"

struct lives_type {
	int target;
	uint64_t lives;		/* complete histories */
	uint64_t cut;		/* histories that ended otherwise (timeout) */
	unsigned int items;	/* G: the plan's items */
	double per_life;	/* mean samples per complete history */
	double allocs_per_s;	/* all of the type's, estimated */
	/*
	 * Its allocations counted one by one (followed 1 in 1 at the end).
	 * Else ALLOC records times the last track_one_in, which is wrong
	 * when the rule rose during the recording (skbuff_head_cache read
	 * 197,000 accesses/s for the referee's 41,800): not to be judged.
	 */
	bool exact;
	double rate, half;	/* accesses per second, 95 % half-width; <0 none */
};

struct lives {
	struct lives_type *t;	/* by target, the types with a life */
	size_t n;
	double seconds;		/* the recording's */
};

void lives_build(struct lives *l, const struct recording *r,
		 const struct history_set *hs);
void lives_free(struct lives *l);

#endif

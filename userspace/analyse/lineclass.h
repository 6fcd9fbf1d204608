/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Line classes of combined traces: the miss classification of one whole
 * life with every watched field in view.  A history sees at most four
 * 8-byte slots, half a line, so which of a line's fields it watched
 * decides whether it sees the write that invalidated the line or the
 * access that brought it back.  A combined trace (combine.h) puts the
 * paths of every offset pair of a type together into one life of the
 * whole object; replayed like a history (classify_history()), each
 * access is classified with the line's other watched fields in view:
 * a miss is charged to the first access to the line after another CPU
 * wrote it, whichever field that is.
 *
 * CPUs: paths keep where the CPU changed, not which CPU it was, so the
 * replay gives the object two: the allocating one and another.  A step
 * is on the side its own paths put it (the parity of the changes before
 * it there); where they are split evenly, the change against the step
 * before decides, and a step that has neither counts as no change and is
 * counted (unknown).  A third CPU counts as "the other one" (its first
 * access is then an invalidation, not a transfer).  The classification is
 * exact only when every pair of offsets was watched together, no step
 * was placed by time and no change is unknown.  Plain analysis.
 */
#ifndef DPROF_LINECLASS_H
#define DPROF_LINECLASS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "combine.h"

/* Per life: the trace is one life. */
struct lineclass_line {
	uint16_t line;		/* offset / 64 */
	uint16_t fields;	/* watched offsets in it */
	uint64_t accesses, hits, true_sharing, false_sharing, transfers,
		 first_touch;
};

struct lineclass_trace {
	const struct combined_trace *t;
	struct lineclass_line *lines;	/* ascending */
	size_t nr_lines;
	size_t unknown_cpu;	/* steps whose CPU change no path saw */
	bool exact;
};

struct lineclass_set {
	struct lineclass_trace *t;	/* as the combined set */
	size_t n;
};

void lineclass_build(struct lineclass_set *ls, const struct combined_set *cs);
void lineclass_free(struct lineclass_set *ls);

#endif

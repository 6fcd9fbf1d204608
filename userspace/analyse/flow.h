/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The data flow view (thesis 4.4) as a graph: for one type, the functions
 * its objects pass through from allocation to free.  Every complete
 * history is a walk: the allocating function, then each function that
 * touched the object (consecutive accesses in one function on one CPU
 * are one visit), then the freeing function.  Walks are merged by
 * function, so common prefixes and suffixes (and any shared stretch)
 * become shared nodes; an edge counts the histories that took it and is
 * marked when the object changed CPU along it.  Nodes carry accesses and
 * estimated misses (transfers and invalidations, classify.h).  No I/O.
 */
#ifndef DPROF_FLOW_H
#define DPROF_FLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "histories.h"
#include "ksyms.h"

enum flow_role { FLOW_ALLOC, FLOW_ACCESS, FLOW_FREE };

struct flow_node {
	char *name;		/* function, "name [module]" */
	enum flow_role role;
	uint64_t histories;	/* walks through it */
	uint64_t accesses, est_misses;
};

struct flow_edge {
	size_t from, to;	/* node indices */
	bool cpu_change;
	uint64_t histories;
};

struct flow {
	struct flow_node *nodes;
	size_t nr_nodes;
	struct flow_edge *edges;
	size_t nr_edges;
	uint64_t histories;	/* walks merged */
};

/* The flow of target @target (index into the recording's targets). */
void flow_build(struct flow *fl, const struct history_set *hs, int target,
		const struct ksyms *syms);
void flow_free(struct flow *fl);

/*
 * The part of @fl around its CPU changes, as the thesis draws it (Figure
 * 6-1: the few functions before and after the change): every node from
 * which a CPU change's source is reached within @hops edges, or which a
 * change's target reaches within @hops, and every edge between two such
 * nodes.  Fills @keep_node (nr_nodes) and @keep_edge (nr_edges) and
 * returns the number of CPU-change edges; 0 keeps nothing.
 */
size_t flow_around_changes(const struct flow *fl, unsigned int hops,
			   bool *keep_node, bool *keep_edge);

#endif

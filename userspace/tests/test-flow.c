// SPDX-License-Identifier: GPL-2.0
/*
 * The flow graph's part around its CPU changes (flow_around_changes()):
 * on a chain with one change and a side branch, the nodes kept are those
 * within the hops asked for before and after the change, as the thesis'
 * Figure 6-1 draws the partial flow of skbuffs.
 */
#include <stdlib.h>
#include "flow.h"
#include "harness.h"

/*
 * 0 -> 1 -> 2 -> 3 => 4 -> 5 -> 6, and 0 -> 7: the object changes CPU
 * between 3 and 4 only.
 */
static void chain(struct flow *fl, struct flow_node *n, struct flow_edge *e,
		  bool with_change)
{
	static const size_t ends[7][2] = {
		{ 0, 1 }, { 1, 2 }, { 2, 3 }, { 3, 4 }, { 4, 5 }, { 5, 6 },
		{ 0, 7 },
	};

	for (size_t i = 0; i < 8; i++)
		n[i] = (struct flow_node){ .histories = 1 };
	for (size_t i = 0; i < 7; i++)
		e[i] = (struct flow_edge){ .from = ends[i][0], .to = ends[i][1],
					   .cpu_change = with_change && i == 3,
					   .histories = 1 };
	*fl = (struct flow){ .nodes = n, .nr_nodes = 8, .edges = e,
			     .nr_edges = 7, .histories = 1 };
}

static int kept(const bool *keep, size_t n)
{
	int mask = 0;

	for (size_t i = 0; i < n; i++)
		mask |= keep[i] << i;
	return mask;
}

static void test_flow_around_changes(void)
{
	struct flow_node n[8];
	struct flow_edge e[7];
	bool kn[8], ke[7];
	struct flow fl;

	chain(&fl, n, e, true);
	CHECK_EQ_U64(flow_around_changes(&fl, 0, kn, ke), 1);
	CHECK_EQ_U64(kept(kn, 8), 1 << 3 | 1 << 4);
	CHECK_EQ_U64(kept(ke, 7), 1 << 3);
	flow_around_changes(&fl, 1, kn, ke);
	/* 2 reaches the change's source in one hop, 5 is one after it */
	CHECK_EQ_U64(kept(kn, 8), 1 << 2 | 1 << 3 | 1 << 4 | 1 << 5);
	CHECK_EQ_U64(kept(ke, 7), 1 << 2 | 1 << 3 | 1 << 4);
	flow_around_changes(&fl, 3, kn, ke);
	/* the side branch 0 -> 7 leads to no change: 7 stays out */
	CHECK_EQ_U64(kept(kn, 8), 0x7f);
	CHECK_EQ_U64(kept(ke, 7), 0x3f);
	chain(&fl, n, e, false);
	CHECK_EQ_U64(flow_around_changes(&fl, 2, kn, ke), 0);
	CHECK_EQ_U64(kept(kn, 8), 0);
	CHECK_EQ_U64(kept(ke, 7), 0);
}

const struct unit_test flow_tests[] = {
	{ "flow: the part around the CPU changes", test_flow_around_changes },
	{ NULL, NULL },
};

// SPDX-License-Identifier: GPL-2.0
/*
 * trace_build(): a life is cut where its accesses change CPU, a free on
 * a CPU without accesses is a last piece of its own, and lives that
 * overlap on a CPU get a track each.  Histories built by hand, with
 * times chosen so the expected pieces follow from the definition.
 */
#include <stdlib.h>
#include "harness.h"
#include "perfetto.h"

static void set_elem(struct hist_elem *e, uint32_t t, uint16_t cpu)
{
	memset(e, 0, sizeof(*e));
	e->time_ns = t;
	e->cpu = cpu;
}

/*
 * A: allocated on CPU 0 at 1000, accessed on 0, 1, 1, 0, freed on CPU 2
 * at 1900: pieces 0 [1000,1200) 1 [1200,1500) 0 [1500,1900) and the
 * free-only piece on 2; three CPU changes.  B: on CPU 0 from 1100 to
 * 1300, inside A's first piece: a second track of CPU 0.  C: after
 * both, on CPU 0 only: back on the first track.
 */
static void test_trace_pieces(void)
{
	struct hist_elem ea[4], eb[1];
	struct history h[3];
	struct history_set hs = { .h = h, .n = 3 };
	struct obj_trace t;

	memset(h, 0, sizeof(h));
	h[0].id = 1;
	h[0].alloc_ns = 1000;
	h[0].end_ns = 1900;
	h[0].alloc_cpu = 0;
	h[0].end_cpu = 2;
	h[0].reason = DPROF_HIST_FREED;
	set_elem(&ea[0], 100, 0);
	set_elem(&ea[1], 200, 1);
	set_elem(&ea[2], 400, 1);
	set_elem(&ea[3], 500, 0);
	h[0].elems = ea;
	h[0].nr_elems = 4;
	h[1].id = 2;
	h[1].alloc_ns = 1100;
	h[1].end_ns = 1300;
	h[1].reason = DPROF_HIST_FREED;
	set_elem(&eb[0], 50, 0);
	h[1].elems = eb;
	h[1].nr_elems = 1;
	h[2].id = 3;
	h[2].alloc_ns = 2000;
	h[2].end_ns = 2100;
	h[2].reason = DPROF_HIST_TIMEOUT;

	trace_build(&hs, -1, &t);
	CHECK_EQ_U64(t.histories, 3);
	CHECK_EQ_U64(t.origin_ns, 1000);
	CHECK_EQ_U64(t.nr_slices, 6);
	CHECK_EQ_U64(t.flows, 3);
	CHECK_EQ_U64(t.nr_cpus, 3);
	if (t.nr_slices == 6) {
		const struct trace_slice *s = t.slices;

		CHECK(s[0].cpu == 0 && s[0].start_ns == 1000 &&
		      s[0].end_ns == 1200 && s[0].nr_elems == 1 && s[0].first);
		CHECK(s[1].cpu == 1 && s[1].start_ns == 1200 &&
		      s[1].end_ns == 1500 && s[1].nr_elems == 2);
		CHECK(s[2].cpu == 0 && s[2].start_ns == 1500 &&
		      s[2].end_ns == 1900 && s[2].nr_elems == 1 && !s[2].last);
		CHECK(s[3].cpu == 2 && s[3].free_only && s[3].last &&
		      s[3].start_ns == 1900 && s[3].nr_elems == 0);
		CHECK(s[4].cpu == 0 && s[4].lane == 1 && s[4].first &&
		      s[4].last);
		CHECK(s[5].cpu == 0 && s[5].lane == 0 && s[5].end_ns == 2100);
		CHECK_EQ_U64(t.lanes[0], 2);
		CHECK_EQ_U64(t.lanes[1], 1);
	}
	trace_free(&t);

	/* One target only; a history without END ends at its last access. */
	h[0].reason = 0;
	trace_build(&hs, 1, &t);
	CHECK_EQ_U64(t.histories, 0);
	CHECK_EQ_U64(t.nr_slices, 0);
	trace_free(&t);
	trace_build(&hs, 0, &t);
	CHECK_EQ_U64(t.flows, 2);	/* no free on CPU 2 without END */
	CHECK_EQ_U64(t.slices[2].end_ns, 1500);
	trace_free(&t);
}

const struct unit_test perfetto_tests[] = {
	{ "trace: pieces per CPU, free-only piece, tracks", test_trace_pieces },
	{ NULL, NULL },
};

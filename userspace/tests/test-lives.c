// SPDX-License-Identifier: GPL-2.0
/*
 * Lives (analyse/lives.h) on a recording written by hand, whose answer
 * follows from it: cache0's plan has G = 2 items; 4 of its objects are
 * allocated in the recording's 1 s; three complete histories took 2, 4
 * and 6 accesses (mean 4, sample standard deviation 2) and a fourth timed
 * out.  So a life is 4 x 2 = 8 accesses and the type makes 8 x 4 = 32 a
 * second, +- t(2) 4.303 x 2 / sqrt(3) x 8 = 39.75; one history is cut.
 * cache1 has no complete history: no estimate.
 */
#include <math.h>
#include "harness.h"
#include "fixture.h"
#include "lives.h"

static void history(struct fixture *f, uint32_t id, unsigned int elems,
		    uint8_t reason)
{
	struct dprof_hist_begin b = {
		.hdr = { .kind = DPROF_REC_HIST_BEGIN, .size = sizeof(b) },
		.time_ns = 1000, .addr = 0xffff888000001000ull + 256 * id,
		.id = id, .offset = { 0, 8 }, .len = 8, .nr_offsets = 2,
	};
	struct dprof_hist_end x = {
		.hdr = { .kind = DPROF_REC_HIST_END, .size = sizeof(x) },
		.time_ns = 9000, .id = id, .reason = reason,
		.elements = elems,
	};

	fixture_raw(f, &b, sizeof(b));
	for (unsigned int i = 0; i < elems; i++) {
		struct dprof_hist_elem e = {
			.kind = DPROF_REC_HIST_ELEM, .size = sizeof(e),
			.tag = id, .ip_lo = 0x81000100, .time_ns = 2000 + i,
		};

		fixture_raw(f, &e, sizeof(e));
	}
	fixture_raw(f, &x, sizeof(x));
}

static void test_lives(void)
{
	struct dprof_plan_item items[2] = {
		{ .target = 0, .nr_offsets = 2, .len = 8, .item = 0,
		  .offset = { 0, 8, DPROF_HIST_NO_OFFSET,
			      DPROF_HIST_NO_OFFSET } },
		{ .target = 0, .nr_offsets = 2, .len = 8, .item = 1,
		  .offset = { 16, 24, DPROF_HIST_NO_OFFSET,
			      DPROF_HIST_NO_OFFSET } },
	};
	struct fixture f;
	struct recording r;
	struct rec_error err;
	struct history_set hs;
	struct lives l;

	fixture_begin(&f, 2);
	for (unsigned int i = 0; i < 4; i++)
		fixture_event(&f, DPROF_REC_ALLOC, 0, 0, 100 + i,
			      0xffff888000002000ull + 256 * i);
	fixture_event(&f, DPROF_REC_ALLOC, 0, 1, 200, 0xffff888000003000ull);
	history(&f, 1, 2, DPROF_HIST_FREED);
	history(&f, 2, 4, DPROF_HIST_FREED);
	history(&f, 3, 6, DPROF_HIST_FREED);
	history(&f, 4, 9, DPROF_HIST_TIMEOUT);
	fixture_end_with(&f, DPROF_SEC_PLANS, items, sizeof(items));
	if (recording_parse(&r, f.buf, f.len, &err)) {
		CHECK(!"recording_parse");
		fixture_free(&f);
		return;
	}
	histories_build(&hs, &r);
	lives_build(&l, &r, &hs);
	CHECK_EQ_U64(l.n, 1);
	if (l.n == 1) {
		const struct lives_type *x = &l.t[0];

		CHECK_EQ_U64(x->target, 0);
		CHECK_EQ_U64(x->lives, 3);
		CHECK_EQ_U64(x->cut, 1);
		CHECK_EQ_U64(x->items, 2);
		CHECK(fabs(x->per_life - 4) < 1e-9);
		CHECK(fabs(x->allocs_per_s - 4) < 1e-9);
		CHECK(x->exact);	/* no facts: followed 1 in 1 */
		CHECK(fabs(x->rate - 32) < 1e-9);
		CHECK(fabs(x->half - 4.303 * 2 / sqrt(3) * 8) < 1e-6);
	}
	lives_free(&l);
	histories_free(&hs);
	recording_free(&r);
	fixture_free(&f);
}

const struct unit_test lives_tests[] = {
	{ "lives: accesses per second from complete histories", test_lives },
	{ NULL, NULL },
};

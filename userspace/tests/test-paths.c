// SPDX-License-Identifier: GPL-2.0
/*
 * Path traces from hand-written histories: what merges (same steps, same
 * CPU-change pattern, whatever the CPU numbers) and what does not.
 */
#include <stdbool.h>
#include "harness.h"
#include "fixture.h"
#include "paths.h"

static void begin(struct fixture *f, uint32_t id, uint16_t cpu, uint64_t t)
{
	struct dprof_hist_begin b = {
		.hdr = { .kind = DPROF_REC_HIST_BEGIN, .size = sizeof(b),
			 .cpu = cpu },
		.time_ns = t, .addr = 0xffff888000001000ull,
		.call_site = 0xffffffff81000010ull, .id = id,
		.offset = { 0, 8 }, .len = 8, .nr_offsets = 2,
	};

	fixture_raw(f, &b, sizeof(b));
}

static void elem(struct fixture *f, uint32_t id, uint16_t cpu, bool b,
		 bool write, uint32_t ip_lo, uint32_t since)
{
	struct dprof_hist_elem e = {
		.kind = DPROF_REC_HIST_ELEM, .size = sizeof(e), .cpu = cpu,
		.tag = (id & DPROF_ELEM_ID_MASK) | (b ? DPROF_ELEM_WATCH(1) : 0) |
		       (write ? DPROF_ELEM_WRITE : 0),
		.ip_lo = ip_lo, .time_ns = since,
	};

	fixture_raw(f, &e, sizeof(e));
}

static void end(struct fixture *f, uint32_t id, uint16_t cpu, uint64_t t,
		uint32_t elements)
{
	struct dprof_hist_end e = {
		.hdr = { .kind = DPROF_REC_HIST_END, .size = sizeof(e),
			 .cpu = cpu },
		.time_ns = t, .id = id, .reason = DPROF_HIST_FREED,
		.call_site = 0xffffffff81000020ull, .elements = elements,
	};

	fixture_raw(f, &e, sizeof(e));
}

/* Write at A on the allocating CPU, read at B on @b_cpu, free there. */
static void life(struct fixture *f, uint32_t id, uint16_t a_cpu,
		 uint16_t b_cpu, uint64_t t, uint32_t b_time)
{
	begin(f, id, a_cpu, t);
	elem(f, id, a_cpu, false, true, 0x81000100, 100);
	elem(f, id, b_cpu, true, false, 0x81000200, b_time);
	end(f, id, b_cpu, t + 1000, 2);
}

static void test_paths_merge_by_cpu_pattern(void)
{
	struct fixture f;
	struct recording r;
	struct rec_error err;
	struct history_set hs;
	struct path_set ps;

	fixture_begin(&f, 1);
	life(&f, 1, 0, 1, 10000, 300);	/* changes CPU at the read */
	life(&f, 2, 1, 0, 20000, 500);	/* the same pattern, CPUs swapped */
	life(&f, 3, 0, 0, 30000, 300);	/* no CPU change: another path */
	fixture_end(&f);
	CHECK(recording_parse(&r, f.buf, f.len, &err) == 0);
	histories_build(&hs, &r);
	paths_build(&ps, &r, &hs);
	CHECK_EQ_U64(ps.n, 2);
	CHECK_EQ_U64(ps.t[0].histories, 3);
	CHECK_EQ_U64(ps.t[0].nr_paths, 2);
	if (ps.n == 2) {
		const struct path *p = &ps.p[0];

		CHECK_EQ_U64(p->count, 2);
		CHECK_EQ_U64(p->nr_steps, 2);
		CHECK(!p->steps[0].cpu_change && p->steps[0].write);
		CHECK(p->steps[1].cpu_change && !p->steps[1].write);
		CHECK_EQ_U64(p->steps[1].offset, 8);
		CHECK(!p->free_cpu_change);
		/* Mean time since allocation over the two: (300 + 500) / 2. */
		CHECK_EQ_U64((uint64_t)(p->steps[1].time_sum_ns / p->count), 400);
		CHECK_EQ_U64(ps.p[1].count, 1);
		CHECK(!ps.p[1].steps[1].cpu_change);
	}
	/* Coverage: 1 path after 1 history, still 1 after 2, 2 after 3. */
	CHECK_EQ_U64(ps.t[0].growth[0].paths, 1);
	CHECK_EQ_U64(ps.t[0].growth[1].paths, 1);
	CHECK_EQ_U64(ps.t[0].growth[2].paths, 2);
	CHECK_EQ_U64(paths_new_in_tail(&ps.t[0], 0.34), 1);
	CHECK_EQ_U64(paths_new_in_tail(&ps.t[0], 1.0), 2);
	paths_free(&ps);
	histories_free(&hs);
	recording_free(&r);
	fixture_free(&f);
}

const struct unit_test paths_tests[] = {
	{ "paths_merge_by_cpu_pattern", test_paths_merge_by_cpu_pattern },
	{ NULL, NULL },
};

// SPDX-License-Identifier: GPL-2.0
/*
 * Miss classification on a hand-written history whose every access has a
 * known class (offsets 0 and 8 share the object's first cache line):
 *
 *   1 cpu0 write 0   first touch (nobody wrote the line before)
 *   2 cpu1 write 8   transfer (cpu1's first use; cpu0 wrote the line)
 *   3 cpu0 read 0    false sharing (cpu1 wrote 8 since cpu0's access 1)
 *   4 cpu0 write 0   hit
 *   5 cpu1 read 8    false sharing (cpu0 wrote 0 since cpu1's access 2)
 *   6 cpu1 write 0   hit
 *   7 cpu0 read 0    true sharing (cpu1 wrote 0 since cpu0's access 4)
 */
#include <stdbool.h>
#include "harness.h"
#include "fixture.h"
#include "classify.h"

static void elem(struct fixture *f, uint16_t cpu, bool b, bool write,
		 uint32_t since)
{
	struct dprof_hist_elem e = {
		.kind = DPROF_REC_HIST_ELEM, .size = sizeof(e), .cpu = cpu,
		.tag = 5 | (b ? DPROF_ELEM_WATCH(1) : 0) |
		       (write ? DPROF_ELEM_WRITE : 0),
		.ip_lo = 0x81000100 + since, .time_ns = since,
	};

	fixture_raw(f, &e, sizeof(e));
}

static void test_classify_known_history(void)
{
	struct dprof_hist_begin b = {
		.hdr = { .kind = DPROF_REC_HIST_BEGIN, .size = sizeof(b) },
		.time_ns = 1000, .addr = 0xffff888000001000ull, .id = 5,
		.offset = { 0, 8 }, .len = 8, .nr_offsets = 2,
	};
	struct dprof_hist_end x = {
		.hdr = { .kind = DPROF_REC_HIST_END, .size = sizeof(x) },
		.time_ns = 9000, .id = 5, .reason = DPROF_HIST_FREED,
		.elements = 7,
	};
	struct fixture f;
	struct recording r;
	struct rec_error err;
	struct history_set hs;
	struct classify c;

	fixture_begin(&f, 1);
	fixture_raw(&f, &b, sizeof(b));
	elem(&f, 0, false, true, 10);
	elem(&f, 1, true, true, 20);
	elem(&f, 0, false, false, 30);
	elem(&f, 0, false, true, 40);
	elem(&f, 1, true, false, 50);
	elem(&f, 1, false, true, 60);
	elem(&f, 0, false, false, 70);
	fixture_raw(&f, &x, sizeof(x));
	fixture_end(&f);
	CHECK(recording_parse(&r, f.buf, f.len, &err) == 0);
	histories_build(&hs, &r);
	classify_build(&c, &hs);
	CHECK_EQ_U64(c.histories, 1);
	CHECK_EQ_U64(c.n, 2);
	if (c.n == 2) {
		const struct classify_field *f0 = &c.f[0], *f8 = &c.f[1];

		CHECK_EQ_U64(f0->offset, 0);
		CHECK_EQ_U64(f0->accesses, 5);
		CHECK_EQ_U64(f0->first_touch, 1);
		CHECK_EQ_U64(f0->false_sharing, 1);
		CHECK_EQ_U64(f0->hits, 2);
		CHECK_EQ_U64(f0->true_sharing, 1);
		CHECK_EQ_U64(f0->false_writers[0].offset, 8);
		CHECK_EQ_U64(f0->true_writers[0].offset, 0);
		CHECK(f0->label == CLASSIFY_TRUE_SHARING);
		CHECK_EQ_U64(f8->offset, 8);
		CHECK_EQ_U64(f8->accesses, 2);
		CHECK_EQ_U64(f8->transfers, 1);
		CHECK_EQ_U64(f8->false_sharing, 1);
		CHECK_EQ_U64(f8->false_writers[0].offset, 0);
		CHECK(f8->label == CLASSIFY_FALSE_SHARING);
	}
	classify_free(&c);
	histories_free(&hs);
	recording_free(&r);
	fixture_free(&f);
}

const struct unit_test classify_tests[] = {
	{ "classify_known_history", test_classify_known_history },
	{ NULL, NULL },
};

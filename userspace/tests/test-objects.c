// SPDX-License-Identifier: GPL-2.0
/* Address-set summary on event sequences whose answers are known. */
#include "harness.h"
#include "fixture.h"
#include "objects.h"
#include "recfile.h"

static void summarize(struct fixture *f, struct recording *r,
		      struct obj_summary *s)
{
	struct rec_error err;

	fixture_end(f);
	CHECK(recording_parse(r, f->buf, f->len, &err) == 0);
	CHECK(objects_summarize(r, s) == 0);
}

static void test_pairs_remote_and_lifetimes(void)
{
	struct fixture f;
	struct recording r;
	struct obj_summary s;

	fixture_begin(&f, 1);
	/* Written out of time order, as CPUs' chunks interleave. */
	fixture_event(&f, DPROF_REC_FREE, 1, 0, 1300, 0xa000);	/* 300 ns, remote */
	fixture_event(&f, DPROF_REC_ALLOC, 0, 0, 1000, 0xa000);
	fixture_event(&f, DPROF_REC_ALLOC, 0, 0, 2000, 0xb000);
	fixture_event(&f, DPROF_REC_FREE, 0, 0, 2100, 0xb000);	/* 100 ns, local */
	fixture_event(&f, DPROF_REC_ALLOC, 1, 0, 3000, 0xc000);
	fixture_event(&f, DPROF_REC_FREE, 1, 0, 3500, 0xc000);	/* 500 ns, local */
	fixture_event(&f, DPROF_REC_FREE, 0, 0, 50, 0xd000);	/* before recording */
	fixture_event(&f, DPROF_REC_ALLOC, 1, 0, 4000, 0xe000);	/* live at end */
	summarize(&f, &r, &s);
	CHECK_EQ_U64(s.nr_cpus, 2);
	CHECK_EQ_U64(s.targets[0].allocs, 4);
	CHECK_EQ_U64(s.targets[0].frees, 4);
	CHECK_EQ_U64(s.targets[0].matched, 3);
	CHECK_EQ_U64(s.targets[0].remote_frees, 1);
	CHECK_EQ_U64(s.targets[0].cpu[1].remote_frees, 1);
	CHECK_EQ_U64(s.targets[0].cpu[0].remote_frees, 0);
	CHECK_EQ_U64(s.targets[0].unmatched_frees, 1);
	CHECK_EQ_U64(s.targets[0].live_at_end, 1);
	CHECK_EQ_U64(s.targets[0].lifetime_p50_ns, 300);
	CHECK_EQ_U64(s.targets[0].lifetime_max_ns, 500);
	CHECK(s.targets[0].lifetime_mean_ns == 300.0);
	objects_free(&s);
	recording_free(&r);
	fixture_free(&f);
}

/* An address freed and reallocated at the same instant is two objects. */
static void test_reuse_at_same_time(void)
{
	struct fixture f;
	struct recording r;
	struct obj_summary s;

	fixture_begin(&f, 1);
	fixture_event(&f, DPROF_REC_ALLOC, 0, 0, 10, 0xa000);
	fixture_event(&f, DPROF_REC_ALLOC, 1, 0, 20, 0xa000);	/* reuse */
	fixture_event(&f, DPROF_REC_FREE, 0, 0, 20, 0xa000);
	fixture_event(&f, DPROF_REC_FREE, 0, 0, 25, 0xa000);
	summarize(&f, &r, &s);
	CHECK_EQ_U64(s.targets[0].matched, 2);
	CHECK_EQ_U64(s.targets[0].remote_frees, 1);	/* second: cpu1 -> 0 */
	CHECK_EQ_U64(s.targets[0].live_at_end, 0);
	objects_free(&s);
	recording_free(&r);
	fixture_free(&f);
}

/* Many objects force the live map to grow and delete under collisions. */
static void test_many_objects(void)
{
	struct fixture f;
	struct recording r;
	struct obj_summary s;
	const int n = 20000;

	fixture_begin(&f, 2);
	for (int i = 0; i < n; i++)
		fixture_event(&f, DPROF_REC_ALLOC, i % 2, i % 2, 10 * i,
			      0x100000 + 256 * i);
	for (int i = 0; i < n; i += 2)	/* free the even ones on cpu1 */
		fixture_event(&f, DPROF_REC_FREE, 1, 0, 10 * n + i,
			      0x100000 + 256 * i);
	summarize(&f, &r, &s);
	CHECK_EQ_U64(s.targets[0].matched, n / 2);
	CHECK_EQ_U64(s.targets[0].remote_frees, n / 2);
	CHECK_EQ_U64(s.targets[0].live_at_end, 0);
	CHECK_EQ_U64(s.targets[1].live_at_end, n / 2);
	objects_free(&s);
	recording_free(&r);
	fixture_free(&f);
}

/*
 * The bounce's interval counts addresses, not lives.  40 lives on 4
 * addresses, 10 each: one address's lives are all freed on the other CPU
 * (a producer/consumer object reused in a loop), the other three's on
 * their own.  b = 10/40; by hand, r_a - b m_a is 7.5 once and -2.5 three
 * times, var = 4/3 * (56.25 + 3 * 6.25) / 40^2 = 1/16, so the half-width
 * is 1.96 * 0.25 = 0.49, where 40 independent lives would give
 * 1.96 * sqrt(0.25 * 0.75 / 40) = 0.13 (the Wilson floor over 4
 * addresses reaches 0.45: below).  One address alone has none.
 */
static void test_bounce_over_addresses(void)
{
	static const uint64_t addr[4] = { 0xa000, 0xb000, 0xc000, 0xd000 };
	struct fixture f;
	struct recording r;
	struct obj_summary s;
	uint64_t when = 100;

	fixture_begin(&f, 3);
	for (int k = 0; k < 10; k++) {
		for (int a = 0; a < 4; a++) {
			fixture_event(&f, DPROF_REC_ALLOC, 0, 0, when, addr[a]);
			fixture_event(&f, DPROF_REC_FREE, a == 0 ? 1 : 0, 0,
				      when + 10, addr[a]);
			when += 100;
		}
	}
	/* Target 1: one address, three lives, one of them remote. */
	for (int k = 0; k < 3; k++) {
		fixture_event(&f, DPROF_REC_ALLOC, 0, 1, when, 0xe000);
		fixture_event(&f, DPROF_REC_FREE, k == 0, 1, when + 10, 0xe000);
		when += 100;
	}
	/*
	 * Target 2: three addresses, every life local.  The clusters agree
	 * (variance 0); the Wilson interval of 0 of 3 reaches
	 * 1.96^2 / (3 + 1.96^2) = 0.561.
	 */
	for (int k = 0; k < 3; k++) {
		fixture_event(&f, DPROF_REC_ALLOC, 0, 2, when, 0xf000 + 0x100 * k);
		fixture_event(&f, DPROF_REC_FREE, 0, 2, when + 10, 0xf000 + 0x100 * k);
		when += 100;
	}
	summarize(&f, &r, &s);
	CHECK_EQ_U64(s.targets[0].matched, 40);
	CHECK_EQ_U64(s.targets[0].remote_frees, 10);
	CHECK_EQ_U64(s.targets[0].bounce_addrs, 4);
	CHECK(s.targets[0].bounce_err > 0.489 && s.targets[0].bounce_err < 0.491);
	CHECK_EQ_U64(s.targets[1].matched, 3);
	CHECK_EQ_U64(s.targets[1].bounce_addrs, 1);
	CHECK(s.targets[1].bounce_err < 0);
	CHECK_EQ_U64(s.targets[2].bounce_addrs, 3);
	CHECK(s.targets[2].bounce_err > 0.560 && s.targets[2].bounce_err < 0.562);
	objects_free(&s);
	recording_free(&r);
	fixture_free(&f);
}

const struct unit_test objects_tests[] = {
	{ "objects: bounce interval over distinct addresses", test_bounce_over_addresses },
	{ "objects: pairs, remote frees, lifetimes", test_pairs_remote_and_lifetimes },
	{ "objects: reuse at the same instant", test_reuse_at_same_time },
	{ "objects: many objects", test_many_objects },
	{ NULL, NULL },
};

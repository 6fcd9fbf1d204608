// SPDX-License-Identifier: GPL-2.0
/*
 * Field shares from sample windows on hand-made windows of one type:
 * offset 0 watched in three 1 s windows that took 10, 12 and 8 samples
 * (10 a window), offset 8 in three that took 5 each.  Offset 0's share is
 * 10 / 15; its windows' influences (h - 10) / 3 = 0, 2/3, -2/3 each move
 * the share by 5 / 15^2 of that, offset 8's by nothing, so the spread's
 * variance is 2 (2/3 / 45)^2 x 6/5 = 5.3e-4.  The counts' floor is
 * higher: rates vary at least as Poisson counts, (30 + 1) / 3^2 and
 * (15 + 1) / 3^2, so the share's variance is (5^2 x 31/9 + 10^2 x 16/9)
 * / 15^4 = 5.21e-3; with three windows, Student's t with 2 degrees of
 * freedom (4.303) makes the half-width 0.311.  A window whose CPUs changed is left out.
 */
#include "harness.h"
#include <string.h>
#include "fixture.h"
#include "winshare.h"

/* One window on @offset; @rho other than RHO_ONE makes it an in-use one. */
static void window_rec(struct fixture *f, uint16_t offset, uint32_t samples,
		       uint32_t rho, bool cpus_changed)
{
	struct dprof_window_rec w = {
		.hdr = { .kind = DPROF_REC_WINDOW, .size = sizeof(w) },
		.rho = rho,
		.kind = rho == DPROF_WINDOW_RHO_ONE ? DPROF_WINDOW_REC_OLD :
			DPROF_WINDOW_REC_INUSE,
		.time_ns = 1000, .watched_ns = 1000000000ull, .nr_offsets = 1,
		.cpus_changed = cpus_changed,
		.offset = { offset, DPROF_HIST_NO_OFFSET, DPROF_HIST_NO_OFFSET,
			    DPROF_HIST_NO_OFFSET },
		.samples = { samples },
	};

	fixture_raw(f, &w, sizeof(w));
}

static void window(struct fixture *f, uint16_t offset, uint32_t samples,
		   bool cpus_changed)
{
	window_rec(f, offset, samples, DPROF_WINDOW_RHO_ONE, cpus_changed);
}

static void test_winshare(void)
{
	struct fixture f;
	struct recording r;
	struct rec_error err;
	struct winshare ws;
	struct winshare_est e;

	fixture_begin(&f, 1);
	window(&f, 0, 10, false);
	window(&f, 0, 12, false);
	window(&f, 0, 8, false);
	window(&f, 8, 5, false);
	window(&f, 8, 5, false);
	window(&f, 8, 5, false);
	window(&f, 8, 500, true);
	fixture_end(&f);
	CHECK(recording_parse(&r, f.buf, f.len, &err) == 0);
	winshare_build(&ws, &r);
	CHECK_EQ_U64(ws.windows, 6);
	CHECK_EQ_U64(ws.left_out, 1);
	CHECK(winshare_field(&ws, 0, 0, 8, &e));
	CHECK(e.share > 0.6666 && e.share < 0.6667);
	CHECK(e.half > 0.310 && e.half < 0.312);
	CHECK_EQ_U64(e.windows, 3);
	CHECK(winshare_field(&ws, 0, 8, 16, &e));
	CHECK(e.share > 0.3333 && e.share < 0.3334);
	CHECK(!winshare_field(&ws, 0, 16, 24, &e));
	winshare_free(&ws);
	recording_free(&r);
	fixture_free(&f);
}

static void weighed_window(struct fixture *f, uint16_t offset,
			   uint32_t samples, uint32_t rho)
{
	window_rec(f, offset, samples, rho, false);
}

/*
 * In-use windows weigh their samples by rho (dprof.ko's window.c):
 * offset 0's rate is (10 * 2 + 40 * 0.25) / 2 = 15 and offset 8's
 * (6 * 2 + 8 * 0.5) / 2 = 8, a share of 15 / 23 for offset 0, where the
 * unweighed samples would say 50 / 64.
 */
static void test_winshare_weighed(void)
{
	const uint32_t one = DPROF_WINDOW_RHO_ONE;
	struct fixture f;
	struct recording r;
	struct rec_error err;
	struct winshare ws;
	struct winshare_est e;

	fixture_begin(&f, 1);
	weighed_window(&f, 0, 10, 2 * one);
	weighed_window(&f, 0, 40, one / 4);
	weighed_window(&f, 8, 6, 2 * one);
	weighed_window(&f, 8, 8, one / 2);
	fixture_end(&f);
	CHECK(recording_parse(&r, f.buf, f.len, &err) == 0);
	winshare_build(&ws, &r);
	CHECK(winshare_field(&ws, 0, 0, 8, &e));
	CHECK(e.share > 15 / 23.0 - 1e-9 && e.share < 15 / 23.0 + 1e-9);
	winshare_free(&ws);
	recording_free(&r);
	fixture_free(&f);

	/* A weight of 0 is no draw's: the reader refuses the recording. */
	fixture_begin(&f, 1);
	weighed_window(&f, 0, 10, 0);
	fixture_end(&f);
	CHECK(recording_parse(&r, f.buf, f.len, &err) != 0);
	CHECK(strstr(err.msg, "weighs its samples by 0/65536") != NULL);
	fixture_free(&f);
}

/* ABI 6 recordings: 56-byte WINDOW records, every draw uniform. */
static void test_winshare_abi6(void)
{
	const uint32_t abi6 = 6;
	struct fixture f;
	struct recording r;
	struct rec_error err;
	struct winshare ws;
	struct winshare_est e;

	fixture_begin(&f, 1);
	for (int i = 0; i < 3; i++) {
		struct dprof_window_rec w = {
			.hdr = { .kind = DPROF_REC_WINDOW,
				 .size = DPROF_WINDOW_REC_ABI6_SIZE },
			.time_ns = 1000, .watched_ns = 20000000ull,
			.nr_offsets = 2,
			.offset = { 0, 8, DPROF_HIST_NO_OFFSET,
				    DPROF_HIST_NO_OFFSET },
			.samples = { 3, 1 },
		};

		fixture_raw(&f, &w, DPROF_WINDOW_REC_ABI6_SIZE);
	}
	fixture_end(&f);
	memcpy(f.buf + 8, &abi6, sizeof(abi6));	/* the header's abi_version */
	CHECK(recording_parse(&r, f.buf, f.len, &err) == 0);
	winshare_build(&ws, &r);
	CHECK_EQ_U64(ws.windows, 3);
	CHECK(winshare_field(&ws, 0, 0, 8, &e));
	CHECK(e.share > 0.7499 && e.share < 0.7501);
	winshare_free(&ws);
	recording_free(&r);
	fixture_free(&f);
}

const struct unit_test winshare_tests[] = {
	{ "winshare: rates per window, windows as units, a counts floor", test_winshare },
	{ "winshare: in-use samples weighed by the draw's rho; a weight of 0 refused", test_winshare_weighed },
	{ "winshare: ABI 6 window records (no rho) read as uniform draws", test_winshare_abi6 },
	{ NULL, NULL },
};

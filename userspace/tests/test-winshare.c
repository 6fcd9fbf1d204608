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
#include <math.h>
#include "harness.h"
#include <string.h>
#include "fixture.h"
#include "histories.h"
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

/* Offset 0 at 10, 12, 8 samples in three windows, offset 8 at 5 in three. */
static void six_windows(struct fixture *f)
{
	window(f, 0, 10, false);
	window(f, 0, 12, false);
	window(f, 0, 8, false);
	window(f, 8, 5, false);
	window(f, 8, 5, false);
	window(f, 8, 5, false);
}

static void test_winshare(void)
{
	struct fixture f;
	struct recording r;
	struct rec_error err;
	struct winshare ws;
	struct winshare_est e;

	fixture_begin(&f, 1);
	six_windows(&f);
	window(&f, 8, 500, true);
	fixture_end(&f);
	CHECK(recording_parse(&r, f.buf, f.len, &err) == 0);
	winshare_build(&ws, &r, NULL);
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

/*
 * The same windows with the recording's plan of target 0 at four offsets
 * (0, 8 in one item, 16, 24 in another no window watched): the two
 * unwatched offsets are taken at the watched ones' mean rate, so the
 * type's rate is twice the watched and every share and half-width half.
 */
static void test_winshare_unwatched(void)
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
	struct winshare ws;
	struct winshare_est e;

	fixture_begin(&f, 1);
	six_windows(&f);
	fixture_end_with(&f, DPROF_SEC_PLANS, items, sizeof(items));
	CHECK(recording_parse(&r, f.buf, f.len, &err) == 0);
	winshare_build(&ws, &r, NULL);
	CHECK(winshare_field(&ws, 0, 0, 8, &e));
	CHECK(e.share > 0.3333 && e.share < 0.3334);
	CHECK(e.half > 0.155 && e.half < 0.156);
	CHECK(winshare_field(&ws, 0, 8, 16, &e));
	CHECK(e.share > 0.1666 && e.share < 0.1667);
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
	winshare_build(&ws, &r, NULL);
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
	winshare_build(&ws, &r, NULL);
	CHECK_EQ_U64(ws.windows, 3);
	CHECK(winshare_field(&ws, 0, 0, 8, &e));
	CHECK(e.share > 0.7499 && e.share < 0.7501);
	winshare_free(&ws);
	recording_free(&r);
	fixture_free(&f);
}

/*
 * Facts for target 0: share INTERVAL, the kinds' parts and the unseen
 * part in 1/10000.
 */
static void facts_unseen(struct fixture_section *sec, uint8_t *buf,
			 uint16_t old, uint16_t young, uint16_t inuse,
			 uint16_t life, uint16_t unseen)
{
	struct dprof_target_fact tf = {
		.target = 0, .share_kind = DPROF_SHARE_INTERVAL,
		.share = 10000, .half = 100, .windows = 1,
		.kind_part = { old, young, inuse, life }, .unseen = unseen,
	};

	fixture_facts(sec, buf, &tf);
}

static void facts_section(struct fixture_section *sec, uint8_t *buf,
			  uint16_t old, uint16_t young, uint16_t inuse,
			  uint16_t life)
{
	facts_unseen(sec, buf, old, young, inuse, life, 0);
}

/* A window of @kind on offsets 0 and 8, @a and @b samples. */
static void kind_window(struct fixture *f, uint8_t kind, uint32_t a,
			uint32_t b)
{
	struct dprof_window_rec w = {
		.hdr = { .kind = DPROF_REC_WINDOW, .size = sizeof(w) },
		.rho = DPROF_WINDOW_RHO_ONE, .kind = kind,
		.time_ns = 1000, .watched_ns = 20000000ull, .nr_offsets = 2,
		.offset = { 0, 8, DPROF_HIST_NO_OFFSET, DPROF_HIST_NO_OFFSET },
		.samples = { a, b },
	};

	fixture_raw(f, &w, sizeof(w));
}

/*
 * Five histories of target 0 on offsets 0 and 8: three lives that saw
 * (3, 1), (3, 1) and (2, 2), one ended by the unload and one with an
 * element dropped, which are no lives.
 */
static void five_histories(struct history h[5], struct hist_elem el[5][100])
{
	static const unsigned int seen[5][2] = {
		{ 3, 1 }, { 3, 1 }, { 2, 2 }, { 100, 0 }, { 100, 0 },
	};

	memset(h, 0, 5 * sizeof(*h));
	memset(el, 0, 5 * sizeof(*el));
	for (int i = 0; i < 5; i++) {
		h[i].id = (uint32_t)i + 1;
		h[i].target = 0;
		h[i].nr_offsets = 2;
		h[i].offset[0] = 0;
		h[i].offset[1] = 8;
		h[i].offset[2] = DPROF_HIST_NO_OFFSET;
		h[i].offset[3] = DPROF_HIST_NO_OFFSET;
		h[i].reason = i == 3 ? DPROF_HIST_UNLOAD : DPROF_HIST_FREED;
		h[i].dropped = i == 4;
		h[i].elems = el[i];
		for (unsigned int k = 0; k < seen[i][0] + seen[i][1]; k++)
			el[i][k].offset = k < seen[i][0] ? 0 : 8;
		h[i].nr_elems = seen[i][0] + seen[i][1];
	}
}

/* five_histories()' three complete lives as the units: offset 0 at 8/12. */
static void check_three_lives(const struct winshare *ws)
{
	struct winshare_est e;

	CHECK_EQ_U64(ws->lives, 3);
	CHECK(winshare_field(ws, 0, 0, 8, &e));
	CHECK(fabs(e.share - 8 / 12.0) < 1e-9);
	CHECK_EQ_U64(e.windows, 3);
	CHECK(e.half > 0);
}

/*
 * The kinds weighed by the module's parts, not by their windows: old
 * windows (2) give offset 0 a share of 10 / 20 = 0.5 (two windows of
 * (9, 10) and (11, 10)), in-use ones (6) 30 / 40 = 0.75.  With parts of
 * 25 % and 75 % the share is 0.25 x 0.5 + 0.75 x 0.75 = 0.6875; pooled,
 * the in-use windows' number would weigh them: (20 + 180) / 8 = 25
 * against 10, 0.714.  Young windows count for nothing there: neither
 * their kind nor the lives have a part.  When the lives have one and no
 * history is given, the young windows stand for them: with all of the
 * type on lives, they alone set the share (11 / 22 = 0.5).  Given the
 * histories, the lives are theirs.
 */
static void test_winshare_strata(void)
{
	struct fixture_section sec;
	uint8_t buf[FIXTURE_FACTS_SIZE];
	struct fixture f;
	struct recording r;
	struct rec_error err;
	struct winshare ws;
	struct winshare_est e;

	fixture_begin(&f, 1);
	kind_window(&f, DPROF_WINDOW_REC_OLD, 9, 10);
	kind_window(&f, DPROF_WINDOW_REC_OLD, 11, 10);
	for (int i = 0; i < 6; i++)
		kind_window(&f, DPROF_WINDOW_REC_INUSE, 30, 10);
	kind_window(&f, DPROF_WINDOW_REC_YOUNG, 5, 5);
	kind_window(&f, DPROF_WINDOW_REC_YOUNG, 5, 5);
	facts_section(&sec, buf, 2500, 0, 7500, 0);
	fixture_end_sections(&f, &sec, 1);
	CHECK(recording_parse(&r, f.buf, f.len, &err) == 0);
	winshare_build(&ws, &r, NULL);
	CHECK_EQ_U64(ws.stratified, 1);
	CHECK(winshare_field(&ws, 0, 0, 8, &e));
	CHECK(fabs(e.share - 0.6875) < 1e-9);
	CHECK_EQ_U64(e.windows, 8);	/* the young ones weigh nothing */
	CHECK(e.half > 0);
	winshare_free(&ws);
	recording_free(&r);
	fixture_free(&f);

	/* All on lives, no histories given: the young windows stand in. */
	fixture_begin(&f, 1);
	kind_window(&f, DPROF_WINDOW_REC_OLD, 9, 10);
	kind_window(&f, DPROF_WINDOW_REC_YOUNG, 5, 5);
	kind_window(&f, DPROF_WINDOW_REC_YOUNG, 6, 6);
	facts_section(&sec, buf, 0, 0, 0, 10000);
	fixture_end_sections(&f, &sec, 1);
	CHECK(recording_parse(&r, f.buf, f.len, &err) == 0);
	winshare_build(&ws, &r, NULL);
	CHECK(winshare_field(&ws, 0, 0, 8, &e));
	CHECK(fabs(e.share - 0.5) < 1e-9);
	CHECK_EQ_U64(e.windows, 2);
	winshare_free(&ws);
	recording_free(&r);
	fixture_free(&f);

	/*
	 * All on lives, histories given: they are the units and the young
	 * windows count for nothing.  Three lives on offsets 0 and 8 saw
	 * (3, 1), (3, 1) and (2, 2): 8 / 12 for offset 0.  A history ended
	 * by the unload and one with an element dropped are no lives.
	 */
	fixture_begin(&f, 1);
	kind_window(&f, DPROF_WINDOW_REC_YOUNG, 5, 5);
	kind_window(&f, DPROF_WINDOW_REC_YOUNG, 6, 6);
	facts_section(&sec, buf, 0, 0, 0, 10000);
	fixture_end_sections(&f, &sec, 1);
	CHECK(recording_parse(&r, f.buf, f.len, &err) == 0);
	{
		struct history h[5];
		static struct hist_elem el[5][100];
		struct history_set hs = { .h = h, .n = 5 };

		five_histories(h, el);
		winshare_build(&ws, &r, &hs);
	}
	check_three_lives(&ws);
	winshare_free(&ws);
	recording_free(&r);
	fixture_free(&f);

	/* A part out of range: the reader refuses the facts. */
	fixture_begin(&f, 1);
	facts_section(&sec, buf, 10001, 0, 0, 0);
	fixture_end_sections(&f, &sec, 1);
	CHECK(recording_parse(&r, f.buf, f.len, &err) != 0);
	CHECK(strstr(err.msg, "kinds' parts") != NULL);
	fixture_free(&f);
}

/*
 * A type with neither the module's parts nor a window, histories alone
 * (the demo's skbuffs): its three lives are its units, pooled, and
 * offset 0's share is 8 / 12 as with the lives' stratum.  A window of
 * the type, even one, makes the windows its units and the lives weigh
 * nothing.
 */
static void test_winshare_lives_alone(void)
{
	struct history h[5];
	static struct hist_elem el[5][100];
	struct history_set hs = { .h = h, .n = 5 };
	struct fixture f;
	struct recording r;
	struct rec_error err;
	struct winshare ws;
	struct winshare_est e;

	five_histories(h, el);
	fixture_begin(&f, 1);
	fixture_end(&f);
	CHECK(recording_parse(&r, f.buf, f.len, &err) == 0);
	winshare_build(&ws, &r, &hs);
	CHECK_EQ_U64(ws.stratified, 0);
	check_three_lives(&ws);
	winshare_free(&ws);
	recording_free(&r);
	fixture_free(&f);

	fixture_begin(&f, 1);
	window(&f, 0, 10, false);
	fixture_end(&f);
	CHECK(recording_parse(&r, f.buf, f.len, &err) == 0);
	winshare_build(&ws, &r, &hs);
	CHECK_EQ_U64(ws.lives, 0);
	CHECK(winshare_field(&ws, 0, 0, 8, &e));
	CHECK_EQ_U64(e.windows, 1);
	winshare_free(&ws);
	recording_free(&r);
	fixture_free(&f);
}

/*
 * A part of the type no sampled kind saw (u, the facts' unseen) may be
 * used at any field: offset 0's share s +- h over the kinds that saw it
 * becomes [(1 - u)(s - h), (1 - u)(s + h) + u].  Eight young windows of
 * (30, 10) samples: s = 0.75, and every window alike leaves the counts
 * floor as h (below 0.25: nothing clipped).  With u = 0.2: lo = 0.8 (s - h), hi = 0.8 (s + h) + 0.2,
 * whatever h is; with u = 0 the interval is s +- h; above 1/1 refused.
 */
static void test_winshare_unseen(void)
{
	struct fixture_section sec;
	uint8_t buf[FIXTURE_FACTS_SIZE];
	struct fixture f;
	struct recording r;
	struct rec_error err;
	struct winshare ws;
	struct winshare_est e;

	for (int with = 0; with < 2; with++) {
		double u = with ? 0.2 : 0;

		fixture_begin(&f, 1);
		for (int i = 0; i < 8; i++)
			kind_window(&f, DPROF_WINDOW_REC_YOUNG, 30, 10);
		facts_unseen(&sec, buf, 0, 10000, 0, 0, with ? 2000 : 0);
		fixture_end_sections(&f, &sec, 1);
		CHECK(recording_parse(&r, f.buf, f.len, &err) == 0);
		winshare_build(&ws, &r, NULL);
		CHECK(winshare_field(&ws, 0, 0, 8, &e));
		CHECK(fabs(e.share - 0.75) < 1e-9);
		CHECK(e.half > 0.01 && e.half < 0.25);
		CHECK(fabs(e.unseen - u) < 1e-9);
		CHECK(fabs(e.lo - (1 - u) * (e.share - e.half)) < 1e-9);
		CHECK(fabs(e.hi - ((1 - u) * (e.share + e.half) + u)) < 1e-9);
		winshare_free(&ws);
		recording_free(&r);
		fixture_free(&f);
	}
	fixture_begin(&f, 1);
	facts_unseen(&sec, buf, 0, 10000, 0, 0, 10001);
	fixture_end_sections(&f, &sec, 1);
	CHECK(recording_parse(&r, f.buf, f.len, &err) != 0);
	CHECK(strstr(err.msg, "unseen 10001") != NULL);
	fixture_free(&f);
}

const struct unit_test winshare_tests[] = {
	{ "winshare: rates per window, windows as units, a counts floor", test_winshare },
	{ "winshare: the plan's unwatched offsets at the watched ones' mean rate", test_winshare_unwatched },
	{ "winshare: in-use samples weighed by the draw's rho; a weight of 0 refused", test_winshare_weighed },
	{ "winshare: ABI 6 window records (no rho) read as uniform draws", test_winshare_abi6 },
	{ "winshare: kinds weighed by the module's parts; lives from histories, else young windows", test_winshare_strata },
	{ "winshare: histories alone, the lives are a type's units", test_winshare_lives_alone },
	{ "winshare: the unseen part widens a field's interval, [(1-u)(s-h), (1-u)(s+h)+u]", test_winshare_unseen },
	{ NULL, NULL },
};

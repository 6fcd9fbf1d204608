// SPDX-License-Identifier: GPL-2.0
/*
 * The all-types ranking under the watch sampler takes dprof.ko's share
 * estimates, not the ratio of the recorded samples: a type's samples
 * count its windows' samples times how many windows it got, and the
 * module weighs that by the objects it drew instead (sample.c).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "harness.h"
#include "fixture.h"
#include "report.h"
#include "typemap.h"

static void agg(struct dprof_sample_agg *e, uint16_t target, uint32_t count)
{
	memset(e, 0, sizeof(*e));
	e->ip = 0xffffffff81000100ull;
	e->count = count;
	e->loads = count;
	e->offset = 8;
	e->target = target;
	e->flags = DPROF_AGG_WATCH_IP;
}

/* cache1 has the most samples, cache2 a few (from histories only). */
static void three_types(struct dprof_sample_agg e[3])
{
	agg(&e[0], 0, 900);
	agg(&e[1], 1, 1000);
	agg(&e[2], 2, 50);
}

/* A recording of the targets cache0.. with @sec, and its report. */
static bool report_of(struct fixture *f, struct recording *r,
		      struct report *rep, unsigned int nr_targets,
		      const struct fixture_section *sec, size_t nr_sec)
{
	struct type_map map = { 0 };
	struct rec_error err;

	fixture_begin(f, nr_targets);
	fixture_end_sections(f, sec, nr_sec);
	if (recording_parse(r, f->buf, f->len, &err)) {
		CHECK(!"recording_parse");
		fixture_free(f);
		return false;
	}
	report_build(r, &map, rep);
	return true;
}

static void report_done(struct fixture *f, struct recording *r,
			struct report *rep)
{
	report_free(rep);
	recording_free(r);
	fixture_free(f);
}

/*
 * cache1 has the most samples but the smaller estimated share (it got
 * twice the windows); cache2's samples came from histories only.
 */
static const char profile_text[] =
	"sampler: watch (debug registers): samples are accesses\n"
	"samples: 1950, in targets 1950, other slab caches or objects not established live 0, not slab 0, no address 0\n"
	"\n"
	"3 of 3 types sampled; share: of the accesses in all types\n"
	"type                        samples    share+-95%     misses   windows     older  bounce  drawn\n"
	"cache0                          900    70.0+-5.0%       est.        20         0  ?         600\n"
	"cache1                         1000    30.0+-3.0%       est.        40         0  ?         620\n"
	"cache2                           50             -       est.         0         0  ?           3\n";

static void test_report_window_shares(void)
{
	struct dprof_sample_agg e[3];
	struct fixture_section sec[2] = {
		{ DPROF_SEC_SAMPLES, e, sizeof(e) },
		{ DPROF_SEC_PROFILE, profile_text, sizeof(profile_text) - 1 },
	};
	struct recording r;
	struct report rep;
	struct fixture f;

	three_types(e);
	if (!report_of(&f, &r, &rep, 3, sec, 2))
		return;
	CHECK(rep.window_shares);
	CHECK_EQ_U64(rep.nr_types, 3);
	if (rep.nr_types == 3) {
		CHECK(!strcmp(rep.types[0].t->cache, "cache0"));
		CHECK(rep.types[0].share > 0.6999 && rep.types[0].share < 0.7001);
		CHECK(rep.types[0].share_err > 0.0499 &&
		      rep.types[0].share_err < 0.0501);
		CHECK_EQ_U64(rep.types[0].windows, 20);
		CHECK(!strcmp(rep.types[1].t->cache, "cache1"));
		CHECK(rep.types[1].share > 0.2999 && rep.types[1].share < 0.3001);
		CHECK(!strcmp(rep.types[2].t->cache, "cache2"));
		CHECK(rep.types[2].no_window);
		CHECK(rep.types[2].share_err < 0);
	}
	report_done(&f, &r, &rep);
}

/* Without the module's profile: shares of the samples, error unknown. */
static void test_report_sample_shares(void)
{
	struct dprof_sample_agg e[2];
	struct fixture_section sec[1] = {
		{ DPROF_SEC_SAMPLES, e, sizeof(e) },
	};
	struct recording r;
	struct report rep;
	struct fixture f;

	agg(&e[0], 0, 300);
	agg(&e[1], 1, 100);
	if (!report_of(&f, &r, &rep, 2, sec, 1))
		return;
	CHECK(!rep.window_shares);
	CHECK_EQ_U64(rep.nr_types, 2);
	if (rep.nr_types == 2) {
		CHECK(!strcmp(rep.types[0].t->cache, "cache0"));
		CHECK(rep.types[0].share > 0.7499 && rep.types[0].share < 0.7501);
		CHECK(rep.types[0].share_err < 0);
		CHECK(!rep.types[1].no_window);
	}
	report_done(&f, &r, &rep);
}

/*
 * The operand sampler: each tick an independent draw, so a share is
 * binomial over the samples.  300 of 400: 0.75 +- 1.96 sqrt(.75 .25 /
 * 400) = 0.0424, whatever the module's text says.
 */
static void test_report_operand_shares(void)
{
	struct dprof_sample_agg e[2];
	uint8_t facts[FIXTURE_FACTS_SIZE];
	struct dprof_target_fact tf = { .target = 0 };
	struct fixture_section sec[2] = {
		{ DPROF_SEC_SAMPLES, e, sizeof(e) },
	};
	struct dprof_facts *head = (struct dprof_facts *)facts;
	struct recording r;
	struct report rep;
	struct fixture f;

	agg(&e[0], 0, 300);
	agg(&e[1], 1, 100);
	e[0].flags = e[1].flags = 0;	/* operands, not watched slots */
	fixture_facts(&sec[1], facts, &tf);
	head->sampler = DPROF_SAMPLER_OPERAND;
	if (!report_of(&f, &r, &rep, 2, sec, 2))
		return;
	CHECK_EQ_U64(rep.nr_types, 2);
	if (rep.nr_types == 2) {
		CHECK(rep.types[0].share > 0.7499 && rep.types[0].share < 0.7501);
		CHECK(fabs(rep.types[0].share_err -
			   1.96 * sqrt(0.75 * 0.25 / 400)) < 1e-9);
		CHECK(fabs(rep.types[1].share_err -
			   1.96 * sqrt(0.25 * 0.75 / 400)) < 1e-9);
	}
	report_done(&f, &r, &rep);
}

/*
 * A watch sample covers the watched slot, whose length the analyses take
 * from the typed plan items (history_len=4 here), not from the module's
 * text: the sample at offset 8 is a 4-byte field; without plans or
 * histories, 8 bytes, history_len's default.
 */
static void test_report_watch_slot(void)
{
	struct dprof_sample_agg e[1];
	struct dprof_plan_item plan = {
		.target = 0, .nr_offsets = 1, .len = 4, .item = 0,
		.offset = { 8, DPROF_HIST_NO_OFFSET, DPROF_HIST_NO_OFFSET,
			    DPROF_HIST_NO_OFFSET },
	};
	struct fixture_section sec[2] = {
		{ DPROF_SEC_SAMPLES, e, sizeof(e) },
		{ DPROF_SEC_PLANS, &plan, sizeof(plan) },
	};
	struct recording r;
	struct report rep;
	struct fixture f;

	agg(&e[0], 0, 10);
	if (!report_of(&f, &r, &rep, 1, sec, 2))
		return;
	CHECK_EQ_U64(rep.nr_types, 1);
	if (rep.nr_types == 1 && rep.types[0].t->nr_fields == 1) {
		CHECK_EQ_U64(rep.types[0].t->fields[0].offset, 8);
		CHECK_EQ_U64(rep.types[0].t->fields[0].size, 4);
	} else {
		CHECK(!"one type with one field");
	}
	report_done(&f, &r, &rep);
	if (!report_of(&f, &r, &rep, 1, sec, 1))
		return;
	if (rep.nr_types == 1 && rep.types[0].t->nr_fields == 1)
		CHECK_EQ_U64(rep.types[0].t->fields[0].size, 8);
	else
		CHECK(!"one type with one field");
	report_done(&f, &r, &rep);
}

/*
 * The same figures as typed facts: the report takes them and reads no
 * sentence of the module's, so rewording every text changes nothing
 * (issue "Review": a change of wording must not change an analysis).
 */
struct facts_section {
	struct dprof_facts head;
	struct dprof_target_fact t[3];
};

static void facts_of(struct facts_section *fs)
{
	memset(fs, 0, sizeof(*fs));
	fs->head.size = sizeof(fs->head);
	fs->head.target_size = sizeof(fs->t[0]);
	fs->head.nr_targets = 3;
	fs->head.flags = DPROF_FACTS_TARGET_ALL;
	fs->head.sampler = DPROF_SAMPLER_WATCH;
	fs->head.track_base_shift = 1;
	fs->head.samples = 1950;
	fs->head.in_targets = 1950;
	fs->head.other_slab = 7;
	for (unsigned int i = 0; i < 3; i++)
		fs->t[i].target = i;
	fs->t[0] = (struct dprof_target_fact){ .target = 0,
		.share_kind = DPROF_SHARE_INTERVAL, .track_shift = 3,
		.share = 7000, .half = 500, .windows = 20, .unseen = 6000 };
	fs->t[1] = (struct dprof_target_fact){ .target = 1,
		.share_kind = DPROF_SHARE_INTERVAL, .track_shift = 1,
		.share = 3000, .half = 300, .windows = 40 };
	fs->t[2].track_shift = 1;
}

static void check_window_report(const struct report *rep)
{
	CHECK(rep->window_shares);
	CHECK(rep->all);
	CHECK_EQ_U64(rep->module_samples, 1950);
	CHECK_EQ_U64(rep->other_slab, 7);
	CHECK_EQ_U64(rep->nr_types, 3);
	if (rep->nr_types != 3)
		return;
	CHECK(!strcmp(rep->types[0].t->cache, "cache0"));
	CHECK(rep->types[0].share > 0.6999 && rep->types[0].share < 0.7001);
	CHECK(rep->types[0].share_err > 0.0499 &&
	      rep->types[0].share_err < 0.0501);
	CHECK_EQ_U64(rep->types[0].windows, 20);
	/* Up to 60% unseen: (0.7 + 0.05) / (0.4 + 0.75 x 0.6) = 0.882 */
	CHECK(fabs(rep->types[0].unseen - 0.6) < 1e-9);
	CHECK(fabs(rep->types[0].share_hi - 0.75 / 0.85) < 1e-9);
	CHECK(!strcmp(rep->types[1].t->cache, "cache1"));
	CHECK(rep->types[1].unseen == 0);
	CHECK(fabs(rep->types[1].share_hi - 0.33) < 1e-9);
	CHECK(rep->types[2].no_window);
}

static void test_report_facts_not_sentences(void)
{
	static const char reworded[] =
		"wamples: 12, in nothing\ntarget=some\nzzz 1 99.0+-1.0% est. 5\n";
	struct dprof_sample_agg e[3];
	struct facts_section fs;
	struct fixture_section sec[4] = {
		{ DPROF_SEC_SAMPLES, e, sizeof(e) },
		{ DPROF_SEC_PROFILE, reworded, sizeof(reworded) - 1 },
		{ DPROF_SEC_STATUS, reworded, sizeof(reworded) - 1 },
		{ DPROF_SEC_FACTS, &fs, sizeof(fs) },
	};
	struct recording r;
	struct report rep;
	struct fixture f;

	three_types(e);
	facts_of(&fs);
	if (!report_of(&f, &r, &rep, 3, sec, 4))
		return;
	check_window_report(&rep);
	CHECK_EQ_U64(recording_track_one_in(&r, 0), 8);
	CHECK_EQ_U64(recording_track_one_in(&r, 1), 2);
	CHECK_EQ_U64(recording_track_one_in(&r, SIZE_MAX), 2);
	report_done(&f, &r, &rep);

	/*
	 * No allocation hook (target=all's operand default): the rules'
	 * shifts are the module's idle settings, no object was followed, and
	 * nothing is scaled nor said to be.
	 */
	fs.head.flags |= DPROF_FACTS_NO_HOOKS;
	if (!report_of(&f, &r, &rep, 3, sec, 4))
		return;
	CHECK_EQ_U64(recording_track_one_in(&r, 0), 1);
	CHECK_EQ_U64(rep.track_one_in, 1);
	report_done(&f, &r, &rep);

	/* An entry from a newer writer: longer, its tail ignored. */
	{
		struct {
			struct dprof_facts head;
			struct { struct dprof_target_fact f; uint64_t more; } t[3];
		} big;
		struct fixture_section sec2[2] = {
			{ DPROF_SEC_SAMPLES, e, sizeof(e) },
			{ DPROF_SEC_FACTS, &big, sizeof(big) },
		};

		memset(&big, 0xee, sizeof(big));
		big.head = fs.head;
		big.head.target_size = sizeof(big.t[0]);
		for (unsigned int i = 0; i < 3; i++)
			big.t[i].f = fs.t[i];
		if (!report_of(&f, &r, &rep, 3, sec2, 2))
			return;
		check_window_report(&rep);
		report_done(&f, &r, &rep);
	}
}

/* One window of @kind on @target with @samples at offset 0. */
static void window_of(struct fixture *f, uint16_t target, uint8_t kind,
		      uint32_t samples)
{
	struct dprof_window_rec w = {
		.hdr = { .kind = DPROF_REC_WINDOW, .size = sizeof(w),
			 .target = target },
		.rho = DPROF_WINDOW_RHO_ONE, .item_rho = DPROF_WINDOW_RHO_ONE,
		.kind = kind, .time_ns = 1000, .watched_ns = 20000000,
		.nr_offsets = 1,
		.offset = { 0, DPROF_HIST_NO_OFFSET, DPROF_HIST_NO_OFFSET,
			    DPROF_HIST_NO_OFFSET },
		.samples = { samples },
	};

	fixture_raw(f, &w, sizeof(w));
}

/* A history on @target that ended by @reason with @elements. */
static void history_of(struct fixture *f, uint16_t target, uint32_t id,
		       uint8_t reason, uint32_t elements, uint8_t end_flags)
{
	struct dprof_hist_begin b = {
		.hdr = { .kind = DPROF_REC_HIST_BEGIN, .size = sizeof(b),
			 .target = target },
		.time_ns = 1000, .addr = 0xffff888000100000ull, .id = id,
		.offset = { 0, DPROF_HIST_NO_OFFSET, DPROF_HIST_NO_OFFSET,
			    DPROF_HIST_NO_OFFSET },
		.len = 8, .nr_offsets = 1,
	};
	struct dprof_hist_end e = {
		.hdr = { .kind = DPROF_REC_HIST_END, .size = sizeof(e),
			 .target = target, .flags = end_flags },
		.time_ns = 2000, .id = id, .elements = elements,
		.reason = reason,
	};

	fixture_raw(f, &b, sizeof(b));
	fixture_raw(f, &e, sizeof(e));
}

/*
 * A share on one sampled unit ranks after those on two or more: cache0
 * (50 %) rests on one old window that took samples (two more took none),
 * cache1 (30 %) on two in-use windows (its old window with samples is of
 * a kind its estimate leaves out), cache2 (20 %) on two lives (a third
 * had a CPU come or go, its young window weighs nothing).
 */
static void test_report_thin_ranked_after(void)
{
	struct dprof_sample_agg e[3];
	struct facts_section fs;
	struct fixture_section sec[2] = {
		{ DPROF_SEC_SAMPLES, e, sizeof(e) },
		{ DPROF_SEC_FACTS, &fs, sizeof(fs) },
	};
	struct type_map map = { 0 };
	struct rec_error err;
	struct recording r;
	struct report rep;
	struct fixture f;

	three_types(e);
	facts_of(&fs);
	fs.t[0] = (struct dprof_target_fact){ .target = 0,
		.share_kind = DPROF_SHARE_INTERVAL, .share = 5000,
		.half = 4000, .windows = 3,
		.kind_part = { [DPROF_WINDOW_REC_OLD] = 10000 } };
	fs.t[1] = (struct dprof_target_fact){ .target = 1,
		.share_kind = DPROF_SHARE_INTERVAL, .share = 3000,
		.half = 1000, .windows = 3,
		.kind_part = { [DPROF_WINDOW_REC_INUSE] = 10000 } };
	fs.t[2] = (struct dprof_target_fact){ .target = 2,
		.share_kind = DPROF_SHARE_INTERVAL, .share = 2000,
		.half = 1000, .windows = 1,
		.kind_part = { [DPROF_WINDOW_REC_LIFE] = 10000 } };
	fixture_begin(&f, 3);
	window_of(&f, 0, DPROF_WINDOW_REC_OLD, 9);
	window_of(&f, 0, DPROF_WINDOW_REC_OLD, 0);
	window_of(&f, 0, DPROF_WINDOW_REC_OLD, 0);
	window_of(&f, 1, DPROF_WINDOW_REC_INUSE, 4);
	window_of(&f, 1, DPROF_WINDOW_REC_INUSE, 2);
	window_of(&f, 1, DPROF_WINDOW_REC_OLD, 5);
	window_of(&f, 2, DPROF_WINDOW_REC_YOUNG, 5);
	history_of(&f, 2, 7, DPROF_HIST_FREED, 3, 0);
	history_of(&f, 2, 8, DPROF_HIST_TIMEOUT, 1, 0);
	history_of(&f, 2, 9, DPROF_HIST_FREED, 4, DPROF_HIST_CPUS_CHANGED);
	history_of(&f, 2, 10, DPROF_HIST_FREED, 0, 0);
	fixture_end_sections(&f, sec, 2);
	if (recording_parse(&r, f.buf, f.len, &err)) {
		CHECK(!"recording_parse");
		fixture_free(&f);
		return;
	}
	report_build(&r, &map, &rep);
	CHECK_EQ_U64(rep.nr_types, 3);
	CHECK_EQ_U64(rep.thin_types, 1);
	if (rep.nr_types == 3) {
		CHECK(!strcmp(rep.types[0].t->cache, "cache1"));
		CHECK_EQ_U64(rep.types[0].units, 2);
		CHECK(!strcmp(rep.types[1].t->cache, "cache2"));
		CHECK_EQ_U64(rep.types[1].units, 2);
		CHECK(!strcmp(rep.types[2].t->cache, "cache0"));
		CHECK_EQ_U64(rep.types[2].units, 1);
		/* The shares themselves are the module's, unchanged. */
		CHECK(fabs(rep.types[2].share - 0.5) < 1e-9);
		report_rank_by_share(&rep);
		CHECK(!strcmp(rep.types[0].t->cache, "cache0"));
		CHECK(!strcmp(rep.types[1].t->cache, "cache1"));
		CHECK(!strcmp(rep.types[2].t->cache, "cache2"));
	}
	report_done(&f, &r, &rep);
}

const struct unit_test report_tests[] = {
	{ "report_thin_ranked_after", test_report_thin_ranked_after },
	{ "report_window_shares", test_report_window_shares },
	{ "report_facts_not_sentences", test_report_facts_not_sentences },
	{ "report_sample_shares", test_report_sample_shares },
	{ "report_operand_shares", test_report_operand_shares },
	{ "report_watch_slot", test_report_watch_slot },
	{ NULL, NULL },
};

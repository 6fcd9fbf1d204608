// SPDX-License-Identifier: GPL-2.0
/*
 * A recording judged by a referee table written by hand: the windows of
 * test-winshare (offset 0 at 2/3 +- 0.30 of cache0's samples per
 * window, offset 8 at 1/3) against a referee that saw 66 and 34
 * accesses there (at 12: 16 loads and 34 stores, 16 of them the store
 * halves of read-modify-writes, so 34 instructions): both intervals
 * hold the referee's shares.  The
 * referee's busiest type is one dprof did not profile ("other"), so
 * cache0 is its second and dprof's first: one of dprof's top one in the
 * referee's top five.  A malformed table is refused, and so is a field
 * with more read-modify-writes than stores.
 *
 * Working sets: dprof's interval [lo, hi] against the referee's touched
 * lines times 64: held inside, not held outside, not judged where dprof
 * has no histories or the referee no occupancy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "harness.h"
#include "fixture.h"
#include "judge.h"

static void window(struct fixture *f, uint16_t offset, uint32_t samples)
{
	struct dprof_window_rec w = {
		.hdr = { .kind = DPROF_REC_WINDOW, .size = sizeof(w) },
		.rho = DPROF_WINDOW_RHO_ONE,
		.time_ns = 1000, .watched_ns = 1000000000ull, .nr_offsets = 1,
		.offset = { offset, DPROF_HIST_NO_OFFSET, DPROF_HIST_NO_OFFSET,
			    DPROF_HIST_NO_OFFSET },
		.samples = { samples },
	};

	fixture_raw(f, &w, sizeof(w));
}

static const char *write_table(const char *text)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/dprof-test-referee-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	if (write(fd, text, strlen(text)) < 0)
		path[0] = 0;
	close(fd);
	return path;
}

static void test_judge(void)
{
	struct fixture f;
	struct recording r;
	struct rec_error err;
	struct winshare ws;
	struct oracle o;
	struct judge j;
	const char *path;

	fixture_begin(&f, 1);
	window(&f, 0, 10);
	window(&f, 0, 12);
	window(&f, 0, 8);
	window(&f, 8, 5);
	window(&f, 8, 5);
	window(&f, 8, 5);
	fixture_end(&f);
	CHECK(recording_parse(&r, f.buf, f.len, &err) == 0);
	winshare_build(&ws, &r, NULL);
	path = write_table("{\"referee\": 1, \"measured\": {\"seconds\": 2, \"accesses\": 1100},"
			   " \"fields\": ["
			   "{\"cache\": \"cache0\", \"kind\": \"slab\", \"offset\": 0, \"loads\": 66},"
			   "{\"cache\": \"cache0\", \"kind\": \"slab\", \"offset\": 12, \"loads\": 16, \"stores\": 34, \"rmw\": 16},"
			   "{\"cache\": \"other\", \"kind\": \"slab\", \"offset\": 0, \"loads\": 1000}]}");
	CHECK(path && oracle_load(&o, path) == 0);
	judge_build(&j, &r, &o, &ws, NULL, NULL, NULL, 10);
	CHECK_EQ_U64(j.calibrated, 2);
	CHECK_EQ_U64(j.held, 2);
	CHECK_EQ_U64(j.top5, 1);
	CHECK_EQ_U64(j.top5_common, 1);
	CHECK_EQ_U64(j.nf, 2);
	if (j.nf == 2) {
		CHECK(j.f[0].oracle_share > 0.659 && j.f[0].oracle_share < 0.661);
		CHECK(j.f[1].oracle_share > 0.339 && j.f[1].oracle_share < 0.341);
	}
	judge_free(&j);
	oracle_free(&o);
	unlink(path);
	path = write_table("{\"fields\": []}");
	CHECK(path && oracle_load(&o, path) == -1);
	unlink(path);
	path = write_table("{\"fields\": [{\"cache\": \"x\", \"kind\": \"slab\","
			   " \"stores\": 1, \"rmw\": 2}]}");
	CHECK(path && oracle_load(&o, path) == -1);
	unlink(path);
	winshare_free(&ws);
	recording_free(&r);
	fixture_free(&f);
}

/* A recording of @nr_targets caches, one window on cache0, its shares. */
static void one_window(struct fixture *f, struct recording *r,
		       struct winshare *ws, unsigned int nr_targets)
{
	struct rec_error err;

	fixture_begin(f, nr_targets);
	window(f, 0, 10);
	fixture_end(f);
	CHECK(recording_parse(r, f->buf, f->len, &err) == 0);
	winshare_build(ws, r, NULL);
}

static void one_window_free(struct fixture *f, struct recording *r,
			    struct winshare *ws)
{
	winshare_free(ws);
	recording_free(r);
	fixture_free(f);
}

static void test_judge_workingset(void)
{
	struct fixture f;
	struct recording r;
	struct winshare ws;
	struct oracle o;
	struct judge j;
	struct ws_type types[2] = {
		{ .bytes = 1000, .bytes_lo = 900, .bytes_hi = 1100,
		  .objects = 4, .histories = 30, .from_histories = true },
		{ .bytes = 640, .bytes_lo = 600, .bytes_hi = 700,
		  .objects = 2, .histories = 12, .from_histories = true },
	};
	struct workingset wset = { .types = types, .nr_types = 2 };
	const char *path;

	one_window(&f, &r, &ws, 2);
	/* cache0: 15 lines = 960 B, inside; cache1: 12 lines = 768 B, above. */
	path = write_table("{\"referee\": 1, \"fields\": [],"
			   " \"occupancy\": ["
			   "{\"cache\": \"cache0\", \"live_objects\": 3.5, \"touched_lines\": 15},"
			   "{\"cache\": \"cache1\", \"live_objects\": 2, \"touched_lines\": 12},"
			   "{\"cache\": \"idle\", \"live_objects\": 9, \"touched_lines\": 0}]}");
	CHECK(path && oracle_load(&o, path) == 0);
	CHECK_EQ_U64(o.nocc, 3);
	judge_build(&j, &r, &o, &ws, NULL, NULL, &wset, 10);
	CHECK_EQ_U64(j.ws_types, 2);
	CHECK_EQ_U64(j.ws_held, 1);
	for (size_t i = 0; i < j.nt; i++) {
		if (!strcmp(j.t[i].cache, "cache0"))
			CHECK(j.t[i].ws_held && j.t[i].oracle_ws_bytes == 960 &&
			      j.t[i].oracle_objects == 3.5);
		if (!strcmp(j.t[i].cache, "cache1"))
			CHECK(!j.t[i].ws_held && j.t[i].oracle_ws_bytes == 768);
		if (!strcmp(j.t[i].cache, "idle"))
			CHECK(!j.t[i].have_ws && j.t[i].have_oracle_ws);
	}
	judge_free(&j);
	/* No histories behind dprof's: not judged. */
	types[1].from_histories = false;
	judge_build(&j, &r, &o, &ws, NULL, NULL, &wset, 10);
	CHECK_EQ_U64(j.ws_types, 1);
	judge_free(&j);
	oracle_free(&o);
	unlink(path);
	path = write_table("{\"referee\": 1, \"fields\": [], \"occupancy\": {}}");
	CHECK(path && oracle_load(&o, path) == -1);
	unlink(path);
	one_window_free(&f, &r, &ws);
}

/*
 * Line labels against the referee's misses over the line's 64 bytes: a
 * handoff line whose misses (at two of its offsets) are mostly true
 * sharing agrees; a false-sharing line where the referee counts only
 * true sharing contradicts; a line with no miss there is no-misses.
 */
static void test_judge_lines(void)
{
	struct fixture f;
	struct recording r;
	struct winshare ws;
	struct oracle o;
	struct judge j;
	struct classify_line lines[3] = {
		{ .target = 0, .line = 0, .label = CLASSIFY_HANDOFF },
		{ .target = 0, .line = 1, .label = CLASSIFY_FALSE_SHARING },
		{ .target = 0, .line = 2, .label = CLASSIFY_TRUE_SHARING },
	};
	struct classify c = { .l = lines, .nl = 3 };
	const char *path;

	one_window(&f, &r, &ws, 1);
	path = write_table("{\"referee\": 1, \"measured\": {\"seconds\": 2, \"accesses\": 100},"
			   " \"fields\": ["
			   "{\"cache\": \"cache0\", \"kind\": \"slab\", \"offset\": 0, \"loads\": 9, \"true_sharing\": 4},"
			   "{\"cache\": \"cache0\", \"kind\": \"slab\", \"offset\": 56, \"loads\": 9, \"true_sharing\": 2, \"false_sharing\": 5},"
			   "{\"cache\": \"cache0\", \"kind\": \"slab\", \"offset\": 72, \"loads\": 9, \"true_sharing\": 3}]}");
	CHECK(path && oracle_load(&o, path) == 0);
	judge_build(&j, &r, &o, &ws, &c, NULL, NULL, 10);
	CHECK_EQ_U64(j.nl, 3);
	if (j.nl == 3) {
		CHECK_EQ_U64(j.l[0].oracle_true, 6);
		CHECK_EQ_U64(j.l[0].oracle_false, 5);
		CHECK(j.l[0].verdict == JUDGE_AGREE);
		CHECK(j.l[1].verdict == JUDGE_CONTRADICT);
		CHECK(j.l[2].verdict == JUDGE_NO_MISSES);
	}
	CHECK_EQ_U64(j.lines_contradicted, 2);
	judge_free(&j);
	oracle_free(&o);
	unlink(path);
	one_window_free(&f, &r, &ws);
}

/*
 * The part of a type no sampled kind saw widens what is judged: 8 old
 * windows give offset 0 three quarters of cache0's samples per window
 * (30 of 40) and offset 8 one quarter, every window alike, so share +-
 * half is narrow and misses the referee's halves.  With 60% of the type
 * unseen (the facts), the intervals [(1 - u)(s - h), (1 - u)(s + h) + u]
 * hold them: both fields held, neither by share +- half alone, both
 * widened.  The type: dprof 70% +- 10 against the referee's 90% (cache0
 * 900 of 1,000 slab accesses) misses by share +- half and is held up to
 * (0.8) / (0.4 + 0.8 x 0.6) = 0.909, the upper end with the unseen part.
 */
static void test_judge_unseen(void)
{
	struct dprof_target_fact tf = {
		.target = 0, .share_kind = DPROF_SHARE_INTERVAL,
		.share = 7000, .half = 1000, .windows = 8,
		.kind_part = { 10000, 0, 0, 0 }, .unseen = 6000,
	};
	uint8_t buf[FIXTURE_FACTS_SIZE];
	struct fixture_section sec;
	struct profile_type pt = { .cache = "cache0", .target = 0 };
	struct report_type rt = {
		.t = &pt, .share = 0.7, .share_err = 0.1, .unseen = 0.6,
		.share_hi = 0.8 / (0.4 + 0.8 * 0.6), .window_share = true,
	};
	struct report rep = { .window_shares = true, .types = &rt,
			      .nr_types = 1 };
	struct fixture f;
	struct recording r;
	struct rec_error err;
	struct winshare ws;
	struct oracle o;
	struct judge j;
	const char *path;

	fixture_begin(&f, 1);
	for (int i = 0; i < 8; i++) {
		window(&f, 0, 30);
		window(&f, 8, 10);
	}
	fixture_facts(&sec, buf, &tf);
	fixture_end_sections(&f, &sec, 1);
	CHECK(recording_parse(&r, f.buf, f.len, &err) == 0);
	winshare_build(&ws, &r, NULL);
	path = write_table("{\"referee\": 1, \"measured\": {\"seconds\": 2, \"accesses\": 1000},"
			   " \"fields\": ["
			   "{\"cache\": \"cache0\", \"kind\": \"slab\", \"offset\": 0, \"loads\": 450},"
			   "{\"cache\": \"cache0\", \"kind\": \"slab\", \"offset\": 8, \"loads\": 450},"
			   "{\"cache\": \"other\", \"kind\": \"slab\", \"offset\": 0, \"loads\": 100}]}");
	CHECK(path && oracle_load(&o, path) == 0);
	judge_build(&j, &r, &o, &ws, NULL, &rep, NULL, 10);
	CHECK_EQ_U64(j.calibrated, 2);
	CHECK_EQ_U64(j.held, 2);
	CHECK_EQ_U64(j.held_seen, 0);
	CHECK_EQ_U64(j.widened, 2);
	CHECK_EQ_U64(j.types_judged, 1);
	CHECK_EQ_U64(j.types_held, 1);
	CHECK_EQ_U64(j.types_held_seen, 0);
	judge_free(&j);
	oracle_free(&o);
	unlink(path);
	winshare_free(&ws);
	recording_free(&r);
	fixture_free(&f);
}

/*
 * dprof's ranks follow report's order, which puts a share on one
 * sampled unit after the rest: cache0 at 60 % rests on one window and
 * comes second, behind cache1 at 30 %; the referee ranks cache1 first.
 */
static void test_judge_report_order(void)
{
	struct profile_type pt[2] = {
		{ .cache = "cache0", .target = 0 },
		{ .cache = "cache1", .target = 1 },
	};
	struct report_type rt[2] = {
		{ .t = &pt[1], .share = 0.3, .share_err = 0.1,
		  .share_hi = 0.4, .window_share = true, .units = 4 },
		{ .t = &pt[0], .share = 0.6, .share_err = 0.5,
		  .share_hi = 1, .window_share = true, .units = 1 },
	};
	struct report rep = { .window_shares = true, .types = rt,
			      .nr_types = 2, .thin_types = 1 };
	struct fixture f;
	struct recording r;
	struct rec_error err;
	struct winshare ws;
	struct oracle o;
	struct judge j;
	const char *path;

	fixture_begin(&f, 2);
	window(&f, 0, 3);
	fixture_end(&f);
	CHECK(recording_parse(&r, f.buf, f.len, &err) == 0);
	winshare_build(&ws, &r, NULL);
	path = write_table("{\"referee\": 1, \"measured\": {\"seconds\": 2, \"accesses\": 1000},"
			   " \"fields\": ["
			   "{\"cache\": \"cache0\", \"kind\": \"slab\", \"offset\": 0, \"loads\": 100},"
			   "{\"cache\": \"cache1\", \"kind\": \"slab\", \"offset\": 0, \"loads\": 900}]}");
	CHECK(path && oracle_load(&o, path) == 0);
	judge_build(&j, &r, &o, &ws, NULL, &rep, NULL, 10);
	for (size_t i = 0; i < j.nt; i++) {
		if (!strcmp(j.t[i].cache, "cache1")) {
			CHECK_EQ_U64(j.t[i].dprof_rank, 1);
			CHECK_EQ_U64(j.t[i].oracle_rank, 1);
		} else if (!strcmp(j.t[i].cache, "cache0")) {
			CHECK_EQ_U64(j.t[i].dprof_rank, 2);
		}
	}
	CHECK(j.spearman > 0.999);
	judge_free(&j);
	oracle_free(&o);
	unlink(path);
	winshare_free(&ws);
	recording_free(&r);
	fixture_free(&f);
}

struct operand_sample {
	uint16_t target, offset;
	uint32_t count;
};

/* A sampler=operand recording of two targets holding samples @s. */
static void operand_recording(struct fixture *f, struct recording *r,
			      const struct operand_sample *s, size_t n)
{
	struct rec_error err;

	fixture_begin(f, 2);
	fixture_end(f);
	CHECK(recording_parse(r, f->buf, f->len, &err) == 0);
	r->has_facts = true;
	r->facts.sampler = DPROF_SAMPLER_OPERAND;
	free(r->samples);
	r->samples = calloc(n, sizeof(*r->samples));
	r->nr_samples = n;
	for (size_t i = 0; i < n; i++) {
		r->samples[i].target = s[i].target;
		r->samples[i].offset = s[i].offset;
		r->samples[i].count = s[i].count;
	}
}

/* A sampler=operand recording of samples @s judged against @table. */
struct operand_judged {
	struct fixture f;
	struct recording r;
	struct winshare ws;
	struct oracle o;
	struct judge j;
	const char *path;
};

static void operand_judge(struct operand_judged *x,
			  const struct operand_sample *s, size_t n,
			  const char *table, uint64_t min_samples)
{
	operand_recording(&x->f, &x->r, s, n);
	winshare_build(&x->ws, &x->r, NULL);
	x->path = write_table(table);
	CHECK(x->path && oracle_load(&x->o, x->path) == 0);
	judge_build(&x->j, &x->r, &x->o, &x->ws, NULL, NULL, NULL,
		    min_samples);
}

static void operand_judged_free(struct operand_judged *x)
{
	judge_free(&x->j);
	oracle_free(&x->o);
	unlink(x->path);
	winshare_free(&x->ws);
	recording_free(&x->r);
	fixture_free(&x->f);
}

/*
 * sampler=operand: the samples are binomial.  cache0 gets 80 of 100 slab
 * samples (60 at offset 0, 15 + 5 in the slot at 8), cache1 20.  The
 * referee saw cache0 700 + 200 accesses, 100 of them with interrupts
 * off, and cache1 1,200, 1,000 of them off: with interrupts on, 800 and
 * 200, the samples' 0.8 and 0.2, and cache0's fields 0.75 and 0.25.
 * Of cache0's 200 at offset 8, 120 are the allocator's before it
 * returned the object (at_alloc, 20 of them with interrupts off).
 * Against all accesses cache1 would be 1200/2100 and out of its interval.
 */
static void test_judge_operand(void)
{
	static const struct operand_sample s[] = {
		{ 0, 0, 60 }, { 0, 8, 15 }, { 0, 12, 5 }, { 1, 0, 20 },
	};
	struct operand_judged x;
	const struct judge *j = &x.j;

	operand_judge(&x, s, 4, "{\"referee\": 1, \"fields\": ["
		      "{\"cache\": \"cache0\", \"kind\": \"slab\", \"offset\": 0, \"loads\": 700, \"irqs_off\": 100},"
		      "{\"cache\": \"cache0\", \"kind\": \"slab\", \"offset\": 8, \"loads\": 100, \"irqs_off\": 0, \"at_alloc\": 120, \"at_alloc_irqs_off\": 20},"
		      "{\"cache\": \"cache1\", \"kind\": \"slab\", \"offset\": 0, \"loads\": 1200, \"irqs_off\": 1000}]}", 10);
	CHECK(x.o.has_irqs_off);
	CHECK(j->interruptible);
	CHECK_EQ_U64(j->oracle_slab_accesses, 1000);
	CHECK_EQ_U64(j->oracle_slab_at_alloc, 120);
	CHECK_EQ_U64(j->calibrated, 3);
	CHECK_EQ_U64(j->held, 3);
	CHECK_EQ_U64(j->types_over_1pct, 2);
	CHECK_EQ_U64(j->types_over_1pct_held, 2);
	CHECK(j->top1_same);
	for (size_t i = 0; i < j->nt; i++)
		if (!strcmp(j->t[i].cache, "cache1")) {
			CHECK(j->t[i].dprof_share > 0.199 && j->t[i].dprof_share < 0.201);
			CHECK_EQ_U64(j->t[i].oracle_accesses, 200);
			CHECK_EQ_U64(j->t[i].oracle_irqs_off, 1000);
		}
	operand_judged_free(&x);
}

/*
 * sampler=operand: the fields judged are those the referee's share puts
 * at min_samples or more of the type's samples, not those dprof happened
 * to sample that often.  cache0's 100 samples: 84 at offset 0, 16 at 8;
 * the referee's 800, 50 and 150 accesses at 0, 8 and 16 predict 80, 5
 * and 15.  At a minimum of 10, offsets 0 and 16 are judged (16, never
 * sampled, not held) and 8 is not, for all its 16 samples; at 16, only
 * offset 0.
 */
static size_t judged_by_referee(uint64_t min, size_t *held, bool *at16)
{
	static const struct operand_sample s[] = {
		{ 0, 0, 84 }, { 0, 8, 16 },
	};
	struct operand_judged x;
	size_t n;

	operand_judge(&x, s, 2, "{\"referee\": 1, \"fields\": ["
		      "{\"cache\": \"cache0\", \"kind\": \"slab\", \"offset\": 0, \"loads\": 800, \"irqs_off\": 0},"
		      "{\"cache\": \"cache0\", \"kind\": \"slab\", \"offset\": 8, \"loads\": 50, \"irqs_off\": 0},"
		      "{\"cache\": \"cache0\", \"kind\": \"slab\", \"offset\": 16, \"loads\": 150, \"irqs_off\": 0}]}", min);
	n = x.j.calibrated;
	*held = x.j.held;
	*at16 = false;
	for (size_t i = 0; i < x.j.nf; i++)
		if (x.j.f[i].offset == 16)
			*at16 = x.j.f[i].samples == 0 && !x.j.f[i].held;
	operand_judged_free(&x);
	return n;
}

static void test_judge_fields_by_referee(void)
{
	size_t held;
	bool at16;

	CHECK_EQ_U64(judged_by_referee(10, &held, &at16), 2);
	CHECK_EQ_U64(held, 1);
	CHECK(at16);
	CHECK_EQ_U64(judged_by_referee(16, &held, &at16), 1);
	CHECK_EQ_U64(held, 1);
}

/*
 * The top types under sampler=operand, of 100 samples.  cache0 52 and
 * cache1 48 (each +- 0.10 at 95 %): a referee with cache1 first at 520
 * of 1,000 accesses does not agree on the top, but dprof's intervals do
 * not tell the two apart: tied.  cache0 80 and cache1 20 (+- 0.08)
 * against cache1 at 900 of 1,000: differs.
 */
static bool judge_top(uint32_t samples0, uint64_t loads0, uint64_t loads1,
		      bool *same)
{
	const struct operand_sample s[] = {
		{ 0, 0, samples0 }, { 1, 0, 100 - samples0 },
	};
	struct operand_judged x;
	char table[512];
	bool tied;

	snprintf(table, sizeof(table),
		 "{\"referee\": 1, \"fields\": ["
		 "{\"cache\": \"cache0\", \"kind\": \"slab\", \"offset\": 0, \"loads\": %llu, \"irqs_off\": 0},"
		 "{\"cache\": \"cache1\", \"kind\": \"slab\", \"offset\": 0, \"loads\": %llu, \"irqs_off\": 0}]}",
		 (unsigned long long)loads0, (unsigned long long)loads1);
	operand_judge(&x, s, 2, table, 10);
	*same = x.j.top1_same;
	tied = x.j.top1_tied;
	operand_judged_free(&x);
	return tied;
}

static void test_judge_top_tied(void)
{
	bool same;

	CHECK(judge_top(52, 600, 400, &same));
	CHECK(same);
	CHECK(judge_top(52, 480, 520, &same));
	CHECK(!same);
	CHECK(!judge_top(80, 100, 900, &same));
	CHECK(!same);
}

const struct unit_test judge_tests[] = {
	{ "judge: dprof ranked in report's order", test_judge_report_order },
	{ "judge: the unseen part widens field and type intervals",
	  test_judge_unseen },
	{ "judge: line labels against the referee's lines", test_judge_lines },
	{ "judge: operand fields chosen by the referee's share",
	  test_judge_fields_by_referee },
	{ "judge: shares against a referee table, ranks", test_judge },
	{ "judge: sampler=operand, binomial, interrupts-on accesses",
	  test_judge_operand },
	{ "judge: top types the same, tied within intervals, or not",
	  test_judge_top_tied },
	{ "judge: working sets against the referee's occupancy",
	  test_judge_workingset },
	{ NULL, NULL },
};

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
 *
 * Labels come from the histories as independent units: one history has
 * no interval (undecided); five identical ones decide (no spread); one
 * such history and one where only cpu0 writes offset 0 (five hits after
 * a first touch) give offset 0 a share of 1/10 whose interval,
 * 1.96 sqrt(((1 - 0.5)^2 + (0 - 0.5)^2) / (2 x 1 x 5^2)) = 0.196, holds
 * the 5% threshold: undecided, about 2 (0.196 / 0.05)^2 = 31 histories
 * to decide.
 *
 * The same accesses per line (0 and 8 are one line): 7 accesses, 1 first
 * touch, 1 transfer, 2 false and 1 true sharing, 2 hits; in 5 of 5 lives
 * the line moved (Wilson 95%: 0.566-1), but invalidations outnumber the
 * move, so the line is false sharing as its shares say.  A hand-off
 * history: cpu0 writes offset 0 three times, then cpu1 reads offset 8
 * once: offset 8 is all transfer (handoff), offset 0 neither, the line
 * 1 transfer in 4 accesses (25%, handoff).
 */
#include <stdbool.h>
#include "harness.h"
#include "fixture.h"
#include "classify.h"

/* An element of history @id (the tag's low bits name the history). */
static void elem(struct fixture *f, uint32_t id, uint16_t cpu, bool b,
		 bool write, uint32_t since)
{
	struct dprof_hist_elem e = {
		.kind = DPROF_REC_HIST_ELEM, .size = sizeof(e), .cpu = cpu,
		.tag = id | (b ? DPROF_ELEM_WATCH(1) : 0) |
		       (write ? DPROF_ELEM_WRITE : 0),
		.ip_lo = 0x81000100 + since, .time_ns = since,
	};

	fixture_raw(f, &e, sizeof(e));
}

/* The history of the table above, with id @id. */
static void known_history(struct fixture *f, uint32_t id)
{
	struct dprof_hist_begin b = {
		.hdr = { .kind = DPROF_REC_HIST_BEGIN, .size = sizeof(b) },
		.time_ns = 1000, .addr = 0xffff888000001000ull, .id = id,
		.offset = { 0, 8 }, .len = 8, .nr_offsets = 2,
	};
	struct dprof_hist_end x = {
		.hdr = { .kind = DPROF_REC_HIST_END, .size = sizeof(x) },
		.time_ns = 9000, .id = id, .reason = DPROF_HIST_FREED,
		.elements = 7,
	};

	fixture_raw(f, &b, sizeof(b));
	elem(f, id, 0, false, true, 10);
	elem(f, id, 1, true, true, 20);
	elem(f, id, 0, false, false, 30);
	elem(f, id, 0, false, true, 40);
	elem(f, id, 1, true, false, 50);
	elem(f, id, 1, false, true, 60);
	elem(f, id, 0, false, false, 70);
	fixture_raw(f, &x, sizeof(x));
}

/* cpu0 alone writes offset 0 five times: a first touch and four hits. */
static void private_history(struct fixture *f, uint32_t id)
{
	struct dprof_hist_begin b = {
		.hdr = { .kind = DPROF_REC_HIST_BEGIN, .size = sizeof(b) },
		.time_ns = 1000, .addr = 0xffff888000002000ull, .id = id,
		.offset = { 0, 8 }, .len = 8, .nr_offsets = 2,
	};
	struct dprof_hist_end x = {
		.hdr = { .kind = DPROF_REC_HIST_END, .size = sizeof(x) },
		.time_ns = 9000, .id = id, .reason = DPROF_HIST_FREED,
		.elements = 5,
	};

	fixture_raw(f, &b, sizeof(b));
	for (int i = 0; i < 5; i++)
		elem(f, id, 0, false, true, 10 * (i + 1));
	fixture_raw(f, &x, sizeof(x));
}

/* cpu0 writes offset 0 three times, then cpu1 reads offset 8 once. */
static void handoff_history(struct fixture *f, uint32_t id)
{
	struct dprof_hist_begin b = {
		.hdr = { .kind = DPROF_REC_HIST_BEGIN, .size = sizeof(b) },
		.time_ns = 1000, .addr = 0xffff888000003000ull, .id = id,
		.offset = { 0, 8 }, .len = 8, .nr_offsets = 2,
	};
	struct dprof_hist_end x = {
		.hdr = { .kind = DPROF_REC_HIST_END, .size = sizeof(x) },
		.time_ns = 9000, .id = id, .reason = DPROF_HIST_FREED,
		.elements = 4,
	};

	fixture_raw(f, &b, sizeof(b));
	for (int i = 0; i < 3; i++)
		elem(f, id, 0, false, true, 10 * (i + 1));
	elem(f, id, 1, true, false, 40);
	fixture_raw(f, &x, sizeof(x));
}

/*
 * Classify @nr_known copies of the known history, @nr_private private
 * ones and @nr_handoff hand-offs.
 */
static void classify_fixture3(struct classify *c, struct history_set *hs,
			      struct recording *r, struct fixture *f,
			      int nr_known, int nr_private, int nr_handoff)
{
	struct rec_error err;

	fixture_begin(f, 1);
	for (int i = 0; i < nr_known; i++)
		known_history(f, 5 + i);
	for (int i = 0; i < nr_private; i++)
		private_history(f, 100 + i);
	for (int i = 0; i < nr_handoff; i++)
		handoff_history(f, 200 + i);
	fixture_end(f);
	CHECK(recording_parse(r, f->buf, f->len, &err) == 0);
	histories_build(hs, r);
	classify_build(c, hs);
}

static void classify_fixture(struct classify *c, struct history_set *hs,
			     struct recording *r, struct fixture *f,
			     int nr_known, int nr_private)
{
	classify_fixture3(c, hs, r, f, nr_known, nr_private, 0);
}

static void classify_done(struct classify *c, struct history_set *hs,
			  struct recording *r, struct fixture *f)
{
	classify_free(c);
	histories_free(hs);
	recording_free(r);
	fixture_free(f);
}

static void test_classify_known_history(void)
{
	struct fixture f;
	struct recording r;
	struct history_set hs;
	struct classify c;

	classify_fixture(&c, &hs, &r, &f, 1, 0);
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
		/* One history: no interval, no label. */
		CHECK(f0->label == CLASSIFY_UNDECIDED);
		CHECK(f0->true_share.half < 0);
		CHECK_EQ_U64(f8->offset, 8);
		CHECK_EQ_U64(f8->accesses, 2);
		CHECK_EQ_U64(f8->transfers, 1);
		CHECK_EQ_U64(f8->false_sharing, 1);
		CHECK_EQ_U64(f8->false_writers[0].offset, 0);
		CHECK(f8->label == CLASSIFY_UNDECIDED);
	}
	classify_done(&c, &hs, &r, &f);
}

static void test_classify_intervals(void)
{
	struct fixture f;
	struct recording r;
	struct history_set hs;
	struct classify c;

	/* Five alike: no spread, so the labels are decided. */
	classify_fixture(&c, &hs, &r, &f, 5, 0);
	CHECK_EQ_U64(c.n, 2);
	if (c.n == 2) {
		CHECK_EQ_U64(c.f[0].histories, 5);
		CHECK(c.f[0].label == CLASSIFY_TRUE_SHARING);
		CHECK(c.f[0].true_share.p > 0.199 && c.f[0].true_share.p < 0.201);
		CHECK(c.f[0].true_share.half >= 0 && c.f[0].true_share.half < 1e-6);
		CHECK(c.f[1].label == CLASSIFY_FALSE_SHARING);
		CHECK_EQ_U64(c.decided, 2);
	}
	classify_done(&c, &hs, &r, &f);

	/* One sharing history, one private: 1/10 +- 0.196, undecided. */
	classify_fixture(&c, &hs, &r, &f, 1, 1);
	if (c.n >= 1) {
		const struct classify_field *f0 = &c.f[0];

		CHECK_EQ_U64(f0->histories, 2);
		CHECK(f0->true_share.p > 0.099 && f0->true_share.p < 0.101);
		CHECK(f0->true_share.half > 0.195 && f0->true_share.half < 0.197);
		CHECK(f0->label == CLASSIFY_UNDECIDED);
		CHECK_EQ_U64(f0->histories_to_decide, 31);
	}
	classify_done(&c, &hs, &r, &f);
}

static void test_classify_lines(void)
{
	struct fixture f;
	struct recording r;
	struct history_set hs;
	struct classify c;

	classify_fixture(&c, &hs, &r, &f, 5, 0);
	CHECK_EQ_U64(c.nl, 1);
	if (c.nl == 1) {
		const struct classify_line *l = &c.l[0];

		CHECK_EQ_U64(l->line, 0);
		CHECK_EQ_U64(l->histories, 5);
		CHECK_EQ_U64(l->accesses, 35);
		CHECK_EQ_U64(l->first_touch, 5);
		CHECK_EQ_U64(l->transfers, 5);
		CHECK_EQ_U64(l->false_sharing, 10);
		CHECK_EQ_U64(l->true_sharing, 5);
		CHECK_EQ_U64(l->hits, 10);
		CHECK_EQ_U64(l->slots_watched, 2);
		CHECK_EQ_U64(l->most_together, 2);
		CHECK_EQ_U64(l->nr_groups, 1);
		CHECK_EQ_U64(l->group[0].moved, 5);
		CHECK(l->moved_lo > 0.565 && l->moved_lo < 0.567);
		CHECK(l->label == CLASSIFY_FALSE_SHARING);
	}
	classify_done(&c, &hs, &r, &f);

	classify_fixture3(&c, &hs, &r, &f, 0, 0, 5);
	CHECK_EQ_U64(c.n, 2);
	CHECK_EQ_U64(c.nl, 1);
	if (c.n == 2 && c.nl == 1) {
		CHECK(c.f[0].label == CLASSIFY_NEITHER);
		CHECK_EQ_U64(c.f[1].transfers, 5);
		CHECK(c.f[1].label == CLASSIFY_HANDOFF);
		CHECK_EQ_U64(c.f[1].transfer_writers[0].offset, 0);
		CHECK_EQ_U64(c.f[1].transfer_writers[0].count, 5);
		CHECK(c.l[0].transfer_share.p > 0.249 &&
		      c.l[0].transfer_share.p < 0.251);
		CHECK(c.l[0].label == CLASSIFY_HANDOFF);
		CHECK_EQ_U64(c.lines_decided, 1);
	}
	classify_done(&c, &hs, &r, &f);
}

/*
 * A plan watching offsets 0, 8 and 64: with the known histories (0 and
 * 8), offset 64 and its line are rows with no history, undecided.
 */
static void test_classify_cover(void)
{
	struct dprof_plan_item items[2] = {
		{ .target = 0, .nr_offsets = 2, .len = 8,
		  .offset = { 0, 8, DPROF_HIST_NO_OFFSET, DPROF_HIST_NO_OFFSET } },
		{ .target = 0, .nr_offsets = 1, .len = 8, .item = 1,
		  .offset = { 64, DPROF_HIST_NO_OFFSET, DPROF_HIST_NO_OFFSET,
			      DPROF_HIST_NO_OFFSET } },
	};
	struct fixture f;
	struct recording r;
	struct history_set hs;
	struct classify c;

	classify_fixture(&c, &hs, &r, &f, 5, 0);
	classify_cover(&c, items, 2);
	CHECK_EQ_U64(c.planned, 3);
	CHECK_EQ_U64(c.unwatched, 1);
	CHECK_EQ_U64(c.n, 3);
	CHECK_EQ_U64(c.nl, 2);
	if (c.n == 3 && c.nl == 2) {
		CHECK_EQ_U64(c.f[2].offset, 64);
		CHECK_EQ_U64(c.f[2].histories, 0);
		CHECK(c.f[2].label == CLASSIFY_UNDECIDED);
		CHECK_EQ_U64(c.f[2].histories_to_decide, 2);
		CHECK_EQ_U64(c.l[1].line, 1);
		CHECK_EQ_U64(c.l[1].histories, 0);
		CHECK(c.l[1].label == CLASSIFY_UNDECIDED);
		/* The watched fields keep their labels. */
		CHECK(c.f[0].label == CLASSIFY_TRUE_SHARING);
	}
	classify_done(&c, &hs, &r, &f);
}

/*
 * record --until decided counts the labels of a type: fields' and lines'
 * together, undecided ones apart, other types left out.
 */
static void test_classify_count_labels(void)
{
	struct dprof_plan_item item = {
		.target = 0, .nr_offsets = 1, .len = 8,
		.offset = { 64, DPROF_HIST_NO_OFFSET, DPROF_HIST_NO_OFFSET,
			    DPROF_HIST_NO_OFFSET },
	};
	struct fixture f;
	struct recording r;
	struct history_set hs;
	struct classify c;
	size_t decided, undecided;

	/* One history: no interval, so no label decides. */
	classify_fixture(&c, &hs, &r, &f, 1, 0);
	classify_count_labels(&c, -1, &decided, &undecided);
	CHECK_EQ_U64(decided, 0);
	CHECK_EQ_U64(undecided, 3);	/* offsets 0 and 8, line 0 */
	classify_count_labels(&c, 1, &decided, &undecided);
	CHECK_EQ_U64(decided + undecided, 0);	/* no such type */
	classify_done(&c, &hs, &r, &f);

	/* Five alike: the watched decide; a planned offset no history saw,
	 * and its line, stay undecided. */
	classify_fixture(&c, &hs, &r, &f, 5, 0);
	classify_count_labels(&c, 0, &decided, &undecided);
	CHECK_EQ_U64(decided, 3);
	CHECK_EQ_U64(undecided, 0);
	classify_cover(&c, &item, 1);
	classify_count_labels(&c, 0, &decided, &undecided);
	CHECK_EQ_U64(decided, 3);
	CHECK_EQ_U64(undecided, 2);
	classify_done(&c, &hs, &r, &f);
}

/*
 * A move charged to the field that took it.  cpu0 writes offsets 0, 8
 * and 16 of one line, then cpu1 reads 16 and then 8: the line arrives
 * with 16.  Histories watching {0, 8} see cpu1's read of 8 as the move
 * (its first watched access to the line), histories watching {0, 8, 16}
 * see it at 16 and 8 hit.  Only the second kind watched every slot used
 * (0, 8 and 16), so 16 is handoff, 8 neither, though 8's raw count has
 * three transfers, which an attribution to any watching history would
 * have labelled handoff (3 of 12 accesses).
 */
static void mover_history(struct fixture *f, uint32_t id, bool with_16)
{
	struct dprof_hist_begin b = {
		.hdr = { .kind = DPROF_REC_HIST_BEGIN, .size = sizeof(b) },
		.time_ns = 1000, .addr = 0xffff888000004000ull + 64 * id,
		.id = id, .offset = { 0, 8, 16 }, .len = 8,
		.nr_offsets = with_16 ? 3 : 2,
	};
	struct dprof_hist_end x = {
		.hdr = { .kind = DPROF_REC_HIST_END, .size = sizeof(x) },
		.time_ns = 9000, .id = id, .reason = DPROF_HIST_FREED,
		.elements = with_16 ? 5 : 3,
	};
	/* cpu, watch slot, write */
	static const int seq[5][3] = {
		{ 0, 0, 1 }, { 0, 1, 1 }, { 0, 2, 1 }, { 1, 2, 0 }, { 1, 1, 0 },
	};

	fixture_raw(f, &b, sizeof(b));
	for (int i = 0; i < 5; i++) {
		struct dprof_hist_elem e = {
			.kind = DPROF_REC_HIST_ELEM, .size = sizeof(e),
			.cpu = (uint16_t)seq[i][0],
			.tag = id | DPROF_ELEM_WATCH(seq[i][1]) |
			       (seq[i][2] ? DPROF_ELEM_WRITE : 0),
			.ip_lo = 0x81000200 + i, .time_ns = 10 * (i + 1),
		};

		if (seq[i][1] == 2 && !with_16)
			continue;
		fixture_raw(f, &e, sizeof(e));
	}
	fixture_raw(f, &x, sizeof(x));
}

/* Classify 3 histories watching {0, 8} and @with_16 watching {0, 8, 16}. */
static void classify_movers(struct classify *c, struct history_set *hs,
			    struct recording *r, struct fixture *f,
			    uint32_t with_16)
{
	struct rec_error err;

	fixture_begin(f, 1);
	for (uint32_t i = 0; i < 3; i++)
		mover_history(f, 300 + i, false);
	for (uint32_t i = 0; i < with_16; i++)
		mover_history(f, 310 + i, true);
	fixture_end(f);
	CHECK(recording_parse(r, f->buf, f->len, &err) == 0);
	histories_build(hs, r);
	classify_build(c, hs);
}

static void test_classify_moves_placed(void)
{
	struct fixture f;
	struct recording r;
	struct history_set hs;
	struct classify c;

	classify_movers(&c, &hs, &r, &f, 3);
	CHECK_EQ_U64(c.histories, 6);
	CHECK_EQ_U64(c.n, 3);
	if (c.n == 3) {
		const struct classify_field *f8 = &c.f[1], *f16 = &c.f[2];

		CHECK_EQ_U64(f8->offset, 8);
		CHECK_EQ_U64(f8->transfers, 3);
		CHECK_EQ_U64(f8->transfer_histories, 3);
		CHECK(f8->transfer_share.p == 0 && f8->transfer_share.half == 0);
		CHECK(f8->label == CLASSIFY_NEITHER);
		CHECK_EQ_U64(f16->offset, 16);
		CHECK_EQ_U64(f16->transfer_histories, 3);
		CHECK(f16->transfer_share.p > 0.499 &&
		      f16->transfer_share.p < 0.501);
		CHECK(f16->label == CLASSIFY_HANDOFF);
	}
	/* The line moved in every life, whichever slot took it. */
	CHECK_EQ_U64(c.nl, 1);
	if (c.nl == 1) {
		CHECK_EQ_U64(c.l[0].transfers, 6);
		CHECK(c.l[0].label == CLASSIFY_HANDOFF);
	}
	classify_done(&c, &hs, &r, &f);

	/*
	 * With no history watching 16, nothing says 16 is used: {0, 8} is
	 * the line whole as far as the histories know, and 8 takes the
	 * moves (the limit classify.h states; the coverage line counts
	 * planned slots no history watched).
	 */
	classify_movers(&c, &hs, &r, &f, 0);
	CHECK_EQ_U64(c.n, 2);
	if (c.n == 2) {
		CHECK_EQ_U64(c.f[1].transfer_histories, 3);
		CHECK(c.f[1].label == CLASSIFY_HANDOFF);
	}
	classify_done(&c, &hs, &r, &f);

	/*
	 * One whole-line history: no interval for the placed share, so 8's
	 * label leaves the moves out (neither: no invalidation) and its
	 * share is the bound over all its histories, 3 of 8 accesses.
	 */
	classify_movers(&c, &hs, &r, &f, 1);
	CHECK_EQ_U64(c.n, 3);
	if (c.n == 3) {
		CHECK_EQ_U64(c.f[1].transfer_histories, 1);
		CHECK(c.f[1].transfer_share.half < 0);
		CHECK(c.f[1].transfer_share.p > 0.374 &&
		      c.f[1].transfer_share.p < 0.376);
		CHECK(c.f[1].label == CLASSIFY_NEITHER);
	}
	classify_done(&c, &hs, &r, &f);
}

const struct unit_test classify_tests[] = {
	{ "classify_moves_placed", test_classify_moves_placed },
	{ "classify_known_history", test_classify_known_history },
	{ "classify_intervals", test_classify_intervals },
	{ "classify_lines", test_classify_lines },
	{ "classify_cover", test_classify_cover },
	{ "classify_count_labels", test_classify_count_labels },
	{ NULL, NULL },
};

// SPDX-License-Identifier: GPL-2.0
/*
 * kmalloc-N's samples by allocation site: each LIVE sample record finds
 * its object's last ALLOC before it; a FREE, an untracked allocation or
 * no event at all leaves it unmatched; a reallocated address is a new
 * life of its new site.
 */
#include <math.h>
#include <stdlib.h>
#include "harness.h"
#include "fixture.h"
#include "sitesplit.h"

#define SITE_A 0xffffffffa0001000ull
#define SITE_B 0xffffffffa0002000ull

static void object(struct fixture *f, uint16_t kind, uint8_t flags,
		   uint64_t time, uint64_t base, uint64_t site)
{
	struct dprof_obj_event e = {
		.hdr = { .kind = kind, .size = sizeof(e), .flags = flags },
		.time_ns = time, .addr = base, .call_site = site,
	};

	fixture_raw(f, &e, sizeof(e));
}

static void sample(struct fixture *f, uint64_t time, uint64_t base,
		   uint8_t flags)
{
	struct dprof_sample_rec s = {
		.hdr = { .kind = DPROF_REC_SAMPLE, .size = sizeof(s),
			 .flags = DPROF_SAMPLE_LOAD | flags },
		.time_ns = time, .ip = 0xffffffff81000100ull, .offset = 8,
		.src = DPROF_SRC_UNKNOWN, .base = base,
	};

	fixture_raw(f, &s, sizeof(s));
}

static void test_samples_split_by_site(void)
{
	const uint8_t live = DPROF_SAMPLE_LIVE | DPROF_SAMPLE_SITE_ONLY;
	struct site_splits out;
	const struct site_split *s;
	struct recording r;
	struct rec_error err;
	struct fixture f;
	/* Lives of 2, 1, 1 samples at A and one of 2 at B, as built below. */
	double dev = (2.0 / 7) * (2.0 / 7) * 7 + (5.0 / 7) * (5.0 / 7) * 4;
	double half = 2.776 * sqrt(5.0 / 4 * dev) / 7;

	fixture_begin(&f, 1);
	object(&f, DPROF_REC_ALLOC, 0, 10, 0x1000, SITE_A);
	object(&f, DPROF_REC_ALLOC, 0, 10, 0x2000, SITE_A);
	object(&f, DPROF_REC_ALLOC, 0, 10, 0x3000, SITE_A);
	object(&f, DPROF_REC_ALLOC, 0, 10, 0x4000, SITE_B);
	object(&f, DPROF_REC_ALLOC, DPROF_OBJ_UNTRACKED, 10, 0x5000, SITE_B);
	sample(&f, 20, 0x1000, live);
	sample(&f, 21, 0x1000, live);
	sample(&f, 20, 0x2000, live);
	sample(&f, 20, 0x3000, live);
	sample(&f, 20, 0x4000, live);
	sample(&f, 22, 0x4000, live);
	sample(&f, 20, 0x5000, live);	/* never in the set: unmatched */
	sample(&f, 20, 0x9000, live);	/* no event: unmatched */
	sample(&f, 20, 0x2000, 0);	/* not LIVE: not a site record */
	object(&f, DPROF_REC_FREE, 0, 30, 0x1000, 0);
	sample(&f, 40, 0x1000, live);	/* after its free: unmatched */
	object(&f, DPROF_REC_FREE, 0, 50, 0x4000, 0);
	object(&f, DPROF_REC_ALLOC, 0, 60, 0x4000, SITE_A);
	sample(&f, 70, 0x4000, live);	/* the new life, at A */
	fixture_end(&f);
	CHECK(recording_parse(&r, f.buf, f.len, &err) == 0);
	site_split_build(&r, NULL, &out);
	s = &out.t[0];
	CHECK_EQ_U64(s->records, 10);
	CHECK_EQ_U64(s->matched, 7);
	CHECK_EQ_U64(s->lives, 5);
	CHECK_EQ_U64(s->nr_sites, 2);
	CHECK_EQ_U64(s->sites[0].call_site, SITE_A);
	CHECK_EQ_U64(s->sites[0].samples, 5);
	CHECK_EQ_U64(s->sites[0].lives, 4);
	CHECK_EQ_U64(s->sites[1].call_site, SITE_B);
	CHECK_EQ_U64(s->sites[1].samples, 2);
	CHECK_EQ_U64(s->sites[1].lives, 1);
	CHECK(fabs(s->sites[0].share - 5.0 / 7) < 1e-9);
	/* Over 5 lives, wider than the binomial of 7 samples. */
	CHECK(fabs(s->sites[0].half - half) < 1e-3);
	CHECK(fabs(s->sites[1].half - half) < 1e-3);
	site_split_free(&out);
	recording_free(&r);
	fixture_free(&f);
}

/* One life alone: a share with no interval. */
static void test_one_life_no_interval(void)
{
	struct site_splits out;
	struct recording r;
	struct rec_error err;
	struct fixture f;

	fixture_begin(&f, 1);
	object(&f, DPROF_REC_ALLOC, 0, 10, 0x1000, SITE_A);
	sample(&f, 20, 0x1000, DPROF_SAMPLE_LIVE);
	sample(&f, 30, 0x1000, DPROF_SAMPLE_LIVE);
	fixture_end(&f);
	CHECK(recording_parse(&r, f.buf, f.len, &err) == 0);
	site_split_build(&r, NULL, &out);
	CHECK_EQ_U64(out.t[0].matched, 2);
	CHECK_EQ_U64(out.t[0].nr_sites, 1);
	CHECK(out.t[0].sites[0].half < 0);
	site_split_free(&out);
	recording_free(&r);
	fixture_free(&f);
}

const struct unit_test sitesplit_tests[] = {
	{ "samples_split_by_site", test_samples_split_by_site },
	{ "one_life_no_interval", test_one_life_no_interval },
	{ NULL, NULL },
};

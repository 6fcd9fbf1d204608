// SPDX-License-Identifier: GPL-2.0
/* Raw sample records aggregated like the module's per-CPU tables. */
#include <stdlib.h>
#include "harness.h"
#include "fixture.h"
#include "rawsamples.h"

static void sample(struct fixture *f, uint16_t cpu, uint16_t offset,
		   uint64_t ip, uint8_t flags, uint16_t latency)
{
	struct dprof_sample_rec s = {
		.hdr = { .kind = DPROF_REC_SAMPLE, .size = sizeof(s),
			 .cpu = cpu, .flags = flags },
		.ip = ip, .offset = offset, .latency = latency,
		.src = DPROF_SRC_UNKNOWN,
	};

	fixture_raw(f, &s, sizeof(s));
}

static void test_raw_samples_aggregated(void)
{
	struct dprof_sample_agg *e = NULL;
	struct recording r;
	struct rec_error err;
	struct fixture f;
	size_t n;

	fixture_begin(&f, 1);
	sample(&f, 0, 16, 0xffffffff81000100ull,
	       DPROF_SAMPLE_LOAD | DPROF_SAMPLE_MISS, 300);
	sample(&f, 0, 16, 0xffffffff81000100ull,
	       DPROF_SAMPLE_LOAD | DPROF_SAMPLE_MISS, 100);
	sample(&f, 0, 16, 0xffffffff81000100ull, DPROF_SAMPLE_STORE, 0);
	sample(&f, 1, 16, 0xffffffff81000100ull, DPROF_SAMPLE_LOAD, 0);
	sample(&f, 0, 24, 0xffffffff81000100ull, DPROF_SAMPLE_LOAD, 0);
	fixture_end(&f);
	CHECK(recording_parse(&r, f.buf, f.len, &err) == 0);
	n = raw_samples_aggregate(&r, &e);
	CHECK_EQ_U64(n, 3);
	for (size_t i = 0; i < n; i++) {
		if (e[i].offset == 16 && e[i].cpu == 0) {
			CHECK_EQ_U64(e[i].count, 3);
			CHECK_EQ_U64(e[i].loads, 2);
			CHECK_EQ_U64(e[i].stores, 1);
			CHECK_EQ_U64(e[i].misses, 2);
			CHECK_EQ_U64(e[i].latency_sum, 400);
		} else {
			CHECK_EQ_U64(e[i].count, 1);
		}
	}
	free(e);
	recording_free(&r);
	fixture_free(&f);
}

const struct unit_test rawsamples_tests[] = {
	{ "raw_samples_aggregated", test_raw_samples_aggregated },
	{ NULL, NULL },
};

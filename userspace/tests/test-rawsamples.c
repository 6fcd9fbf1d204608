// SPDX-License-Identifier: GPL-2.0
/* Raw sample records aggregated like the module's per-CPU tables. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
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

/*
 * Records written for the site split alone (sample_records=0) are not
 * the whole of the samples: the fallback leaves them out.
 */
static void test_site_records_not_aggregated(void)
{
	struct dprof_sample_agg *e = NULL;
	struct recording r;
	struct rec_error err;
	struct fixture f;

	fixture_begin(&f, 1);
	sample(&f, 0, 16, 0xffffffff81000100ull,
	       DPROF_SAMPLE_LOAD | DPROF_SAMPLE_LIVE | DPROF_SAMPLE_SITE_ONLY, 0);
	fixture_end(&f);
	CHECK(recording_parse(&r, f.buf, f.len, &err) == 0);
	CHECK_EQ_U64(raw_samples_aggregate(&r, &e), 0);
	free(e);
	recording_free(&r);
	fixture_free(&f);
}

/*
 * ABI 6 and 7 recordings have 32-byte SAMPLE records, without the
 * object's base: read with base 0.  The same size in ABI 8 is an error.
 */
static void test_abi7_sample_records(void)
{
	struct dprof_sample_agg *e = NULL;
	struct dprof_sample_rec s = {
		.hdr = { .kind = DPROF_REC_SAMPLE,
			 .size = DPROF_SAMPLE_REC_ABI7_SIZE,
			 .flags = DPROF_SAMPLE_LOAD },
		.ip = 0xffffffff81000100ull, .offset = 16,
		.src = DPROF_SRC_UNKNOWN, .base = 0x1234,
	};
	struct recording r;
	struct rec_error err;
	struct fixture f;
	uint32_t abi = 7;

	fixture_begin(&f, 1);
	fixture_raw(&f, &s, DPROF_SAMPLE_REC_ABI7_SIZE);
	fixture_end(&f);
	CHECK(recording_parse(&r, f.buf, f.len, &err) != 0);
	memcpy(f.buf + offsetof(struct dprof_file_header, abi_version), &abi,
	       sizeof(abi));
	CHECK(recording_parse(&r, f.buf, f.len, &err) == 0);
	CHECK_EQ_U64(raw_samples_aggregate(&r, &e), 1);
	CHECK_EQ_U64(e[0].offset, 16);
	CHECK_EQ_U64(e[0].loads, 1);
	free(e);
	recording_free(&r);
	fixture_free(&f);
}

const struct unit_test rawsamples_tests[] = {
	{ "raw_samples_aggregated", test_raw_samples_aggregated },
	{ "site_records_not_aggregated", test_site_records_not_aggregated },
	{ "abi7_sample_records", test_abi7_sample_records },
	{ NULL, NULL },
};

// SPDX-License-Identifier: GPL-2.0
/*
 * Hardware sample decoding (module/decode.h), against register values
 * composed here bit by bit from the vendors' documented layouts:
 * AMD PPR IbsOpData2/IbsOpData3, and perf's union perf_mem_data_src
 * (mem_op bits 0-4, mem_lvl 5-18, mem_snoop 19-23, mem_lvl_num 33-36,
 * mem_remote 37, mem_snoopx 38-39).
 */
#include "decode.h"
#include "fixture.h"
#include "harness.h"
#include "recfile.h"

/* IbsOpData3 */
#define LD	(1ULL << 0)
#define ST	(1ULL << 1)
#define DCMISS	(1ULL << 7)
#define LINV	(1ULL << 17)
#define L2MISS	(1ULL << 20)
#define LAT(c)	((unsigned long long)(c) << 32)
/* IbsOpData2: DataSrcLo bits 0-2, RmtNode bit 4, DataSrcHi bits 6-7 */
#define SRC(lo, hi) ((unsigned long long)(lo) | ((unsigned long long)(hi) << 6))
#define RMT	(1ULL << 4)

static void test_ibs_l1_hit_load(void)
{
	struct dprof_access a;

	dprof_ibs_decode(0, LD | LINV | LAT(300), 1, &a);
	CHECK_EQ_U64(a.src, DPROF_SRC_L1);
	CHECK(a.load && !a.store && !a.l1_miss && a.addr_valid);
	CHECK_EQ_U64(a.latency, 0);	/* latency only counts for misses */
}

static void test_ibs_dram_miss_with_latency(void)
{
	struct dprof_access a;

	dprof_ibs_decode(SRC(3, 0), LD | DCMISS | L2MISS | LINV | LAT(412), 1,
			 &a);
	CHECK_EQ_U64(a.src, DPROF_SRC_DRAM);
	CHECK(a.l1_miss);
	CHECK_EQ_U64(a.latency, 412);
	dprof_ibs_decode(SRC(3, 0) | RMT, LD | DCMISS | L2MISS | LAT(900), 1,
			 &a);
	CHECK_EQ_U64(a.src, DPROF_SRC_REMOTE);
	CHECK(!a.addr_valid);
}

static void test_ibs_sources(void)
{
	struct dprof_access a;

	dprof_ibs_decode(SRC(1, 0), LD | DCMISS | L2MISS, 1, &a);
	CHECK_EQ_U64(a.src, DPROF_SRC_L3);
	dprof_ibs_decode(SRC(2, 0), LD | DCMISS | L2MISS, 1, &a);
	CHECK_EQ_U64(a.src, DPROF_SRC_PEER_CACHE);
	dprof_ibs_decode(SRC(7, 0), ST | DCMISS | L2MISS, 1, &a);
	CHECK_EQ_U64(a.src, DPROF_SRC_IO);
	CHECK(a.store && !a.load);
	CHECK_EQ_U64(a.latency, 0);	/* stores carry no load latency */
	/* DataSrc 0 with L2 hit: served by L2. */
	dprof_ibs_decode(SRC(0, 0), LD | DCMISS, 1, &a);
	CHECK_EQ_U64(a.src, DPROF_SRC_L2);
	/* Extension memory is source 8: DataSrcHi 1, DataSrcLo 0. */
	dprof_ibs_decode(SRC(0, 1), LD | DCMISS | L2MISS, 1, &a);
	CHECK_EQ_U64(a.src, DPROF_SRC_DRAM);
	/* Before family 19h the high bits are reserved: ignored. */
	dprof_ibs_decode(SRC(0, 1), LD | DCMISS | L2MISS, 0, &a);
	CHECK_EQ_U64(a.src, DPROF_SRC_MISS);
}

static void test_ibs_not_a_memory_op(void)
{
	struct dprof_access a;

	dprof_ibs_decode(0, 0, 1, &a);
	CHECK_EQ_U64(a.src, DPROF_SRC_UNKNOWN);
	CHECK(!a.load && !a.store);
}

/* perf_mem_data_src fields */
#define OP(x)		((unsigned long long)(x))
#define LVL(x)		((unsigned long long)(x) << 5)
#define SNOOP(x)	((unsigned long long)(x) << 19)
#define LVLNUM(x)	((unsigned long long)(x) << 33)
#define REMOTE		(1ULL << 37)
#define SNOOPX(x)	((unsigned long long)(x) << 38)

static void test_pebs_legacy_levels(void)
{
	struct dprof_access a;

	/* load, L1 hit: mem_op LOAD(2), mem_lvl HIT(2)|L1(8) */
	dprof_mem_src_decode(OP(2) | LVL(0x2 | 0x8), &a);
	CHECK_EQ_U64(a.src, DPROF_SRC_L1);
	CHECK(a.load && !a.l1_miss);
	/* load, L3 hit with HITM snoop: a modified line elsewhere */
	dprof_mem_src_decode(OP(2) | LVL(0x2 | 0x40) | SNOOP(0x10), &a);
	CHECK_EQ_U64(a.src, DPROF_SRC_PEER_CACHE);
	CHECK(a.l1_miss);
	/* load from local DRAM: mem_lvl LOC_RAM(0x80)|HIT */
	dprof_mem_src_decode(OP(2) | LVL(0x2 | 0x80), &a);
	CHECK_EQ_U64(a.src, DPROF_SRC_DRAM);
	/* store that missed L1: mem_lvl L1|MISS(4) */
	dprof_mem_src_decode(OP(4) | LVL(0x4 | 0x8), &a);
	CHECK_EQ_U64(a.src, DPROF_SRC_MISS);
	CHECK(a.store && a.l1_miss);
	/* remote cache: REM_CCE1 (0x400) */
	dprof_mem_src_decode(OP(2) | LVL(0x2 | 0x400), &a);
	CHECK_EQ_U64(a.src, DPROF_SRC_REMOTE);
}

static void test_pebs_level_numbers(void)
{
	struct dprof_access a;

	/* mem_lvl_num wins over mem_lvl: L2 */
	dprof_mem_src_decode(OP(2) | LVL(0x2 | 0x40) | LVLNUM(0x2), &a);
	CHECK_EQ_U64(a.src, DPROF_SRC_L2);
	/* ANY_CACHE in another core (snoopx PEER) */
	dprof_mem_src_decode(OP(2) | LVLNUM(0xb) | SNOOPX(0x2), &a);
	CHECK_EQ_U64(a.src, DPROF_SRC_PEER_CACHE);
	/* RAM on another node */
	dprof_mem_src_decode(OP(2) | LVLNUM(0xd) | REMOTE, &a);
	CHECK_EQ_U64(a.src, DPROF_SRC_REMOTE);
	/* line fill buffer */
	dprof_mem_src_decode(OP(2) | LVLNUM(0xc), &a);
	CHECK_EQ_U64(a.src, DPROF_SRC_LFB);
	CHECK(a.l1_miss);
	/* mem_lvl_num NA (0xf) falls back to mem_lvl */
	dprof_mem_src_decode(OP(2) | LVL(0x2 | 0x8) | LVLNUM(0xf), &a);
	CHECK_EQ_U64(a.src, DPROF_SRC_L1);
	/* all zero: nothing known */
	dprof_mem_src_decode(0, &a);
	CHECK_EQ_U64(a.src, DPROF_SRC_UNKNOWN);
	CHECK(!a.load && !a.store && !a.l1_miss);
}

static int parse_samples(const struct dprof_sample_agg *e, size_t n,
			 struct rec_error *err)
{
	struct fixture f;
	struct recording r;
	int ret;

	fixture_begin(&f, 1);
	fixture_end_with(&f, DPROF_SEC_SAMPLES, e, n * sizeof(*e));
	ret = recording_parse(&r, f.buf, f.len, err);
	if (!ret) {
		CHECK_EQ_U64(r.nr_samples, n);
		recording_free(&r);
	}
	fixture_free(&f);
	return ret;
}

static void test_sample_entries_validated(void)
{
	struct dprof_sample_agg e = {
		.ip = 0xffffffff81000100ull, .count = 10, .misses = 2,
		.loads = 10, .offset = 8, .target = 0, .src = DPROF_SRC_L2,
	};
	struct rec_error err;

	CHECK(parse_samples(&e, 1, &err) == 0);
	e.offset = 200;			/* cache0's object is 200 bytes */
	CHECK(parse_samples(&e, 1, &err) != 0);
	CHECK_STR_CONTAINS(err.msg, "beyond");
	e.offset = 8;
	e.target = 3;
	CHECK(parse_samples(&e, 1, &err) != 0);
	CHECK_STR_CONTAINS(err.msg, "target");
	e.target = 0;
	e.src = DPROF_NR_SRC;
	CHECK(parse_samples(&e, 1, &err) != 0);
	e.src = DPROF_SRC_L1;
	e.misses = 11;
	CHECK(parse_samples(&e, 1, &err) != 0);
	CHECK_STR_CONTAINS(err.msg, "misses");
}

const struct unit_test decode_tests[] = {
	{ "sample_entries_validated", test_sample_entries_validated },
	{ "ibs_l1_hit_load", test_ibs_l1_hit_load },
	{ "ibs_dram_miss_with_latency", test_ibs_dram_miss_with_latency },
	{ "ibs_sources", test_ibs_sources },
	{ "ibs_not_a_memory_op", test_ibs_not_a_memory_op },
	{ "pebs_legacy_levels", test_pebs_legacy_levels },
	{ "pebs_level_numbers", test_pebs_level_numbers },
	{ NULL, NULL },
};

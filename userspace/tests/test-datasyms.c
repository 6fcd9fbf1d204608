// SPDX-License-Identifier: GPL-2.0
/*
 * Samples in no slab object, named by symbol: the kallsyms below copies
 * the shape of the 6.1 guest's (per-CPU symbols as 'A' offsets from 0, a
 * module's per-CPU variable as 'a' at __per_cpu_end, jiffies and
 * jiffies_64 at one address, a module's bss with its name in brackets),
 * with per-CPU offsets of its 5-level direct map.
 */
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "fixture.h"
#include "datasyms.h"
#include "profile.h"

static const char kallsyms[] =
	"0000000000000000 A fixed_percpu_data\n"
	"0000000000000000 A __per_cpu_start\n"
	"0000000000031400 A irq_stat\n"
	"0000000000031c40 A runqueues\n"
	"0000000000035000 A __per_cpu_end\n"
	"0000000000035000 a dprof_sharing_pcpu\t[dprof_sharing]\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 T some_function\n"
	"ffffffffb6e00000 D _sdata\n"
	"ffffffffb6e079c0 D jiffies_64\n"
	"ffffffffb6e079c0 D jiffies\n"
	"ffffffffb6e079c8 d next_variable\n"
	"ffffffffb7048980 D _edata\n"
	"ffffffffc0456440 b dprof_sharing_global\t[dprof_sharing]\n"
	"ffffffffc04564c0 b bad_handoffs\t[dprof_sharing]\n";

static const uint64_t cpu_offsets[] = {
	0xff4a2985fe400000ull, 0xff4a2985fe500000ull, 0, /* CPU 2 impossible */
};

static struct dprof_data_agg at(uint64_t addr, uint8_t flags)
{
	struct dprof_data_agg e = { .addr = addr, .flags = flags, .count = 1 };

	return e;
}

static void test_data_places(void)
{
	struct data_syms d;
	struct data_place pl;
	struct dprof_data_agg e;

	data_syms_load(&d, kallsyms, cpu_offsets, 3);
	/* An alias pair: one name, the same on every run. */
	e = at(0xffffffffb6e079c4ull, 0);
	data_syms_place(&d, &e, &pl);
	CHECK_EQ_U64(pl.region, DATA_IMAGE);
	CHECK(pl.sym && !strcmp(pl.sym->name, "jiffies"));
	CHECK_EQ_U64(pl.offset, 4);
	/* A module's variable, 64 bytes in; its size runs to the next. */
	e = at(0xffffffffc0456480ull, 0);
	data_syms_place(&d, &e, &pl);
	CHECK_EQ_U64(pl.region, DATA_MODULE);
	CHECK(pl.sym && !strcmp(pl.sym->name, "dprof_sharing_global"));
	CHECK(pl.sym && pl.sym->module && !strcmp(pl.sym->module, "dprof_sharing"));
	CHECK_EQ_U64(pl.offset, 64);
	CHECK(pl.sym && pl.sym->size == 0x80);
	/* CPU 1's copy of runqueues, at its offset plus the symbol. */
	e = at(0xff4a2985fe500000ull + 0x31c40 + 4, 0);
	data_syms_place(&d, &e, &pl);
	CHECK_EQ_U64(pl.region, DATA_PERCPU);
	CHECK(pl.sym && !strcmp(pl.sym->name, "runqueues"));
	CHECK_EQ_U64(pl.cpu, 1);
	CHECK_EQ_U64(pl.offset, 4);
	/* runqueues is bounded by __per_cpu_end. */
	e = at(0xff4a2985fe400000ull + 0x34fff, 0);
	data_syms_place(&d, &e, &pl);
	CHECK_EQ_U64(pl.region, DATA_PERCPU);
	CHECK_EQ_U64(pl.cpu, 0);
	CHECK_EQ_U64(pl.offset, 0x34fff - 0x31c40);
	/* A module's per-CPU variable follows the static area. */
	e = at(0xff4a2985fe400000ull + 0x35000 + 64, 0);
	data_syms_place(&d, &e, &pl);
	CHECK_EQ_U64(pl.region, DATA_PERCPU);
	CHECK(pl.sym && !strcmp(pl.sym->name, "dprof_sharing_pcpu"));
	CHECK(pl.sym && pl.sym->module && !strcmp(pl.sym->module, "dprof_sharing"));
	CHECK_EQ_U64(pl.offset, 64);
	e = at(0xff4a2985fe400000ull + 0x35000 + 4096, 0);
	data_syms_place(&d, &e, &pl);
	CHECK_EQ_U64(pl.region, DATA_UNNAMED);
	/* A section marker names nothing; text is not data. */
	e = at(0xffffffffb6e00010ull, 0);
	data_syms_place(&d, &e, &pl);
	CHECK_EQ_U64(pl.region, DATA_UNNAMED);
	e = at(0xffffffff81001010ull, 0);
	data_syms_place(&d, &e, &pl);
	CHECK_EQ_U64(pl.region, DATA_UNNAMED);
	e = at(0, DPROF_DATA_STACK);
	data_syms_place(&d, &e, &pl);
	CHECK_EQ_U64(pl.region, DATA_STACK);
	e = at(0, DPROF_DATA_USER);
	data_syms_place(&d, &e, &pl);
	CHECK_EQ_U64(pl.region, DATA_USER);
	data_syms_free(&d);
}

/* kptr_restrict zeroes every address: nothing may be named from it. */
static void test_data_zeroed_kallsyms(void)
{
	static const char zeroed[] =
		"0000000000000000 A runqueues\n"
		"0000000000000000 D jiffies\n";
	struct data_syms d;
	struct data_place pl;
	struct dprof_data_agg e = at(0xff4a2985fe400000ull + 8, 0);

	data_syms_load(&d, zeroed, cpu_offsets, 3);
	data_syms_place(&d, &e, &pl);
	CHECK_EQ_U64(pl.region, DATA_UNNAMED);
	data_syms_free(&d);
}

static struct dprof_data_agg sampled(uint64_t addr, uint8_t flags,
				     uint32_t count, uint32_t misses,
				     uint64_t ip)
{
	struct dprof_data_agg e = {
		.addr = addr, .ip = ip, .count = count, .misses = misses,
		.loads = count, .flags = flags,
	};

	return e;
}

/* The profile ranks variables and buckets beside the slab types. */
static void test_data_profile(void)
{
	static const char profile_text[] =
		"# dprof data profile\nsampler: inject: a test\n";
	struct dprof_data_agg e[] = {
		sampled(0xffffffffc0456440ull, 0, 300, 300, 0xffffffff81001010ull),
		sampled(0xffffffffc0456480ull, 0, 100, 100, 0xffffffff81001020ull),
		sampled(0xff4a2985fe500000ull + 0x31c44, 0, 150, 150,
			0xffffffff81001030ull),
		sampled(0xff4a2985fe400000ull + 0x31c44, 0, 50, 50,
			0xffffffff81001030ull),
		sampled(0xffffffffb6e079c0ull, 0, 100, 50, 0xffffffff81001040ull),
		sampled(0, DPROF_DATA_STACK, 20, 20, 0xffffffff81001050ull),
	};
	struct fixture_section secs[] = {
		{ DPROF_SEC_KALLSYMS, kallsyms, sizeof(kallsyms) - 1 },
		{ DPROF_SEC_DATA_SAMPLES, e, sizeof(e) },
		{ DPROF_SEC_PERCPU, cpu_offsets, sizeof(cpu_offsets) },
		{ DPROF_SEC_PROFILE, profile_text, sizeof(profile_text) - 1 },
	};
	static const struct { const char *name; uint64_t misses; } want[] = {
		{ "dprof_sharing_global[dprof_sharing]", 400 },
		{ "runqueues(percpu)", 200 },
		{ "jiffies", 50 },
		{ "[stack]", 20 },
	};
	struct recording r;
	struct rec_error err;
	struct profile p;
	struct fixture f;
	size_t k = 0;

	fixture_begin(&f, 1);
	fixture_end_sections(&f, secs, sizeof(secs) / sizeof(secs[0]));
	CHECK(recording_parse(&r, f.buf, f.len, &err) == 0);
	profile_build(&r, NULL, &p);
	CHECK(p.misses_measured);
	CHECK_EQ_U64(p.misses, 670);
	for (size_t i = 0; i < p.nr_types; i++) {
		const struct profile_type *t = &p.types[i];

		if (!t->data)
			continue;
		CHECK(k < 4 && !strcmp(t->cache, want[k].name));
		CHECK_EQ_U64(t->misses, k < 4 ? want[k].misses : 0);
		if (k == 0) {	/* two rows: +0 and +64 (no BTF here) */
			CHECK_EQ_U64(t->nr_fields, 2);
			CHECK_EQ_U64(t->fields[1].offset, 64);
			CHECK_EQ_U64(t->region, DATA_MODULE);
		}
		if (k == 1) {	/* both CPUs' copies, one row */
			CHECK_EQ_U64(t->nr_fields, 1);
			CHECK_EQ_U64(t->fields[0].offset, 4);
		}
		k++;
	}
	CHECK_EQ_U64(k, 4);
	profile_free(&p);
	recording_free(&r);
	fixture_free(&f);
}

/* A bucket with an address is a malformed file, refused. */
static void test_data_bad_bucket(void)
{
	struct dprof_data_agg e = sampled(0x1000, DPROF_DATA_USER, 1, 0, 0);
	struct recording r;
	struct rec_error err;
	struct fixture f;

	fixture_begin(&f, 1);
	fixture_end_with(&f, DPROF_SEC_DATA_SAMPLES, &e, sizeof(e));
	CHECK(recording_parse(&r, f.buf, f.len, &err) != 0);
	CHECK_STR_CONTAINS(err.msg, "bucket");
	fixture_free(&f);
}

const struct unit_test datasyms_tests[] = {
	{ "data_places", test_data_places },
	{ "data_zeroed_kallsyms", test_data_zeroed_kallsyms },
	{ "data_profile", test_data_profile },
	{ "data_bad_bucket", test_data_bad_bucket },
	{ NULL, NULL },
};

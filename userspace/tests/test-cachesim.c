// SPDX-License-Identifier: GPL-2.0
/*
 * The cache simulation on streams whose outcome follows from the
 * geometry alone: page-aligned objects crowding a few sets (conflict),
 * more lines than the cache in round robin (capacity), a set that fits
 * (cold misses only), misaligned objects, and a one-set cache, where the
 * set-associative and the fully associative LRU must agree on every
 * access of a random stream.
 */
#include <math.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>
#include "harness.h"
#include "fixture.h"
#include "cachesim.h"
#include "util.h"

#define BASE 0xffff888100000000ull	/* 1 MiB aligned: set 0 */

static const struct ws_geometry geo_64k = {
	.level = 1, .size = 64 << 10, .ways = 2, .line = 64, .sets = 512,
};

/* One variant: @rounds passes over @nr offsets, spread over the life. */
static void template_rounds(struct sim_template *t, const uint32_t *off,
			    size_t nr, size_t rounds)
{
	struct sim_variant *v;

	memset(t, 0, sizeof(*t));
	t->source = SIM_SOURCE_HISTORIES;
	t->nv = 1;
	t->v = v = xcalloc(1, sizeof(*t->v));
	v->n = nr * rounds;
	v->a = xcalloc(v->n, sizeof(*v->a));
	for (size_t k = 0; k < v->n; k++) {
		v->a[k].offset = off[k % nr];
		v->a[k].frac = (double)(k + 1) / (double)v->n;
	}
}

static void lives_at(struct obj_summary *o, size_t n, uint64_t stride,
		     uint64_t end)
{
	memset(o, 0, sizeof(*o));
	o->lives = xcalloc(n, sizeof(*o->lives));
	o->nr_lives = n;
	for (size_t i = 0; i < n; i++) {
		o->lives[i].addr = BASE + i * stride;
		o->lives[i].alloc_ns = i;
		o->lives[i].end_ns = end;
		o->lives[i].freed = true;
	}
}

/* 64 pages' first lines in 8 sets of 2 ways, in round robin: all miss. */
static void test_cachesim_conflict(void)
{
	static const uint32_t off[] = { 0 };
	struct sim_template t;
	struct obj_summary o;
	struct cachesim sim;

	template_rounds(&t, off, 1, 10);
	lives_at(&o, 64, 4096, 1000000);
	cachesim_run(&sim, &t, 1, &o, &geo_64k, 0);
	CHECK_EQ_U64(sim.accesses, 640);
	CHECK_EQ_U64(sim.misses, 640);
	CHECK_EQ_U64(sim.cold, 64);
	CHECK_EQ_U64(sim.conflict, 576);
	CHECK_EQ_U64(sim.capacity, 0);
	CHECK_EQ_U64(sim.fa_misses, 64);
	for (unsigned int s = 0; s < geo_64k.sets; s++)
		CHECK_EQ_U64(sim.set_conflict[s], s % 64 ? 0 : 72);
	cachesim_free(&sim);
	free(o.lives);
	sim_templates_free(&t, 1);
}

/* 8,192 lines over 1,024, each reused after all others: capacity. */
static void test_cachesim_capacity(void)
{
	static const uint32_t off[] = { 0, 64, 128, 192 };
	struct sim_template t;
	struct obj_summary o;
	struct cachesim sim;

	template_rounds(&t, off, 4, 4);
	lives_at(&o, 2048, 256, 10000000);
	cachesim_run(&sim, &t, 1, &o, &geo_64k, 0);
	CHECK_EQ_U64(sim.accesses, 2048 * 16);
	CHECK_EQ_U64(sim.misses, 2048 * 16);
	CHECK_EQ_U64(sim.cold, 8192);
	CHECK_EQ_U64(sim.capacity, 2048 * 16 - 8192);
	CHECK_EQ_U64(sim.conflict, 0);
	CHECK_EQ_U64(sim.types[0].lives, 2048);
	cachesim_free(&sim);
	free(o.lives);
	sim_templates_free(&t, 1);
}

/* 16 lines in 16 sets: cold misses, then hits; they stay cached. */
static void test_cachesim_fits(void)
{
	static const uint32_t off[] = { 0, 64 };
	struct sim_template t;
	struct obj_summary o;
	struct cachesim sim;

	template_rounds(&t, off, 2, 5);
	lives_at(&o, 8, 128, 100000);
	cachesim_run(&sim, &t, 1, &o, &geo_64k, 0);
	CHECK_EQ_U64(sim.accesses, 80);
	CHECK_EQ_U64(sim.misses, 16);
	CHECK_EQ_U64(sim.cold, 16);
	CHECK_EQ_U64(sim.capacity + sim.conflict, 0);
	CHECK_EQ_U64((uint64_t)sim.types[0].lines_in_cache, 16);
	cachesim_free(&sim);
	free(o.lives);
	sim_templates_free(&t, 1);
}

/* Offsets 0 and 40 share a line only if the object starts a line. */
static void test_cachesim_misaligned(void)
{
	static const uint32_t off[] = { 0, 40 };
	struct sim_template t;
	struct obj_summary o;
	struct cachesim sim;

	template_rounds(&t, off, 2, 1);
	lives_at(&o, 1, 0, 1000);
	cachesim_run(&sim, &t, 1, &o, &geo_64k, 0);
	CHECK_EQ_U64(sim.misses, 1);
	cachesim_free(&sim);
	o.lives[0].addr = BASE + 32;
	cachesim_run(&sim, &t, 1, &o, &geo_64k, 0);
	CHECK_EQ_U64(sim.misses, 2);
	CHECK_EQ_U64(sim.cold, 2);
	cachesim_free(&sim);
	free(o.lives);
	sim_templates_free(&t, 1);
}

/*
 * One set of 64 ways is a fully associative LRU cache: the two caches
 * must agree on every access (no conflict miss, as many misses), over a
 * random stream that evicts often (the hash table's deletions).
 */
static void test_cachesim_one_set_agrees(void)
{
	static const struct ws_geometry one = {
		.level = 1, .size = 4096, .ways = 64, .line = 64, .sets = 1,
	};
	struct sim_template t[2];
	struct obj_summary o;
	struct cachesim sim;
	uint64_t x = 12345;

	for (int k = 0; k < 2; k++) {
		struct sim_variant *v;

		memset(&t[k], 0, sizeof(t[k]));
		t[k].source = SIM_SOURCE_HISTORIES;
		t[k].nv = 1;
		t[k].v = v = xcalloc(1, sizeof(*t[k].v));
		v->n = 300;
		v->a = xcalloc(v->n, sizeof(*v->a));
		for (size_t i = 0; i < v->n; i++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			v->a[i].offset = (uint32_t)((x >> 33) % 64) * 64;
			v->a[i].frac = (double)i / (double)v->n;
		}
	}
	lives_at(&o, 40, 8192, 5000000);
	for (size_t i = 0; i < o.nr_lives; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		o.lives[i].target = (uint8_t)(i & 1);
		o.lives[i].alloc_ns = (x >> 40) % 1000000;
	}
	cachesim_run(&sim, t, 2, &o, &one, 0);
	CHECK_EQ_U64(sim.accesses, 40 * 300);
	CHECK_EQ_U64(sim.conflict, 0);
	CHECK_EQ_U64(sim.fa_misses, sim.misses);
	CHECK(sim.capacity > 1000);	/* 2,560 lines through 64 ways */
	CHECK_EQ_U64(sim.types[0].accesses + sim.types[1].accesses,
		     sim.accesses);
	cachesim_free(&sim);
	/* A cap stops starting lives and says how many were left. */
	cachesim_run(&sim, t, 2, &o, &one, 1000);
	CHECK(sim.lives < 40 && sim.lives + sim.lives_skipped == 40);
	CHECK(sim.accesses >= 1000);
	cachesim_free(&sim);
	free(o.lives);
	sim_templates_free(t, 2);
}

/* A freed life watching @a,@b: accesses at @times (ns since alloc). */
static void history(struct fixture *f, uint32_t id, uint16_t a, uint16_t b,
		    const uint32_t *times, const bool *on_b, size_t n)
{
	struct dprof_hist_begin bg = {
		.hdr = { .kind = DPROF_REC_HIST_BEGIN, .size = sizeof(bg) },
		.time_ns = 1000000 * id, .addr = 0xffff888000001000ull,
		.call_site = 0xffffffff81000010ull, .id = id,
		.offset = { a, b }, .len = 8, .nr_offsets = 2,
	};
	struct dprof_hist_end end = {
		.hdr = { .kind = DPROF_REC_HIST_END, .size = sizeof(end) },
		.time_ns = 1000000 * id + 1000, .id = id,
		.reason = DPROF_HIST_FREED, .elements = (uint32_t)n,
		.call_site = 0xffffffff81000020ull,
	};

	fixture_raw(f, &bg, sizeof(bg));
	for (size_t i = 0; i < n; i++) {
		struct dprof_hist_elem e = {
			.kind = DPROF_REC_HIST_ELEM, .size = sizeof(e),
			.tag = (id & DPROF_ELEM_ID_MASK) |
			       (on_b[i] ? DPROF_ELEM_WATCH(1) : 0),
			.ip_lo = 0x81000100, .time_ns = times[i],
		};

		fixture_raw(f, &e, sizeof(e));
	}
	fixture_raw(f, &end, sizeof(end));
}

/*
 * Two histories watched offsets 0/8, one watched 64/72 (lives of
 * 1000 ns): two variants, each one 0/8 history merged by time with the
 * 64/72 one, so successive lives take both 0/8 paths.
 */
static void test_cachesim_templates_from_histories(void)
{
	static const uint32_t t1[] = { 100, 900 }, t2[] = { 500 },
			      t3[] = { 300, 700 };
	static const bool b1[] = { false, true }, b2[] = { true },
			  b3[] = { false, false };
	struct history_set hs;
	struct sim_template t;
	struct recording r;
	struct rec_error err;
	struct fixture f;

	fixture_begin(&f, 1);
	history(&f, 1, 0, 8, t1, b1, 2);
	history(&f, 2, 0, 8, t2, b2, 1);
	history(&f, 3, 64, 72, t3, b3, 2);
	fixture_end(&f);
	CHECK(recording_parse(&r, f.buf, f.len, &err) == 0);
	histories_build(&hs, &r);
	sim_templates_build(&t, &r, &hs);
	CHECK_EQ_U64(t.source, SIM_SOURCE_HISTORIES);
	CHECK_EQ_U64(t.histories, 3);
	CHECK_EQ_U64(t.offset_sets, 2);
	CHECK_EQ_U64(t.nv, 2);
	if (t.nv == 2) {
		/* 0 @0.1, 64 @0.3, 64 @0.7, 8 @0.9 */
		static const uint32_t want0[] = { 0, 64, 64, 8 };
		/* 64 @0.3, 8 @0.5, 64 @0.7 */
		static const uint32_t want1[] = { 64, 8, 64 };

		CHECK_EQ_U64(t.v[0].n, 4);
		CHECK_EQ_U64(t.v[1].n, 3);
		for (size_t k = 0; k < 4 && k < t.v[0].n; k++)
			CHECK_EQ_U64(t.v[0].a[k].offset, want0[k]);
		for (size_t k = 0; k < 3 && k < t.v[1].n; k++)
			CHECK_EQ_U64(t.v[1].a[k].offset, want1[k]);
		CHECK(fabs(t.v[0].a[0].frac - 0.1) < 1e-9);
		CHECK(fabs(t.v[1].a[1].frac - 0.5) < 1e-9);
		CHECK(fabs(sim_template_accesses(&t) - 3.5) < 1e-9);
	}
	sim_templates_free(&t, 1);
	histories_free(&hs);
	recording_free(&r);
	fixture_free(&f);
}

/*
 * Lives that wait hours between accesses, and lives that end at the last
 * nanosecond a u64 holds: the stream skips the idle time instead of
 * stepping through it one window at a time, and ends.  alarm() turns a
 * hang into a failure (SIGALRM ends the test binary).
 */
static void test_cachesim_long_waits_end(void)
{
	static const uint32_t off[] = { 0, 64 };
	struct sim_template t;
	struct obj_summary o;
	struct cachesim sim;

	template_rounds(&t, off, 2, 2);
	lives_at(&o, 5, 128, 1ull << 62);	/* accesses 2^60 ns apart */
	o.lives[3].alloc_ns = UINT64_MAX - 1000;
	o.lives[3].end_ns = UINT64_MAX;
	/* Its first access waits from an earlier window to the last one. */
	o.lives[4].alloc_ns = 7;	/* a life of 2^64 - 8 ns: rounds to 2^64 */
	o.lives[4].end_ns = UINT64_MAX;
	alarm(20);
	cachesim_run(&sim, &t, 1, &o, &geo_64k, 0);
	alarm(0);
	CHECK_EQ_U64(sim.lives, 5);
	CHECK_EQ_U64(sim.accesses, 5 * 4);
	CHECK_EQ_U64(sim.misses, 5 * 2);	/* each line once, cold */
	CHECK_EQ_U64(sim.cold, 5 * 2);
	cachesim_free(&sim);
	free(o.lives);
	sim_templates_free(&t, 1);
}

/*
 * The largest geometry the reader accepts (WS_MAX_LINES lines, a 1 GiB
 * cache): the two caches' arrays are some 700 MB if touched, but only
 * the sets and hash slots used are; a few lives must cost a few MB.
 */
static void test_cachesim_largest_geometry_is_lazy(void)
{
	static const uint32_t off[] = { 0, 64 };
	static const struct ws_geometry big = {
		.level = 3, .size = 1ull << 30, .ways = 1024, .line = 64,
		.sets = 16384,
	};
	struct sim_template t;
	struct obj_summary o;
	struct cachesim sim;
	struct rusage before, after;

	template_rounds(&t, off, 2, 2);
	lives_at(&o, 5, 128, 1000);
	getrusage(RUSAGE_SELF, &before);
	cachesim_run(&sim, &t, 1, &o, &big, 0);
	getrusage(RUSAGE_SELF, &after);
	CHECK_EQ_U64(sim.accesses, 5 * 4);
	CHECK_EQ_U64(sim.misses, 5 * 2);
	/* ru_maxrss in KiB: the peak may not grow by 64 MiB. */
	CHECK(after.ru_maxrss - before.ru_maxrss < 64 * 1024);
	cachesim_free(&sim);
	free(o.lives);
	sim_templates_free(&t, 1);
}

const struct unit_test cachesim_tests[] = {
	{ "cachesim: templates from histories, one variant per path",
	  test_cachesim_templates_from_histories },
	{ "cachesim: page-aligned lines crowd 8 sets: conflict",
	  test_cachesim_conflict },
	{ "cachesim: 8x the cache in round robin: capacity",
	  test_cachesim_capacity },
	{ "cachesim: a working set that fits misses only cold",
	  test_cachesim_fits },
	{ "cachesim: first touches follow the object's alignment",
	  test_cachesim_misaligned },
	{ "cachesim: one set is fully associative: both caches agree",
	  test_cachesim_one_set_agrees },
	{ "cachesim: lives that wait hours between accesses end quickly",
	  test_cachesim_long_waits_end },
	{ "cachesim: the largest geometry costs the sets used, not the cache",
	  test_cachesim_largest_geometry_is_lazy },
	{ NULL, NULL },
};

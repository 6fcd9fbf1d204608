// SPDX-License-Identifier: GPL-2.0
/*
 * The cache simulation on streams whose outcome follows from the
 * geometry alone: page-aligned objects crowding a few sets (conflict),
 * more lines than the cache in round robin (capacity), a set that fits
 * (cold misses only), misaligned objects, and a one-set cache, where the
 * set-associative and the fully associative LRU must agree on every
 * access of a random stream.
 */
#include <stdlib.h>
#include "harness.h"
#include "../cachesim.h"
#include "../util.h"

#define BASE 0xffff888100000000ull	/* 1 MiB aligned: set 0 */

static const struct ws_geometry geo_64k = {
	.level = 1, .size = 64 << 10, .ways = 2, .line = 64, .sets = 512,
};

/* @rounds passes over @nr offsets, evenly spread over the life. */
static void template_rounds(struct sim_template *t, const uint32_t *off,
			    size_t nr, size_t rounds)
{
	t->source = SIM_SOURCE_COMBINED;
	t->n = nr * rounds;
	t->a = xcalloc(t->n, sizeof(*t->a));
	for (size_t k = 0; k < t->n; k++) {
		t->a[k].offset = off[k % nr];
		t->a[k].frac = (double)(k + 1) / (double)t->n;
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
		t[k].source = SIM_SOURCE_PATH;
		t[k].n = 300;
		t[k].a = xcalloc(t[k].n, sizeof(*t[k].a));
		for (size_t i = 0; i < t[k].n; i++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			t[k].a[i].offset = (uint32_t)((x >> 33) % 64) * 64;
			t[k].a[i].frac = (double)i / (double)t[k].n;
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

const struct unit_test cachesim_tests[] = {
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
	{ NULL, NULL },
};

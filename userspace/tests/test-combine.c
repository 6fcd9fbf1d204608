// SPDX-License-Identifier: GPL-2.0
/*
 * Combined traces against a known whole-object trace: the test writes the
 * true order of accesses to four offsets, with the CPU of each, projects
 * it onto every pair of offsets the way pairwise histories would see it
 * (each path knows only its two offsets and its own CPU changes), and
 * checks that combining the pairs gives back the true order and CPU
 * changes; then what a missing pair, a path that went another way and a
 * path that disagrees on the order do to the result.
 */
#include <stdlib.h>
#include "harness.h"
#include "combine.h"
#include "util.h"

struct access {
	uint16_t offset;
	bool write;
	uint64_t ip;
	int cpu;
};

/* Allocated on CPU 0, freed on CPU 1; the truth every test starts from. */
static const struct access truth[] = {
	{ 0, true, 0x10, 0 },  { 8, true, 0x11, 0 },  { 16, true, 0x12, 0 },
	{ 0, false, 0x20, 0 }, { 24, false, 0x21, 0 }, { 0, true, 0x22, 0 },
	{ 8, false, 0x30, 1 }, { 16, false, 0x31, 1 }, { 24, true, 0x32, 1 },
	{ 0, false, 0x33, 1 }, { 8, true, 0x34, 1 },   { 16, true, 0x35, 0 },
	{ 24, false, 0x36, 0 }, { 0, true, 0x37, 1 },
};

#define NR_TRUTH (sizeof(truth) / sizeof(truth[0]))
#define FREE_CPU 1
#define SITE_ALLOC 0xa110c
#define SITE_FREE 0xf4ee

/* The path a history watching @a and @b would take through @t. */
static void project(struct path *p, const struct access *t, size_t n,
		    uint16_t a, uint16_t b, uint64_t count)
{
	int cpu = 0;

	memset(p, 0, sizeof(*p));
	p->offset[0] = a;
	p->offset[1] = b;
	p->nr_offsets = 2;
	p->alloc_site = SITE_ALLOC;
	p->free_site = SITE_FREE;
	p->count = count;
	p->steps = xcalloc(n, sizeof(*p->steps));
	for (size_t i = 0; i < n; i++) {
		struct path_step *s;

		if (t[i].offset != a && t[i].offset != b)
			continue;
		s = &p->steps[p->nr_steps++];
		s->ip = t[i].ip;
		s->offset = t[i].offset;
		s->write = t[i].write;
		s->cpu_change = t[i].cpu != cpu;
		/* 100 ns per access of the whole trace, per history */
		s->time_sum_ns = (double)(100 * (i + 1) * count);
		cpu = t[i].cpu;
	}
	p->free_cpu_change = cpu != FREE_CPU;
}

/* Every pair of the four offsets except @skip_a/@skip_b (when given). */
static void all_pairs(struct path_set *ps, const struct access *t, size_t n,
		      int skip_a, int skip_b)
{
	static const uint16_t off[] = { 0, 8, 16, 24 };

	memset(ps, 0, sizeof(*ps));
	ps->p = xcalloc(16, sizeof(*ps->p));
	for (int a = 0; a < 4; a++)
		for (int b = a + 1; b < 4; b++)
			if (off[a] != skip_a || off[b] != skip_b)
				project(&ps->p[ps->n++], t, n, off[a], off[b],
					10);
}

static void free_paths(struct path_set *ps)
{
	for (size_t i = 0; i < ps->n; i++)
		free(ps->p[i].steps);
	free(ps->p);
}

/* The combined trace must be @t exactly, with its CPU changes. */
static void check_trace(const struct combined_trace *c,
			const struct access *t, size_t n)
{
	int cpu = 0;

	CHECK_EQ_U64(c->nr_steps, n);
	for (size_t i = 0; i < n && i < c->nr_steps; i++) {
		const struct combined_step *s = &c->steps[i];

		CHECK_EQ_U64(s->offset, t[i].offset);
		CHECK_EQ_U64(s->ip, t[i].ip);
		CHECK_EQ_U64(s->write, t[i].write);
		if (s->cpu != COMBINED_CPU_UNKNOWN)
			CHECK_EQ_U64(s->cpu == COMBINED_CPU_CHANGE,
				     t[i].cpu != cpu);
		cpu = t[i].cpu;
	}
	CHECK_EQ_U64(c->free_cpu == COMBINED_CPU_CHANGE, cpu != FREE_CPU);
}

static void test_combine_all_pairs_exact(void)
{
	struct path_set ps;
	struct combined_set cs;
	size_t changes = 0;
	int cpu = 0;

	for (size_t i = 0; i < NR_TRUTH; i++) {
		changes += truth[i].cpu != cpu;
		cpu = truth[i].cpu;
	}
	changes += cpu != FREE_CPU;
	all_pairs(&ps, truth, NR_TRUTH, -1, -1);
	combine_build(&cs, &ps);
	CHECK_EQ_U64(cs.n, 1);
	if (cs.n == 1) {
		const struct combined_trace *c = &cs.c[0];

		check_trace(c, truth, NR_TRUTH);
		CHECK_EQ_U64(c->nr_offsets, 4);
		CHECK_EQ_U64(c->pairs, 6);
		CHECK_EQ_U64(c->pairs_watched, 6);
		CHECK_EQ_U64(c->by_time, 0);
		CHECK_EQ_U64(c->order_broken, 0);
		CHECK_EQ_U64(c->paths_used, 6);
		CHECK_EQ_U64(c->histories_used, 60);
		CHECK_EQ_U64(c->paths_other, 0);
		/* every adjacent pair was watched together: no unknown CPU */
		for (size_t i = 0; i < c->nr_steps; i++)
			CHECK(c->steps[i].cpu != COMBINED_CPU_UNKNOWN);
		CHECK_EQ_U64(c->cpu_changes, changes);
		/* each access was seen by the 3 pairs holding its offset */
		CHECK_EQ_U64(c->steps[0].histories, 30);
		CHECK_EQ_U64((uint64_t)c->steps[4].time_mean_ns, 500);
	}
	combine_free(&cs);
	free_paths(&ps);
}

/* Whatever order the paths come in (they are sorted by count). */
static void test_combine_any_path_order(void)
{
	struct path_set ps;
	struct combined_set cs;

	all_pairs(&ps, truth, NR_TRUTH, -1, -1);
	for (size_t i = 0; i < ps.n / 2; i++) {
		struct path tmp = ps.p[i];

		ps.p[i] = ps.p[ps.n - 1 - i];
		ps.p[ps.n - 1 - i] = tmp;
	}
	combine_build(&cs, &ps);
	CHECK_EQ_U64(cs.n, 1);
	if (cs.n == 1)
		check_trace(&cs.c[0], truth, NR_TRUTH);
	combine_free(&cs);
	free_paths(&ps);
}

/*
 * Without the pair (8, 16), the accesses adjacent in the truth at index
 * 1-2, 6-7 and 10-11 (8 then 16, nothing between) are ordered by no path:
 * time places them, they are marked, and the CPU between them is unknown.
 */
static void test_combine_missing_pair_by_time(void)
{
	struct path_set ps;
	struct combined_set cs;

	all_pairs(&ps, truth, NR_TRUTH, 8, 16);
	combine_build(&cs, &ps);
	CHECK_EQ_U64(cs.n, 1);
	if (cs.n == 1) {
		const struct combined_trace *c = &cs.c[0];

		check_trace(c, truth, NR_TRUTH);
		CHECK_EQ_U64(c->pairs_watched, 5);
		CHECK_EQ_U64(c->by_time, 6);
		for (size_t i = 0; i < c->nr_steps; i++) {
			bool guess = i == 1 || i == 2 || i == 6 || i == 7 ||
				     i == 10 || i == 11;

			CHECK_EQ_U64(c->steps[i].by_time, guess);
			CHECK_EQ_U64(c->steps[i].cpu == COMBINED_CPU_UNKNOWN,
				     i == 2 || i == 7 || i == 11);
		}
		CHECK_EQ_U64(c->order_broken, 0);
	}
	combine_free(&cs);
	free_paths(&ps);
}

/* A rarer path with other accesses to offset 0 is left out, counted. */
static void test_combine_other_way_left_out(void)
{
	struct access other[NR_TRUTH];
	struct path_set ps;
	struct combined_set cs;

	memcpy(other, truth, sizeof(other));
	other[3].ip = 0x99;	/* another instruction reads offset 0 */
	all_pairs(&ps, truth, NR_TRUTH, -1, -1);
	project(&ps.p[ps.n++], other, NR_TRUTH, 0, 8, 3);
	combine_build(&cs, &ps);
	CHECK_EQ_U64(cs.n, 1);
	if (cs.n == 1) {
		check_trace(&cs.c[0], truth, NR_TRUTH);
		CHECK_EQ_U64(cs.c[0].paths_other, 1);
		CHECK_EQ_U64(cs.c[0].histories_other, 3);
		CHECK_EQ_U64(cs.c[0].paths_used, 6);
	}
	combine_free(&cs);
	free_paths(&ps);
}

/*
 * A path (2 histories) that saw offset 24's read at index 4 before offset
 * 0's read at index 3: same accesses per offset, so it is used, but its
 * order loses to the 10 histories that saw the truth; the broken weight
 * is its 2 histories.
 */
static void test_combine_disagreeing_order(void)
{
	struct access swapped[NR_TRUTH];
	struct path_set ps;
	struct combined_set cs;

	memcpy(swapped, truth, sizeof(swapped));
	swapped[3] = truth[4];
	swapped[4] = truth[3];
	all_pairs(&ps, truth, NR_TRUTH, -1, -1);
	project(&ps.p[ps.n++], swapped, NR_TRUTH, 0, 24, 2);
	combine_build(&cs, &ps);
	CHECK_EQ_U64(cs.n, 1);
	if (cs.n == 1) {
		check_trace(&cs.c[0], truth, NR_TRUTH);
		CHECK_EQ_U64(cs.c[0].paths_used, 7);
		CHECK_EQ_U64(cs.c[0].order_broken, 2);
		CHECK_EQ_U64(cs.c[0].by_time, 0);
	}
	combine_free(&cs);
	free_paths(&ps);
}

/* Other allocation sites are other families: one trace each. */
static void test_combine_families_apart(void)
{
	struct path_set ps;
	struct combined_set cs;

	all_pairs(&ps, truth, NR_TRUTH, -1, -1);
	ps.p[0].alloc_site = 0xbeef;	/* the pair (0, 8) alone elsewhere */
	ps.p[0].count = 100;
	combine_build(&cs, &ps);
	CHECK_EQ_U64(cs.n, 2);
	if (cs.n == 2) {
		/* most histories first: the lone pair, 100 histories */
		CHECK_EQ_U64(cs.c[0].alloc_site, 0xbeef);
		CHECK_EQ_U64(cs.c[0].nr_offsets, 2);
		CHECK_EQ_U64(cs.c[1].nr_offsets, 4);
		CHECK_EQ_U64(cs.c[1].pairs_watched, 5);
	}
	combine_free(&cs);
	free_paths(&ps);
}

const struct unit_test combine_tests[] = {
	{ "combine: every pair gives the exact trace and CPU changes",
	  test_combine_all_pairs_exact },
	{ "combine: the result does not depend on the paths' order",
	  test_combine_any_path_order },
	{ "combine: a pair never watched is placed by time and marked",
	  test_combine_missing_pair_by_time },
	{ "combine: a path that went another way is left out",
	  test_combine_other_way_left_out },
	{ "combine: a disagreeing order loses and is counted",
	  test_combine_disagreeing_order },
	{ "combine: allocation sites make separate traces",
	  test_combine_families_apart },
	{ NULL, NULL },
};

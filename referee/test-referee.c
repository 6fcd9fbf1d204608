// SPDX-License-Identifier: GPL-2.0
/*
 * The referee's plain-C parts: the cache model against sequences whose
 * classes follow from the definitions (coherence.h), one per class and
 * the MESI transitions; the object map's inserts, finds, removals and
 * replacements (objmap.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include "coherence.h"
#include "insn.h"
#include "objmap.h"

static int failures;

static void expect(const char *what, enum coh_result got, enum coh_result want)
{
	if (got != want) {
		printf("not ok: %s: %s, expected %s\n", what,
		       coh_result_names[got], coh_result_names[want]);
		failures++;
	}
}

/* 2 cores, L1 1 KiB 2-way (8 sets), L2 2 KiB 2-way (16 sets), LLC 8 KiB. */
static struct coh_model *small(void)
{
	struct coh_geometry g = { 2, 1, 2, 2, 2, 8, 4 };
	char err[128];
	struct coh_model *m = coh_new(&g, err);

	if (!m) {
		printf("not ok: coh_new: %s\n", err);
		exit(1);
	}
	return m;
}

static void true_sharing(void)
{
	struct coh_model *m = small();
	struct coh_outcome o;
	int i;

	expect("first write, core 0", coh_access(m, 0, 0x1000, 8, COH_ATOMIC).result, COH_COMPULSORY);
	expect("first write, core 1", coh_access(m, 1, 0x1000, 8, COH_ATOMIC).result, COH_COMPULSORY);
	for (i = 0; i < 10; i++) {
		o = coh_access(m, i % 2, 0x1000, 8, COH_ATOMIC);
		expect("a counter bounced by two cores", o.result, COH_TRUE_SHARING);
		if (o.from_core != 1 - i % 2) {
			printf("not ok: the miss names core %d, not %d\n", o.from_core, 1 - i % 2);
			failures++;
		}
	}
	coh_free(m);
}

static void false_sharing(void)
{
	struct coh_model *m = small();
	int i;

	coh_access(m, 0, 0x2000, 8, COH_STORE);
	coh_access(m, 1, 0x2008, 8, COH_STORE);
	for (i = 0; i < 10; i++)
		expect("two cores' fields on one line",
		       coh_access(m, i % 2, 0x2000 + 8 * (i % 2), 8, COH_STORE).result,
		       COH_FALSE_SHARING);
	/* A load of the bytes the other wrote: true sharing. */
	expect("reading the other's field", coh_access(m, 0, 0x2008, 8, COH_LOAD).result,
	       COH_TRUE_SHARING);
	coh_free(m);
}

static void mesi(void)
{
	struct coh_model *m = small();

	expect("core 0 reads", coh_access(m, 0, 0x3000, 8, COH_LOAD).result, COH_COMPULSORY);
	expect("exclusive: its write needs no one", coh_access(m, 0, 0x3000, 8, COH_STORE).result, COH_HIT);
	expect("core 1 reads", coh_access(m, 1, 0x3000, 8, COH_LOAD).result, COH_COMPULSORY);
	expect("core 0 hits shared", coh_access(m, 0, 0x3000, 8, COH_LOAD).result, COH_HIT);
	expect("core 0 writes shared", coh_access(m, 0, 0x3000, 8, COH_STORE).result, COH_UPGRADE);
	expect("core 1 rereads", coh_access(m, 1, 0x3000, 8, COH_LOAD).result, COH_TRUE_SHARING);
	/* Written bytes 0-7 only; 8-15 untouched: false sharing. */
	coh_access(m, 0, 0x3000, 8, COH_STORE);
	expect("core 1 reads bytes nobody wrote", coh_access(m, 1, 0x3008, 8, COH_LOAD).result,
	       COH_FALSE_SHARING);
	coh_free(m);
}

static void expect_holder(const char *what, struct coh_outcome o, int want)
{
	if (o.modified_in != want) {
		printf("not ok: %s: served by core %d's Modified copy, expected %d\n",
		       what, o.modified_in, want);
		failures++;
	}
}

/*
 * A transfer (a miss served by another core's Modified copy) whatever the
 * miss's class: a line core 1 never held, one it lost to capacity before
 * core 0 wrote it, and none where core 0's copy is clean or gone.
 */
static void transfers(void)
{
	struct coh_model *m = small();
	struct coh_outcome o;
	unsigned int i;

	coh_access(m, 0, 0x5000, 8, COH_STORE);
	expect_holder("core 1's first read of a line core 0 wrote",
		      coh_access(m, 1, 0x5000, 8, COH_LOAD), 0);
	expect_holder("core 1 rereads, a hit", coh_access(m, 1, 0x5000, 8, COH_LOAD), -1);
	coh_access(m, 0, 0x6000, 8, COH_LOAD);
	expect_holder("a clean line is no transfer", coh_access(m, 1, 0x6000, 8, COH_LOAD), -1);
	/* Core 1 holds 0x7000, loses it to a walk of 64 lines, core 0 writes. */
	coh_access(m, 1, 0x7000, 8, COH_LOAD);
	for (i = 0; i < 64; i++)
		coh_access(m, 1, 0x10000 + i * 64, 8, COH_LOAD);
	coh_access(m, 0, 0x7000, 8, COH_STORE);
	o = coh_access(m, 1, 0x7000, 8, COH_LOAD);
	expect("a line lost to capacity, then written by the other", o.result, COH_CAPACITY);
	expect_holder("its miss is still a transfer", o, 0);
	coh_free(m);
}

static void capacity_and_conflict(void)
{
	struct coh_model *m = small();
	unsigned int i;

	/* 64 lines, twice the L2's 32: a cyclic walk misses by capacity. */
	for (i = 0; i < 64; i++)
		coh_access(m, 0, 0x10000 + i * 64, 8, COH_LOAD);
	for (i = 0; i < 64; i++)
		expect("cyclic walk over more lines than the L2 holds",
		       coh_access(m, 0, 0x10000 + i * 64, 8, COH_LOAD).result, COH_CAPACITY);
	coh_free(m);

	m = small();
	/* 3 lines in one L2 set (16 sets apart), 2 ways: conflict. */
	for (i = 0; i < 3; i++)
		coh_access(m, 0, 0x40000 + i * 16 * 64, 8, COH_LOAD);
	for (i = 0; i < 6; i++)
		expect("three lines in a two-way set",
		       coh_access(m, 0, 0x40000 + (i % 3) * 16 * 64, 8, COH_LOAD).result,
		       COH_CONFLICT);
	coh_free(m);
}

static void bad_geometry(void)
{
	struct coh_geometry g = { 2, 1, 3, 2, 2, 8, 4 };
	char err[128];

	if (coh_new(&g, err)) {
		printf("not ok: a 3-way 1 KiB L1 was accepted\n");
		failures++;
	}
}

static void objects(void)
{
	struct objmap *m = objmap_new();
	uint64_t base;
	uint32_t cache;
	int i;

	/* Eight 8-byte objects on one line, then a 232-byte one over five. */
	for (i = 0; i < 8; i++)
		objmap_insert(m, 0x1000 + 8 * i, 8, i, 0);
	objmap_insert(m, 0x2010, 232, 9, 0);
	if (!objmap_find(m, 0x1013, &cache, &base) || cache != 2 || base != 0x1010) {
		printf("not ok: objmap: 0x1013 is in the third 8-byte object\n");
		failures++;
	}
	if (!objmap_find(m, 0x20f7, &cache, &base) || cache != 9 || base != 0x2010 ||
	    objmap_find(m, 0x20f8, &cache, &base)) {
		printf("not ok: objmap: the 232-byte object ends at 0x20f7\n");
		failures++;
	}
	if (!objmap_remove(m, 0x1010, 0) || objmap_find(m, 0x1013, &cache, &base) ||
	    objmap_remove(m, 0x1011, 0) || objmap_live(m) != 8) {
		printf("not ok: objmap: removal by base only\n");
		failures++;
	}
	/* A 64-byte object over seven small ones still recorded: replaced. */
	objmap_insert(m, 0x1000, 64, 7, 0);
	if (objmap_replaced(m) != 7 || objmap_live(m) != 2 ||
	    !objmap_find(m, 0x1038, &cache, &base) || cache != 7) {
		printf("not ok: objmap: an object over unfreed ones replaces them (%llu replaced)\n",
		       (unsigned long long)objmap_replaced(m));
		failures++;
	}
	objmap_free(m);
}

static void check_occupancy(struct objmap *m, uint32_t cache, double objs,
			    double lines, const char *what)
{
	double o = -1, l = -1;

	if (!objmap_occupancy(m, cache, &o, &l) || o != objs || l != lines) {
		printf("not ok: occupancy: %s: %g object-ns and %g line-ns, expected %g and %g\n",
		       what, o, l, objs, lines);
		failures++;
	}
}

/*
 * Occupancy (objmap.h), by hand: a life is credited with its time in the
 * window, and that time by the lines touched in it, whenever touched.
 */
static void occupancy(void)
{
	struct objmap *m = objmap_new();
	uint64_t base;
	uint32_t cache;
	double o, l;

	/* Cache 1: allocated at 0, before the window (opened at 100). */
	objmap_insert(m, 0x10020, 200, 1, 0);	/* lines 0x400..0x403 */
	objmap_touch(m, 0x10030, &cache, &base, NULL);	/* outside: forgotten */
	objmap_window(m, true, 100);
	/* Lines 0 and 3 of the life, the second at its very end. */
	objmap_touch(m, 0x10020, &cache, &base, NULL);
	objmap_touch(m, 0x1003f, &cache, &base, NULL);	/* line 0 again */
	if (!objmap_touch(m, 0x100e7, &cache, &base, NULL) || cache != 1 ||
	    base != 0x10020) {
		printf("not ok: occupancy: touch finds its object\n");
		failures++;
	}
	objmap_remove(m, 0x10020, 400);	/* 300 ns, 2 lines */
	check_occupancy(m, 1, 300, 600, "a life from before the window");
	/* Cache 2: one untouched life, one replaced, one open at close. */
	objmap_insert(m, 0x20000, 64, 2, 150);
	objmap_remove(m, 0x20000, 250);	/* 100 ns, no line */
	objmap_insert(m, 0x20040, 64, 2, 200);
	objmap_touch(m, 0x20050, &cache, &base, NULL);
	objmap_insert(m, 0x20040, 64, 2, 300);	/* replaces: 100 ns, 1 line */
	objmap_touch(m, 0x20040, &cache, &base, NULL);
	objmap_touch(m, 0x20048, &cache, &base, NULL);
	objmap_window(m, false, 1000);	/* the last: 700 ns, 1 line */
	check_occupancy(m, 2, 900, 800, "ended by free, replacement, close");
	/* Closed: nothing more is credited; reopened: from the opening. */
	objmap_remove(m, 0x20040, 1100);
	objmap_insert(m, 0x30000, 5000, 3, 1200);	/* 79 lines */
	objmap_window(m, true, 2000);
	objmap_touch(m, 0x30000 + 4999, &cache, &base, NULL);	/* past the 64th */
	objmap_touch(m, 0x30000 + 64 * 70, &cache, &base, NULL);
	objmap_touch(m, 0x30000 + 64 * 10, &cache, &base, NULL);
	objmap_window(m, false, 2010);
	check_occupancy(m, 2, 900, 800, "after the window closed");
	check_occupancy(m, 3, 10, 20, "lines past the 64th count as one");
	if (objmap_occupancy(m, 4, &o, &l)) {
		printf("not ok: occupancy: a cache never seen has none\n");
		failures++;
	}
	objmap_free(m);
}

/*
 * The profiler's own objects (allocated while dprof.ko loaded): still
 * found, so their accesses are not taken for untyped ones, said to be
 * its own, and their lives credit no occupancy.
 */
static void own_objects(void)
{
	struct objmap *m = objmap_new();
	uint64_t base;
	uint32_t cache;
	bool own = true;
	double o, l;

	objmap_insert(m, 0x40000, 64, 5, 0);
	objmap_insert(m, 0x40040, 64, 6, 0);
	if (objmap_set_own(m, 0x40008) || !objmap_set_own(m, 0x40040)) {
		printf("not ok: own: marked by its start only\n");
		failures++;
	}
	objmap_window(m, true, 100);
	if (!objmap_touch(m, 0x40010, &cache, &base, &own) || own ||
	    cache != 5) {
		printf("not ok: own: another object is not the profiler's\n");
		failures++;
	}
	if (!objmap_touch(m, 0x40050, &cache, &base, &own) || !own ||
	    cache != 6 || base != 0x40040) {
		printf("not ok: own: the marked object is found, as its own\n");
		failures++;
	}
	objmap_window(m, false, 200);
	check_occupancy(m, 5, 100, 100, "own: the other object's life");
	if (objmap_occupancy(m, 6, &o, &l)) {
		printf("not ok: own: the profiler's objects occupy nothing\n");
		failures++;
	}
	/* Freed and the address reused: the new object is not its own. */
	objmap_remove(m, 0x40040, 300);
	objmap_insert(m, 0x40040, 64, 6, 300);
	if (!objmap_touch(m, 0x40040, &cache, &base, &own) || own) {
		printf("not ok: own: a new life at the same address is not\n");
		failures++;
	}
	objmap_free(m);
}

/* Known encodings (Intel SDM), as objdump prints them. */
static void instructions(void)
{
	static const struct {
		const char *what;
		uint8_t b[8];
		size_t n;
		bool atomic, string;
	} k[] = {
		{ "lock xadd %rax,(%rdi)", { 0xf0, 0x48, 0x0f, 0xc1, 0x07 }, 5, true, false },
		{ "lock cmpxchg %rsi,(%rdi)", { 0xf0, 0x48, 0x0f, 0xb1, 0x37 }, 5, true, false },
		{ "xchg %rax,(%rdi)", { 0x48, 0x87, 0x07 }, 3, true, false },
		{ "mov %rax,(%rdi)", { 0x48, 0x89, 0x07 }, 3, false, false },
		{ "rep movsb", { 0xf3, 0xa4 }, 2, false, true },
		{ "rep movsq", { 0xf3, 0x48, 0xa5 }, 3, false, true },
		{ "rep stosq", { 0xf3, 0x48, 0xab }, 3, false, true },
		{ "repz cmpsb", { 0xf3, 0xa6 }, 2, false, true },
		{ "lodsb", { 0xac }, 1, false, true },
		{ "movzbl (%rdi),%eax", { 0x0f, 0xb6, 0x07 }, 3, false, false },
	};
	uint64_t t = 0;
	/* call +0x10 and jmp -0x20 at 0x1000; jmp -2 (itself) at 0x2000 */
	const uint8_t call[] = { 0xe8, 0x10, 0, 0, 0 };
	const uint8_t jmp[] = { 0xe9, 0xe0, 0xff, 0xff, 0xff };
	const uint8_t jmp8[] = { 0xeb, 0xfe };

	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		if (insn_atomic(k[i].b, k[i].n) != k[i].atomic ||
		    insn_string(k[i].b, k[i].n) != k[i].string) {
			printf("not ok: %s: atomic %d, string %d\n", k[i].what,
			       insn_atomic(k[i].b, k[i].n),
			       insn_string(k[i].b, k[i].n));
			failures++;
		}
	if (insn_direct(0x1000, call, 5, &t) != INSN_CALL || t != 0x1015 ||
	    insn_direct(0x1000, jmp, 5, &t) != INSN_JMP || t != 0x1000 - 0x20 + 5 ||
	    insn_direct(0x2000, jmp8, 2, &t) != INSN_JMP || t != 0x2000 ||
	    insn_direct(0x1000, k[3].b, k[3].n, &t) != INSN_NOT_BRANCH) {
		printf("not ok: direct calls and jumps and their targets\n");
		failures++;
	}
}

int main(void)
{
	true_sharing();
	false_sharing();
	mesi();
	transfers();
	capacity_and_conflict();
	bad_geometry();
	objects();
	occupancy();
	own_objects();
	instructions();
	if (failures) {
		printf("referee: %d failures\n", failures);
		return 1;
	}
	printf("ok: referee cache model: every class and MESI transition as defined; transfers of Modified lines; object map; occupancy; the profiler's own objects; instruction kinds\n");
	return 0;
}

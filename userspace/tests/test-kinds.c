// SPDX-License-Identifier: GPL-2.0
/*
 * Access kinds from the instruction, and histories of up to four offsets.
 * Expected kinds are the Intel SDM's (Vol. 2 and Vol. 3 8.1.2.2: a lock
 * prefix, xchg with memory and cmpxchg read and write their destination;
 * cmpxchg writes it back even when the comparison fails), not capstone's
 * operand flags, which get lock cmpxchg, test and lea wrong.  The
 * instruction bytes are the encodings objdump prints for the mnemonics
 * in the comments.
 */
#include <stdlib.h>
#include "accessip.h"
#include "classify.h"
#include "fixture.h"
#include "harness.h"
#include "histories.h"
#include "profile.h"

struct insn_case {
	const char *what;
	uint8_t bytes[8];
	uint8_t len;
	enum dprof_access_kind kind;
};

static const struct insn_case cases[] = {
	{ "lock cmpxchg %ecx,(%rdi)", { 0xf0, 0x0f, 0xb1, 0x0f }, 4, DPROF_ACCESS_RMW },
	{ "lock xadd %eax,(%rdi)", { 0xf0, 0x0f, 0xc1, 0x07 }, 4, DPROF_ACCESS_RMW },
	{ "xchg %rax,(%rdi)", { 0x48, 0x87, 0x07 }, 3, DPROF_ACCESS_RMW },
	{ "lock incl (%rdi)", { 0xf0, 0xff, 0x07 }, 3, DPROF_ACCESS_RMW },
	{ "lock decl (%rdi)", { 0xf0, 0xff, 0x0f }, 3, DPROF_ACCESS_RMW },
	{ "lock btsl $3,(%rdi)", { 0xf0, 0x0f, 0xba, 0x2f, 0x03 }, 5, DPROF_ACCESS_RMW },
	{ "lock orb $1,(%rdi)", { 0xf0, 0x80, 0x0f, 0x01 }, 4, DPROF_ACCESS_RMW },
	{ "lock andb $0xfe,(%rdi)", { 0xf0, 0x80, 0x27, 0xfe }, 4, DPROF_ACCESS_RMW },
	{ "lock btr %rax,(%rdi)", { 0xf0, 0x48, 0x0f, 0xb3, 0x07 }, 5, DPROF_ACCESS_RMW },
	{ "cmpxchg16b (%rdi)", { 0x48, 0x0f, 0xc7, 0x0f }, 4, DPROF_ACCESS_RMW },
	{ "add %rax,(%rdi)", { 0x48, 0x01, 0x07 }, 3, DPROF_ACCESS_RMW },
	{ "incq (%rdi)", { 0x48, 0xff, 0x07 }, 3, DPROF_ACCESS_RMW },
	{ "btsq $3,(%rdi)", { 0x48, 0x0f, 0xba, 0x2f, 0x03 }, 5, DPROF_ACCESS_RMW },
	{ "movb $0,(%rdi)", { 0xc6, 0x07, 0x00 }, 3, DPROF_ACCESS_STORE },
	{ "mov %rax,(%rdi)", { 0x48, 0x89, 0x07 }, 3, DPROF_ACCESS_STORE },
	{ "setne (%rdi)", { 0x0f, 0x95, 0x07 }, 3, DPROF_ACCESS_STORE },
	{ "pop (%rdi)", { 0x8f, 0x07 }, 2, DPROF_ACCESS_STORE },
	{ "mov (%rdi),%rax", { 0x48, 0x8b, 0x07 }, 3, DPROF_ACCESS_LOAD },
	{ "cmp %rax,(%rdi)", { 0x48, 0x39, 0x07 }, 3, DPROF_ACCESS_LOAD },
	{ "testb $1,(%rdi)", { 0xf6, 0x07, 0x01 }, 3, DPROF_ACCESS_LOAD },
	{ "btq $3,(%rdi)", { 0x48, 0x0f, 0xba, 0x27, 0x03 }, 5, DPROF_ACCESS_LOAD },
	{ "push (%rdi)", { 0xff, 0x37 }, 2, DPROF_ACCESS_LOAD },
	{ "movsq", { 0x48, 0xa5 }, 2, DPROF_ACCESS_AMBIGUOUS },
	{ "lea 8(%rdi),%rax", { 0x48, 0x8d, 0x47, 0x08 }, 4, DPROF_ACCESS_UNKNOWN },
	{ "xor %eax,%eax", { 0x31, 0xc0 }, 2, DPROF_ACCESS_UNKNOWN },
};

/* Each instruction alone, then a ret: the trap ip is the ret. */
static void test_access_kinds_follow_the_sdm(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct insn_case *c = &cases[i];
		uint8_t code[16];
		enum dprof_access_kind kind = 99;
		uint64_t ip;

		memcpy(code, c->bytes, c->len);
		code[c->len] = 0xc3;
		ip = access_decode(code, c->len + 1u, 0x1000, 0x1000 + c->len,
				   &kind);
		if (ip != 0x1000 || kind != c->kind) {
			fprintf(stderr, "%s: ip %#llx kind %s, expected %s\n",
				c->what, (unsigned long long)ip,
				access_kind_name(kind),
				access_kind_name(c->kind));
			test_checks_failed++;
		}
	}
}

static void begin(struct fixture *f, uint32_t id, uint8_t flags,
		  const uint16_t *off, uint8_t n)
{
	struct dprof_hist_begin b = {
		.hdr = { .kind = DPROF_REC_HIST_BEGIN, .size = sizeof(b),
			 .flags = flags },
		.time_ns = 1000000, .addr = 0xffff888000001000ull, .id = id,
		.len = 8, .nr_offsets = n,
	};

	for (int k = 0; k < DPROF_HIST_MAX_OFFSETS; k++)
		b.offset[k] = k < n ? off[k] : DPROF_HIST_NO_OFFSET;
	fixture_raw(f, &b, sizeof(b));
}

static void elem(struct fixture *f, uint32_t id, uint16_t cpu,
		 unsigned int watch, bool write_bp, uint32_t ip_lo,
		 uint32_t since)
{
	struct dprof_hist_elem e = {
		.kind = DPROF_REC_HIST_ELEM, .size = sizeof(e), .cpu = cpu,
		.tag = (id & DPROF_ELEM_ID_MASK) | DPROF_ELEM_WATCH(watch) |
		       (write_bp ? DPROF_ELEM_WRITE : 0),
		.ip_lo = ip_lo, .time_ns = since,
	};

	fixture_raw(f, &e, sizeof(e));
}

static void end(struct fixture *f, uint32_t id)
{
	struct dprof_hist_end e = {
		.hdr = { .kind = DPROF_REC_HIST_END, .size = sizeof(e),
			 .cpu = 1 },
		.time_ns = 1002000, .id = id, .reason = DPROF_HIST_FREED,
	};

	fixture_raw(f, &e, sizeof(e));
}

#define IP_RMW		0x81000100u
#define IP_LOAD		0x81000200u
#define IP_UNDECODED	0x81000300u

static const struct dprof_file_access_kind kinds[] = {
	{ .trap_ip = 0xffffffff00000000ull | IP_RMW, .kind = DPROF_ACCESS_RMW },
	{ .trap_ip = 0xffffffff00000000ull | IP_LOAD, .kind = DPROF_ACCESS_LOAD },
};

/*
 * History 1 (write + read/write breakpoints): the decoded kind wins over
 * the report, and each disagreement is counted once.  History 2 (one
 * read/write breakpoint, RW_UNSURE): decoded kinds make it usable for the
 * classification; history 3 has an access nothing tells, so it is not.
 */
static void test_decoded_kinds_win_and_disagreements_count(void)
{
	static const uint16_t off[] = { 0, 8 };
	struct fixture f;
	struct recording r;
	struct rec_error err;
	struct history_set hs;
	const struct history *h;

	fixture_begin(&f, 1);
	begin(&f, 1, 0, off, 2);
	elem(&f, 1, 0, 0, false, IP_RMW, 100);		/* RMW reported read */
	elem(&f, 1, 0, 1, true, IP_LOAD, 200);		/* load reported write */
	elem(&f, 1, 1, 0, true, IP_UNDECODED, 300);	/* the report decides */
	elem(&f, 1, 1, 1, true, IP_RMW, 400);		/* agree */
	end(&f, 1);
	begin(&f, 2, DPROF_HIST_RW_UNSURE, off, 2);
	elem(&f, 2, 0, 0, false, IP_RMW, 100);
	elem(&f, 2, 1, 0, false, IP_LOAD, 200);
	end(&f, 2);
	begin(&f, 3, DPROF_HIST_RW_UNSURE, off, 2);
	elem(&f, 3, 0, 0, false, IP_RMW, 100);
	elem(&f, 3, 1, 1, false, IP_UNDECODED, 200);
	end(&f, 3);
	fixture_end_with(&f, DPROF_SEC_ACCESS_KINDS, kinds, sizeof(kinds));
	CHECK(recording_parse(&r, f.buf, f.len, &err) == 0);
	histories_build(&hs, &r);
	CHECK_EQ_U64(hs.n, 3);
	h = histories_find(&hs, 1);
	CHECK(h && h->nr_elems == 4);
	if (h && h->nr_elems == 4) {
		CHECK(h->elems[0].write && h->elems[0].kind == DPROF_ACCESS_RMW);
		CHECK(h->elems[0].reported == HIST_REPORTED_READ);
		CHECK(hist_elem_disagrees(&h->elems[0]));
		CHECK(!h->elems[1].write && hist_elem_disagrees(&h->elems[1]));
		CHECK(h->elems[2].write && h->elems[2].rw_known);
		CHECK(!hist_elem_disagrees(&h->elems[3]));
		CHECK(classify_usable(h));
	}
	CHECK_EQ_U64(hs.kinds.compared, 3);
	CHECK_EQ_U64(hs.kinds.write_reported_read, 1);
	CHECK_EQ_U64(hs.kinds.load_reported_write, 1);
	CHECK_EQ_U64(hs.kinds.by_kind[DPROF_ACCESS_RMW], 4);
	CHECK_EQ_U64(hs.kinds.by_kind[DPROF_ACCESS_LOAD], 2);
	CHECK_EQ_U64(hs.kinds.by_kind[DPROF_ACCESS_UNKNOWN], 2);
	CHECK_EQ_U64(hs.kinds.rw_unknown, 1);
	h = histories_find(&hs, 2);
	CHECK(h && classify_usable(h) && h->elems[0].write &&
	      h->elems[0].reported == HIST_REPORTED_NONE);
	h = histories_find(&hs, 3);
	CHECK(h && h->rw_unknown == 1 && !classify_usable(h));
	histories_free(&hs);
	recording_free(&r);
	fixture_free(&f);
}

/* Watch indexes 0-3 name BEGIN's offsets; one past nr_offsets is no one's. */
static void test_four_offsets_per_history(void)
{
	static const uint16_t four[] = { 0, 64, 72, 128 }, two[] = { 8, 16 };
	struct fixture f;
	struct recording r;
	struct rec_error err;
	struct history_set hs;
	const struct history *h;

	fixture_begin(&f, 1);
	begin(&f, 9, 0, four, 4);
	for (unsigned int w = 0; w < 4; w++)
		elem(&f, 9, w & 1, w, w & 1, IP_UNDECODED, 10 * (w + 1));
	end(&f, 9);
	begin(&f, 10, 0, two, 2);
	elem(&f, 10, 0, 3, false, IP_UNDECODED, 5);
	end(&f, 10);
	fixture_end(&f);
	CHECK(recording_parse(&r, f.buf, f.len, &err) == 0);
	histories_build(&hs, &r);
	h = histories_find(&hs, 9);
	CHECK(h && h->nr_elems == 4 && h->nr_offsets == 4);
	for (unsigned int w = 0; h && w < h->nr_elems && w < 4; w++) {
		CHECK_EQ_U64(h->elems[w].offset, four[w]);
		CHECK_EQ_U64(h->elems[w].write, w & 1);
	}
	h = histories_find(&hs, 10);
	CHECK(h && h->nr_elems == 0 &&
	      h->offset[2] == DPROF_HIST_NO_OFFSET);
	CHECK_EQ_U64(hs.orphan_elems, 1);
	histories_free(&hs);
	recording_free(&r);
	fixture_free(&f);

	/* Five offsets is more than there are debug registers. */
	fixture_begin(&f, 1);
	begin(&f, 11, 0, four, 5);
	fixture_end(&f);
	CHECK(recording_parse(&r, f.buf, f.len, &err) != 0);
	fixture_free(&f);
	/* One offset twice (a fuzzed file once overran combine's votes). */
	fixture_begin(&f, 1);
	begin(&f, 12, 0, (const uint16_t[]){ 8, 16, 8 }, 3);
	fixture_end(&f);
	CHECK(recording_parse(&r, f.buf, f.len, &err) != 0);
	CHECK_STR_CONTAINS(err.msg, "twice");
	fixture_free(&f);
}

/*
 * The watch sampler with one read/write breakpoint per offset counts
 * neither loads nor stores; the profile takes them from the instruction
 * at each entry's trap ip (a read-modify-write counts as a store).
 */
static void test_profile_kinds_from_instructions(void)
{
	struct dprof_sample_agg agg[] = {
		{ .ip = 0xffffffff00000000ull | IP_RMW, .count = 7, .offset = 8,
		  .flags = DPROF_AGG_WATCH_IP },
		{ .ip = 0xffffffff00000000ull | IP_LOAD, .count = 5, .offset = 8,
		  .flags = DPROF_AGG_WATCH_IP },
		/* the breakpoints told: kept as they are */
		{ .ip = 0xffffffff00000000ull | IP_LOAD, .count = 4, .offset = 16,
		  .loads = 1, .stores = 3, .flags = DPROF_AGG_WATCH_IP },
		{ .ip = 0xffffffff00000000ull | IP_UNDECODED, .count = 2,
		  .offset = 24, .flags = DPROF_AGG_WATCH_IP },
	};
	struct fixture_section s[] = {
		{ DPROF_SEC_SAMPLES, agg, sizeof(agg) },
		{ DPROF_SEC_ACCESS_KINDS, kinds, sizeof(kinds) },
	};
	struct fixture f;
	struct recording r;
	struct rec_error err;
	struct profile p;
	uint64_t loads[3] = { 0 }, stores[3] = { 0 };

	fixture_begin(&f, 1);
	fixture_end_sections(&f, s, 2);
	CHECK(recording_parse(&r, f.buf, f.len, &err) == 0);
	profile_build(&r, NULL, &p);
	CHECK_EQ_U64(p.nr_types, 1);
	for (size_t i = 0; p.nr_types && i < p.types[0].nr_fields; i++) {
		const struct profile_field *pf = &p.types[0].fields[i];

		if (pf->offset / 8 >= 1 && pf->offset / 8 <= 3) {
			loads[pf->offset / 8 - 1] += pf->loads;
			stores[pf->offset / 8 - 1] += pf->stores;
		}
	}
	CHECK_EQ_U64(loads[0], 5);
	CHECK_EQ_U64(stores[0], 7);
	CHECK_EQ_U64(loads[1], 1);
	CHECK_EQ_U64(stores[1], 3);
	CHECK_EQ_U64(loads[2] + stores[2], 0);	/* not known: neither */
	profile_free(&p);
	recording_free(&r);
	fixture_free(&f);
}

/*
 * IBS and PEBS give loads a latency and stores none: a type's average
 * miss latency is over the misses of loads.  Loads: 300 misses of 100
 * cycles; stores: 100 misses, no latency.  The average is 100, not 75.
 */
static void test_profile_latency_over_load_misses(void)
{
	struct dprof_sample_agg agg[] = {
		{ .ip = 0xffffffff81000100ull, .count = 300, .misses = 300,
		  .loads = 300, .latency_sum = 300 * 100, .offset = 8,
		  .src = DPROF_SRC_DRAM },
		{ .ip = 0xffffffff81000200ull, .count = 100, .misses = 100,
		  .stores = 100, .offset = 16, .src = DPROF_SRC_MISS },
	};
	struct fixture_section s[] = {
		{ DPROF_SEC_SAMPLES, agg, sizeof(agg) },
	};
	struct fixture f;
	struct recording r;
	struct rec_error err;
	struct profile p;

	fixture_begin(&f, 1);
	fixture_end_sections(&f, s, 1);
	CHECK(recording_parse(&r, f.buf, f.len, &err) == 0);
	profile_build(&r, NULL, &p);
	CHECK_EQ_U64(p.nr_types, 1);
	if (p.nr_types) {
		CHECK_EQ_U64(p.types[0].misses, 400);
		CHECK_EQ_U64(p.types[0].lat_misses, 300);
		CHECK_EQ_U64(p.types[0].latency_sum / p.types[0].lat_misses,
			     100);
	}
	profile_free(&p);
	recording_free(&r);
	fixture_free(&f);
}

const struct unit_test kinds_tests[] = {
	{ "profile_kinds_from_instructions",
	  test_profile_kinds_from_instructions },
	{ "profile_latency_over_load_misses",
	  test_profile_latency_over_load_misses },
	{ "access_kinds_follow_the_sdm", test_access_kinds_follow_the_sdm },
	{ "decoded_kinds_win_and_disagreements_count",
	  test_decoded_kinds_win_and_disagreements_count },
	{ "four_offsets_per_history", test_four_offsets_per_history },
	{ NULL, NULL },
};

// SPDX-License-Identifier: GPL-2.0
/*
 * History records, their reconstruction, the symboliser and the mapping
 * of trap ips to accessing instructions.  Instruction bytes are those of
 * Debian 6.1's __alloc_skb as objdump prints them, so the expected
 * boundaries come from binutils, not from the code under test.
 */
#include <stdlib.h>
#include "accessip.h"
#include "fixture.h"
#include "harness.h"
#include "histories.h"
#include "ksyms.h"
#include "util.h"

/* __alloc_skb+0xa7 .. +0xd1 (Debian 6.1.0-56), offsets from 0x1000. */
static const uint8_t alloc_skb_code[] = {
	0x48, 0x89, 0xd9,				/* 0x1000 mov %rbx,%rcx */
	0x31, 0xc0,					/* 0x1003 xor %eax,%eax */
	0x48, 0xc7, 0x03, 0, 0, 0, 0,			/* 0x1005 movq $0,(%rbx) */
	0x48, 0xc7, 0x83, 0xb4, 0, 0, 0, 0, 0, 0, 0,	/* 0x100c movq $0,0xb4(%rbx) */
	0x48, 0x29, 0xf9,				/* 0x1017 sub %rdi,%rcx */
	0xc1, 0xe9, 0x03,				/* 0x101a shr $3,%ecx */
	0xf3, 0x48, 0xab,				/* 0x101d rep stos %rax,(%rdi) */
	0xc3,						/* 0x1020 ret */
};

static uint64_t map(uint64_t trap)
{
	return access_ip_in_code(alloc_skb_code, sizeof(alloc_skb_code),
				 0x1000, trap);
}

static void test_access_ip_is_the_instruction_before_the_trap(void)
{
	CHECK_EQ_U64(map(0x100c), 0x1005);
	CHECK_EQ_U64(map(0x1017), 0x100c);
	CHECK_EQ_U64(map(0x1005), 0x1003);
}

static void test_rep_string_traps_on_itself(void)
{
	/* Between iterations the ip stays on rep stos; shr cannot access. */
	CHECK_EQ_U64(map(0x101d), 0x101d);
	/* After the last iteration the ip is past it. */
	CHECK_EQ_U64(map(0x1020), 0x101d);
}

static void test_access_ip_rejects_mid_instruction(void)
{
	CHECK_EQ_U64(map(0x100d), 0);
	CHECK_EQ_U64(map(0x1000), 0);
	CHECK_EQ_U64(map(0x2000), 0);
}

static void begin(struct fixture *f, uint32_t id, uint16_t cpu,
		  uint16_t off_a, uint16_t off_b, uint64_t t)
{
	struct dprof_hist_begin b = {
		.hdr = { .kind = DPROF_REC_HIST_BEGIN, .size = sizeof(b),
			 .cpu = cpu },
		.time_ns = t, .addr = 0xffff888000001000ull,
		.call_site = 0xffffffff81000010ull, .id = id,
		.offset = { off_a, off_b }, .len = 8,
		.nr_offsets = off_b == DPROF_HIST_NO_OFFSET ? 1 : 2,
	};

	fixture_raw(f, &b, sizeof(b));
}

static void elem(struct fixture *f, uint32_t id, uint16_t cpu, bool watch_b,
		 bool write, uint32_t since)
{
	struct dprof_hist_elem e = {
		.kind = DPROF_REC_HIST_ELEM, .size = sizeof(e), .cpu = cpu,
		.tag = (id & DPROF_ELEM_ID_MASK) |
		       (watch_b ? DPROF_ELEM_WATCH(1) : 0) |
		       (write ? DPROF_ELEM_WRITE : 0),
		.ip_lo = 0x81000100, .time_ns = since,
	};

	fixture_raw(f, &e, sizeof(e));
}

static void end(struct fixture *f, uint32_t id, uint16_t cpu, uint8_t reason,
		uint64_t t)
{
	struct dprof_hist_end e = {
		.hdr = { .kind = DPROF_REC_HIST_END, .size = sizeof(e),
			 .cpu = cpu },
		.time_ns = t, .id = id, .reason = reason,
	};

	fixture_raw(f, &e, sizeof(e));
}

static void test_histories_rebuilt_across_cpus(void)
{
	struct fixture f;
	struct recording r;
	struct rec_error err;
	struct history_set hs;
	const struct history *h;

	fixture_begin(&f, 1);
	/* CPU 1's ring drained before CPU 0's: an element precedes BEGIN. */
	elem(&f, 16389, 1, true, false, 900);
	begin(&f, 16389, 0, 0, 8, 1000000);
	elem(&f, 16389, 0, false, true, 100);
	elem(&f, 16389, 0, true, true, 200);
	elem(&f, 77, 0, false, true, 5);	/* no such history */
	end(&f, 16389, 1, DPROF_HIST_FREED, 1001000);
	fixture_end(&f);
	CHECK(recording_parse(&r, f.buf, f.len, &err) == 0);
	histories_build(&hs, &r);
	CHECK_EQ_U64(hs.n, 1);
	CHECK_EQ_U64(hs.orphan_elems, 1);
	h = histories_find(&hs, 16389);
	CHECK(h != NULL);
	if (h) {
		CHECK_EQ_U64(h->nr_elems, 3);
		CHECK_EQ_U64(h->elems[0].time_ns, 100);
		CHECK_EQ_U64(h->elems[0].offset, 0);
		CHECK(h->elems[0].write);
		CHECK_EQ_U64(h->elems[2].time_ns, 900);
		CHECK_EQ_U64(h->elems[2].cpu, 1);
		CHECK_EQ_U64(h->elems[2].offset, 8);
		CHECK(!h->elems[2].write);
		CHECK_EQ_U64(h->elems[2].ip, 0xffffffff81000100ull);
		CHECK_EQ_U64(h->end_cpu, 1);
		CHECK_EQ_U64(h->end_ns - h->alloc_ns, 1000);
		CHECK(history_complete(h));
		CHECK_EQ_U64(history_cpu_mask(h), 3);
	}
	histories_free(&hs);
	recording_free(&r);
	fixture_free(&f);
}

/*
 * Elements carry only an id's low 13 bits: ids 5, 5 + 8192 and
 * 5 + 2 * 8192 share them, and each element belongs to the history whose
 * BEGIN is nearest in the file, before or after it (rings drained in any
 * order); at equal distance, the lower id.  Elements' times are their
 * record numbers, to tell them apart.
 */
static void test_elements_go_to_the_nearest_begin_of_their_tag(void)
{
	const uint32_t a = 5, b = 5 + 8192, c = 5 + 2 * 8192;
	struct fixture f;
	struct recording r;
	struct rec_error err;
	struct history_set hs;
	const struct history *ha, *hb, *hc;

	fixture_begin(&f, 1);
	/* Record k, and where its element belongs (distances a/b/c). */
	begin(&f, a, 0, 0, 8, 1000);		/* 0 */
	elem(&f, a, 0, false, false, 1);	/* 1: a (1/3) */
	elem(&f, a, 0, false, false, 2);	/* 2: a (2/2, the lower id) */
	elem(&f, a, 0, false, false, 3);	/* 3: b (3/1) */
	begin(&f, b, 0, 0, 8, 2000);		/* 4 */
	elem(&f, b, 0, false, false, 5);	/* 5: b (1/4) */
	elem(&f, b, 0, false, false, 6);	/* 6: b (2/3) */
	elem(&f, c, 1, false, false, 7);	/* 7: c (3/2) */
	elem(&f, c, 1, false, false, 8);	/* 8: c (4/1) */
	begin(&f, c, 1, 0, 8, 3000);		/* 9 */
	elem(&f, c, 1, false, false, 10);	/* 10: c (1 after) */
	fixture_end(&f);
	CHECK(recording_parse(&r, f.buf, f.len, &err) == 0);
	histories_build(&hs, &r);
	CHECK_EQ_U64(hs.n, 3);
	CHECK_EQ_U64(hs.orphan_elems, 0);
	ha = histories_find(&hs, a);
	hb = histories_find(&hs, b);
	hc = histories_find(&hs, c);
	CHECK(ha && hb && hc);
	if (ha && hb && hc) {
		CHECK_EQ_U64(ha->nr_elems, 2);
		CHECK_EQ_U64(ha->elems[1].time_ns, 2);
		CHECK_EQ_U64(hb->nr_elems, 3);
		CHECK_EQ_U64(hb->elems[0].time_ns, 3);
		CHECK_EQ_U64(hb->elems[2].time_ns, 6);
		CHECK_EQ_U64(hc->nr_elems, 3);
		CHECK_EQ_U64(hc->elems[0].time_ns, 7);
	}
	histories_free(&hs);
	recording_free(&r);
	fixture_free(&f);
}

static void test_reader_rejects_bad_history_records(void)
{
	struct fixture f;
	struct recording r;
	struct rec_error err;

	/* Offset 200 + 8 bytes lies beyond cache0's 200-byte object. */
	fixture_begin(&f, 1);
	begin(&f, 1, 0, 200, DPROF_HIST_NO_OFFSET, 10);
	fixture_end(&f);
	CHECK(recording_parse(&r, f.buf, f.len, &err) != 0);
	CHECK_STR_CONTAINS(err.msg, "beyond");
	fixture_free(&f);

	fixture_begin(&f, 1);
	end(&f, 1, 0, 9, 10);
	fixture_end(&f);
	CHECK(recording_parse(&r, f.buf, f.len, &err) != 0);
	CHECK_STR_CONTAINS(err.msg, "reason");
	fixture_free(&f);
}

static void test_ksyms_symbolise_kernel_and_modules(void)
{
	static const char text[] =
		"ffffffff81000000 T _text\n"
		"ffffffff81000100 T __alloc_skb\n"
		"ffffffff81000200 t kfree_skbmem\n"
		"ffffffff81000300 D some_data\n"
		"ffffffffc0000000 t bump\t[dprof_sharing]\n";
	struct ksyms k;
	char buf[128];

	ksyms_load(&k, text);
	CHECK_EQ_U64(k.nr, 4);
	CHECK(!strcmp(ksyms_format(&k, 0xffffffff8100015cull, buf,
				   sizeof(buf)), "__alloc_skb+0x5c"));
	CHECK(!strcmp(ksyms_format(&k, 0xffffffffc0000010ull, buf,
				   sizeof(buf)), "bump+0x10 [dprof_sharing]"));
	CHECK(!strcmp(ksyms_format(&k, 0x1000, buf, sizeof(buf)), "0x1000"));
	ksyms_free(&k);
}

/* Names from a crafted file reach the terminal with no escape in them. */
static void test_ksyms_names_printable(void)
{
	static const char text[] =
		"ffffffff81000000 T _text\n"
		"ffffffff81000100 T evil\x1b[2J\r\x7f\xc3\xa9\n";
	struct ksyms k;
	char buf[128];

	ksyms_load(&k, text);
	CHECK(!strcmp(ksyms_format(&k, 0xffffffff81000101ull, buf,
				   sizeof(buf)), "evil?[2J????+0x1"));
	ksyms_free(&k);
	CHECK(!strcmp(text_printable((char[]){ "a\tb\nc\rd" }),
		      "a\tb\nc?d"));
}

const struct unit_test histories_tests[] = {
	{ "ksyms_names_printable", test_ksyms_names_printable },
	{ "access_ip_is_the_instruction_before_the_trap",
	  test_access_ip_is_the_instruction_before_the_trap },
	{ "rep_string_traps_on_itself", test_rep_string_traps_on_itself },
	{ "access_ip_rejects_mid_instruction",
	  test_access_ip_rejects_mid_instruction },
	{ "histories_rebuilt_across_cpus",
	  test_histories_rebuilt_across_cpus },
	{ "elements_go_to_the_nearest_begin_of_their_tag",
	  test_elements_go_to_the_nearest_begin_of_their_tag },
	{ "reader_rejects_bad_history_records",
	  test_reader_rejects_bad_history_records },
	{ "ksyms_symbolise_kernel_and_modules",
	  test_ksyms_symbolise_kernel_and_modules },
	{ NULL, NULL },
};

// SPDX-License-Identifier: GPL-2.0
/* The recording reader accepts what the writer writes and rejects damage. */
#include <stdlib.h>
#include <unistd.h>
#include <byteswap.h>
#include "harness.h"
#include "fixture.h"
#include "recfile.h"
#include "util.h"
#include "view.h"

static void make_sample(struct fixture *f)
{
	fixture_begin(f, 2);
	fixture_event(f, DPROF_REC_ALLOC, 0, 0, 100, 0x1000);
	fixture_event(f, DPROF_REC_ALLOC, 1, 1, 110, 0x2000);
	fixture_event(f, DPROF_REC_FREE, 1, 0, 120, 0x1000);
	fixture_event(f, DPROF_REC_FREE, 0, 1, 130, 0x2000);
	fixture_end(f);
}

/* Parse a private copy: malloc'd, so records are 8-aligned as in a file. */
static int parse_copy(const uint8_t *buf, size_t len, struct rec_error *err)
{
	struct recording r;
	uint8_t *copy = xmalloc(len);
	int ret;

	memcpy(copy, buf, len);
	ret = recording_parse(&r, copy, len, err);
	recording_free(&r);
	free(copy);
	return ret;
}

static void test_reads_valid_file(void)
{
	struct fixture f;
	struct recording r;
	struct rec_error err;

	make_sample(&f);
	CHECK(recording_parse(&r, f.buf, f.len, &err) == 0);
	CHECK_EQ_U64(r.nr_targets, 2);
	CHECK(!strcmp(r.targets[1].name, "cache1"));
	CHECK_EQ_U64(r.records, 4);
	CHECK_EQ_U64(r.kind_count[DPROF_REC_ALLOC], 2);
	CHECK_EQ_U64(r.kind_count[DPROF_REC_FREE], 2);
	CHECK(!strcmp(recording_meta(&r, "kernel"), "6.1.0-test"));
	CHECK(recording_meta(&r, "nothing") == NULL);
	recording_free(&r);
	fixture_free(&f);
}

/* Every strict prefix of a valid file is an error, never a crash. */
static void test_every_truncation_is_an_error(void)
{
	struct fixture f;
	struct rec_error err;

	make_sample(&f);
	for (size_t len = 0; len < f.len; len++) {
		int ret = parse_copy(f.buf, len, &err);

		CHECK(ret == -1);
		CHECK(err.offset <= len);
	}
	fixture_free(&f);
}

static void test_bad_record_size_names_offset(void)
{
	struct fixture f;
	struct rec_error err;
	size_t second = 0;

	make_sample(&f);
	second = f.events_offset + sizeof(struct dprof_obj_event);
	((struct dprof_rec_hdr *)(f.buf + second))->size = 12;
	CHECK(parse_copy(f.buf, f.len, &err) == -1);
	CHECK_EQ_U64(err.offset, second);
	CHECK_STR_CONTAINS(err.msg, "bad size 12");
	fixture_free(&f);
}

static void test_target_out_of_range(void)
{
	struct fixture f;
	struct rec_error err;

	fixture_begin(&f, 1);
	fixture_event(&f, DPROF_REC_ALLOC, 0, 3, 1, 0x1000);
	fixture_end(&f);
	CHECK(parse_copy(f.buf, f.len, &err) == -1);
	CHECK_EQ_U64(err.offset, f.events_offset);
	CHECK_STR_CONTAINS(err.msg, "target 3");
	fixture_free(&f);
}

/* Plans: read back; a plan item off its target's object is refused. */
static void test_plans_section(void)
{
	struct dprof_plan_item items[2] = {
		{ .target = 0, .nr_offsets = 2, .len = 8, .item = 0,
		  .offset = { 0, 8, DPROF_HIST_NO_OFFSET, DPROF_HIST_NO_OFFSET },
		  .complete = 3 },
		{ .target = 1, .nr_offsets = 1, .len = 8, .item = 0,
		  .offset = { 192, DPROF_HIST_NO_OFFSET, DPROF_HIST_NO_OFFSET,
			      DPROF_HIST_NO_OFFSET } },
	};
	struct fixture f;
	struct recording r;
	struct rec_error err;

	fixture_begin(&f, 2);
	fixture_end_with(&f, DPROF_SEC_PLANS, items, sizeof(items));
	CHECK(recording_parse(&r, f.buf, f.len, &err) == 0);
	CHECK_EQ_U64(r.nr_plans, 2);
	if (r.nr_plans == 2) {
		CHECK_EQ_U64(r.plans[0].complete, 3);
		CHECK_EQ_U64(r.plans[1].offset[0], 192);
	}
	recording_free(&r);
	fixture_free(&f);

	items[1].offset[0] = 208;	/* cache1 is 201 bytes */
	fixture_begin(&f, 2);
	fixture_end_with(&f, DPROF_SEC_PLANS, items, sizeof(items));
	CHECK(parse_copy(f.buf, f.len, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "offset 208 of cache1");
	fixture_free(&f);

	items[1].offset[0] = 0;
	items[1].target = 7;
	fixture_begin(&f, 2);
	fixture_end_with(&f, DPROF_SEC_PLANS, items, sizeof(items));
	CHECK(parse_copy(f.buf, f.len, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "target 7");
	fixture_free(&f);
}

/* Facts whose sizes do not add up, or whose figures are out of range. */
static void test_facts_section_checked(void)
{
	struct {
		struct dprof_facts head;
		struct dprof_target_fact t[2];
	} fs;
	struct fixture f;
	struct rec_error err;
	struct recording r;

	memset(&fs, 0, sizeof(fs));
	fs.head.size = sizeof(fs.head);
	fs.head.target_size = sizeof(fs.t[0]);
	fs.head.nr_targets = 2;
	fs.t[1].target = 1;
	fs.t[1].share = 2500;
	fixture_begin(&f, 2);
	fixture_end_with(&f, DPROF_SEC_FACTS, &fs, sizeof(fs));
	CHECK(recording_parse(&r, f.buf, f.len, &err) == 0);
	CHECK(r.has_facts);
	CHECK(recording_target_fact(&r, 1) &&
	      recording_target_fact(&r, 1)->share == 2500);
	CHECK(!recording_target_fact(&r, 2));
	recording_free(&r);
	fixture_free(&f);

	fs.head.nr_targets = 3;		/* one entry more than the bytes */
	fixture_begin(&f, 2);
	fixture_end_with(&f, DPROF_SEC_FACTS, &fs, sizeof(fs));
	CHECK(parse_copy(f.buf, f.len, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "facts section: 3 entries");
	fixture_free(&f);

	fs.head.nr_targets = 2;
	fs.head.target_size = 8;	/* shorter than any entry */
	fixture_begin(&f, 2);
	fixture_end_with(&f, DPROF_SEC_FACTS, &fs, sizeof(fs));
	CHECK(parse_copy(f.buf, f.len, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "entries of 8");
	fixture_free(&f);

	fs.head.target_size = sizeof(fs.t[0]);
	fs.t[1].share = 10001;		/* over the whole */
	fixture_begin(&f, 2);
	fixture_end_with(&f, DPROF_SEC_FACTS, &fs, sizeof(fs));
	CHECK(parse_copy(f.buf, f.len, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "out of range: share 10001");
	fixture_free(&f);

	fixture_begin(&f, 2);
	fixture_end_with(&f, DPROF_SEC_FACTS, &fs, 8);	/* truncated header */
	CHECK(parse_copy(f.buf, f.len, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "shorter than its sizes");
	fixture_free(&f);
}

/* A target larger than any slab object (the views would size by it). */
static void test_object_size_bounded(void)
{
	struct fixture f;
	struct rec_error err;
	uint8_t *name;
	uint32_t big = 16u << 20;

	fixture_begin(&f, 1);
	fixture_end(&f);
	name = memmem(f.buf, f.len, "cache0", 7);
	CHECK(name != NULL);
	if (name) {
		/* struct dprof_file_target: index, object_size, stride, flags, name */
		memcpy(name - 12, &big, 4);
		memcpy(name - 8, &big, 4);
		CHECK(parse_copy(f.buf, f.len, &err) == -1);
		CHECK_STR_CONTAINS(err.msg, "object size 16777216");
	}
	fixture_free(&f);
}

/* A name with a carriage return would rewrite the line it is shown on. */
static void test_target_name_printable(void)
{
	struct fixture f;
	struct rec_error err;
	uint8_t *name;

	fixture_begin(&f, 1);
	fixture_end(&f);
	name = memmem(f.buf, f.len, "cache0", 7);
	CHECK(name != NULL);
	if (name) {
		CHECK(parse_copy(f.buf, f.len, &err) == 0);
		name[4] = '\r';
		CHECK(parse_copy(f.buf, f.len, &err) == -1);
		CHECK_STR_CONTAINS(err.msg, "target 0: its name has a control");
		name[4] = 0xc3;		/* not ASCII: refused too */
		CHECK(parse_copy(f.buf, f.len, &err) == -1);
	}
	fixture_free(&f);
}

static void test_magic_version_and_endianness(void)
{
	struct fixture f;
	struct rec_error err;
	struct dprof_file_header *h;

	make_sample(&f);
	h = (void *)f.buf;
	h->magic = bswap_64(DPROF_FILE_MAGIC);
	CHECK(parse_copy(f.buf, f.len, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "byte-swapped");
	h->magic = 0x1234;
	CHECK(parse_copy(f.buf, f.len, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "bad magic");
	h->magic = DPROF_FILE_MAGIC;
	h->abi_version = DPROF_ABI_VERSION + 1;
	CHECK(parse_copy(f.buf, f.len, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "ABI version");
	CHECK_EQ_U64(err.offset, 8);
	fixture_free(&f);
}

/* Newer writers may add record kinds and sections: they are skipped. */
static void test_unknown_kinds_are_skipped(void)
{
	struct fixture f;
	struct recording r;
	struct rec_error err;
	struct rec_iter it;
	const struct dprof_rec_hdr *hdr;
	int allocs = 0;

	fixture_begin(&f, 1);
	fixture_event(&f, DPROF_REC_ALLOC, 0, 0, 1, 0x1000);
	fixture_event(&f, 77, 0, 0, 2, 0x1000);	/* a future kind */
	fixture_end(&f);
	CHECK(recording_parse(&r, f.buf, f.len, &err) == 0);
	CHECK_EQ_U64(r.unknown_records, 1);
	CHECK_EQ_U64(r.records, 2);
	rec_iter_init(&it, &r);
	while ((hdr = rec_iter_next(&it)))
		allocs += hdr->kind == DPROF_REC_ALLOC;
	CHECK_EQ_U64(allocs, 1);
	recording_free(&r);
	fixture_free(&f);
}

static void test_end_count_must_match(void)
{
	struct fixture f;
	struct rec_error err;

	make_sample(&f);
	/* The end section is last; its first field counts the records. */
	*(uint64_t *)(f.buf + f.len - sizeof(struct dprof_file_end)) = 5;
	CHECK(parse_copy(f.buf, f.len, &err) == -1);
	CHECK_STR_CONTAINS(err.msg, "counts 5 records");
	fixture_free(&f);
}

/* Random damage (deterministic): errors or success, never a crash. */
static void test_random_corruption(void)
{
	struct fixture f;
	struct rec_error err;
	uint32_t seed = 12345;

	make_sample(&f);
	for (int round = 0; round < 3000; round++) {
		uint8_t *copy = xmalloc(f.len);

		memcpy(copy, f.buf, f.len);
		for (int k = 0; k < 1 + round % 4; k++) {
			seed = seed * 1103515245 + 12345;
			copy[(seed >> 8) % f.len] ^= (uint8_t)(seed >> 24) | 1;
		}
		(void)parse_copy(copy, f.len, &err);
		free(copy);
	}
	fixture_free(&f);
}

static void test_writer_round_trip(void)
{
	char path[] = "/tmp/dprof-unit-XXXXXX";
	int fd = mkstemp(path);
	struct rec_writer w;
	struct recording r;
	struct rec_error err;
	struct dprof_file_target t = { .index = 0, .object_size = 8,
				       .stride = 8, .name = "x" };
	struct dprof_file_end end = { .records = 0 };

	CHECK(fd >= 0);
	close(fd);
	CHECK(rec_writer_open(&w, path) == 0);
	rec_write_section(&w, DPROF_SEC_TARGETS, &t, sizeof(t));
	rec_write_section(&w, DPROF_SEC_META, "a=b\n", 4);	/* padded */
	rec_write_section(&w, DPROF_SEC_END, &end, sizeof(end));
	CHECK(rec_writer_close(&w) == 0);
	CHECK(recording_load(&r, path, &err) == 0);
	CHECK(!strcmp(recording_meta(&r, "a"), "b"));
	recording_free(&r);
	unlink(path);
}

/*
 * Cache names in views: the cache's own name, the module's aliases,
 * size-N / kmalloc-N in bytes, or a prefix of one name only; anything
 * else is an error (exit 2 in the views) that lists the candidates.
 */
static void test_cache_names_aliases_and_prefixes(void)
{
	struct fixture f;
	struct recording r;
	struct rec_error err;
	const char *name;

	fixture_begin(&f, 4);
	fixture_end(&f);
	CHECK(recording_parse(&r, f.buf, f.len, &err) == 0);
	strcpy(r.targets[0].name, "skbuff_head_cache");
	strcpy(r.targets[1].name, "kmalloc-1k");
	strcpy(r.targets[2].name, "kmalloc-512");
	strcpy(r.targets[3].name, "TCP");
	name = "skbuff";
	CHECK(view_target(&r, "test", &name) == 0);
	CHECK(!strcmp(name, "skbuff_head_cache"));
	name = "size-1024";
	CHECK(view_target(&r, "test", &name) == 1);
	name = "kmalloc-1024";
	CHECK(view_target(&r, "test", &name) == 1);
	CHECK(!strcmp(name, "kmalloc-1k"));
	name = "kmalloc-512";
	CHECK(view_target(&r, "test", &name) == 2);
	name = "tcp";
	CHECK(view_target(&r, "test", &name) == 3);
	name = "skb";		/* a unique prefix */
	CHECK(view_target(&r, "test", &name) == 0);
	name = "kmalloc";	/* two caches */
	CHECK(view_target(&r, "test", &name) == -1);
	name = "size-0";
	CHECK(view_target(&r, "test", &name) == -1);
	name = "nosuch";
	CHECK(view_target(&r, "test", &name) == -1);
	name = "";
	CHECK(view_target(&r, "test", &name) == -1);
	recording_free(&r);
	fixture_free(&f);
}

const struct unit_test recfile_tests[] = {
	{ "facts_section_checked", test_facts_section_checked },
	{ "view: cache names, aliases and unique prefixes",
	  test_cache_names_aliases_and_prefixes },
	{ "recfile: reads a valid file", test_reads_valid_file },
	{ "recfile: every truncation is an error", test_every_truncation_is_an_error },
	{ "recfile: bad record size names its offset", test_bad_record_size_names_offset },
	{ "recfile: target index out of range", test_target_out_of_range },
	{ "recfile: object size bounded", test_object_size_bounded },
	{ "recfile: target names printable", test_target_name_printable },
	{ "recfile: magic, version, endianness", test_magic_version_and_endianness },
	{ "recfile: unknown kinds are skipped", test_unknown_kinds_are_skipped },
	{ "recfile: end count must match", test_end_count_must_match },
	{ "recfile: random corruption never crashes", test_random_corruption },
	{ "recfile: writer round trip", test_writer_round_trip },
	{ "recfile: plans section", test_plans_section },
	{ NULL, NULL },
};

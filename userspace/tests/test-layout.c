// SPDX-License-Identifier: GPL-2.0
/*
 * Field names from BTF.  The BTF is built here with libbpf's writer, so
 * the expected layout is the one written down below, not anything the
 * code under test computed:
 *
 *   struct inner { int a; short b; };            8 bytes, 2 of padding
 *   struct t {
 *           u64_t x;                             0..7   (typedef)
 *           union { u32 u1; u16 u2; };           8..11  (anonymous)
 *                                                12..15 padding
 *           struct inner in;                     16..23
 *           u8 arr[10];                          24..33
 *           u32 bf1:3, bf2:5;                    byte 34 (bitfields)
 *                                                35..39 padding
 *           const u64_t *p;                      40..47
 *   };                                           48 bytes
 *
 *   struct grp {                                 struct_group() style
 *           union {
 *                   struct { u32 a; u32 b; };
 *                   struct { u32 a; u32 b; } hdr;
 *           };
 *   };                                           8 bytes
 */
#include <stdlib.h>
#include <bpf/btf.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include "harness.h"
#include "typemap.h"

static struct btf *build_btf(void)
{
	struct btf *btf = btf__new_empty();
	int u8, u16, u32, s16, s32, u64, u64t, inner, anon, arr, cu64, ptr, t;

	u8 = btf__add_int(btf, "unsigned char", 1, 0);
	u16 = btf__add_int(btf, "unsigned short", 2, 0);
	u32 = btf__add_int(btf, "unsigned int", 4, 0);
	s16 = btf__add_int(btf, "short", 2, BTF_INT_SIGNED);
	s32 = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	u64 = btf__add_int(btf, "unsigned long long", 8, 0);
	u64t = btf__add_typedef(btf, "u64_t", u64);

	inner = btf__add_struct(btf, "inner", 8);
	btf__add_field(btf, "a", s32, 0, 0);
	btf__add_field(btf, "b", s16, 32, 0);

	anon = btf__add_union(btf, NULL, 4);
	btf__add_field(btf, "u1", u32, 0, 0);
	btf__add_field(btf, "u2", u16, 0, 0);

	arr = btf__add_array(btf, u32, u8, 10);
	cu64 = btf__add_const(btf, u64t);
	ptr = btf__add_ptr(btf, cu64);

	{
		int s1 = btf__add_struct(btf, NULL, 8), s2, un, grp;

		btf__add_field(btf, "a", u32, 0, 0);
		btf__add_field(btf, "b", u32, 32, 0);
		s2 = btf__add_struct(btf, NULL, 8);
		btf__add_field(btf, "a", u32, 0, 0);
		btf__add_field(btf, "b", u32, 32, 0);
		un = btf__add_union(btf, NULL, 8);
		btf__add_field(btf, NULL, s1, 0, 0);
		btf__add_field(btf, "hdr", s2, 0, 0);
		grp = btf__add_struct(btf, "grp", 8);
		btf__add_field(btf, NULL, un, 0, 0);
		if (grp < 0)
			return NULL;
	}
	{
		/*
		 * struct holder {                          24 bytes
		 *         u64 x;                           0..7
		 *         struct {                         8..15, lockref-like
		 *                 union {
		 *                         u64 lock_count;
		 *                         struct { u32 lock; int count; };
		 *                 };
		 *         } d_lockref;
		 *         struct { struct { u32 v; } rlock; } lock; 16..19
		 *         u32 other;                       20..23
		 * };
		 */
		int pair = btf__add_struct(btf, NULL, 8), un, lr, rl, lk, h;

		btf__add_field(btf, "lock", u32, 0, 0);
		btf__add_field(btf, "count", s32, 32, 0);
		un = btf__add_union(btf, NULL, 8);
		btf__add_field(btf, "lock_count", u64, 0, 0);
		btf__add_field(btf, NULL, pair, 0, 0);
		lr = btf__add_struct(btf, NULL, 8);
		btf__add_field(btf, NULL, un, 0, 0);
		rl = btf__add_struct(btf, NULL, 4);
		btf__add_field(btf, "v", u32, 0, 0);
		lk = btf__add_struct(btf, NULL, 4);
		btf__add_field(btf, "rlock", rl, 0, 0);
		h = btf__add_struct(btf, "holder", 24);
		btf__add_field(btf, "x", u64, 0, 0);
		btf__add_field(btf, "d_lockref", lr, 64, 0);
		btf__add_field(btf, "lock", lk, 128, 0);
		btf__add_field(btf, "other", u32, 160, 0);
		if (h < 0)
			return NULL;
	}
	t = btf__add_struct(btf, "t", 48);
	btf__add_field(btf, "x", u64t, 0, 0);
	btf__add_field(btf, NULL, anon, 64, 0);
	btf__add_field(btf, "in", inner, 128, 0);
	btf__add_field(btf, "arr", arr, 192, 0);
	btf__add_field(btf, "bf1", u32, 272, 3);
	btf__add_field(btf, "bf2", u32, 275, 5);
	btf__add_field(btf, "p", ptr, 320, 0);
	return t > 0 ? btf : NULL;
}

static void test_names(void)
{
	static const struct { unsigned int off; const char *name; } want[] = {
		{ 0, "x" }, { 7, "x" }, { 8, "u1|u2" }, { 9, "u1|u2" },
		{ 10, "u1" }, { 11, "u1" }, { 12, "(padding)" },
		{ 15, "(padding)" }, { 16, "in.a" }, { 19, "in.a" },
		{ 20, "in.b" }, { 22, "(padding)" }, { 24, "arr[0]" },
		{ 33, "arr[9]" }, { 34, "bf1|bf2" }, { 35, "(padding)" },
		{ 40, "p" }, { 47, "p" }, { 48, "(beyond the struct)" },
	};
	struct btf *btf = build_btf();
	struct layout l;
	char err[128], buf[128];
	size_t i;

	CHECK(btf != NULL);
	if (!btf)
		return;
	CHECK(layout_from_btf(btf, "t", &l, err, sizeof(err)) == 0);
	CHECK_EQ_U64(l.size, 48);
	CHECK(!strcmp(l.name, "struct t"));
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		layout_name_at(&l, want[i].off, buf, sizeof(buf));
		if (strcmp(buf, want[i].name)) {
			fprintf(stderr, "offset %u: '%s', expected '%s'\n",
				want[i].off, buf, want[i].name);
			test_checks_failed++;
		}
	}
	/* Ranges: what a watched 8-byte slot (or any span) overlaps. */
	CHECK(!strcmp(layout_name_range(&l, 8, 8, buf, sizeof(buf)), "u1|u2"));
	CHECK(!strcmp(layout_name_range(&l, 24, 4, buf, sizeof(buf)), "arr[0..3]"));
	CHECK(!strcmp(layout_name_range(&l, 32, 8, buf, sizeof(buf)),
		      "arr[8..9]|bf1|bf2"));
	CHECK(!strcmp(layout_name_range(&l, 12, 4, buf, sizeof(buf)), "(padding)"));
	CHECK(!strcmp(layout_name_range(&l, 20, 8, buf, sizeof(buf)),
		      "in.b|arr[0..3]"));
	layout_free(&l);

	CHECK(layout_from_btf(btf, "grp", &l, err, sizeof(err)) == 0);
	CHECK(!strcmp(layout_name_at(&l, 0, buf, sizeof(buf)), "a"));
	CHECK(!strcmp(layout_name_at(&l, 5, buf, sizeof(buf)), "b"));
	CHECK(!strcmp(layout_name_range(&l, 0, 8, buf, sizeof(buf)), "a|b"));
	layout_free(&l);
	CHECK(layout_from_btf(btf, "no_such_struct", &l, err, sizeof(err)) == -1);
	CHECK_STR_CONTAINS(err, "no struct or union 'no_such_struct'");
	btf__free(btf);
}

/*
 * One name per span for text views: the outermost member inside it, and
 * how many other members the span touches.
 */
static void test_short_names(void)
{
	struct btf *btf = build_btf();
	struct layout l;
	char err[128], buf[256];

	if (!btf || layout_from_btf(btf, "holder", &l, err, sizeof(err))) {
		CHECK(!"holder layout");
		btf__free(btf);
		return;
	}
	/* Every name of the lockref's 8 bytes is listed in full ... */
	layout_name_range(&l, 8, 8, buf, sizeof(buf));
	CHECK_STR_CONTAINS(buf, "d_lockref.lock_count");
	CHECK_STR_CONTAINS(buf, "d_lockref.count");
	/* ... and shown as the member holding them all. */
	CHECK(!strcmp(layout_short_range(&l, 8, 8, buf, sizeof(buf)), "d_lockref"));
	CHECK(!strcmp(layout_short_range(&l, 16, 4, buf, sizeof(buf)), "lock"));
	CHECK(!strcmp(layout_short_range(&l, 16, 8, buf, sizeof(buf)), "lock +1 more"));
	CHECK(!strcmp(layout_short_range(&l, 12, 4, buf, sizeof(buf)),
		      "d_lockref.lock_count +1 more"));
	CHECK(!strcmp(layout_short_range(&l, 0, 8, buf, sizeof(buf)), "x"));
	CHECK(!strcmp(layout_short_range(&l, 30, 8, buf, sizeof(buf)),
		      "(beyond the struct)"));
	layout_free(&l);
	CHECK(layout_from_btf(btf, "t", &l, err, sizeof(err)) == 0);
	CHECK(!strcmp(layout_short_range(&l, 16, 8, buf, sizeof(buf)), "in"));
	CHECK(!strcmp(layout_short_range(&l, 16, 4, buf, sizeof(buf)), "in.a"));
	CHECK(!strcmp(layout_short_range(&l, 32, 8, buf, sizeof(buf)),
		      "arr[8..9] +2 more"));
	CHECK(!strcmp(layout_short_range(&l, 12, 4, buf, sizeof(buf)), "(padding)"));
	layout_free(&l);
	btf__free(btf);
	/* From the names alone, as diff buckets keep them. */
	CHECK(!strcmp(names_short("a.b.c|a.b.d|a.e", buf, sizeof(buf)),
		      "a (3 names)"));
	CHECK(!strcmp(names_short("sk_lock.slock.rlock.raw_lock.val.counter|"
				  "sk_lock.slock.rlock.raw_lock.locked", buf,
				  sizeof(buf)),
		      "sk_lock.slock.rlock.raw_lock (2 names)"));
	CHECK(!strcmp(names_short("abc.d|abd.e", buf, sizeof(buf)),
		      "abc.d +1 more"));
	CHECK(!strcmp(names_short("f_op", buf, sizeof(buf)), "f_op"));
}

static void test_type_map(void)
{
	struct type_map m = { 0 };

	CHECK(!strcmp(type_map_lookup(&m, "skbuff_head_cache"), "sk_buff"));
	CHECK(!strcmp(type_map_lookup(&m, "TCP"), "tcp_sock"));
	CHECK(type_map_lookup(&m, "dentry") == NULL);
	CHECK(type_map_add(&m, "skbuff_head_cache=my_skb") == 0);
	CHECK(!strcmp(type_map_lookup(&m, "skbuff_head_cache"), "my_skb"));
	CHECK(type_map_add(&m, "=x") == -1);
	CHECK(type_map_add(&m, "nocolon") == -1);
	CHECK(type_map_add(&m, "a=") == -1);
	type_map_free(&m);
}

/* --module-dir: every module file below a directory, sorted. */
static void test_module_dir(void)
{
	char dir[] = "/tmp/dprof-test-modXXXXXX", path[128];
	static const char *const files[] = { "b.ko", "a.ko.xz", "notes.txt",
					     "sub/c.ko", "sub/d.ko.zst" };
	struct type_map m = { 0 };

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/sub", dir);
	CHECK(mkdir(path, 0700) == 0);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		f = fopen(path, "w");
		CHECK(f != NULL);
		if (f)
			fclose(f);
	}
	type_map_add_debug(&m, dir);
	CHECK_EQ_U64(m.nr_debug, 4);
	if (m.nr_debug == 4) {
		CHECK_STR_CONTAINS(m.debug[0], "/a.ko.xz");
		CHECK_STR_CONTAINS(m.debug[1], "/b.ko");
		CHECK_STR_CONTAINS(m.debug[2], "/sub/c.ko");
		CHECK_STR_CONTAINS(m.debug[3], "/sub/d.ko.zst");
	}
	type_map_free(&m);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/sub", dir);
	rmdir(path);
	rmdir(dir);
}

const struct unit_test layout_tests[] = {
	{ "layout_field_names_from_btf", test_names },
	{ "layout_one_short_name_per_span", test_short_names },
	{ "layout_cache_to_struct_map", test_type_map },
	{ "layout: --module-dir finds every module below", test_module_dir },
	{ NULL, NULL },
};

// SPDX-License-Identifier: GPL-2.0
/*
 * Cache-line groups from __cacheline_group_begin/end() markers: their
 * bytes, the lines they span against the fewest they could take, their
 * members, a nested struct's groups with its path; and the malformed
 * ones, a group that never ends or ends before it begins.
 */
#include <stdbool.h>
#include <string.h>
#include "harness.h"
#include "cachegroups.h"

static void add(struct layout *l, size_t *cap, const char *path,
		uint32_t off, uint32_t size)
{
	layout_add_field(l, cap, path, 1, off, size, 0, 0, 0);
}

/*
 * 192 bytes: "hot" holds a and b at 40..88 (48 bytes: 2 lines spanned,
 * 1 would do); the nested inner's "rx" holds c at 128..136.
 */
static void test_groups(void)
{
	struct layout l = { 0 };
	struct cache_groups g;
	size_t cap = 0;
	char err[200];

	add(&l, &cap, "first", 0, 40);
	add(&l, &cap, "__cacheline_group_begin__hot", 40, 0);
	add(&l, &cap, "a", 40, 8);
	add(&l, &cap, "b", 48, 40);
	add(&l, &cap, "__cacheline_group_end__hot", 88, 0);
	add(&l, &cap, "inner.__cacheline_group_begin__rx", 128, 0);
	add(&l, &cap, "inner.c", 128, 8);
	add(&l, &cap, "inner.__cacheline_group_end__rx", 136, 0);
	add(&l, &cap, "last", 136, 56);
	layout_finish(&l, "struct", "grouped", 192);
	CHECK(cache_groups_find(&l, 64, &g, err, sizeof(err)) == 0);
	CHECK_EQ_U64(g.n, 2);
	CHECK(!strcmp(g.g[0].name, "hot"));
	CHECK_EQ_U64(g.g[0].begin, 40);
	CHECK_EQ_U64(g.g[0].end, 88);
	CHECK_EQ_U64(g.g[0].members, 2);
	CHECK_EQ_U64(g.g[0].lines, 2);
	CHECK_EQ_U64(g.g[0].fewest, 1);
	CHECK(!strcmp(g.g[1].name, "inner.rx"));
	CHECK_EQ_U64(g.g[1].members, 1);
	CHECK_EQ_U64(g.g[1].lines, 1);
	cache_groups_free(&g);
	CHECK(cache_groups_find(&l, 128, &g, err, sizeof(err)) == 0);
	CHECK_EQ_U64(g.g[0].lines, 1);
	cache_groups_free(&g);
	layout_free(&l);
}

static int malformed(const char *second, uint32_t at, bool end_hot,
		     char *err, size_t len)
{
	struct layout l = { 0 };
	struct cache_groups g;
	size_t cap = 0;
	int ret;

	add(&l, &cap, "__cacheline_group_begin__hot", 8, 0);
	add(&l, &cap, "a", 8, 8);
	if (end_hot)
		add(&l, &cap, "__cacheline_group_end__hot", 16, 0);
	if (second)
		add(&l, &cap, second, at, 0);
	layout_finish(&l, "struct", "broken", 64);
	ret = cache_groups_find(&l, 64, &g, err, len);
	if (!ret)
		cache_groups_free(&g);
	layout_free(&l);
	return ret;
}

static void test_malformed(void)
{
	char err[200];

	CHECK(malformed(NULL, 0, false, err, sizeof(err)) == -1);
	CHECK(strstr(err, "group hot begins and never ends"));
	CHECK(malformed("__cacheline_group_end__hot", 0, false, err,
			sizeof(err)) == -1);
	CHECK(strstr(err, "group hot ends before it begins"));
	CHECK(malformed("__cacheline_group_end__cold", 24, true, err,
			sizeof(err)) == -1);
	CHECK(strstr(err, "group cold ends and never begins"));
	CHECK(malformed(NULL, 0, true, err, sizeof(err)) == 0);
}

const struct unit_test cachegroups_tests[] = {
	{ "cache-line groups: bytes, lines, members, nested", test_groups },
	{ "cache-line groups: malformed markers", test_malformed },
	{ NULL, NULL },
};

// SPDX-License-Identifier: GPL-2.0
/* sysfs/debugfs text parsers, on fixtures. */
#include <stdlib.h>
#include <sys/stat.h>
#include "harness.h"
#include "sysinfo.h"
#include "util.h"

static void test_cache_size(void)
{
	CHECK_EQ_U64(parse_cache_size("32K\n"), 32768);
	CHECK_EQ_U64(parse_cache_size("1M"), 1 << 20);
	CHECK_EQ_U64(parse_cache_size("512"), 512);
	CHECK_EQ_U64(parse_cache_size("K"), 0);
	CHECK_EQ_U64(parse_cache_size("12Q"), 0);
}

static void test_targets_text(void)
{
	struct dprof_file_target t[8];
	int bad = 0;

	CHECK(parse_targets("# index name object_size stride flags\n"
			    "0 skbuff_head_cache 232 256 0\n"
			    "1 kmalloc-1k 1024 1024 1\n", t, 8, &bad) == 2);
	CHECK(!strcmp(t[0].name, "skbuff_head_cache"));
	CHECK_EQ_U64(t[1].flags, DPROF_TARGET_KMALLOC);
	CHECK(parse_targets("0 a 8 8 0\n2 b 8 8 0\n", t, 8, &bad) == -1);
	CHECK_EQ_U64(bad, 2);	/* index out of sequence */
	CHECK(parse_targets("0 a 16 8 0\n", t, 8, &bad) == -1);	/* stride < size */
	CHECK(parse_targets("0 a 8 8 0 junk\n", t, 8, &bad) == -1);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* Cache geometry read from a sysfs fixture through DPROF_SYSFS. */
static void test_caches_from_fixture(void)
{
	static const char *const attrs[][2] = {
		{ "type", "Data\n" }, { "level", "1\n" }, { "size", "48K\n" },
		{ "ways_of_associativity", "12\n" },
		{ "coherency_line_size", "64\n" }, { "number_of_sets", "64\n" },
	};
	char root[] = "/tmp/dprof-sysfs-XXXXXX", dir[512], path[600];
	struct dprof_file_cache c[4];

	CHECK(mkdtemp(root) != NULL);
	snprintf(dir, sizeof(dir),
		 "mkdir -p %s/devices/system/cpu/cpu0/cache/index0", root);
	CHECK(system(dir) == 0);
	snprintf(dir, sizeof(dir), "%s/devices/system/cpu/cpu0/cache/index0",
		 root);
	for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, attrs[i][0]);
		write_file(path, attrs[i][1]);
	}
	setenv("DPROF_SYSFS", root, 1);
	CHECK(sysinfo_caches(c, 4) == 1);
	CHECK_EQ_U64(c[0].size, 48 * 1024);
	CHECK_EQ_U64(c[0].ways, 12);
	CHECK_EQ_U64(c[0].type, DPROF_CACHE_DATA);
	unsetenv("DPROF_SYSFS");
	snprintf(dir, sizeof(dir), "rm -rf %s", root);
	CHECK(system(dir) == 0);
}

static void test_durations(void)
{
	double s;

	CHECK(parse_duration("2.5s", &s) && s == 2.5);
	CHECK(parse_duration("300ms", &s) && s > 0.299 && s < 0.301);
	CHECK(parse_duration("10", &s) && s == 10);
	CHECK(!parse_duration("fast", &s));
	CHECK(!parse_duration("-1", &s));
	CHECK(!parse_duration("5h", &s));
}

const struct unit_test sysinfo_tests[] = {
	{ "sysinfo: cache sizes", test_cache_size },
	{ "sysinfo: debugfs targets text", test_targets_text },
	{ "sysinfo: caches from a sysfs fixture", test_caches_from_fixture },
	{ "util: durations", test_durations },
	{ NULL, NULL },
};

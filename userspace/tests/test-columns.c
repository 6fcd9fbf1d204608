// SPDX-License-Identifier: GPL-2.0
/*
 * The column table: one row written as text, --script and JSON from the
 * same cells, including the values a view does not know (null: JSON
 * null; absent: no JSON key) and a row whose JSON object the caller
 * fills further.
 */
#include <math.h>
#include <stdlib.h>
#include "columns.h"
#include "harness.h"

enum { C_NAME, C_N, C_PCT, C_X, C_GONE, C_TEXT_ONLY, NR_C };

static const struct column cols[NR_C] = {
	[C_NAME] = { "name", "name", 1, COL_STR, -6 },
	[C_N] = { "n", "n", 2, COL_UINT, 4 },
	[C_PCT] = { "share", NULL, 0, COL_PCT, 6, 1, C_N },
	[C_X] = { "x", "x", 3, COL_DOUBLE, 6, 1, 0, 2 },
	[C_GONE] = { "gone", "gone", 4, COL_UINT, 5 },
	[C_TEXT_ONLY] = { "", NULL, 0, COL_STR, 0, 2 },
};

/* Writes one row in @mode to a memory stream; returns it (free it). */
static char *write_row(enum table_mode mode, const struct cell *cells,
		       bool open)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json j;
	struct table t = { .cols = cols, .nr_cols = NR_C, .mode = mode,
			   .out = f, .j = &j, .tag = "row", .sep = "\t" };

	json_init(&j, f);
	if (mode == TABLE_JSON)
		json_array_begin(&j, NULL);
	table_header(&t);
	if (open) {
		table_row_open(&t, cells);
		json_uint(&j, "more", 7);
		table_row_close(&t);
	} else {
		table_row(&t, cells);
	}
	if (mode == TABLE_JSON) {
		json_array_end(&j);
		json_finish(&j);
	}
	fclose(f);
	return buf;
}

static void test_columns(void)
{
	struct cell c[NR_C] = {
		[C_NAME] = { .s = "alpha" },
		[C_N] = { .u = 40 },
		[C_PCT] = { .u = 10 },
		[C_X] = { .d = 2.5 },
		[C_GONE] = { .u = 99, .absent = true },
		[C_TEXT_ONLY] = { .text = "" },
	};
	char *s;

	s = write_row(TABLE_TEXT, c, false);
	/* Header and row align; the empty last column leaves no spaces. */
	CHECK(!strcmp(s, "name      n  share      x  gone\n"
			 "alpha    40  25.0%   2.50     -\n"));
	free(s);
	s = write_row(TABLE_SCRIPT, c, false);
	CHECK(!strcmp(s, "row\talpha\t40\t2.5\t-\n"));
	free(s);
	s = write_row(TABLE_JSON, c, true);
	CHECK_STR_CONTAINS(s, "\"name\": \"alpha\"");
	CHECK_STR_CONTAINS(s, "\"n\": 40");
	CHECK_STR_CONTAINS(s, "\"x\": 2.5");
	CHECK_STR_CONTAINS(s, "\"more\": 7");
	CHECK(!strstr(s, "gone"));
	CHECK(!strstr(s, "share"));
	free(s);

	/* Unknown values: null in JSON, "-" in script, the text given. */
	c[C_N].null = true;
	c[C_N].text = "est.";
	c[C_X].d = NAN;
	c[C_X].text = NULL;
	c[C_TEXT_ONLY].text = "(note)";
	s = write_row(TABLE_JSON, c, false);
	CHECK_STR_CONTAINS(s, "\"n\": null");
	CHECK_STR_CONTAINS(s, "\"x\": null");
	free(s);
	s = write_row(TABLE_SCRIPT, c, false);
	CHECK(!strcmp(s, "row\talpha\t-\tnan\t-\n"));
	free(s);
	s = write_row(TABLE_TEXT, c, false);
	CHECK_STR_CONTAINS(s, "alpha  est.");
	CHECK_STR_CONTAINS(s, "   nan     -  (note)\n");
	free(s);
}

/*
 * A value wider than its column (an offset of seven digits where six
 * were planned) pushes the row right; the spaces after it take that
 * back, so the row stays as wide as the header while they can.
 */
static void test_columns_overflow(void)
{
	struct cell c[NR_C] = {
		[C_NAME] = { .s = "alphabetagamma" },
		[C_N] = { .u = 40 },
		[C_PCT] = { .u = 10 },
		[C_X] = { .d = 2.5 },
		[C_GONE] = { .u = 9 },
		[C_TEXT_ONLY] = { .text = "" },
	};
	char *s = write_row(TABLE_TEXT, c, false);

	CHECK(!strcmp(s, "name      n  share      x  gone\n"
			 "alphabetagamma 40 25.0% 2.50  9\n"));
	free(s);
	/* More than the spaces can take: every word keeps one space. */
	c[C_NAME].s = "alphabetagammadeltaepsilon";
	s = write_row(TABLE_TEXT, c, false);
	CHECK_STR_CONTAINS(s, "\nalphabetagammadeltaepsilon 40 25.0% 2.50 9\n");
	free(s);
	/* A wide right-aligned value: the left-aligned name before it
	 * keeps its place, the columns after it give their spaces.
	 */
	c[C_NAME].s = "a";
	c[C_N].u = 1234567;
	s = write_row(TABLE_TEXT, c, false);
	CHECK_STR_CONTAINS(s, "\na      1234567 0.0%  2.50     9\n");
	free(s);
}

/* --help's --script words: the JSON keys in the line's order, wrapped. */
static void test_columns_script_help(void)
{
	char buf[128] = "lines:\n";

	table_script_help(buf, sizeof(buf), "row", cols, NR_C, 40);
	CHECK(!strcmp(buf, "lines:\n  row NAME N X GONE"));
	buf[0] = '\0';
	table_script_help(buf, sizeof(buf), "row", cols, NR_C, 12);
	CHECK(!strcmp(buf, "  row NAME N\n    X GONE"));
	/* A buffer too short is cut, not overrun, and ends in a NUL. */
	buf[0] = '\0';
	table_script_help(buf, 9, "row", cols, NR_C, 40);
	CHECK(!strcmp(buf, "  row NA"));
}

const struct unit_test columns_tests[] = {
	{ "columns: text, script and JSON from one table", test_columns },
	{ "columns: a wide value's overflow taken back", test_columns_overflow },
	{ "columns: --script's words for --help", test_columns_script_help },
	{ NULL, NULL },
};

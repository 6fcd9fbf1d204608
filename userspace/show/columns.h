/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One description of a view's rows drives its three outputs (perf c2c's
 * dimensions are the model): the text table, the --script line and the
 * JSON object, so that a column added or renamed in one cannot be
 * forgotten in the others.  A view fills one cell per column and row;
 * the table prints it in the mode asked for.
 */
#ifndef DPROF_COLUMNS_H
#define DPROF_COLUMNS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "json.h"

enum col_type {
	COL_STR,
	COL_UINT,
	/*
	 * A count shown in the text table as a percentage of another
	 * column's count (pct_of); --script and JSON keep the count.
	 */
	COL_PCT,
	/*
	 * A real number: the text table prints the cell's text when the
	 * view formatted it, else with @prec decimals; --script with %.6g;
	 * JSON null when it is not finite.
	 */
	COL_DOUBLE,
	/*
	 * A truth value (the cell's u, non-zero true): JSON true or false,
	 * --script 1 or 0, the text table "yes" or "no" unless the view
	 * formatted it.
	 */
	COL_BOOL,
	/*
	 * A list of small counts (the cell's list, n of them): a JSON array,
	 * comma-joined in the text table and --script.
	 */
	COL_LIST,
};

struct column {
	const char *head;	/* text header; NULL: not in the text table */
	const char *key;	/* JSON key; NULL: not in JSON */
	int script;		/* place in the --script line, 1 first; 0: not */
	enum col_type type;
	int width;		/* text: > 0 right-aligned, < 0 left, 0 free */
	int gap;		/* text: spaces before it (default 1) */
	int pct_of;		/* COL_PCT: the column it is a share of */
	int prec;		/* COL_DOUBLE: text decimals */
	bool wide;		/* text: only with -v (the table's wide) */
	const char *name;	/* --script help: the word when key is NULL */
};

/*
 * One value; @text, when set, replaces the value in the text table only.
 * A value not known is @null (JSON null, "-" in --script) or @absent (no
 * JSON key at all, "-" in --script); either way the text table prints
 * @text, else "-".
 */
struct cell {
	const char *s;
	const char *text;
	uint64_t u;
	double d;
	const uint16_t *list;	/* COL_LIST */
	int n;
	bool null, absent;
};

enum table_mode { TABLE_TEXT, TABLE_SCRIPT, TABLE_JSON };

struct table {
	const struct column *cols;
	int nr_cols;
	enum table_mode mode;
	FILE *out;
	struct json *j;		/* TABLE_JSON: rows are objects of its array */
	const char *tag;	/* TABLE_SCRIPT: first word of each line */
	const char *sep;	/* TABLE_SCRIPT: between words (" ") */
	const char *indent;	/* TABLE_TEXT: before each line */
	bool wide;		/* TABLE_TEXT: the wide columns too (-v) */
};

void table_header(const struct table *t);
/*
 * For --help: "  TAG WORD WORD ..." naming @cols' --script words in
 * their order (the JSON keys upper-cased, so the two cannot drift),
 * wrapped before @width with four spaces, appended to @buf (@len bytes).
 */
void table_script_help(char *buf, size_t len, const char *tag,
		       const struct column *cols, int nr_cols, int width);
void table_row(const struct table *t, const struct cell *cells);
/*
 * A row whose JSON object holds more than its cells (a type's fields):
 * table_row_open() writes it like table_row() but leaves the JSON object
 * open for the caller, who closes it with table_row_close().
 */
void table_row_open(const struct table *t, const struct cell *cells);
void table_row_close(const struct table *t);

#endif

// SPDX-License-Identifier: GPL-2.0
/* Text, --script and JSON rows from one column description (columns.h). */
#include <math.h>
#include <string.h>
#include "columns.h"

/* Spaces before a text column: none before the first one shown. */
static int gap_of(const struct column *c, bool first)
{
	return first ? 0 : c->gap ? c->gap : 1;
}

/* Whether the text table prints @c: it has a head, and -v if it is wide. */
static bool shown(const struct table *t, const struct column *c)
{
	return c->head && (!c->wide || t->wide);
}

void table_header(const struct table *t)
{
	bool first = true;

	if (t->mode != TABLE_TEXT)
		return;
	fputs(t->indent ? t->indent : "", t->out);
	for (int i = 0; i < t->nr_cols; i++) {
		const struct column *c = &t->cols[i];

		if (!shown(t, c) || (!c->width && !*c->head))
			continue;
		fprintf(t->out, "%*s%*s", gap_of(c, first), "", c->width,
			c->head);
		first = false;
	}
	fputc('\n', t->out);
}

/* "A,B,C" of a COL_LIST cell, cut at @len. */
static void list_text(const struct cell *v, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (int k = 0; k < v->n && at < len; k++)
		at += (size_t)snprintf(buf + at, len - at, "%s%u",
				       k ? "," : "", v->list[k]);
}

static const char *value_text(const struct column *c,
			      const struct cell *cells, int i, char *buf,
			      size_t len)
{
	const struct cell *v = &cells[i];

	if (v->text)
		return v->text;
	if (v->null || v->absent)
		return "-";
	switch (c->type) {
	case COL_STR:
		return v->s;
	case COL_UINT:
		snprintf(buf, len, "%llu", (unsigned long long)v->u);
		break;
	case COL_PCT: {
		uint64_t base = cells[c->pct_of].u;

		snprintf(buf, len, "%.1f%%",
			 base ? 100.0 * (double)v->u / (double)base : 0.0);
		break;
	}
	case COL_DOUBLE:
		snprintf(buf, len, "%.*f", c->prec, v->d);
		break;
	case COL_BOOL:
		return v->u ? "yes" : "no";
	case COL_LIST:
		list_text(v, buf, len);
		break;
	}
	return buf;
}

static void text_cell(const struct table *t, const struct column *c,
		      const struct cell *cells, int i, bool first)
{
	char buf[64];
	const char *s = value_text(c, cells, i, buf, sizeof(buf));

	/* An empty last word leaves no trailing spaces. */
	if (!c->width && !*s)
		return;
	fprintf(t->out, "%*s%*s", gap_of(c, first), "", c->width, s);
}

static void script_cell(const struct table *t, const struct column *c,
			const struct cell *v)
{
	if (v->null || v->absent)
		fputs("-", t->out);
	else if (c->type == COL_STR)
		fputs(v->s, t->out);
	else if (c->type == COL_DOUBLE)
		fprintf(t->out, "%.6g", v->d);
	else if (c->type == COL_BOOL)
		fputs(v->u ? "1" : "0", t->out);
	else if (c->type == COL_LIST) {
		for (int k = 0; k < v->n; k++)
			fprintf(t->out, "%s%u", k ? "," : "", v->list[k]);
	} else {
		fprintf(t->out, "%llu", (unsigned long long)v->u);
	}
}

static void json_cell(const struct table *t, const struct column *c,
		      const struct cell *v)
{
	if (v->absent)
		return;
	if (v->null || (c->type == COL_DOUBLE && !isfinite(v->d)))
		json_null(t->j, c->key);
	else if (c->type == COL_STR)
		json_string(t->j, c->key, v->s);
	else if (c->type == COL_DOUBLE)
		json_double(t->j, c->key, v->d);
	else if (c->type == COL_BOOL)
		json_bool(t->j, c->key, v->u != 0);
	else if (c->type == COL_LIST) {
		json_array_begin(t->j, c->key);
		for (int k = 0; k < v->n; k++)
			json_uint(t->j, NULL, v->list[k]);
		json_array_end(t->j);
	} else
		json_uint(t->j, c->key, v->u);
}

void table_row_open(const struct table *t, const struct cell *cells)
{
	bool first = true;

	switch (t->mode) {
	case TABLE_TEXT:
		fputs(t->indent ? t->indent : "", t->out);
		for (int i = 0; i < t->nr_cols; i++)
			if (shown(t, &t->cols[i])) {
				text_cell(t, &t->cols[i], cells, i, first);
				first = false;
			}
		fputc('\n', t->out);
		break;
	case TABLE_SCRIPT:
		if (t->tag) {
			fputs(t->tag, t->out);
			first = false;
		}
		for (int pos = 1; pos <= t->nr_cols; pos++)
			for (int i = 0; i < t->nr_cols; i++) {
				if (t->cols[i].script != pos)
					continue;
				fputs(first ? "" : t->sep ? t->sep : " ", t->out);
				first = false;
				script_cell(t, &t->cols[i], &cells[i]);
			}
		fputc('\n', t->out);
		break;
	case TABLE_JSON:
		json_object_begin(t->j, NULL);
		for (int i = 0; i < t->nr_cols; i++)
			if (t->cols[i].key)
				json_cell(t, &t->cols[i], &cells[i]);
		break;
	}
}

void table_row_close(const struct table *t)
{
	if (t->mode == TABLE_JSON)
		json_object_end(t->j);
}

void table_row(const struct table *t, const struct cell *cells)
{
	table_row_open(t, cells);
	table_row_close(t);
}

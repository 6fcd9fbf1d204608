// SPDX-License-Identifier: GPL-2.0
/* Text, --script and JSON rows from one column description (columns.h). */
#include <ctype.h>
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

void table_script_help(char *buf, size_t len, const char *tag,
		       const struct column *cols, int nr_cols, int width)
{
	size_t at = strlen(buf);
	int line = 2 + (int)strlen(tag);

	at += (size_t)snprintf(buf + at, at < len ? len - at : 0, "  %s", tag);
	for (int pos = 1; pos <= nr_cols; pos++)
		for (int i = 0; i < nr_cols; i++) {
			const char *w = cols[i].key ? cols[i].key :
					cols[i].name;
			int n;

			if (cols[i].script != pos || !w)
				continue;
			n = (int)strlen(w);
			if (line + 1 + n > width) {
				at += (size_t)snprintf(buf + at,
						       at < len ? len - at : 0,
						       "\n   ");
				line = 3;
			}
			for (int k = -1; k < n && at + 1 < len; k++)
				buf[at++] = k < 0 ? ' ' :
					    (char)toupper((unsigned char)w[k]);
			line += 1 + n;
		}
	if (at < len)
		buf[at] = '\0';
	else if (len)
		buf[len - 1] = '\0';
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

/*
 * A cell wider than its column pushes the rest of the row right by
 * @over columns; the spaces of the cells after it (beyond the one that
 * keeps two words apart) take that back, so one long value does not
 * make the line longer than the view's width.  Returns the new @over.
 */
static int text_cell(const struct table *t, const struct column *c,
		     const struct cell *cells, int i, bool first, int over)
{
	char buf[64];
	const char *s = value_text(c, cells, i, buf, sizeof(buf));
	int len = (int)strlen(s), width = c->width < 0 ? -c->width : c->width;
	int gap = gap_of(c, first), pad = width > len ? width - len : 0;
	int spare = (gap > 1 ? gap - 1 : 0) + pad, take, from_gap;

	/* An empty last word leaves no trailing spaces. */
	if (!c->width && !*s)
		return over;
	take = over < spare ? over : spare;
	over = over - take + (len > width ? len - width : 0);
	if (c->width >= 0) {
		fprintf(t->out, "%*s%s", gap + pad - take, "", s);
		return over;
	}
	/* Left-aligned: the gap gives way before the padding after it. */
	from_gap = take < gap - 1 ? take : (gap > 1 ? gap - 1 : 0);
	fprintf(t->out, "%*s%s%*s", gap - from_gap, "", s,
		pad - (take - from_gap), "");
	return over;
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
	int over = 0;

	switch (t->mode) {
	case TABLE_TEXT:
		fputs(t->indent ? t->indent : "", t->out);
		for (int i = 0; i < t->nr_cols; i++)
			if (shown(t, &t->cols[i])) {
				over = text_cell(t, &t->cols[i], cells, i,
						 first, over);
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

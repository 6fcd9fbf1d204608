// SPDX-License-Identifier: GPL-2.0
/* Text, --script and JSON rows from one column description (columns.h). */
#include <string.h>
#include "columns.h"

/* Spaces before a text column: none before the first one shown. */
static int gap_of(const struct column *c, bool first)
{
	return first ? 0 : c->gap ? c->gap : 1;
}

void table_header(const struct table *t)
{
	bool first = true;

	if (t->mode != TABLE_TEXT)
		return;
	fputs(t->indent ? t->indent : "", t->out);
	for (int i = 0; i < t->nr_cols; i++) {
		const struct column *c = &t->cols[i];

		if (!c->head)
			continue;
		fprintf(t->out, "%*s%*s", gap_of(c, first), "", c->width,
			c->head);
		first = false;
	}
	fputc('\n', t->out);
}

static void text_cell(const struct table *t, const struct column *c,
		      const struct cell *cells, int i, bool first)
{
	const struct cell *v = &cells[i];
	char buf[32];

	fprintf(t->out, "%*s", gap_of(c, first), "");
	switch (c->type) {
	case COL_STR:
		fprintf(t->out, "%*s", c->width, v->text ? v->text : v->s);
		break;
	case COL_UINT:
		fprintf(t->out, "%*llu", c->width, (unsigned long long)v->u);
		break;
	case COL_PCT: {
		uint64_t base = cells[c->pct_of].u;

		snprintf(buf, sizeof(buf), "%.1f%%",
			 base ? 100.0 * (double)v->u / (double)base : 0.0);
		fprintf(t->out, "%*s", c->width, buf);
		break;
	}
	}
}

void table_row(const struct table *t, const struct cell *cells)
{
	bool first = true;

	switch (t->mode) {
	case TABLE_TEXT:
		fputs(t->indent ? t->indent : "", t->out);
		for (int i = 0; i < t->nr_cols; i++)
			if (t->cols[i].head) {
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
				const struct column *c = &t->cols[i];

				if (c->script != pos)
					continue;
				fputs(first ? "" : " ", t->out);
				first = false;
				if (c->type == COL_STR)
					fputs(cells[i].s, t->out);
				else
					fprintf(t->out, "%llu",
						(unsigned long long)cells[i].u);
			}
		fputc('\n', t->out);
		break;
	case TABLE_JSON:
		json_object_begin(t->j, NULL);
		for (int i = 0; i < t->nr_cols; i++) {
			const struct column *c = &t->cols[i];

			if (!c->key)
				continue;
			if (c->type == COL_STR)
				json_string(t->j, c->key, cells[i].s);
			else
				json_uint(t->j, c->key, cells[i].u);
		}
		json_object_end(t->j);
		break;
	}
}

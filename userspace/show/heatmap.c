// SPDX-License-Identifier: GPL-2.0
/*
 * The cache-line heat map (see heatmap.h).  A profile row's weight is
 * spread evenly over its bytes (a watch sample names an 8-byte slot, not
 * the byte), and a box weighs what its bytes do, so rows and boxes need
 * not coincide.
 */
#include <stdlib.h>
#include <string.h>
#include "heatmap.h"
#include "util.h"

#define BYTE_W 14		/* px per byte */
#define ROW_H 44		/* px per cache line */
#define ROW_GAP 6
#define LEFT 120		/* px for "line N" */
#define FONT_W 6.1		/* px per character at font-size 10 */
#define TITLE_FONT_W 8.6	/* px per character at font-size 14, bold */
#define TYPE_HEAD 40		/* px above a type's first line: its title */
#define TYPE_TAIL 18		/* px below its last line */
#define LEGEND_H 54		/* px of the legend's two rows */

static void add_box(struct heat_type *h, size_t *cap, uint32_t off,
		    uint32_t size, const char *name, bool padding)
{
	struct heat_box *b;

	if (h->nr_boxes == *cap) {
		*cap = *cap ? *cap * 2 : 32;
		h->boxes = xrealloc(h->boxes, *cap * sizeof(*h->boxes));
	}
	b = &h->boxes[h->nr_boxes++];
	memset(b, 0, sizeof(*b));
	b->offset = off;
	b->size = size;
	b->padding = padding;
	b->names = xstrdup(name);
	b->name = xstrdup(name);
}

/* One more field in the last box: its names, and how many more. */
static void merge_name(struct heat_box *b, const char *name, unsigned int more)
{
	size_t n = strlen(b->names) + strlen(name) + 3;
	char *s = xmalloc(n), first[200];

	snprintf(s, n, "%s, %s", b->names, name);
	free(b->names);
	b->names = s;
	snprintf(first, sizeof(first), "%s", b->name);
	*strchrnul(first, ' ') = '\0';	/* drop an earlier " +N more" */
	free(b->name);
	n = strlen(first) + 24;
	b->name = xmalloc(n);
	snprintf(b->name, n, "%s +%u more", first, more);
}

/* Boxes from the struct: overlapping fields merge, holes are padding. */
static void layout_boxes(struct heat_type *h, const struct layout *l,
			 uint32_t object_size)
{
	uint32_t end = 0;
	unsigned int more = 0;
	size_t cap = 0;

	for (size_t i = 0; i < l->nr_fields; i++) {
		const struct layout_field *f = &l->fields[i];
		uint32_t fe = f->offset + (f->size ? f->size : 1);

		if (f->offset >= object_size)
			break;
		if (fe > object_size)
			fe = object_size;	/* a struct larger than the object */
		if (h->nr_boxes && f->offset < end) {
			merge_name(&h->boxes[h->nr_boxes - 1], f->path, ++more);
			if (fe > end) {
				end = fe;
				h->boxes[h->nr_boxes - 1].size =
					end - h->boxes[h->nr_boxes - 1].offset;
			}
			continue;
		}
		if (f->offset > end)
			add_box(h, &cap, end, f->offset - end, "(padding)", true);
		add_box(h, &cap, f->offset, fe - f->offset, f->path, false);
		end = fe;
		more = 0;
	}
	if (end < object_size)
		add_box(h, &cap, end, object_size - end,
			end >= l->size ? "(past the struct)" : "(padding)", true);
}

/* Without a struct: the profile's rows, and holes between them. */
static void row_boxes(struct heat_type *h, const struct profile_type *t)
{
	uint32_t end = 0;
	size_t cap = 0;

	for (size_t i = 0; i < t->nr_fields; i++) {
		const struct profile_field *f = &t->fields[i];
		uint32_t size = f->size ? f->size : 1;

		if (f->offset < end || f->offset >= t->object_size)
			continue;	/* rows of one slot overlap: first wins */
		if (size > t->object_size - f->offset)
			size = t->object_size - f->offset;
		if (f->offset > end)
			add_box(h, &cap, end, f->offset - end, "", true);
		add_box(h, &cap, f->offset, size, f->name, false);
		end = f->offset + size;
	}
	if (end < t->object_size)
		add_box(h, &cap, end, t->object_size - end, "", true);
}

static bool overlaps(uint32_t a, uint32_t alen, uint32_t b, uint32_t blen)
{
	return a < b + blen && b < a + alen;
}

void heat_build(const struct profile *p, const struct profile_type *t,
		const struct layout *l, const struct classify *c, int target,
		struct heat_type *h)
{
	uint32_t size = t->object_size ? t->object_size : 1;
	double *byte = xcalloc(size, sizeof(*byte));
	bool *field = xcalloc(size, sizeof(*field));

	memset(h, 0, sizeof(*h));
	h->t = t;
	if (l)
		layout_boxes(h, l, size);
	else
		row_boxes(h, t);
	for (size_t i = 0; i < h->nr_boxes; i++)
		for (uint32_t k = h->boxes[i].offset;
		     k < h->boxes[i].offset + h->boxes[i].size && k < size; k++)
			field[k] = !h->boxes[i].padding;
	/*
	 * A row's weight goes to the field bytes it covers: an 8-byte watch
	 * slot over a 4-byte field and a hole was an access to the field.
	 */
	for (size_t i = 0; i < t->nr_fields; i++) {
		const struct profile_field *f = &t->fields[i];
		uint32_t n = f->size ? f->size : 1, in = 0;
		double w = (double)(p->misses_measured ? f->misses : f->samples);

		for (uint32_t b = f->offset; b < f->offset + n && b < size; b++)
			in += field[b];
		for (uint32_t b = f->offset; b < f->offset + n && b < size; b++)
			if (field[b] || !in)
				byte[b] += w / (in ? in : n);
	}
	for (size_t i = 0; i < h->nr_boxes; i++) {
		struct heat_box *b = &h->boxes[i];
		uint64_t strongest = 0;

		for (uint32_t k = b->offset; k < b->offset + b->size && k < size; k++)
			b->weight += byte[k];
		h->total += b->weight;
		if (b->weight > h->max)
			h->max = b->weight;
		for (size_t k = 0; c && k < c->n; k++) {
			const struct classify_field *cf = &c->f[k];
			uint64_t misses = cf->true_sharing + cf->false_sharing +
					  cf->transfers;

			if (cf->target != target ||
			    !overlaps(b->offset, b->size, cf->offset, cf->len))
				continue;
			b->accesses += cf->accesses;
			/* Only decided labels outline a box. */
			if (heat_outlined(cf->label) && misses >= strongest) {
				strongest = misses;
				b->label = cf->label;
			}
		}
		h->labelled += heat_outlined(b->label);
	}
	/*
	 * A line's own label (classify -L): a hand-off is decided per line,
	 * from the lives that moved it, not per field, and is drawn beside
	 * the line, not on its fields (a read-mostly field on a line that
	 * moves once per life is labelled neither, and keeps it).
	 */
	h->nr_lines = (size + HEAT_LINE - 1) / HEAT_LINE;
	h->line_label = xcalloc(h->nr_lines, sizeof(*h->line_label));
	for (size_t k = 0; c && k < c->nl; k++)
		if (c->l[k].target == target && c->l[k].line < h->nr_lines &&
		    heat_outlined(c->l[k].label))
			h->line_label[c->l[k].line] = c->l[k].label;
	free(field);
	free(byte);
}

void heat_free(struct heat_type *h)
{
	for (size_t i = 0; i < h->nr_boxes; i++) {
		free(h->boxes[i].name);
		free(h->boxes[i].names);
	}
	free(h->boxes);
	free(h->line_label);
	memset(h, 0, sizeof(*h));
}

/* @s with XML's five special characters escaped. */
static void xml_text(FILE *out, const char *s, size_t max)
{
	for (size_t i = 0; s[i] && i < max; i++) {
		switch (s[i]) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break;
		default: fputc(s[i], out);
		}
	}
	if (strlen(s) > max)
		fputs("..", out);
}

/*
 * White (nothing) through orange to dark red (the box with most);
 * padding grey.
 */
static void shade(const struct heat_box *b, double max, char *buf, size_t len)
{
	static const int lo[3] = { 255, 255, 255 }, mid[3] = { 253, 174, 97 },
		hi[3] = { 189, 0, 38 };
	double x = max > 0 ? b->weight / max : 0;
	const int *a = x < 0.5 ? lo : mid, *z = x < 0.5 ? mid : hi;
	double u = x < 0.5 ? x * 2 : (x - 0.5) * 2;
	int rgb[3];

	if (b->padding && b->weight <= 0) {
		snprintf(buf, len, "#e8e8e8");
		return;
	}
	for (int i = 0; i < 3; i++)
		rgb[i] = (int)(a[i] + (z[i] - a[i]) * u + 0.5);
	snprintf(buf, len, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
}

static const char *label_color(enum classify_label l)
{
	return l == CLASSIFY_TRUE_SHARING ? "#6a3d9a" :
	       l == CLASSIFY_FALSE_SHARING ? "#1f78b4" :
	       l == CLASSIFY_HANDOFF ? "#e66101" : "#555555";
}

static const char *label_abbrev(enum classify_label l)
{
	return l == CLASSIFY_TRUE_SHARING ? "TS" :
	       l == CLASSIFY_FALSE_SHARING ? "FS" : "HO";
}

/* One box's part in one cache line. */
static void write_segment(FILE *out, const struct heat_type *h,
			  const struct heat_box *b, uint32_t from, uint32_t to,
			  double y, const char *what)
{
	double x = LEFT + (double)(from % HEAT_LINE) * BYTE_W;
	double w = (double)(to - from) * BYTE_W;
	size_t chars = w > 8 ? (size_t)((w - 6) / FONT_W) : 0;
	double share = h->total > 0 ? 100.0 * b->weight / h->total : 0;
	char fill[16];

	shade(b, h->max, fill, sizeof(fill));
	fprintf(out, "<g class=\"field\" data-offset=\"%u\" data-size=\"%u\" data-share=\"%.2f\" data-label=\"%s\">",
		b->offset, b->size, share, classify_label_name(b->label));
	fprintf(out, "<title>+%u, %u bytes: ", b->offset, b->size);
	xml_text(out, b->names, 2000);
	fprintf(out, "; %.1f%% of the type's %s", share, what);
	if (b->accesses)
		fprintf(out, "; %s over %llu history accesses",
			classify_label_name(b->label),
			(unsigned long long)b->accesses);
	fputs("</title>", out);
	fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\" stroke=\"%s\" stroke-width=\"%d\"/>",
		x, y, w, ROW_H, fill, label_color(b->label),
		heat_outlined(b->label) ? 3 : 1);
	if (chars >= 2 && !b->padding) {
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">", x + 3, y + 14);
		xml_text(out, b->name, chars);
		fputs("</text>", out);
	}
	if (chars >= 4 && b->weight > 0)
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">%.1f%%</text>",
			x + 3, y + 27, share);
	/* On the darkest shades the outline's colour would not read. */
	if (chars >= 2 && heat_outlined(b->label))
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\" font-weight=\"bold\">%s</text>",
			x + 3, y + 40, h->max > 0 && b->weight > 0.6 * h->max ?
			"white" : label_color(b->label),
			chars >= 13 ? classify_label_name(b->label) :
			label_abbrev(b->label));
	fputs("</g>\n", out);
}

static double write_type(FILE *out, const struct profile *p,
			 const struct heat_type *h, double y)
{
	const struct profile_type *t = h->t;
	uint32_t lines = (t->object_size + HEAT_LINE - 1) / HEAT_LINE;

	fprintf(out, "<text x=\"4\" y=\"%.1f\" font-size=\"14\" font-weight=\"bold\">", y + 16);
	xml_text(out, t->cache, 200);
	fputs(": ", out);
	xml_text(out, t->struct_name ? t->struct_name : "fields unnamed", 200);
	fprintf(out, ", %u bytes, %u cache lines</text>\n", t->object_size,
		lines);
	fprintf(out, "<text x=\"4\" y=\"%.1f\" fill=\"#444\">shaded by %s of %llu samples%s</text>\n",
		y + 30, p->misses_measured ? "the L1 misses" : "the accesses",
		(unsigned long long)t->samples,
		p->misses_measured ? "" :
		" (misses not measured: est.)");
	y += TYPE_HEAD;
	for (uint32_t line = 0; line < lines; line++) {
		double ly = y + line * (ROW_H + ROW_GAP);

		enum classify_label label = line < h->nr_lines ?
					    h->line_label[line] :
					    CLASSIFY_NEITHER;

		fprintf(out, "<g class=\"line\" data-line=\"%u\" data-label=\"%s\">",
			line, heat_outlined(label) ?
			classify_label_name(label) : "");
		fprintf(out, "<text x=\"4\" y=\"%.1f\">line %u</text><text x=\"4\" y=\"%.1f\" fill=\"#666\">bytes %u-%u</text>",
			ly + 14, line, ly + 27, line * HEAT_LINE,
			line * HEAT_LINE + HEAT_LINE - 1);
		if (heat_outlined(label))
			fprintf(out, "<text x=\"4\" y=\"%.1f\" fill=\"%s\" font-weight=\"bold\">%s</text>",
				ly + 40, label_color(label),
				classify_label_name(label));
		fputs("</g>\n", out);
	}
	for (size_t i = 0; i < h->nr_boxes; i++) {
		const struct heat_box *b = &h->boxes[i];
		uint32_t end = b->offset + b->size;

		for (uint32_t from = b->offset; from < end;) {
			uint32_t to = (from / HEAT_LINE + 1) * HEAT_LINE;

			if (to > end)
				to = end;
			write_segment(out, h, b, from, to,
				      y + (from / HEAT_LINE) * (ROW_H + ROW_GAP),
				      p->misses_measured ? "misses" :
				      "sampled accesses");
			from = to;
		}
	}
	return y + lines * (ROW_H + ROW_GAP) + TYPE_TAIL;
}

/* What the title of @h needs, at its font: the picture widens to it. */
static double title_width(const struct heat_type *h)
{
	const struct profile_type *t = h->t;
	const char *s = t->struct_name ? t->struct_name : "fields unnamed";

	/* ": " and ", NNNN bytes, NN cache lines" */
	return 4 + (strlen(t->cache) + strlen(s) + 32) * TITLE_FONT_W + 10;
}

static double write_legend(FILE *out, double y)
{
	static const double stops[] = { 0, 0.25, 0.5, 0.75, 1 };
	struct heat_box b = { 0 };
	char fill[16];

	fprintf(out, "<text x=\"4\" y=\"%.1f\">share of the box with most:</text>\n", y + 14);
	for (size_t i = 0; i < sizeof(stops) / sizeof(stops[0]); i++) {
		b.weight = stops[i];
		shade(&b, 1, fill, sizeof(fill));
		fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"40\" height=\"18\" fill=\"%s\" stroke=\"#555555\"/><text x=\"%.1f\" y=\"%.1f\">%.0f%%</text>\n",
			LEFT + 80 + i * 80.0, y + 1, fill, LEFT + 124 + i * 80.0,
			y + 14, stops[i] * 100);
	}
	fprintf(out, "<rect x=\"%d\" y=\"%.1f\" width=\"40\" height=\"18\" fill=\"#e8e8e8\" stroke=\"#555555\"/><text x=\"%d\" y=\"%.1f\">padding</text>\n",
		LEFT + 500, y + 1, LEFT + 544, y + 14);
	/* The labels' outlines on a row of their own, under the shades. */
	y += 24;
	fprintf(out, "<text x=\"4\" y=\"%.1f\">outlined by label:</text>\n", y + 14);
	fprintf(out, "<rect x=\"%d\" y=\"%.1f\" width=\"40\" height=\"18\" fill=\"white\" stroke=\"%s\" stroke-width=\"3\"/><text x=\"%d\" y=\"%.1f\">true sharing</text>\n",
		LEFT + 80, y + 1, label_color(CLASSIFY_TRUE_SHARING),
		LEFT + 124, y + 14);
	fprintf(out, "<rect x=\"%d\" y=\"%.1f\" width=\"40\" height=\"18\" fill=\"white\" stroke=\"%s\" stroke-width=\"3\"/><text x=\"%d\" y=\"%.1f\">false sharing</text>\n",
		LEFT + 240, y + 1, label_color(CLASSIFY_FALSE_SHARING),
		LEFT + 284, y + 14);
	fprintf(out, "<rect x=\"%d\" y=\"%.1f\" width=\"40\" height=\"18\" fill=\"white\" stroke=\"%s\" stroke-width=\"3\"/><text x=\"%d\" y=\"%.1f\">handoff</text>\n",
		LEFT + 400, y + 1, label_color(CLASSIFY_HANDOFF),
		LEFT + 444, y + 14);
	fprintf(out, "<text x=\"%d\" y=\"%.1f\" fill=\"#444\">a line's own label: under its bytes</text>\n",
		LEFT + 540, y + 14);
	return y + 30;
}

void heat_write_svg(FILE *out, const struct profile *p,
		    const struct heat_type *h, size_t n)
{
	double height = 4 + LEGEND_H, width = LEFT + HEAT_LINE * BYTE_W + 10, y;

	for (size_t i = 0; i < n; i++) {
		height += TYPE_HEAD + TYPE_TAIL +
			  (h[i].t->object_size + HEAT_LINE - 1) / HEAT_LINE *
			  (ROW_H + ROW_GAP);
		if (title_width(&h[i]) > width)
			width = title_width(&h[i]);
	}
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"monospace\" font-size=\"10\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		width, height);
	y = 4;
	for (size_t i = 0; i < n; i++)
		y = write_type(out, p, &h[i], y);
	write_legend(out, y);
	fputs("</svg>\n", out);
}

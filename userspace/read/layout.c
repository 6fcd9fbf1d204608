// SPDX-License-Identifier: GPL-2.0
/*
 * Struct layouts (see layout.h): the model the loaders fill
 * (layout-btf.c, layout-dwarf.c), one leaf field at a time, and the
 * naming of byte ranges by the fields that cover them.  Padding is what
 * no leaf covers, so it needs no bookkeeping of its own.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "layout.h"
#include "util.h"

void layout_add_field(struct layout *l, size_t *cap, const char *path,
		      uint32_t type_id, uint32_t offset, uint32_t size,
		      uint32_t elem_size, uint32_t bit_off, uint32_t bit_size)
{
	struct layout_field *lf;

	if (l->nr_fields == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		l->fields = xrealloc(l->fields, *cap * sizeof(*l->fields));
	}
	lf = &l->fields[l->nr_fields++];
	lf->offset = offset;
	lf->size = size;
	lf->elem_size = elem_size;
	lf->bit_offset = bit_off;
	lf->bit_size = bit_size;
	lf->type_id = type_id;
	lf->align = 0;
	lf->path = xstrdup(path);
}

char *layout_join(const char *prefix, const char *name)
{
	size_t n = strlen(prefix) + strlen(name) + 2;
	char *s = xmalloc(n);

	snprintf(s, n, "%s%s%s", prefix, *prefix && *name ? "." : "", name);
	return text_printable(s);
}

static int by_offset(const void *a, const void *b)
{
	const struct layout_field *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	/* qsort is not stable: the members' order breaks ties. */
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void layout_finish(struct layout *out, const char *kind, const char *name,
		   uint32_t size)
{
	for (size_t i = 0; i < out->nr_fields; i++) {
		out->fields[i].seq = (uint32_t)i;
		if (out->fields[i].size > out->max_field_size)
			out->max_field_size = out->fields[i].size;
	}
	if (out->nr_fields)
		qsort(out->fields, out->nr_fields, sizeof(*out->fields),
		      by_offset);
	out->size = size;
	out->name = xmalloc(strlen(kind) + strlen(name) + 2);
	sprintf(out->name, "%s %s", kind, name);
	text_printable(out->name);
}

void layout_free(struct layout *l)
{
	size_t i;

	for (i = 0; i < l->nr_fields; i++)
		free(l->fields[i].path);
	free(l->fields);
	free(l->name);
	memset(l, 0, sizeof(*l));
}

static void append(char *buf, size_t len, size_t *pos, const char *s)
{
	int n = snprintf(buf + *pos, len - *pos, "%s", s);

	if (n > 0)
		*pos = *pos + (size_t)n < len ? *pos + (size_t)n : len - 1;
}

/* Fields [*first, *end) are the only ones that can overlap [lo_off, hi_off]. */
static void candidates(const struct layout *l, uint32_t lo_off,
		       uint32_t hi_off, size_t *first, size_t *end)
{
	size_t lo = 0, hi = l->nr_fields;
	uint32_t from;

	/* The first field starting after hi_off bounds the candidates. */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (l->fields[mid].offset <= hi_off)
			lo = mid + 1;
		else
			hi = mid;
	}
	/*
	 * Fields starting before lo_off may still cover it (a union's longer
	 * member, an array), but none starting more than the largest field's
	 * size before it.
	 */
	from = lo_off + 1 > l->max_field_size ?
	       lo_off + 1 - l->max_field_size : 0;
	*end = lo;
	*first = 0;
	hi = lo;
	while (*first < hi) {
		size_t mid = (*first + hi) / 2;

		if (l->fields[mid].offset < from)
			*first = mid + 1;
		else
			hi = mid;
	}
}

static bool covers(const struct layout_field *f, uint32_t off)
{
	return off >= f->offset && off < f->offset + f->size;
}

const struct layout_field *layout_field_at(const struct layout *l,
					   uint32_t off)
{
	const struct layout_field *best = NULL;
	size_t i, first, end;

	candidates(l, off, off, &first, &end);
	for (i = first; i < end; i++)
		if (covers(&l->fields[i], off) &&
		    (!best || l->fields[i].seq < best->seq))
			best = &l->fields[i];
	return best;
}

static const char *last_component(const char *path)
{
	const char *dot = strrchr(path, '.');

	return dot ? dot + 1 : path;
}

/*
 * Was this member already listed for this range under another path?  The
 * kernel's struct_group() declares every member twice, in an anonymous
 * struct and in a named one (sk_buff's "headers"), unioned: "pkt_type"
 * and "headers.pkt_type" are the same bytes, name and type (unlike
 * "next" and "list.next", which only share a name).
 */
static bool listed(const struct layout *l, size_t first, size_t i,
		   uint32_t off, uint32_t len)
{
	const struct layout_field *f = &l->fields[i];

	for (size_t k = first; k < i; k++) {
		const struct layout_field *g = &l->fields[k];

		if (g->offset + g->size > off && g->offset < off + len &&
		    g->offset == f->offset && g->size == f->size &&
		    g->type_id == f->type_id && g->bit_size == f->bit_size &&
		    g->bit_offset == f->bit_offset &&
		    !strcmp(last_component(g->path), last_component(f->path)))
			return true;
	}
	return false;
}

const char *layout_name_range(const struct layout *l, uint32_t off,
			      uint32_t n, char *buf, size_t len)
{
	size_t i, first, end, pos = 0;
	int found = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	if (off >= l->size) {
		snprintf(buf, len, "(beyond the struct)");
		return buf;
	}
	if (!n)
		n = 1;
	if (off + n > l->size)
		n = l->size - off;
	candidates(l, off, off + n - 1, &first, &end);
	for (i = first; i < end; i++) {
		const struct layout_field *f = &l->fields[i];
		uint32_t from = f->offset > off ? f->offset : off;
		char idx[32];

		if (!f->size || f->offset >= off + n ||
		    f->offset + f->size <= off || listed(l, first, i, off, n))
			continue;
		if (found++)
			append(buf, len, &pos, "|");
		append(buf, len, &pos, f->path);
		if (f->elem_size && f->size > f->elem_size) {
			uint32_t a = (from - f->offset) / f->elem_size;
			uint32_t b = (off + n - 1 < f->offset + f->size - 1 ?
				      off + n - 1 : f->offset + f->size - 1);

			b = (b - f->offset) / f->elem_size;
			if (a == b)
				snprintf(idx, sizeof(idx), "[%u]", a);
			else
				snprintf(idx, sizeof(idx), "[%u..%u]", a, b);
			append(buf, len, &pos, idx);
		}
	}
	if (!found)
		snprintf(buf, len, "(padding)");
	return buf;
}

/* @f's path, with the elements of [off, off + n) when it is an array. */
static void leaf_name(const struct layout_field *f, uint32_t off, uint32_t n,
		      char *buf, size_t len)
{
	uint32_t from = f->offset > off ? f->offset : off;
	uint32_t last = off + n - 1 < f->offset + f->size - 1 ?
			off + n - 1 : f->offset + f->size - 1;

	if (!f->elem_size || f->size <= f->elem_size) {
		snprintf(buf, len, "%s", f->path);
		return;
	}
	from = (from - f->offset) / f->elem_size;
	last = (last - f->offset) / f->elem_size;
	if (from == last)
		snprintf(buf, len, "%s[%u]", f->path, from);
	else
		snprintf(buf, len, "%s[%u..%u]", f->path, from, last);
}

/* Where the member @path[0, plen) lies: the span of its leaves. */
static void member_extent(const struct layout *l, const char *path,
			  size_t plen, uint32_t *from, uint32_t *to)
{
	*from = UINT32_MAX;
	*to = 0;
	for (size_t i = 0; i < l->nr_fields; i++) {
		const struct layout_field *f = &l->fields[i];

		if (strncmp(f->path, path, plen) ||
		    (f->path[plen] && f->path[plen] != '.'))
			continue;
		if (f->offset < *from)
			*from = f->offset;
		if (f->offset + f->size > *to)
			*to = f->offset + f->size;
	}
}

/*
 * The outermost member of @f's path that lies wholly in [off, off + n):
 * "d_lockref" for any of a lockref's seven leaves in its 8 bytes.  0 when
 * not even the leaf does (an array or a field larger than the span).
 */
static size_t outermost_within(const struct layout *l,
			       const struct layout_field *f, uint32_t off,
			       uint32_t n)
{
	for (size_t k = 1; ; k++) {
		uint32_t from, to;

		if (f->path[k] && f->path[k] != '.')
			continue;
		member_extent(l, f->path, k, &from, &to);
		if (from >= off && to <= off + n)
			return k;
		if (!f->path[k])
			return 0;
	}
}

const char *layout_short_range(const struct layout *l, uint32_t off,
			       uint32_t n, char *buf, size_t len)
{
	/* A slot of bitfields touches dozens of members: room for them all. */
	char names[64][128], name[128];
	size_t i, start, end, distinct = 0;

	if (!len)
		return buf;
	if (off >= l->size)
		return layout_name_range(l, off, n, buf, len);
	if (!n)
		n = 1;
	if (off + n > l->size)
		n = l->size - off;
	candidates(l, off, off + n - 1, &start, &end);
	for (i = start; i < end; i++) {
		const struct layout_field *f = &l->fields[i];
		size_t k, m;

		if (!f->size || f->offset >= off + n ||
		    f->offset + f->size <= off || listed(l, start, i, off, n))
			continue;
		k = outermost_within(l, f, off, n);
		if (k)
			snprintf(name, sizeof(name), "%.*s", (int)k, f->path);
		else	/* larger than the span: the leaf, arrays indexed */
			leaf_name(f, off, n, name, sizeof(name));
		for (m = 0; m < distinct && m < 64; m++)
			if (!strcmp(names[m], name))
				break;
		if (m < distinct && m < 64)
			continue;	/* another leaf of the same member */
		if (distinct < 64)
			memcpy(names[distinct], name, sizeof(name));
		distinct++;
	}
	if (!distinct)
		return layout_name_range(l, off, n, buf, len);
	if (distinct == 1)
		snprintf(buf, len, "%s", names[0]);
	else
		snprintf(buf, len, "%s +%zu more", names[0], distinct - 1);
	return buf;
}

const char *names_short(const char *list, char *buf, size_t len)
{
	const char *bar = strchr(list, '|'), *alt;
	size_t common, names = 1;

	if (!bar) {
		snprintf(buf, len, "%s", list);
		return buf;
	}
	common = (size_t)(bar - list);
	for (alt = bar + 1; ; alt = bar + 1) {
		size_t k = 0, n;

		bar = strchr(alt, '|');
		n = bar ? (size_t)(bar - alt) : strlen(alt);
		names++;
		while (k < common && k < n && list[k] == alt[k])
			k++;
		/* back to a member boundary of both */
		if (!((k == common || list[k] == '.') && (k == n || alt[k] == '.')))
			while (k && list[k] != '.')
				k--;
		common = k;
		if (!bar)
			break;
	}
	if (common)
		snprintf(buf, len, "%.*s (%zu names)", (int)common, list, names);
	else	/* nothing shared: the first, and how many others */
		snprintf(buf, len, "%.*s +%zu more",
			 (int)(strchr(list, '|') - list), list, names - 1);
	return buf;
}

const char *layout_name_at(const struct layout *l, uint32_t off, char *buf,
			   size_t len)
{
	return layout_name_range(l, off, 1, buf, len);
}

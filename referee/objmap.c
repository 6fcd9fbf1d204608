// SPDX-License-Identifier: GPL-2.0
/*
 * Live objects by cache line (objmap.h): a table from each 64-byte line
 * to the objects overlapping it (a chain of references, since up to
 * eight 8-byte objects share a line), and a pool of objects.  Lines are
 * never deleted from the table, only emptied: slab memory is bounded, so
 * is the table.
 */
#include <stdlib.h>
#include <string.h>
#include "objmap.h"

#define NIL	UINT32_MAX
#define LINE	64

struct obj {
	uint64_t base;
	uint32_t size, cache;
	uint32_t next_free;
};

struct ref {
	uint32_t obj, next;
};

struct line_slot {
	uint64_t key;		/* line + 1; 0 empty */
	uint32_t head;		/* first ref, NIL when none */
};

struct objmap {
	struct line_slot *lines;
	uint64_t nr_lines, used_lines;
	struct obj *objs;
	uint32_t nr_objs, cap_objs, free_obj;
	struct ref *refs;
	uint32_t nr_refs, cap_refs, free_ref;
	uint64_t live, replaced;
};

static uint64_t hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

struct objmap *objmap_new(void)
{
	struct objmap *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->nr_lines = 1 << 20;
	m->lines = calloc(m->nr_lines, sizeof(*m->lines));
	m->free_obj = NIL;
	m->free_ref = NIL;
	if (!m->lines) {
		free(m);
		return NULL;
	}
	return m;
}

void objmap_free(struct objmap *m)
{
	if (!m)
		return;
	free(m->lines);
	free(m->objs);
	free(m->refs);
	free(m);
}

static struct line_slot *slot_in(struct line_slot *t, uint64_t n,
				 uint64_t line)
{
	uint64_t i = hash64(line) & (n - 1);

	while (t[i].key && t[i].key != line + 1)
		i = (i + 1) & (n - 1);
	return &t[i];
}

static const struct line_slot *line_find(const struct objmap *m,
					 uint64_t line)
{
	const struct line_slot *s = slot_in(m->lines, m->nr_lines, line);

	return s->key ? s : NULL;
}

static struct line_slot *line_get(struct objmap *m, uint64_t line)
{
	struct line_slot *s;

	if ((m->used_lines + 1) * 10 > m->nr_lines * 7) {
		uint64_t n = m->nr_lines * 2, i;
		struct line_slot *t = calloc(n, sizeof(*t));

		if (!t)
			return NULL;
		for (i = 0; i < m->nr_lines; i++)
			if (m->lines[i].key)
				*slot_in(t, n, m->lines[i].key - 1) = m->lines[i];
		free(m->lines);
		m->lines = t;
		m->nr_lines = n;
	}
	s = slot_in(m->lines, m->nr_lines, line);
	if (!s->key) {
		s->key = line + 1;
		s->head = NIL;
		m->used_lines++;
	}
	return s;
}

/* Pools grow by doubling; NIL without memory. */
static uint32_t new_obj(struct objmap *m)
{
	uint32_t i = m->free_obj;

	if (i != NIL) {
		m->free_obj = m->objs[i].next_free;
		return i;
	}
	if (m->nr_objs == m->cap_objs) {
		uint32_t cap = m->cap_objs ? m->cap_objs * 2 : 4096;
		struct obj *o = realloc(m->objs, cap * sizeof(*o));

		if (!o)
			return NIL;
		m->objs = o;
		m->cap_objs = cap;
	}
	return m->nr_objs++;
}

static uint32_t new_ref(struct objmap *m)
{
	uint32_t i = m->free_ref;

	if (i != NIL) {
		m->free_ref = m->refs[i].next;
		return i;
	}
	if (m->nr_refs == m->cap_refs) {
		uint32_t cap = m->cap_refs ? m->cap_refs * 2 : 16384;
		struct ref *r = realloc(m->refs, cap * sizeof(*r));

		if (!r)
			return NIL;
		m->refs = r;
		m->cap_refs = cap;
	}
	return m->nr_refs++;
}

static void unlink_obj(struct objmap *m, uint32_t o)
{
	uint64_t line, first = m->objs[o].base / LINE;
	uint64_t last = (m->objs[o].base + m->objs[o].size - 1) / LINE;

	for (line = first; line <= last; line++) {
		struct line_slot *s = slot_in(m->lines, m->nr_lines, line);
		uint32_t *p = &s->head;

		while (s->key && *p != NIL) {
			if (m->refs[*p].obj == o) {
				uint32_t r = *p;

				*p = m->refs[r].next;
				m->refs[r].next = m->free_ref;
				m->free_ref = r;
				break;
			}
			p = &m->refs[*p].next;
		}
	}
	m->objs[o].next_free = m->free_obj;
	m->free_obj = o;
	m->live--;
}

static uint32_t find_obj(const struct objmap *m, uint64_t addr)
{
	const struct line_slot *s = line_find(m, addr / LINE);
	uint32_t r;

	for (r = s ? s->head : NIL; r != NIL; r = m->refs[r].next) {
		const struct obj *o = &m->objs[m->refs[r].obj];

		if (addr >= o->base && addr - o->base < o->size)
			return m->refs[r].obj;
	}
	return NIL;
}

bool objmap_insert(struct objmap *m, uint64_t base, uint32_t size,
		   uint32_t cache)
{
	uint64_t line, first, last;
	uint32_t o;

	if (!size)
		size = 1;
	first = base / LINE;
	last = (base + size - 1) / LINE;
	/* Whatever still overlaps was freed unseen. */
	for (line = first; line <= last; line++) {
		const struct line_slot *s;
		uint32_t r;
again:
		s = line_find(m, line);
		for (r = s ? s->head : NIL; r != NIL; r = m->refs[r].next) {
			const struct obj *x = &m->objs[m->refs[r].obj];

			if (x->base < base + size && base < x->base + x->size) {
				unlink_obj(m, m->refs[r].obj);
				m->replaced++;
				goto again;
			}
		}
	}
	o = new_obj(m);
	if (o == NIL)
		return false;
	m->objs[o].base = base;
	m->objs[o].size = size;
	m->objs[o].cache = cache;
	for (line = first; line <= last; line++) {
		struct line_slot *s = line_get(m, line);
		uint32_t r = new_ref(m);

		if (!s || r == NIL)
			return false;
		m->refs[r].obj = o;
		m->refs[r].next = s->head;
		s->head = r;
	}
	m->live++;
	return true;
}

bool objmap_remove(struct objmap *m, uint64_t base)
{
	uint32_t o = find_obj(m, base);

	if (o == NIL || m->objs[o].base != base)
		return false;
	unlink_obj(m, o);
	return true;
}

bool objmap_find(const struct objmap *m, uint64_t addr, uint32_t *cache,
		 uint64_t *base)
{
	uint32_t o = find_obj(m, addr);

	if (o == NIL)
		return false;
	*cache = m->objs[o].cache;
	*base = m->objs[o].base;
	return true;
}

uint64_t objmap_live(const struct objmap *m)
{
	return m->live;
}

uint64_t objmap_replaced(const struct objmap *m)
{
	return m->replaced;
}

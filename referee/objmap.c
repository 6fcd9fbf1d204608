// SPDX-License-Identifier: GPL-2.0
/*
 * Live objects by cache line (objmap.h): a table (table.c) from each
 * 64-byte line to the objects overlapping it (a chain of references, since up to
 * eight 8-byte objects share a line), and a pool of objects.  Lines are
 * never deleted from the table, only emptied: slab memory is bounded, so
 * is the table.
 */
#include <stdlib.h>
#include <string.h>
#include "objmap.h"
#include "table.h"

#define NIL	UINT32_MAX
#define LINE	64

struct obj {
	uint64_t base;
	uint32_t size, cache;
	uint32_t next_free;
	bool live;
	bool own;		/* the profiler's: left out (objmap_set_own) */
	uint64_t since;		/* the life's start in the window */
	uint64_t lines;		/* touched in it, bit i: base's line + i */
};

/* A cache's occupancy sums (objmap.h). */
struct occupancy {
	double obj_ns, line_ns;
	bool seen;
};

struct ref {
	uint32_t obj, next;
};

struct line_slot {
	uint64_t key;		/* the table's key: line + 1 */
	uint32_t head;		/* first ref + 1; 0 when none */
};

struct objmap {
	struct table lines;	/* of struct line_slot */
	struct obj *objs;
	uint32_t nr_objs, cap_objs, free_obj;
	struct ref *refs;
	uint32_t nr_refs, cap_refs, free_ref;
	uint64_t live, replaced;
	struct occupancy *occ;	/* by cache */
	uint32_t nr_occ;
	bool window;		/* occupancy window open */
};

struct objmap *objmap_new(void)
{
	struct objmap *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->free_obj = NIL;
	m->free_ref = NIL;
	if (table_init(&m->lines, sizeof(struct line_slot), 1 << 20)) {
		free(m);
		return NULL;
	}
	return m;
}

void objmap_free(struct objmap *m)
{
	if (!m)
		return;
	table_free(&m->lines);
	free(m->occ);
	free(m->objs);
	free(m->refs);
	free(m);
}

/* The first reference of @line's chain, NIL when none. */
static uint32_t line_head(const struct objmap *m, uint64_t line)
{
	const struct line_slot *s = table_find(&m->lines, line);

	return s && s->head ? s->head - 1 : NIL;
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

/* Credits @o's cache with its life in the window up to @now. */
static void close_life(struct objmap *m, struct obj *o, uint64_t now)
{
	struct occupancy *c = &m->occ[o->cache];
	double dt = now > o->since ? (double)(now - o->since) : 0;

	if (o->own)
		return;
	c->seen = true;
	c->obj_ns += dt;
	c->line_ns += dt * __builtin_popcountll(o->lines);
}

static void unlink_obj(struct objmap *m, uint32_t o, uint64_t now)
{
	uint64_t line, first = m->objs[o].base / LINE;
	uint64_t last = (m->objs[o].base + m->objs[o].size - 1) / LINE;

	if (m->window)
		close_life(m, &m->objs[o], now);

	for (line = first; line <= last; line++) {
		struct line_slot *s = table_find(&m->lines, line);
		uint32_t prev = NIL, r = s && s->head ? s->head - 1 : NIL;

		for (; r != NIL; prev = r, r = m->refs[r].next) {
			if (m->refs[r].obj != o)
				continue;
			if (prev == NIL)
				s->head = m->refs[r].next == NIL ? 0 :
					  m->refs[r].next + 1;
			else
				m->refs[prev].next = m->refs[r].next;
			m->refs[r].next = m->free_ref;
			m->free_ref = r;
			break;
		}
	}
	m->objs[o].next_free = m->free_obj;
	m->objs[o].live = false;
	m->free_obj = o;
	m->live--;
}

static uint32_t find_obj(const struct objmap *m, uint64_t addr)
{
	uint32_t r;

	for (r = line_head(m, addr / LINE); r != NIL; r = m->refs[r].next) {
		const struct obj *o = &m->objs[m->refs[r].obj];

		if (addr >= o->base && addr - o->base < o->size)
			return m->refs[r].obj;
	}
	return NIL;
}

/* Room for @cache's occupancy sums. */
static bool occ_room(struct objmap *m, uint32_t cache)
{
	uint32_t n = m->nr_occ ? m->nr_occ : 64;
	struct occupancy *c;

	if (cache < m->nr_occ)
		return true;
	while (n <= cache)
		n *= 2;
	c = realloc(m->occ, n * sizeof(*c));
	if (!c)
		return false;
	memset(c + m->nr_occ, 0, (n - m->nr_occ) * sizeof(*c));
	m->occ = c;
	m->nr_occ = n;
	return true;
}

bool objmap_insert(struct objmap *m, uint64_t base, uint32_t size,
		   uint32_t cache, uint64_t now)
{
	uint64_t line, first, last;
	uint32_t o;

	if (!size)
		size = 1;
	if (!occ_room(m, cache))
		return false;
	first = base / LINE;
	last = (base + size - 1) / LINE;
	/* Whatever still overlaps was freed unseen. */
	for (line = first; line <= last; line++) {
		uint32_t r;
again:
		for (r = line_head(m, line); r != NIL; r = m->refs[r].next) {
			const struct obj *x = &m->objs[m->refs[r].obj];

			if (x->base < base + size && base < x->base + x->size) {
				unlink_obj(m, m->refs[r].obj, now);
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
	m->objs[o].live = true;
	m->objs[o].own = false;
	m->objs[o].since = now;
	m->objs[o].lines = 0;
	for (line = first; line <= last; line++) {
		struct line_slot *s = table_get(&m->lines, line);
		uint32_t r = new_ref(m);

		if (!s || r == NIL)
			return false;
		m->refs[r].obj = o;
		m->refs[r].next = s->head ? s->head - 1 : NIL;
		s->head = r + 1;
	}
	m->live++;
	return true;
}

bool objmap_remove(struct objmap *m, uint64_t base, uint64_t now)
{
	uint32_t o = find_obj(m, base);

	if (o == NIL || m->objs[o].base != base)
		return false;
	unlink_obj(m, o, now);
	return true;
}

bool objmap_set_own(struct objmap *m, uint64_t base)
{
	uint32_t o = find_obj(m, base);

	if (o == NIL || m->objs[o].base != base)
		return false;
	m->objs[o].own = true;
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

bool objmap_touch(struct objmap *m, uint64_t addr, uint32_t *cache,
		  uint64_t *base, bool *own)
{
	uint32_t o = find_obj(m, addr);
	struct obj *x;
	uint64_t bit;

	if (o == NIL)
		return false;
	x = &m->objs[o];
	if (own)
		*own = x->own;
	bit = addr / LINE - x->base / LINE;
	x->lines |= 1ULL << (bit < 63 ? bit : 63);
	*cache = x->cache;
	*base = x->base;
	return true;
}

void objmap_window(struct objmap *m, bool open, uint64_t now)
{
	uint32_t i;

	if (open == m->window)
		return;
	for (i = 0; i < m->nr_objs; i++) {
		struct obj *x = &m->objs[i];

		if (!x->live)
			continue;
		if (!open)
			close_life(m, x, now);
		x->since = now;
		x->lines = 0;
	}
	m->window = open;
}

bool objmap_occupancy(const struct objmap *m, uint32_t cache,
		      double *obj_ns, double *line_ns)
{
	if (cache >= m->nr_occ || !m->occ[cache].seen)
		return false;
	*obj_ns = m->occ[cache].obj_ns;
	*line_ns = m->occ[cache].line_ns;
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

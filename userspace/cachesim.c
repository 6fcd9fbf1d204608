// SPDX-License-Identifier: GPL-2.0
/*
 * Cache simulation (see cachesim.h).  The lives are merged into one
 * time-ordered stream with a heap holding each live object's next access.
 * The set-associative cache keeps each set's lines most recent first (ways
 * are few: a move to front is a short memmove); the fully associative one
 * is a hash table over a doubly linked LRU list, so both cost O(1) per
 * access besides the heap's O(log live objects).
 */
#include <stdlib.h>
#include <string.h>
#include "cachesim.h"
#include "util.h"

#define NO_LINE UINT64_MAX

/* --- templates --------------------------------------------------------- */

static int by_frac(const void *a, const void *b)
{
	const struct sim_access *x = a, *y = b;

	if (x->frac != y->frac)
		return x->frac < y->frac ? -1 : 1;
	return (x->offset > y->offset) - (x->offset < y->offset);
}

/* No histories (IBS/PEBS alone): each sampled 8-byte slot, once. */
static void template_from_samples(struct sim_template *t,
				  const struct recording *r, size_t target)
{
	uint32_t size = r->targets[target].object_size;
	size_t nslots = (size + 7) / 8;
	bool *seen = xcalloc(nslots + 1, sizeof(*seen));
	struct sim_variant *v;

	t->nv = 1;
	t->v = v = xcalloc(1, sizeof(*t->v));
	for (size_t i = 0; i < r->nr_samples; i++)
		if (r->samples[i].target == r->targets[target].index &&
		    r->samples[i].offset / 8 < nslots)
			seen[r->samples[i].offset / 8] = true;
	v->a = xcalloc(nslots + 1, sizeof(*v->a));
	for (size_t s = 0; s < nslots; s++)
		if (seen[s])
			v->a[v->n++].offset = (uint32_t)(s * 8);
	t->source = v->n ? SIM_SOURCE_SAMPLES : SIM_SOURCE_NONE;
	free(seen);
}

/* Complete histories of one target, grouped by the offsets they watched. */
struct offset_group {
	uint16_t offset[DPROF_HIST_MAX_OFFSETS];
	uint8_t nr_offsets;
	const struct history **h;
	size_t n;
};

static size_t group_histories(const struct history_set *hs, size_t target,
			      struct offset_group **out)
{
	struct offset_group *g = NULL;
	size_t n = 0;

	for (size_t i = 0; i < hs->n; i++) {
		const struct history *h = &hs->h[i];
		size_t k;

		if ((size_t)h->target != target || !history_complete(h) ||
		    h->end_ns < h->alloc_ns)
			continue;
		for (k = 0; k < n; k++)
			if (g[k].nr_offsets == h->nr_offsets &&
			    offsets_equal(g[k].offset, h->offset))
				break;
		if (k == n) {
			g = xrealloc(g, (n + 1) * sizeof(*g));
			memset(&g[n], 0, sizeof(g[n]));
			g[n].nr_offsets = h->nr_offsets;
			memcpy(g[n].offset, h->offset, sizeof(g[n].offset));
			n++;
		}
		g[k].h = xrealloc(g[k].h, (g[k].n + 1) * sizeof(*g[k].h));
		g[k].h[g[k].n++] = h;
	}
	*out = g;
	return n;
}

static void template_from_histories(struct sim_template *t,
				    struct offset_group *g, size_t ng)
{
	size_t most = 0;

	for (size_t k = 0; k < ng; k++) {
		most = g[k].n > most ? g[k].n : most;
		t->histories += g[k].n;
	}
	t->offset_sets = ng;
	for (t->nv = 1; t->nv < most && t->nv < SIM_MAX_VARIANTS; t->nv <<= 1)
		;
	t->v = xcalloc(t->nv, sizeof(*t->v));
	for (size_t v = 0; v < t->nv; v++) {
		struct sim_variant *var = &t->v[v];
		size_t total = 0;

		for (size_t k = 0; k < ng; k++)
			total += g[k].h[v % g[k].n]->nr_elems;
		var->a = xcalloc(total + 1, sizeof(*var->a));
		for (size_t k = 0; k < ng; k++) {
			const struct history *h = g[k].h[v % g[k].n];
			double life = (double)(h->end_ns - h->alloc_ns);

			for (size_t e = 0; e < h->nr_elems; e++) {
				double f = life > 0 ?
					   (double)h->elems[e].time_ns / life : 0;

				var->a[var->n].offset = h->elems[e].offset;
				var->a[var->n++].frac = f < 0 ? 0 : f > 1 ? 1 : f;
			}
		}
		if (var->n)
			qsort(var->a, var->n, sizeof(*var->a), by_frac);
	}
	t->source = SIM_SOURCE_HISTORIES;
}

void sim_templates_build(struct sim_template *t, const struct recording *r,
			 const struct history_set *hs)
{
	for (size_t tg = 0; tg < r->nr_targets; tg++) {
		struct offset_group *g;
		size_t ng = group_histories(hs, tg, &g);

		memset(&t[tg], 0, sizeof(t[tg]));
		if (ng)
			template_from_histories(&t[tg], g, ng);
		else
			template_from_samples(&t[tg], r, tg);
		for (size_t k = 0; k < ng; k++)
			free(g[k].h);
		free(g);
	}
}

double sim_template_accesses(const struct sim_template *t)
{
	size_t sum = 0;

	for (size_t v = 0; v < t->nv; v++)
		sum += t->v[v].n;
	return t->nv ? (double)sum / (double)t->nv : 0;
}

void sim_templates_free(struct sim_template *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t v = 0; v < t[i].nv; v++)
			free(t[i].v[v].a);
		free(t[i].v);
	}
}

/* --- the two caches ---------------------------------------------------- */

struct set_cache {
	unsigned int sets, ways;
	uint64_t *tag;		/* per set, most recent first */
	uint16_t *owner;	/* type of the line's last access */
};

/* Returns true on a hit; the line is most recent either way. */
static inline bool set_access(struct set_cache *c, uint64_t line,
			      uint16_t type, unsigned int set)
{
	uint64_t *tags = &c->tag[(size_t)set * c->ways];
	uint16_t *own = &c->owner[(size_t)set * c->ways];
	unsigned int w;

	if (tags[0] == line) {		/* the common case: no reordering */
		own[0] = type;
		return true;
	}
	for (w = 1; w < c->ways; w++)
		if (tags[w] == line)
			break;
	/* Shift the more recent ones down; on a miss the last one goes. */
	for (unsigned int k = w < c->ways ? w : c->ways - 1; k > 0; k--) {
		tags[k] = tags[k - 1];
		own[k] = own[k - 1];
	}
	tags[0] = line;
	own[0] = type;
	return w < c->ways;
}

struct lru_cache {
	size_t cap, used;
	uint64_t *line;
	uint32_t *prev, *next;	/* list: head most recent */
	uint32_t head, tail;
	int32_t *slot;		/* hash: node index, -1 empty */
	size_t mask;
};

#define NIL UINT32_MAX

static size_t line_hash(uint64_t line)
{
	line ^= line >> 33;
	line *= 0xff51afd7ed558ccdull;
	line ^= line >> 33;
	return (size_t)line;
}

static void lru_init(struct lru_cache *c, size_t cap)
{
	size_t h = 1;

	while (h < 2 * cap)
		h <<= 1;
	memset(c, 0, sizeof(*c));
	c->cap = cap;
	c->line = xcalloc(cap, sizeof(*c->line));
	c->prev = xcalloc(cap, sizeof(*c->prev));
	c->next = xcalloc(cap, sizeof(*c->next));
	c->slot = xcalloc(h, sizeof(*c->slot));
	memset(c->slot, 0xff, h * sizeof(*c->slot));
	c->mask = h - 1;
	c->head = c->tail = NIL;
}

static void lru_unlink(struct lru_cache *c, uint32_t n)
{
	if (c->prev[n] != NIL)
		c->next[c->prev[n]] = c->next[n];
	else
		c->head = c->next[n];
	if (c->next[n] != NIL)
		c->prev[c->next[n]] = c->prev[n];
	else
		c->tail = c->prev[n];
}

static void lru_push_front(struct lru_cache *c, uint32_t n)
{
	c->prev[n] = NIL;
	c->next[n] = c->head;
	if (c->head != NIL)
		c->prev[c->head] = n;
	c->head = n;
	if (c->tail == NIL)
		c->tail = n;
}

/* Linear probing with backward-shift deletion: no tombstones. */
static void lru_hash_remove(struct lru_cache *c, size_t i)
{
	size_t j = i;

	for (;;) {
		size_t home;

		j = (j + 1) & c->mask;
		if (c->slot[j] < 0)
			break;
		home = line_hash(c->line[c->slot[j]]) & c->mask;
		/* Move j back to i when i lies cyclically in [home, j). */
		if (((j - home) & c->mask) >= ((j - i) & c->mask)) {
			c->slot[i] = c->slot[j];
			i = j;
		}
	}
	c->slot[i] = -1;
}

static bool lru_access(struct lru_cache *c, uint64_t line)
{
	size_t i = line_hash(line) & c->mask;
	uint32_t n;

	while (c->slot[i] >= 0) {
		n = (uint32_t)c->slot[i];
		if (c->line[n] == line) {
			if (c->head != n) {
				lru_unlink(c, n);
				lru_push_front(c, n);
			}
			return true;
		}
		i = (i + 1) & c->mask;
	}
	if (c->used < c->cap) {
		n = (uint32_t)c->used++;
	} else {
		size_t k;

		n = c->tail;
		lru_unlink(c, n);
		k = line_hash(c->line[n]) & c->mask;
		while (c->slot[k] != (int32_t)n)
			k = (k + 1) & c->mask;
		lru_hash_remove(c, k);
		/* The removal may have shifted our empty slot: find it again. */
		i = line_hash(line) & c->mask;
		while (c->slot[i] >= 0)
			i = (i + 1) & c->mask;
	}
	c->line[n] = line;
	c->slot[i] = (int32_t)n;
	lru_push_front(c, n);
	return false;
}

static void lru_free(struct lru_cache *c)
{
	free(c->line);
	free(c->prev);
	free(c->next);
	free(c->slot);
}

/* --- the stream -------------------------------------------------------- */

struct event {
	uint64_t time;
	uint32_t life, step;
};

/* A life has one event in the heap at a time: (time, life) orders. */
static bool before(const struct event *a, const struct event *b)
{
	if (a->time != b->time)
		return a->time < b->time;
	return a->life < b->life;
}

static void heap_push(struct event *h, size_t *n, struct event e)
{
	size_t i = (*n)++;

	while (i) {
		size_t p = (i - 1) / 2;

		if (!before(&e, &h[p]))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = e;
}

/* Replace the top with @e (or drop it when @e is NULL) and sift down. */
static void heap_replace_top(struct event *h, size_t *n, const struct event *e)
{
	struct event last;
	size_t i = 0;

	if (e) {
		last = *e;
	} else {
		last = h[--*n];
		if (!*n)
			return;
	}
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= *n)
			break;
		if (c + 1 < *n && before(&h[c + 1], &h[c]))
			c++;
		if (!before(&h[c], &last))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = last;
}

static const struct obj_summary *sort_objs;

static int by_alloc(const void *a, const void *b)
{
	const struct obj_life *x = &sort_objs->lives[*(const uint32_t *)a];
	const struct obj_life *y = &sort_objs->lives[*(const uint32_t *)b];

	if (x->alloc_ns != y->alloc_ns)
		return x->alloc_ns < y->alloc_ns ? -1 : 1;
	return (*(const uint32_t *)a > *(const uint32_t *)b) -
	       (*(const uint32_t *)a < *(const uint32_t *)b);
}

/* Life @life replays variant @life mod nv (nv is a power of two). */
static const struct sim_variant *variant_of(const struct sim_template *t,
					    size_t type, uint32_t life)
{
	return &t[type].v[life & (t[type].nv - 1)];
}

static uint64_t event_time(const struct obj_life *o, double frac)
{
	return o->alloc_ns + (uint64_t)(frac * (double)(o->end_ns - o->alloc_ns));
}

/*
 * Whether step k of a variant is the life's first access to its line,
 * for an object at @misalign bytes into a line: computed once per
 * variant and misalignment (slab objects have few), with a bitmap of the
 * object's lines.
 */
struct first_touch {
	bool **by_misalign;	/* [variant index][misalign] -> per step */
	size_t *base;		/* per type: index of its first variant */
	unsigned int line;
};

static const bool *first_touch_of(struct first_touch *ft,
				  const struct sim_variant *v, size_t index,
				  unsigned int misalign)
{
	bool **m = &ft->by_misalign[index * ft->line + misalign];

	if (!*m) {
		uint32_t most = 0;
		uint8_t *seen;

		for (size_t k = 0; k < v->n; k++)
			most = v->a[k].offset > most ? v->a[k].offset : most;
		seen = xcalloc((misalign + (size_t)most) / ft->line / 8 + 1, 1);
		*m = xcalloc(v->n + 1, sizeof(**m));
		for (size_t k = 0; k < v->n; k++) {
			size_t line = (misalign + v->a[k].offset) / ft->line;

			(*m)[k] = !(seen[line / 8] & (1u << (line % 8)));
			seen[line / 8] |= (uint8_t)(1u << (line % 8));
		}
		free(seen);
	}
	return *m;
}

static void snapshot(struct cachesim *sim, const struct set_cache *sc)
{
	size_t n = (size_t)sc->sets * sc->ways;

	for (size_t i = 0; i < n; i++)
		if (sc->tag[i] != NO_LINE && sc->owner[i] < sim->nr_types)
			sim->types[sc->owner[i]].lines_in_cache += 1;
	sim->snapshots++;
}

void cachesim_run(struct cachesim *sim, const struct sim_template *t,
		  size_t nr_types, const struct obj_summary *objs,
		  const struct ws_geometry *geo, uint64_t max_accesses)
{
	size_t lines = (size_t)geo->sets * geo->ways, nlives = 0, nheap = 0;
	/* A snapshot costs one step per line: amortised over 8 per line. */
	uint64_t every = 8 * (lines > 1024 ? lines : 1024);
	uint64_t until_snapshot = every;
	struct set_cache sc = { .sets = geo->sets, .ways = geo->ways };
	struct first_touch ft = { .line = geo->line };
	struct lru_cache fa;
	uint32_t *order;
	struct event *heap;
	unsigned int line_shift = 0;
	uint64_t set_mask = 0, last_line = NO_LINE;
	size_t nr_variants;

	memset(sim, 0, sizeof(*sim));
	sim->geo = *geo;
	sim->nr_types = nr_types;
	sim->types = xcalloc(nr_types + 1, sizeof(*sim->types));
	sim->set_misses = xcalloc(geo->sets + 1, sizeof(*sim->set_misses));
	sim->set_conflict = xcalloc(geo->sets + 1, sizeof(*sim->set_conflict));
	if (!lines || !geo->line || (geo->line & (geo->line - 1)))
		return;
	while ((1u << line_shift) < geo->line)
		line_shift++;
	if (!(geo->sets & (geo->sets - 1)))
		set_mask = geo->sets - 1;	/* 0 for one set: also right */
	sc.tag = xcalloc(lines, sizeof(*sc.tag));
	memset(sc.tag, 0xff, lines * sizeof(*sc.tag));
	sc.owner = xcalloc(lines, sizeof(*sc.owner));
	lru_init(&fa, lines);
	ft.base = xcalloc(nr_types + 1, sizeof(*ft.base));
	for (size_t i = 0; i < nr_types; i++)
		ft.base[i + 1] = ft.base[i] + t[i].nv;
	nr_variants = ft.base[nr_types];
	ft.by_misalign = xcalloc(nr_variants * geo->line + 1,
				 sizeof(*ft.by_misalign));
	order = xcalloc(objs->nr_lives + 1, sizeof(*order));
	for (size_t i = 0; i < objs->nr_lives; i++) {
		const struct obj_life *o = &objs->lives[i];

		if (o->target < nr_types && t[o->target].nv &&
		    o->end_ns >= o->alloc_ns)
			order[nlives++] = (uint32_t)i;
	}
	sort_objs = objs;
	if (nlives)
		qsort(order, nlives, sizeof(*order), by_alloc);
	sort_objs = NULL;
	heap = xcalloc(nlives + 1, sizeof(*heap));
	for (size_t next = 0; next < nlives || nheap;) {
		const struct obj_life *o;
		const struct sim_variant *tm;
		struct sim_type *ty;
		struct event e;
		uint64_t line;
		unsigned int set;
		bool hit, fa_hit;

		/* Start every life allocated before the next access. */
		if (next < nlives &&
		    (!nheap || objs->lives[order[next]].alloc_ns <= heap[0].time)) {
			if (max_accesses && sim->accesses >= max_accesses) {
				sim->lives_skipped = nlives - next;
				next = nlives;
				continue;
			}
			o = &objs->lives[order[next]];
			e.life = order[next++];
			e.step = 0;
			tm = variant_of(t, o->target, e.life);
			sim->lives++;
			sim->types[o->target].lives++;
			if (!tm->n)
				continue;	/* a life that touched nothing */
			e.time = event_time(o, tm->a[0].frac);
			heap_push(heap, &nheap, e);
			continue;
		}
		e = heap[0];
		o = &objs->lives[e.life];
		tm = variant_of(t, o->target, e.life);
		ty = &sim->types[o->target];
		line = (o->addr + tm->a[e.step].offset) >> line_shift;
		/* Divisions cost more than the rest of an access. */
		set = set_mask ? (unsigned int)(line & set_mask) :
				 (unsigned int)(line % geo->sets);
		if (line == last_line) {
			/* Most recent in both caches already: both hit. */
			sc.owner[(size_t)set * sc.ways] = o->target;
			hit = fa_hit = true;
		} else {
			hit = set_access(&sc, line, o->target, set);
			/* The fully associative cache sees every access. */
			fa_hit = lru_access(&fa, line);
			sim->fa_misses += !fa_hit;
			last_line = line;
		}
		if (!hit) {
			const bool *first = first_touch_of(&ft, tm,
					ft.base[o->target] + (tm - t[o->target].v),
					(unsigned int)(o->addr & (geo->line - 1)));

			ty->misses++;
			sim->misses++;
			sim->set_misses[set]++;
			if (first[e.step]) {
				ty->cold++;
				sim->cold++;
			} else if (!fa_hit) {
				ty->capacity++;
				sim->capacity++;
			} else {
				ty->conflict++;
				sim->conflict++;
				sim->set_conflict[set]++;
			}
		}
		ty->accesses++;
		sim->accesses++;
		if (!--until_snapshot) {
			snapshot(sim, &sc);
			until_snapshot = every;
		}
		if (++e.step < tm->n) {
			e.time = event_time(o, tm->a[e.step].frac);
			heap_replace_top(heap, &nheap, &e);
		} else {
			heap_replace_top(heap, &nheap, NULL);
		}
	}
	if (!sim->snapshots && sim->accesses)
		snapshot(sim, &sc);
	for (size_t i = 0; i < nr_types; i++)
		if (sim->snapshots)
			sim->types[i].lines_in_cache /= (double)sim->snapshots;
	for (size_t i = 0; i < nr_variants * geo->line; i++)
		free(ft.by_misalign[i]);
	free(ft.by_misalign);
	free(ft.base);
	free(heap);
	free(order);
	lru_free(&fa);
	free(sc.tag);
	free(sc.owner);
}

void cachesim_free(struct cachesim *sim)
{
	free(sim->types);
	free(sim->set_misses);
	free(sim->set_conflict);
	memset(sim, 0, sizeof(*sim));
}

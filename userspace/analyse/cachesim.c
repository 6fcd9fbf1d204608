// SPDX-License-Identifier: GPL-2.0
/*
 * Cache simulation (see cachesim.h).  The lives are merged into one
 * time-ordered stream window by window: the accesses of every life alive
 * in a window of time are written out in allocation order (each life's
 * data read once, sequentially), sorted by time with a stable radix sort
 * (sort_by_time()), and replayed.  A heap of the lives' next accesses did
 * the same merge at O(log lives) per access with a cache miss on a random
 * life each time; the windows are sized to about WINDOW_EVENTS accesses,
 * so their buffers stay in a core's L2.
 * The set-associative cache keeps each set's lines most recent first (ways
 * are few: a move to front is a short memmove); the fully associative one
 * is a hash table over a doubly linked LRU list, so both cost O(1) per
 * access.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "diffstat.h"
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

/*
 * Both caches keep 0 for "empty" (a tag is the line + 1; LRU nodes are
 * numbered from 1, so a hash slot of 0 holds none), so that their arrays
 * come from calloc() untouched: the kernel maps the pages on first
 * write, and a large geometry (up to WS_MAX_LINES lines) costs memory
 * for the sets and slots the recording uses, not for the whole cache.
 */
struct set_cache {
	unsigned int sets, ways;
	uint64_t *tag;		/* per set, most recent first; line + 1 */
	uint16_t *owner;	/* type of the line's last access */
	uint32_t *used;		/* the sets ever filled, for snapshots */
	size_t nr_used;
};

/*
 * Returns true on a hit; the line is most recent either way.  @line is
 * the line number + 1 (never 0).
 */
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
	if (!tags[0])			/* first line of the set */
		c->used[c->nr_used++] = set;
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
	uint32_t *slot;		/* hash: node index (from 1), 0 empty */
	uint32_t *slot_of;	/* node -> its hash slot: no probe to evict */
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

	/* At most a quarter full: short probes, few shifts on removal. */
	while (h < 4 * cap)
		h <<= 1;
	memset(c, 0, sizeof(*c));
	c->cap = cap;
	/*
	 * Nodes are 1 to cap (0 is an empty hash slot); node cap + 1 stands
	 * in for a new line while an old one leaves.
	 */
	c->line = xcalloc(cap + 2, sizeof(*c->line));
	c->prev = xcalloc(cap + 1, sizeof(*c->prev));
	c->next = xcalloc(cap + 1, sizeof(*c->next));
	c->slot = xcalloc(h, sizeof(*c->slot));
	c->slot_of = xcalloc(cap + 2, sizeof(*c->slot_of));
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
		if (!c->slot[j])
			break;
		home = line_hash(c->line[c->slot[j]]) & c->mask;
		/* Move j back to i when i lies cyclically in [home, j). */
		if (((j - home) & c->mask) >= ((j - i) & c->mask)) {
			c->slot[i] = c->slot[j];
			c->slot_of[c->slot[i]] = (uint32_t)i;
			i = j;
		}
	}
	c->slot[i] = 0;
}

static bool lru_access(struct lru_cache *c, uint64_t line)
{
	size_t i = line_hash(line) & c->mask;
	uint32_t n;

	while (c->slot[i]) {
		n = c->slot[i];
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
		n = (uint32_t)++c->used;
	} else {
		/*
		 * The least recent node takes the new line.  Its old slot
		 * goes after the new one is filled (a quarter full at most:
		 * there is room), so the shifting may move the new entry
		 * but never invalidates the probe just made.
		 */
		n = c->tail;
		lru_unlink(c, n);
		c->line[c->cap + 1] = line;	/* held, not yet node n */
		c->slot[i] = (uint32_t)c->cap + 1;
		c->slot_of[c->cap + 1] = (uint32_t)i;
		lru_hash_remove(c, c->slot_of[n]);
		i = c->slot_of[c->cap + 1];
	}
	c->line[n] = line;
	c->slot[i] = n;
	c->slot_of[n] = (uint32_t)i;
	lru_push_front(c, n);
	return false;
}

static void lru_free(struct lru_cache *c)
{
	free(c->line);
	free(c->prev);
	free(c->next);
	free(c->slot);
	free(c->slot_of);
}

/* --- the stream -------------------------------------------------------- */

/* Aimed at per window: its buffers and counts stay in a core's L2. */
#define WINDOW_EVENTS (1u << 15)
/*
 * Bits of time sorted per radix pass: the count's four tables of 2,048
 * (32 KiB) stay in L1.
 */
#define DIGIT_BITS 11
/* A window spans less than this: its times fit the u32 sort keys. */
#define MAX_WINDOW_NS ((1ull << 32) - 1)
#define EV_START 0x01		/* a life begins (its allocation) */
#define EV_FIRST 0x02		/* the life's first access to this line */

struct sim_event {
	uint64_t line;
	uint32_t life;		/* index into objs->lives */
	uint16_t type;
	uint8_t flags;		/* EV_* */
	uint8_t pad;
};

/*
 * The window's events in time order: a least-significant-digit radix
 * sort of their indices on the time since the window began, one pass per
 * DIGIT_BITS of the greatest time.  Each pass is stable, so events at
 * equal times keep the order they were written in (a life's start before
 * its accesses, lives in allocation order).  Some 20 instructions per
 * event for the first pass (the greatest time, the count, the scatter;
 * callgrind on bench-view), whatever the times' spread; windows of
 * accesses crowded in 2,048 ns need that one pass.  Returns @a or @b,
 * whichever holds the result.
 */
static uint32_t *sort_by_time(const uint32_t *time, size_t n, uint32_t *a,
			      uint32_t *b, uint32_t *count)
{
	const size_t nb = (size_t)1 << DIGIT_BITS;
	uint32_t most = 0, *src = NULL, *dst = a;

	for (size_t i = 0; i < n; i++)
		most = time[i] > most ? time[i] : most;
	for (unsigned int shift = 0; shift == 0 || (shift < 32 && most >> shift);
	     shift += DIGIT_BITS) {
		uint32_t sum = 0;
		size_t k = 0;

		/*
		 * Four tables counted in turn: events crowd into a few
		 * buckets, and one table would make every increment wait for
		 * the store of the one before it.
		 */
		memset(count, 0, 4 * nb * sizeof(*count));
		for (; k + 4 <= n; k += 4) {
			count[(time[k] >> shift) & (nb - 1)]++;
			count[nb + ((time[k + 1] >> shift) & (nb - 1))]++;
			count[2 * nb + ((time[k + 2] >> shift) & (nb - 1))]++;
			count[3 * nb + ((time[k + 3] >> shift) & (nb - 1))]++;
		}
		for (; k < n; k++)
			count[(time[k] >> shift) & (nb - 1)]++;
		for (size_t d = 0; d < nb; d++) {
			uint32_t c = count[d] + count[nb + d] + count[2 * nb + d] +
				     count[3 * nb + d];

			count[d] = sum;
			sum += c;
		}
		if (!src) {		/* the first pass reads the identity */
			for (size_t i = 0; i < n; i++)
				dst[count[(time[i] >> shift) & (nb - 1)]++] =
					(uint32_t)i;
		} else {
			for (size_t i = 0; i < n; i++)
				dst[count[(time[src[i]] >> shift) & (nb - 1)]++] =
					src[i];
		}
		src = dst;
		dst = dst == a ? b : a;
	}
	return src;
}

/* qsort_r: indices into @objs' lives, by allocation time. */
static int by_alloc(const void *a, const void *b, void *objs)
{
	const struct obj_summary *s = objs;
	const struct obj_life *x = &s->lives[*(const uint32_t *)a];
	const struct obj_life *y = &s->lives[*(const uint32_t *)b];

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
	for (size_t u = 0; u < sc->nr_used; u++) {
		size_t first = (size_t)sc->used[u] * sc->ways;

		for (size_t i = first; i < first + sc->ways && sc->tag[i]; i++)
			if (sc->owner[i] < sim->nr_types)
				sim->types[sc->owner[i]].lines_in_cache += 1;
	}
	sim->snapshots++;
}

/* One access of the stream through both caches, classified. */
static void replay_access(struct cachesim *sim, struct set_cache *sc,
			  struct lru_cache *fa, const struct sim_event *ev,
			  uint64_t set_mask, uint64_t *last_line,
			  const uint8_t *batch_of)
{
	struct sim_type *ty = &sim->types[ev->type];
	unsigned int set, b = batch_of[ev->life];
	bool hit, fa_hit;

	/* Divisions cost more than the rest of an access. */
	set = set_mask ? (unsigned int)(ev->line & set_mask) :
			 (unsigned int)(ev->line % sim->geo.sets);
	if (ev->line == *last_line) {
		/* Most recent in both caches already: both hit. */
		sc->owner[(size_t)set * sc->ways] = ev->type;
		hit = fa_hit = true;
	} else {
		hit = set_access(sc, ev->line + 1, ev->type, set);
		/* The fully associative cache sees every access. */
		fa_hit = lru_access(fa, ev->line);
		sim->fa_misses += !fa_hit;
		*last_line = ev->line;
	}
	if (!hit) {
		ty->misses++;
		ty->batch[SIM_MISS][b]++;
		sim->misses++;
		sim->set_misses[set]++;
		if (ev->flags & EV_FIRST) {
			ty->cold++;
			ty->batch[SIM_COLD][b]++;
			sim->cold++;
		} else if (!fa_hit) {
			ty->capacity++;
			ty->batch[SIM_CAPACITY][b]++;
			sim->capacity++;
		} else {
			ty->conflict++;
			ty->batch[SIM_CONFLICT][b]++;
			sim->conflict++;
			sim->set_conflict[set]++;
		}
	}
	ty->accesses++;
	ty->batch_accesses[b]++;
	sim->accesses++;
}

/* Student's t, two-sided 95%, for @df degrees of freedom (df >= 1). */
static double t95(unsigned int df)
{
	return stat_t975((double)df);
}

double sim_rate_half(const struct sim_type *ty, enum sim_kind kind)
{
	double a = 0, m = 0, r, ss = 0, abar;
	unsigned int n = 0;

	for (int b = 0; b < SIM_BATCHES; b++)
		if (ty->batch_accesses[b]) {
			a += (double)ty->batch_accesses[b];
			m += (double)ty->batch[kind][b];
			n++;
		}
	if (n < 2)
		return -1;
	r = m / a;
	abar = a / n;
	for (int b = 0; b < SIM_BATCHES; b++)
		if (ty->batch_accesses[b]) {
			double d = (double)ty->batch[kind][b] -
				   r * (double)ty->batch_accesses[b];

			ss += d * d;
		}
	/* The ratio estimator's variance over n batches. */
	return t95(n - 1) * sqrt(ss / ((double)n * (n - 1))) / abar;
}

/* Lives begun and not yet replayed to their end, in allocation order. */
struct active {
	uint32_t *life;
	uint32_t *step;		/* next access of the life's variant */
	uint64_t *next_time;	/* of that access: most lives wait */
	size_t n;
};

/* The stream's state across windows. */
struct stream {
	const struct sim_template *t;
	const struct obj_summary *objs;
	struct first_touch ft;
	unsigned int line_shift;
	struct sim_event *buf;	/* as written, in allocation order */
	uint32_t *time;		/* of each event, since the window began */
	uint32_t *idx, *tmp;	/* the sort's two index buffers */
	size_t n, cap;
	uint64_t t0;		/* the window's start */
};

static inline struct sim_event *stream_next(struct stream *st,
					    uint64_t time)
{
	if (st->n == st->cap) {
		st->cap *= 2;
		st->buf = xrealloc(st->buf, st->cap * sizeof(*st->buf));
		st->time = xrealloc(st->time, st->cap * sizeof(*st->time));
		st->idx = xrealloc(st->idx, st->cap * sizeof(*st->idx));
		st->tmp = xrealloc(st->tmp, st->cap * sizeof(*st->tmp));
	}
	/* The window's events lie in [t0, t0 + MAX_WINDOW_NS). */
	st->time[st->n] = (uint32_t)(time - st->t0);
	return &st->buf[st->n++];
}

/* frac * span in ns, frac in [0, 1]: valid for any span (fuzzed files). */
static inline uint64_t frac_of(double frac, double span)
{
	double x = frac * span;

	/* The signed conversion is the cheap one; 2^64 is not a u64. */
	if (x < 9.2e18)
		return (uint64_t)(int64_t)x;
	return x < 18446744073709551616.0 ? (uint64_t)x : UINT64_MAX;
}

/*
 * Write @life's accesses before @t1 from its step on; true when done,
 * else the time of its next access in *@next_time.  A window that ends
 * at UINT64_MAX is the last: it takes the accesses at UINT64_MAX too.
 */
static bool emit_life(struct stream *st, uint32_t life, uint32_t *step,
		      uint64_t *next_time, uint64_t t1, unsigned int line_size)
{
	const struct obj_life *o = &st->objs->lives[life];
	const struct sim_variant *tm = variant_of(st->t, o->target, life);
	const bool *first = first_touch_of(&st->ft, tm,
			st->ft.base[o->target] + (tm - st->t[o->target].v),
			(unsigned int)(o->addr & (line_size - 1)));
	uint64_t life_ns = o->end_ns - o->alloc_ns;
	double span = (double)life_ns;
	uint32_t k = *step;

	for (; k < tm->n; k++) {
		uint64_t in_life = frac_of(tm->a[k].frac, span);
		/* Rounded up to 2^64 a long life's last access would wrap. */
		uint64_t time = o->alloc_ns +
				(in_life < life_ns ? in_life : life_ns);
		struct sim_event *ev;

		if (time >= t1 && t1 != UINT64_MAX) {
			*next_time = time;
			break;
		}
		ev = stream_next(st, time);
		ev->line = (o->addr + tm->a[k].offset) >> st->line_shift;
		ev->life = life;
		ev->type = (uint16_t)o->target;
		ev->flags = first[k] ? EV_FIRST : 0;
		ev->pad = 0;
	}
	*step = k;
	return k == tm->n;
}

/* About WINDOW_EVENTS of @total over @span ns if they were even. */
static uint64_t first_window(uint64_t span, double total)
{
	double d = (double)span * WINDOW_EVENTS / (total + 1);

	return d < MAX_WINDOW_NS ? (uint64_t)d + 1 : MAX_WINDOW_NS;
}

void cachesim_run(struct cachesim *sim, const struct sim_template *t,
		  size_t nr_types, const struct obj_summary *objs,
		  const struct ws_geometry *geo, uint64_t max_accesses)
{
	size_t lines = (size_t)geo->sets * geo->ways, nlives = 0, next = 0;
	/* A snapshot costs one step per line: amortised over 8 per line. */
	uint64_t every = 8 * (lines > 1024 ? lines : 1024);
	uint64_t until_snapshot = every;
	struct set_cache sc = { .sets = geo->sets, .ways = geo->ways };
	struct stream st = { .t = t, .objs = objs, .ft = { .line = geo->line } };
	struct active act = { 0 };
	struct lru_cache fa;
	uint32_t *order, *count, *sorted;
	uint8_t *skipped, *batch_of;
	uint64_t set_mask = 0, last_line = NO_LINE, t0, t_end = 0, delta;
	double total = 0;
	size_t nr_variants;

	memset(sim, 0, sizeof(*sim));
	sim->geo = *geo;
	sim->nr_types = nr_types;
	sim->types = xcalloc(nr_types + 1, sizeof(*sim->types));
	sim->set_misses = xcalloc(geo->sets + 1, sizeof(*sim->set_misses));
	sim->set_conflict = xcalloc(geo->sets + 1, sizeof(*sim->set_conflict));
	if (!lines || !geo->line || (geo->line & (geo->line - 1)))
		return;
	while ((1u << st.line_shift) < geo->line)
		st.line_shift++;
	if (!(geo->sets & (geo->sets - 1)))
		set_mask = geo->sets - 1;	/* 0 for one set: also right */
	sc.tag = xcalloc(lines, sizeof(*sc.tag));
	sc.used = xcalloc(geo->sets, sizeof(*sc.used));
	sc.owner = xcalloc(lines, sizeof(*sc.owner));
	lru_init(&fa, lines);
	st.ft.base = xcalloc(nr_types + 1, sizeof(*st.ft.base));
	for (size_t i = 0; i < nr_types; i++)
		st.ft.base[i + 1] = st.ft.base[i] + t[i].nv;
	nr_variants = st.ft.base[nr_types];
	st.ft.by_misalign = xcalloc(nr_variants * geo->line + 1,
				    sizeof(*st.ft.by_misalign));
	order = xcalloc(objs->nr_lives + 1, sizeof(*order));
	for (size_t i = 0; i < objs->nr_lives; i++) {
		const struct obj_life *o = &objs->lives[i];

		if (o->target < nr_types && t[o->target].nv &&
		    o->end_ns >= o->alloc_ns) {
			order[nlives++] = (uint32_t)i;
			total += 1 + variant_of(t, o->target, (uint32_t)i)->n;
			if (o->end_ns > t_end)
				t_end = o->end_ns;
		}
	}
	if (nlives)
		qsort_r(order, nlives, sizeof(*order), by_alloc, (void *)objs);
	batch_of = xcalloc(objs->nr_lives + 1, 1);
	for (size_t i = 0; i < nlives; i++)
		batch_of[order[i]] = (uint8_t)(i * SIM_BATCHES / nlives);
	skipped = xcalloc(objs->nr_lives / 8 + 1, 1);
	act.life = xcalloc(nlives + 1, sizeof(*act.life));
	act.step = xcalloc(nlives + 1, sizeof(*act.step));
	act.next_time = xcalloc(nlives + 1, sizeof(*act.next_time));
	st.cap = WINDOW_EVENTS;
	st.buf = xcalloc(st.cap, sizeof(*st.buf));
	st.time = xcalloc(st.cap, sizeof(*st.time));
	st.idx = xcalloc(st.cap, sizeof(*st.idx));
	st.tmp = xcalloc(st.cap, sizeof(*st.tmp));
	count = xcalloc((size_t)4 << DIGIT_BITS, sizeof(*count));
	t0 = nlives ? objs->lives[order[0]].alloc_ns : 0;
	delta = first_window(t_end - t0, total);
	while (next < nlives || act.n) {
		uint64_t t1 = UINT64_MAX - t0 > delta ? t0 + delta : UINT64_MAX;
		/* The last window also takes what happens at UINT64_MAX. */
		const bool last = t1 == UINT64_MAX;
		struct sim_event *start;
		uint64_t soonest;
		size_t kept = 0;

		st.n = 0;
		st.t0 = t0;
		/* Starts first: at equal times a life begins before accesses. */
		for (; next < nlives && (objs->lives[order[next]].alloc_ns < t1 ||
					 last); next++) {
			start = stream_next(&st, objs->lives[order[next]].alloc_ns);
			start->line = 0;
			start->pad = 0;
			start->life = order[next];
			start->type = (uint16_t)objs->lives[order[next]].target;
			start->flags = EV_START;
			act.life[act.n] = order[next];
			act.next_time[act.n] = 0;	/* not known yet */
			act.step[act.n++] = 0;
		}
		soonest = next < nlives ? objs->lives[order[next]].alloc_ns
					: UINT64_MAX;
		for (size_t i = 0; i < act.n; i++) {
			if (act.next_time[i] >= t1 && !last) {
				/* Waits past this window: the life is not read. */
			} else if (emit_life(&st, act.life[i], &act.step[i],
					     &act.next_time[i], t1, geo->line)) {
				continue;
			}
			act.life[kept] = act.life[i];
			act.step[kept] = act.step[i];
			act.next_time[kept++] = act.next_time[i];
			if (act.next_time[i] < soonest)
				soonest = act.next_time[i];
		}
		act.n = kept;
		sorted = st.n ? sort_by_time(st.time, st.n, st.idx, st.tmp,
					     count) : st.idx;
		for (size_t i = 0; i < st.n; i++) {
			const struct sim_event *ev = &st.buf[sorted[i]];
			uint32_t life = ev->life;

			if (ev->flags & EV_START) {
				if (max_accesses && sim->accesses >= max_accesses) {
					skipped[life / 8] |= 1u << (life % 8);
					sim->lives_skipped++;
				} else {
					sim->lives++;
					sim->types[ev->type].lives++;
				}
				continue;
			}
			if (sim->lives_skipped &&
			    (skipped[life / 8] & (1u << (life % 8))))
				continue;
			replay_access(sim, &sc, &fa, ev, set_mask, &last_line,
				      batch_of);
			if (!--until_snapshot) {
				snapshot(sim, &sc);
				until_snapshot = every;
			}
		}
		/* Aim at WINDOW_EVENTS as the accesses thicken and thin. */
		if (st.n > 2 * WINDOW_EVENTS && delta > 1)
			delta /= 2;
		else if (st.n < WINDOW_EVENTS / 4 && delta < MAX_WINDOW_NS / 2)
			delta *= 2;
		/*
		 * The next window starts at the next event, not at t1: lives
		 * that wait long between accesses (hours in a fuzzed file)
		 * would otherwise cost one empty window per MAX_WINDOW_NS.
		 */
		t0 = soonest > t1 ? soonest : t1;
	}
	if (!sim->snapshots && sim->accesses)
		snapshot(sim, &sc);
	for (size_t i = 0; i < nr_types; i++)
		if (sim->snapshots)
			sim->types[i].lines_in_cache /= (double)sim->snapshots;
	for (size_t i = 0; i < nr_variants * geo->line; i++)
		free(st.ft.by_misalign[i]);
	free(st.ft.by_misalign);
	free(st.ft.base);
	free(st.buf);
	free(st.time);
	free(st.idx);
	free(st.tmp);
	free(count);
	free(act.life);
	free(act.step);
	free(act.next_time);
	free(skipped);
	free(batch_of);
	free(order);
	lru_free(&fa);
	free(sc.tag);
	free(sc.used);
	free(sc.owner);
}

void cachesim_free(struct cachesim *sim)
{
	free(sim->types);
	free(sim->set_misses);
	free(sim->set_conflict);
	memset(sim, 0, sizeof(*sim));
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The referee's cache model (see coherence.h).  Three structures:
 *  - a directory (table.c), one entry per line ever touched: each core's MESI
 *    state, whether it ever held the line, whether its copy was taken by
 *    another core's write (and which bytes were written since), the last
 *    writer;
 *  - set-associative tag arrays with LRU for each core's L1D and L2 and
 *    for the shared last level; a line is in a core's L2 exactly when its
 *    state there is not Invalid (L1 inside L2: inclusion);
 *  - per core, a fully associative LRU of the L2's size (a list and a
 *    chained hash), which tells conflict from capacity.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "coherence.h"
#include "table.h"

const char *const coh_result_names[COH_NR_RESULTS] = {
	[COH_HIT] = "hit", [COH_L1_MISS] = "l1_miss",
	[COH_UPGRADE] = "upgrade", [COH_COMPULSORY] = "compulsory",
	[COH_TRUE_SHARING] = "true_sharing",
	[COH_FALSE_SHARING] = "false_sharing", [COH_CONFLICT] = "conflict",
	[COH_CAPACITY] = "capacity",
};

enum mesi { M_I, M_S, M_E, M_M };

struct dir_entry {
	uint64_t line;			/* the table's key: line number + 1 */
	uint64_t written[COH_MAX_CORES];	/* bytes written since invalidated */
	uint8_t state[COH_MAX_CORES];	/* enum mesi */
	uint8_t seen;			/* cores that ever held it */
	uint8_t inval;			/* cores whose copy a write took */
	int8_t last_writer;
};

struct tags {
	uint64_t *tag;			/* line + 1 per way; 0 is empty */
	uint64_t *stamp;		/* last use, for LRU */
	unsigned int sets, ways;
};

struct fa_node {
	uint64_t line;
	uint32_t prev, next, hnext;	/* FA_NIL ends a list */
};

#define FA_NIL	UINT32_MAX

/* A fully associative LRU of @cap lines: most recent at head. */
struct fa_lru {
	struct fa_node *node;
	uint32_t *bucket;
	uint32_t cap, used, head, tail, free, mask;
};

struct coh_model {
	struct coh_geometry g;
	struct table dir;		/* of struct dir_entry */
	struct tags l1[COH_MAX_CORES], l2[COH_MAX_CORES], llc;
	struct fa_lru fa[COH_MAX_CORES];
	uint64_t now;
};

/* ---- the directory ----------------------------------------------------- */

static struct dir_entry *dir_get(struct coh_model *m, uint64_t line)
{
	struct dir_entry *e;
	unsigned int c;
	uint64_t used = m->dir.used;

	e = table_get(&m->dir, line);
	if (!e) {
		fprintf(stderr, "referee: out of memory for the line directory (%llu lines)\n",
			(unsigned long long)used);
		abort();
	}
	if (m->dir.used != used) {	/* new: nobody holds it */
		e->last_writer = -1;
		for (c = 0; c < COH_MAX_CORES; c++)
			e->state[c] = M_I;
	}
	return e;
}

/* ---- tag arrays -------------------------------------------------------- */

static int tags_init(struct tags *t, unsigned int kb, unsigned int ways)
{
	uint64_t lines = (uint64_t)kb * 1024 / COH_LINE;

	if (!ways || lines < ways || lines % ways)
		return -1;
	t->sets = lines / ways;
	if (t->sets & (t->sets - 1))
		return -1;		/* a power of two: index by bits */
	t->ways = ways;
	t->tag = calloc(lines, sizeof(*t->tag));
	t->stamp = calloc(lines, sizeof(*t->stamp));
	return t->tag && t->stamp ? 0 : -1;
}

static void tags_free(struct tags *t)
{
	free(t->tag);
	free(t->stamp);
}

static uint64_t *tags_set(const struct tags *t, uint64_t line,
			  uint64_t **stamp)
{
	uint64_t set = line & (t->sets - 1);

	*stamp = &t->stamp[set * t->ways];
	return &t->tag[set * t->ways];
}

/* Whether @line is present; a hit becomes the set's most recent. */
static bool tags_touch(struct tags *t, uint64_t line, uint64_t now)
{
	uint64_t *stamp, *tag = tags_set(t, line, &stamp);
	unsigned int w;

	for (w = 0; w < t->ways; w++)
		if (tag[w] == line + 1) {
			stamp[w] = now;
			return true;
		}
	return false;
}

/* Put @line in (absent); the line it evicted, or UINT64_MAX. */
static uint64_t tags_insert(struct tags *t, uint64_t line, uint64_t now)
{
	uint64_t *stamp, *tag = tags_set(t, line, &stamp), victim;
	unsigned int w, lru = 0;

	for (w = 0; w < t->ways; w++) {
		if (!tag[w]) {
			lru = w;
			break;
		}
		if (stamp[w] < stamp[lru])
			lru = w;
	}
	victim = tag[lru] ? tag[lru] - 1 : UINT64_MAX;
	tag[lru] = line + 1;
	stamp[lru] = now;
	return victim;
}

static void tags_remove(struct tags *t, uint64_t line)
{
	uint64_t *stamp, *tag = tags_set(t, line, &stamp);
	unsigned int w;

	for (w = 0; w < t->ways; w++)
		if (tag[w] == line + 1)
			tag[w] = 0;
}

/* ---- the fully associative shadow -------------------------------------- */

static int fa_init(struct fa_lru *f, uint32_t cap)
{
	uint32_t i, nb = 1;

	while (nb < cap * 2)
		nb <<= 1;
	f->node = calloc(cap, sizeof(*f->node));
	f->bucket = malloc(nb * sizeof(*f->bucket));
	if (!f->node || !f->bucket)
		return -1;
	for (i = 0; i < nb; i++)
		f->bucket[i] = FA_NIL;
	f->mask = nb - 1;
	f->cap = cap;
	f->used = 0;
	f->head = f->tail = FA_NIL;
	return 0;
}

static void fa_free(struct fa_lru *f)
{
	free(f->node);
	free(f->bucket);
}

static void fa_unlink(struct fa_lru *f, uint32_t n)
{
	struct fa_node *x = &f->node[n];

	if (x->prev != FA_NIL)
		f->node[x->prev].next = x->next;
	else
		f->head = x->next;
	if (x->next != FA_NIL)
		f->node[x->next].prev = x->prev;
	else
		f->tail = x->prev;
}

static void fa_push_head(struct fa_lru *f, uint32_t n)
{
	f->node[n].prev = FA_NIL;
	f->node[n].next = f->head;
	if (f->head != FA_NIL)
		f->node[f->head].prev = n;
	f->head = n;
	if (f->tail == FA_NIL)
		f->tail = n;
}

static void fa_unhash(struct fa_lru *f, uint32_t n)
{
	uint32_t *p = &f->bucket[table_hash(f->node[n].line) & f->mask];

	while (*p != n)
		p = &f->node[*p].hnext;
	*p = f->node[n].hnext;
}

/* Whether @line was held; it becomes the most recent either way. */
static bool fa_touch(struct fa_lru *f, uint64_t line)
{
	uint32_t *b = &f->bucket[table_hash(line) & f->mask], n;

	for (n = *b; n != FA_NIL; n = f->node[n].hnext)
		if (f->node[n].line == line) {
			fa_unlink(f, n);
			fa_push_head(f, n);
			return true;
		}
	if (f->used < f->cap) {
		n = f->used++;
	} else {
		n = f->tail;	/* the least recent goes */
		fa_unlink(f, n);
		fa_unhash(f, n);
	}
	f->node[n].line = line;
	f->node[n].hnext = *b;
	*b = n;
	fa_push_head(f, n);
	return false;
}

/* ---- the model --------------------------------------------------------- */

struct coh_model *coh_new(const struct coh_geometry *g, char *err)
{
	struct coh_model *m;
	unsigned int c;

	if (!g->cores || g->cores > COH_MAX_CORES) {
		snprintf(err, 128, "%u cores: the model takes 1 to %d",
			 g->cores, COH_MAX_CORES);
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		snprintf(err, 128, "out of memory");
		return NULL;
	}
	m->g = *g;
	if (table_init(&m->dir, sizeof(struct dir_entry), 1 << 20))
		goto nomem;
	for (c = 0; c < g->cores; c++) {
		if (tags_init(&m->l1[c], g->l1_kb, g->l1_ways) ||
		    tags_init(&m->l2[c], g->l2_kb, g->l2_ways)) {
			snprintf(err, 128, "L1 %u KiB %u-way or L2 %u KiB %u-way: sizes must give a power-of-two number of sets",
				 g->l1_kb, g->l1_ways, g->l2_kb, g->l2_ways);
			coh_free(m);
			return NULL;
		}
		if (fa_init(&m->fa[c], g->l2_kb * 1024 / COH_LINE))
			goto nomem;
	}
	if (tags_init(&m->llc, g->llc_kb, g->llc_ways)) {
		snprintf(err, 128, "LLC %u KiB %u-way: sizes must give a power-of-two number of sets",
			 g->llc_kb, g->llc_ways);
		coh_free(m);
		return NULL;
	}
	return m;
nomem:
	snprintf(err, 128, "out of memory");
	coh_free(m);
	return NULL;
}

void coh_free(struct coh_model *m)
{
	unsigned int c;

	if (!m)
		return;
	for (c = 0; c < COH_MAX_CORES; c++) {
		tags_free(&m->l1[c]);
		tags_free(&m->l2[c]);
		fa_free(&m->fa[c]);
	}
	tags_free(&m->llc);
	table_free(&m->dir);
	free(m);
}

uint64_t coh_lines(const struct coh_model *m)
{
	return m->dir.used;
}

static uint64_t byte_mask(unsigned int off, unsigned int size)
{
	if (off >= COH_LINE)
		return 0;
	if (size >= COH_LINE - off)
		return ~0ULL << off;
	return ((1ULL << size) - 1) << off;
}

/* Core @c's copy of @e goes (another core's write): its state and tags. */
static void invalidate(struct coh_model *m, struct dir_entry *e,
		       unsigned int c)
{
	uint64_t line = e->line - 1;

	tags_remove(&m->l1[c], line);
	tags_remove(&m->l2[c], line);
	e->state[c] = M_I;
	e->inval |= 1u << c;
	e->written[c] = 0;
}

/* Core @c's L2 evicted @line (its own doing: not an invalidation). */
static void evicted(struct coh_model *m, unsigned int c, uint64_t line)
{
	struct dir_entry *e = table_find(&m->dir, line);

	tags_remove(&m->l1[c], line);	/* inclusion */
	if (e) {
		e->state[c] = M_I;
		e->inval &= ~(1u << c);
	}
}

struct coh_outcome coh_access(struct coh_model *m, unsigned int core,
			      uint64_t addr, unsigned int size,
			      enum coh_kind kind)
{
	struct coh_outcome out = { .result = COH_HIT, .from_core = -1,
				   .modified_in = -1 };
	uint64_t line = addr / COH_LINE, bytes, victim;
	bool write = kind != COH_LOAD, in_fa, others = false;
	struct dir_entry *e;
	unsigned int c;

	if (core >= m->g.cores)
		core = m->g.cores - 1;
	bytes = byte_mask(addr % COH_LINE, size);
	e = dir_get(m, line);
	m->now++;
	in_fa = fa_touch(&m->fa[core], line);
	if (e->state[core] != M_I) {
		if (!tags_touch(&m->l1[core], line, m->now)) {
			out.result = COH_L1_MISS;
			tags_insert(&m->l1[core], line, m->now);
		}
		tags_touch(&m->l2[core], line, m->now);
		if (write && e->state[core] == M_S) {
			out.result = COH_UPGRADE;
			for (c = 0; c < m->g.cores; c++)
				if (c != core && e->state[c] != M_I)
					invalidate(m, e, c);
		}
		goto written;
	}
	/* A miss of the core's private caches: why it was not there. */
	if (e->inval & (1u << core)) {
		out.result = e->written[core] & bytes ? COH_TRUE_SHARING :
			     COH_FALSE_SHARING;
		out.from_core = e->last_writer;
	} else if (!(e->seen & (1u << core))) {
		out.result = COH_COMPULSORY;
	} else {
		out.result = in_fa ? COH_CONFLICT : COH_CAPACITY;
	}
	if (!tags_touch(&m->llc, line, m->now)) {
		out.llc_miss = true;
		tags_insert(&m->llc, line, m->now);
	}
	for (c = 0; c < m->g.cores; c++) {
		if (c == core || e->state[c] == M_I)
			continue;
		if (e->state[c] == M_M)
			out.modified_in = (int)c;
		if (write) {
			invalidate(m, e, c);
		} else {
			e->state[c] = M_S;	/* M writes back, E shares */
			others = true;
		}
	}
	victim = tags_insert(&m->l2[core], line, m->now);
	if (victim != UINT64_MAX)
		evicted(m, core, victim);
	tags_insert(&m->l1[core], line, m->now);
	e->seen |= 1u << core;
	e->inval &= ~(1u << core);
	e->written[core] = 0;
	e->state[core] = write ? M_M : others ? M_S : M_E;
written:
	if (!write)
		return out;
	e->state[core] = M_M;
	e->last_writer = core;
	/* Bytes written since each taken copy was taken. */
	for (c = 0; c < m->g.cores; c++)
		if (c != core && (e->inval & (1u << c)))
			e->written[c] |= bytes;
	return out;
}

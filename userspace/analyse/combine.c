// SPDX-License-Identifier: GPL-2.0
/*
 * Combined traces (see combine.h).  Per family of paths: consensus
 * projection per offset (hashed), the paths that agree with it, one node
 * per access of each consensus, order edges from the used paths, then a
 * greedy topological order that takes, among the next access of every
 * offset, the one whose predecessors are all placed (the least unplaced
 * weight when none is: a cycle from disagreeing paths).
 */
#include <stdlib.h>
#include <string.h>
#include "combine.h"
#include "util.h"

struct node {
	uint64_t ip;
	uint16_t offset;
	bool write;
	bool placed, by_time;
	double time_sum_ns;
	uint64_t histories;
	uint64_t samples, misses, latency_sum;
	bool have_samples;
	/* first step of a path: CPU changed since allocation or not */
	uint64_t first_change, first_same;
	/* last step of a path: freed on another CPU or not */
	uint64_t last_change, last_same;
	/* an odd or even number of CPU changes since allocation before it */
	uint64_t odd_changes, even_changes;
};

struct edge {
	size_t from, to;
	uint64_t weight;		/* histories */
	uint64_t change, same;		/* CPU changed between the two */
};

struct family {
	const struct path_set *ps;
	size_t *idx;			/* into ps->p, most histories first */
	size_t n;
	/* per path of the family, per watched slot: projection hash */
	uint64_t (*proj)[DPROF_HIST_MAX_OFFSETS];
	bool *used;
	uint16_t *offsets;
	size_t nr_offsets;
	uint64_t *consensus;		/* hash per offset */
	size_t *len, *base;		/* nodes per offset, first node */
	struct node *nodes;
	size_t nr_nodes;
	struct edge *edges;
	size_t nr_edges, cap_edges;
	bool *paired;			/* nr_offsets^2: watched together */
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x100000001b3ull;
	return h ^ (h >> 29);
}

/* The accesses of @p to @offset, as a hash (instruction, read/write). */
static uint64_t projection(const struct path *p, uint16_t offset)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t n = 0;

	for (size_t i = 0; i < p->nr_steps; i++) {
		if (p->steps[i].offset != offset)
			continue;
		h = mix(h, p->steps[i].ip);
		h = mix(h, p->steps[i].write);
		n++;
	}
	return mix(h, n);
}

static size_t projection_len(const struct path *p, uint16_t offset)
{
	size_t n = 0;

	for (size_t i = 0; i < p->nr_steps; i++)
		n += p->steps[i].offset == offset;
	return n;
}

static long offset_index(const struct family *f, uint16_t offset)
{
	size_t lo = 0, hi = f->nr_offsets;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (f->offsets[mid] == offset)
			return (long)mid;
		if (f->offsets[mid] < offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static int u16_cmp(const void *a, const void *b)
{
	uint16_t x = *(const uint16_t *)a, y = *(const uint16_t *)b;

	return (x > y) - (x < y);
}

static void collect_offsets(struct family *f)
{
	size_t n = 0;

	f->offsets = xcalloc(DPROF_HIST_MAX_OFFSETS * f->n + 1,
			     sizeof(*f->offsets));
	for (size_t i = 0; i < f->n; i++) {
		const struct path *p = &f->ps->p[f->idx[i]];

		for (int k = 0; k < p->nr_offsets; k++)
			f->offsets[n++] = p->offset[k];
	}
	if (n)
		qsort(f->offsets, n, sizeof(*f->offsets), u16_cmp);
	f->nr_offsets = 0;
	for (size_t i = 0; i < n; i++)
		if (!f->nr_offsets ||
		    f->offsets[f->nr_offsets - 1] != f->offsets[i])
			f->offsets[f->nr_offsets++] = f->offsets[i];
}

struct vote {
	uint64_t hash, histories;
};

static int vote_cmp(const void *a, const void *b)
{
	const struct vote *x = a, *y = b;

	return (x->hash > y->hash) - (x->hash < y->hash);
}

/*
 * Per offset, the projection most histories took (equal 64-bit hashes of
 * the access sequence count as equal projections).
 */
static void find_consensus(struct family *f)
{
	struct vote *v = xcalloc(f->n + 1, sizeof(*v));

	f->proj = xcalloc(f->n + 1, sizeof(*f->proj));
	for (size_t i = 0; i < f->n; i++) {
		const struct path *p = &f->ps->p[f->idx[i]];

		for (int k = 0; k < p->nr_offsets; k++)
			f->proj[i][k] = projection(p, p->offset[k]);
	}
	f->consensus = xcalloc(f->nr_offsets + 1, sizeof(*f->consensus));
	for (size_t o = 0; o < f->nr_offsets; o++) {
		uint64_t best = 0;
		size_t m = 0;

		for (size_t i = 0; i < f->n; i++) {
			const struct path *p = &f->ps->p[f->idx[i]];

			for (int k = 0; k < p->nr_offsets; k++)
				if (p->offset[k] == f->offsets[o]) {
					v[m].hash = f->proj[i][k];
					v[m++].histories = p->count;
				}
		}
		if (m)
			qsort(v, m, sizeof(*v), vote_cmp);
		for (size_t i = 0, j; i < m; i = j) {
			uint64_t sum = 0;

			for (j = i; j < m && v[j].hash == v[i].hash; j++)
				sum += v[j].histories;
			if (sum > best) {
				best = sum;
				f->consensus[o] = v[i].hash;
			}
		}
	}
	free(v);
}

static void pick_paths(struct family *f, struct combined_trace *c)
{
	f->used = xcalloc(f->n + 1, sizeof(*f->used));
	for (size_t i = 0; i < f->n; i++) {
		const struct path *p = &f->ps->p[f->idx[i]];
		bool ok = true;

		for (int k = 0; k < p->nr_offsets; k++)
			ok &= f->proj[i][k] ==
			      f->consensus[offset_index(f, p->offset[k])];
		f->used[i] = ok;
		if (ok) {
			c->paths_used++;
			c->histories_used += p->count;
		} else {
			c->paths_other++;
			c->histories_other += p->count;
		}
	}
}

/* Offsets no used path watched have no accesses to place: drop them. */
static void make_nodes(struct family *f)
{
	size_t kept = 0;

	f->len = xcalloc(f->nr_offsets + 1, sizeof(*f->len));
	f->base = xcalloc(f->nr_offsets + 1, sizeof(*f->base));
	for (size_t o = 0; o < f->nr_offsets; o++) {
		bool found = false;

		for (size_t i = 0; i < f->n && !found; i++) {
			const struct path *p = &f->ps->p[f->idx[i]];

			if (!f->used[i])
				continue;
			for (int k = 0; k < p->nr_offsets; k++)
				if (p->offset[k] == f->offsets[o]) {
					f->len[kept] = projection_len(p, p->offset[k]);
					found = true;
				}
		}
		if (found)
			f->offsets[kept++] = f->offsets[o];
	}
	f->nr_offsets = kept;
	for (size_t o = 0; o < kept; o++) {
		f->base[o] = f->nr_nodes;
		f->nr_nodes += f->len[o];
	}
	f->nodes = xcalloc(f->nr_nodes + 1, sizeof(*f->nodes));
	f->paired = xcalloc(kept * kept + 1, sizeof(*f->paired));
}

static void add_edge(struct family *f, size_t from, size_t to,
		     uint64_t weight, bool change)
{
	struct edge *e;

	if (f->nr_edges == f->cap_edges) {
		f->cap_edges = f->cap_edges ? 2 * f->cap_edges : 256;
		f->edges = xrealloc(f->edges, f->cap_edges * sizeof(*f->edges));
	}
	e = &f->edges[f->nr_edges++];
	e->from = from;
	e->to = to;
	e->weight = weight;
	e->change = change ? weight : 0;
	e->same = change ? 0 : weight;
}

static int edge_cmp(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;

	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	return (x->from > y->from) - (x->from < y->from);
}

/* Walk each used path: fill nodes, collect edges, mark watched pairs. */
static void walk_paths(struct family *f)
{
	size_t *next = xcalloc(f->nr_offsets + 1, sizeof(*next));
	size_t m = 0;

	for (size_t i = 0; i < f->n; i++) {
		const struct path *p = &f->ps->p[f->idx[i]];
		long prev = -1;
		bool odd = false;	/* CPU changes so far in the path */

		if (!f->used[i])
			continue;
		/* Every pair of the path's offsets was watched together. */
		for (int j = 0; j < p->nr_offsets; j++)
			for (int k = j + 1; k < p->nr_offsets; k++) {
				long a = offset_index(f, p->offset[j]);
				long b = offset_index(f, p->offset[k]);

				if (a < 0 || b < 0)
					continue;	/* dropped: no accesses */
				f->paired[a * f->nr_offsets + b] = true;
				f->paired[b * f->nr_offsets + a] = true;
			}
		memset(next, 0, f->nr_offsets * sizeof(*next));
		for (size_t s = 0; s < p->nr_steps; s++) {
			const struct path_step *st = &p->steps[s];
			long o = offset_index(f, st->offset);
			struct node *n;
			size_t id;

			if (o < 0 || next[o] >= f->len[o])
				continue;	/* cannot happen: consensus */
			id = f->base[o] + next[o]++;
			n = &f->nodes[id];
			n->ip = st->ip;
			n->offset = st->offset;
			n->write = st->write;
			n->time_sum_ns += st->time_sum_ns;
			n->histories += p->count;
			odd ^= st->cpu_change;
			if (odd)
				n->odd_changes += p->count;
			else
				n->even_changes += p->count;
			if (!n->have_samples) {
				n->samples = st->samples;
				n->misses = st->misses;
				n->latency_sum = st->latency_sum;
				n->have_samples = true;
			}
			if (prev < 0) {
				if (st->cpu_change)
					n->first_change += p->count;
				else
					n->first_same += p->count;
			} else {
				add_edge(f, (size_t)prev, id, p->count,
					 st->cpu_change);
			}
			prev = (long)id;
		}
		if (prev >= 0) {
			if (p->free_cpu_change)
				f->nodes[prev].last_change += p->count;
			else
				f->nodes[prev].last_same += p->count;
		}
	}
	free(next);
	/* Merge duplicates; sorted by target node for the in-edge scans. */
	if (f->nr_edges)
		qsort(f->edges, f->nr_edges, sizeof(*f->edges), edge_cmp);
	for (size_t i = 0; i < f->nr_edges; i++) {
		if (m && !edge_cmp(&f->edges[m - 1], &f->edges[i])) {
			f->edges[m - 1].weight += f->edges[i].weight;
			f->edges[m - 1].change += f->edges[i].change;
			f->edges[m - 1].same += f->edges[i].same;
		} else {
			f->edges[m++] = f->edges[i];
		}
	}
	f->nr_edges = m;
}

static const struct edge *find_edge(const struct family *f, size_t from,
				    size_t to)
{
	struct edge key = { .from = from, .to = to };

	if (!f->nr_edges)
		return NULL;
	return bsearch(&key, f->edges, f->nr_edges, sizeof(key), edge_cmp);
}

/* Edge weight into @id from nodes not placed yet. */
static uint64_t unplaced_in(const struct family *f, size_t id,
			    const size_t *in_begin)
{
	uint64_t w = 0;

	for (size_t e = in_begin[id]; e < in_begin[id + 1]; e++)
		if (!f->nodes[f->edges[e].from].placed)
			w += f->edges[e].weight;
	return w;
}

static double node_time(const struct node *n)
{
	return n->histories ? n->time_sum_ns / (double)n->histories : 0;
}

static enum combined_cpu majority(uint64_t change, uint64_t same)
{
	if (!change && !same)
		return COMBINED_CPU_UNKNOWN;
	return change > same ? COMBINED_CPU_CHANGE : COMBINED_CPU_SAME;
}

static void order_nodes(struct family *f, struct combined_trace *c)
{
	size_t *in_begin = xcalloc(f->nr_nodes + 2, sizeof(*in_begin));
	size_t *head = xcalloc(f->nr_offsets + 1, sizeof(*head));
	size_t *order = xcalloc(f->nr_nodes + 1, sizeof(*order));
	long prev = -1;

	for (size_t e = 0; e < f->nr_edges; e++) {
		in_begin[f->edges[e].to + 1]++;
		c->order_weight += f->edges[e].weight;
	}
	for (size_t i = 0; i < f->nr_nodes; i++)
		in_begin[i + 1] += in_begin[i];
	for (size_t o = 0; o < f->nr_offsets; o++)
		head[o] = f->base[o];
	c->steps = xcalloc(f->nr_nodes + 1, sizeof(*c->steps));
	for (size_t placed = 0; placed < f->nr_nodes; placed++) {
		long free_pick = -1, blocked_pick = -1;
		uint64_t blocked_w = 0;
		size_t nr_free = 0;
		struct combined_step *s;
		struct node *n;

		for (size_t o = 0; o < f->nr_offsets; o++) {
			size_t id = head[o];
			uint64_t w;

			if (id >= f->base[o] + f->len[o])
				continue;
			w = unplaced_in(f, id, in_begin);
			if (!w) {
				nr_free++;
				if (free_pick < 0 ||
				    node_time(&f->nodes[id]) <
				    node_time(&f->nodes[free_pick]))
					free_pick = (long)id;
			} else if (blocked_pick < 0 || w < blocked_w) {
				blocked_pick = (long)id;
				blocked_w = w;
			}
		}
		if (free_pick < 0) {
			/* A cycle: paths that disagree on the order. */
			free_pick = blocked_pick;
			c->order_broken += blocked_w;
		} else if (nr_free > 1) {
			/* Unordered by any path: mark every candidate. */
			for (size_t o = 0; o < f->nr_offsets; o++) {
				size_t id = head[o];

				if (id < f->base[o] + f->len[o] &&
				    !unplaced_in(f, id, in_begin))
					f->nodes[id].by_time = true;
			}
		}
		n = &f->nodes[free_pick];
		n->placed = true;
		head[offset_index(f, n->offset)]++;
		s = &c->steps[c->nr_steps++];
		s->ip = n->ip;
		s->offset = n->offset;
		s->write = n->write;
		s->time_mean_ns = node_time(n);
		s->histories = n->histories;
		s->side = n->odd_changes == n->even_changes ? -1 :
			  n->odd_changes > n->even_changes;
		s->samples = n->samples;
		s->misses = n->misses;
		s->latency_sum = n->latency_sum;
		if (prev < 0) {
			s->cpu = majority(n->first_change, n->first_same);
		} else {
			const struct edge *e = find_edge(f, (size_t)prev,
							 (size_t)free_pick);

			s->cpu = e ? majority(e->change, e->same) :
				     COMBINED_CPU_UNKNOWN;
		}
		c->cpu_changes += s->cpu == COMBINED_CPU_CHANGE;
		order[placed] = (size_t)free_pick;
		prev = free_pick;
	}
	/* A node is marked by_time as a candidate, maybe after its step. */
	for (size_t i = 0; i < c->nr_steps; i++) {
		c->steps[i].by_time = f->nodes[order[i]].by_time;
		c->by_time += c->steps[i].by_time;
	}
	c->free_cpu = prev < 0 ? COMBINED_CPU_UNKNOWN :
		      majority(f->nodes[prev].last_change,
			       f->nodes[prev].last_same);
	c->cpu_changes += c->free_cpu == COMBINED_CPU_CHANGE;
	free(order);
	free(head);
	free(in_begin);
}

static void family_free(struct family *f)
{
	free(f->proj);
	free(f->used);
	free(f->offsets);
	free(f->consensus);
	free(f->len);
	free(f->base);
	free(f->nodes);
	free(f->edges);
	free(f->paired);
}

static void combine_family(struct combined_set *cs, size_t *cap,
			   const struct path_set *ps, size_t *idx, size_t n)
{
	struct family f = { .ps = ps, .idx = idx, .n = n };
	struct combined_trace c = { 0 };
	const struct path *first = &ps->p[idx[0]];

	c.target = first->target;
	c.alloc_site = first->alloc_site;
	c.free_site = first->free_site;
	c.len = first->len;
	collect_offsets(&f);
	find_consensus(&f);
	pick_paths(&f, &c);
	make_nodes(&f);
	if (f.nr_offsets < 2) {
		/* One offset: the path trace itself, nothing to combine. */
		family_free(&f);
		return;
	}
	walk_paths(&f);
	order_nodes(&f, &c);
	c.nr_offsets = f.nr_offsets;
	c.offsets = xcalloc(f.nr_offsets, sizeof(*c.offsets));
	memcpy(c.offsets, f.offsets, f.nr_offsets * sizeof(*c.offsets));
	c.pairs = f.nr_offsets * (f.nr_offsets - 1) / 2;
	for (size_t a = 0; a < f.nr_offsets; a++)
		for (size_t b = a + 1; b < f.nr_offsets; b++)
			c.pairs_watched += f.paired[a * f.nr_offsets + b];
	if (cs->n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		cs->c = xrealloc(cs->c, *cap * sizeof(*cs->c));
	}
	cs->c[cs->n++] = c;
	family_free(&f);
}

/*
 * qsort_r: indices into @set's paths in family order: target, allocation
 * site, free site, count.
 */
static int family_cmp(const void *a, const void *b, void *set)
{
	const struct path_set *ps = set;
	const struct path *x = &ps->p[*(const size_t *)a];
	const struct path *y = &ps->p[*(const size_t *)b];

	if (x->target != y->target)
		return x->target < y->target ? -1 : 1;
	if (x->alloc_site != y->alloc_site)
		return x->alloc_site < y->alloc_site ? -1 : 1;
	if (x->free_site != y->free_site)
		return x->free_site < y->free_site ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return (x->first_id > y->first_id) - (x->first_id < y->first_id);
}

static int trace_cmp(const void *a, const void *b)
{
	const struct combined_trace *x = a, *y = b;

	if (x->target != y->target)
		return x->target < y->target ? -1 : 1;
	if (x->histories_used != y->histories_used)
		return x->histories_used > y->histories_used ? -1 : 1;
	return (x->alloc_site > y->alloc_site) - (x->alloc_site < y->alloc_site);
}

void combine_build(struct combined_set *cs, const struct path_set *ps)
{
	size_t *idx, cap = 0;

	memset(cs, 0, sizeof(*cs));
	if (!ps->n)
		return;
	idx = xcalloc(ps->n, sizeof(*idx));
	for (size_t i = 0; i < ps->n; i++)
		idx[i] = i;
	qsort_r(idx, ps->n, sizeof(*idx), family_cmp, (void *)ps);
	for (size_t i = 0, j; i < ps->n; i = j) {
		const struct path *p = &ps->p[idx[i]];

		for (j = i + 1; j < ps->n; j++) {
			const struct path *q = &ps->p[idx[j]];

			if (q->target != p->target ||
			    q->alloc_site != p->alloc_site ||
			    q->free_site != p->free_site)
				break;
		}
		combine_family(cs, &cap, ps, idx + i, j - i);
	}
	if (cs->n)
		qsort(cs->c, cs->n, sizeof(*cs->c), trace_cmp);
	free(idx);
}

void combine_free(struct combined_set *cs)
{
	for (size_t i = 0; i < cs->n; i++) {
		free(cs->c[i].offsets);
		free(cs->c[i].steps);
	}
	free(cs->c);
	memset(cs, 0, sizeof(*cs));
}

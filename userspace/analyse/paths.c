// SPDX-License-Identifier: GPL-2.0
/*
 * Path traces (see paths.h).  Every complete history is reduced to its
 * path key; a hash table from key to path merges equal ones.  Histories
 * are taken in id order, which is the order the module armed them, so the
 * coverage curve shows how many new paths later histories still found.
 */
#include <stdlib.h>
#include <string.h>
#include "paths.h"
#include "util.h"

/* Aggregated samples by (target, offset, ip), for the steps' statistics. */
struct sample_key {
	unsigned int target;
	uint16_t offset;
	uint64_t ip;
	uint64_t samples, misses, latency_sum;
};

static int sample_cmp(const void *a, const void *b)
{
	const struct sample_key *x = a, *y = b;

	if (x->target != y->target)
		return x->target < y->target ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return x->ip < y->ip ? -1 : x->ip > y->ip;
}

static struct sample_key *sample_index(const struct recording *r, size_t *n)
{
	struct sample_key *k = xcalloc(r->nr_samples ? r->nr_samples : 1,
				       sizeof(*k));
	size_t i, m = 0;

	for (i = 0; i < r->nr_samples; i++) {
		const struct dprof_sample_agg *e = &r->samples[i];
		uint64_t ip = e->ip;

		if (e->flags & DPROF_AGG_WATCH_IP) {
			uint64_t a = ipmap_lookup(r, e->ip);

			ip = a ? a : e->ip;
		}
		k[m].target = e->target;
		k[m].offset = e->offset;
		k[m].ip = ip;
		k[m].samples = e->count;
		k[m].misses = e->misses;
		k[m].latency_sum = e->latency_sum;
		m++;
	}
	if (m)
		qsort(k, m, sizeof(*k), sample_cmp);
	/* Sum entries of other CPUs and data sources. */
	for (i = 0, *n = 0; i < m; i++) {
		if (*n && !sample_cmp(&k[*n - 1], &k[i])) {
			k[*n - 1].samples += k[i].samples;
			k[*n - 1].misses += k[i].misses;
			k[*n - 1].latency_sum += k[i].latency_sum;
		} else {
			k[(*n)++] = k[i];
		}
	}
	return k;
}

/* Samples of one step: any sampled byte of its watched slot. */
static void step_samples(const struct sample_key *k, size_t n,
			 unsigned int target, const struct path_step *s,
			 unsigned int len, struct path_step *out)
{
	for (unsigned int b = 0; b < (len ? len : 1); b++) {
		struct sample_key key = { .target = target,
					  .offset = (uint16_t)(s->offset + b),
					  .ip = s->ip };
		const struct sample_key *hit;

		if (!n)
			return;
		hit = bsearch(&key, k, n, sizeof(*k), sample_cmp);
		if (hit) {
			out->samples += hit->samples;
			out->misses += hit->misses;
			out->latency_sum += hit->latency_sum;
		}
	}
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	/* FNV-1a over the 8 bytes of v. */
	for (int i = 0; i < 8; i++) {
		h ^= (v >> (8 * i)) & 0xff;
		h *= 0x100000001b3ull;
	}
	return h;
}

/* The key of history @h, as path steps (time and samples left zero). */
static void key_of(const struct history *h, struct path *key)
{
	uint64_t hash = 0xcbf29ce484222325ull;
	int cpu = h->alloc_cpu;

	memset(key, 0, sizeof(*key));
	key->target = h->target;
	key->nr_offsets = h->nr_offsets;
	memcpy(key->offset, h->offset, sizeof(key->offset));
	key->len = h->len;
	key->alloc_site = h->alloc_site;
	key->free_site = h->free_site;
	key->steps = xcalloc(h->nr_elems ? h->nr_elems : 1,
			     sizeof(*key->steps));
	key->nr_steps = h->nr_elems;
	for (size_t i = 0; i < h->nr_elems; i++) {
		const struct hist_elem *e = &h->elems[i];
		struct path_step *s = &key->steps[i];

		s->ip = e->ip;
		s->offset = e->offset;
		s->write = e->write;
		s->cpu_change = e->cpu != cpu;
		cpu = e->cpu;
		hash = mix(hash, s->ip);
		hash = mix(hash, (uint64_t)s->offset << 2 | s->write << 1 |
				 s->cpu_change);
	}
	key->free_cpu_change = h->end_cpu != cpu;
	hash = mix(hash, key->target);
	for (int k = 0; k < key->nr_offsets; k++)
		hash = mix(hash, key->offset[k]);
	hash = mix(hash, key->alloc_site);
	hash = mix(hash, key->free_site);
	key->hash = mix(hash, key->free_cpu_change);
}

static bool same_path(const struct path *a, const struct path *b)
{
	if (a->hash != b->hash || a->target != b->target ||
	    a->nr_offsets != b->nr_offsets ||
	    !offsets_equal(a->offset, b->offset) ||
	    a->alloc_site != b->alloc_site ||
	    a->free_site != b->free_site ||
	    a->free_cpu_change != b->free_cpu_change ||
	    a->nr_steps != b->nr_steps)
		return false;
	for (size_t i = 0; i < a->nr_steps; i++) {
		const struct path_step *x = &a->steps[i], *y = &b->steps[i];

		if (x->ip != y->ip || x->offset != y->offset ||
		    x->write != y->write || x->cpu_change != y->cpu_change)
			return false;
	}
	return true;
}

/* Open addressing from hash to index in ps->p; grows at half full. */
struct path_table {
	size_t *slot;		/* index + 1; 0 empty */
	size_t cap;
};

static void table_put(struct path_table *t, const struct path_set *ps,
		      size_t idx)
{
	size_t i = ps->p[idx].hash & (t->cap - 1);

	while (t->slot[i])
		i = (i + 1) & (t->cap - 1);
	t->slot[i] = idx + 1;
}

static void table_grow(struct path_table *t, const struct path_set *ps)
{
	free(t->slot);
	t->cap = t->cap ? 2 * t->cap : 1024;
	t->slot = xcalloc(t->cap, sizeof(*t->slot));
	for (size_t i = 0; i < ps->n; i++)
		table_put(t, ps, i);
}

static long table_find(const struct path_table *t, const struct path_set *ps,
		       const struct path *key)
{
	size_t i = key->hash & (t->cap - 1);

	while (t->slot[i]) {
		if (same_path(&ps->p[t->slot[i] - 1], key))
			return (long)(t->slot[i] - 1);
		i = (i + 1) & (t->cap - 1);
	}
	return -1;
}

static int by_target_count(const void *a, const void *b)
{
	const struct path *x = a, *y = b;

	if (x->target != y->target)
		return x->target < y->target ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->first_id < y->first_id ? -1 : x->first_id > y->first_id;
}

void paths_build(struct path_set *ps, const struct recording *r,
		 const struct history_set *hs)
{
	struct path_table table = { 0 };
	struct sample_key *samples;
	size_t nr_samples, cap = 0;

	memset(ps, 0, sizeof(*ps));
	ps->nr_targets = r->nr_targets;
	ps->t = xcalloc(ps->nr_targets ? ps->nr_targets : 1, sizeof(*ps->t));
	for (size_t t = 0; t < ps->nr_targets; t++)
		ps->t[t].growth = xcalloc(hs->n ? hs->n : 1,
					  sizeof(*ps->t[t].growth));
	samples = sample_index(r, &nr_samples);
	table_grow(&table, ps);
	for (size_t i = 0; i < hs->n; i++) {	/* by id: arming order */
		const struct history *h = &hs->h[i];
		struct path_target *pt;
		struct path key;
		long found;

		if (h->target < 0 || (size_t)h->target >= ps->nr_targets)
			continue;
		pt = &ps->t[h->target];
		if (!history_complete(h)) {
			pt->skipped++;
			continue;
		}
		key_of(h, &key);
		found = table_find(&table, ps, &key);
		if (found < 0) {
			if (ps->n == cap) {
				cap = cap ? 2 * cap : 64;
				ps->p = xrealloc(ps->p, cap * sizeof(*ps->p));
			}
			key.first_id = h->id;
			for (size_t k = 0; k < key.nr_steps; k++)
				step_samples(samples, nr_samples, h->target,
					     &key.steps[k], h->len,
					     &key.steps[k]);
			ps->p[ps->n++] = key;
			found = (long)ps->n - 1;
			if (2 * ps->n > table.cap)
				table_grow(&table, ps);
			else
				table_put(&table, ps, (size_t)found);
			pt->nr_paths++;
		} else {
			free(key.steps);
		}
		ps->p[found].count++;
		ps->p[found].lifetime_sum_ns += (double)(h->end_ns - h->alloc_ns);
		for (size_t k = 0; k < h->nr_elems; k++)
			ps->p[found].steps[k].time_sum_ns += h->elems[k].time_ns;
		pt->growth[pt->histories].histories = pt->histories + 1;
		pt->growth[pt->histories].paths = pt->nr_paths;
		pt->histories++;
	}
	if (ps->n)
		qsort(ps->p, ps->n, sizeof(*ps->p), by_target_count);
	free(table.slot);
	free(samples);
}

size_t paths_new_in_tail(const struct path_target *t, double frac)
{
	size_t from;

	if (!t->histories)
		return 0;
	from = (size_t)((double)t->histories * (1.0 - frac));
	if (from >= t->histories)
		return 0;
	return t->growth[t->histories - 1].paths -
	       (from ? t->growth[from - 1].paths : 0);
}

void paths_free(struct path_set *ps)
{
	for (size_t i = 0; i < ps->n; i++)
		free(ps->p[i].steps);
	free(ps->p);
	for (size_t t = 0; t < ps->nr_targets; t++)
		free(ps->t[t].growth);
	free(ps->t);
	memset(ps, 0, sizeof(*ps));
}

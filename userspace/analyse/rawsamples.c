// SPDX-License-Identifier: GPL-2.0
/*
 * Raw sample aggregation (see rawsamples.h): one pass over the records
 * with an open-addressing table of entries, doubled at half full.
 */
#include <stdlib.h>
#include <string.h>
#include "rawsamples.h"
#include "util.h"

struct agg_table {
	struct dprof_sample_agg *e;
	size_t cap, n;		/* cap a power of two */
};

static uint64_t key_hash(uint16_t target, uint16_t offset, uint64_t ip,
			 uint8_t src, uint16_t cpu)
{
	uint64_t h = ip ^ ((uint64_t)target << 48) ^ ((uint64_t)offset << 32) ^
		     ((uint64_t)src << 24) ^ cpu;

	/*
	 * The murmur3 finaliser: the table uses the low bits, which a bare
	 * multiply leaves dependent on the key's low bits only.
	 */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 33);
}

static bool same(const struct dprof_sample_agg *e, uint16_t target,
		 uint16_t offset, uint64_t ip, uint8_t src, uint16_t cpu)
{
	return e->ip == ip && e->offset == offset && e->target == target &&
	       e->src == src && e->cpu == cpu;
}

static struct dprof_sample_agg *slot_at(struct agg_table *t, uint64_t hash,
					uint16_t target, uint16_t offset,
					uint64_t ip, uint8_t src, uint16_t cpu)
{
	size_t i = hash & (t->cap - 1);

	while (t->e[i].count && !same(&t->e[i], target, offset, ip, src, cpu))
		i = (i + 1) & (t->cap - 1);
	return &t->e[i];
}

static struct dprof_sample_agg *slot(struct agg_table *t, uint16_t target,
				     uint16_t offset, uint64_t ip, uint8_t src,
				     uint16_t cpu)
{
	return slot_at(t, key_hash(target, offset, ip, src, cpu), target,
		       offset, ip, src, cpu);
}

static void grow(struct agg_table *t)
{
	struct agg_table bigger = { .cap = t->cap ? 2 * t->cap : 4096 };

	bigger.e = xcalloc(bigger.cap, sizeof(*bigger.e));
	for (size_t i = 0; i < t->cap; i++)
		if (t->e[i].count)
			*slot(&bigger, t->e[i].target, t->e[i].offset,
			      t->e[i].ip, t->e[i].src, t->e[i].cpu) = t->e[i];
	bigger.n = t->n;
	free(t->e);
	*t = bigger;
}

/*
 * Samples wait in a small ring after their slot was prefetched: with
 * many distinct keys the table is larger than the caches, and one
 * sample's miss then overlaps the next ones' instead of adding up.
 */
#define AHEAD 16

struct pending {
	struct dprof_sample_rec s;
	uint64_t hash;
};

static void add(struct agg_table *t, const struct pending *p)
{
	const struct dprof_sample_rec *s = &p->s;
	struct dprof_sample_agg *e;

	e = slot_at(t, p->hash, s->hdr.target, s->offset, s->ip, s->src,
		    s->hdr.cpu);
	if (!e->count) {
		e->ip = s->ip;
		e->offset = s->offset;
		e->target = s->hdr.target;
		e->src = s->src;
		e->cpu = s->hdr.cpu;
		e->flags = s->hdr.flags & DPROF_SAMPLE_TRAP_IP ?
			   DPROF_AGG_WATCH_IP : 0;
		t->n++;
	}
	e->count++;
	e->loads += !!(s->hdr.flags & DPROF_SAMPLE_LOAD);
	e->stores += !!(s->hdr.flags & DPROF_SAMPLE_STORE);
	if (s->hdr.flags & DPROF_SAMPLE_MISS) {
		e->misses++;
		e->latency_sum += s->latency;
	}
	if (2 * t->n > t->cap)
		grow(t);
}

size_t raw_samples_aggregate(const struct recording *r,
			     struct dprof_sample_agg **out)
{
	struct agg_table t = { 0 };
	const struct dprof_rec_hdr *hdr;
	struct pending ring[AHEAD];
	struct rec_iter it;
	size_t n = 0, queued = 0;

	grow(&t);
	rec_iter_init(&it, r);
	while ((hdr = rec_iter_next(&it))) {
		struct pending *p = &ring[queued % AHEAD];

		/* Site records alone are not the whole of the samples. */
		if (hdr->kind != DPROF_REC_SAMPLE ||
		    hdr->flags & DPROF_SAMPLE_SITE_ONLY)
			continue;
		if (queued >= AHEAD)
			add(&t, p);	/* the oldest, prefetched AHEAD ago */
		rec_sample(hdr, &p->s);
		p->hash = key_hash(hdr->target, p->s.offset, p->s.ip, p->s.src,
				   hdr->cpu);
		__builtin_prefetch(&t.e[p->hash & (t.cap - 1)], 1);
		queued++;
	}
	for (size_t k = queued > AHEAD ? queued - AHEAD : 0; k < queued; k++)
		add(&t, &ring[k % AHEAD]);
	*out = xcalloc(t.n ? t.n : 1, sizeof(**out));
	for (size_t i = 0; i < t.cap; i++)
		if (t.e[i].count)
			(*out)[n++] = t.e[i];
	free(t.e);
	return n;
}

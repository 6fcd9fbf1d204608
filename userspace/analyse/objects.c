// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "objects.h"
#include "util.h"

struct obj_event {
	uint64_t time_ns;
	uint64_t addr;
	uint16_t cpu;
	uint8_t kind;
	uint16_t target;
	uint8_t flags;
};

/* Time order; at equal times a free precedes an allocation (reuse). */
static int event_cmp(const void *a, const void *b)
{
	const struct obj_event *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind == DPROF_REC_FREE ? -1 : 1;
	return 0;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A matched free: its address, and whether another CPU made it. */
struct obj_pair {
	uint64_t addr;
	uint16_t target;
	bool remote;
};

static int pair_cmp(const void *a, const void *b)
{
	const struct obj_pair *x = a, *y = b;

	if (x->target != y->target)
		return x->target < y->target ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * How far the 95% Wilson interval of a share @p over @n units reaches
 * from @p on its longer side: the floor of the bounce's half-width.  When
 * every address agrees (all local, all remote) the clusters' variance is
 * 0, and "0% ±0" over 2 addresses would claim what they cannot show.
 */
static double wilson_reach(double p, size_t n)
{
	const double z = 1.96, z2 = z * z;
	double centre = (p + z2 / (2.0 * n)) / (1 + z2 / n);
	double half = z * sqrt(p * (1 - p) / n + z2 / (4.0 * n * n)) /
		      (1 + z2 / n);

	return fmax(centre + half - p, p - (centre - half));
}

/*
 * Each target's bounce interval over distinct addresses (a ratio
 * estimator with the addresses as clusters): with m_a the matched frees
 * of address a and r_a the remote ones, b = sum r / sum m and
 * var(b) = n / (n - 1) * sum (r_a - b m_a)^2 / (sum m)^2 over the n
 * addresses, its half-width at least wilson_reach() over the n
 * addresses.  @pairs sorted by target, then address.
 */
static void bounce_intervals(struct obj_summary *out, const struct obj_pair *pairs,
			     size_t nr)
{
	size_t i = 0;

	for (size_t t = 0; t < out->nr_targets; t++)
		out->targets[t].bounce_err = -1;
	while (i < nr) {
		struct obj_target_stats *s = &out->targets[pairs[i].target];
		size_t first = i, n = 0;
		double b, sum = 0;

		/* This target's pairs: the estimate is its remote/matched. */
		b = s->matched ? (double)s->remote_frees / s->matched : 0;
		while (i < nr && pairs[i].target == pairs[first].target) {
			uint64_t m = 0, r = 0, addr = pairs[i].addr;

			for (; i < nr && pairs[i].target == pairs[first].target &&
			       pairs[i].addr == addr; i++) {
				m++;
				r += pairs[i].remote;
			}
			sum += ((double)r - b * m) * ((double)r - b * m);
			n++;
		}
		s->bounce_addrs = n;
		if (n >= 2 && s->matched)
			s->bounce_err = fmax(1.96 * sqrt((double)n / (n - 1) * sum) /
					     (double)s->matched,
					     wilson_reach(b, n));
	}
}

/* addr -> allocation, open addressing with backward-shift deletion. */
struct live_map {
	struct live_slot {
		uint64_t addr;	/* 0: empty */
		uint64_t time_ns;
		size_t life;	/* index in obj_summary.lives */
		uint16_t cpu;
		uint16_t target;
	} *slots;
	size_t mask, used;
};

static size_t live_hash(uint64_t addr, size_t mask)
{
	return (size_t)((addr >> 3) * 0x9e3779b97f4a7c15ULL >> 17) & mask;
}

static void live_grow(struct live_map *m);

static struct live_slot *live_find(struct live_map *m, uint64_t addr)
{
	for (size_t i = live_hash(addr, m->mask);; i = (i + 1) & m->mask) {
		if (m->slots[i].addr == addr)
			return &m->slots[i];
		if (!m->slots[i].addr)
			return NULL;
	}
}

static void live_put(struct live_map *m, const struct live_slot *v)
{
	size_t i;

	if ((m->used + 1) * 2 > m->mask + 1)
		live_grow(m);
	for (i = live_hash(v->addr, m->mask); m->slots[i].addr &&
	     m->slots[i].addr != v->addr; i = (i + 1) & m->mask)
		;
	if (!m->slots[i].addr)
		m->used++;
	m->slots[i] = *v;
}

static void live_grow(struct live_map *m)
{
	struct live_map bigger = {
		.mask = m->slots ? m->mask * 2 + 1 : 1023,
	};

	bigger.slots = xcalloc(bigger.mask + 1, sizeof(*bigger.slots));
	for (size_t i = 0; m->slots && i <= m->mask; i++)
		if (m->slots[i].addr)
			live_put(&bigger, &m->slots[i]);
	free(m->slots);
	*m = bigger;
}

static void live_delete(struct live_map *m, struct live_slot *slot)
{
	size_t i = slot - m->slots, j = i;

	for (;;) {
		size_t home;

		m->slots[i].addr = 0;
		for (;;) {
			j = (j + 1) & m->mask;
			if (!m->slots[j].addr) {
				m->used--;
				return;
			}
			home = live_hash(m->slots[j].addr, m->mask);
			/* Can slot j's entry move back to i? */
			if (i <= j ? (home <= i || home > j) :
				     (home <= i && home > j))
				break;
		}
		m->slots[i] = m->slots[j];
		i = j;
	}
}

static struct obj_event *collect(const struct recording *r, size_t *n,
				 int *max_cpu)
{
	struct rec_iter it;
	const struct dprof_rec_hdr *hdr;
	size_t cap = r->kind_count[DPROF_REC_ALLOC] +
		     r->kind_count[DPROF_REC_FREE];
	struct obj_event *ev = xmalloc(cap * sizeof(*ev));

	*n = 0;
	*max_cpu = 0;
	rec_iter_init(&it, r);
	while ((hdr = rec_iter_next(&it))) {
		const struct dprof_obj_event *o = (const void *)hdr;

		if (hdr->kind != DPROF_REC_ALLOC && hdr->kind != DPROF_REC_FREE)
			continue;
		ev[*n] = (struct obj_event){
			.time_ns = o->time_ns, .addr = o->addr,
			.cpu = hdr->cpu, .kind = hdr->kind,
			.target = hdr->target, .flags = hdr->flags,
		};
		if (hdr->cpu > *max_cpu)
			*max_cpu = hdr->cpu;
		(*n)++;
	}
	return ev;
}

int objects_summarize(const struct recording *r, struct obj_summary *out)
{
	struct live_map live = { 0 };
	uint64_t **lifetimes;
	size_t *nr_lifetimes, n, nr_pairs = 0;
	int max_cpu;
	struct obj_event *ev = collect(r, &n, &max_cpu);
	struct obj_pair *pairs;

	memset(out, 0, sizeof(*out));
	out->nr_cpus = max_cpu + 1;
	if (out->nr_cpus > OBJ_MAX_CPUS) {
		free(ev);
		return -1;
	}
	out->nr_targets = r->nr_targets;
	out->lost_marked = r->lost_marked;
	out->targets = xcalloc(r->nr_targets, sizeof(*out->targets));
	lifetimes = xcalloc(r->nr_targets, sizeof(*lifetimes));
	nr_lifetimes = xcalloc(r->nr_targets, sizeof(*nr_lifetimes));
	for (size_t t = 0; t < r->nr_targets; t++) {
		out->targets[t].cpu = xcalloc(out->nr_cpus,
					      sizeof(struct obj_cpu_stats));
		lifetimes[t] = xmalloc((r->kind_count[DPROF_REC_FREE] + 1) *
				       sizeof(uint64_t));
	}
	pairs = xmalloc((r->kind_count[DPROF_REC_FREE] + 1) * sizeof(*pairs));
	live_grow(&live);
	if (n)
		qsort(ev, n, sizeof(*ev), event_cmp);
	out->lives = xcalloc(r->kind_count[DPROF_REC_ALLOC] + 1,
			     sizeof(*out->lives));
	if (n) {
		out->first_ns = ev[0].time_ns;
		out->last_ns = ev[n - 1].time_ns;
	}
	for (size_t i = 0; i < n; i++) {
		struct obj_target_stats *t = &out->targets[ev[i].target];
		struct live_slot *slot;

		if (ev[i].kind == DPROF_REC_ALLOC) {
			struct live_slot v = {
				.addr = ev[i].addr, .time_ns = ev[i].time_ns,
				.cpu = ev[i].cpu, .target = ev[i].target,
				.life = out->nr_lives,
			};

			out->lives[out->nr_lives++] = (struct obj_life){
				.addr = ev[i].addr, .alloc_ns = ev[i].time_ns,
				.end_ns = out->last_ns, .target = ev[i].target,
			};
			t->allocs++;
			t->cpu[ev[i].cpu].allocs++;
			t->bulk_allocs += !!(ev[i].flags & DPROF_OBJ_BULK);
			t->untracked += !!(ev[i].flags & DPROF_OBJ_UNTRACKED);
			live_put(&live, &v);
			continue;
		}
		t->frees++;
		t->cpu[ev[i].cpu].frees++;
		t->bulk_frees += !!(ev[i].flags & DPROF_OBJ_BULK);
		slot = live_find(&live, ev[i].addr);
		if (!slot || slot->target != ev[i].target) {
			t->unmatched_frees++;
			continue;
		}
		t->matched++;
		if (slot->cpu != ev[i].cpu) {
			t->remote_frees++;
			t->cpu[ev[i].cpu].remote_frees++;
		}
		pairs[nr_pairs++] = (struct obj_pair){
			.addr = ev[i].addr, .target = ev[i].target,
			.remote = slot->cpu != ev[i].cpu,
		};
		lifetimes[ev[i].target][nr_lifetimes[ev[i].target]++] =
			ev[i].time_ns - slot->time_ns;
		out->lives[slot->life].end_ns = ev[i].time_ns;
		out->lives[slot->life].freed = true;
		live_delete(&live, slot);
	}
	for (size_t i = 0; i <= live.mask; i++)
		if (live.slots[i].addr)
			out->targets[live.slots[i].target].live_at_end++;
	if (nr_pairs)
		qsort(pairs, nr_pairs, sizeof(*pairs), pair_cmp);
	bounce_intervals(out, pairs, nr_pairs);
	free(pairs);
	for (size_t t = 0; t < r->nr_targets; t++) {
		struct obj_target_stats *s = &out->targets[t];
		size_t k = nr_lifetimes[t];
		double sum = 0;

		qsort(lifetimes[t], k, sizeof(uint64_t), u64_cmp);
		for (size_t i = 0; i < k; i++)
			sum += lifetimes[t][i];
		if (k) {
			s->lifetime_mean_ns = sum / k;
			s->lifetime_p50_ns = lifetimes[t][k / 2];
			s->lifetime_p90_ns = lifetimes[t][k * 9 / 10];
			s->lifetime_max_ns = lifetimes[t][k - 1];
		}
		free(lifetimes[t]);
	}
	free(lifetimes);
	free(nr_lifetimes);
	free(live.slots);
	free(ev);
	return 0;
}

void objects_free(struct obj_summary *s)
{
	for (size_t t = 0; t < s->nr_targets; t++)
		free(s->targets[t].cpu);
	free(s->targets);
	free(s->lives);
	memset(s, 0, sizeof(*s));
}

// SPDX-License-Identifier: GPL-2.0
/* Accesses per second from complete histories (see lives.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "diffstat.h"
#include "lives.h"
#include "util.h"
#include "trackrule.h"

/* The items of @t's plan: the groups of offsets a history watches. */
static unsigned int plan_items(const struct recording *r, int t)
{
	unsigned int n = 0;

	for (size_t i = 0; i < r->nr_plans; i++)
		n += r->plans[i].target == t;
	return n;
}

/*
 * Allocations of @t in the recording, tracked ones scaled: those the
 * cache's rule at the end keeps, each standing for track_one_in (the
 * rule only grows coarser during a run, trackrule.h: the ones recorded
 * under a finer rule before are left out, not counted that many times).
 */
static uint64_t allocs_of(const struct recording *r, int t)
{
	unsigned int one_in = recording_track_one_in(r, (size_t)t);
	unsigned int shift = (unsigned int)__builtin_ctz(one_in);
	const struct dprof_rec_hdr *hdr;
	struct rec_iter it;
	uint64_t n = 0;

	rec_iter_init(&it, r);
	while ((hdr = rec_iter_next(&it))) {
		const struct dprof_obj_event *o = (const void *)hdr;

		n += hdr->kind == DPROF_REC_ALLOC && hdr->target == t &&
		     !(hdr->flags & DPROF_OBJ_UNTRACKED) &&
		     dprof_track_rule(o->addr, shift);
	}
	return n * one_in;
}

void lives_build(struct lives *l, const struct recording *r,
		 const struct history_set *hs)
{
	double *sum = xcalloc(r->nr_targets + 1, sizeof(*sum));
	double *sq = xcalloc(r->nr_targets + 1, sizeof(*sq));
	uint64_t *n = xcalloc(r->nr_targets + 1, sizeof(*n));
	uint64_t *cut = xcalloc(r->nr_targets + 1, sizeof(*cut));

	memset(l, 0, sizeof(*l));
	l->seconds = r->end.duration_ns / 1e9;
	for (size_t i = 0; i < hs->n; i++) {
		const struct history *h = &hs->h[i];

		if (h->target < 0 || (size_t)h->target >= r->nr_targets)
			continue;
		if (!history_complete(h)) {
			cut[h->target] += h->reason != 0;
			continue;
		}
		n[h->target]++;
		sum[h->target] += (double)h->nr_elems;
		sq[h->target] += (double)h->nr_elems * (double)h->nr_elems;
	}
	l->t = xcalloc(r->nr_targets + 1, sizeof(*l->t));
	for (size_t t = 0; t < r->nr_targets; t++) {
		struct lives_type *x;
		double m, var, scale;

		if (!n[t])
			continue;
		x = &l->t[l->n++];
		x->target = (int)t;
		x->lives = n[t];
		x->cut = cut[t];
		x->items = plan_items(r, (int)t);
		m = sum[t] / (double)n[t];
		x->per_life = m;
		x->exact = recording_track_one_in(r, t) == 1;
		x->allocs_per_s = l->seconds > 0 ?
				  (double)allocs_of(r, (int)t) / l->seconds : 0;
		scale = (double)(x->items ? x->items : 1) * x->allocs_per_s;
		x->rate = m * scale;
		x->half = -1;
		if (n[t] >= 2) {
			var = (sq[t] - (double)n[t] * m * m) / (double)(n[t] - 1);
			x->half = stat_t975((double)(n[t] - 1)) *
				  sqrt(var > 0 ? var : 0) / sqrt((double)n[t]) *
				  scale;
		}
	}
	free(sum);
	free(sq);
	free(n);
	free(cut);
}

void lives_free(struct lives *l)
{
	free(l->t);
	memset(l, 0, sizeof(*l));
}

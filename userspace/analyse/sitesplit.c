// SPDX-License-Identifier: GPL-2.0
/*
 * kmalloc-N's samples by allocation site (sitesplit.h): each LIVE sample
 * record finds its object's last event before it among the ALLOC, FREE
 * and single-object SLAB_LIVE records of its (target, base).  An ALLOC
 * names the site; a FREE, or an object established live by its use,
 * leaves the sample unmatched (the live set knew the object from
 * elsewhere).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sitesplit.h"
#include "diffstat.h"
#include "util.h"

enum { EV_ALLOC, EV_OTHER };

struct obj_event {
	uint64_t base, time, site;
	uint16_t target;
	uint8_t kind;
};

static int event_cmp(const void *a, const void *b)
{
	const struct obj_event *x = a, *y = b;

	if (x->target != y->target)
		return x->target < y->target ? -1 : 1;
	if (x->base != y->base)
		return x->base < y->base ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return 0;
}

/* The last event of (target, base) at or before @time, or -1. */
static long last_event(const struct obj_event *ev, size_t n, uint16_t target,
		       uint64_t base, uint64_t time)
{
	struct obj_event key = { .base = base, .time = time, .target = target };
	size_t lo = 0, hi = n;

	/* The first event after the key ... */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (event_cmp(&ev[mid], &key) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* ... and the one before it, if it is the same object's. */
	if (!lo || ev[lo - 1].target != target || ev[lo - 1].base != base)
		return -1;
	return (long)lo - 1;
}

static bool wanted(const bool *want, uint16_t target)
{
	return target < DPROF_MAX_TARGETS && (!want || want[target]);
}

struct site_acc {
	uint64_t site, samples, lives;
	double sq;		/* sum over its lives of samples squared */
};

static int share_cmp(const void *a, const void *b)
{
	const struct site_share *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return x->call_site < y->call_site ? -1 : x->call_site > y->call_site;
}

/*
 * One target's sites from its lives' sample counts (@count[i] samples on
 * the life of event i, 0 for events that are no sampled life).
 */
static void split_target(struct site_split *s, const struct obj_event *ev,
			 const uint64_t *count, size_t from, size_t to)
{
	struct site_acc *acc = NULL;
	size_t nr = 0, cap = 0;
	double q = 0, n, m;

	for (size_t i = from; i < to; i++) {
		size_t k;

		if (!count[i])
			continue;
		for (k = 0; k < nr && acc[k].site != ev[i].site; k++)
			;
		if (k == nr) {
			if (nr == cap) {
				cap = cap ? 2 * cap : 8;
				acc = xrealloc(acc, cap * sizeof(*acc));
			}
			acc[nr++] = (struct site_acc){ .site = ev[i].site };
		}
		acc[k].samples += count[i];
		acc[k].lives++;
		acc[k].sq += (double)count[i] * count[i];
		q += (double)count[i] * count[i];
		s->lives++;
	}
	n = (double)s->matched;
	m = (double)s->lives;
	s->sites = xcalloc(nr ? nr : 1, sizeof(*s->sites));
	s->nr_sites = nr;
	for (size_t k = 0; k < nr; k++) {
		struct site_share *o = &s->sites[k];
		double r = acc[k].samples / n, lo, hi, dev;

		o->call_site = acc[k].site;
		o->samples = acc[k].samples;
		o->lives = acc[k].lives;
		o->share = r;
		o->half = -1;
		if (s->lives < 2)
			continue;
		/*
		 * sum_i (x_i - r n_i)^2, x_i = n_i on the site's lives and 0
		 * on the others: the ratio's linearised variance.
		 */
		dev = (1 - r) * (1 - r) * acc[k].sq + r * r * (q - acc[k].sq);
		o->half = stat_t975(m - 1) * sqrt(m / (m - 1) * dev) / n;
		diff_wilson((double)acc[k].samples, n, &lo, &hi);
		if ((hi - lo) / 2 > o->half)
			o->half = (hi - lo) / 2;
	}
	qsort(s->sites, nr, sizeof(*s->sites), share_cmp);
	free(acc);
}

void site_split_build(const struct recording *r, const bool *want,
		      struct site_splits *out)
{
	struct obj_event *ev = NULL;
	uint64_t *count;
	size_t nr = 0, cap = 0;
	const struct dprof_rec_hdr *hdr;
	struct rec_iter it;

	memset(out, 0, sizeof(*out));
	out->nr = DPROF_MAX_TARGETS;
	out->t = xcalloc(out->nr, sizeof(*out->t));
	rec_iter_init(&it, r);
	while ((hdr = rec_iter_next(&it))) {
		struct obj_event e = { .target = hdr->target };

		if (!wanted(want, hdr->target))
			continue;
		if (hdr->kind == DPROF_REC_ALLOC || hdr->kind == DPROF_REC_FREE) {
			const struct dprof_obj_event *o = (const void *)hdr;

			/* An UNTRACKED object never entered the live set. */
			if (hdr->flags & DPROF_OBJ_UNTRACKED)
				continue;
			e.base = o->addr;
			e.time = o->time_ns;
			e.site = o->call_site;
			e.kind = hdr->kind == DPROF_REC_ALLOC ? EV_ALLOC :
								 EV_OTHER;
		} else if (hdr->kind == DPROF_REC_SLAB_LIVE) {
			const struct dprof_slab_live *l = (const void *)hdr;

			/* One object established by its use (byuse.c). */
			if (l->objects != 1)
				continue;
			e.base = l->addr;
			e.time = l->time_ns;
			e.kind = EV_OTHER;
		} else {
			continue;
		}
		if (nr == cap) {
			cap = cap ? 2 * cap : 1024;
			ev = xrealloc(ev, cap * sizeof(*ev));
		}
		ev[nr++] = e;
	}
	if (nr)
		qsort(ev, nr, sizeof(*ev), event_cmp);
	count = xcalloc(nr ? nr : 1, sizeof(*count));
	rec_iter_init(&it, r);
	while ((hdr = rec_iter_next(&it))) {
		struct dprof_sample_rec sr;
		long e;

		if (hdr->kind != DPROF_REC_SAMPLE ||
		    !(hdr->flags & DPROF_SAMPLE_LIVE) ||
		    !wanted(want, hdr->target))
			continue;
		rec_sample(hdr, &sr);
		out->t[hdr->target].records++;
		e = sr.base ? last_event(ev, nr, hdr->target, sr.base,
					 sr.time_ns) : -1;
		if (e < 0 || ev[e].kind != EV_ALLOC)
			continue;
		out->t[hdr->target].matched++;
		count[e]++;
	}
	for (size_t from = 0, to; from < nr; from = to) {
		for (to = from; to < nr && ev[to].target == ev[from].target; to++)
			;
		if (out->t[ev[from].target].matched)
			split_target(&out->t[ev[from].target], ev, count, from,
				     to);
	}
	free(count);
	free(ev);
}

void site_split_free(struct site_splits *s)
{
	for (size_t i = 0; s->t && i < s->nr; i++)
		free(s->t[i].sites);
	free(s->t);
	memset(s, 0, sizeof(*s));
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The all-types ranking.  Shares and their errors:
 *  - IBS/PEBS samples are independent draws: a share p of n samples has a
 *    95% half-width of 1.96 * sqrt(p (1 - p) / n).
 *  - The watch sampler counts every access in a window on one random
 *    object, so samples are not independent; the windows are.  dprof.ko
 *    estimates a type's share as its samples per window times its live
 *    objects drawn at random (more draws than windows, so the shares do
 *    not swing with how many windows each type got) and prints it with
 *    its linearised 95% half-width (estimate.c; a kind with one window
 *    takes its kind's pooled spread); "+-?" where such a kind has no
 *    pool, "<P%" (a 95% upper
 *    bound) where no window saw an access.  The report takes these from
 *    the profile dprof-view record saved; a type sampled only by
 *    histories has no window and so no share.  Without
 *    that profile, shares are of the recorded samples, error unknown.
 * Object counts come from the events: SLAB_LIVE records (objects older
 * than the module, found by the load-time scan) and tracked ALLOC/FREE
 * records; with sampled tracking (track_one_in > 1) they are scaled up.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "report.h"
#include "histories.h"
#include "util.h"

/*
 * The module's sample counts: the facts, or in recordings before them
 * status's "samples: N, in targets X, other slab ... Y, not slab Z".
 */
static void status_samples(const struct recording *r, struct report *rep)
{
	const char *p = r->status ? strstr(r->status, "\nsamples: ") : NULL;
	unsigned long long n, in, other, not_slab;

	if (r->has_facts) {
		rep->module_samples = r->facts.samples;
		rep->other_slab = r->facts.other_slab;
		rep->not_slab = r->facts.not_slab;
		return;
	}
	if (!p)
		return;
	if (sscanf(p + 10, "%llu, in targets %llu, other slab caches or objects not established live %llu, not slab %llu",
		   &n, &in, &other, &not_slab) == 4) {
		rep->module_samples = n;
		rep->other_slab = other;
		rep->not_slab = not_slab;
	}
}

/*
 * @cache's row in the module's profile table (watch sampler): its windows
 * (5th column) and its share (3rd), as fractions: "P+-H%" (H in @half),
 * "P+-?%" (*@half < 0: error unknown) or "<P%" (no window saw an access:
 * *@share 0, P its 95% upper bound in *@upper); false if absent.
 */
static bool profile_window_row(const char *text, const char *cache,
			       uint64_t *windows, double *share, double *half,
			       double *upper)
{
	const char *line = text;
	size_t len = strlen(cache);

	*upper = -1;
	while (line && *line) {
		if (!strncmp(line, cache, len) && line[len] == ' ') {
			char name[128], pm[32], misses[32];
			unsigned long long samples, w;

			if (sscanf(line, "%127s %llu %31s %31s %llu", name,
				   &samples, pm, misses, &w) == 5 &&
			    !strcmp(misses, "est.")) {
				*windows = w;
				if (sscanf(pm, "%lf+-%lf%%", share, half) == 2) {
					*share /= 100;
					*half /= 100;
					return true;
				}
				if (sscanf(pm, "%lf+-?%%", share) == 1 &&
				    strstr(pm, "+-?")) {
					*share /= 100;
					*half = -1;
					return true;
				}
				if (pm[0] == '<' &&
				    sscanf(pm + 1, "%lf%%", upper) == 1) {
					*upper /= 100;
					*share = 0;
					*half = -1;
					return true;
				}
			}
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return false;
}

/*
 * The same from the facts: target @t's window estimate, if the module
 * made one (the watch sampler's; IBS/PEBS shares are the view's own).
 */
static bool fact_window_row(const struct recording *r, size_t t,
			    uint64_t *windows, double *share, double *half,
			    double *upper, double *unseen)
{
	const struct dprof_target_fact *f = recording_target_fact(r, t);

	*upper = -1;
	if (!f || r->facts.sampler != DPROF_SAMPLER_WATCH)
		return false;
	*windows = f->windows;
	*unseen = f->unseen / 10000.0;
	switch (f->share_kind) {
	case DPROF_SHARE_INTERVAL:
		*share = f->share / 10000.0;
		*half = f->half / 10000.0;
		return true;
	case DPROF_SHARE_NO_ERROR:
		*share = f->share / 10000.0;
		*half = -1;
		return true;
	case DPROF_SHARE_BELOW:
		*upper = f->half / 10000.0;
		*share = 0;
		*half = -1;
		return true;
	default:
		return false;
	}
}

static bool window_row(const struct recording *r,
		       const struct profile_type *pt, uint64_t *windows,
		       double *share, double *half, double *upper,
		       double *unseen)
{
	*unseen = 0;
	if (r->has_facts)
		return fact_window_row(r, pt->target, windows, share, half,
				       upper, unseen);
	/* Recordings before the facts: the rows of "profile". */
	return r->profile_text &&
	       profile_window_row(r->profile_text, pt->cache, windows, share,
				  half, upper);
}

static void count_objects(const struct recording *r, struct report *rep)
{
	struct report_type **by_target = xcalloc(DPROF_MAX_TARGETS,
						 sizeof(*by_target));
	const struct dprof_rec_hdr *hdr;
	struct rec_iter it;

	for (size_t i = 0; i < rep->nr_types; i++)
		if (rep->types[i].t->target < DPROF_MAX_TARGETS)
			by_target[rep->types[i].t->target] = &rep->types[i];
	rec_iter_init(&it, r);
	while ((hdr = rec_iter_next(&it))) {
		struct report_type *t;

		/*
		 * Only these kinds have a target where the header says: a
		 * history element's 16-byte record keeps its tag there.
		 */
		if ((hdr->kind != DPROF_REC_SLAB_LIVE &&
		     hdr->kind != DPROF_REC_ALLOC &&
		     hdr->kind != DPROF_REC_FREE) ||
		    hdr->target >= DPROF_MAX_TARGETS)
			continue;
		t = by_target[hdr->target];
		if (!t)
			continue;
		if (hdr->kind == DPROF_REC_SLAB_LIVE) {
			const struct dprof_slab_live *s = (const void *)hdr;

			t->older += s->objects;
			t->older_tracked += s->tracked;
		} else if (hdr->kind == DPROF_REC_ALLOC &&
			   !(hdr->flags & DPROF_OBJ_UNTRACKED)) {
			t->allocs++;
		} else if (hdr->kind == DPROF_REC_FREE &&
			   !(hdr->flags & DPROF_OBJ_NOT_LIVE)) {
			t->frees++;
		}
	}
	free(by_target);
}

/* A history's end, for the lives counted below. */
struct life_end {
	uint32_t id;
	uint32_t elements, dropped;
	uint8_t reason, flags;
};

struct life_begin {
	uint32_t id;
	uint16_t target;
	uint8_t flags;
};

static int by_id_begin(const void *a, const void *b)
{
	const struct life_begin *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int by_id_end(const void *a, const void *b)
{
	const struct life_end *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * Whether kind @k of window (DPROF_WINDOW_REC_*) is in target @t's
 * estimate: its part in the facts; all kinds before the facts had parts.
 */
static bool kind_counts(const struct recording *r, size_t t, unsigned int k)
{
	const struct dprof_target_fact *f = recording_target_fact(r, t);

	if (!r->has_facts)
		return k != DPROF_WINDOW_REC_LIFE;
	return f && k < DPROF_WINDOW_REC_KINDS && f->kind_part[k] > 0;
}

/*
 * The units each window share rests on that took a sample: windows of
 * the kinds in the type's estimate, and lives (histories ended by the
 * free or the timeout, no CPU come or gone, nothing dropped: the
 * module's DPROF_WINDOW_LIFE) with an element.
 */
static void count_units(const struct recording *r, struct report *rep)
{
	struct report_type **by_target = xcalloc(DPROF_MAX_TARGETS,
						 sizeof(*by_target));
	struct life_begin *begins = NULL;
	struct life_end *ends = NULL;
	size_t nb = 0, ne = 0, capb = 0, cape = 0;
	const struct dprof_rec_hdr *hdr;
	struct rec_iter it;

	for (size_t i = 0; i < rep->nr_types; i++)
		if (rep->types[i].window_share &&
		    rep->types[i].t->target < DPROF_MAX_TARGETS)
			by_target[rep->types[i].t->target] = &rep->types[i];
	rec_iter_init(&it, r);
	while ((hdr = rec_iter_next(&it))) {
		if (hdr->kind == DPROF_REC_WINDOW &&
		    hdr->target < DPROF_MAX_TARGETS &&
		    by_target[hdr->target]) {
			struct dprof_window_rec w;
			uint64_t y = 0;

			rec_window(hdr, &w);
			for (int k = 0; k < w.nr_offsets &&
			     k < DPROF_HIST_MAX_OFFSETS; k++)
				y += w.samples[k];
			if (y && kind_counts(r, hdr->target, w.kind))
				by_target[hdr->target]->units++;
		} else if (hdr->kind == DPROF_REC_HIST_BEGIN &&
			   hdr->target < DPROF_MAX_TARGETS &&
			   by_target[hdr->target]) {
			const struct dprof_hist_begin *b = (const void *)hdr;

			if (nb == capb) {
				capb = capb ? capb * 2 : 64;
				begins = xrealloc(begins,
						  capb * sizeof(*begins));
			}
			begins[nb++] = (struct life_begin){
				.id = b->id, .target = hdr->target,
				.flags = hdr->flags,
			};
		} else if (hdr->kind == DPROF_REC_HIST_END) {
			const struct dprof_hist_end *e = (const void *)hdr;

			if (ne == cape) {
				cape = cape ? cape * 2 : 64;
				ends = xrealloc(ends, cape * sizeof(*ends));
			}
			ends[ne++] = (struct life_end){
				.id = e->id, .elements = e->elements,
				.dropped = e->dropped, .reason = e->reason,
				.flags = hdr->flags,
			};
		}
	}
	if (nb)
		qsort(begins, nb, sizeof(*begins), by_id_begin);
	if (ne)
		qsort(ends, ne, sizeof(*ends), by_id_end);
	for (size_t i = 0, j = 0; i < nb && j < ne;) {
		if (begins[i].id < ends[j].id) {
			i++;
		} else if (begins[i].id > ends[j].id) {
			j++;
		} else {
			if (ends[j].elements &&
			    hist_ended_as_life(ends[j].reason, ends[j].dropped,
					       begins[i].flags |
					       ends[j].flags) &&
			    kind_counts(r, begins[i].target,
					DPROF_WINDOW_REC_LIFE))
				by_target[begins[i].target]->units++;
			i++;
			j++;
		}
	}
	free(begins);
	free(ends);
	free(by_target);
}

/*
 * A window share on one sampled unit is one draw: its interval borrows
 * its kind's pooled spread, and a lucky window on one of thousands of
 * idle objects reads tens of points (design.rst, "Ranking by point
 * value").  Such types rank after the shares on two or more, each group
 * by share; the shares of no type change.
 */
bool report_type_thin(const struct report_type *t)
{
	return t->window_share && t->units < 2 && t->share > 0;
}

static int rank_group(const struct report_type *t)
{
	if (t->share <= 0)
		return 2;
	return report_type_thin(t);
}

static int by_share(const void *a, const void *b)
{
	const struct report_type *x = a, *y = b;

	if (x->share != y->share)
		return x->share < y->share ? 1 : -1;
	return x->t->target < y->t->target ? -1 : x->t->target > y->t->target;
}

static int by_group_then_share(const void *a, const void *b)
{
	const struct report_type *x = a, *y = b;
	int gx = rank_group(x), gy = rank_group(y);

	if (gx != gy)
		return gx < gy ? -1 : 1;
	return by_share(a, b);
}

void report_rank_by_share(struct report *rep)
{
	qsort(rep->types, rep->nr_types, sizeof(*rep->types), by_share);
	rep->by_share_alone = true;
}

void report_build(const struct recording *r, const struct type_map *map,
		  struct report *rep)
{
	const struct profile *p;
	bool ticks_are_draws;

	memset(rep, 0, sizeof(*rep));
	profile_build(r, map, &rep->profile);
	p = &rep->profile;
	rep->track_one_in = recording_track_one_in_max(r);
	rep->all = r->has_facts ?
		   !!(r->facts.flags & DPROF_FACTS_TARGET_ALL) :
		   r->status && strstr(r->status, "\ntarget=all: ");
	status_samples(r, rep);
	rep->weight = p->misses_measured ? p->misses : p->samples;
	for (size_t i = 0; i < p->nr_types && !p->misses_measured; i++)
		if (p->types[i].variable)
			rep->weight -= p->types[i].samples;
	/*
	 * The operand sampler's ticks fall at random points of busy time,
	 * each independent of the others: its shares are binomial over the
	 * samples, as IBS's and PEBS's are over the misses.
	 */
	ticks_are_draws = r->has_facts &&
			  r->facts.sampler == DPROF_SAMPLER_OPERAND;
	rep->nr_types = p->nr_types;
	rep->types = xcalloc(rep->nr_types ? rep->nr_types : 1,
			     sizeof(*rep->types));
	for (size_t i = 0; i < p->nr_types; i++) {
		struct report_type *t = &rep->types[i];
		const struct profile_type *pt = &p->types[i];
		uint64_t w = p->misses_measured ? pt->misses : pt->samples;
		double mod_share, half, upper;

		t->t = pt;
		t->share_err = -1;
		t->share_upper = -1;
		t->share_hi = -1;
		t->bounce_err = -1;
		rep->data_types += pt->data;
		if (pt->variable && !p->misses_measured) {
			t->no_share = true;
			t->bounce = -1;
			continue;
		}
		t->share = rep->weight ? (double)w / (double)rep->weight : 0;
		if (p->misses_measured || ticks_are_draws) {
			if (rep->weight)
				t->share_err = 1.96 *
					sqrt(t->share * (1 - t->share) /
					     (double)rep->weight);
		} else if (window_row(r, pt, &t->windows, &mod_share, &half,
				      &upper, &t->unseen) &&
			   t->windows) {
			t->share = mod_share;
			t->share_err = half;
			t->share_upper = upper;
			if (half >= 0) {
				double hi = fmin(mod_share + half, 1);

				t->share_hi = hi / (1 - t->unseen +
						    hi * t->unseen);
			}
			t->window_share = true;
			rep->window_shares = true;
		}
		t->bounce = pt->matched_frees ?
			    (double)pt->remote_frees / pt->matched_frees : -1;
		if (pt->matched_frees) {
			t->bounce_err = pt->bounce_err;
			t->bounce_addrs = pt->bounce_addrs;
		}
	}
	/* The module weighed the types by windows: the rest have no share. */
	for (size_t i = 0; i < rep->nr_types && rep->window_shares; i++) {
		struct report_type *t = &rep->types[i];

		if (!t->window_share && !t->no_share) {
			t->no_window = true;
			t->share = 0;
		}
	}
	count_objects(r, rep);
	for (size_t i = 0; i < rep->nr_types; i++) {
		struct report_type *t = &rep->types[i];
		uint64_t in = t->older_tracked + t->allocs;

		t->live_end = in > t->frees ? in - t->frees : 0;
		t->ws_bytes = t->live_end *
			      recording_track_one_in(r, t->t->target) *
			      t->t->object_size;
		if (t->t->data)		/* a variable: its own bytes */
			t->ws_bytes = t->t->object_size;
	}
	if (rep->window_shares)
		count_units(r, rep);
	for (size_t i = 0; i < rep->nr_types; i++)
		rep->thin_types += report_type_thin(&rep->types[i]);
	qsort(rep->types, rep->nr_types, sizeof(*rep->types),
	      by_group_then_share);
}

void report_free(struct report *rep)
{
	free(rep->types);
	profile_free(&rep->profile);
	memset(rep, 0, sizeof(*rep));
}

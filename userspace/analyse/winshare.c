// SPDX-License-Identifier: GPL-2.0
/* Field shares from the sample windows (see winshare.h). */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "diffstat.h"
#include "winshare.h"
#include "util.h"

static struct winshare_slot *slot_of(struct winshare_target *t,
				     uint16_t offset)
{
	for (size_t i = 0; i < t->ns; i++)
		if (t->s[i].offset == offset)
			return &t->s[i];
	t->s = xrealloc(t->s, (t->ns + 1) * sizeof(*t->s));
	memset(&t->s[t->ns], 0, sizeof(*t->s));
	t->s[t->ns].offset = offset;
	return &t->s[t->ns++];
}

static void add_window(struct winshare_target *t,
		       const struct dprof_window_rec *rec)
{
	struct winshare_window *w;
	double rho = rec->rho / (double)DPROF_WINDOW_RHO_ONE;

	t->w = xrealloc(t->w, (t->nw + 1) * sizeof(*t->w));
	w = &t->w[t->nw++];
	memset(w, 0, sizeof(*w));
	for (int k = 0; k < DPROF_HIST_MAX_OFFSETS; k++) {
		w->offset[k] = k < rec->nr_offsets ? rec->offset[k] :
			       DPROF_HIST_NO_OFFSET;
		w->h[k] = k < rec->nr_offsets ? rec->samples[k] * rho : 0;
		if (k < rec->nr_offsets) {
			struct winshare_slot *s = slot_of(t, rec->offset[k]);

			s->h += w->h[k];
			s->h_var += rho * rho * rec->samples[k];
			s->windows++;
		}
	}
}

void winshare_build(struct winshare *ws, const struct recording *r)
{
	struct rec_iter it;
	const struct dprof_rec_hdr *hdr;

	memset(ws, 0, sizeof(*ws));
	ws->nr_targets = r->nr_targets;
	ws->t = xcalloc(r->nr_targets + 1, sizeof(*ws->t));
	rec_iter_init(&it, r);
	while ((hdr = rec_iter_next(&it))) {
		struct dprof_window_rec rec;

		if (hdr->kind != DPROF_REC_WINDOW ||
		    hdr->target >= r->nr_targets)
			continue;
		rec_window(hdr, &rec);
		if (!rec.watched_ns || rec.cpus_changed) {
			ws->left_out++;
			continue;
		}
		ws->windows++;
		add_window(&ws->t[hdr->target], &rec);
	}
	for (size_t k = 0; k < ws->nr_targets; k++) {
		struct winshare_target *t = &ws->t[k];

		for (size_t i = 0; i < t->ns; i++)
			t->rate += t->s[i].h / (double)t->s[i].windows;
	}
}

void winshare_free(struct winshare *ws)
{
	for (size_t k = 0; ws->t && k < ws->nr_targets; k++) {
		free(ws->t[k].w);
		free(ws->t[k].s);
	}
	free(ws->t);
	memset(ws, 0, sizeof(*ws));
}

static bool in_field(uint16_t offset, uint32_t lo, uint32_t hi)
{
	return hi > lo ? offset >= lo && offset < hi : offset == lo;
}

/*
 * Window @w's influence on r_o for each offset it watched, and so on
 * the field's rate (the offsets in it) and on R (all of them).
 */
static void influence(const struct winshare_target *t,
		      const struct winshare_window *w, uint32_t lo,
		      uint32_t hi, double *if_f, double *if_r)
{
	*if_f = 0;
	*if_r = 0;
	for (int k = 0; k < DPROF_HIST_MAX_OFFSETS; k++) {
		const struct winshare_slot *s = NULL;
		double d;

		if (w->offset[k] == DPROF_HIST_NO_OFFSET)
			continue;
		for (size_t i = 0; i < t->ns && !s; i++)
			if (t->s[i].offset == w->offset[k])
				s = &t->s[i];
		if (!s)
			continue;
		/* r_o = h_o / W_o over the W_o windows that watched it */
		d = (w->h[k] - s->h / (double)s->windows) /
		    (double)s->windows;
		*if_r += d;
		if (in_field(w->offset[k], lo, hi))
			*if_f += d;
	}
}

bool winshare_field(const struct winshare *ws, unsigned int target,
		    uint32_t lo, uint32_t hi, struct winshare_est *e)
{
	const struct winshare_target *t;
	double rate = 0, var = 0, floor = 0, n;

	memset(e, 0, sizeof(*e));
	e->half = -1;
	if (target >= ws->nr_targets)
		return false;
	t = &ws->t[target];
	for (size_t i = 0; i < t->ns; i++)
		if (in_field(t->s[i].offset, lo, hi)) {
			rate += t->s[i].h / (double)t->s[i].windows;
			if (t->s[i].windows > e->windows)
				e->windows = t->s[i].windows;
		}
	if (!e->windows)
		return false;
	if (t->rate <= 0)
		return true;	/* watched, never sampled: share 0 */
	e->share = rate / t->rate;
	if (e->windows < 2 || t->nw < 2)
		return true;
	for (size_t i = 0; i < t->nw; i++) {
		double if_f, if_r, d;

		influence(t, &t->w[i], lo, hi, &if_f, &if_r);
		d = (if_f * t->rate - rate * if_r) / (t->rate * t->rate);
		var += d * d;
	}
	n = (double)t->nw;
	var *= n / (n - 1);
	/*
	 * A floor: the samples are counts, so each offset's rate varies at
	 * least as a Poisson count's, (H_o + 1) / W_o^2 (the one added so
	 * that an offset without a sample is not certain to have none;
	 * weighed samples, sum rho^2 c for H_o).  A
	 * few windows that agree exactly (one code path) would otherwise
	 * claim no error at all.
	 */
	for (size_t i = 0; i < t->ns; i++) {
		const struct winshare_slot *s = &t->s[i];
		double w = (double)s->windows;
		double g = in_field(s->offset, lo, hi) ? t->rate - rate :
							 -rate;

		floor += g * g * (s->h_var + 1) / (w * w);
	}
	floor /= t->rate * t->rate * t->rate * t->rate;
	/* The field's own windows set the degrees of freedom. */
	e->half = stat_t975((double)e->windows - 1) * sqrt(var > floor ? var :
							   floor);
	return true;
}

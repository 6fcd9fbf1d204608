// SPDX-License-Identifier: GPL-2.0
/* A recording judged by the referee's table (see judge.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "diffstat.h"
#include "judge.h"
#include "util.h"

/*
 * Instructions that accessed the field, as a breakpoint or a sampled
 * instruction counts them: a plain read-modify-write is one (its store
 * half is counted in rmw as well as in stores).
 */
static uint64_t accesses(const struct judge *j, const struct oracle_field *f)
{
	uint64_t n = f->loads + f->stores - f->rmw + f->atomics;
	uint64_t off = f->irqs_off;

	/*
	 * sampler=operand sees the allocator's accesses to the object it
	 * returns (a breakpoint armed at the return does not), and only
	 * those a timer tick can stop before.
	 */
	if (j->sampled) {
		n += f->at_alloc;
		off += f->at_alloc_irqs_off;
	}
	return j->interruptible ? n - (off < n ? off : n) : n;
}

/* The bytes each offset of @target's plan watches (history_len). */
static unsigned int slot_len(const struct recording *r, int target)
{
	for (size_t i = 0; i < r->nr_plans; i++)
		if (r->plans[i].target == target && r->plans[i].len)
			return r->plans[i].len;
	return 8;
}

static struct judge_type *type_of(struct judge *j, const char *cache)
{
	for (size_t i = 0; i < j->nt; i++)
		if (!strcmp(j->t[i].cache, cache))
			return &j->t[i];
	j->t = xrealloc(j->t, (j->nt + 1) * sizeof(*j->t));
	memset(&j->t[j->nt], 0, sizeof(*j->t));
	j->t[j->nt].cache = cache;
	j->t[j->nt].target = -1;
	return &j->t[j->nt++];
}

static int by_dprof(const void *a, const void *b)
{
	const struct judge_type *x = *(struct judge_type *const *)a;
	const struct judge_type *y = *(struct judge_type *const *)b;

	/* Report's order where both are in it; ranked types first. */
	if (x->dprof_order && y->dprof_order &&
	    x->dprof_weight > 0 && y->dprof_weight > 0)
		return x->dprof_order < y->dprof_order ? -1 :
		       x->dprof_order > y->dprof_order;
	return x->dprof_weight < y->dprof_weight ? 1 :
	       x->dprof_weight > y->dprof_weight ? -1 : 0;
}

static int by_oracle(const void *a, const void *b)
{
	const struct judge_type *x = *(struct judge_type *const *)a;
	const struct judge_type *y = *(struct judge_type *const *)b;

	return x->oracle_accesses < y->oracle_accesses ? 1 :
	       x->oracle_accesses > y->oracle_accesses ? -1 : 0;
}

/* Ranks 1.. of @v (sorted) by @cmp into @rank, types in @v only. */
static void ranks(struct judge_type **v, size_t n, double *rank,
		  int (*cmp)(const void *, const void *),
		  const struct judge_type *base)
{
	qsort(v, n, sizeof(*v), cmp);
	for (size_t i = 0; i < n; i++)
		rank[v[i] - base] = (double)(i + 1);
}

/* Ranks by each side, the top-5 overlap and Spearman's rho. */
static void rank_types(struct judge *j)
{
	struct judge_type **v = xcalloc(j->nt + 1, sizeof(*v));
	double *rd = xcalloc(j->nt + 1, sizeof(*rd));
	double *ro = xcalloc(j->nt + 1, sizeof(*ro));
	double d2 = 0, n;
	size_t k;

	for (size_t i = 0; i < j->nt; i++)
		v[i] = &j->t[i];
	qsort(v, j->nt, sizeof(*v), by_dprof);
	for (k = 0; k < j->nt && v[k]->dprof_weight > 0; k++)
		v[k]->dprof_rank = k + 1;
	qsort(v, j->nt, sizeof(*v), by_oracle);
	for (k = 0; k < j->nt && v[k]->oracle_accesses; k++)
		v[k]->oracle_rank = k + 1;
	for (size_t i = 0; i < j->nt; i++) {
		const struct judge_type *t = &j->t[i];

		if (t->dprof_rank == 1 && t->oracle_rank == 1)
			j->top1_same = true;
		if (t->dprof_rank && t->dprof_rank <= 5) {
			j->top5++;
			j->top5_common += t->oracle_rank && t->oracle_rank <= 5;
		}
	}
	/* Spearman over the types both saw, ranked among themselves. */
	k = 0;
	for (size_t i = 0; i < j->nt; i++)
		if (j->t[i].dprof_rank && j->t[i].oracle_rank)
			v[k++] = &j->t[i];
	j->both_types = k;
	j->spearman = NAN;
	if (k >= 2) {
		ranks(v, k, rd, by_dprof, j->t);
		ranks(v, k, ro, by_oracle, j->t);
		for (size_t i = 0; i < k; i++) {
			size_t at = (size_t)(v[i] - j->t);
			double d = rd[at] - ro[at];

			d2 += d * d;
		}
		n = (double)k;
		j->spearman = 1 - 6 * d2 / (n * (n * n - 1));
	}
	free(ro);
	free(rd);
	free(v);
}

/* The referee's accesses and sharing misses over bytes [lo, lo + len). */
static void oracle_slot(const struct judge *j, const struct oracle *o,
			const char *cache,
			uint32_t lo, uint32_t len, struct judge_field *f)
{
	for (size_t i = 0; i < o->n; i++) {
		const struct oracle_field *x = &o->f[i];

		if (x->global || strcmp(x->cache, cache) ||
		    x->offset < lo || x->offset >= lo + len)
			continue;
		f->oracle_accesses += accesses(j, x);
		f->oracle_true += x->true_sharing;
		f->oracle_false += x->false_sharing;
	}
}

static const struct classify_field *classified(const struct classify *c,
					       int target, uint16_t offset)
{
	for (size_t i = 0; c && i < c->n; i++)
		if (c->f[i].target == target && c->f[i].offset == offset)
			return &c->f[i];
	return NULL;
}

/* A verdict on a decided label from the referee's true and false misses. */
static enum judge_verdict verdict_of(enum classify_label label,
				     uint64_t oracle_true,
				     uint64_t oracle_false)
{
	/* A hand-off miss is a true-sharing miss to the referee. */
	bool says_true = label != CLASSIFY_FALSE_SHARING;

	if (!oracle_true && !oracle_false)
		return JUDGE_NO_MISSES;
	return says_true == (oracle_true >= oracle_false) ? JUDGE_AGREE :
							   JUDGE_CONTRADICT;
}

static void judge_label(struct judge *j, struct judge_field *f,
			const struct classify_field *cf)
{
	if (!cf)
		return;
	f->classified = true;
	f->label = cf->label;
	f->labelled = cf->label == CLASSIFY_TRUE_SHARING ||
		      cf->label == CLASSIFY_FALSE_SHARING ||
		      cf->label == CLASSIFY_HANDOFF;
	if (!f->labelled)
		return;
	j->labels++;
	f->verdict = verdict_of(cf->label, f->oracle_true, f->oracle_false);
	j->contradicted += f->verdict != JUDGE_AGREE;
}

/* The referee's line, in bytes (referee/coherence.h's COH_LINE). */
#define REFEREE_LINE 64

/* classify's decided line labels against the referee's lines. */
static void judge_lines(struct judge *j, const struct recording *r,
			const struct oracle *o, const struct classify *c)
{
	for (size_t i = 0; c && i < c->nl; i++) {
		const struct classify_line *cl = &c->l[i];
		struct judge_field sum = { 0 };
		struct judge_line *l;

		if (cl->label != CLASSIFY_TRUE_SHARING &&
		    cl->label != CLASSIFY_FALSE_SHARING &&
		    cl->label != CLASSIFY_HANDOFF)
			continue;
		if (cl->target < 0 || (size_t)cl->target >= r->nr_targets)
			continue;
		oracle_slot(j, o, r->targets[cl->target].name,
			    cl->line * REFEREE_LINE, REFEREE_LINE, &sum);
		j->l = xrealloc(j->l, (j->nl + 1) * sizeof(*j->l));
		l = &j->l[j->nl++];
		l->target = cl->target;
		l->line = cl->line;
		l->label = cl->label;
		l->oracle_true = sum.oracle_true;
		l->oracle_false = sum.oracle_false;
		l->verdict = verdict_of(cl->label, sum.oracle_true,
					sum.oracle_false);
		j->lines_contradicted += l->verdict != JUDGE_AGREE;
	}
}

/*
 * dprof's working set of each type against the referee's occupancy:
 * judged where dprof has it from histories (with an interval) and the
 * referee saw the cache's objects in its window.  The two average over
 * different spans: dprof's from its first alloc/free event to its last,
 * the referee's from sync to sync around the workload (a little longer:
 * the workload's start and end).  The referee's line-time is divided by
 * dprof's span: exact for objects that live inside both (what a
 * workload allocates), an overstatement by the spans' ratio for objects
 * touched all along.
 */
static void judge_workingset(struct judge *j, const struct recording *r,
			     const struct oracle *o,
			     const struct workingset *wset)
{
	double scale = 1;

	if (wset && wset->duration_ns > 0 && o->seconds > 0)
		scale = o->seconds / (wset->duration_ns / 1e9);
	j->ws_span_scale = scale;
	for (size_t i = 0; i < o->nocc; i++) {
		struct judge_type *jt = type_of(j, o->occ[i].cache);

		jt->have_oracle_ws = true;
		jt->oracle_ws_bytes = o->occ[i].touched_lines * REFEREE_LINE *
				      scale;
		jt->oracle_objects = o->occ[i].live_objects * scale;
	}
	for (size_t t = 0; wset && t < wset->nr_types && t < r->nr_targets;
	     t++) {
		const struct ws_type *w = &wset->types[t];
		struct judge_type *jt = type_of(j, r->targets[t].name);

		if (!w->from_histories)
			continue;
		jt->have_ws = true;
		jt->ws_bytes = w->bytes;
		jt->ws_lo = w->bytes_lo;
		jt->ws_hi = w->bytes_hi;
		jt->ws_objects = w->objects;
		jt->ws_histories = w->histories;
		if (!jt->have_oracle_ws)
			continue;
		jt->ws_held = jt->ws_lo <= jt->oracle_ws_bytes &&
			      jt->oracle_ws_bytes <= jt->ws_hi;
		j->ws_types++;
		j->ws_held += jt->ws_held;
	}
}

/*
 * What dprof ranks types by: report's order where the module weighed the
 * types by their windows (the watch sampler: by estimated share, those
 * on one sampled unit after the rest), else the samples (IBS/PEBS
 * samples are drawn at random already).
 */
static void dprof_weights(struct judge *j, const struct recording *r,
			  const struct report *rep)
{
	for (size_t i = 0; i < j->nt; i++) {
		j->t[i].dprof_share = NAN;
		j->t[i].dprof_share_half = -1;
		j->t[i].dprof_share_hi = -1;
		j->t[i].dprof_weight = (double)j->t[i].dprof_samples;
	}
	for (size_t i = 0; rep && rep->window_shares && i < rep->nr_types;
	     i++) {
		const struct report_type *t = &rep->types[i];
		struct judge_type *jt;

		if (t->t->data || t->t->target >= r->nr_targets)
			continue;
		jt = type_of(j, r->targets[t->t->target].name);
		jt->dprof_share = t->window_share ? t->share : 0;
		jt->dprof_share_half = t->window_share ? t->share_err : -1;
		jt->dprof_share_hi = t->window_share ? t->share_hi : -1;
		jt->dprof_unseen = t->window_share ? t->unseen : 0;
		jt->dprof_weight = jt->dprof_share;
		jt->dprof_order = i + 1;
	}
}

/*
 * The types' own intervals against the referee's share of the slab
 * accesses (reported, not judged: dprof's shares are of its targets',
 * the referee's of every cache it saw, which differ by the caches
 * dprof left out).
 */
static void judge_type_shares(struct judge *j)
{
	const struct judge_type *dtop = NULL, *otop = NULL;

	for (size_t i = 0; i < j->nt; i++) {
		struct judge_type *t = &j->t[i];
		double o, lo, hi;

		if (isnan(t->dprof_share) || t->dprof_share_half < 0 ||
		    !t->oracle_accesses || !j->oracle_slab_accesses)
			continue;
		o = (double)t->oracle_accesses /
		    (double)j->oracle_slab_accesses;
		lo = t->dprof_share - t->dprof_share_half;
		hi = t->dprof_share + t->dprof_share_half;
		t->share_held_seen = o >= lo && o <= hi;
		if (t->dprof_share_hi > hi)
			hi = t->dprof_share_hi;
		t->share_held = o >= lo && o <= hi;
		if (o > 0.01) {
			j->types_over_1pct++;
			j->types_over_1pct_held += t->share_held;
		}
		j->types_judged++;
		j->types_held += t->share_held;
		j->types_held_seen += t->share_held_seen;
	}
	/*
	 * Two types at 16.6 % and 16.5 % of the accesses swap ranks from
	 * run to run at any sample count dprof can take: the top types
	 * agree when they are the same, or when dprof's own intervals do
	 * not tell the referee's top type from dprof's (they overlap), so
	 * that dprof claims no order between them.
	 */
	for (size_t i = 0; i < j->nt; i++) {
		if (j->t[i].dprof_rank == 1)
			dtop = &j->t[i];
		if (j->t[i].oracle_rank == 1)
			otop = &j->t[i];
	}
	j->top1_tied = j->top1_same;
	if (!j->top1_same && dtop && otop && dtop->dprof_share_half >= 0 &&
	    otop->dprof_share_half >= 0 && !isnan(otop->dprof_share))
		j->top1_tied = otop->dprof_share + otop->dprof_share_half >=
			       dtop->dprof_share - dtop->dprof_share_half;
}

/* Samples of accesses at random points (sampler=operand), not windows. */
static bool sampled_accesses(const struct recording *r)
{
	return r->has_facts && r->facts.sampler == DPROF_SAMPLER_OPERAND;
}

/* Slots of SAMPLE_SLOT bytes: the referee's accesses are summed likewise. */
#define SAMPLE_SLOT 8

static int by_target_offset(const void *a, const void *b)
{
	const struct dprof_sample_agg *x = a, *y = b;

	if (x->target != y->target)
		return x->target < y->target ? -1 : 1;
	return (x->offset & ~(SAMPLE_SLOT - 1)) <
	       (y->offset & ~(SAMPLE_SLOT - 1)) ? -1 :
	       (x->offset & ~(SAMPLE_SLOT - 1)) >
	       (y->offset & ~(SAMPLE_SLOT - 1));
}

/*
 * One slot of type @t with @k of the type's @n samples: its Wilson
 * interval against the referee's share.  It is calibrated (counted in
 * the field gate) when the referee's share predicts min_samples or more
 * of the n: chosen by the truth, not by dprof's count, which would
 * judge a slot only where its samples happened to run high (fields of
 * 20 to 26 samples reading 1.5 times the referee's share failed the
 * gate so), and would never judge a slot the sampler misses.
 */
static void sample_field(struct judge *j, const struct oracle *o,
			 struct judge_type *jt, int t, uint16_t slot, double k,
			 uint64_t n, const struct classify *c)
{
	struct judge_field *f;
	double lo, hi;

	j->f = xrealloc(j->f, (j->nf + 1) * sizeof(*j->f));
	f = &j->f[j->nf++];
	memset(f, 0, sizeof(*f));
	f->target = t;
	f->offset = slot;
	f->len = SAMPLE_SLOT;
	f->samples = k;
	diff_wilson(k, (double)n, &lo, &hi);
	f->dprof.share = k / (double)n;
	f->dprof.lo = lo;
	f->dprof.hi = hi;
	f->dprof.half = (hi - lo) / 2;
	f->dprof.windows = n;
	f->have_dprof = true;
	oracle_slot(j, o, jt->cache, slot, SAMPLE_SLOT, f);
	if (jt->oracle_accesses)
		f->oracle_share = (double)f->oracle_accesses /
				  (double)jt->oracle_accesses;
	f->held = f->oracle_share >= lo && f->oracle_share <= hi;
	f->held_seen = f->held;
	if (f->oracle_share * (double)n >= (double)j->min_samples &&
	    jt->oracle_accesses) {
		j->calibrated++;
		j->held += f->held;
		j->held_seen += f->held_seen;
	}
	judge_label(j, f, classified(c, t, slot));
}

static bool have_field(const struct judge *j, int t, uint16_t slot)
{
	for (size_t i = 0; i < j->nf; i++)
		if (j->f[i].target == t && j->f[i].offset == slot)
			return true;
	return false;
}

struct slot_accesses {
	uint16_t slot;
	uint64_t n;
};

static int by_slot(const void *a, const void *b)
{
	const struct slot_accesses *x = a, *y = b;

	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/*
 * The slots of type @t the referee puts at min_samples or more of its
 * @n samples and dprof never sampled: judged with k = 0 (the others
 * would count for nothing and fill the table with empty rows).
 */
static void unsampled_fields(struct judge *j, const struct oracle *o,
			     struct judge_type *jt, int t, uint64_t n,
			     const struct classify *c)
{
	struct slot_accesses *v = xcalloc(o->n + 1, sizeof(*v));
	size_t nv = 0;

	if (!jt->oracle_accesses) {
		free(v);
		return;
	}
	for (size_t i = 0; i < o->n; i++) {
		const struct oracle_field *x = &o->f[i];

		if (x->global || strcmp(x->cache, jt->cache) ||
		    x->offset > UINT16_MAX)
			continue;
		v[nv].slot = (uint16_t)(x->offset & ~(SAMPLE_SLOT - 1));
		v[nv++].n = accesses(j, x);
	}
	qsort(v, nv, sizeof(*v), by_slot);
	for (size_t i = 0, e; i < nv; i = e) {
		uint64_t sum = 0;

		for (e = i; e < nv && v[e].slot == v[i].slot; e++)
			sum += v[e].n;
		if ((double)sum * (double)n >=
		    (double)j->min_samples * (double)jt->oracle_accesses &&
		    !have_field(j, t, v[i].slot))
			sample_field(j, o, jt, t, v[i].slot, 0, n, c);
	}
	free(v);
}

/*
 * sampler=operand: each sample is one access at a random point of busy
 * time, independent of the others, so a type's share of the slab
 * samples and a slot's share of its type's are binomial proportions
 * (95% Wilson intervals), judged against the referee's shares of the
 * same accesses; the slots the referee puts at min_samples and dprof
 * did not sample are judged too (k = 0).
 */
static void judge_samples(struct judge *j, const struct recording *r,
			  const struct oracle *o, const struct classify *c)
{
	struct dprof_sample_agg *v = xcalloc(r->nr_samples + 1, sizeof(*v));
	uint64_t all = 0;
	uint64_t *per_target = xcalloc(r->nr_targets + 1, sizeof(*per_target));
	size_t n = 0;

	for (size_t i = 0; i < j->nt; i++) {
		j->t[i].dprof_share = NAN;	/* no target of dprof's */
		j->t[i].dprof_share_half = -1;
		j->t[i].dprof_share_hi = -1;
	}
	for (size_t i = 0; i < r->nr_samples; i++)
		if (r->samples[i].target < r->nr_targets) {
			v[n++] = r->samples[i];
			per_target[r->samples[i].target] += r->samples[i].count;
			all += r->samples[i].count;
		}
	qsort(v, n, sizeof(*v), by_target_offset);
	for (size_t i = 0; i < n;) {
		int t = v[i].target;
		uint16_t slot = v[i].offset & ~(SAMPLE_SLOT - 1);
		struct judge_type *jt = type_of(j, r->targets[t].name);
		double k = 0;

		for (; i < n && v[i].target == t &&
		       (v[i].offset & ~(SAMPLE_SLOT - 1)) == slot; i++)
			k += v[i].count;
		jt->target = t;
		jt->dprof_samples += (uint64_t)k;
		sample_field(j, o, jt, t, slot, k, per_target[t], c);
	}
	for (size_t t = 0; t < r->nr_targets && all; t++)
		if (per_target[t])
			unsampled_fields(j, o, type_of(j, r->targets[t].name),
					 (int)t, per_target[t], c);
	for (size_t t = 0; t < r->nr_targets && all; t++) {
		struct judge_type *jt = type_of(j, r->targets[t].name);
		double lo, hi;

		jt->target = (int)t;
		diff_wilson((double)per_target[t], (double)all, &lo, &hi);
		jt->dprof_share = (double)per_target[t] / (double)all;
		jt->dprof_share_half = jt->dprof_share - lo;
		jt->dprof_share_hi = hi;
		jt->dprof_weight = (double)per_target[t];
	}
	free(per_target);
	free(v);
}

void judge_build(struct judge *j, const struct recording *r,
		 const struct oracle *o, const struct winshare *ws,
		 const struct classify *c, const struct report *rep,
		 const struct workingset *wset, uint64_t min_samples)
{
	memset(j, 0, sizeof(*j));
	j->min_samples = min_samples;
	j->sampled = sampled_accesses(r);
	j->interruptible = j->sampled && o->has_irqs_off;
	j->irqs_counted = o->has_irqs_off;
	/* Every slab type the referee saw, with its accesses, in one pass. */
	for (size_t i = 0; i < o->n; i++)
		if (!o->f[i].global) {
			struct judge_type *t = type_of(j, o->f[i].cache);
			uint64_t n = accesses(j, &o->f[i]);

			t->oracle_accesses += n;
			j->oracle_slab_accesses += n;
			t->oracle_irqs_off += o->f[i].irqs_off +
				(j->sampled ? o->f[i].at_alloc_irqs_off : 0);
			j->oracle_slab_irqs_off += o->f[i].irqs_off +
				(j->sampled ? o->f[i].at_alloc_irqs_off : 0);
			j->oracle_slab_at_alloc += o->f[i].at_alloc;
		}
	if (sampled_accesses(r))
		judge_samples(j, r, o, c);
	for (size_t t = 0; t < r->nr_targets && !sampled_accesses(r); t++) {
		struct judge_type *jt = type_of(j, r->targets[t].name);
		const struct winshare_target *wt = t < ws->nr_targets ?
						   &ws->t[t] : NULL;
		unsigned int len = slot_len(r, (int)t);

		jt->target = (int)t;
		for (size_t i = 0; wt && i < wt->ns; i++) {
			const struct winshare_slot *s = &wt->s[i];
			struct judge_field *f;

			/* As counted: an in-use window's weight is not data. */
			jt->dprof_samples += s->samples;
			j->f = xrealloc(j->f, (j->nf + 1) * sizeof(*j->f));
			f = &j->f[j->nf++];
			memset(f, 0, sizeof(*f));
			f->target = (int)t;
			f->offset = s->offset;
			f->len = (uint16_t)len;
			f->samples = (double)s->samples;
			f->have_dprof = winshare_field(ws, (unsigned int)t,
						       s->offset, s->offset,
						       &f->dprof);
			oracle_slot(j, o, jt->cache, s->offset, len, f);
			if (jt->oracle_accesses)
				f->oracle_share = (double)f->oracle_accesses /
						  (double)jt->oracle_accesses;
			f->held = f->have_dprof && f->dprof.half >= 0 &&
				  f->oracle_share >= f->dprof.lo &&
				  f->oracle_share <= f->dprof.hi;
			f->held_seen = f->have_dprof && f->dprof.half >= 0 &&
				       fabs(f->dprof.share - f->oracle_share) <=
				       f->dprof.half;
			if (f->samples >= (double)min_samples &&
			    jt->oracle_accesses) {
				j->calibrated++;
				j->held += f->held;
				j->held_seen += f->held_seen;
				j->widened += f->dprof.half >= 0 &&
					      f->dprof.unseen > 0;
			}
			judge_label(j, f, classified(c, (int)t, s->offset));
		}
	}
	/* Labels from histories on offsets no window watched. */
	for (size_t i = 0; c && i < c->n; i++) {
		const struct classify_field *cf = &c->f[i];
		struct judge_field *f;
		bool seen = false;
		uint64_t all;

		if (cf->target < 0 || (size_t)cf->target >= r->nr_targets)
			continue;
		for (size_t k = 0; k < j->nf && !seen; k++)
			seen = j->f[k].target == cf->target &&
			       j->f[k].offset == cf->offset;
		if (seen)
			continue;
		j->f = xrealloc(j->f, (j->nf + 1) * sizeof(*j->f));
		f = &j->f[j->nf++];
		memset(f, 0, sizeof(*f));
		f->target = cf->target;
		f->offset = cf->offset;
		f->len = cf->len ? cf->len : 8;
		f->dprof.half = -1;
		oracle_slot(j, o, r->targets[cf->target].name, cf->offset,
			    f->len, f);
		all = type_of(j, r->targets[cf->target].name)->oracle_accesses;
		if (all)
			f->oracle_share = (double)f->oracle_accesses /
					  (double)all;
		judge_label(j, f, cf);
	}
	judge_lines(j, r, o, c);
	judge_workingset(j, r, o, wset);
	if (!sampled_accesses(r))
		dprof_weights(j, r, rep);
	rank_types(j);
	judge_type_shares(j);
}

void judge_lives(struct judge *j, const struct recording *r,
		 const struct lives *l, double seconds, uint64_t min_lives)
{
	j->lives_min = min_lives;
	for (size_t i = 0; i < l->n; i++) {
		const struct lives_type *x = &l->t[i];
		struct judge_type *jt;

		if (x->lives < min_lives || x->target < 0 ||
		    (size_t)x->target >= r->nr_targets)
			continue;
		jt = type_of(j, r->targets[x->target].name);
		jt->have_lives = true;
		jt->lives = x->lives;
		jt->lives_cut = x->cut;
		jt->lives_rate = x->rate;
		jt->lives_half = x->half;
		jt->oracle_rate = seconds > 0 ?
				  (double)jt->oracle_accesses / seconds : 0;
		jt->lives_exact = x->exact;
		jt->lives_held = x->half >= 0 &&
				 fabs(x->rate - jt->oracle_rate) <= x->half;
		/* Only where the allocations were counted one by one. */
		if (!x->exact || x->half < 0)
			continue;
		j->lives_types++;
		j->lives_held += jt->lives_held;
	}
}

void judge_free(struct judge *j)
{
	free(j->t);
	free(j->f);
	free(j->l);
	memset(j, 0, sizeof(*j));
}

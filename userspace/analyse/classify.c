// SPDX-License-Identifier: GPL-2.0
/*
 * Miss classification from histories (see classify.h).  A history watches
 * at most four slots, so it touches at most four lines and a handful of
 * CPUs: the replay keeps tiny arrays, searched linearly.
 */
#include <stdbool.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "classify.h"
#include "util.h"

#define MAX_SEEN 128	/* (line, cpu) pairs one history can touch */

struct seen {
	uint64_t line;
	uint16_t cpu;
	size_t last;		/* index of this CPU's last access to line */
};

/* The last write to a line by one CPU. */
struct last_write {
	uint64_t line;
	uint16_t cpu;
	size_t idx;
};

struct replay {
	struct seen s[MAX_SEEN];
	size_t n;
	struct last_write w[MAX_SEEN];
	size_t nw;
};

static struct seen *seen_find(struct replay *rp, uint64_t line, uint16_t cpu)
{
	for (size_t i = 0; i < rp->n; i++)
		if (rp->s[i].line == line && rp->s[i].cpu == cpu)
			return &rp->s[i];
	return NULL;
}

static struct classify_field *field_of(struct classify *c, size_t *cap,
				       int target, uint16_t offset)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->f[i].target == target && c->f[i].offset == offset)
			return &c->f[i];
	if (c->n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		c->f = xrealloc(c->f, *cap * sizeof(*c->f));
	}
	memset(&c->f[c->n], 0, sizeof(c->f[c->n]));
	c->f[c->n].target = target;
	c->f[c->n].offset = offset;
	return &c->f[c->n++];
}

static void add_writer(struct classify_writer *w, uint16_t offset,
		       uint64_t ip)
{
	size_t i, least = 0;

	for (i = 0; i < CLASSIFY_MAX_WRITERS; i++) {
		if (w[i].count && w[i].offset == offset && w[i].ip == ip) {
			w[i].count++;
			return;
		}
		if (w[i].count < w[least].count)
			least = i;
	}
	/* Full: replace the rarest (a bounded, approximate top list). */
	w[least].offset = offset;
	w[least].ip = ip;
	w[least].count = 1;
}

/*
 * Replays need the writes: a history with an access whose kind neither
 * the instruction nor the breakpoints tell is left out.
 */
/*
 * A life from allocation to free, or a variable's watch that ran its
 * whole window (watch_symbols=): both are sequences without a gap.
 */
bool classify_usable(const struct history *h)
{
	bool window = h->reason == DPROF_HIST_WINDOW && !h->dropped &&
		      !(h->end_flags & (DPROF_HIST_CPUS_CHANGED |
					DPROF_HIST_TRUNCATED));

	return (history_complete(h) || window) && !h->rw_unknown;
}

/* The last write to @line by a CPU other than @cpu after index @after. */
static const struct hist_elem *foreign_write(const struct history *h,
					     const struct replay *rp,
					     uint64_t line, uint16_t cpu,
					     long after)
{
	const struct last_write *best = NULL;

	for (size_t k = 0; k < rp->nw; k++) {
		const struct last_write *w = &rp->w[k];

		if (w->line == line && w->cpu != cpu && (long)w->idx > after &&
		    (!best || w->idx > best->idx))
			best = w;
	}
	return best ? &h->elems[best->idx] : NULL;
}

static void note_write(struct replay *rp, uint64_t line, uint16_t cpu,
		       size_t idx)
{
	for (size_t k = 0; k < rp->nw; k++)
		if (rp->w[k].line == line && rp->w[k].cpu == cpu) {
			rp->w[k].idx = idx;
			return;
		}
	if (rp->nw < MAX_SEEN)
		rp->w[rp->nw++] = (struct last_write){ line, cpu, idx };
}

void classify_history(const struct history *h, uint8_t *class,
		      const struct hist_elem **writer)
{
	struct replay *rp = xcalloc(1, sizeof(*rp));

	for (size_t i = 0; i < h->nr_elems; i++) {
		const struct hist_elem *e = &h->elems[i];
		uint64_t line = (h->addr + e->offset) / CLASSIFY_LINE;
		struct seen *s = seen_find(rp, line, e->cpu);
		const struct hist_elem *w;

		w = foreign_write(h, rp, line, e->cpu, s ? (long)s->last : -1);
		if (e->write)
			note_write(rp, line, e->cpu, i);
		writer[i] = w;
		if (!s) {
			class[i] = w ? CLASS_TRANSFER : CLASS_FIRST_TOUCH;
			if (rp->n < MAX_SEEN)
				rp->s[rp->n++] = (struct seen){ line, e->cpu, i };
			continue;
		}
		s->last = i;
		if (!w)
			class[i] = CLASS_HIT;
		else if (w->offset == e->offset)
			class[i] = CLASS_TRUE_SHARING;
		else
			class[i] = CLASS_FALSE_SHARING;
	}
	free(rp);
}

static void replay(struct classify *c, size_t *cap, const struct history *h)
{
	uint8_t *class = xcalloc(h->nr_elems + 1, 1);
	const struct hist_elem **writer = xcalloc(h->nr_elems + 1,
						  sizeof(*writer));
	struct classify_field *f;
	/* This history's counts per watched offset: its unit of the shares. */
	uint64_t n0[DPROF_HIST_MAX_OFFSETS], t0[DPROF_HIST_MAX_OFFSETS];
	uint64_t f0[DPROF_HIST_MAX_OFFSETS];

	for (int k = 0; k < h->nr_offsets; k++) {
		f = field_of(c, cap, h->target, h->offset[k]);
		f->histories++;
		f->len = h->len;
	}
	/* field_of() may move the fields: counts by value, before. */
	for (int k = 0; k < h->nr_offsets; k++) {
		f = field_of(c, cap, h->target, h->offset[k]);
		n0[k] = f->accesses;
		t0[k] = f->true_sharing;
		f0[k] = f->false_sharing;
	}
	classify_history(h, class, writer);
	for (size_t i = 0; i < h->nr_elems; i++) {
		const struct hist_elem *w = writer[i];

		f = field_of(c, cap, h->target, h->elems[i].offset);
		f->accesses++;
		switch (class[i]) {
		case CLASS_TRANSFER:
			f->transfers++;
			break;
		case CLASS_FIRST_TOUCH:
			f->first_touch++;
			break;
		case CLASS_HIT:
			f->hits++;
			break;
		case CLASS_TRUE_SHARING:
			f->true_sharing++;
			add_writer(f->true_writers, w->offset, w->ip);
			break;
		default:
			f->false_sharing++;
			add_writer(f->false_writers, w->offset, w->ip);
			break;
		}
	}
	for (int k = 0; k < h->nr_offsets; k++) {
		double n, t, fs;
		bool mate = false;

		f = field_of(c, cap, h->target, h->offset[k]);
		n = (double)(f->accesses - n0[k]);
		t = (double)(f->true_sharing - t0[k]);
		fs = (double)(f->false_sharing - f0[k]);
		f->sums.n2 += n * n;
		f->sums.t2 += t * t;
		f->sums.tn += t * n;
		f->sums.f2 += fs * fs;
		f->sums.fn += fs * n;
		/* Another watched offset in the field's line? */
		for (int m = 0; m < h->nr_offsets; m++)
			mate |= m != k && h->offset[m] / CLASSIFY_LINE ==
					   h->offset[k] / CLASSIFY_LINE;
		if (!mate)
			continue;
		f->sums.mate_histories++;
		f->sums.mate_accesses += f->accesses - n0[k];
		f->sums.mate_false += f->false_sharing - f0[k];
		f->sums.mate_n2 += n * n;
		f->sums.mate_f2 += fs * fs;
		f->sums.mate_fn += fs * n;
	}
	free(writer);
	free(class);
}

/* The share x / n with its interval from the histories' sums. */
static struct classify_share share_of(uint64_t x, uint64_t n, double x2,
				      double xn, double n2, uint64_t units)
{
	struct classify_share s = { .p = n ? (double)x / n : 0, .half = -1 };
	double h = (double)units, nbar, v;

	if (units < 2 || !n)
		return s;
	nbar = (double)n / h;
	v = (x2 - 2 * s.p * xn + s.p * s.p * n2) / (h * (h - 1) * nbar * nbar);
	s.half = 1.96 * sqrt(v > 0 ? v : 0);
	return s;
}

/*
 * Histories in all that would bring @s's interval off @thr, if the
 * share stays where it is; 0 if it sits on it.
 */
static uint64_t histories_for(struct classify_share s, double thr,
			      uint64_t units)
{
	double d = fabs(s.p - thr), need;

	if (d < 1e-9)
		return 0;
	if (s.half < 0)
		return 2 > units ? 2 : units + 1;
	need = (double)units * (s.half / d) * (s.half / d);
	return (uint64_t)ceil(need > (double)units ? need : units + 1);
}

/*
 * A label only where the intervals decide it: true sharing when the
 * true-sharing share is above the threshold with its whole interval (and
 * above the false one), false sharing likewise, neither when both are
 * below with theirs; else undecided.
 */
static void label_field(struct classify *c, struct classify_field *f)
{
	struct classify_share t = f->true_share, fs = f->false_share;
	double thr = c->threshold;
	bool known = t.half >= 0 && fs.half >= 0;

	f->histories_to_decide = 0;
	if (known && t.p - t.half >= thr && t.p >= fs.p)
		f->label = CLASSIFY_TRUE_SHARING;
	else if (known && fs.p - fs.half >= thr && fs.p > t.p)
		f->label = CLASSIFY_FALSE_SHARING;
	else if (known && t.p + t.half < thr && fs.p + fs.half < thr)
		f->label = CLASSIFY_NEITHER;
	else
		f->label = CLASSIFY_UNDECIDED;
	if (f->label != CLASSIFY_UNDECIDED) {
		c->decided++;
		return;
	}
	c->undecided++;
	/* The share nearer the threshold is the one to settle. */
	if (fabs(t.p - thr) <= fabs(fs.p - thr))
		f->histories_to_decide = histories_for(t, thr, f->histories);
	else
		f->histories_to_decide = histories_for(fs, thr,
						       f->false_histories);
}

static int by_field(const void *a, const void *b)
{
	const struct classify_field *x = a, *y = b;

	if (x->target != y->target)
		return x->target < y->target ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int by_count(const void *a, const void *b)
{
	const struct classify_writer *x = a, *y = b;

	return x->count > y->count ? -1 : x->count < y->count;
}

void classify_build(struct classify *c, const struct history_set *hs)
{
	size_t cap = 0;

	memset(c, 0, sizeof(*c));
	c->threshold = CLASSIFY_THRESHOLD;
	for (size_t i = 0; i < hs->n; i++) {
		if (!classify_usable(&hs->h[i])) {
			c->skipped++;
			continue;
		}
		c->histories++;
		replay(c, &cap, &hs->h[i]);
	}
	for (size_t i = 0; i < c->n; i++) {
		struct classify_field *f = &c->f[i];

		qsort(f->true_writers, CLASSIFY_MAX_WRITERS,
		      sizeof(*f->true_writers), by_count);
		qsort(f->false_writers, CLASSIFY_MAX_WRITERS,
		      sizeof(*f->false_writers), by_count);
		f->true_share = share_of(f->true_sharing, f->accesses,
					 f->sums.t2, f->sums.tn, f->sums.n2,
					 f->histories);
		/*
		 * A line-mate's writes are seen only where both were watched:
		 * the false share is over those histories (all, when the
		 * field has no line-mate, where it is 0 by construction).
		 */
		if (f->sums.mate_histories) {
			f->false_histories = f->sums.mate_histories;
			f->false_share = share_of(f->sums.mate_false,
						  f->sums.mate_accesses,
						  f->sums.mate_f2,
						  f->sums.mate_fn,
						  f->sums.mate_n2,
						  f->sums.mate_histories);
		} else {
			f->false_histories = f->histories;
			f->false_share = share_of(f->false_sharing,
						  f->accesses, f->sums.f2,
						  f->sums.fn, f->sums.n2,
						  f->histories);
		}
		label_field(c, f);
	}
	if (c->n)
		qsort(c->f, c->n, sizeof(*c->f), by_field);
}

void classify_free(struct classify *c)
{
	free(c->f);
	memset(c, 0, sizeof(*c));
}

const char *classify_label_name(enum classify_label l)
{
	switch (l) {
	case CLASSIFY_TRUE_SHARING: return "true-sharing";
	case CLASSIFY_FALSE_SHARING: return "false-sharing";
	case CLASSIFY_UNDECIDED: return "undecided";
	default: return "neither";
	}
}

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
#include "diffstat.h"
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

static struct classify_line *line_of(struct classify *c, size_t *cap,
				     int target, uint16_t line)
{
	for (size_t i = 0; i < c->nl; i++)
		if (c->l[i].target == target && c->l[i].line == line)
			return &c->l[i];
	if (c->nl == *cap) {
		*cap = *cap ? 2 * *cap : 32;
		c->l = xrealloc(c->l, *cap * sizeof(*c->l));
	}
	memset(&c->l[c->nl], 0, sizeof(c->l[c->nl]));
	c->l[c->nl].target = target;
	c->l[c->nl].line = line;
	return &c->l[c->nl++];
}

/*
 * The line of @h's object that holds @offset, counted from the line of
 * its first byte: offset / 64 for an object aligned to a line, as the
 * caches dprof targets mostly are (SLAB_HWCACHE_ALIGN); for others the
 * same index holds other fields from object to object.
 */
static uint16_t object_line(const struct history *h, uint16_t offset)
{
	return (uint16_t)((h->addr % CLASSIFY_LINE + offset) / CLASSIFY_LINE);
}

/* One history's counts on one line: the unit of the line's shares. */
struct line_count {
	uint16_t line;
	uint16_t offset[DPROF_HIST_MAX_OFFSETS];	/* its watched slots */
	int nr_offsets;
	uint64_t n, hit, t, f, r, first;
};

static struct line_count *line_count_of(struct line_count *lc, int *nr,
					uint16_t line)
{
	for (int i = 0; i < *nr; i++)
		if (lc[i].line == line)
			return &lc[i];
	/* An element off the watched slots' lines: a scratch count. */
	if (*nr == DPROF_HIST_MAX_OFFSETS)
		return &lc[DPROF_HIST_MAX_OFFSETS];
	memset(&lc[*nr], 0, sizeof(lc[*nr]));
	lc[*nr].line = line;
	for (int k = 0; k < DPROF_HIST_MAX_OFFSETS; k++)
		lc[*nr].offset[k] = 0xffff;
	return &lc[(*nr)++];
}

/* The line's group of slots @lc watched; a new one while there is room. */
static void count_group(struct classify_line *l, const struct line_count *lc)
{
	struct classify_group *g = NULL;

	for (size_t i = 0; i < l->nr_groups && !g; i++)
		if (offsets_equal(l->group[i].offset, lc->offset))
			g = &l->group[i];
	if (!g && l->nr_groups < CLASSIFY_LINE_GROUPS) {
		g = &l->group[l->nr_groups++];
		memcpy(g->offset, lc->offset, sizeof(g->offset));
	}
	if (!g) {
		l->groups_left_out++;
		return;
	}
	g->histories++;
	g->moved += lc->r > 0;
}

/* A history's line counts into the type's line totals. */
static void add_line(struct classify *c, size_t *lcap, int target,
		     const struct line_count *lc)
{
	struct classify_line *l = line_of(c, lcap, target, lc->line);
	double n = (double)lc->n, t = (double)lc->t, f = (double)lc->f;
	double r = (double)lc->r;

	l->histories++;
	l->accesses += lc->n;
	l->hits += lc->hit;
	l->true_sharing += lc->t;
	l->false_sharing += lc->f;
	l->transfers += lc->r;
	l->first_touch += lc->first;
	if (lc->nr_offsets > l->most_together)
		l->most_together = lc->nr_offsets;
	l->sums.n2 += n * n;
	l->sums.t2 += t * t;
	l->sums.tn += t * n;
	l->sums.r2 += r * r;
	l->sums.rn += r * n;
	l->sums.f2 += f * f;
	l->sums.fn += f * n;
	if (lc->nr_offsets > 1) {	/* a false share needs a line-mate */
		l->sums.mate_histories++;
		l->sums.mate_accesses += lc->n;
		l->sums.mate_false += lc->f;
		l->sums.mate_n2 += n * n;
		l->sums.mate_f2 += f * f;
		l->sums.mate_fn += f * n;
	}
	count_group(l, lc);
}

/* One history's watched slots and its counts on each (for whole_lines()). */
struct hist_slots {
	int target;
	bool aligned;		/* to a line: object_line() is offset / 64 */
	int nr;
	uint16_t offset[DPROF_HIST_MAX_OFFSETS];
	uint64_t n[DPROF_HIST_MAX_OFFSETS], r[DPROF_HIST_MAX_OFFSETS];
};

static void replay(struct classify *c, size_t *cap, size_t *lcap,
		   const struct history *h, struct hist_slots *out)
{
	uint8_t *class = xcalloc(h->nr_elems + 1, 1);
	const struct hist_elem **writer = xcalloc(h->nr_elems + 1,
						  sizeof(*writer));
	struct classify_field *f;
	/* This history's counts per watched offset: its unit of the shares. */
	uint64_t n0[DPROF_HIST_MAX_OFFSETS], t0[DPROF_HIST_MAX_OFFSETS];
	uint64_t f0[DPROF_HIST_MAX_OFFSETS], r0[DPROF_HIST_MAX_OFFSETS];
	/* ... and per line it watched (at most one per offset). */
	struct line_count lc[DPROF_HIST_MAX_OFFSETS + 1];
	int nr_lines = 0;

	for (int k = 0; k < h->nr_offsets; k++) {
		struct line_count *x = line_count_of(lc, &nr_lines,
						object_line(h, h->offset[k]));

		x->offset[x->nr_offsets++] = h->offset[k];
	}

	out->target = h->target;
	out->aligned = h->addr % CLASSIFY_LINE == 0;
	out->nr = h->nr_offsets;
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
		r0[k] = f->transfers;
	}
	classify_history(h, class, writer);
	for (size_t i = 0; i < h->nr_elems; i++) {
		const struct hist_elem *w = writer[i];
		struct line_count *x = line_count_of(lc, &nr_lines,
					object_line(h, h->elems[i].offset));

		f = field_of(c, cap, h->target, h->elems[i].offset);
		f->accesses++;
		x->n++;
		switch (class[i]) {
		case CLASS_TRANSFER:
			f->transfers++;
			x->r++;
			add_writer(f->transfer_writers, w->offset, w->ip);
			break;
		case CLASS_FIRST_TOUCH:
			f->first_touch++;
			x->first++;
			break;
		case CLASS_HIT:
			f->hits++;
			x->hit++;
			break;
		case CLASS_TRUE_SHARING:
			f->true_sharing++;
			x->t++;
			add_writer(f->true_writers, w->offset, w->ip);
			break;
		default:
			f->false_sharing++;
			x->f++;
			add_writer(f->false_writers, w->offset, w->ip);
			break;
		}
	}
	for (int i = 0; i < nr_lines; i++)
		add_line(c, lcap, h->target, &lc[i]);
	for (int k = 0; k < h->nr_offsets; k++) {
		double n, t, fs, r;
		bool mate = false;

		f = field_of(c, cap, h->target, h->offset[k]);
		n = (double)(f->accesses - n0[k]);
		t = (double)(f->true_sharing - t0[k]);
		fs = (double)(f->false_sharing - f0[k]);
		r = (double)(f->transfers - r0[k]);
		out->offset[k] = h->offset[k];
		out->n[k] = f->accesses - n0[k];
		out->r[k] = f->transfers - r0[k];
		f->sums.n2 += n * n;
		f->sums.t2 += t * t;
		f->sums.tn += t * n;
		f->sums.r2 += r * r;
		f->sums.rn += r * n;
		f->sums.f2 += fs * fs;
		f->sums.fn += fs * n;
		/* Another watched offset in the field's line? */
		for (int m = 0; m < h->nr_offsets; m++)
			mate |= m != k && object_line(h, h->offset[m]) ==
					   object_line(h, h->offset[k]);
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
 * at least the false and transfer ones), false sharing likewise, handoff
 * when transfers are (and above both invalidations), neither when all
 * three are below with theirs; else undecided, with about how many
 * histories would settle the share nearest the threshold.  @n_false: the
 * histories the false share is over.
 */
static enum classify_label label_of(struct classify_share t,
				    struct classify_share fs,
				    struct classify_share tr, double thr,
				    uint64_t n, uint64_t n_false,
				    uint64_t *to_decide)
{
	bool known = t.half >= 0 && fs.half >= 0 && tr.half >= 0;
	double dt = fabs(t.p - thr), df = fabs(fs.p - thr);
	double dr = fabs(tr.p - thr);

	*to_decide = 0;
	if (known && t.p - t.half >= thr && t.p >= fs.p && t.p >= tr.p)
		return CLASSIFY_TRUE_SHARING;
	if (known && fs.p - fs.half >= thr && fs.p > t.p && fs.p >= tr.p)
		return CLASSIFY_FALSE_SHARING;
	if (known && tr.p - tr.half >= thr && tr.p > t.p && tr.p > fs.p)
		return CLASSIFY_HANDOFF;
	if (known && t.p + t.half < thr && fs.p + fs.half < thr &&
	    tr.p + tr.half < thr)
		return CLASSIFY_NEITHER;
	if (df < dt && df <= dr)
		*to_decide = histories_for(fs, thr, n_false);
	else if (dr < dt)
		*to_decide = histories_for(tr, thr, n);
	else
		*to_decide = histories_for(t, thr, n);
	return CLASSIFY_UNDECIDED;
}

static void count_label(struct classify *c, enum classify_label l)
{
	if (l == CLASSIFY_UNDECIDED)
		c->undecided++;
	else
		c->decided++;
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

static int by_line(const void *a, const void *b)
{
	const struct classify_line *x = a, *y = b;

	if (x->target != y->target)
		return x->target < y->target ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/*
 * A line's shares and label, as a field's, and the lives it moved in:
 * the group of slots whose interval's lower end is highest (each group's
 * share is a lower bound of the line's; taking the best of a few groups
 * makes a chance high more likely, which the 95% of each interval does
 * not cover: design.rst says so).
 */
static void finish_line(struct classify *c, struct classify_line *l)
{
	uint64_t n_false;

	for (size_t i = 0; i < c->n; i++)
		l->slots_watched += c->f[i].target == l->target &&
				    c->f[i].offset / CLASSIFY_LINE == l->line;
	l->true_share = share_of(l->true_sharing, l->accesses, l->sums.t2,
				 l->sums.tn, l->sums.n2, l->histories);
	l->transfer_share = share_of(l->transfers, l->accesses, l->sums.r2,
				     l->sums.rn, l->sums.n2, l->histories);
	if (l->sums.mate_histories) {
		n_false = l->sums.mate_histories;
		l->false_share = share_of(l->sums.mate_false,
					  l->sums.mate_accesses,
					  l->sums.mate_f2, l->sums.mate_fn,
					  l->sums.mate_n2, n_false);
	} else {
		n_false = l->histories;
		l->false_share = share_of(l->false_sharing, l->accesses,
					  l->sums.f2, l->sums.fn, l->sums.n2,
					  n_false);
	}
	l->moved_lo = 0;
	l->moved_hi = 1;
	for (size_t g = 0; g < l->nr_groups; g++) {
		double lo, hi;

		diff_wilson((double)l->group[g].moved,
			    (double)l->group[g].histories, &lo, &hi);
		if (g == 0 || lo > l->moved_lo) {
			l->best_group = g;
			l->moved_lo = lo;
			l->moved_hi = hi;
		}
	}
	l->label = label_of(l->true_share, l->false_share, l->transfer_share,
			    c->threshold, l->histories, n_false,
			    &l->histories_to_decide);
	/*
	 * A line that moves in most lives costs a miss each time however
	 * many hits its owner's accesses add around it: handoff, when the
	 * moves outnumber both invalidations.
	 */
	if ((l->label == CLASSIFY_NEITHER || l->label == CLASSIFY_UNDECIDED) &&
	    l->moved_lo > CLASSIFY_MOVED_MOST &&
	    l->transfers > l->true_sharing + l->false_sharing) {
		l->label = CLASSIFY_HANDOFF;
		l->histories_to_decide = 0;
	}
	if (l->label == CLASSIFY_UNDECIDED)
		c->lines_undecided++;
	else
		c->lines_decided++;
}

/* The first field of @target at @offset or after, in the sorted fields. */
static size_t first_field(const struct classify *c, int target,
			  uint16_t offset)
{
	size_t lo = 0, hi = c->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct classify_field *f = &c->f[mid];

		if (f->target < target ||
		    (f->target == target && f->offset < offset))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Did @s watch every slot of line @line that any history saw accessed? */
static bool watched_whole(const struct classify *c,
			  const struct hist_slots *s, uint16_t line)
{
	uint16_t lo = line * CLASSIFY_LINE;

	for (size_t i = first_field(c, s->target, lo);
	     i < c->n && c->f[i].target == s->target &&
	     c->f[i].offset < lo + CLASSIFY_LINE; i++) {
		bool watched = false;

		if (!c->f[i].accesses)
			continue;
		for (int k = 0; k < s->nr; k++)
			watched |= s->offset[k] == c->f[i].offset;
		if (!watched)
			return false;
	}
	return true;
}

/*
 * The transfers a field can be charged with: those of the histories that
 * watched its line whole (struct classify_field, transfer_histories).  A
 * slot no history watched is not known to be accessed, and is not asked
 * for; the coverage line counts such slots.  After the fields are sorted.
 */
static void whole_lines(struct classify *c, const struct hist_slots *s,
			size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (int k = 0; s[i].aligned && k < s[i].nr; k++) {
			size_t at = first_field(c, s[i].target,
						s[i].offset[k]);
			struct classify_field *f = &c->f[at];
			double x = (double)s[i].n[k], r = (double)s[i].r[k];

			if (!watched_whole(c, &s[i],
					   s[i].offset[k] / CLASSIFY_LINE))
				continue;
			f->transfer_histories++;
			f->sums.whole_accesses += s[i].n[k];
			f->sums.whole_transfers += s[i].r[k];
			f->sums.whole_n2 += x * x;
			f->sums.whole_r2 += r * r;
			f->sums.whole_rn += r * x;
		}
	}
}

void classify_build(struct classify *c, const struct history_set *hs)
{
	struct hist_slots *slots = xcalloc(hs->n + 1, sizeof(*slots));
	size_t cap = 0, lcap = 0;

	memset(c, 0, sizeof(*c));
	c->threshold = CLASSIFY_THRESHOLD;
	for (size_t i = 0; i < hs->n; i++) {
		if (!classify_usable(&hs->h[i])) {
			c->skipped++;
			continue;
		}
		replay(c, &cap, &lcap, &hs->h[i], &slots[c->histories]);
		c->histories++;
		c->unaligned += hs->h[i].addr % CLASSIFY_LINE != 0;
	}
	if (c->n)
		qsort(c->f, c->n, sizeof(*c->f), by_field);
	whole_lines(c, slots, c->histories);
	free(slots);
	for (size_t i = 0; i < c->n; i++) {
		struct classify_field *f = &c->f[i];

		qsort(f->true_writers, CLASSIFY_MAX_WRITERS,
		      sizeof(*f->true_writers), by_count);
		qsort(f->false_writers, CLASSIFY_MAX_WRITERS,
		      sizeof(*f->false_writers), by_count);
		qsort(f->transfer_writers, CLASSIFY_MAX_WRITERS,
		      sizeof(*f->transfer_writers), by_count);
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
		f->transfer_share = share_of(f->sums.whole_transfers,
					     f->sums.whole_accesses,
					     f->sums.whole_r2,
					     f->sums.whole_rn,
					     f->sums.whole_n2,
					     f->transfer_histories);
		if (f->transfer_share.half < 0) {
			/* Moves not placed: the label leaves them out. */
			struct classify_share none = { 0, 0 };

			f->label = label_of(f->true_share, f->false_share,
					    none, c->threshold, f->histories,
					    f->false_histories,
					    &f->histories_to_decide);
			f->transfer_share.p = f->accesses ?
				(double)f->transfers / f->accesses : 0;
		} else {
			f->label = label_of(f->true_share, f->false_share,
					    f->transfer_share, c->threshold,
					    f->histories, f->false_histories,
					    &f->histories_to_decide);
		}
		count_label(c, f->label);
	}
	for (size_t i = 0; i < c->nl; i++)
		finish_line(c, &c->l[i]);
	if (c->nl)
		qsort(c->l, c->nl, sizeof(*c->l), by_line);
}

void classify_cover(struct classify *c, const struct dprof_plan_item *items,
		    size_t n)
{
	size_t cap = c->n, lcap = c->nl, before = c->n, lines_before = c->nl;

	for (size_t i = 0; i < n; i++) {
		const struct dprof_plan_item *e = &items[i];

		for (int k = 0; k < e->nr_offsets &&
		     k < DPROF_HIST_MAX_OFFSETS; k++) {
			size_t had = c->n;
			struct classify_field *f = field_of(c, &cap, e->target,
							    e->offset[k]);
			struct classify_line *l;

			if (c->n == had)
				continue;	/* watched, or already added */
			c->planned++;
			c->unwatched++;
			f->len = e->len;
			f->label = CLASSIFY_UNDECIDED;
			f->true_share.half = f->false_share.half = -1;
			f->transfer_share.half = -1;
			f->histories_to_decide = 2;	/* for an interval */
			c->undecided++;
			had = c->nl;
			l = line_of(c, &lcap, e->target,
				    e->offset[k] / CLASSIFY_LINE);
			if (c->nl == had) {
				l->slots_watched++;
				continue;
			}
			l->label = CLASSIFY_UNDECIDED;
			l->true_share.half = l->false_share.half = -1;
			l->transfer_share.half = -1;
			l->histories_to_decide = 2;
			c->lines_undecided++;
		}
	}
	/* Every watched field was planned, too. */
	if (n)
		c->planned += before;
	if (c->n > before)
		qsort(c->f, c->n, sizeof(*c->f), by_field);
	if (c->nl > lines_before)
		qsort(c->l, c->nl, sizeof(*c->l), by_line);
}

void classify_count_labels(const struct classify *c, int target,
			   size_t *decided, size_t *undecided)
{
	*decided = *undecided = 0;
	for (size_t i = 0; i < c->n; i++)
		if (target < 0 || c->f[i].target == target)
			++*(c->f[i].label == CLASSIFY_UNDECIDED ? undecided :
			    decided);
	for (size_t i = 0; i < c->nl; i++)
		if (target < 0 || c->l[i].target == target)
			++*(c->l[i].label == CLASSIFY_UNDECIDED ? undecided :
			    decided);
}

void classify_free(struct classify *c)
{
	free(c->f);
	free(c->l);
	memset(c, 0, sizeof(*c));
}

const char *classify_label_name(enum classify_label l)
{
	switch (l) {
	case CLASSIFY_TRUE_SHARING: return "true-sharing";
	case CLASSIFY_FALSE_SHARING: return "false-sharing";
	case CLASSIFY_UNDECIDED: return "undecided";
	case CLASSIFY_HANDOFF: return "handoff";
	default: return "neither";
	}
}

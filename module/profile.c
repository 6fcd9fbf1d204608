// SPDX-License-Identifier: GPL-2.0
/*
 * The profile debugfs file: the sampler's state and counters, then every
 * type ranked by misses (IBS/PEBS) or by its estimated share of the
 * accesses (watch), with the share's 95% interval and its top offsets.
 * The watch sampler's estimator (young and old sample windows on one
 * scale) is here; the windows themselves are window.c's.  Reads the
 * aggregation tables sample.c fills (sample.h).
 */
#include <linux/math64.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/timex.h>
#include "uapi/dprof.h"
#include "target.h"
#include "allocount.h"
#include "stats.h"
#include "profile.h"
#include "sample.h"
#include "plan.h"
#include "watch.h"

struct type_sum {
	/*
	 * lat_misses: the misses of entries whose instruction loads; the
	 * drivers give stores no latency, so the average is over these.
	 */
	u64 count, misses, latency, lat_misses;
	/* watch: per-window sums of each kind of window */
	struct dprof_window_sums win[DPROF_NR_WINDOW_KINDS];
	/* watch: estimated samples per second, each kind's, and its variance */
	u64 weight;
	u64 part[DPROF_NR_WINDOW_KINDS];
	u64 relvar;			/* in 1/SHARE_ONE */
	bool relvar_unknown;		/* a kind with samples in 1 window */
	u64 fewest_windows;	/* of the kinds with samples: Student's t */
	/* No window saw an access: the weight's 95% upper bound (3 / w). */
	u64 zero_bound;
	unsigned int target;
};

/* What every type's share is taken of. */
struct share_base {
	u64 all;		/* samples (watch) or misses (IBS/PEBS) */
	u64 weight;		/* watch: sum of the types' weights */
	u64 spread;		/* watch: sum of p^2 relvar, in 1/SHARE_ONE^2 */
	struct dprof_window_scale scale;	/* watch: the draws' scale */
};

struct offset_sum {
	u16 offset;
	u64 count, loads, stores, misses;
};

static int offset_cmp(const void *a, const void *b)
{
	const struct offset_sum *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

/*
 * Types by misses (hardware samplers) or by estimated share, then
 * samples (watch), most first.
 */
static int type_cmp(const void *a, const void *b)
{
	const struct type_sum *x = a, *y = b;
	u64 wx = dprof_sampling.sampler == DPROF_SAMPLER_WATCH ? x->weight : x->misses;
	u64 wy = dprof_sampling.sampler == DPROF_SAMPLER_WATCH ? y->weight : y->misses;

	if (wx == wy && dprof_sampling.sampler == DPROF_SAMPLER_WATCH) {
		wx = x->count;
		wy = y->count;
	}
	if (wx != wy)
		return wx < wy ? 1 : -1;
	return x->target < y->target ? -1 : x->target > y->target;
}

#define TOP_OFFSETS 10
#define TOP_TYPES_DETAILED 10	/* types whose offsets are listed */

static bool is_variable(unsigned int target)
{
	return READ_ONCE(dprof_targets[target].flags) & DPROF_TARGET_VAR;
}

/* Every type's totals, in one pass over the tables. */
static void sum_types(struct type_sum *types, unsigned int nr)
{
	unsigned int cpu, i;

	for (i = 0; i < nr; i++) {
		memset(&types[i], 0, sizeof(types[i]));
		types[i].target = i;
	}
	for_each_possible_cpu(cpu) {
		const struct agg_table *tab = per_cpu_ptr(&dprof_agg, cpu);

		cond_resched();	/* a table is up to 1 M entries */
		for (i = 0; i < dprof_sampling.table_entries; i++) {
			const struct dprof_sample_agg *e = &tab->e[i];

			if (!READ_ONCE(e->count) || e->target >= nr)
				continue;
			types[e->target].count += e->count;
			types[e->target].misses += e->misses;
			types[e->target].latency += e->latency_sum;
			if (e->loads)
				types[e->target].lat_misses += e->misses;
		}
	}
	if (dprof_sampling.sampler == DPROF_SAMPLER_WATCH) {
		u16 *owners = dprof_alloc_count_owners();

		for (i = 0; i < nr; i++)
			dprof_plan_window_sums(i, types[i].win,
					       dprof_alloc_count(i, owners, NULL));
		kfree(owners);
	}
}

/* Shares and variances in fixed point: 1 is SHARE_ONE. */
#define SHARE_SHIFT	20
#define SHARE_ONE	BIT_ULL(SHARE_SHIFT)
/* A relative variance of 16 is an interval wider than any share. */
#define RELVAR_MAX	(16 * SHARE_ONE)

/* a * b / c, saturated where the quotient might not fit (c > 0). */
static u64 mul_div(u64 a, u64 b, u64 c)
{
	if (fls64(a) + fls64(b) - fls64(c) >= 63)
		return U64_MAX >> 9;	/* still summable over all targets */
	return mul_u64_u64_div_u64(a, b, c);
}

/*
 * The watch sampler's share of type t in the accesses:
 *	p_t = A_t / sum_u A_u,	A_t = A_t,old + A_t,inuse + A_t,young
 * the type's estimated samples per second at ages of a window and more
 * (on objects not in use, and in use) and at younger ages, from the
 * three kinds of window (dprof.h).  Each is
 *	A_t,k = r_t,k G_t c_t,k K_k
 * r_t,k = s / w its samples per window (s samples in w windows of that
 * kind on t; for in-use windows each window's samples weighed by its
 * draw's rho = H / (N n), window.c), G_t the objects' accesses per
 * access to the watched item
 * (a window watches one item of the type's plan, the items in turn: in
 * history_mode=set G is the items' count, 8 for a 232-byte sk_buff, 262
 * for a task_struct; without it a type of large objects weighed as
 * little as the few bytes of it a window watches), c_t,k its draws,
 * and K_k the kind's scale (struct
 * dprof_window_scale): old, c is the type's old objects not in use
 * summed over the censuses and K one per census per window length
 * (window.c stratifies the old windows by type); in use, the same with
 * all its old objects (rho is relative to them); young and life
 * (histories, dprof.h), c is the type's allocations since load and K
 * one per second of it (the gate's draws are not in proportion to
 * them: dprof_window_sums).  Taking s_t / sum_u s_u instead would swing
 * with how many windows each type happened to get.
 *
 * The error, linearised: var(p_t) = p_t^2 ((1 - 2 p_t) R_t + S), where
 * S = sum_u p_u^2 R_u, R_u = var(A_u) / A_u^2, and per kind
 * R_u,k = q / s^2 - 1 / w, q the sum of the squared samples per
 * window (the windows are the independent draws, not the samples).
 * Old objects and allocations are counted, not drawn.  The kinds are
 * independent: R_u = sum_k (A_u,k / A_u)^2 R_u,k.  The scales are taken
 * as exact (their counts are of every object, not of draws).
 */
#define WEIGHT_SHIFT	16	/* estimated samples per second, fixed point */

/* K_k as the fraction @num / @den of samples per second per draw. */
static void kind_scale(const struct dprof_window_scale *sc,
		       enum dprof_window_kind k, u64 *num, u64 *den)
{
	if (k == DPROF_WINDOW_OLD || k == DPROF_WINDOW_INUSE) {
		/* the mean over the censuses, per window_ms */
		*num = MSEC_PER_SEC;
		*den = sc->censuses * sc->window_ms;
	} else {
		/* the type's allocations (dprof_window_sums.allocs) per second */
		*num = MSEC_PER_SEC;
		*den = sc->elapsed_ms;
	}
}

/* @a, the watched item's, as the whole object's: times G_t. */
static u64 cover(u64 a, const struct dprof_window_sums *w)
{
	return w->cover_num && w->cover_den ?
	       mul_div(a, w->cover_num, w->cover_den) : a;
}

/*
 * A_t,k in 1/2^WEIGHT_SHIFT samples per second, and R_t,k; where no
 * window of the kind saw an access, 0 and its 95% upper bound in @bound
 * (the rule of three: a sum of 0 over w windows bounds the mean by 3 / w).
 */
static u64 kind_weight(const struct dprof_window_sums *w,
		       const struct dprof_window_scale *sc,
		       enum dprof_window_kind k, u64 *relvar, u64 *bound)
{
	/* Counts, taken as exact: old objects, or the type's allocations. */
	u64 n = k == DPROF_WINDOW_YOUNG || k == DPROF_WINDOW_LIFE ?
		w->allocs : w->draws;
	u64 num, den, rel, sub;

	*relvar = 0;
	*bound = 0;
	kind_scale(sc, k, &num, &den);
	if (!w->windows || !n || !num || !den)
		return 0;
	if (!w->samples) {
		/* 3 samples, in the sums' 1/DPROF_WINDOW_RHO_ONE */
		*bound = cover(mul_div(mul_div(3ULL << WEIGHT_SHIFT, n,
					       w->windows), num, den), w);
		return 0;
	}
	/*
	 * q / s^2 <= max y / s: (q / s) / s, q / s in fixed point first.
	 * s is in 1/2^16 samples and q in 1/2^16 squared samples (plan.c
	 * squares y / 2^8): q / s^2 is the ratio over 2^16.
	 */
	rel = mul_div(mul_div(w->samples_sq, SHARE_ONE, w->samples),
		      DPROF_WINDOW_RHO_ONE, w->samples);
	sub = div64_u64(SHARE_ONE, w->windows);
	*relvar = min_t(u64, rel > sub ? rel - sub : 0, RELVAR_MAX);
	/*
	 * The sums are in 1/DPROF_WINDOW_RHO_ONE samples (window.c), the
	 * weight's fixed point.
	 */
	BUILD_BUG_ON(DPROF_WINDOW_RHO_ONE != 1 << WEIGHT_SHIFT);
	return cover(mul_div(mul_div(w->samples, n, w->windows), num, den), w);
}

static void window_weight(struct type_sum *t,
			  const struct dprof_window_scale *sc)
{
	u64 a[DPROF_NR_WINDOW_KINDS], rv[DPROF_NR_WINDOW_KINDS], f, bound;
	unsigned int k;

	t->weight = 0;
	t->relvar = 0;
	t->relvar_unknown = false;
	t->fewest_windows = 0;
	t->zero_bound = 0;
	for (k = 0; k < DPROF_NR_WINDOW_KINDS; k++) {
		/* Lives stand for the ages young windows would (dprof.h). */
		a[k] = k == (sc->lives ? DPROF_WINDOW_YOUNG :
			     DPROF_WINDOW_LIFE) ? 0 :
		       kind_weight(&t->win[k], sc, k, &rv[k], &bound);
		rv[k] = a[k] ? rv[k] : 0;
		t->part[k] = a[k];
		t->weight += a[k];
		t->zero_bound += bound;
		/* One window with samples: their spread is unknown. */
		if (a[k] && t->win[k].windows < 2)
			t->relvar_unknown = true;
		if (a[k] && (!t->fewest_windows ||
			     t->win[k].windows < t->fewest_windows))
			t->fewest_windows = t->win[k].windows;
	}
	if (!t->weight)
		return;
	for (k = 0; k < DPROF_NR_WINDOW_KINDS; k++) {
		/* (A_k / A)^2 R_k: f^2 <= 2^40, R_k <= 2^24 */
		f = mul_div(a[k], SHARE_ONE, t->weight);
		t->relvar += ((f * f) >> SHARE_SHIFT) * rv[k] >> SHARE_SHIFT;
	}
	t->relvar = min_t(u64, t->relvar, RELVAR_MAX);
}

/* p in 1/SHARE_ONE (at most SHARE_ONE). */
static u64 window_share(const struct type_sum *t, const struct share_base *b)
{
	return b->weight ? min_t(u64, mul_div(t->weight, SHARE_ONE, b->weight),
				 SHARE_ONE) : 0;
}

/* The weights of every type and what their shares are taken of. */
static void window_base(struct type_sum *types, unsigned int nr,
			struct share_base *b)
{
	unsigned int i;
	u64 p;

	dprof_plan_window_scale(&b->scale);
	b->scale.elapsed_ms = div_u64(ktime_get_mono_fast_ns() - dprof_sampling.start_ns,
				      NSEC_PER_MSEC);
	for (i = 0; i < nr; i++) {
		window_weight(&types[i], &b->scale);
		b->weight += types[i].weight;
	}
	for (i = 0; i < nr; i++) {
		p = window_share(&types[i], b);
		/* p^2 in 1/SHARE_ONE, times relvar <= 2^24: at most 2^44 */
		b->spread += (p * p >> SHARE_SHIFT) * types[i].relvar;
	}
}

/*
 * The types' sums (types[t] is target t's, unsorted) and what their
 * shares are of: the window estimates' base, and the samples or misses
 * of every type but the variables (watched in turns, not drawn).
 */
static void shares_prepare(struct type_sum *types, unsigned int nr,
			   struct share_base *b, bool hw)
{
	unsigned int t;

	sum_types(types, nr);
	if (!hw)
		window_base(types, nr, b);
	for (t = 0; t < nr; t++)
		if (hw || !is_variable(t))
			b->all += hw ? types[t].misses : types[t].count;
}

/*
 * Student's t at 97.5% times 1000 for the windows of the kind with the
 * fewest (df = windows - 1): two windows that agree are not a narrow
 * interval (a type estimated from 2 windows on memcached read 85.2% +-
 * 19.1 with 1.96, for 0.0% by the referee).
 */
static u64 t975_milli(u64 windows)
{
	static const u16 t[] = {
		12706, 12706, 4303, 3182, 2776, 2571, 2447, 2365, 2306, 2262,
		2228, 2201, 2179, 2160, 2145, 2131, 2120, 2110, 2101, 2093,
		2086, 2080, 2074, 2069, 2064, 2060, 2056, 2052, 2048, 2045,
	};

	return windows >= 2 && windows - 1 < ARRAY_SIZE(t) ? t[windows - 1] :
	       windows < 2 ? t[0] : 1960;
}

/* Half-width of the 95% interval of the share, in 1/10000. */
static u64 window_half95(const struct type_sum *t, const struct share_base *b)
{
	u64 p = window_share(t, b);
	s64 v = (s64)b->spread +
		((s64)SHARE_ONE - 2 * (s64)p) * (s64)t->relvar;

	if (v <= 0)
		return 0;
	/* sqrt(v) is sqrt(V) in 1/SHARE_ONE: p sqrt(v) <= 2^46, t <= 2^14 */
	return (10 * t975_milli(t->fewest_windows) * p * int_sqrt64(v)) >>
	       (2 * SHARE_SHIFT);
}

/*
 * IBS/PEBS: the binomial half-width of the share p = s_t / s of
 * independent samples, 1.96 sqrt(p (1 - p) / s), in 1/10000.
 */
static u64 binomial_half95(u64 s_t, u64 s)
{
	u64 p;

	if (!s || s_t > s)
		return 0;
	p = div64_u64(s_t << 10, s);
	return div64_u64(19600 * int_sqrt64(p * (1024 - p) * s), 1024 * s);
}

/*
 * The share a type's row prints, in 1/10000 (two decimals of a percentage:
 * one would round a 3% share's 0.2-point interval by a quarter), and what
 * kind of figure it is; "facts" carries the same (dprof_facts_build()).
 */
static u8 share_of(const struct type_sum *t, const struct share_base *b,
		   unsigned int *pm, unsigned int *half)
{
	*pm = 0;
	*half = 0;
	if (dprof_sampling.sampler != DPROF_SAMPLER_WATCH) {
		*pm = b->all ? div64_u64(10000 * t->misses, b->all) : 0;
		*half = min_t(u64, binomial_half95(t->misses, b->all), 10000);
		return DPROF_SHARE_INTERVAL;
	}
	if (!b->weight) {
		/* No window took a sample: only the histories' counts. */
		*pm = b->all ? div64_u64(10000 * t->count, b->all) : 0;
		return DPROF_SHARE_NO_ERROR;
	}
	if (!t->win[DPROF_WINDOW_OLD].windows &&
	    !t->win[DPROF_WINDOW_YOUNG].windows &&
	    !t->win[DPROF_WINDOW_INUSE].windows &&
	    !t->win[DPROF_WINDOW_LIFE].windows)
		return DPROF_SHARE_NONE;  /* histories only: no draw weighs them */
	if (!t->weight && t->zero_bound) {
		/* No window saw an access: below the bound's share. */
		*half = div64_u64(10000 * t->zero_bound,
				  b->weight + t->zero_bound);
		return DPROF_SHARE_BELOW;
	}
	*pm = (10000 * window_share(t, b)) >> SHARE_SHIFT;
	if (t->relvar_unknown)
		return DPROF_SHARE_NO_ERROR;
	*half = min_t(u64, window_half95(t, b), 10000);
	return DPROF_SHARE_INTERVAL;
}

static void print_share(struct seq_file *m, const struct type_sum *t,
			const struct share_base *b)
{
	unsigned int pm, half;
	char buf[48];

	switch (share_of(t, b, &pm, &half)) {
	case DPROF_SHARE_INTERVAL:
		snprintf(buf, sizeof(buf), "%u.%02u+-%u.%02u%%", pm / 100,
			 pm % 100, half / 100, half % 100);
		break;
	case DPROF_SHARE_NO_ERROR:
		snprintf(buf, sizeof(buf), "%u.%02u+-?%%", pm / 100, pm % 100);
		break;
	case DPROF_SHARE_BELOW:
		snprintf(buf, sizeof(buf), "<%u.%02u%%", half / 100,
			 half % 100);
		break;
	default:
		snprintf(buf, sizeof(buf), "-");
		break;
	}
	seq_printf(m, " %15s", buf);
}

static void show_target(struct seq_file *m, const struct type_sum *s,
			const struct share_base *base, bool detail,
			struct offset_sum *offs,
			unsigned int max_offs)
{
	unsigned int t = s->target, cpu, i, n = 0;
	u64 moved, histories;
	bool hw = dprof_sampling.sampler != DPROF_SAMPLER_WATCH;
	/* One read/write breakpoint per offset counts neither. */
	bool rw = hw || dprof_watch_tells_writes();
	const char *bounce;

	dprof_target_moves(t, &moved, &histories);
	bounce = moved ? "yes" : histories ? "no" : "?";
	seq_printf(m, "%-24s %10llu", dprof_targets[t].name, s->count);
	if (!hw && is_variable(t)) {
		seq_putc(m, '\n');	/* no share: see dprof_sample_show() */
		goto offsets;
	}
	print_share(m, s, base);
	if (hw)
		seq_printf(m, " %10llu %9llu %9llu  %s\n", s->misses,
			   s->lat_misses ?
			   div64_u64(s->latency, s->lat_misses) : 0,
			   READ_ONCE(dprof_targets[t].older), bounce);
	else
		seq_printf(m, " %10s %9llu %9llu  %-6s %6llu %6llu %6llu %6llu\n",
			   "est.", s->win[DPROF_WINDOW_OLD].windows +
			   s->win[DPROF_WINDOW_YOUNG].windows +
			   s->win[DPROF_WINDOW_INUSE].windows,
			   READ_ONCE(dprof_targets[t].older), bounce,
			   base->scale.censuses ?
			   div64_u64(s->win[DPROF_WINDOW_INUSE].draws,
				     base->scale.censuses) : 0,
			   s->win[DPROF_WINDOW_YOUNG].windows,
			   s->win[DPROF_WINDOW_YOUNG].draws,
			   s->win[DPROF_WINDOW_LIFE].windows);
	if (histories)
		seq_printf(m, "  bounce: %llu of %llu watched objects were used or freed on another CPU than the allocating one\n",
			   moved, histories);
offsets:
	if (!detail || !s->count)
		return;
	for_each_possible_cpu(cpu) {
		const struct agg_table *tab = per_cpu_ptr(&dprof_agg, cpu);

		cond_resched();	/* a table is up to 1 M entries */
		for (i = 0; i < dprof_sampling.table_entries; i++) {
			const struct dprof_sample_agg *e = &tab->e[i];
			unsigned int k;

			if (!READ_ONCE(e->count) || e->target != t)
				continue;
			for (k = 0; k < n && offs[k].offset != e->offset; k++)
				;
			if (k == n) {
				if (n == max_offs)
					continue;
				memset(&offs[n], 0, sizeof(offs[n]));
				offs[n++].offset = e->offset;
			}
			offs[k].count += e->count;
			offs[k].loads += e->loads;
			offs[k].stores += e->stores;
			offs[k].misses += e->misses;
		}
	}
	sort(offs, n, sizeof(*offs), offset_cmp, NULL);
	if (n)
		seq_printf(m, "  %8s %10s %6s %8s %8s %8s\n", "offset", "samples",
			   "share", "loads", "stores", hw ? "misses" : "");
	for (i = 0; i < n && i < TOP_OFFSETS; i++)
		if (hw)
			seq_printf(m, "  %8u %10llu %5llu%% %8llu %8llu %8llu\n",
				   offs[i].offset, offs[i].count,
				   div64_u64(100 * offs[i].count, s->count),
				   offs[i].loads, offs[i].stores,
				   offs[i].misses);
		else if (rw)
			seq_printf(m, "  %8u %10llu %5llu%% %8llu %8llu\n",
				   offs[i].offset, offs[i].count,
				   div64_u64(100 * offs[i].count, s->count),
				   offs[i].loads, offs[i].stores);
		else
			seq_printf(m, "  %8u %10llu %5llu%% %8s %8s\n",
				   offs[i].offset, offs[i].count,
				   div64_u64(100 * offs[i].count, s->count),
				   "-", "-");
}

static void counters_sum(struct sample_counters *sum)
{
	unsigned int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct sample_counters *c = per_cpu_ptr(&dprof_scount, cpu);

		sum->samples += READ_ONCE(c->samples);
		sum->in_target += READ_ONCE(c->in_target);
		sum->other_slab += READ_ONCE(c->other_slab);
		sum->not_slab += READ_ONCE(c->not_slab);
		sum->stack += READ_ONCE(c->stack);
		sum->user += READ_ONCE(c->user);
		sum->data_full += READ_ONCE(c->data_full);
		sum->no_addr += READ_ONCE(c->no_addr);
		sum->misses += READ_ONCE(c->misses);
		sum->target_misses += READ_ONCE(c->target_misses);
		sum->table_full += READ_ONCE(c->table_full);
		sum->nested += READ_ONCE(c->nested);
		sum->from_windows += READ_ONCE(c->from_windows);
	}
}

/* A CPU whose counter could not be made (or re-made) shows none. */
static void samples_per_cpu(struct seq_file *m)
{
	unsigned int cpu;

	seq_puts(m, "samples per CPU:");
	for_each_possible_cpu(cpu)
		seq_printf(m, " %u:%llu%s", cpu,
			   READ_ONCE(per_cpu_ptr(&dprof_scount, cpu)->samples),
			   cpu_online(cpu) ? "" : "(offline)");
	seq_putc(m, '\n');
}

void dprof_sample_show(struct seq_file *m, bool brief)
{
	struct sample_counters c;
	u64 elapsed = ktime_get_mono_fast_ns() - dprof_sampling.start_ns;
	struct share_base base = {};
	struct offset_sum *offs;
	struct type_sum *types = NULL;
	unsigned int t, nr, seen = 0, nr_vars = 0;
	bool hw = dprof_sampling.sampler != DPROF_SAMPLER_WATCH;

	counters_sum(&c);
	seq_printf(m, "sampler: %s", dprof_sampler_names[dprof_sampling.sampler]);
	if (dprof_sampling.sampler == DPROF_SAMPLER_WATCH)
		seq_printf(m, " (debug registers%s%s): samples are accesses; misses are not measured, estimate them from the histories (dprof-view)%s\n",
			   dprof_sampling.why ? "; " : "",
			   dprof_sampling.why ? dprof_sampling.why : "",
			   dprof_watch_tells_writes() ? "" :
			   "; loads and stores are not told apart here (one read/write breakpoint per offset): dprof-view record decodes them from the instructions");
	else if (dprof_sampling.sampler == DPROF_SAMPLER_NONE ||
		 dprof_sampling.sampler == DPROF_SAMPLER_INJECT)
		seq_printf(m, "%s%s\n", dprof_sampling.why ? ": " : "",
			   dprof_sampling.why ? dprof_sampling.why : "");
	else
		seq_printf(m, ", period %llu\n", dprof_sampling.period);
	seq_printf(m, "duration_s: %llu.%03llu  cpus: %u  table: %u entries per CPU (%zu bytes each)\n",
		   elapsed / NSEC_PER_SEC, (elapsed % NSEC_PER_SEC) / NSEC_PER_MSEC,
		   num_online_cpus(), dprof_sampling.table_entries,
		   sizeof(struct dprof_sample_agg));
	seq_printf(m, "samples: %llu, in targets %llu, other slab caches or objects not established live %llu, not slab %llu, no address %llu\n",
		   c.samples, c.in_target, c.other_slab, c.not_slab, c.no_addr);
	samples_per_cpu(m);
	if (dprof_sampling.sampler == DPROF_SAMPLER_WATCH)
		seq_printf(m, "watch samples: %llu from sample windows on live objects, %llu from history watches\n",
			   c.from_windows, c.in_target - c.from_windows);
	if (c.not_slab)
		seq_printf(m, "not slab: %llu on task stacks, %llu in user memory, %llu by address (globals, per-CPU, vmalloc, ...: dprof-view report names them)\n",
			   c.stack, c.user,
			   c.not_slab - c.stack - c.user - c.data_full);
	if (dprof_sampling.sampler != DPROF_SAMPLER_WATCH &&
	    dprof_sampling.sampler != DPROF_SAMPLER_NONE)
		seq_printf(m, "misses: %llu sampled, %llu in targets\n",
			   c.misses, c.target_misses);
	seq_printf(m, "dropped: %llu (table full), %llu (nested handler), %llu (not-slab table full)\n",
		   c.table_full, c.nested, c.data_full);
	if (brief || dprof_sampling.sampler == DPROF_SAMPLER_NONE)
		return;
	nr = READ_ONCE(dprof_nr_targets);
	offs = kvcalloc(4096, sizeof(*offs), GFP_KERNEL);
	types = kvcalloc(max(nr, 1U), sizeof(*types), GFP_KERNEL);
	if (!offs || !types)
		goto out;
	shares_prepare(types, nr, &base, hw);
	sort(types, nr, sizeof(*types), type_cmp, NULL);
	for (t = 0; t < nr; t++) {
		if (!hw && is_variable(types[t].target))
			nr_vars++;
		else
			seen += !!types[t].count;
	}
	if (hw)
		seq_printf(m, "\n%u of %u types sampled; share: of the misses in all types, +- its 95%% interval (binomial); older: objects live before load (scan)\n",
			   seen, nr);
	else
		seq_printf(m, "\n%u of %u types sampled; share: of the accesses in all types, estimated from three kinds of window: on objects older than a window and not in use, by type, the samples per window times the type's such objects; on old objects in use (the CPUs' registers held them lately), drawn by their use, the samples per window weighed by the draw (rho) times the type's old objects; and on objects picked at allocation, watched from there, the samples per window times the type's allocations (under target=all every one, counted by cache; with lives on, the histories, each watched from allocation to free or history_timeout_ms, stand for those ages and the old kinds start at the timeout); +- its 95%% interval (the windows and draws are the independent draws, not the samples; - with no window; <P%% when no window on the type saw an access, P its 95%% upper bound; +-? when one window is all a kind has, or no window sampled anything: then of the history samples); windows: sample windows opened on the type, all kinds; older: objects live before load (scan); old: its live objects older than a window (mean over time of the censuses); young: windows picked at allocation; picked: its allocations drawn (in proportion to its allocation rate); lives: its histories counted as lives\n",
			   seen, nr);
	seq_printf(m, "%-24s %10s %15s %10s %9s %9s  %s%s\n", "type", "samples",
		   "share+-95%", "misses", hw ? "avg_lat" : "windows", "older",
		   "bounce", hw ? "" : "    old  young picked  lives");
	for (t = 0; t < nr; t++) {
		/* target=all: only the types something was seen in. */
		if ((dprof_target_all && !types[t].count) ||
		    (!hw && is_variable(types[t].target)))
			continue;
		show_target(m, &types[t], &base, t < TOP_TYPES_DETAILED, offs,
			    4096);
	}
	if (!nr_vars)
		goto out;
	/*
	 * The watch sampler draws objects at random; variables are watched
	 * in turns instead, so their samples are not on the same scale.
	 */
	seq_puts(m, "\nvariables (watch_symbols=): watched in turns, not drawn at random, so without a share; dprof-view classify tells their sharing\n");
	seq_printf(m, "%-24s %10s\n", "variable", "samples");
	for (t = 0; t < nr; t++)
		if (is_variable(types[t].target))
			show_target(m, &types[t], &base, true, offs, 4096);
out:
	kvfree(types);
	kvfree(offs);
}

/*
 * "facts" (facts.c): the sample counts into @f, and for each of the @nr
 * targets in @tf (tf[t] is target t's) its windows and the share its row
 * of "profile" shows, by share_of(), so the views read the same figures
 * without the sentences.  -ENOMEM when out of memory.
 */
int dprof_profile_facts(struct dprof_facts *f, struct dprof_target_fact *tf,
			unsigned int nr)
{
	bool hw = dprof_sampling.sampler != DPROF_SAMPLER_WATCH;
	struct share_base base = {};
	struct sample_counters c;
	struct type_sum *types;
	unsigned int t, k, pm, half;

	/* kind_part is indexed by the records' kinds. */
	BUILD_BUG_ON(DPROF_WINDOW_OLD != DPROF_WINDOW_REC_OLD ||
		     DPROF_WINDOW_YOUNG != DPROF_WINDOW_REC_YOUNG ||
		     DPROF_WINDOW_INUSE != DPROF_WINDOW_REC_INUSE ||
		     DPROF_WINDOW_LIFE != DPROF_WINDOW_REC_LIFE ||
		     DPROF_NR_WINDOW_KINDS != DPROF_WINDOW_REC_KINDS);
	types = kvcalloc(max(nr, 1U), sizeof(*types), GFP_KERNEL);
	if (!types)
		return -ENOMEM;
	counters_sum(&c);
	f->samples = c.samples;
	f->in_targets = c.in_target;
	f->other_slab = c.other_slab;
	f->not_slab = c.not_slab;
	if (dprof_sampling.sampler != DPROF_SAMPLER_NONE)
		shares_prepare(types, nr, &base, hw);
	for (t = 0; t < nr; t++) {
		const struct type_sum *s = &types[t];

		for (k = 0; k < DPROF_NR_WINDOW_KINDS; k++)
			tf[t].windows += s->win[k].windows;
		/* As "profile" shows rows: not variables, target=all's seen. */
		if (dprof_sampling.sampler == DPROF_SAMPLER_NONE ||
		    (!hw && is_variable(t)) || (dprof_target_all && !s->count))
			continue;
		tf[t].share_kind = share_of(s, &base, &pm, &half);
		tf[t].share = pm;
		tf[t].half = half;
		for (k = 0; !hw && s->weight && k < DPROF_NR_WINDOW_KINDS; k++)
			tf[t].kind_part[k] = mul_div(s->part[k], 10000,
						     s->weight);
	}
	kvfree(types);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The profile debugfs file: the sampler's state and counters, then every
 * type ranked by misses (IBS/PEBS) or by its estimated share of the
 * accesses (watch), with the share's 95% interval and its top offsets.
 * The watch sampler's estimator is estimate.c's, the windows window.c's.
 * Reads the aggregation tables sample.c fills (sample.h).
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
#include "chain.h"
#include "sample.h"
#include "plan.h"
#include "watch.h"
#include "estimate.h"

struct type_sum {
	/*
	 * lat_misses: the misses of entries whose instruction loads; the
	 * drivers give stores no latency, so the average is over these.
	 */
	u64 count, misses, latency, lat_misses;
	/* watch: the sums of each kind of window, and the type's estimate */
	struct window_estimate est;
	unsigned int target;
};

/* What every type's share is taken of. */
struct share_base {
	u64 all;		/* samples (watch) or misses (IBS/PEBS) */
	struct window_base win;	/* watch: the window estimates' */
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
 * Watch sampler: a share on one sampled unit (a window or life that
 * took a sample) is one draw, its interval its kind's pooled spread; a
 * lucky window on one of thousands of idle objects reads tens of points
 * (design.rst, "Intervals", under "Access samples").  Such types rank
 * after the shares on two or more, the types with no estimate last.
 */
static int type_group(const struct type_sum *t)
{
	if (!t->est.weight)
		return 2;
	return t->est.units < 2;
}

static enum dprof_share_basis share_basis(void)
{
	return dprof_sampler()->share_of;
}

/*
 * What a type's share is of: misses (IBS, PEBS, inject), accesses
 * sampled at timer interrupts (operand: the sample counts, each tick
 * independent of the others), or the windows' estimate (watch).
 */
static u64 share_weight(const struct type_sum *t)
{
	if (share_basis() == DPROF_SHARE_OF_WINDOWS)
		return t->est.weight;
	if (share_basis() == DPROF_SHARE_OF_ACCESSES)
		return t->count;
	return t->misses;
}

/*
 * Types by misses (hardware samplers) or by estimated share, then
 * samples (watch, in type_group()'s groups), most first.
 */
static int type_cmp(const void *a, const void *b)
{
	const struct type_sum *x = a, *y = b;
	u64 wx = share_weight(x), wy = share_weight(y);

	if (share_basis() == DPROF_SHARE_OF_WINDOWS &&
	    type_group(x) != type_group(y))
		return type_group(x) < type_group(y) ? -1 : 1;

	if (wx == wy && share_basis() == DPROF_SHARE_OF_WINDOWS) {
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
	if (share_basis() == DPROF_SHARE_OF_WINDOWS) {
		u16 *owners = dprof_alloc_count_owners();

		for (i = 0; i < nr; i++)
			dprof_plan_window_sums(i, types[i].est.win,
					       dprof_alloc_count(i, owners, NULL));
		kfree(owners);
	}
}

/* The window estimates of every type (estimate.c), in its three passes. */
static void estimate_windows(struct type_sum *types, unsigned int nr,
			     struct window_base *b)
{
	unsigned int i;

	dprof_plan_window_scale(&b->scale);
	b->scale.elapsed_ms = div_u64(ktime_get_mono_fast_ns() - dprof_sampling.start_ns,
				      NSEC_PER_MSEC);
	for (i = 0; i < nr; i++)
		dprof_estimate_pool(b, &types[i].est);
	for (i = 0; i < nr; i++)
		dprof_estimate_weigh(b, &types[i].est);
	for (i = 0; i < nr; i++)
		dprof_estimate_spread(b, &types[i].est);
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
		estimate_windows(types, nr, &b->win);
	for (t = 0; t < nr; t++)
		if (hw || !is_variable(t))
			b->all += hw ? share_weight(&types[t]) :
				       types[t].count;
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
	if (share_basis() != DPROF_SHARE_OF_WINDOWS) {
		*pm = b->all ? div64_u64(10000 * share_weight(t), b->all) : 0;
		*half = dprof_binomial_half95(share_weight(t), b->all);
		return DPROF_SHARE_INTERVAL;
	}
	if (!b->win.weight) {
		/* No window took a sample: only the histories' counts. */
		*pm = b->all ? div64_u64(10000 * t->count, b->all) : 0;
		return DPROF_SHARE_NO_ERROR;
	}
	if (!t->est.win[DPROF_WINDOW_OLD].windows &&
	    !t->est.win[DPROF_WINDOW_YOUNG].windows &&
	    !t->est.win[DPROF_WINDOW_INUSE].windows &&
	    !t->est.win[DPROF_WINDOW_LIFE].windows)
		return DPROF_SHARE_NONE;  /* histories only: no draw weighs them */
	if (!t->est.weight && t->est.zero_bound) {
		/* No window saw an access: below the bound's share. */
		*half = dprof_estimate_below(&t->est, &b->win);
		return DPROF_SHARE_BELOW;
	}
	*pm = dprof_estimate_share(&t->est, &b->win);
	if (t->est.relvar_unknown)
		return DPROF_SHARE_NO_ERROR;
	*half = dprof_estimate_half95(&t->est, &b->win);
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
	bool hw = share_basis() != DPROF_SHARE_OF_WINDOWS;
	/* One read/write breakpoint per offset counts neither. */
	bool rw = hw;
	const char *bounce;

	dprof_target_moves(t, &moved, &histories);
	bounce = moved ? "yes" : histories ? "no" : "?";
	seq_printf(m, "%-24s %10llu", dprof_targets[t].name, s->count);
	if (!hw && is_variable(t)) {
		seq_putc(m, '\n');	/* no share: see dprof_sample_show() */
		goto offsets;
	}
	print_share(m, s, base);
	if (share_basis() == DPROF_SHARE_OF_ACCESSES)
		seq_printf(m, " %10s %9s %9llu  %s\n", "-", "-",
			   READ_ONCE(dprof_targets[t].older), bounce);
	else if (hw)
		seq_printf(m, " %10llu %9llu %9llu  %s\n", s->misses,
			   s->lat_misses ?
			   div64_u64(s->latency, s->lat_misses) : 0,
			   READ_ONCE(dprof_targets[t].older), bounce);
	else
		seq_printf(m, " %10s %9llu %9llu  %-6s %6llu %6llu %6llu %6llu\n",
			   "est.", s->est.win[DPROF_WINDOW_OLD].windows +
			   s->est.win[DPROF_WINDOW_YOUNG].windows +
			   s->est.win[DPROF_WINDOW_INUSE].windows,
			   READ_ONCE(dprof_targets[t].older), bounce,
			   base->win.scale.censuses ?
			   div64_u64(s->est.win[DPROF_WINDOW_INUSE].draws,
				     base->win.scale.censuses) : 0,
			   s->est.win[DPROF_WINDOW_YOUNG].windows,
			   s->est.win[DPROF_WINDOW_YOUNG].draws,
			   s->est.win[DPROF_WINDOW_LIFE].windows);
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
		sum->reader += READ_ONCE(c->reader);
		sum->site_records += READ_ONCE(c->site_records);
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
	bool hw = share_basis() != DPROF_SHARE_OF_WINDOWS, thin_shown = false;

	counters_sum(&c);
	seq_printf(m, "sampler: %s", dprof_sampler_names[dprof_sampler()->id]);
	if (share_basis() == DPROF_SHARE_OF_WINDOWS)
		seq_printf(m, " (debug registers%s%s): accesses, not misses; loads and stores not told apart (dprof-view decodes them)\n",
			   dprof_sampling.why ? "; " : "",
			   dprof_sampling.why ? dprof_sampling.why : "");
	else if (!dprof_sampler()->period_unit)
		seq_printf(m, "%s%s\n", dprof_sampling.why ? ": " : "",
			   dprof_sampling.why ? dprof_sampling.why : "");
	else
		seq_printf(m, ", period %llu%s%s\n", dprof_sampling.period,
			   dprof_sampler()->period_unit,
			   share_basis() == DPROF_SHARE_OF_ACCESSES ?
			   ": samples are accesses, misses are not measured" : "");
	if (dprof_sampler()->show)
		dprof_sampler()->show(m);
	seq_printf(m, "duration_s: %llu.%03llu  cpus: %u  table: %u entries per CPU (%zu bytes each)\n",
		   elapsed / NSEC_PER_SEC, (elapsed % NSEC_PER_SEC) / NSEC_PER_MSEC,
		   num_online_cpus(), dprof_sampling.table_entries,
		   sizeof(struct dprof_sample_agg));
	seq_printf(m, "samples: %llu, in targets %llu, other slab caches or objects not established live %llu, not slab %llu, no address %llu\n",
		   c.samples, c.in_target, c.other_slab, c.not_slab, c.no_addr);
	samples_per_cpu(m);
	if (share_basis() == DPROF_SHARE_OF_WINDOWS)
		seq_printf(m, "watch samples: %llu from sample windows on live objects, %llu from history watches\n",
			   c.from_windows, c.in_target - c.from_windows);
	if (c.not_slab)
		seq_printf(m, "not slab: %llu on task stacks, %llu in user memory, %llu by address (globals, per-CPU, vmalloc, ...: dprof-view report names them)\n",
			   c.stack, c.user,
			   c.not_slab - c.stack - c.user - c.data_full);
	if (share_basis() == DPROF_SHARE_OF_MISSES &&
	    dprof_sampler()->id != DPROF_SAMPLER_NONE)
		seq_printf(m, "misses: %llu sampled, %llu in targets\n",
			   c.misses, c.target_misses);
	seq_printf(m, "dropped: %llu (table full), %llu (nested handler), %llu (not-slab table full)\n",
		   c.table_full, c.nested, c.data_full);
	if (hw && dprof_sampler()->id != DPROF_SAMPLER_NONE)
		seq_printf(m, "left out: %llu samples in the events reader's own process (dprof-view record)\n",
			   c.reader);
	if (c.site_records)
		seq_printf(m, "site records: %llu kmalloc samples on followed objects\n",
			   c.site_records);
	if (dprof_chain_depth())
		seq_printf(m, "call chains: up to %u frames on each sample in a target (callchain=); their cost: status, sample:callchain\n",
			   dprof_chain_depth());
	if (brief || dprof_sampler()->id == DPROF_SAMPLER_NONE)
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
	if (share_basis() == DPROF_SHARE_OF_ACCESSES)
		seq_printf(m, "\n%u of %u types sampled; share: of the sampled accesses in all types, +- its 95%% interval (binomial over samples)\n",
			   seen, nr);
	else if (hw)
		seq_printf(m, "\n%u of %u types sampled; share: of the misses in all types, +- its 95%% interval (binomial); older: objects live before load (scan)\n",
			   seen, nr);
	else
		seq_printf(m, "\n%u of %u types sampled; share: of the accesses in all types, estimated from sample windows and lives, +- 95%% over them (Documentation/debugfs.rst)\n",
			   seen, nr);
	seq_printf(m, "%-24s %10s %15s %10s %9s %9s  %s%s\n", "type", "samples",
		   "share+-95%", "misses", hw ? "avg_lat" : "windows", "older",
		   "bounce", hw ? "" : "    old  young picked  lives");
	for (t = 0; t < nr; t++) {
		/* target=all: only the types something was seen in. */
		if ((dprof_target_all && !types[t].count) ||
		    (!hw && is_variable(types[t].target)))
			continue;
		if (!hw && !thin_shown && type_group(&types[t]) == 1) {
			seq_puts(m, "types whose share rests on one sampled unit (one window or life that took a sample: one draw), ranked after the others:\n");
			thin_shown = true;
		}
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
	bool hw = share_basis() != DPROF_SHARE_OF_WINDOWS;
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
	if (dprof_sampler()->id != DPROF_SAMPLER_NONE)
		shares_prepare(types, nr, &base, hw);
	for (t = 0; t < nr; t++) {
		const struct type_sum *s = &types[t];

		for (k = 0; k < DPROF_NR_WINDOW_KINDS; k++)
			tf[t].windows += s->est.win[k].windows;
		/* As "profile" shows rows: not variables, target=all's seen. */
		if (dprof_sampler()->id == DPROF_SAMPLER_NONE ||
		    (!hw && is_variable(t)) || (dprof_target_all && !s->count))
			continue;
		tf[t].share_kind = share_of(s, &base, &pm, &half);
		tf[t].share = pm;
		tf[t].half = half;
		if (hw)
			continue;
		for (k = 0; k < DPROF_NR_WINDOW_KINDS; k++)
			tf[t].kind_part[k] = dprof_estimate_kind_part(&s->est,
								      k);
		if (tf[t].share_kind == DPROF_SHARE_INTERVAL ||
		    tf[t].share_kind == DPROF_SHARE_NO_ERROR)
			tf[t].unseen = dprof_estimate_unseen(&s->est);
	}
	kvfree(types);
	return 0;
}

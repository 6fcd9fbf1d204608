// SPDX-License-Identifier: GPL-2.0
/*
 * dprof-view referee: a recording judged by the referee's table of the
 * same run (analyse/judge.h): type ranks, field shares against dprof's
 * intervals, labels against the referee's sharing misses, working sets
 * against the lines the referee saw touched.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "builtin.h"
#include "classify.h"
#include "columns.h"
#include "histories.h"
#include "judge.h"
#include "objects.h"
#include "json.h"
#include "oracle.h"
#include "options.h"
#include "report.h"
#include "util.h"
#include "view.h"
#include "winshare.h"
#include "workingset.h"

enum { OPT_MIN_SAMPLES = OPT_LONG };
/* Types with this many complete lives or more get a lives estimate. */
#define LIVES_MIN 10

struct referee_opts {
	struct view_args a;
	long min_samples;
	const char *oracle;
};

static const struct opt referee_own[] = {
	{ OPT_MIN_SAMPLES, "min-samples", "N", 0,
	  "fields with at least N samples count in the\n"
	  "calibration of the intervals (default 100)" },
	OPT_END,
};

static int referee_option(void *ctx, int key, const char *arg)
{
	struct referee_opts *o = ctx;

	if (key == OPT_MIN_SAMPLES)
		return opts_count("referee", "min-samples", arg, 1,
				  &o->min_samples);
	return EXIT_USAGE;
}

static const struct command_opts referee_cmd = {
	.cmd = "referee",
	.synopsis =
	"usage: dprof-view referee [--json] [-o FILE] [-t CACHE] [--min-samples N]\n"
	"                          RECORDING REFEREE.json\n"
	"\n"
	"Judge a recording by the referee's table of the same run (a QEMU plugin\n"
	"that saw every access and modelled every cache: referee/, scripts/\n"
	"referee.sh), like with like.  Types: dprof's estimated share of the\n"
	"accesses (report's; the samples where report has no estimate) against\n"
	"the referee's accesses, ranked (Spearman's rho over the types both saw,\n"
	"and how many of dprof's top five are in the referee's).  Fields: dprof's\n"
	"share of its type (samples per window that watched it, from the sample\n"
	"windows, with its 95% interval over them) against the referee's share of\n"
	"the type's accesses over the same bytes, and whether the interval holds\n"
	"it; the calibration counts the fields with N samples or more (operand:\n"
	"the fields whose referee share predicts N of the type's samples, the\n"
	"ones dprof missed included, so that noise does not choose them).  Labels:\n"
	"classify's decided sharing labels against the referee's majority class\n"
	"among the field's sharing misses (a hand-off miss is true sharing to the\n"
	"referee, as in the thesis); a label where the referee saw no sharing\n"
	"miss counts against it.  The per-line labels likewise, against the\n"
	"referee's misses over the line's 64 bytes (reported, not judged).\n"
	"Working set: workingset's bytes a type keeps in\n"
	"use on average (lines its lives touch, from histories, 95% interval)\n"
	"against the referee's lines touched by the type's live objects, its\n"
	"line-time divided by dprof's span (first to last alloc/free event); the\n"
	"objects dprof counts are the lives it recorded, the referee's every live\n"
	"one, idle ones from before the recording too.  The referee leaves\n"
	"dprof.ko's own accesses out when its text is excluded\n"
	"(scripts/check-referee.sh does).\n",
	.sets = OPTS_JSON | OPTS_TARGET | OPTS_NO_INPUT,
	.own = referee_own,
	.handle = referee_option,
};

enum {
	RC_CACHE, RC_OFFSET, RC_SAMPLES, RC_WINDOWS, RC_SHARE, RC_HALF,
	RC_ORACLE, RC_HELD, RC_LABEL, RC_OTRUE, RC_OFALSE, RC_VERDICT,
	RC_LO, RC_HI, RC_UNSEEN, NR_REFEREE_COLS
};

static const struct column field_cols[NR_REFEREE_COLS] = {
	[RC_CACHE] = { NULL, "cache", 0, COL_STR },
	[RC_OFFSET] = { "offset", "offset", 0, COL_UINT, 6 },
	[RC_SAMPLES] = { "samples", "samples", 0, COL_UINT, 8 },
	[RC_WINDOWS] = { "n", "windows", 0, COL_UINT, 5 },
	[RC_SHARE] = { "dprof", "share", 0, COL_DOUBLE, 7, 0, 0, 1 },
	[RC_HALF] = { "±95%", "share_half95", 0, COL_DOUBLE, 6, 0, 0, 1 },
	[RC_ORACLE] = { "referee", "referee_share", 0, COL_DOUBLE, 8, 0, 0,
			1 },
	[RC_HELD] = { "held", "held", 0, COL_STR, -5, 2 },
	[RC_LABEL] = { "label", "label", 0, COL_STR, -13, 2 },
	[RC_OTRUE] = { "ref_true", "referee_true_sharing", 0, COL_UINT, 9 },
	[RC_OFALSE] = { "ref_false", "referee_false_sharing", 0, COL_UINT, 9 },
	[RC_VERDICT] = { "verdict", "verdict", 0, COL_STR, -10, 2 },
	/*
	 * The interval judged, with the type's unseen part (winshare.h), in
	 * percent as the share; the unseen part a fraction.
	 */
	[RC_LO] = { NULL, "share_lo95", 0, COL_DOUBLE },
	[RC_HI] = { NULL, "share_hi95", 0, COL_DOUBLE },
	[RC_UNSEEN] = { NULL, "type_unseen", 0, COL_DOUBLE },
};

enum {
	WC_CACHE, WC_HIST, WC_BYTES, WC_LO, WC_HI, WC_ORACLE, WC_HELD,
	WC_OBJECTS, WC_OOBJECTS, NR_WS_COLS
};

static const struct column ws_cols[NR_WS_COLS] = {
	[WC_CACHE] = { "type", "cache", 0, COL_STR, -26 },
	[WC_HIST] = { "histories", "histories", 0, COL_UINT, 9 },
	[WC_BYTES] = { "dprof_B", "dprof_bytes", 0, COL_DOUBLE, 9 },
	[WC_LO] = { "lo95", "dprof_bytes_lo95", 0, COL_DOUBLE, 9 },
	[WC_HI] = { "hi95", "dprof_bytes_hi95", 0, COL_DOUBLE, 9 },
	[WC_ORACLE] = { "referee_B", "referee_bytes", 0, COL_DOUBLE, 10 },
	[WC_HELD] = { "held", "held", 0, COL_STR, -5, 2 },
	[WC_OBJECTS] = { "dprof_objs", "dprof_objects", 0, COL_DOUBLE, 10, 0,
			 0, 1 },
	[WC_OOBJECTS] = { "referee_objs", "referee_objects", 0, COL_DOUBLE, 12,
			  0, 0, 1 },
};

enum {
	LC_CACHE, LC_LIVES, LC_CUT, LC_RATE, LC_HALF, LC_ORATE, LC_HELD,
	NR_LIVES_COLS
};

static const struct column lives_cols[NR_LIVES_COLS] = {
	[LC_CACHE] = { "type", "cache", 0, COL_STR, -26 },
	[LC_LIVES] = { "lives", "lives", 0, COL_UINT, 6 },
	[LC_CUT] = { "cut", "histories_cut", 0, COL_UINT, 5 },
	[LC_RATE] = { "dprof_acc/s", "dprof_accesses_per_s", 0, COL_DOUBLE,
		      12 },
	[LC_HALF] = { "±95%", "dprof_accesses_per_s_half95", 0, COL_DOUBLE,
		      9 },
	[LC_ORATE] = { "referee_acc/s", "referee_accesses_per_s", 0,
		       COL_DOUBLE, 14 },
	[LC_HELD] = { "held", "held", 0, COL_STR, -5, 2 },
};

/* Each type's accesses per second from its complete lives, by both. */
static void lives_rows(const struct table *tab, const struct judge *jd)
{
	for (size_t i = 0; i < jd->nt; i++) {
		const struct judge_type *t = &jd->t[i];
		struct cell c[NR_LIVES_COLS];

		if (!t->have_lives)
			continue;
		memset(c, 0, sizeof(c));
		c[LC_CACHE].s = t->cache;
		c[LC_LIVES].u = t->lives;
		c[LC_CUT].u = t->lives_cut;
		c[LC_RATE].d = t->lives_rate;
		c[LC_HALF].d = t->lives_half;
		c[LC_HALF].null = t->lives_half < 0;
		c[LC_ORATE].d = t->oracle_rate;
		c[LC_HELD].s = t->lives_half < 0 ? "-" :
			       !t->lives_exact ? "sampled" :
			       t->lives_held ? "yes" : "no";
		table_row(tab, c);
	}
}

enum {
	TC_CACHE, TC_SAMPLES, TC_SHARE, TC_HALF, TC_UNSEEN, TC_RANK, TC_OACC,
	TC_OSHARE, TC_ORANK, TC_HELD, TC_OIRQOFF, TC_HI, NR_TYPE_COLS
};

static const struct column type_cols[NR_TYPE_COLS] = {
	[TC_CACHE] = { "type", "cache", 0, COL_STR, -26 },
	[TC_SAMPLES] = { "samples", "dprof_samples", 0, COL_UINT, 8 },
	[TC_SHARE] = { "dprof_share", "dprof_share", 0, COL_DOUBLE, 11, 0, 0,
		       1 },
	[TC_HALF] = { "±95%", "dprof_share_half95", 0, COL_DOUBLE, 6, 0, 0,
		      1 },
	[TC_UNSEEN] = { "unseen", "dprof_unseen95", 0, COL_DOUBLE, 7, 0, 0,
			0 },
	[TC_RANK] = { "rank", "dprof_rank", 0, COL_UINT, 5 },
	[TC_OACC] = { "referee_access", "referee_accesses", 0, COL_UINT, 14 },
	[TC_OSHARE] = { "share", "referee_share", 0, COL_DOUBLE, 7, 0, 0, 1 },
	[TC_ORANK] = { "rank", "referee_rank", 0, COL_UINT, 5 },
	/* [share - half, share_hi95] holds the referee's share. */
	[TC_HELD] = { "held", "share_held", 0, COL_STR, -5, 2 },
	/* The type's accesses made with interrupts off, of all of them. */
	[TC_OIRQOFF] = { "irqs_off", "referee_irqs_off", 0, COL_DOUBLE, 8, 0,
			 0, 1 },
	[TC_HI] = { NULL, "dprof_share_hi95", 0, COL_DOUBLE },
};

/*
 * Types dprof ranked, and the referee's first @top: shares as fractions
 * in JSON, percentages in the text.
 */
static void type_rows(const struct table *tab, const struct judge *jd,
		      size_t top)
{
	bool text = tab->mode == TABLE_TEXT;

	for (size_t i = 0; i < jd->nt; i++) {
		const struct judge_type *t = &jd->t[i];
		struct cell c[NR_TYPE_COLS];
		char share[16], half[16], oshare[16], unseen[16], off[16];
		uint64_t all = t->oracle_accesses +
			       (jd->interruptible ? t->oracle_irqs_off : 0);
		double os = jd->oracle_slab_accesses ?
			    (double)t->oracle_accesses /
			    (double)jd->oracle_slab_accesses : 0;

		if (!t->dprof_rank && (!t->oracle_rank || t->oracle_rank > top))
			continue;
		memset(c, 0, sizeof(c));
		c[TC_CACHE].s = t->cache;
		c[TC_SAMPLES].u = t->dprof_samples;
		c[TC_SHARE].d = text ? 100 * t->dprof_share : t->dprof_share;
		c[TC_SHARE].null = t->dprof_share != t->dprof_share;
		snprintf(share, sizeof(share), "%.1f%%", 100 * t->dprof_share);
		c[TC_SHARE].text = c[TC_SHARE].null ? "-" : share;
		c[TC_HALF].d = text ? 100 * t->dprof_share_half :
			       t->dprof_share_half;
		c[TC_HALF].null = c[TC_SHARE].null || t->dprof_share_half < 0;
		snprintf(half, sizeof(half), "±%.1f",
			 100 * t->dprof_share_half);
		c[TC_HALF].text = c[TC_SHARE].null ? "" :
				  t->dprof_share_half < 0 ? "±?" : half;
		c[TC_RANK].u = t->dprof_rank;
		c[TC_OACC].u = t->oracle_accesses;
		c[TC_OSHARE].d = text ? 100 * os : os;
		snprintf(oshare, sizeof(oshare), "%.1f%%", 100 * os);
		c[TC_OSHARE].text = oshare;
		c[TC_ORANK].u = t->oracle_rank;
		c[TC_UNSEEN].d = text ? 100 * t->dprof_unseen : t->dprof_unseen;
		c[TC_UNSEEN].null = c[TC_SHARE].null;
		snprintf(unseen, sizeof(unseen), "%.*f%%",
			 t->dprof_unseen < 0.01 ? 1 : 0,
			 100 * t->dprof_unseen);
		c[TC_UNSEEN].text = c[TC_SHARE].null ? "" :
				    t->dprof_unseen > 0 ? unseen : "-";
		c[TC_OIRQOFF].d = all ? (double)t->oracle_irqs_off / (double)all :
				  0;
		if (text)
			c[TC_OIRQOFF].d *= 100;
		c[TC_OIRQOFF].null = !jd->irqs_counted;
		snprintf(off, sizeof(off), "%.0f%%", c[TC_OIRQOFF].d);
		c[TC_OIRQOFF].text = jd->irqs_counted ? off : "-";
		c[TC_HI].d = t->dprof_share_hi;
		c[TC_HI].null = t->dprof_share_hi < 0;
		c[TC_HELD].s = c[TC_HALF].null || !t->oracle_accesses ? "-" :
			       t->share_held ? "yes" : "no";
		table_row(tab, c);
	}
}

/* A type's working set by both, where dprof has one from histories. */
static void ws_rows(const struct table *tab, const struct judge *jd)
{
	for (size_t i = 0; i < jd->nt; i++) {
		const struct judge_type *t = &jd->t[i];
		struct cell c[NR_WS_COLS];

		if (!t->have_ws)
			continue;
		memset(c, 0, sizeof(c));
		c[WC_CACHE].s = t->cache;
		c[WC_HIST].u = t->ws_histories;
		c[WC_BYTES].d = t->ws_bytes;
		c[WC_LO].d = t->ws_lo;
		c[WC_HI].d = t->ws_hi;
		c[WC_ORACLE].d = t->oracle_ws_bytes;
		c[WC_ORACLE].null = !t->have_oracle_ws;
		c[WC_HELD].s = !t->have_oracle_ws ? "-" :
			       t->ws_held ? "yes" : "no";
		c[WC_OBJECTS].d = t->ws_objects;
		c[WC_OOBJECTS].d = t->oracle_objects;
		c[WC_OOBJECTS].null = !t->have_oracle_ws;
		table_row(tab, c);
	}
}

static const char *verdict_text(enum judge_verdict v)
{
	switch (v) {
	case JUDGE_AGREE: return "agrees";
	case JUDGE_CONTRADICT: return "contradicts";
	default: return "no-misses";
	}
}

static const char *verdict_name(const struct judge_field *f)
{
	return f->labelled ? verdict_text(f->verdict) : "-";
}

/* classify's decided line labels against the referee's lines. */
enum {
	NC_CACHE, NC_LINE, NC_BYTES, NC_LABEL, NC_OTRUE, NC_OFALSE,
	NC_VERDICT, NR_LINE_COLS
};

static const struct column line_cols[NR_LINE_COLS] = {
	[NC_CACHE] = { "type", "cache", 0, COL_STR, -26 },
	[NC_LINE] = { "line", "line", 0, COL_UINT, 4 },
	[NC_BYTES] = { "bytes", NULL, 0, COL_STR, -9 },
	[NC_LABEL] = { "label", "label", 0, COL_STR, -13, 2 },
	[NC_OTRUE] = { "ref_true", "referee_true_sharing", 0, COL_UINT, 9 },
	[NC_OFALSE] = { "ref_false", "referee_false_sharing", 0, COL_UINT,
			9 },
	[NC_VERDICT] = { "verdict", "verdict", 0, COL_STR, -11, 2 },
};

static void line_rows(const struct table *tab, const struct recording *r,
		      const struct judge *jd, const char *target)
{
	for (size_t i = 0; i < jd->nl; i++) {
		const struct judge_line *l = &jd->l[i];
		const char *cache = r->targets[l->target].name;
		struct cell c[NR_LINE_COLS];
		char bytes[32];

		if (target && strcmp(target, cache))
			continue;
		memset(c, 0, sizeof(c));
		snprintf(bytes, sizeof(bytes), "%u-%u",
			 (unsigned int)l->line * CLASSIFY_LINE,
			 (unsigned int)(l->line + 1) * CLASSIFY_LINE - 1);
		c[NC_CACHE].s = cache;
		c[NC_LINE].u = l->line;
		c[NC_BYTES].s = bytes;
		c[NC_LABEL].s = classify_label_name(l->label);
		c[NC_OTRUE].u = l->oracle_true;
		c[NC_OFALSE].u = l->oracle_false;
		c[NC_VERDICT].s = verdict_text(l->verdict);
		table_row(tab, c);
	}
}

static void field_row(const struct table *tab, const struct judge_field *f,
		      const char *cache)
{
	struct cell c[NR_REFEREE_COLS];
	char share[16], half[16], oracle[16];

	memset(c, 0, sizeof(c));
	c[RC_CACHE].s = cache;
	c[RC_OFFSET].u = f->offset;
	c[RC_SAMPLES].u = (uint64_t)f->samples;
	c[RC_WINDOWS].u = f->dprof.windows;
	c[RC_SHARE].d = 100 * f->dprof.share;
	snprintf(share, sizeof(share), "%.1f%%", 100 * f->dprof.share);
	c[RC_SHARE].text = share;
	if (!f->have_dprof) {
		c[RC_SHARE].null = c[RC_WINDOWS].null = true;
		c[RC_SHARE].text = "-";
	}
	c[RC_UNSEEN].d = f->dprof.unseen;
	if (f->dprof.half >= 0) {
		c[RC_HALF].d = 100 * f->dprof.half;
		c[RC_LO].d = 100 * f->dprof.lo;
		c[RC_HI].d = 100 * f->dprof.hi;
		if (f->dprof.unseen > 0)
			snprintf(half, sizeof(half), "-%.1f+%.1f",
				 100 * (f->dprof.share - f->dprof.lo),
				 100 * (f->dprof.hi - f->dprof.share));
		else
			snprintf(half, sizeof(half), "±%.1f",
				 100 * f->dprof.half);
		c[RC_HALF].text = half;
	} else {
		c[RC_HALF].null = c[RC_LO].null = c[RC_HI].null = true;
		c[RC_HALF].text = "±?";
	}
	c[RC_ORACLE].d = 100 * f->oracle_share;
	snprintf(oracle, sizeof(oracle), "%.1f%%", 100 * f->oracle_share);
	c[RC_ORACLE].text = oracle;
	c[RC_HELD].s = !f->have_dprof || f->dprof.half < 0 ? "-" :
		       f->held ? "yes" : "no";
	c[RC_LABEL].s = f->classified ? classify_label_name(f->label) : "-";
	c[RC_OTRUE].u = f->oracle_true;
	c[RC_OFALSE].u = f->oracle_false;
	c[RC_VERDICT].s = verdict_name(f);
	table_row(tab, c);
}

static void report(FILE *out, const struct recording *r,
		   const struct judge *jd, const struct oracle *o,
		   const char *target, bool as_json)
{
	struct json j;
	struct table tab = {
		.cols = field_cols, .nr_cols = NR_REFEREE_COLS,
		.mode = as_json ? TABLE_JSON : TABLE_TEXT, .out = out,
		.j = &j, .indent = "  ",
	};
	struct table ttab = {
		.cols = type_cols, .nr_cols = NR_TYPE_COLS,
		.mode = as_json ? TABLE_JSON : TABLE_TEXT, .out = out,
		.j = &j, .indent = "  ",
	};
	struct table wtab = {
		.cols = ws_cols, .nr_cols = NR_WS_COLS,
		.mode = as_json ? TABLE_JSON : TABLE_TEXT, .out = out,
		.j = &j, .indent = "  ",
	};
	struct table ltab = {
		.cols = lives_cols, .nr_cols = NR_LIVES_COLS,
		.mode = as_json ? TABLE_JSON : TABLE_TEXT, .out = out,
		.j = &j, .indent = "  ",
	};
	struct table ntab = {
		.cols = line_cols, .nr_cols = NR_LINE_COLS,
		.mode = as_json ? TABLE_JSON : TABLE_TEXT, .out = out,
		.j = &j, .indent = "  ",
	};
	int cur = -1;

	if (as_json) {
		json_init(&j, out);
		json_object_begin(&j, NULL);
		json_double(&j, "referee_seconds", o->seconds);
		json_uint(&j, "referee_accesses", o->accesses);
		json_uint(&j, "referee_own_objects", o->own_objects);
		json_uint(&j, "referee_own_accesses_left_out", o->own_accesses);
		json_uint(&j, "types_both", jd->both_types);
		json_double(&j, "spearman", jd->spearman);
		json_uint(&j, "top5", jd->top5);
		json_uint(&j, "top5_in_referee_top5", jd->top5_common);
		json_uint(&j, "min_samples", jd->min_samples);
		/* operand: fields chosen by the referee's share, not dprof's count */
		json_bool(&j, "fields_by_referee", jd->sampled);
		json_uint(&j, "fields_calibrated", jd->calibrated);
		json_uint(&j, "types_judged", jd->types_judged);
		json_uint(&j, "types_held", jd->types_held);
		json_uint(&j, "types_over_1pct", jd->types_over_1pct);
		json_uint(&j, "types_over_1pct_held", jd->types_over_1pct_held);
		json_bool(&j, "top1_same", jd->top1_same);
		json_bool(&j, "top1_tied", jd->top1_tied);
		json_bool(&j, "referee_interruptible_only", jd->interruptible);
		json_uint(&j, "types_held_by_sampled_kinds",
			  jd->types_held_seen);
		json_uint(&j, "fields_held", jd->held);
		json_uint(&j, "fields_held_by_sampled_kinds", jd->held_seen);
		json_uint(&j, "fields_widened_by_unseen", jd->widened);
		json_uint(&j, "labels", jd->labels);
		json_uint(&j, "labels_contradicted", jd->contradicted);
		json_uint(&j, "line_labels", jd->nl);
		json_uint(&j, "line_labels_contradicted",
			  jd->lines_contradicted);
		json_array_begin(&j, "lines");
		line_rows(&ntab, r, jd, target);
		json_array_end(&j);
		json_uint(&j, "workingsets", jd->ws_types);
		json_uint(&j, "workingsets_held", jd->ws_held);
		json_double(&j, "referee_span_over_dprof", jd->ws_span_scale);
		json_array_begin(&j, "workingset");
		ws_rows(&wtab, jd);
		json_array_end(&j);
		json_uint(&j, "lives_min", jd->lives_min);
		json_uint(&j, "lives_types", jd->lives_types);
		json_uint(&j, "lives_held", jd->lives_held);
		json_array_begin(&j, "lives");
		lives_rows(&ltab, jd);
		json_array_end(&j);
		json_array_begin(&j, "types");
		type_rows(&ttab, jd, 20);
		json_array_end(&j);
		json_array_begin(&j, "fields");
	} else {
		fprintf(out, "referee: %llu accesses in %.1f s of the run; dprof judged like with like (accesses, not misses)\n",
			(unsigned long long)o->accesses, o->seconds);
		if (o->own_marked)
			fprintf(out, "left out: dprof.ko's code, and %llu accesses to %llu objects allocated for it while it loaded\n",
				(unsigned long long)o->own_accesses,
				(unsigned long long)o->own_objects);
		else
			fprintf(out, "left out: dprof.ko's code only (no referee_own markers: accesses on its behalf are counted)\n");
		if (jd->interruptible)
			fprintf(out, "sampler=operand: judged against accesses with interrupts on (%.1f%% of slab accesses), %llu by the allocator included\n",
				100.0 * (double)jd->oracle_slab_accesses /
				(double)(jd->oracle_slab_accesses +
					 jd->oracle_slab_irqs_off + !jd->oracle_slab_accesses),
				(unsigned long long)jd->oracle_slab_at_alloc);
		fprintf(out, "types: %zu seen by both; Spearman %.2f; %zu of dprof's top %zu in the referee's top 5; top type %s; intervals hold %zu of %zu over 1%%\n",
			jd->both_types, jd->spearman, jd->top5_common, jd->top5,
			jd->top1_same ? "the same" :
			jd->top1_tied ? "tied (intervals overlap)" : "differs",
			jd->types_over_1pct_held, jd->types_over_1pct);
		table_header(&ttab);
		type_rows(&ttab, jd, 5);
		fprintf(out, "type shares: held for %zu of %zu types by the interval with the unseen part (%zu by share +- half alone; reported, not judged)\n",
			jd->types_held, jd->types_judged,
			jd->types_held_seen);
		fprintf(out, "intervals: held for %zu of %zu fields %s %llu samples or more (%zu by share +- half alone; %zu widened by the unseen part)\n",
			jd->held, jd->calibrated,
			jd->sampled ? "the referee's share puts at" : "with",
			(unsigned long long)jd->min_samples, jd->held_seen,
			jd->widened);
		fprintf(out, "labels: %zu of %zu decided sharing labels contradict the referee's majority class\n",
			jd->contradicted, jd->labels);
		fprintf(out, "line labels: %zu of %zu decided line labels contradict the referee's majority class (reported, not judged)\n",
			jd->lines_contradicted, jd->nl);
		if (jd->nl) {
			table_header(&ntab);
			line_rows(&ntab, r, jd, target);
		}
		if (jd->ws_types || o->nocc) {
			fprintf(out, "working set: held for %zu of %zu types (the referee's span %.3gx dprof's)\n",
				jd->ws_held, jd->ws_types,
				jd->ws_span_scale);
			table_header(&wtab);
			ws_rows(&wtab, jd);
		} else {
			fprintf(out, "working set: not judged (the referee's table has no occupancy: a plugin older than it)\n");
		}
		if (jd->lives_types) {
			fprintf(out, "lives: accesses per second held for %zu of %zu types with %llu lives or more, followed 1 in 1 (reported, not judged)\n",
				jd->lives_held, jd->lives_types,
				(unsigned long long)jd->lives_min);
			table_header(&ltab);
			lives_rows(&ltab, jd);
		}
	}
	for (size_t i = 0; i < jd->nf; i++) {
		const struct judge_field *f = &jd->f[i];
		const char *cache = r->targets[f->target].name;

		if (target && strcmp(target, cache))
			continue;
		if (!as_json && f->target != cur) {
			cur = f->target;
			fprintf(out, "\n%s:\n", cache);
			table_header(&tab);
		}
		field_row(&tab, f, cache);
	}
	if (as_json) {
		json_array_end(&j);
		json_object_end(&j);
		json_finish(&j);
	}
}

int cmd_referee(int argc, char **argv)
{
	struct referee_opts o;
	struct recording r;
	struct history_set hs;
	struct classify c;
	struct winshare ws;
	struct oracle orc;
	struct judge jd;
	struct lives lv;
	struct obj_summary objs;
	struct report rep;
	struct workingset wset;
	struct ws_geometry geo;
	bool have_wset = false;
	FILE *out;
	int first, ret;

	memset(&o, 0, sizeof(o));
	o.min_samples = 100;
	ret = opts_parse(&referee_cmd, &o, argc, argv, &o.a, &first);
	if (ret)
		return ret;
	if (first != argc - 2) {
		errmsg("referee: expected RECORDING and REFEREE.json (see --help)");
		return EXIT_USAGE;
	}
	o.a.view.input = argv[first];
	o.oracle = argv[first + 1];
	ret = view_open(&o.a.view, &r, &out, "referee");
	if (ret)
		return ret;
	if (o.a.target && view_target(&r, "referee", &o.a.target) < 0) {
		view_close(out, &o.a.view);
		recording_free(&r);
		return EXIT_USAGE;
	}
	if (oracle_load(&orc, o.oracle)) {
		view_close(out, &o.a.view);
		recording_free(&r);
		return EXIT_USAGE;
	}
	histories_build(&hs, &r);
	classify_build(&c, &hs);
	winshare_build(&ws, &r, &hs);
	/* The referee's line is 64 bytes; so is every x86 data cache's. */
	if (ws_geometry_from(&r, 0, &geo) && geo.line == 64 &&
	    !objects_summarize(&r, &objs)) {
		workingset_build(&wset, &r, &hs, &objs, &geo);
		objects_free(&objs);
		have_wset = true;
	}
	report_build(&r, &o.a.map, &rep);
	judge_build(&jd, &r, &orc, &ws, &c, &rep, have_wset ? &wset : NULL,
		    (uint64_t)o.min_samples);
	lives_build(&lv, &r, &hs);
	judge_lives(&jd, &r, &lv, orc.seconds, LIVES_MIN);
	report(out, &r, &jd, &orc, o.a.target, o.a.view.json);
	ret = view_close(out, &o.a.view);
	judge_free(&jd);
	lives_free(&lv);
	report_free(&rep);
	if (have_wset)
		workingset_free(&wset);
	winshare_free(&ws);
	classify_free(&c);
	histories_free(&hs);
	oracle_free(&orc);
	recording_free(&r);
	return ret;
}

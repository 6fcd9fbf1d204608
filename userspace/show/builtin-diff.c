// SPDX-License-Identifier: GPL-2.0
/*
 * dprof-view diff: a differential profile of two sides, A (the less
 * stressed) and B, each one or more recordings, over any bucket and
 * measure of the views, with error bars and the filtering that keeps
 * noise out of the ranking.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "builtin.h"
#include "columns.h"
#include "diffbuckets.h"
#include "json.h"
#include "profile.h"
#include "options.h"
#include "util.h"
#include "view.h"

struct diff_cli {
	struct view_args a;	/* no -i: the sides are operands */
	int all;
	int by, measure;
	struct diff_opts d;
	bool w_given, l_given, limit_given;
	long top;
	char **sa, **sb;	/* recording paths per side */
	size_t na, nb;
	const char *cache;
};

enum {
	OPT_RATIO = OPT_LONG, OPT_WEIGHTED, OPT_SATURATION, OPT_LIMIT, OPT_MIN,
	OPT_ALL, OPT_PER_SECOND, OPT_SEED,
};

static const struct opt diff_own[] = {
	{ OPT_RATIO, "ratio", NULL, 0, "method: B / A, largest first (default)" },
	{ OPT_WEIGHTED, "weighted", "W1,W2", 1,
	  "method: d = W1 B - W2 A, W the work done in each\n"
	  "run, largest first; without values, the work the\n"
	  "recordings carry (record --work)" },
	{ OPT_SATURATION, "saturation", "L1,L2", 1,
	  "method: the load at which the measure reaches\n"
	  "--limit M, projected linearly and as a power law\n"
	  "from the loads L (record --load), smallest first;\n"
	  "M in the unit the measure is shown in" },
	{ OPT_LIMIT, "limit", "M", 0, "the saturation level (--saturation)" },
	{ 'b', "by", "BY", 0, "type (default), field, function, path, set" },
	{ 'm', "measure", "M", 0,
	  "see below (default samples, or misses where\n"
	  "IBS/PEBS measured them)" },
	{ OPT_MIN, "min", "N", 0, "minimum count or items (default 10)" },
	{ OPT_ALL, "all", NULL, 0, "show filtered buckets too, marked" },
	{ OPT_PER_SECOND, "per-second", NULL, 0,
	  "counts as rates over each side's recorded time" },
	{ 'n', "top", "N", 0,
	  "buckets shown, in every output (default 20,\n"
	  "0: all)" },
	{ 'c', "cache", "S,W,L", 0,
	  "geometry for ws-bytes and ws-lines (workingset)" },
	{ OPT_SEED, "seed", "N", 0, "bootstrap seed (default fixed: reproducible)" },
	{ 's', "script", NULL, 0,
	  "one tab-separated line per bucket:\n"
	  "  row RANK KEY A B FIGURE LO HI P STATE N_A N_B\n"
	  "  [POWER_LAW_LOAD]" },
	OPT_END,
};

/* The measures, and the buckets each exists for, after the options. */
static void measures_help(FILE *out)
{
	fputs("Measures (and the buckets they exist for):\n", out);
	for (int m = 0; m < DIFF_M_MAX; m++) {
		char by[64] = "";

		for (int b = 0; b < DIFF_BY_MAX; b++)
			if (diff_measures[m].by & (1u << b))
				snprintf(by + strlen(by), sizeof(by) - strlen(by),
					 "%s%s", by[0] ? "," : "", diff_by_names[b]);
		fprintf(out, "  %-13s %s [%s]\n", diff_measures[m].name,
			diff_measures[m].what, by);
	}
}

static bool parse_pair(const char *s, double *x, double *y)
{
	char *end;

	*x = strtod(s, &end);
	if (end == s || *end != ',')
		return false;
	s = end + 1;
	*y = strtod(s, &end);
	return end != s && !*end;
}

/* "a,b,c" -> array of paths (the string is split in place). */
static char **split_side(char *s, size_t *n)
{
	char **v = NULL, *tok, *save = NULL;

	*n = 0;
	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		v = xrealloc(v, (*n + 1) * sizeof(*v));
		v[(*n)++] = tok;
	}
	return v;
}

static int diff_option(void *ctx, int key, const char *arg)
{
	struct diff_cli *o = ctx;
	char *end;

	switch (key) {
	case 'b':
		o->by = diff_by_lookup(arg);
		if (o->by < 0) {
			errmsg("diff: --by %s: expected type, field, function, path or set",
			       arg);
			return EXIT_USAGE;
		}
		return 0;
	case 'm':
		o->measure = diff_measure_lookup(arg);
		if (o->measure < 0) {
			errmsg("diff: --measure %s: unknown (see --help for the list)",
			       arg);
			return EXIT_USAGE;
		}
		return 0;
	case OPT_RATIO:
		o->d.method = DIFF_RATIO;
		return 0;
	case OPT_WEIGHTED:
		o->d.method = DIFF_WEIGHTED;
		if (arg) {
			if (!parse_pair(arg, &o->d.w1, &o->d.w2)) {
				errmsg("diff: --weighted=%s: expected W1,W2 (work done in A and B)",
				       arg);
				return EXIT_USAGE;
			}
			o->w_given = true;
		}
		return 0;
	case OPT_SATURATION:
		o->d.method = DIFF_SATURATION;
		if (arg) {
			if (!parse_pair(arg, &o->d.l1, &o->d.l2)) {
				errmsg("diff: --saturation=%s: expected L1,L2 (load of A and B)",
				       arg);
				return EXIT_USAGE;
			}
			o->l_given = true;
		}
		return 0;
	case OPT_LIMIT:
		o->d.limit = strtod(arg, &end);
		if (*end || end == arg || o->d.limit <= 0) {
			errmsg("diff: --limit %s: expected a positive number", arg);
			return EXIT_USAGE;
		}
		o->limit_given = true;
		return 0;
	case OPT_MIN:
		o->d.min = strtod(arg, &end);
		if (*end || end == arg || o->d.min < 0) {
			errmsg("diff: --min %s: expected a count", arg);
			return EXIT_USAGE;
		}
		return 0;
	case OPT_ALL:
		o->all = 1;
		return 0;
	case OPT_PER_SECOND:
		o->d.per_second = true;
		return 0;
	case OPT_SEED:
		o->d.seed = strtoull(arg, &end, 0);
		if (*end || end == arg) {
			errmsg("diff: --seed %s: expected a number", arg);
			return EXIT_USAGE;
		}
		return 0;
	case 'n':
		return opts_count("diff", "top", arg, 0, &o->top);
	case 'c':
		o->cache = arg;
		return 0;
	default:
		return EXIT_USAGE;
	}
}

static const struct command_opts diff_cmd = {
	.cmd = "diff",
	.synopsis =
	"usage: dprof-view diff [-b BY] [-m MEASURE] [--ratio | --weighted[=W1,W2] |\n"
	"                       --saturation[=L1,L2] --limit M] [--min N] [--all]\n"
	"                       [--per-second] [-n N] [--json|--script] [-o FILE]\n"
	"                       A[,A2...] B[,B2...]\n"
	"\n"
	"Differential profile (McKenney 1999; DProf thesis 6.2): the same measure\n"
	"in corresponding buckets of two sides, A the less stressed run (say the\n"
	"peak of throughput) and B the more stressed one (the drop-off).  A side\n"
	"is one recording or several, comma-separated: counts are summed over\n"
	"them, means pooled, levels averaged.\n"
	"\n"
	"Error bars and filtering: with two or more recordings on both sides the\n"
	"95% interval is a bootstrap over each side's recordings and the\n"
	"Mann-Whitney p of the per-recording values is shown; otherwise the\n"
	"interval comes from the sampling error (Poisson counts, items'\n"
	"variance).  Levels (working-set model outputs) in single recordings have\n"
	"none.  A bucket is filtered when its counts are under --min on both\n"
	"sides (means: items under --min on either side), or when its interval\n"
	"holds \"no change\" (ratio 1, difference 0); the output says how many.\n"
	"The interval is the filter, not p: with three recordings per side the\n"
	"smallest possible p is 0.1.\n",
	.sets = OPTS_JSON | OPTS_SCRIPT | OPTS_TYPES | OPTS_NO_INPUT,
	.own = diff_own,
	.handle = diff_option,
	.more_help = measures_help,
};

static int parse_opts(int argc, char **argv, struct diff_cli *o)
{
	int first, ret;

	o->by = DIFF_BY_TYPE;
	o->measure = -1;
	o->top = 20;
	o->d.method = DIFF_RATIO;
	o->d.min = 10;
	ret = opts_parse(&diff_cmd, o, argc, argv, &o->a, &first);
	if (ret)
		return ret;
	if (first != argc - 2) {
		errmsg("diff: expected two sides, A (less stressed) and B, each RECORDING[,RECORDING...] (see --help)");
		return EXIT_USAGE;
	}
	if (o->d.method == DIFF_SATURATION && !o->limit_given) {
		errmsg("diff: --saturation needs --limit M, the value at which the measure saturates");
		return EXIT_USAGE;
	}
	o->sa = split_side(argv[first], &o->na);
	o->sb = split_side(argv[first + 1], &o->nb);
	if (!o->na || !o->nb) {
		errmsg("diff: a side names no recording");
		return EXIT_USAGE;
	}
	return 0;
}

/* One side: every recording loaded, and its buckets. */
struct side {
	struct recording *r;
	struct diff_table *t;
	size_t n;		/* recordings loaded */
	double work, load;	/* summed work, mean load; NAN unknown */
	double duration;	/* summed recorded time */
};

static int load_side(struct side *s, char **paths, size_t n)
{
	s->r = xcalloc(n, sizeof(*s->r));
	s->t = xcalloc(n, sizeof(*s->t));
	for (size_t i = 0; i < n; i++) {
		struct rec_error err;

		if (recording_load(&s->r[i], paths[i], &err)) {
			errmsg("diff: %s: byte %llu: %s", paths[i],
			       (unsigned long long)err.offset, err.msg);
			return EXIT_USAGE;	/* as every view: bad input */
		}
		s->n = i + 1;
	}
	return 0;
}

static int side_buckets(struct side *s, const struct diff_cli *o,
			const struct ws_geometry *geo, int measure)
{
	double load_sum = 0;

	for (size_t i = 0; i < s->n; i++) {
		struct ws_geometry g = *geo;
		char why[512];

		if (!o->cache)	/* else the default stays */
			ws_geometry_from(&s->r[i], 0, &g);
		if (diff_buckets_build(&s->t[i], &s->r[i], (enum diff_by)o->by,
				       (enum diff_measure)measure, &o->a.map, &g,
				       why, sizeof(why))) {
			errmsg("diff: %s", why);
			return EXIT_USAGE;
		}
		s->work += s->t[i].work;
		s->duration += s->t[i].duration_s;
		load_sum += s->t[i].load;
	}
	s->load = load_sum / (double)s->n;
	return 0;
}

static void free_side(struct side *s)
{
	for (size_t i = 0; i < s->n; i++) {
		diff_table_free(&s->t[i]);
		recording_free(&s->r[i]);
	}
	free(s->t);
	free(s->r);
}

/* Misses where every recording measured them, else samples. */
static int default_measure(const struct side *a, const struct side *b)
{
	char sampler[16];

	for (size_t i = 0; i < a->n + b->n; i++)
		if (!profile_sampler(i < a->n ? &a->r[i] : &b->r[i - a->n],
				     sampler, sizeof(sampler)))
			return DIFF_M_SAMPLES;
	return DIFF_M_MISSES;
}

static const char *method_name(enum diff_method m)
{
	return m == DIFF_RATIO ? "ratio B/A, largest first" :
	       m == DIFF_WEIGHTED ? "weighted difference W_A*B - W_B*A, largest first" :
	       "projected saturation load, smallest first";
}

static const char *error_name(enum diff_error e)
{
	return e == DIFF_ERROR_RECORDINGS ?
	       "95% bootstrap interval over each side's recordings, Mann-Whitney p of the per-recording values" :
	       e == DIFF_ERROR_SAMPLING ?
	       "95% interval from the sampling error (one recording on a side: the run-to-run spread is not in it)" :
	       "none (levels from single recordings have no known error)";
}

static void side_text(FILE *out, const char *name, const struct side *s)
{
	for (size_t i = 0; i < s->n; i++) {
		const char *label = recording_meta(&s->r[i], "label");

		fprintf(out, "  %s: %s: %s%s%s%.2f s", name, s->r[i].path,
			label ? "label \"" : "", label ? label : "",
			label ? "\", " : "", s->t[i].duration_s);
		if (!isnan(s->t[i].work))
			fprintf(out, ", work %g", s->t[i].work);
		if (!isnan(s->t[i].load))
			fprintf(out, ", load %g", s->t[i].load);
		fputc('\n', out);
	}
}

/* @inf names +infinity: "new" for a ratio over 0, "never" for a load. */
static void fmt_value(char *buf, size_t len, double v, double scale,
		      const char *inf)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (isinf(v) || fabs(v * scale) > 1e15)
		snprintf(buf, len, "%s", v > 0 ? inf : "-inf");
	else
		snprintf(buf, len, "%.4g", v * scale);
}

static const char *state_name(enum diff_state s)
{
	return s == DIFF_KEPT ? "kept" : s == DIFF_FILTERED_MIN ?
	       "below-min" : "not-significant";
}

/*
 * A bucket as the 40-column text table shows it: a field's names as one
 * (names_short()), the end kept when still too long; --json and --script
 * print the bucket whole.
 */
static const char *bucket_label(const char *key, enum diff_by by, char *buf,
				size_t len)
{
	const char *dot = strchr(key, '.');
	char one[512], names[480];
	size_t n;

	if (by == DIFF_BY_FIELD && dot)	/* "CACHE.name|name|..." */
		snprintf(one, sizeof(one), "%.*s.%s", (int)(dot - key), key,
			 names_short(dot + 1, names, sizeof(names)));
	else
		snprintf(one, sizeof(one), "%s", key);
	n = strlen(one);
	if (n <= 40)
		snprintf(buf, len, "%s", one);
	else
		snprintf(buf, len, "..%s", one + n - 38);
	return buf;
}

/*
 * A bucket's row in all three outputs.  --script keeps the positions it
 * had before the table (RANK KEY A B FIGURE LO HI P STATE, then the
 * columns added since); the text table shows n(A)/n(B) for means only,
 * the power-law load for --saturation only, p with recordings only, and
 * the interval as one "[lo, hi]".
 */
enum {
	DC_RANK, DC_BUCKET, DC_A, DC_B, DC_A_N, DC_B_N, DC_FIGURE,
	DC_INTERVAL, DC_LO, DC_HI, DC_POWER, DC_P, DC_STATE, NR_DIFF_COLS
};

static const struct column diff_cols[NR_DIFF_COLS] = {
	[DC_RANK] = { "rank", "rank", 1, COL_UINT, 4 },
	[DC_BUCKET] = { "bucket", "bucket", 2, COL_STR, -40, 2 },
	[DC_A] = { "A", "a", 3, COL_DOUBLE, 11 },
	[DC_B] = { "B", "b", 4, COL_DOUBLE, 11 },
	[DC_A_N] = { "n(A)", "a_n", 10, COL_DOUBLE, 9, 1, 0, 0 },
	[DC_B_N] = { "n(B)", "b_n", 11, COL_DOUBLE, 9, 1, 0, 0 },
	[DC_FIGURE] = { "B/A", "figure", 5, COL_DOUBLE, 10 },
	[DC_INTERVAL] = { "95% interval", NULL, 0, COL_STR, -21, 2 },
	[DC_LO] = { NULL, "ci_low", 6, COL_DOUBLE },
	[DC_HI] = { NULL, "ci_high", 7, COL_DOUBLE },
	[DC_POWER] = { "load(pow)", "figure_power_law", 12, COL_DOUBLE, 9 },
	[DC_P] = { "MW p", "mann_whitney_p", 8, COL_DOUBLE, 0, 2 },
	[DC_STATE] = { "", "state", 9, COL_STR, 0, 2 },
};

/* The columns of this run: which exist and what the figure is called. */
static void diff_columns(struct column *cols, const struct diff_cli *o,
			 const struct diff_result *res, int measure)
{
	memcpy(cols, diff_cols, sizeof(diff_cols));
	cols[DC_FIGURE].head = o->d.method == DIFF_RATIO ? "B/A" :
			       o->d.method == DIFF_WEIGHTED ? "diff" :
			       "load(lin)";
	if (diff_measures[measure].kind != DIFF_MEAN) {
		cols[DC_A_N].head = NULL;
		cols[DC_B_N].head = NULL;
	}
	if (o->d.method != DIFF_SATURATION) {
		cols[DC_POWER].head = NULL;
		cols[DC_POWER].key = NULL;
		cols[DC_POWER].script = 0;
	}
	if (res->error != DIFF_ERROR_RECORDINGS)
		cols[DC_P].head = NULL;
}

/* Text of a row's cells, which the table points into. */
struct diff_texts {
	char a[32], b[32], figure[32], power[32], lo[32], hi[32];
	char interval[80], p[32], state[32], label[512];
};

static void diff_cells(struct cell *c, struct diff_texts *t,
		       const struct diff_cli *o, const struct diff_row *r,
		       size_t rank, int measure)
{
	const struct diff_measure_info *mi = &diff_measures[measure];
	/* A difference is in the measure's unit; a ratio or a load is not. */
	double fscale = o->d.method == DIFF_WEIGHTED ? mi->scale : 1;
	const char *inf = o->d.method == DIFF_SATURATION ? "never" : "new";

	memset(c, 0, NR_DIFF_COLS * sizeof(*c));
	c[DC_RANK].u = rank;
	c[DC_BUCKET].s = r->key;
	c[DC_BUCKET].text = bucket_label(r->key, o->by, t->label,
					 sizeof(t->label));
	c[DC_A].d = r->a;
	c[DC_A].text = t->a;
	fmt_value(t->a, sizeof(t->a), r->a, mi->scale, "inf");
	c[DC_B].d = r->b;
	c[DC_B].text = t->b;
	fmt_value(t->b, sizeof(t->b), r->b, mi->scale, "inf");
	c[DC_A_N].d = r->a_n;
	c[DC_B_N].d = r->b_n;
	c[DC_FIGURE].d = r->figure;
	c[DC_FIGURE].text = t->figure;
	fmt_value(t->figure, sizeof(t->figure), r->figure, fscale, inf);
	c[DC_LO].d = r->lo;
	c[DC_HI].d = r->hi;
	c[DC_INTERVAL].text = "-";
	if (!isnan(r->lo)) {
		fmt_value(t->lo, sizeof(t->lo), r->lo, fscale, inf);
		fmt_value(t->hi, sizeof(t->hi), r->hi, fscale, inf);
		snprintf(t->interval, sizeof(t->interval), "[%s, %s]", t->lo,
			 t->hi);
		c[DC_INTERVAL].text = t->interval;
	}
	c[DC_POWER].d = r->figure_power;
	c[DC_POWER].text = t->power;
	fmt_value(t->power, sizeof(t->power), r->figure_power, 1, inf);
	c[DC_P].d = r->p;
	c[DC_P].text = t->p;
	snprintf(t->p, sizeof(t->p), "%.3g", r->p);
	c[DC_STATE].s = state_name(r->state);
	c[DC_STATE].text = "";
	if (r->state != DIFF_KEPT) {
		snprintf(t->state, sizeof(t->state), "(%s)", c[DC_STATE].s);
		c[DC_STATE].text = t->state;
	}
}

/* The rows shown (kept ones, or all with --all; at most --top). */
static void emit_rows(const struct table *tab, const struct diff_cli *o,
		      const struct diff_result *res, int measure)
{
	struct cell cells[NR_DIFF_COLS];
	struct diff_texts texts;
	size_t shown = 0;

	for (size_t i = 0; i < res->n; i++) {
		const struct diff_row *r = &res->rows[i];

		if (r->state != DIFF_KEPT && !o->all)
			continue;
		if (o->top && shown >= (size_t)o->top)
			break;
		diff_cells(cells, &texts, o, r, ++shown, measure);
		table_row(tab, cells);
	}
	if (!shown && tab->mode == TABLE_TEXT)
		fprintf(tab->out, "(no bucket left: see the filters above)\n");
}

static void emit_text(FILE *out, const struct diff_cli *o,
		      const struct side *a, const struct side *b,
		      const struct diff_result *res, int measure)
{
	const struct diff_measure_info *mi = &diff_measures[measure];
	struct column cols[NR_DIFF_COLS];
	struct table tab = { .cols = cols, .nr_cols = NR_DIFF_COLS,
			     .mode = TABLE_TEXT, .out = out };

	fprintf(out, "differential profile of %s: %s", mi->name, mi->what);
	if (strcmp(mi->unit, mi->name))
		fprintf(out, ", in %s", mi->unit);
	fprintf(out, "; by %s; %s\n", diff_by_names[o->by],
		method_name(o->d.method));
	side_text(out, "A", a);
	side_text(out, "B", b);
	if (o->d.method == DIFF_WEIGHTED)
		fprintf(out, "  weights: work %g (A), %g (B)\n", o->d.w1, o->d.w2);
	if (o->d.method == DIFF_SATURATION)
		fprintf(out, "  loads: %g (A), %g (B); saturation at %g %s\n",
			o->d.l1, o->d.l2, o->d.limit * mi->scale, mi->unit);
	if (mi->kind == DIFF_COUNT && !o->d.per_second &&
	    fabs(a->duration - b->duration) >
	    0.1 * fmax(a->duration, b->duration))
		fprintf(out, "  note: the sides ran for different times; --per-second compares rates\n");
	fprintf(out, "  error bars: %s\n", error_name(res->error));
	fprintf(out, "  %zu of %zu buckets kept; filtered: %zu below --min %g, %zu not significant%s\n",
		res->kept, res->n, res->filtered_min, o->d.min,
		res->filtered_test, o->all ? " (shown, marked)" : " (--all shows them)");
	fputc('\n', out);
	diff_columns(cols, o, res, measure);
	table_header(&tab);
	emit_rows(&tab, o, res, measure);
}

static void emit_script(FILE *out, const struct diff_cli *o,
			const struct diff_result *res, int measure)
{
	struct column cols[NR_DIFF_COLS];
	struct table tab = { .cols = cols, .nr_cols = NR_DIFF_COLS,
			     .mode = TABLE_SCRIPT, .out = out, .tag = "row",
			     .sep = "\t" };

	diff_columns(cols, o, res, measure);
	emit_rows(&tab, o, res, measure);
	fprintf(out, "summary\t%zu\t%zu\t%zu\t%zu\n", res->n, res->kept,
		res->filtered_min, res->filtered_test);
}

static void json_number(struct json *j, const char *key, double v)
{
	if (isnan(v) || isinf(v))
		json_null(j, key);
	else
		json_double(j, key, v);
}

static void emit_json(FILE *out, const struct diff_cli *o,
		      const struct side *a, const struct side *b,
		      const struct diff_result *res, int measure)
{
	const struct side *sides[2] = { a, b };
	struct column cols[NR_DIFF_COLS];
	struct json j;
	struct table tab = { .cols = cols, .nr_cols = NR_DIFF_COLS,
			     .mode = TABLE_JSON, .out = out, .j = &j };

	json_init(&j, out);
	json_object_begin(&j, NULL);
	json_string(&j, "measure", diff_measures[measure].name);
	json_string(&j, "unit", diff_measures[measure].unit);
	json_string(&j, "by", diff_by_names[o->by]);
	json_string(&j, "method", o->d.method == DIFF_RATIO ? "ratio" :
		    o->d.method == DIFF_WEIGHTED ? "weighted" : "saturation");
	json_string(&j, "error_bars", res->error == DIFF_ERROR_RECORDINGS ?
		    "bootstrap-recordings" : res->error == DIFF_ERROR_SAMPLING ?
		    "sampling" : "none");
	for (int s = 0; s < 2; s++) {
		json_array_begin(&j, s ? "b" : "a");
		for (size_t i = 0; i < sides[s]->n; i++) {
			const char *label = recording_meta(&sides[s]->r[i], "label");

			json_object_begin(&j, NULL);
			json_string(&j, "path", sides[s]->r[i].path);
			if (label)
				json_string(&j, "label", label);
			json_double(&j, "duration_s", sides[s]->t[i].duration_s);
			json_number(&j, "work", sides[s]->t[i].work);
			json_number(&j, "load", sides[s]->t[i].load);
			json_object_end(&j);
		}
		json_array_end(&j);
	}
	json_uint(&j, "buckets", res->n);
	json_uint(&j, "kept", res->kept);
	json_uint(&j, "filtered_below_min", res->filtered_min);
	json_uint(&j, "filtered_not_significant", res->filtered_test);
	json_array_begin(&j, "rows");
	diff_columns(cols, o, res, measure);
	emit_rows(&tab, o, res, measure);
	json_array_end(&j);
	json_object_end(&j);
	json_finish(&j);
}

/* Work and loads: given, else from the recordings, else an error. */
static int weights_and_loads(struct diff_cli *o, const struct side *a,
			     const struct side *b)
{
	if (o->d.method == DIFF_WEIGHTED && !o->w_given) {
		if (isnan(a->work) || isnan(b->work)) {
			errmsg("diff: --weighted needs the work done in each run: record with --work, or give --weighted=W1,W2");
			return EXIT_USAGE;
		}
		o->d.w1 = a->work;
		o->d.w2 = b->work;
	}
	if (o->d.method == DIFF_SATURATION && !o->l_given) {
		if (isnan(a->load) || isnan(b->load)) {
			errmsg("diff: --saturation needs the load of each run: record with --load, or give --saturation=L1,L2");
			return EXIT_USAGE;
		}
		o->d.l1 = a->load;
		o->d.l2 = b->load;
	}
	if (o->d.method == DIFF_SATURATION && o->d.l2 <= o->d.l1) {
		errmsg("diff: --saturation: B's load (%g) must exceed A's (%g)",
		       o->d.l2, o->d.l1);
		return EXIT_USAGE;
	}
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	const struct ws_geometry l1_default = {
		.level = 1, .size = 32 << 10, .ways = 8, .line = 64, .sets = 64,
	};
	struct ws_geometry geo = l1_default;
	struct side a = { 0 }, b = { 0 };
	struct diff_result res = { 0 };
	struct diff_cli o;
	FILE *out = NULL;
	int ret;

	memset(&o, 0, sizeof(o));
	ret = parse_opts(argc, argv, &o);
	if (ret)
		goto out;
	if (o.cache && !ws_parse_cache(o.cache, &geo)) {
		errmsg("diff: --cache %s: expected SIZE,WAYS,LINE (e.g. 32K,8,64): size a multiple of ways x line, line a power of two of 16-4096 bytes, 1-1024 ways, at most 16M lines",
		       o.cache);
		ret = EXIT_USAGE;
		goto out;
	}
	ret = load_side(&a, o.sa, o.na);
	if (!ret)
		ret = load_side(&b, o.sb, o.nb);
	if (ret)
		goto out;
	if (o.measure < 0)
		o.measure = o.by == DIFF_BY_PATH ? DIFF_M_HISTORIES :
			    o.by == DIFF_BY_SET ? DIFF_M_WS_LINES :
			    default_measure(&a, &b);
	/* --limit is in the unit shown (us for lifetimes): make it raw. */
	o.d.limit /= diff_measures[o.measure].scale;
	ret = side_buckets(&a, &o, &geo, o.measure);
	if (!ret)
		ret = side_buckets(&b, &o, &geo, o.measure);
	if (!ret)
		ret = weights_and_loads(&o, &a, &b);
	if (ret)
		goto out;
	diff_compute(&res, a.t, a.n, b.t, b.n, diff_measures[o.measure].kind,
		     &o.d);
	ret = view_output(&o.a.view, &out, "diff");
	if (ret)
		goto out;
	if (o.a.view.json)
		emit_json(out, &o, &a, &b, &res, o.measure);
	else if (o.a.view.script)
		emit_script(out, &o, &res, o.measure);
	else
		emit_text(out, &o, &a, &b, &res, o.measure);
	ret = view_close(out, &o.a.view);
out:
	diff_result_free(&res);
	free_side(&a);
	free_side(&b);
	free(o.sa);
	free(o.sb);
	type_map_free(&o.a.map);
	return ret;
}

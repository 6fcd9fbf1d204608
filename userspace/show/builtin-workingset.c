// SPDX-License-Identifier: GPL-2.0
/*
 * dprof-view workingset: which types occupy a cache level on average,
 * how evenly over its associativity sets, and whether that means
 * conflict or capacity misses.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "builtin.h"
#include "columns.h"
#include "cachesim.h"
#include "json.h"
#include "ksyms.h"
#include "paths.h"
#include "options.h"
#include "util.h"
#include "view.h"
#include "workingset.h"

struct ws_opts {
	struct view_args a;
	unsigned int level;
	const char *cache;
	bool no_sim;
	uint64_t sim_max;
};

enum { OPT_NO_SIM = OPT_LONG, OPT_SIM_MAX };

static const struct opt ws_own[] = {
	{ 'l', "level", "N", 0,
	  "cache level (default: the first data cache)" },
	{ 'c', "cache", "S,W,L", 0,
	  "geometry instead of the recorded one: size in\n"
	  "bytes (K/M suffixes), ways, line size" },
	{ OPT_NO_SIM, "no-sim", NULL, 0, "no simulation" },
	{ OPT_SIM_MAX, "sim-max", "N", 0,
	  "stop starting lives after N simulated accesses\n"
	  "(default 20000000; 0: no limit); the lives left\n"
	  "out are counted" },
	OPT_END,
};

static int ws_option(void *ctx, int key, const char *arg)
{
	struct ws_opts *o = ctx;
	char *end;

	switch (key) {
	case OPT_NO_SIM:
		o->no_sim = true;
		return 0;
	case OPT_SIM_MAX:
		o->sim_max = strtoull(arg, &end, 10);
		if (*end || *arg == '-' || !*arg) {
			errmsg("workingset: --sim-max %s: not a count", arg);
			return EXIT_USAGE;
		}
		return 0;
	case 'l':
		o->level = (unsigned int)strtoul(arg, &end, 10);
		if (*end || o->level < 1 || o->level > 4) {
			errmsg("workingset: --level %s: expected 1 to 4", arg);
			return EXIT_USAGE;
		}
		return 0;
	case 'c':
		o->cache = arg;
		return 0;
	default:
		return EXIT_USAGE;
	}
}

static const struct command_opts ws_cmd = {
	.cmd = "workingset",
	.synopsis =
	"usage: dprof-view workingset [--json] [-o FILE] [-l LEVEL] [-c SIZE,WAYS,LINE]\n"
	"                             [--no-sim | --sim-max N] [RECORDING]\n"
	"\n"
	"The working set, from an occupancy model (not an LRU simulation): each\n"
	"recorded object occupies, for its lifetime, the cache lines of the\n"
	"fields its type touches (from the histories: the share of lives that\n"
	"touched each field; else the sampled fields), averaged over the\n"
	"recording.  Per type: objects live on average, lines each touches,\n"
	"bytes, and share of the cache, with 95% intervals from the histories\n"
	"behind each line (n; Wilson, summed over an object's lines).  Conflict\n"
	"and capacity are given where the interval decides them, else\n"
	"undecided.  Per associativity set of the chosen\n"
	"level (sets indexed by the objects' direct-map addresses, whose low\n"
	"bits are the physical ones): conflict sets hold more lines than ways\n"
	"and at least twice the average, listed with the types in them; a\n"
	"capacity problem is a working set larger than the cache spread evenly.\n"
	"\n"
	"Then an LRU cache simulation of the same level: every recorded life, at\n"
	"its address and for its lifetime, replays recorded accesses of its\n"
	"type: one complete history of each offset set merged by time, a\n"
	"different choice for successive lives so that paths recur as often as\n"
	"they were seen (else the sampled offsets; times scaled to the life),\n"
	"so the stream is an estimate.  A\n"
	"fully associative LRU cache of as many lines runs beside it, and each\n"
	"miss is cold (the life's first access to the line), capacity (the fully\n"
	"associative cache misses too) or conflict (only the set-associative\n"
	"one misses).  Per type: lives, accesses, miss rate, the three kinds,\n"
	"the miss rate's 95% interval over 20 batches of lives in allocation\n"
	"order (the stream's own variation, not the templates'), lines held on\n"
	"average; then the sets with the most conflict misses.\n"
	"Only the profiled types are simulated: other data competes for the\n"
	"real cache too, so the miss rates are lower bounds.  Last, the top\n"
	"paths of the types that hold a tenth of the working set or more.\n",
	.sets = OPTS_JSON,
	.own = ws_own,
	.handle = ws_option,
};

static int parse_opts(int argc, char **argv, struct ws_opts *o)
{
	o->sim_max = 20000000;
	return opts_parse_view(&ws_cmd, o, argc, argv, &o->a);
}

/*
 * The occupancy model's types: the text table and the JSON objects from
 * one list (no head: JSON's only; no key: the text's).
 */
enum {
	WC_CACHE, WC_OBJECTS, WC_LPO, WC_LINES_CI, WC_BYTES, WC_CACHE_PCT,
	WC_CACHE_CI, WC_HISTORIES, WC_FEWEST, WC_INTERVAL, WC_LPO_LO,
	WC_LPO_HI, WC_BYTES_LO, WC_BYTES_HI, WC_FROM, WC_N
};

static const struct column type_cols[WC_N] = {
	[WC_CACHE] = { "type", "cache", 0, COL_STR, -24 },
	[WC_OBJECTS] = { "objects", "objects", 0, COL_DOUBLE, 9, 0, 0, 1 },
	[WC_LPO] = { "lines/obj", "lines_per_object", 0, COL_DOUBLE, 10, 0,
		     0, 2 },
	[WC_LINES_CI] = { "95%", NULL, 0, COL_STR, 11 },
	[WC_BYTES] = { "bytes", "bytes", 0, COL_DOUBLE, 11 },
	[WC_CACHE_PCT] = { "cache%", NULL, 0, COL_DOUBLE, 7 },
	[WC_CACHE_CI] = { "95%", NULL, 0, COL_STR, 13 },
	[WC_HISTORIES] = { "n", "histories", 0, COL_UINT, 6 },
	[WC_FEWEST] = { NULL, "fewest_histories_per_line", 0, COL_UINT },
	[WC_INTERVAL] = { NULL, "interval", 0, COL_BOOL },
	[WC_LPO_LO] = { NULL, "lines_per_object_lo", 0, COL_DOUBLE },
	[WC_LPO_HI] = { NULL, "lines_per_object_hi", 0, COL_DOUBLE },
	[WC_BYTES_LO] = { NULL, "bytes_lo", 0, COL_DOUBLE },
	[WC_BYTES_HI] = { NULL, "bytes_hi", 0, COL_DOUBLE },
	[WC_FROM] = { "touched lines from", NULL, 0, COL_STR, 0, 2 },
};

static void type_row(const struct table *tab, const struct workingset *ws,
		     const struct recording *r, size_t t)
{
	const struct ws_geometry *g = &ws->geo;
	const struct ws_type *ty = &ws->types[t];
	char lines_ci[32] = "-", cache_ci[32] = "-", from[64], b[32], pc[32];
	bool iv = ty->from_histories;
	struct cell c[WC_N] = {
		[WC_CACHE] = { .s = r->targets[t].name },
		[WC_OBJECTS] = { .d = ty->objects },
		[WC_LPO] = { .d = ty->lines_per_object },
		[WC_LINES_CI] = { .s = lines_ci },
		[WC_BYTES] = { .d = ty->bytes, .text = b },
		[WC_CACHE_PCT] = { .d = 100.0 * ty->bytes / (double)g->size,
				   .text = pc },
		[WC_CACHE_CI] = { .s = cache_ci },
		[WC_HISTORIES] = { .u = ty->histories },
		[WC_FEWEST] = { .u = ty->fewest },
		[WC_INTERVAL] = { .u = iv },
		[WC_LPO_LO] = { .d = ty->lines_lo, .absent = !iv },
		[WC_LPO_HI] = { .d = ty->lines_hi, .absent = !iv },
		[WC_BYTES_LO] = { .d = ty->bytes_lo, .absent = !iv },
		[WC_BYTES_HI] = { .d = ty->bytes_hi, .absent = !iv },
		[WC_FROM] = { .s = from },
	};

	format_bytes(b, sizeof(b), (uint64_t)ty->bytes);
	snprintf(pc, sizeof(pc), "%.1f%%", c[WC_CACHE_PCT].d);
	if (iv) {
		snprintf(lines_ci, sizeof(lines_ci), "%.2f-%.2f",
			 ty->lines_lo, ty->lines_hi);
		snprintf(cache_ci, sizeof(cache_ci), "%.1f-%.1f%%",
			 100.0 * ty->bytes_lo / (double)g->size,
			 100.0 * ty->bytes_hi / (double)g->size);
		snprintf(from, sizeof(from), "histories (fewest %llu per line)",
			 (unsigned long long)ty->fewest);
	} else {
		snprintf(from, sizeof(from), "%s",
			 ty->lines_per_object > 0 ? "samples (no interval)" :
			 "nothing (no histories or samples)");
	}
	table_row(tab, c);
}

static void text(FILE *out, const struct workingset *ws,
		 const struct recording *r)
{
	const struct ws_geometry *g = &ws->geo;
	struct table tab = {
		.cols = type_cols, .nr_cols = WC_N, .mode = TABLE_TEXT,
		.out = out,
	};
	char sz[32];

	format_bytes(sz, sizeof(sz), g->size);
	char lvl[16];

	if (g->level)
		snprintf(lvl, sizeof(lvl), "L%u", g->level);
	else
		snprintf(lvl, sizeof(lvl), "(--cache)");
	fprintf(out, "working set (occupancy model) over %.2f s; cache %s: %s, %u-way, %u B lines, %u sets\n",
		ws->duration_ns / 1e9, lvl, sz, g->ways, g->line, g->sets);
	fputc('\n', out);
	table_header(&tab);
	for (size_t t = 0; t < ws->nr_types; t++)
		type_row(&tab, ws, r, t);
	fprintf(out, "95%%: Wilson, over the n histories, summed over an object's lines\n");
	fprintf(out, "\nlines per set: average %.2f, most %.2f; %u lines fit (%u sets x %u ways)\n",
		ws->avg_set_lines, ws->max_set_lines, g->sets * g->ways,
		g->sets, g->ways);
	if (!ws->conflict)
		fprintf(out, "conflict: none (no set holds more lines than ways and twice the average, by the lower bound)\n");
	else
		fprintf(out, "conflict: %zu set%s hold more lines than ways and at least twice the average, by the lower bound:\n",
			ws->nr_hot, ws->nr_hot == 1 ? "" : "s");
	for (size_t k = 0; k < ws->nr_hot; k++) {
		fprintf(out, "  set %5u: %.1f lines:", ws->hot[k].set,
			ws->hot[k].lines);
		for (size_t t = 0; t < ws->nr_types; t++)
			if (ws->hot[k].by_type[t] >= 0.05)
				fprintf(out, " %s %.1f", r->targets[t].name,
					ws->hot[k].by_type[t]);
		fputc('\n', out);
	}
	if (ws->nr_conflict_undecided)
		fprintf(out, "  %zu more set%s undecided: a conflict by the upper bound only (more histories would decide)\n",
			ws->nr_conflict_undecided,
			ws->nr_conflict_undecided == 1 ? "" : "s");
	fprintf(out, "capacity: %s (the working set is %.1f%% of the cache, 95%% %.1f-%.1f%%%s)\n",
		ws->capacity ? "yes" : ws->capacity_undecided ? "undecided" :
		"no",
		100.0 * ws->total_lines / ((double)g->sets * g->ways),
		100.0 * ws->total_lo / ((double)g->sets * g->ways),
		100.0 * ws->total_hi / ((double)g->sets * g->ways),
		ws->capacity ? ", spread evenly over the sets" :
		ws->capacity_undecided ?
		": the interval straddles the cache; more histories would decide" :
		"");
	fprintf(out, "capacity and %u conflict labels decided at 95%% each: about 1 in 20 sets near the threshold on the wrong side by chance\n",
		g->sets);
}

static const char *source_name(enum sim_source s)
{
	switch (s) {
	case SIM_SOURCE_HISTORIES:
		return "histories";
	case SIM_SOURCE_SAMPLES:
		return "sampled offsets";
	default:
		return "nothing known";
	}
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0;
}

/* Sets by conflict misses, most first (at most @max); returns how many. */
static size_t top_conflict_sets(const struct cachesim *sim, unsigned int *top,
				size_t max)
{
	size_t n = 0;

	for (unsigned int s = 0; s < sim->geo.sets; s++) {
		size_t i;

		if (!sim->set_conflict[s])
			continue;
		if (n < max)
			n++;
		else if (sim->set_conflict[s] <= sim->set_conflict[top[n - 1]])
			continue;
		for (i = n - 1; i > 0 &&
		     sim->set_conflict[top[i - 1]] < sim->set_conflict[s]; i--)
			top[i] = top[i - 1];
		top[i] = s;
	}
	return n;
}

#define SIM_TOP_SETS 8

/* The simulation's types, as the occupancy model's above. */
enum {
	SC_CACHE, SC_TEMPLATE, SC_T_HISTORIES, SC_T_SETS, SC_T_VARIANTS,
	SC_T_ACCESSES, SC_LIVES, SC_ACCESSES, SC_MISSES, SC_COLD,
	SC_CAPACITY, SC_CONFLICT, SC_MISS_CI, SC_MISS_HALF, SC_COLD_HALF,
	SC_CAPACITY_HALF, SC_CONFLICT_HALF, SC_BATCHES, SC_HELD,
	SC_TEMPLATE_TEXT, SC_N
};

static const struct column sim_cols[SC_N] = {
	[SC_CACHE] = { "type", "cache", 0, COL_STR, -24 },
	[SC_TEMPLATE] = { NULL, "template", 0, COL_STR },
	[SC_T_HISTORIES] = { NULL, "template_histories", 0, COL_UINT },
	[SC_T_SETS] = { NULL, "template_offset_sets", 0, COL_UINT },
	[SC_T_VARIANTS] = { NULL, "template_variants", 0, COL_UINT },
	[SC_T_ACCESSES] = { NULL, "template_accesses_per_life", 0,
			    COL_DOUBLE },
	[SC_LIVES] = { "lives", "lives", 0, COL_UINT, 8 },
	[SC_ACCESSES] = { "accesses", "accesses", 0, COL_UINT, 10 },
	[SC_MISSES] = { "miss%", "misses", 0, COL_PCT, 6, 0, SC_ACCESSES },
	[SC_COLD] = { "cold%", "cold", 0, COL_PCT, 6, 0, SC_ACCESSES },
	[SC_CAPACITY] = { "capacity%", "capacity", 0, COL_PCT, 9, 0,
			  SC_ACCESSES },
	[SC_CONFLICT] = { "conflict%", "conflict", 0, COL_PCT, 9, 0,
			  SC_ACCESSES },
	[SC_MISS_CI] = { "miss±95%", NULL, 0, COL_STR, 8 },
	/* Half 95% intervals of the rates; -1: under two batches. */
	[SC_MISS_HALF] = { NULL, "miss_rate_half95", 0, COL_DOUBLE },
	[SC_COLD_HALF] = { NULL, "cold_rate_half95", 0, COL_DOUBLE },
	[SC_CAPACITY_HALF] = { NULL, "capacity_rate_half95", 0, COL_DOUBLE },
	[SC_CONFLICT_HALF] = { NULL, "conflict_rate_half95", 0, COL_DOUBLE },
	[SC_BATCHES] = { NULL, "batches", 0, COL_UINT },
	[SC_HELD] = { "lines_held", "lines_held", 0, COL_DOUBLE, 9, 0, 0, 1 },
	[SC_TEMPLATE_TEXT] = { "template", NULL, 0, COL_STR, 0, 2 },
};

static void sim_row(const struct table *tab, const struct cachesim *sim,
		    const struct sim_template *t, const struct recording *r,
		    size_t i)
{
	const struct sim_type *ty = &sim->types[i];
	double half = sim_rate_half(ty, SIM_MISS);
	char ci[16] = "-", tmpl[160];
	struct cell c[SC_N] = {
		[SC_CACHE] = { .s = r->targets[i].name },
		[SC_TEMPLATE] = { .s = source_name(t[i].source) },
		[SC_T_HISTORIES] = { .u = t[i].histories },
		[SC_T_SETS] = { .u = t[i].offset_sets },
		[SC_T_VARIANTS] = { .u = t[i].nv },
		[SC_T_ACCESSES] = { .d = sim_template_accesses(&t[i]) },
		[SC_LIVES] = { .u = ty->lives },
		[SC_ACCESSES] = { .u = ty->accesses },
		[SC_MISSES] = { .u = ty->misses },
		[SC_COLD] = { .u = ty->cold },
		[SC_CAPACITY] = { .u = ty->capacity },
		[SC_CONFLICT] = { .u = ty->conflict },
		[SC_MISS_CI] = { .s = ci },
		[SC_MISS_HALF] = { .d = half },
		[SC_COLD_HALF] = { .d = sim_rate_half(ty, SIM_COLD) },
		[SC_CAPACITY_HALF] = { .d = sim_rate_half(ty, SIM_CAPACITY) },
		[SC_CONFLICT_HALF] = { .d = sim_rate_half(ty, SIM_CONFLICT) },
		[SC_BATCHES] = { .u = SIM_BATCHES },
		[SC_HELD] = { .d = ty->lines_in_cache },
		[SC_TEMPLATE_TEXT] = { .s = tmpl },
	};

	if (half >= 0)
		snprintf(ci, sizeof(ci), "%.1f", 100 * half);
	snprintf(tmpl, sizeof(tmpl), "%s (%zu, %zu offset sets, %.1f accesses/life)",
		 source_name(t[i].source), t[i].histories, t[i].offset_sets,
		 sim_template_accesses(&t[i]));
	table_row(tab, c);
}

static void sim_text(FILE *out, const struct cachesim *sim,
		     const struct sim_template *t, const struct recording *r)
{
	struct table tab = {
		.cols = sim_cols, .nr_cols = SC_N, .mode = TABLE_TEXT,
		.out = out,
	};
	unsigned int top[SIM_TOP_SETS];
	size_t n;

	fprintf(out, "\nLRU simulation (estimated stream: each recorded life replays its type's access template)\n");
	fprintf(out, "only the profiled types' lines are simulated; the rest of the kernel's data competes for the cache too, so miss rates are lower bounds\n");
	fprintf(out, "%llu lives, %llu accesses; %llu lives not simulated (--sim-max); lines held averaged over %zu snapshots\n",
		(unsigned long long)sim->lives,
		(unsigned long long)sim->accesses,
		(unsigned long long)sim->lives_skipped, sim->snapshots);
	table_header(&tab);
	for (size_t i = 0; i < sim->nr_types; i++)
		sim_row(&tab, sim, t, r, i);
	fprintf(out, "miss±95%%: over %d batches of lives in allocation order (the stream's variation; the templates' sampling is not in it)\n",
		SIM_BATCHES);
	fprintf(out, "misses: %.1f%% of accesses (cold %.1f%%, capacity %.1f%%, conflict %.1f%%); a fully associative cache of as many lines: %.1f%%\n",
		pct(sim->misses, sim->accesses), pct(sim->cold, sim->accesses),
		pct(sim->capacity, sim->accesses),
		pct(sim->conflict, sim->accesses),
		pct(sim->fa_misses, sim->accesses));
	n = top_conflict_sets(sim, top, SIM_TOP_SETS);
	if (!n)
		fprintf(out, "no conflict misses\n");
	else
		fprintf(out, "sets with the most conflict misses:");
	for (size_t k = 0; k < n; k++)
		fprintf(out, " %u:%llu", top[k],
			(unsigned long long)sim->set_conflict[top[k]]);
	if (n)
		fputc('\n', out);
}

static void sim_json(struct json *j, const struct cachesim *sim,
		     const struct sim_template *t, const struct recording *r)
{
	struct table tab = {
		.cols = sim_cols, .nr_cols = SC_N, .mode = TABLE_JSON, .j = j,
	};
	unsigned int top[SIM_TOP_SETS];
	size_t n = top_conflict_sets(sim, top, SIM_TOP_SETS);

	json_object_begin(j, "simulation");
	json_bool(j, "estimated", true);
	json_uint(j, "lives", sim->lives);
	json_uint(j, "lives_not_simulated", sim->lives_skipped);
	json_uint(j, "accesses", sim->accesses);
	json_uint(j, "misses", sim->misses);
	json_uint(j, "cold", sim->cold);
	json_uint(j, "capacity", sim->capacity);
	json_uint(j, "conflict", sim->conflict);
	json_uint(j, "fully_associative_misses", sim->fa_misses);
	json_uint(j, "snapshots", sim->snapshots);
	json_array_begin(j, "types");
	for (size_t i = 0; i < sim->nr_types; i++)
		sim_row(&tab, sim, t, r, i);
	json_array_end(j);
	json_array_begin(j, "conflict_sets");
	for (size_t k = 0; k < n; k++) {
		json_object_begin(j, NULL);
		json_uint(j, "set", top[k]);
		json_uint(j, "conflict_misses", sim->set_conflict[top[k]]);
		json_uint(j, "misses", sim->set_misses[top[k]]);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

static void json(FILE *out, const struct workingset *ws,
		 const struct recording *r, const struct cachesim *sim,
		 const struct sim_template *tmpl)
{
	struct json j;
	struct table tab = {
		.cols = type_cols, .nr_cols = WC_N, .mode = TABLE_JSON,
		.out = out, .j = &j,
	};

	json_init(&j, out);
	json_object_begin(&j, NULL);
	json_bool(&j, "estimated", true);
	json_object_begin(&j, "cache");
	json_uint(&j, "level", ws->geo.level);
	json_uint(&j, "size", ws->geo.size);
	json_uint(&j, "ways", ws->geo.ways);
	json_uint(&j, "line", ws->geo.line);
	json_uint(&j, "sets", ws->geo.sets);
	json_object_end(&j);
	json_double(&j, "duration_s", ws->duration_ns / 1e9);
	json_uint(&j, "track_one_in", ws->track_one_in);
	json_array_begin(&j, "types");
	for (size_t t = 0; t < ws->nr_types; t++)
		type_row(&tab, ws, r, t);
	json_array_end(&j);
	json_double(&j, "avg_set_lines", ws->avg_set_lines);
	json_double(&j, "max_set_lines", ws->max_set_lines);
	json_double(&j, "total_lines", ws->total_lines);
	json_double(&j, "total_lines_lo", ws->total_lo);
	json_double(&j, "total_lines_hi", ws->total_hi);
	json_double(&j, "level_pct", 95);
	json_bool(&j, "conflict", ws->conflict);
	json_uint(&j, "conflict_sets_undecided", ws->nr_conflict_undecided);
	json_bool(&j, "capacity", ws->capacity);
	json_bool(&j, "capacity_undecided", ws->capacity_undecided);
	json_array_begin(&j, "conflict_sets");
	for (size_t k = 0; k < ws->nr_hot; k++) {
		json_object_begin(&j, NULL);
		json_uint(&j, "set", ws->hot[k].set);
		json_double(&j, "lines", ws->hot[k].lines);
		json_object_begin(&j, "by_type");
		for (size_t t = 0; t < ws->nr_types; t++)
			json_double(&j, r->targets[t].name, ws->hot[k].by_type[t]);
		json_object_end(&j);
		json_object_end(&j);
	}
	json_array_end(&j);
	if (sim)
		sim_json(&j, sim, tmpl, r);
	json_object_end(&j);
	json_finish(&j);
}

/*
 * The paths of the types that hold a tenth of the working set or more:
 * how they live, in one line per path; paths -t TYPE shows the steps.
 */
static void dominant_paths(FILE *out, const struct workingset *ws,
			   const struct path_set *ps, const struct recording *r)
{
	struct ksyms syms;
	bool any = false;

	ksyms_load(&syms, r->kallsyms);
	for (size_t t = 0; t < ws->nr_types; t++) {
		size_t shown = 0;

		if (ws->total_lines <= 0 || ws->types[t].bytes <
		    0.1 * ws->total_lines * ws->geo.line)
			continue;
		for (size_t i = 0; i < ps->n && shown < 3; i++) {
			const struct path *p = &ps->p[i];
			const struct path_target *pt = &ps->t[t];
			char a[160], b[160];
			size_t changes = p->free_cpu_change;

			if ((size_t)p->target != t)
				continue;
			if (!any)
				fprintf(out, "\npaths of the dominant types (dprof-view paths -t TYPE for their steps):\n");
			any = true;
			for (size_t k = 0; k < p->nr_steps; k++)
				changes += p->steps[k].cpu_change;
			fprintf(out, "  %s path %zu: %llu of %zu histories, %zu steps, %zu CPU change%s, lifetime %.1f us, %s -> %s\n",
				r->targets[t].name, ++shown,
				(unsigned long long)p->count, pt->histories,
				p->nr_steps, changes, changes == 1 ? "" : "s",
				p->lifetime_sum_ns / (double)p->count / 1e3,
				ksyms_format(&syms, p->alloc_site, a, sizeof(a)),
				ksyms_format(&syms, p->free_site, b, sizeof(b)));
		}
	}
	ksyms_free(&syms);
}

int cmd_workingset(int argc, char **argv)
{
	struct ws_opts o;
	struct history_set hs;
	struct obj_summary objs;
	struct workingset ws;
	struct ws_geometry geo;
	struct sim_template *tmpl = NULL;
	struct cachesim sim;
	struct path_set ps;
	struct recording r;
	FILE *out;
	int ret;

	memset(&o, 0, sizeof(o));
	ret = parse_opts(argc, argv, &o);
	if (ret)
		return ret;
	if (o.cache && !ws_parse_cache(o.cache, &geo)) {
		errmsg("workingset: --cache %s: expected SIZE,WAYS,LINE (e.g. 32K,8,64): size a multiple of ways x line, line a power of two of 16-4096 bytes, 1-1024 ways, at most 16M lines",
		       o.cache);
		return EXIT_USAGE;
	}
	ret = view_open(&o.a.view, &r, &out, "workingset");
	if (ret)
		return ret;
	view_sample_note(&r, "workingset");
	if (!o.cache && !ws_geometry_from(&r, o.level, &geo)) {
		errmsg("workingset: %s records no usable %s cache geometry; give one with --cache SIZE,WAYS,LINE",
		       o.a.view.input, o.level ? "such" : "data");
		view_close(out, &o.a.view);
		recording_free(&r);
		return EXIT_USAGE;
	}
	if (objects_summarize(&r, &objs)) {
		errmsg("workingset: %s: too many CPUs", o.a.view.input);
		view_close(out, &o.a.view);
		recording_free(&r);
		return EXIT_USAGE;
	}
	histories_build(&hs, &r);
	workingset_build(&ws, &r, &hs, &objs, &geo);
	paths_build(&ps, &r, &hs);
	if (!o.no_sim) {
		tmpl = xcalloc(r.nr_targets + 1, sizeof(*tmpl));
		sim_templates_build(tmpl, &r, &hs);
		cachesim_run(&sim, tmpl, r.nr_targets, &objs, &geo, o.sim_max);
	}
	if (o.a.view.json) {
		json(out, &ws, &r, o.no_sim ? NULL : &sim, tmpl);
	} else {
		text(out, &ws, &r);
		if (!o.no_sim)
			sim_text(out, &sim, tmpl, &r);
		dominant_paths(out, &ws, &ps, &r);
	}
	ret = view_close(out, &o.a.view);
	paths_free(&ps);
	if (!o.no_sim) {
		cachesim_free(&sim);
		sim_templates_free(tmpl, r.nr_targets);
		free(tmpl);
	}
	workingset_free(&ws);
	histories_free(&hs);
	objects_free(&objs);
	recording_free(&r);
	return ret;
}

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

static void text(FILE *out, const struct workingset *ws,
		 const struct recording *r)
{
	const struct ws_geometry *g = &ws->geo;
	char sz[32], b[32];

	format_bytes(sz, sizeof(sz), g->size);
	char lvl[16];

	if (g->level)
		snprintf(lvl, sizeof(lvl), "L%u", g->level);
	else
		snprintf(lvl, sizeof(lvl), "(--cache)");
	fprintf(out, "working set (occupancy model) over %.2f s; cache %s: %s, %u-way, %u B lines, %u sets\n",
		ws->duration_ns / 1e9, lvl, sz, g->ways, g->line, g->sets);
	if (ws->track_one_in > 1)
		fprintf(out, "objects followed up to 1 in %u per cache (track_one_in, status): each stands for as many of its cache, an estimate whose sampling error the intervals leave out; few objects of a type make it unreliable: record with track_one_in=1 for the exact set\n",
			ws->track_one_in);
	fprintf(out, "\n%-24s %9s %10s %11s %11s %7s %13s %6s  %s\n", "type",
		"objects", "lines/obj", "95%", "bytes", "cache%", "95%",
		"n", "touched lines from");
	for (size_t t = 0; t < ws->nr_types; t++) {
		const struct ws_type *ty = &ws->types[t];
		char lines_ci[32] = "-", cache_ci[32] = "-", from[64];

		format_bytes(b, sizeof(b), (uint64_t)ty->bytes);
		if (ty->from_histories) {
			snprintf(lines_ci, sizeof(lines_ci), "%.2f-%.2f",
				 ty->lines_lo, ty->lines_hi);
			snprintf(cache_ci, sizeof(cache_ci), "%.1f-%.1f%%",
				 100.0 * ty->bytes_lo / (double)g->size,
				 100.0 * ty->bytes_hi / (double)g->size);
			snprintf(from, sizeof(from),
				 "histories (fewest %llu per line)",
				 (unsigned long long)ty->fewest);
		} else {
			snprintf(from, sizeof(from), "%s",
				 ty->lines_per_object > 0 ?
				 "samples (no interval)" :
				 "nothing (no histories or samples)");
		}
		fprintf(out, "%-24s %9.1f %10.2f %11s %11s %6.1f%% %13s %6llu  %s\n",
			r->targets[t].name, ty->objects, ty->lines_per_object,
			lines_ci, b, 100.0 * ty->bytes / (double)g->size,
			cache_ci, (unsigned long long)ty->histories, from);
	}
	fprintf(out, "95%%: Wilson intervals of each line's share of the histories (n) that touched it, summed over an object's lines; objects are counted, not estimated\n");
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
	fprintf(out, "labels decided at once: capacity, and conflict for each of the %u sets, each at 95%%: expect about 1 in 20 of the sets near the threshold to sit on the wrong side by chance\n",
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

static void sim_text(FILE *out, const struct cachesim *sim,
		     const struct sim_template *t, const struct recording *r)
{
	unsigned int top[SIM_TOP_SETS];
	size_t n;

	fprintf(out, "\nLRU simulation (estimated stream: each recorded life replays its type's access template)\n");
	fprintf(out, "only the profiled types' lines are simulated; the rest of the kernel's data competes for the cache too, so miss rates are lower bounds\n");
	fprintf(out, "%llu lives, %llu accesses; %llu lives not simulated (--sim-max); lines held averaged over %zu snapshots\n",
		(unsigned long long)sim->lives,
		(unsigned long long)sim->accesses,
		(unsigned long long)sim->lives_skipped, sim->snapshots);
	fprintf(out, "%-24s %8s %10s %6s %6s %9s %9s %8s %9s  %s\n", "type", "lives",
		"accesses", "miss%", "cold%", "capacity%", "conflict%",
		"miss±95%", "lines_held", "template");
	for (size_t i = 0; i < sim->nr_types; i++) {
		const struct sim_type *ty = &sim->types[i];
		double half = sim_rate_half(ty, SIM_MISS);
		char ci[16] = "-";

		if (half >= 0)
			snprintf(ci, sizeof(ci), "%.1f", 100 * half);
		fprintf(out, "%-24s %8llu %10llu %5.1f%% %5.1f%% %8.1f%% %8.1f%% %8s %9.1f  %s (%zu, %zu offset sets, %.1f accesses/life)\n",
			r->targets[i].name, (unsigned long long)ty->lives,
			(unsigned long long)ty->accesses,
			pct(ty->misses, ty->accesses),
			pct(ty->cold, ty->accesses),
			pct(ty->capacity, ty->accesses),
			pct(ty->conflict, ty->accesses), ci,
			ty->lines_in_cache,
			source_name(t[i].source), t[i].histories,
			t[i].offset_sets, sim_template_accesses(&t[i]));
	}
	fprintf(out, "miss±95%%: over %d batches of lives in allocation order, the stream's own variation (the templates rest on the histories counted in the last column; their sampling is not in it)\n",
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
	for (size_t i = 0; i < sim->nr_types; i++) {
		const struct sim_type *ty = &sim->types[i];

		json_object_begin(j, NULL);
		json_string(j, "cache", r->targets[i].name);
		json_string(j, "template", source_name(t[i].source));
		json_uint(j, "template_histories", t[i].histories);
		json_uint(j, "template_offset_sets", t[i].offset_sets);
		json_uint(j, "template_variants", t[i].nv);
		json_double(j, "template_accesses_per_life",
			    sim_template_accesses(&t[i]));
		json_uint(j, "lives", ty->lives);
		json_uint(j, "accesses", ty->accesses);
		json_uint(j, "misses", ty->misses);
		json_uint(j, "cold", ty->cold);
		json_uint(j, "capacity", ty->capacity);
		json_uint(j, "conflict", ty->conflict);
		/* Half 95% intervals of the rates; -1: under two batches. */
		json_double(j, "miss_rate_half95", sim_rate_half(ty, SIM_MISS));
		json_double(j, "cold_rate_half95", sim_rate_half(ty, SIM_COLD));
		json_double(j, "capacity_rate_half95",
			    sim_rate_half(ty, SIM_CAPACITY));
		json_double(j, "conflict_rate_half95",
			    sim_rate_half(ty, SIM_CONFLICT));
		json_uint(j, "batches", SIM_BATCHES);
		json_double(j, "lines_held", ty->lines_in_cache);
		json_object_end(j);
	}
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
	for (size_t t = 0; t < ws->nr_types; t++) {
		json_object_begin(&j, NULL);
		json_string(&j, "cache", r->targets[t].name);
		json_double(&j, "objects", ws->types[t].objects);
		json_double(&j, "lines_per_object", ws->types[t].lines_per_object);
		json_double(&j, "bytes", ws->types[t].bytes);
		json_uint(&j, "histories", ws->types[t].histories);
		json_uint(&j, "fewest_histories_per_line", ws->types[t].fewest);
		json_bool(&j, "interval", ws->types[t].from_histories);
		if (ws->types[t].from_histories) {
			json_double(&j, "lines_per_object_lo", ws->types[t].lines_lo);
			json_double(&j, "lines_per_object_hi", ws->types[t].lines_hi);
			json_double(&j, "bytes_lo", ws->types[t].bytes_lo);
			json_double(&j, "bytes_hi", ws->types[t].bytes_hi);
		}
		json_object_end(&j);
	}
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

// SPDX-License-Identifier: GPL-2.0
/*
 * dprof-view paths: path traces of each type, most frequent first, with
 * the coverage curve that says whether enough histories were collected.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "diffstat.h"
#include "builtin.h"
#include "columns.h"
#include "combine.h"
#include "coverage.h"
#include "json.h"
#include "ksyms.h"
#include "typemap.h"
#include "paths.h"
#include "options.h"
#include "util.h"
#include "view.h"

struct paths_opts {
	struct view_args a;
	long top;
	int combined;
};

static const struct opt paths_own[] = {
	{ 'c', "combined", NULL, 0,
	  "one combined trace per type and allocation site" },
	{ 'n', "top", "N", 0,
	  "paths per type (default 5, 0: all)" },
	{ 's', "script", NULL, 0,
	  "one line per path and per step, for scripts:\n"
	  "  path CACHE RANK COUNT STEPS CPU_CHANGES OFFSETS\n"
	  "  step CACHE RANK INDEX TIME_NS OFFSET read|write\n"
	  "    same|change SAMPLES SYMBOL\n"
	  "with --combined:\n"
	  "  combined CACHE RANK HISTORIES STEPS CPU_CHANGES\n"
	  "    OFFSETS PAIRS_WATCHED PAIRS BY_TIME BROKEN\n"
	  "    ORDER_WEIGHT PATHS_OTHER\n"
	  "  cstep CACHE RANK INDEX TIME_NS OFFSET read|write\n"
	  "    same|change|unknown ordered|by-time SAMPLES SYMBOL" },
	OPT_END,
};

static int paths_option(void *ctx, int key, const char *arg)
{
	struct paths_opts *o = ctx;

	if (key == 'c') {
		o->combined = 1;
	} else if (key == 'n') {
		return opts_count("paths", "top", arg, 0, &o->top);
	} else {
		return EXIT_USAGE;
	}
	return 0;
}

static const struct command_opts paths_cmd = {
	.cmd = "paths",
	.synopsis =
	"usage: dprof-view paths [--combined] [--json|--script] [-o FILE] [-t CACHE]\n"
	"                        [-n N] [RECORDING]\n"
	"\n"
	"Path traces: complete object access histories of a type merged when\n"
	"they watched the same offsets and went the same way (same accessing\n"
	"instructions in the same order, same CPU changes, same allocation and\n"
	"free sites).  Per type: histories used, unique paths, and how the\n"
	"number of unique paths grew with the histories collected (new paths\n"
	"in the last 20% mean more collection would find more).  Per path: how\n"
	"many histories took it, mean lifetime, then every step with its mean\n"
	"time since allocation, a -> where the object changed CPU, the field,\n"
	"read or write, the access samples for that instruction and field, and\n"
	"the instruction.\n"
	"\n"
	"A history watches one or two offsets.  --combined puts the paths of\n"
	"all offset sets of a type together, per allocation and free site, into\n"
	"one trace of the whole object: each offset's accesses are those most\n"
	"histories agree on (paths that differ are left out, counted), and the\n"
	"paths that watched two offsets together order their accesses.  The\n"
	"header says how many offset pairs were watched together, how many\n"
	"steps had to be placed by time because no path orders them (marked ~),\n"
	"and how much history weight the order goes against; a CPU change no\n"
	"path saw is shown as ?.\n",
	.sets = OPTS_JSON | OPTS_SCRIPT | OPTS_TARGET | OPTS_TYPES,
	.own = paths_own,
	.handle = paths_option,
};

static int parse_opts(int argc, char **argv, struct paths_opts *o)
{
	o->top = 5;
	return opts_parse_view(&paths_cmd, o, argc, argv, &o->a);
}

static size_t cpu_changes(const struct path *p)
{
	size_t n = p->free_cpu_change;

	for (size_t i = 0; i < p->nr_steps; i++)
		n += p->steps[i].cpu_change;
	return n;
}

struct ctx {
	FILE *out;
	const struct recording *r;
	const struct path_set *ps;
	const struct combined_set *cs;
	struct layout **layouts;
	struct ksyms syms;
	const struct paths_opts *o;
	struct coverage cover;
};

static void type_header(struct ctx *c, size_t t)
{
	const struct path_target *pt = &c->ps->t[t];
	size_t tail = paths_new_in_tail(pt, 0.2);

	fprintf(c->out, "%s: %zu complete histories (%zu others not used), %zu unique path%s\n",
		c->r->targets[t].name, pt->histories, pt->skipped,
		pt->nr_paths, pt->nr_paths == 1 ? "" : "s");
	view_coverage_text(c->out, &c->cover, t, "  ");
	if (!pt->histories)
		return;
	fprintf(c->out, "  coverage: unique paths after");
	for (int k = 1; k <= 10; k++) {
		size_t i = (pt->histories * k + 9) / 10;

		fprintf(c->out, " %zu:%zu", pt->growth[i - 1].histories,
			pt->growth[i - 1].paths);
	}
	fprintf(c->out, " histories\n  the last 20%% of histories found %zu new path%s%s\n",
		tail, tail == 1 ? "" : "s",
		tail ? ": collect more to see every path" :
		": the paths seen are likely all there are");
}

/*
 * A path's steps: the text table, the --script "step" lines and the JSON
 * objects.  Columns without a head are not in the text, without a key
 * not in JSON, with script 0 not in --script; the text's field is the
 * short name, JSON's the full one.
 */
enum {
	PS_NAME, PS_RANK, PS_INDEX, PS_TIME_US, PS_TIME_MEAN, PS_TIME_NS,
	PS_MARK, PS_OFFSET, PS_FIELD_SHORT, PS_FIELD, PS_RW, PS_WRITE,
	PS_CPU_CHANGE, PS_CHANGE_WORD, PS_SAMPLES, PS_MISSES, PS_INSN, PS_N
};

static const struct column step_cols[PS_N] = {
	[PS_NAME] = { NULL, NULL, 1, COL_STR },
	[PS_RANK] = { NULL, NULL, 2, COL_UINT },
	[PS_INDEX] = { NULL, NULL, 3, COL_UINT },
	[PS_TIME_US] = { "time_us", NULL, 0, COL_DOUBLE, 10, 0, 0, 2 },
	[PS_TIME_MEAN] = { NULL, "time_mean_ns", 0, COL_DOUBLE },
	[PS_TIME_NS] = { NULL, NULL, 4, COL_STR },
	[PS_MARK] = { "", NULL, 0, COL_STR, 2 },
	[PS_OFFSET] = { "offset", "offset", 5, COL_UINT, 6 },
	[PS_FIELD_SHORT] = { "field", NULL, 0, COL_STR, -28 },
	[PS_FIELD] = { NULL, "field", 0, COL_STR },
	[PS_RW] = { "rw", NULL, 6, COL_STR, -5 },
	[PS_WRITE] = { NULL, "write", 0, COL_BOOL },
	[PS_CPU_CHANGE] = { NULL, "cpu_change", 0, COL_BOOL },
	[PS_CHANGE_WORD] = { NULL, NULL, 7, COL_STR },
	[PS_SAMPLES] = { "samples", "samples", 8, COL_UINT, 7 },
	[PS_MISSES] = { NULL, "misses", 0, COL_UINT },
	[PS_INSN] = { "instruction", "instruction", 9, COL_STR, 0, 2 },
};

/* A path: its --script "path" line and its JSON object (before steps). */
enum {
	PP_NAME, PP_RANK, PP_COUNT, PP_OF, PP_SHARE, PP_LO, PP_HI, PP_STEPS,
	PP_CHANGES, PP_OFFSETS, PP_LIFETIME, PP_ALLOC, PP_FREE,
	PP_FREE_OTHER, PP_N
};

static const struct column path_cols[PP_N] = {
	[PP_NAME] = { NULL, NULL, 1, COL_STR },
	[PP_RANK] = { NULL, NULL, 2, COL_UINT },
	[PP_COUNT] = { NULL, "histories", 3, COL_UINT },
	[PP_OF] = { NULL, "of_histories", 0, COL_UINT },
	[PP_SHARE] = { NULL, "share", 0, COL_DOUBLE },
	[PP_LO] = { NULL, "share_lo95", 0, COL_DOUBLE },
	[PP_HI] = { NULL, "share_hi95", 0, COL_DOUBLE },
	[PP_STEPS] = { NULL, NULL, 4, COL_UINT },
	[PP_CHANGES] = { NULL, NULL, 5, COL_UINT },
	[PP_OFFSETS] = { NULL, "offsets", 6, COL_LIST },
	[PP_LIFETIME] = { NULL, "lifetime_mean_ns", 0, COL_DOUBLE },
	[PP_ALLOC] = { NULL, "allocated_by", 0, COL_STR },
	[PP_FREE] = { NULL, "freed_by", 0, COL_STR },
	[PP_FREE_OTHER] = { NULL, "freed_on_other_cpu", 0, COL_BOOL },
};

/* The table of @c's output mode over @cols; @tag names --script lines. */
static struct table ctx_table(const struct ctx *c, struct json *j,
			      const struct column *cols, int nr,
			      const char *tag)
{
	struct table t = {
		.cols = cols, .nr_cols = nr, .out = c->out, .j = j,
		.tag = tag, .indent = "    ",
		.mode = c->o->a.view.json ? TABLE_JSON :
			c->o->a.view.script ? TABLE_SCRIPT : TABLE_TEXT,
	};

	return t;
}

static void path_steps(struct ctx *c, struct json *j, const struct path *p,
		       size_t rank)
{
	struct table tab = ctx_table(c, j, step_cols, PS_N, "step");
	const char *name = c->r->targets[p->target].name;
	char b[160], f[2048], fs[2048], ns[32];

	table_header(&tab);
	for (size_t i = 0; i < p->nr_steps; i++) {
		const struct path_step *s = &p->steps[i];
		double mean = s->time_sum_ns / (double)p->count;
		struct cell cells[PS_N] = {
			[PS_NAME] = { .s = name },
			[PS_RANK] = { .u = rank },
			[PS_INDEX] = { .u = i },
			[PS_TIME_US] = { .d = mean / 1e3 },
			[PS_TIME_MEAN] = { .d = mean },
			[PS_TIME_NS] = { .s = ns },
			[PS_MARK] = { .s = s->cpu_change ? "->" : "" },
			[PS_OFFSET] = { .u = s->offset },
			[PS_FIELD_SHORT] = {
				.s = view_field_short(c->layouts[p->target],
						      s->offset, p->len, fs,
						      sizeof(fs)) },
			[PS_FIELD] = { .s = view_field(c->layouts[p->target],
						       s->offset, p->len, f,
						       sizeof(f)) },
			[PS_RW] = { .s = s->write ? "write" : "read" },
			[PS_WRITE] = { .u = s->write },
			[PS_CPU_CHANGE] = { .u = s->cpu_change },
			[PS_CHANGE_WORD] = {
				.s = s->cpu_change ? "change" : "same" },
			[PS_SAMPLES] = { .u = s->samples },
			[PS_MISSES] = { .u = s->misses },
			[PS_INSN] = { .s = ksyms_format(&c->syms, s->ip, b,
							sizeof(b)) },
		};

		snprintf(ns, sizeof(ns), "%.0f", mean);
		table_row(&tab, cells);
	}
}

/* A path: text header and steps, --script lines, or a JSON object. */
static void emit_path(struct ctx *c, struct json *j, const struct path *p,
		      size_t rank)
{
	const struct path_target *pt = &c->ps->t[p->target];
	struct table tab = ctx_table(c, j, path_cols, PP_N, "path");
	size_t n = pt->histories;
	char a[160], b[160], offs[64];
	double lo, hi;
	struct cell cells[PP_N] = {
		[PP_NAME] = { .s = c->r->targets[p->target].name },
		[PP_RANK] = { .u = rank },
		[PP_COUNT] = { .u = p->count },
		[PP_OF] = { .u = n },
		[PP_SHARE] = { .d = n ? (double)p->count / (double)n : 0 },
		[PP_STEPS] = { .u = p->nr_steps },
		[PP_CHANGES] = { .u = cpu_changes(p) },
		[PP_OFFSETS] = { .list = p->offset, .n = p->nr_offsets },
		[PP_LIFETIME] = { .d = p->lifetime_sum_ns / (double)p->count },
		[PP_ALLOC] = { .s = ksyms_format(&c->syms, p->alloc_site, a,
						 sizeof(a)) },
		[PP_FREE] = { .s = ksyms_format(&c->syms, p->free_site, b,
						sizeof(b)) },
		[PP_FREE_OTHER] = { .u = p->free_cpu_change },
	};

	diff_wilson((double)p->count, (double)n, &lo, &hi);
	cells[PP_LO].d = lo;
	cells[PP_HI].d = hi;
	if (tab.mode != TABLE_TEXT) {
		table_row_open(&tab, cells);
		if (tab.mode == TABLE_JSON)
			json_array_begin(j, "steps");
		path_steps(c, j, p, rank);
		if (tab.mode == TABLE_JSON)
			json_array_end(j);
		table_row_close(&tab);
		return;
	}
	fprintf(c->out, "\n  path %zu: %llu of %zu histories (%.1f%%, 95%% %.1f-%.1f), offsets %s, %zu steps, %zu CPU change%s, lifetime %.1f us mean\n",
		rank, (unsigned long long)p->count, n,
		100.0 * (double)p->count / (double)n, 100 * lo, 100 * hi,
		offsets_format(p->offset, p->nr_offsets, offs, sizeof(offs)),
		p->nr_steps,
		cpu_changes(p), cpu_changes(p) == 1 ? "" : "s",
		p->lifetime_sum_ns / (double)p->count / 1e3);
	fprintf(c->out, "    allocated by %s\n", a);
	path_steps(c, j, p, rank);
	fprintf(c->out, "    %s freed by %s\n", p->free_cpu_change ? "->" : "  ",
		b);
}

static const char *cpu_word(enum combined_cpu cpu)
{
	return cpu == COMBINED_CPU_CHANGE ? "change" :
	       cpu == COMBINED_CPU_SAME ? "same" : "unknown";
}

static const char *cpu_mark(enum combined_cpu cpu)
{
	return cpu == COMBINED_CPU_CHANGE ? "->" :
	       cpu == COMBINED_CPU_SAME ? "" : "?";
}

/* A combined trace's steps, as a path's (above) with their own words. */
enum {
	CS_NAME, CS_RANK, CS_INDEX, CS_TIME_US, CS_TIME_MEAN, CS_TIME_NS,
	CS_MARK, CS_OFFSET, CS_FIELD_SHORT, CS_FIELD, CS_RW, CS_WRITE,
	CS_CPU, CS_BY_TIME, CS_ORDER_WORD, CS_HISTORIES, CS_SAMPLES,
	CS_MISSES, CS_INSN, CS_N
};

static const struct column cstep_cols[CS_N] = {
	[CS_NAME] = { NULL, NULL, 1, COL_STR },
	[CS_RANK] = { NULL, NULL, 2, COL_UINT },
	[CS_INDEX] = { NULL, NULL, 3, COL_UINT },
	[CS_TIME_US] = { "time_us", NULL, 0, COL_DOUBLE, 10, 0, 0, 2 },
	[CS_TIME_MEAN] = { NULL, "time_mean_ns", 0, COL_DOUBLE },
	[CS_TIME_NS] = { NULL, NULL, 4, COL_STR },
	[CS_MARK] = { "", NULL, 0, COL_STR, 3 },
	[CS_OFFSET] = { "offset", "offset", 5, COL_UINT, 6 },
	[CS_FIELD_SHORT] = { "field", NULL, 0, COL_STR, -28 },
	[CS_FIELD] = { NULL, "field", 0, COL_STR },
	[CS_RW] = { "rw", NULL, 6, COL_STR, -5 },
	[CS_WRITE] = { NULL, "write", 0, COL_BOOL },
	[CS_CPU] = { NULL, "cpu", 7, COL_STR },
	[CS_BY_TIME] = { NULL, "placed_by_time", 0, COL_BOOL },
	[CS_ORDER_WORD] = { NULL, NULL, 8, COL_STR },
	[CS_HISTORIES] = { NULL, "histories", 0, COL_UINT },
	[CS_SAMPLES] = { "samples", "samples", 9, COL_UINT, 7 },
	[CS_MISSES] = { NULL, "misses", 0, COL_UINT },
	[CS_INSN] = { "instruction", "instruction", 10, COL_STR, 0, 2 },
};

/* A combined trace: its --script line and its JSON object. */
enum {
	CT_NAME, CT_RANK, CT_HISTORIES, CT_PATHS, CT_PATHS_OTHER,
	CT_HISTORIES_OTHER, CT_STEPS, CT_CHANGES_S, CT_OFFSETS, CT_PAIRS,
	CT_PAIRS_WATCHED, CT_BY_TIME, CT_WEIGHT, CT_BROKEN, CT_CHANGES,
	CT_ALLOC, CT_FREE, CT_FREE_CPU, CT_N
};

static const struct column trace_cols[CT_N] = {
	[CT_NAME] = { NULL, NULL, 1, COL_STR },
	[CT_RANK] = { NULL, NULL, 2, COL_UINT },
	[CT_HISTORIES] = { NULL, "histories", 3, COL_UINT },
	[CT_PATHS] = { NULL, "paths", 0, COL_UINT },
	[CT_PATHS_OTHER] = { NULL, "paths_left_out", 12, COL_UINT },
	[CT_HISTORIES_OTHER] = { NULL, "histories_left_out", 0, COL_UINT },
	[CT_STEPS] = { NULL, NULL, 4, COL_UINT },
	[CT_CHANGES_S] = { NULL, NULL, 5, COL_UINT },
	[CT_OFFSETS] = { NULL, "offsets", 6, COL_LIST },
	[CT_PAIRS] = { NULL, "offset_pairs", 8, COL_UINT },
	[CT_PAIRS_WATCHED] = { NULL, "offset_pairs_watched", 7, COL_UINT },
	[CT_BY_TIME] = { NULL, "steps_by_time", 9, COL_UINT },
	[CT_WEIGHT] = { NULL, "order_weight", 11, COL_UINT },
	[CT_BROKEN] = { NULL, "order_broken", 10, COL_UINT },
	[CT_CHANGES] = { NULL, "cpu_changes", 0, COL_UINT },
	[CT_ALLOC] = { NULL, "allocated_by", 0, COL_STR },
	[CT_FREE] = { NULL, "freed_by", 0, COL_STR },
	[CT_FREE_CPU] = { NULL, "free_cpu", 0, COL_STR },
};

static void combined_steps(struct ctx *c, struct json *j,
			   const struct combined_trace *t, size_t rank)
{
	struct table tab = ctx_table(c, j, cstep_cols, CS_N, "cstep");
	const char *name = c->r->targets[t->target].name;
	char b[160], f[2048], fs[256], ns[32], mark[4];

	table_header(&tab);
	for (size_t i = 0; i < t->nr_steps; i++) {
		const struct combined_step *s = &t->steps[i];
		struct cell cells[CS_N] = {
			[CS_NAME] = { .s = name },
			[CS_RANK] = { .u = rank },
			[CS_INDEX] = { .u = i },
			[CS_TIME_US] = { .d = s->time_mean_ns / 1e3 },
			[CS_TIME_MEAN] = { .d = s->time_mean_ns },
			[CS_TIME_NS] = { .s = ns },
			[CS_MARK] = { .s = mark },
			[CS_OFFSET] = { .u = s->offset },
			[CS_FIELD_SHORT] = {
				.s = view_field_short(c->layouts[t->target],
						      s->offset, t->len, fs,
						      sizeof(fs)) },
			[CS_FIELD] = { .s = view_field(c->layouts[t->target],
						       s->offset, t->len, f,
						       sizeof(f)) },
			[CS_RW] = { .s = s->write ? "write" : "read" },
			[CS_WRITE] = { .u = s->write },
			[CS_CPU] = { .s = cpu_word(s->cpu) },
			[CS_BY_TIME] = { .u = s->by_time },
			[CS_ORDER_WORD] = {
				.s = s->by_time ? "by-time" : "ordered" },
			[CS_HISTORIES] = { .u = s->histories },
			[CS_SAMPLES] = { .u = s->samples },
			[CS_MISSES] = { .u = s->misses },
			[CS_INSN] = { .s = ksyms_format(&c->syms, s->ip, b,
							sizeof(b)) },
		};

		snprintf(mark, sizeof(mark), "%s%s", cpu_mark(s->cpu),
			 s->by_time ? "~" : "");
		snprintf(ns, sizeof(ns), "%.0f", s->time_mean_ns);
		table_row(&tab, cells);
	}
}

/* A combined trace: text, --script lines, or a JSON object. */
static void emit_trace(struct ctx *c, struct json *j,
		       const struct combined_trace *t, size_t rank)
{
	struct table tab = ctx_table(c, j, trace_cols, CT_N, "combined");
	char a[160], b[160], offs[512];
	struct cell cells[CT_N] = {
		[CT_NAME] = { .s = c->r->targets[t->target].name },
		[CT_RANK] = { .u = rank },
		[CT_HISTORIES] = { .u = t->histories_used },
		[CT_PATHS] = { .u = t->paths_used },
		[CT_PATHS_OTHER] = { .u = t->paths_other },
		[CT_HISTORIES_OTHER] = { .u = t->histories_other },
		[CT_STEPS] = { .u = t->nr_steps },
		[CT_CHANGES_S] = { .u = t->cpu_changes },
		[CT_OFFSETS] = { .list = t->offsets, .n = (int)t->nr_offsets },
		[CT_PAIRS] = { .u = t->pairs },
		[CT_PAIRS_WATCHED] = { .u = t->pairs_watched },
		[CT_BY_TIME] = { .u = t->by_time },
		[CT_WEIGHT] = { .u = t->order_weight },
		[CT_BROKEN] = { .u = t->order_broken },
		[CT_CHANGES] = { .u = t->cpu_changes },
		[CT_ALLOC] = { .s = ksyms_format(&c->syms, t->alloc_site, a,
						 sizeof(a)) },
		[CT_FREE] = { .s = ksyms_format(&c->syms, t->free_site, b,
						sizeof(b)) },
		[CT_FREE_CPU] = { .s = cpu_word(t->free_cpu) },
	};

	if (tab.mode != TABLE_TEXT) {
		table_row_open(&tab, cells);
		if (tab.mode == TABLE_JSON)
			json_array_begin(j, "steps");
		combined_steps(c, j, t, rank);
		if (tab.mode == TABLE_JSON)
			json_array_end(j);
		table_row_close(&tab);
		return;
	}
	fprintf(c->out, "\n  combined trace %zu: %llu histories in %zu paths, offsets %s\n",
		rank, (unsigned long long)t->histories_used, t->paths_used,
		offsets_format(t->offsets, (int)t->nr_offsets, offs,
			       sizeof(offs)));
	fprintf(c->out, "    allocated by %s\n", a);
	fprintf(c->out, "    order: %zu of %zu offset pairs watched together, %zu step%s placed by time (~), %llu of %llu histories' orderings broken\n",
		t->pairs_watched, t->pairs, t->by_time,
		t->by_time == 1 ? "" : "s",
		(unsigned long long)t->order_broken,
		(unsigned long long)t->order_weight);
	if (t->paths_other)
		fprintf(c->out, "    left out: %zu path%s (%llu histories) whose accesses to an offset differ from the rest\n",
			t->paths_other, t->paths_other == 1 ? "" : "s",
			(unsigned long long)t->histories_other);
	fprintf(c->out, "    %zu steps, %zu CPU change%s\n", t->nr_steps,
		t->cpu_changes, t->cpu_changes == 1 ? "" : "s");
	combined_steps(c, j, t, rank);
	fprintf(c->out, "    %3s freed by %s\n", cpu_mark(t->free_cpu), b);
}

/* The combined traces of target @t, most histories first. */
static void emit_combined(struct ctx *c, struct json *j, size_t t)
{
	size_t rank = 0;

	for (size_t i = 0; i < c->cs->n; i++) {
		const struct combined_trace *ct = &c->cs->c[i];

		if ((size_t)ct->target != t)
			continue;
		if (c->o->top && rank >= (size_t)c->o->top)
			break;
		rank++;
		emit_trace(c, j, ct, rank);
	}
	if (!rank && !c->o->a.view.json && !c->o->a.view.script)
		fprintf(c->out, "  no combined trace: no family of paths watched two offsets or more\n");
}

static void emit(struct ctx *c)
{
	struct json j;
	size_t rank = 0;
	int cur = -1;

	if (c->o->a.view.json) {
		json_init(&j, c->out);
		json_object_begin(&j, NULL);
		json_array_begin(&j, "types");
	}
	for (size_t t = 0; t < c->r->nr_targets; t++) {
		const struct path_target *pt = &c->ps->t[t];

		if (c->o->a.target && strcmp(c->o->a.target, c->r->targets[t].name))
			continue;
		if (c->o->a.view.json) {
			json_object_begin(&j, NULL);
			json_string(&j, "cache", c->r->targets[t].name);
			json_uint(&j, "histories", pt->histories);
			json_uint(&j, "histories_not_used", pt->skipped);
			json_uint(&j, "unique_paths", pt->nr_paths);
			json_uint(&j, "new_paths_in_last_20_percent",
				  paths_new_in_tail(pt, 0.2));
			/* The growth, as the text's "unique paths after". */
			json_array_begin(&j, "unique_paths_after");
			for (int k = 1; k <= 10 && pt->histories; k++) {
				size_t i = (pt->histories * k + 9) / 10;

				json_object_begin(&j, NULL);
				json_uint(&j, "histories",
					  pt->growth[i - 1].histories);
				json_uint(&j, "paths", pt->growth[i - 1].paths);
				json_object_end(&j);
			}
			json_array_end(&j);
			view_coverage_json(&j, &c->cover, t);
			json_array_begin(&j, c->o->combined ? "combined" :
							      "paths");
		} else if (!c->o->a.view.script) {
			if (t)
				fputc('\n', c->out);
			type_header(c, t);
		}
		if (c->o->combined) {
			emit_combined(c, &j, t);
			goto type_end;
		}
		for (size_t i = 0; i < c->ps->n; i++) {
			const struct path *p = &c->ps->p[i];

			if ((size_t)p->target != t)
				continue;
			if (p->target != cur) {
				cur = p->target;
				rank = 0;
			}
			if (c->o->top && rank >= (size_t)c->o->top)
				continue;
			rank++;
			emit_path(c, &j, p, rank);
		}
type_end:
		if (c->o->a.view.json) {
			json_array_end(&j);
			json_object_end(&j);
		}
	}
	if (c->o->a.view.json) {
		json_array_end(&j);
		json_object_end(&j);
		json_finish(&j);
	}
}

int cmd_paths(int argc, char **argv)
{
	struct paths_opts o;
	struct history_set hs;
	struct path_set ps;
	struct combined_set cs;
	struct recording r;
	struct ctx c;
	FILE *out;
	int ret;

	memset(&o, 0, sizeof(o));
	ret = parse_opts(argc, argv, &o);
	if (ret)
		goto out_map;
	ret = view_open(&o.a.view, &r, &out, "paths");
	if (ret)
		goto out_map;
	view_sample_note(&r, "paths");
	if (o.a.target && view_target(&r, "paths", &o.a.target) < 0) {
		view_close(out, &o.a.view);
		recording_free(&r);
		ret = EXIT_USAGE;
		goto out_map;
	}
	histories_build(&hs, &r);
	paths_build(&ps, &r, &hs);
	memset(&cs, 0, sizeof(cs));
	if (o.combined)
		combine_build(&cs, &ps);
	memset(&c, 0, sizeof(c));
	c.out = out;
	c.r = &r;
	c.ps = &ps;
	c.cs = &cs;
	c.o = &o;
	c.layouts = view_layouts(&r, &o.a.map);
	ksyms_load(&c.syms, r.kallsyms);
	/* Two: the fewest that give an interval. */
	coverage_build(&c.cover, &r, &hs, 2);
	emit(&c);
	coverage_free(&c.cover);
	ret = view_close(out, &o.a.view);
	view_layouts_free(c.layouts, r.nr_targets);
	ksyms_free(&c.syms);
	combine_free(&cs);
	paths_free(&ps);
	histories_free(&hs);
	recording_free(&r);
out_map:
	type_map_free(&o.a.map);
	return ret;
}

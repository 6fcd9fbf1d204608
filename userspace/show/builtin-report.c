// SPDX-License-Identifier: GPL-2.0
/*
 * dprof-view report: where to look first.  Every profiled type ranked by
 * its share of misses (sampled accesses with the watch sampler), like the
 * thesis' Table 6.1: type, struct, working set, objects older than the
 * module, share with its error, bounce.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "builtin.h"
#include "columns.h"
#include "datasyms.h"
#include "json.h"
#include "report.h"
#include "options.h"
#include "util.h"
#include "view.h"

struct report_opts {
	struct view_args a;
	long top;
	int all;
	int by_share;
};

enum { OPT_BY_SHARE = OPT_LONG };

static const struct opt report_own[] = {
	{ 'n', "top", "N", 0,
	  "the first N types (default: every sampled one)" },
	{ 'a', "all", NULL, 0,
	  "also the types nothing was sampled in" },
	{ OPT_BY_SHARE, "by-share", NULL, 0,
	  "rank by share alone, the shares on one sampled unit among the rest" },
	OPT_END,
};

static int report_option(void *ctx, int key, const char *arg)
{
	struct report_opts *o = ctx;

	if (key == 'a') {
		o->all = 1;
	} else if (key == OPT_BY_SHARE) {
		o->by_share = 1;
	} else if (key == 'n') {
		return opts_count("report", "top", arg, 1, &o->top);
	} else {
		return EXIT_USAGE;
	}
	return 0;
}

static const struct command_opts report_cmd = {
	.cmd = "report",
	.synopsis =
	"usage: dprof-view report [--json] [-o FILE] [-n N] [-a] [--by-share] [--type CACHE=STRUCT]... [RECORDING]\n"
	"\n"
	"Every profiled type (slab cache) ranked by its share of all misses, or\n"
	"of all sampled accesses with the operand or watch sampler (no IBS/PEBS,\n"
	"e.g. in a VM: misses are not measured, the share is of accesses).  Load\n"
	"dprof.ko with target=all to rank every cache of the kernel: its default\n"
	"there is IBS, else PEBS, else the operand sampler (the memory operand of\n"
	"the instruction a timer tick stops before: accesses sampled by time at\n"
	"interruptible points, no allocation hook); sampler=watch, history=1 or\n"
	"track_one_in= take the watch sampler and its hooks.  Columns:\n"
	"  share     of the ranked figure over all types, with its 95% interval\n"
	"            (binomial on samples; with the watch sampler, dprof.ko's\n"
	"            estimate from the kinds of sample window, each on its own\n"
	"            scale: on old objects not in use, samples per window times\n"
	"            the type's such objects; on old objects in use (seen in the\n"
	"            CPUs' registers), weighed by their draw, times its old\n"
	"            objects; on objects picked at allocation (windows, or\n"
	"            histories as lives), samples per life times the type's\n"
	"            allocations (under target=all every one, counted by\n"
	"            cache); the error from the windows, the independent draws;\n"
	"            the scales are counts; (no window): sampled by\n"
	"            histories only; <P%: no window saw an access, P the 95%\n"
	"            upper bound; a kind of window with one window takes the\n"
	"            spread of that kind's windows on every type, pooled; ±?:\n"
	"            one window and no pool, or no window sampled anything, or\n"
	"            no module profile (then the share is of the recorded\n"
	"            samples))\n"
	"  unseen    with the watch sampler: the part of a type's accesses its\n"
	"            kinds of window (old, in use, young) that opened but took\n"
	"            no sample could hold, 95% (the rule of three per kind); the\n"
	"            share leaves it out, so its upper end is\n"
	"            (p + h) / (1 - u + (p + h) u) (--json share_hi95)\n"
	"  units     with the watch sampler, the windows and lives behind the\n"
	"            share that took a sample; a share on one is one draw, its\n"
	"            interval borrowed from its kind's pool: it ranks after the\n"
	"            shares on two or more (--by-share: among them)\n"
	"  ws        working set at the end: live objects (older ones included)\n"
	"            times the object size, scaled by track_one_in\n"
	"  older     objects live before dprof.ko was loaded (its load-time scan)\n"
	"  bounce    share of the recorded frees made on another CPU than the\n"
	"            allocating one, ± its 95% interval over n, the distinct\n"
	"            addresses (the lives of one address are not independent:\n"
	"            a loop reusing an object, a sample following the same\n"
	"            addresses); no ± with fewer than 2\n"
	"  struct    the type's struct (-: unknown, (by-site): kmalloc, named per\n"
	"            allocation site by profile -t)\n"
	"Samples outside the profiled live objects: in other slab objects\n"
	"(caches beyond the limit, objects whose liveness was not established)\n"
	"or not in slab memory; with data types, ranked below by symbol: var,\n"
	"var[module], var(percpu), [stack], [user], [unnamed].\n"
	"Then narrow down: dprof-view profile -t CACHE, classify CACHE, flow CACHE.\n",
	.sets = OPTS_JSON | OPTS_TYPES,
	.own = report_own,
	.handle = report_option,
};

static bool shown(const struct report_opts *o, const struct report *rep,
		  size_t i)
{
	if (o->top && (long)i >= o->top)
		return false;
	return o->all || rep->types[i].t->samples;
}

static void bytes_text(uint64_t b, char *buf, size_t len)
{
	if (b >= 10ull << 20)
		snprintf(buf, len, "%lluM", (unsigned long long)(b >> 20));
	else if (b >= 10ull << 10)
		snprintf(buf, len, "%lluK", (unsigned long long)(b >> 10));
	else
		snprintf(buf, len, "%llu", (unsigned long long)b);
}

/* One word, so that the columns split on blanks: "sk_buff", "-". */
static const char *struct_text(const struct profile_type *t)
{
	const char *s = t->struct_name;

	if (!s)
		return t->kmalloc ? "(by-site)" : "-";
	return strncmp(s, "struct ", 7) ? s : s + 7;
}

/*
 * The ranking: one row per type, the text table's columns and the JSON
 * object's keys from one list (the columns without a head are JSON's
 * only, those without a key the text's).
 */
enum {
	RC_RANK, RC_CACHE, RC_KIND, RC_STRUCT, RC_OBJSIZE, RC_WS_TEXT,
	RC_OLDER_TEXT, RC_SAMPLES, RC_MISSES, RC_SHARE, RC_SHARE_ERR,
	RC_SHARE_UPPER, RC_UNSEEN, RC_UNITS, RC_SHARE_HI, RC_WINDOWS, RC_OLDER, RC_OLDER_TRACKED, RC_ALLOCS,
	RC_FREES, RC_LIVE_END, RC_WS_BYTES, RC_BOUNCE, RC_BOUNCE_ERR,
	RC_BOUNCE_ADDRS, RC_N
};

static const struct column type_cols[RC_N] = {
	[RC_RANK] = { "rank", "rank", 0, COL_UINT, 4 },
	[RC_CACHE] = { "type", "cache", 0, COL_STR, -26, 2 },
	[RC_KIND] = { NULL, "kind", 0, COL_STR },
	[RC_STRUCT] = { "struct", "struct", 0, COL_STR, -24 },
	[RC_OBJSIZE] = { NULL, "object_size", 0, COL_UINT },
	[RC_WS_TEXT] = { "ws", NULL, 0, COL_STR, 8 },
	[RC_OLDER_TEXT] = { "older", NULL, 0, COL_UINT, 8 },
	[RC_SAMPLES] = { "samples", "samples", 0, COL_UINT, 10 },
	[RC_MISSES] = { NULL, "misses", 0, COL_UINT },
	[RC_SHARE] = { "share", "share", 0, COL_DOUBLE, 16 },
	[RC_SHARE_ERR] = { NULL, "share_err95", 0, COL_DOUBLE },
	[RC_SHARE_UPPER] = { NULL, "share_upper95", 0, COL_DOUBLE },
	/* The part its empty kinds of window could hold; the share's top. */
	[RC_UNSEEN] = { "unseen", "unseen95", 0, COL_DOUBLE, 7 },
	/* The units behind a window share that took a sample. */
	[RC_UNITS] = { "units", "sampled_units", 0, COL_UINT, 6 },
	[RC_SHARE_HI] = { NULL, "share_hi95", 0, COL_DOUBLE },
	[RC_WINDOWS] = { NULL, "windows", 0, COL_UINT },
	[RC_OLDER] = { NULL, "older", 0, COL_UINT },
	[RC_OLDER_TRACKED] = { NULL, "older_tracked", 0, COL_UINT },
	[RC_ALLOCS] = { NULL, "allocs", 0, COL_UINT },
	[RC_FREES] = { NULL, "frees", 0, COL_UINT },
	[RC_LIVE_END] = { NULL, "live_end", 0, COL_UINT },
	[RC_WS_BYTES] = { NULL, "ws_bytes", 0, COL_UINT },
	[RC_BOUNCE] = { "bounce", "bounce", 0, COL_DOUBLE, 16 },
	[RC_BOUNCE_ERR] = { NULL, "bounce_err95", 0, COL_DOUBLE },
	[RC_BOUNCE_ADDRS] = { NULL, "bounce_addresses", 0, COL_UINT },
};

/* The share as the text shows it: with its interval, bound or reason. */
static void share_text(const struct report_type *t, char *buf, size_t len)
{
	if (t->no_share)
		snprintf(buf, len, "(variable)");
	else if (t->no_window)
		snprintf(buf, len, "(no window)");
	else if (t->share_upper >= 0)
		snprintf(buf, len, "<%.1f%%", 100 * t->share_upper);
	else if (t->share_err >= 0)
		snprintf(buf, len, "%5.1f%% ±%4.1f", 100 * t->share,
			 100 * t->share_err);
	else	/* shares of samples that are not independent draws */
		snprintf(buf, len, "%5.1f%% ±?", 100 * t->share);
}

static void bounce_text(const struct report_type *t, char *buf, size_t len)
{
	if (t->bounce >= 0 && t->bounce_err >= 0)
		snprintf(buf, len, "%.0f%% ±%.0f n=%llu", 100 * t->bounce,
			 100 * t->bounce_err,
			 (unsigned long long)t->bounce_addrs);
	else if (t->bounce >= 0)
		snprintf(buf, len, "%.0f%% n=%llu", 100 * t->bounce,
			 (unsigned long long)t->bounce_addrs);
	else
		snprintf(buf, len, "?");
}

static void type_row(const struct table *tab, const struct report *rep,
		     size_t i)
{
	const struct report_type *t = &rep->types[i];
	char ws[32], share[48], bounce[48], unseen[16];
	struct cell c[RC_N] = {
		[RC_RANK] = { .u = i + 1 },
		[RC_CACHE] = { .s = t->t->cache },
		[RC_KIND] = { .s = t->t->data ?
				   data_region_name(t->t->region) :
				   t->t->variable ? "variable" : "slab" },
		[RC_STRUCT] = { .s = t->t->struct_name,
				.null = !t->t->struct_name,
				.text = struct_text(t->t) },
		[RC_OBJSIZE] = { .u = t->t->object_size },
		[RC_WS_TEXT] = { .s = ws },
		[RC_OLDER_TEXT] = { .u = t->older },
		[RC_SAMPLES] = { .u = t->t->samples },
		[RC_MISSES] = { .u = t->t->misses },
		[RC_SHARE] = { .d = t->share, .text = share,
			       .null = t->no_share || t->no_window },
		[RC_SHARE_ERR] = { .d = t->share_err,
				   .null = t->share_err < 0 },
		[RC_SHARE_UPPER] = { .d = t->share_upper,
				     .null = t->share_upper < 0 },
		[RC_UNSEEN] = { .d = t->unseen, .text = unseen,
				.null = !t->window_share },
		[RC_UNITS] = { .u = t->units, .null = !t->window_share },
		[RC_SHARE_HI] = { .d = t->share_hi,
				  .null = t->share_hi < 0 },
		[RC_WINDOWS] = { .u = t->windows },
		[RC_OLDER] = { .u = t->older },
		[RC_OLDER_TRACKED] = { .u = t->older_tracked },
		[RC_ALLOCS] = { .u = t->allocs },
		[RC_FREES] = { .u = t->frees },
		[RC_LIVE_END] = { .u = t->live_end },
		[RC_WS_BYTES] = { .u = t->ws_bytes },
		[RC_BOUNCE] = { .d = t->bounce, .text = bounce,
				.null = t->bounce < 0 },
		[RC_BOUNCE_ERR] = { .d = t->bounce_err,
				    .null = t->bounce_err < 0 },
		[RC_BOUNCE_ADDRS] = { .u = t->bounce_addrs },
	};

	bytes_text(t->ws_bytes, ws, sizeof(ws));
	share_text(t, share, sizeof(share));
	bounce_text(t, bounce, sizeof(bounce));
	if (t->unseen > 0)
		snprintf(unseen, sizeof(unseen), "<=%.*f%%",
			 t->unseen < 0.01 ? 1 : 0, 100 * t->unseen);
	else
		snprintf(unseen, sizeof(unseen), "-");
	table_row(tab, c);
}

static void report_text(FILE *out, const struct report_opts *o,
			const struct report *rep)
{
	const struct profile *p = &rep->profile;
	const char *what = p->misses_measured ? "misses" : "sampled accesses";
	struct table tab = {
		.cols = type_cols, .nr_cols = RC_N, .mode = TABLE_TEXT,
		.out = out,
	};
	size_t sampled = 0;
	bool thin_shown = false;

	for (size_t i = 0; i < rep->nr_types; i++)
		sampled += !!rep->types[i].t->samples;
	fprintf(out, "# dprof report: %zu of %zu types sampled%s, ranked by share of %s\n",
		sampled, rep->nr_types, rep->all ? " (target=all)" : "", what);
	if (!p->misses_measured)
		fprintf(out, "# sampler %s: misses are not measured here; shares are of accesses (estimate misses with classify/workingset)\n",
			p->sampler);
	if (rep->track_one_in > 1)
		fprintf(out, "# objects followed up to 1 in %u per cache (track_one_in): ws and object counts are scaled estimates\n",
			rep->track_one_in);
	if (rep->module_samples)
		fprintf(out, "# outside profiled live objects: %llu of %llu samples in other slab objects, %llu not in slab memory%s\n",
			(unsigned long long)rep->other_slab,
			(unsigned long long)rep->module_samples,
			(unsigned long long)rep->not_slab,
			rep->data_types ? " (ranked below by symbol)" : "");
	if (rep->thin_types)
		fprintf(out, "# units: %zu type%s with a share on one window or life, %s\n",
			rep->thin_types, rep->thin_types == 1 ? "" : "s",
			rep->by_share_alone ?
			"ranked among the others (--by-share)" :
			"ranked after the others (--by-share: by share alone)");
	table_header(&tab);
	for (size_t i = 0; i < rep->nr_types; i++) {
		const struct report_type *t = &rep->types[i];

		if (!shown(o, rep, i))
			continue;
		if (!rep->by_share_alone && !thin_shown &&
		    report_type_thin(t)) {
			fprintf(out, "# on one sampled unit:\n");
			thin_shown = true;
		}
		type_row(&tab, rep, i);
	}
}

static void report_json(FILE *out, const struct report_opts *o,
			const struct report *rep)
{
	const struct profile *p = &rep->profile;
	struct json j;
	struct table tab = {
		.cols = type_cols, .nr_cols = RC_N, .mode = TABLE_JSON,
		.out = out, .j = &j,
	};

	json_init(&j, out);
	json_object_begin(&j, NULL);
	json_string(&j, "sampler", p->sampler);
	json_bool(&j, "misses_measured", p->misses_measured);
	json_bool(&j, "target_all", rep->all);
	json_uint(&j, "track_one_in", rep->track_one_in);
	json_uint(&j, "weight", rep->weight);
	json_uint(&j, "module_samples", rep->module_samples);
	json_uint(&j, "other_slab_samples", rep->other_slab);
	json_uint(&j, "not_slab_samples", rep->not_slab);
	/* Whether the shares on one sampled unit rank after the others. */
	json_bool(&j, "thin_ranked_after", !rep->by_share_alone);
	json_array_begin(&j, "types");
	for (size_t i = 0; i < rep->nr_types; i++)
		if (shown(o, rep, i))
			type_row(&tab, rep, i);
	json_array_end(&j);
	json_object_end(&j);
	json_finish(&j);
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o;
	struct recording r;
	struct report rep;
	FILE *out;
	int ret;

	memset(&o, 0, sizeof(o));
	ret = opts_parse_view(&report_cmd, &o, argc, argv, &o.a);
	if (ret)
		goto out_map;
	ret = view_open(&o.a.view, &r, &out, "report");
	if (ret)
		goto out_map;
	report_build(&r, &o.a.map, &rep);
	if (o.by_share)
		report_rank_by_share(&rep);
	if (o.a.view.json)
		report_json(out, &o, &rep);
	else
		report_text(out, &o, &rep);
	ret = view_close(out, &o.a.view);
	report_free(&rep);
	recording_free(&r);
out_map:
	type_map_free(&o.a.map);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * dprof-view profile: the data profile of a recording (thesis 4.1), types
 * by misses (or, with the watch sampler, by sampled accesses), then each
 * type's fields pahole-style, grouped by cache line.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "builtin.h"
#include "columns.h"
#include "classify.h"
#include "datasyms.h"
#include "heatmap.h"
#include "histories.h"
#include "json.h"
#include "ksyms.h"
#include "profile.h"
#include "options.h"
#include "util.h"
#include "view.h"
#include "diffstat.h"
#include "winshare.h"

struct profile_opts {
	struct view_args a;
	int kernel;
	const char *svg;
};

/* --script's help, its words from the columns (script_help_fill()). */
static char script_help[1024];

static const struct opt profile_own[] = {
	{ 's', "script", NULL, 0, script_help },
	{ 't', "target", "CACHE", 0,
	  "only this cache (or variable, as listed:\n"
	  "runqueues(percpu), [stack], ...)" },
	{ 'k', "kernel", NULL, 0,
	  "print the profile as dprof.ko printed it at\n"
	  "the end of the recording (its debugfs\n"
	  "\"profile\" file) instead" },
	{ 'S', "svg", "FILE", 0,
	  "instead, each profiled type's cache lines as a\n"
	  "heat map: one row per 64-byte line, fields as\n"
	  "boxes as wide as their bytes, shaded by misses\n"
	  "(watch: sampled accesses), outlined where the\n"
	  "histories' miss classification labels them true\n"
	  "or false sharing (see classify --help)" },
	OPT_END,
};

static int profile_option(void *ctx, int key, const char *arg)
{
	struct profile_opts *o = ctx;

	if (key == 'k')
		o->kernel = 1;
	else if (key == 'S')
		o->svg = arg;
	else
		return EXIT_USAGE;
	return 0;
}

static const struct command_opts profile_cmd = {
	.cmd = "profile",
	.synopsis =
	"usage: dprof-view profile [--json|--script|--svg FILE] [-o FILE] [-t CACHE] [--type CACHE=STRUCT]... [RECORDING]\n"
	"\n"
	"The data profile: one line per profiled type (slab cache) with its\n"
	"samples, misses, share of all misses, average miss latency (over the\n"
	"misses of loads: the hardware gives stores none) and bounce (objects\n"
	"freed on another CPU than the one that allocated them); then\n"
	"per type every sampled field, named from the recording's BTF, in\n"
	"offset order with cache-line boundaries, and the function that\n"
	"touched it most.  With the watch sampler (no IBS/PEBS, e.g. in a VM)\n"
	"misses are not measured: types and fields are ranked by sampled\n"
	"accesses and the miss columns say est.; with the operand sampler (the\n"
	"memory operand of the instruction a timer tick interrupted) misses are\n"
	"not measured either and say -.  Samples in no slab\n"
	"object are types too, named from kallsyms: var, var[module],\n"
	"var(percpu), [stack], [user], [unnamed].\n"
	"\n"
	"A kmalloc cache holds many types.  Where dprof.ko followed its objects\n"
	"(the cache named, or track_one_in= with target=all) and the sampler\n"
	"gives addresses (operand, IBS, PEBS), \"samples by allocation site\"\n"
	"splits the samples on followed objects by the call site that\n"
	"allocated each (its last allocation before the sample): share, 95%\n"
	"interval over the objects (lives), samples, objects, site.  The\n"
	"objects followed are chosen by address, blind to the site.\n",
	.sets = OPTS_JSON | OPTS_SCRIPT | OPTS_TARGET | OPTS_TYPES,
	.own = profile_own,
	.handle = profile_option,
};

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* The figure types and fields are ranked and shared by. */
static uint64_t weight(const struct profile *p, uint64_t samples,
		       uint64_t misses)
{
	return p->misses_measured ? misses : samples;
}

static void bounce_text(const struct profile_type *t, char *buf, size_t len)
{
	if (!t->matched_frees)
		snprintf(buf, len, "?");
	else if (t->bounce_err >= 0)
		snprintf(buf, len, "%s (%llu/%llu freed remote, %.0f%% ±%.0f, n=%llu addresses)",
			 t->remote_frees ? "yes" : "no",
			 (unsigned long long)t->remote_frees,
			 (unsigned long long)t->matched_frees,
			 100.0 * t->remote_frees / t->matched_frees,
			 100 * t->bounce_err,
			 (unsigned long long)t->bounce_addrs);
	else
		snprintf(buf, len, "%s (%llu/%llu freed remote, n=%llu address)",
			 t->remote_frees ? "yes" : "no",
			 (unsigned long long)t->remote_frees,
			 (unsigned long long)t->matched_frees,
			 (unsigned long long)t->bounce_addrs);
}

static void header_text(FILE *out, const struct profile *p,
			const struct winshare *ws)
{
	if (p->misses_measured)
		fprintf(out, "sampler: %s; types and fields by sampled L1 misses; a field's share has a 95%% Wilson interval over n, the type's samples\n",
			p->sampler);
	else if (!strcmp(p->sampler, "watch"))
		fprintf(out, "sampler: watch (debug registers; no IBS/PEBS where this was recorded): misses are not measured, types and fields are ranked by sampled accesses (est.)\n");
	else if (!strcmp(p->sampler, "operand"))
		fprintf(out, "sampler: operand (the memory operand at a timer tick, interruptible points only): accesses, not misses; shares of samples\n");
	else
		fprintf(out, "sampler: %s: no samples were taken\n", p->sampler);
	if (!strcmp(p->sampler, "watch") && ws->windows)
		fprintf(out, "field shares: samples per window that watched the field, over %llu windows (%llu left out: CPUs changed); n: windows, the units\n",
			(unsigned long long)ws->windows,
			(unsigned long long)ws->left_out);
	else if (!strcmp(p->sampler, "watch") && ws->lives)
		fprintf(out, "field shares: samples per life that watched the field, over %zu complete histories; n: lives, the units\n",
			ws->lives);
	else if (!strcmp(p->sampler, "watch"))
		fprintf(out, "field shares: of the samples, without an interval (no sample windows and no complete histories)\n");
}

/*
 * A slot over many bitfields names dozens of them: keep whole names up to
 * @width characters, then say how many more ("|+31 more"; --json has all).
 */
static const char *short_name(const char *name, char *buf, size_t width)
{
	size_t n = strlen(name), cut = 0, more = 0;

	if (n <= width || width + 16 > 512)
		return name;
	for (size_t i = 0; i < n; i++)
		if (name[i] == '|') {
			/* room for "|+NN more" within @width */
			if (i + 9 <= width)
				cut = i;
			else
				more++;
		}
	if (!cut) {
		/* The first alternative alone is too long: keep its end. */
		size_t first = strcspn(name, "|"), keep;

		more = 0;
		for (size_t i = first; i < n; i++)
			more += name[i] == '|';
		keep = width - (more ? 9 : 0) - 2;
		if (first <= keep)
			keep = first;
		snprintf(buf, 512, "..%.*s%s", (int)keep, name + first - keep,
			 more ? "|+" : "");
		if (more)
			snprintf(buf + strlen(buf), 512 - strlen(buf), "%zu more",
				 more);
		return buf;
	}
	more++;		/* the alternative the cut starts */
	for (size_t i = cut + 1; i + 9 <= width && i < n; i++)
		more -= name[i] == '|';
	snprintf(buf, 512, "%.*s|+%zu more", (int)cut, name, more);
	return buf;
}

/* The struct, or for a kmalloc cache the function allocating most. */
static const char *type_name(const struct profile_type *t,
			     const struct ksyms *syms, char *buf, size_t len)
{
	const struct ksym *s;

	if (t->struct_name)
		return t->struct_name;
	if (!t->kmalloc || !t->sites[0].allocs)
		return "-";
	s = ksyms_find(syms, t->sites[0].call_site);
	snprintf(buf, len, "by %s %.0f%%", s ? s->name : "?",
		 pct(t->sites[0].allocs, t->allocs));
	return buf;
}

/*
 * A type's row and a field's row, in the text tables, --script lines
 * ("type ..." and "field CACHE ...", tab-separated: a module's function
 * is "name+0x10 [module]") and JSON objects alike.
 */
enum {
	TC_CACHE, TC_KIND, TC_STRUCT, TC_UNNAMED, TC_SIZE, TC_SAMPLES,
	TC_LOADS, TC_STORES, TC_MISSES, TC_SHARE, TC_SHARE_HALF, TC_LATENCY,
	TC_BOUNCE, TC_FREES, TC_REMOTE_FREES, NR_TYPE_COLS
};

static const struct column type_cols[NR_TYPE_COLS] = {
	[TC_CACHE] = { "type", "cache", 1, COL_STR, -24 },
	[TC_KIND] = { NULL, "kind", 2, COL_STR },
	[TC_STRUCT] = { "struct", "struct", 3, COL_STR, -26 },
	[TC_UNNAMED] = { NULL, "unnamed_why", 0, COL_STR },
	[TC_SIZE] = { NULL, "object_size", 4, COL_UINT },
	[TC_SAMPLES] = { "samples", "samples", 5, COL_UINT, 9 },
	[TC_LOADS] = { NULL, "loads", 6, COL_UINT },
	[TC_STORES] = { NULL, "stores", 7, COL_UINT },
	[TC_MISSES] = { "misses", "misses", 8, COL_UINT, 8 },
	[TC_SHARE] = { "share", "share", 9, COL_DOUBLE, 6 },
	/*
	 * Its 95% half-width over the samples where each is drawn on its
	 * own (IBS, PEBS, operand: Wilson); "-" for the watch sampler,
	 * whose type estimate is report's.
	 */
	[TC_SHARE_HALF] = { "±95%", "share_half95", 13, COL_DOUBLE, 6 },
	[TC_LATENCY] = { "avg_lat", "avg_latency", 10, COL_DOUBLE, 7 },
	[TC_BOUNCE] = { "bounce", NULL, 0, COL_STR, 0, 2 },
	[TC_FREES] = { NULL, "frees_matched", 11, COL_UINT },
	[TC_REMOTE_FREES] = { NULL, "frees_on_other_cpu", 12, COL_UINT },
};

enum {
	FC_CACHE, FC_OFFSET, FC_SIZE, FC_LINE, FC_FIELD, FC_SAMPLES, FC_SHARE,
	FC_SHARE_HALF, FC_UNITS, FC_LOADS, FC_STORES, FC_MISSES, FC_LATENCY,
	FC_TOP, FC_LO, FC_HI, NR_FIELD_COLS
};

static const struct column field_cols[NR_FIELD_COLS] = {
	[FC_CACHE] = { NULL, NULL, 1, COL_STR, .name = "cache" },
	[FC_OFFSET] = { "offset", "offset", 2, COL_UINT, 6 },
	[FC_SIZE] = { "size", "size", 3, COL_UINT, 5 },
	[FC_LINE] = { NULL, "cache_line", 4, COL_UINT },
	[FC_FIELD] = { "field", "field", 5, COL_STR, -40, 2 },
	[FC_SAMPLES] = { "samples", "samples", 6, COL_UINT, 9 },
	[FC_SHARE] = { "share", "share", 7, COL_DOUBLE, 6 },
	/*
	 * Its 95% half-width, in percentage points, and the independent
	 * units behind it: sample windows (watch), samples (IBS, PEBS).
	 */
	[FC_SHARE_HALF] = { "±95%", "share_half95", 13, COL_DOUBLE, 6 },
	[FC_UNITS] = { "n", "share_units", 14, COL_UINT, 6 },
	[FC_LOADS] = { "loads", "loads", 8, COL_UINT, 8 },
	[FC_STORES] = { "stores", "stores", 9, COL_UINT, 8 },
	[FC_MISSES] = { "misses", "misses", 10, COL_UINT, 8 },
	[FC_LATENCY] = { "avg_lat", "avg_latency", 11, COL_DOUBLE, 7 },
	[FC_TOP] = { "top function", "top_function", 12, COL_STR, 0, 2 },
	/*
	 * The 95% interval's ends, in percent: share -+ half, widened
	 * where kinds of window that saw nothing leave part of the type
	 * unseen (winshare.h); the text shows them as -lower+upper then.
	 */
	[FC_LO] = { NULL, "share_lo95", 15, COL_DOUBLE },
	[FC_HI] = { NULL, "share_hi95", 16, COL_DOUBLE },
};

/* The --script lines' words as JSON names them: one description. */
static void script_help_fill(void)
{
	snprintf(script_help, sizeof(script_help),
		 "tab-separated lines, every type's then every\n"
		 "field's (a value not known is -; shares and\n"
		 "half-widths in percent):\n");
	table_script_help(script_help, sizeof(script_help), "type",
			  type_cols, NR_TYPE_COLS, 48);
	strncat(script_help, "\n",
		sizeof(script_help) - strlen(script_help) - 1);
	table_script_help(script_help, sizeof(script_help), "field",
			  field_cols, NR_FIELD_COLS, 48);
}

/* Text the cells point into. */
struct profile_texts {
	char share[16], half[16], latency[32], name[512], sym[160];
	char bounce[96], type_name[160], fit[32], type_half[16], top[48];
};

#define TOP_WIDTH 36		/* the top function's text: 160 columns */

/* "function+0xoff" within TOP_WIDTH: the name's middle gives way. */
static const char *top_text(const char *sym, char *buf, size_t len)
{
	const char *plus = strrchr(sym, '+');
	size_t n = strlen(sym), tail = plus ? n - (size_t)(plus - sym) : 0;

	if (n <= TOP_WIDTH || tail + 12 > TOP_WIDTH)
		return sym;
	snprintf(buf, len, "%.*s..%s", (int)(TOP_WIDTH - tail - 2), sym,
		 sym + n - tail);
	return buf;
}

/*
 * Misses are measured or not (then null, "est."); the average latency is
 * over the misses that carry one (loads: stores have none), else absent.
 */
static void misses_cells(struct cell *misses, struct cell *latency,
			 const struct profile *p, uint64_t n,
			 uint64_t latency_sum, uint64_t lat_misses,
			 struct profile_texts *x)
{
	misses->u = n;
	if (!p->misses_measured) {
		misses->null = true;
		/* operand samples accesses: there is no estimate of misses */
		misses->text = strcmp(p->sampler, "operand") ? "est." : "-";
	}
	if (p->misses_measured && lat_misses) {
		latency->d = (double)latency_sum / (double)lat_misses;
		snprintf(x->latency, sizeof(x->latency), "%.0f", latency->d);
		latency->text = x->latency;
	} else {
		latency->absent = true;
	}
}

static void share_cell(struct cell *c, double share,
		       struct profile_texts *x)
{
	c->d = share;
	snprintf(x->share, sizeof(x->share), "%.1f%%", share);
	c->text = x->share;
}

static void type_cells(struct cell *c, struct profile_texts *x,
		       const struct profile *p, const struct profile_type *t,
		       const struct ksyms *syms)
{
	memset(c, 0, NR_TYPE_COLS * sizeof(*c));
	c[TC_CACHE].s = t->cache;
	c[TC_KIND].s = t->data ? data_region_name(t->region) :
		       t->variable ? "variable" : "slab";
	c[TC_STRUCT].s = t->struct_name;
	c[TC_STRUCT].absent = !t->struct_name;
	snprintf(x->fit, sizeof(x->fit), "%.26s",
		 type_name(t, syms, x->type_name, sizeof(x->type_name)));
	c[TC_STRUCT].text = x->fit;
	c[TC_UNNAMED].s = t->no_names_why;
	c[TC_UNNAMED].absent = !!t->struct_name;
	c[TC_SIZE].u = t->object_size;
	c[TC_SAMPLES].u = t->samples;
	c[TC_LOADS].u = t->loads;
	c[TC_STORES].u = t->stores;
	misses_cells(&c[TC_MISSES], &c[TC_LATENCY], p, t->misses,
		     t->latency_sum, t->lat_misses, x);
	share_cell(&c[TC_SHARE], pct(weight(p, t->samples, t->misses),
				     weight(p, p->samples, p->misses)), x);
	if (p->misses_measured || !strcmp(p->sampler, "operand")) {
		double lo, hi;

		diff_wilson((double)weight(p, t->samples, t->misses),
			    (double)weight(p, p->samples, p->misses), &lo, &hi);
		c[TC_SHARE_HALF].d = 50 * (hi - lo);
		snprintf(x->type_half, sizeof(x->type_half), "±%.1f",
			 c[TC_SHARE_HALF].d);
		c[TC_SHARE_HALF].text = x->type_half;
	} else {
		c[TC_SHARE_HALF].null = true;
	}
	bounce_text(t, x->bounce, sizeof(x->bounce));
	c[TC_BOUNCE].s = x->bounce;
	c[TC_FREES].u = t->matched_frees;
	c[TC_REMOTE_FREES].u = t->remote_frees;
}

/*
 * A field's share and its interval.  With sample windows, the share of
 * the type's samples per window that watched it (winshare.h), the windows
 * its units; with hardware samples, its share of the type's samples with
 * a Wilson interval, the samples its units; else no interval.
 */
static void field_share(struct cell *c, struct profile_texts *x,
			const struct profile *p, const struct profile_type *t,
			const struct profile_field *f,
			const struct winshare *ws)
{
	struct winshare_est e;
	uint64_t part = weight(p, f->samples, f->misses);
	uint64_t whole = weight(p, t->samples, t->misses);
	double lo, hi;

	c[FC_SHARE_HALF].null = true;
	c[FC_SHARE_HALF].text = "±?";
	c[FC_UNITS].null = true;
	c[FC_LO].null = true;
	c[FC_HI].null = true;
	if (ws && !t->data &&
	    (ws->windows || (ws->lives && !strcmp(p->sampler, "watch"))) &&
	    winshare_field(ws, t->target, f->offset, f->offset + f->size,
			   &e)) {
		share_cell(&c[FC_SHARE], 100 * e.share, x);
		c[FC_UNITS].null = false;
		c[FC_UNITS].u = e.windows;
		if (e.half >= 0) {
			c[FC_SHARE_HALF].null = false;
			c[FC_SHARE_HALF].d = 100 * e.half;
			c[FC_LO].null = c[FC_HI].null = false;
			c[FC_LO].d = 100 * e.lo;
			c[FC_HI].d = 100 * e.hi;
			if (e.unseen > 0)
				snprintf(x->half, sizeof(x->half),
					 "-%.1f+%.1f", 100 * (e.share - e.lo),
					 100 * (e.hi - e.share));
			else
				snprintf(x->half, sizeof(x->half), "±%.1f",
					 100 * e.half);
			c[FC_SHARE_HALF].text = x->half;
		}
		return;
	}
	share_cell(&c[FC_SHARE], pct(part, whole), x);
	if (strcmp(p->sampler, "watch") && whole) {
		diff_wilson((double)part, (double)whole, &lo, &hi);
		c[FC_UNITS].null = false;
		c[FC_UNITS].u = whole;
		c[FC_SHARE_HALF].null = false;
		c[FC_SHARE_HALF].d = 100 * (hi - lo) / 2;
		snprintf(x->half, sizeof(x->half), "±%.1f",
			 c[FC_SHARE_HALF].d);
		c[FC_SHARE_HALF].text = x->half;
		c[FC_LO].null = c[FC_HI].null = false;
		c[FC_LO].d = 100 * lo;
		c[FC_HI].d = 100 * hi;
	}
}

static void field_cells(struct cell *c, struct profile_texts *x,
			const struct profile *p, const struct profile_type *t,
			const struct profile_field *f,
			const struct ksyms *syms, const struct winshare *ws)
{
	memset(c, 0, NR_FIELD_COLS * sizeof(*c));
	c[FC_CACHE].s = t->cache;
	c[FC_OFFSET].u = f->offset;
	c[FC_SIZE].u = f->size;
	c[FC_LINE].u = f->offset / PROFILE_LINE;
	c[FC_FIELD].s = f->name;
	c[FC_FIELD].text = short_name(f->name, x->name, 40);
	c[FC_SAMPLES].u = f->samples;
	field_share(c, x, p, t, f, ws);
	c[FC_LOADS].u = f->loads;
	c[FC_STORES].u = f->stores;
	misses_cells(&c[FC_MISSES], &c[FC_LATENCY], p, f->misses,
		     f->latency_sum, f->lat_misses, x);
	c[FC_TOP].absent = !f->top_ip;
	if (f->top_ip) {
		c[FC_TOP].s = ksyms_format(syms, f->top_ip, x->sym,
					   sizeof(x->sym));
		c[FC_TOP].text = top_text(c[FC_TOP].s, x->top, sizeof(x->top));
	}
}

/*
 * The offsets the history plan of @t watched (histories and sample
 * windows) that no sampled field covers, ascending, at most @max: shown,
 * not left out.  None for a recording without plans or a type without one.
 */
static size_t unsampled(const struct recording *r,
			const struct profile_type *t, uint16_t *out,
			size_t max)
{
	size_t n = 0;

	if (t->data || t->target == UINT32_MAX)
		return 0;
	for (size_t i = 0; i < r->nr_plans; i++) {
		const struct dprof_plan_item *e = &r->plans[i];

		if (e->target != t->target)
			continue;
		for (int k = 0; k < e->nr_offsets &&
		     k < DPROF_HIST_MAX_OFFSETS; k++) {
			uint32_t lo = e->offset[k], hi = lo + e->len;
			bool covered = false;
			size_t at;

			for (size_t f = 0; f < t->nr_fields && !covered; f++) {
				const struct profile_field *pf = &t->fields[f];
				uint32_t end = pf->offset + (pf->size ?
							     pf->size : 1);

				covered = pf->samples && pf->offset < hi &&
					  end > lo;
			}
			if (covered)
				continue;
			/* Insert sorted, once. */
			for (at = 0; at < n && out[at] < lo; at++)
				;
			if ((at < n && out[at] == lo) || n == max)
				continue;
			memmove(out + at + 1, out + at, (n - at) * sizeof(*out));
			out[at] = (uint16_t)lo;
			n++;
		}
	}
	return n;
}

#define UNSAMPLED_MAX 4096

/* "  watched, no sample: 72, 224" under a type's fields. */
static void unsampled_text(FILE *out, const struct recording *r,
			   const struct profile_type *t)
{
	uint16_t *offs = xcalloc(UNSAMPLED_MAX, sizeof(*offs));
	size_t n = unsampled(r, t, offs, UNSAMPLED_MAX);

	if (n) {
		fprintf(out, "  watched by the plan, no sample (n 0) at %zu offset%s:",
			n, n == 1 ? "" : "s");
		for (size_t i = 0; i < n && i < 32; i++)
			fprintf(out, " %u", offs[i]);
		fprintf(out, "%s\n", n > 32 ? " ..." : "");
	}
	free(offs);
}

static void unsampled_json(struct json *j, const struct recording *r,
			   const struct profile_type *t)
{
	uint16_t *offs = xcalloc(UNSAMPLED_MAX, sizeof(*offs));
	size_t n = unsampled(r, t, offs, UNSAMPLED_MAX);

	if (!r->nr_plans) {
		json_null(j, "watched_not_sampled");
	} else {
		json_array_begin(j, "watched_not_sampled");
		for (size_t i = 0; i < n; i++)
			json_uint(j, NULL, offs[i]);
		json_array_end(j);
	}
	free(offs);
}

/*
 * kmalloc: the samples on followed objects by allocation site, one line
 * each (sitesplit.h): share of the matched samples, its 95 % half-width,
 * and the objects (lives) behind it, the interval's units.
 */
static void by_site_text(FILE *out, const struct profile_type *t,
			 const struct ksyms *syms)
{
	const struct site_split *s = &t->by_site;
	char sym[160], half[16];

	if (!s->records)
		return;
	fprintf(out, "  samples by allocation site: %llu of %llu on followed objects, %llu objects\n",
		(unsigned long long)s->matched,
		(unsigned long long)s->records,
		(unsigned long long)s->lives);
	for (size_t k = 0; k < s->nr_sites && k < PROFILE_SITES; k++) {
		const struct site_share *o = &s->sites[k];

		if (o->half < 0)
			snprintf(half, sizeof(half), "±?");
		else
			snprintf(half, sizeof(half), "±%.1f", 100 * o->half);
		fprintf(out, "    %5.1f%% %-6s %7llu samples %6llu objects  %s\n",
			100 * o->share, half,
			(unsigned long long)o->samples,
			(unsigned long long)o->lives,
			ksyms_format(syms, o->call_site, sym, sizeof(sym)));
	}
	if (s->nr_sites > PROFILE_SITES)
		fprintf(out, "    %zu more sites\n", s->nr_sites - PROFILE_SITES);
}

static void by_site_json(struct json *j, const struct profile_type *t,
			 const struct ksyms *syms)
{
	const struct site_split *s = &t->by_site;
	char sym[160];

	json_object_begin(j, "samples_by_site");
	json_uint(j, "site_records", s->records);
	json_uint(j, "matched", s->matched);
	json_uint(j, "objects", s->lives);
	json_array_begin(j, "sites");
	for (size_t k = 0; k < s->nr_sites; k++) {
		const struct site_share *o = &s->sites[k];

		json_object_begin(j, NULL);
		json_string(j, "call_site", ksyms_format(syms, o->call_site,
							 sym, sizeof(sym)));
		json_uint(j, "samples", o->samples);
		json_uint(j, "objects", o->lives);
		json_double(j, "share", o->share);
		if (o->half < 0)
			json_null(j, "half_width");
		else
			json_double(j, "half_width", o->half);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

/* Text: a type's heading, then its fields pahole-style by cache line. */
static void type_text(FILE *out, const struct recording *r,
		      const struct profile *p, const struct profile_type *t,
		      const struct ksyms *syms, const struct winshare *ws)
{
	const struct table tab = { .cols = field_cols,
				   .nr_cols = NR_FIELD_COLS,
				   .mode = TABLE_TEXT, .out = out,
				   .indent = "  " };
	struct cell cells[NR_FIELD_COLS];
	struct profile_texts x;
	char sym[160];
	long line = -1;

	fprintf(out, "\n%s: %s, %u bytes (%u cache lines)\n", t->cache,
		t->struct_name ? t->struct_name : "fields unnamed",
		t->object_size,
		(t->object_size + PROFILE_LINE - 1) / PROFILE_LINE);
	if (!t->struct_name)
		fprintf(out, "  (%s)\n", t->no_names_why);
	if (t->kmalloc && t->allocs) {
		fprintf(out, "  allocated by:");
		for (int k = 0; k < PROFILE_SITES && t->sites[k].allocs; k++)
			fprintf(out, "%s %s %.1f%%", k ? "," : "",
				ksyms_format(syms, t->sites[k].call_site, sym,
					     sizeof(sym)),
				pct(t->sites[k].allocs, t->allocs));
		fprintf(out, " of %llu allocations\n",
			(unsigned long long)t->allocs);
	}
	by_site_text(out, t, syms);
	if (ws && t->target < ws->nr_targets &&
	    ws->t[t->target].unseen > 0)
		fprintf(out, "  unseen: its kinds of window that took no sample could hold up to %.1f%% of its accesses (95%%), on any field: the intervals below allow for it (-lower+upper)\n",
			100 * ws->t[t->target].unseen);
	if (!t->nr_fields) {
		fprintf(out, "  no samples\n");
		unsampled_text(out, r, t);
		return;
	}
	table_header(&tab);
	for (size_t i = 0; i < t->nr_fields; i++) {
		const struct profile_field *f = &t->fields[i];

		if ((long)(f->offset / PROFILE_LINE) != line) {
			line = f->offset / PROFILE_LINE;
			fprintf(out, "  --- cache line %ld (bytes %ld-%ld) ---\n",
				line, line * PROFILE_LINE,
				(line + 1) * PROFILE_LINE - 1);
		}
		field_cells(cells, &x, p, t, f, syms, ws);
		table_row(&tab, cells);
	}
	unsampled_text(out, r, t);
}

static bool shown(const struct profile_type *t, const char *target)
{
	return !target || !strcmp(target, t->cache);
}

static void profile_text(FILE *out, const struct recording *r,
			 const struct profile *p, const char *target,
			 const struct ksyms *syms, const struct winshare *ws)
{
	const struct table tab = { .cols = type_cols, .nr_cols = NR_TYPE_COLS,
				   .mode = TABLE_TEXT, .out = out };
	struct cell cells[NR_TYPE_COLS];
	struct profile_texts x;

	header_text(out, p, ws);
	fputc('\n', out);
	table_header(&tab);
	for (size_t i = 0; i < p->nr_types; i++)
		if (shown(&p->types[i], target)) {
			type_cells(cells, &x, p, &p->types[i], syms);
			table_row(&tab, cells);
		}
	for (size_t i = 0; i < p->nr_types; i++)
		if (shown(&p->types[i], target))
			type_text(out, r, p, &p->types[i], syms, ws);
}

/* --script: every type's line, then every field's. */
static void profile_script(FILE *out, const struct profile *p,
			   const char *target, const struct ksyms *syms,
			   const struct winshare *ws)
{
	const struct table types = { .cols = type_cols,
				     .nr_cols = NR_TYPE_COLS,
				     .mode = TABLE_SCRIPT, .out = out,
				     .tag = "type", .sep = "\t" };
	const struct table fields = { .cols = field_cols,
				      .nr_cols = NR_FIELD_COLS,
				      .mode = TABLE_SCRIPT, .out = out,
				      .tag = "field", .sep = "\t" };
	struct cell tc[NR_TYPE_COLS], fc[NR_FIELD_COLS];
	struct profile_texts x;

	for (size_t i = 0; i < p->nr_types; i++)
		if (shown(&p->types[i], target)) {
			type_cells(tc, &x, p, &p->types[i], syms);
			table_row(&types, tc);
		}
	for (size_t i = 0; i < p->nr_types; i++) {
		const struct profile_type *t = &p->types[i];

		if (!shown(t, target))
			continue;
		for (size_t k = 0; k < t->nr_fields; k++) {
			field_cells(fc, &x, p, t, &t->fields[k], syms, ws);
			table_row(&fields, fc);
		}
	}
}

static void profile_json(FILE *out, const struct recording *r,
			 const struct profile *p, const char *target,
			 const struct ksyms *syms, const struct winshare *ws)
{
	struct json j;
	const struct table types = { .cols = type_cols,
				     .nr_cols = NR_TYPE_COLS,
				     .mode = TABLE_JSON, .out = out, .j = &j };
	const struct table fields = { .cols = field_cols,
				      .nr_cols = NR_FIELD_COLS,
				      .mode = TABLE_JSON, .out = out, .j = &j };
	struct cell tc[NR_TYPE_COLS], fc[NR_FIELD_COLS];
	struct profile_texts x;
	char sym[160];

	json_init(&j, out);
	json_object_begin(&j, NULL);
	json_string(&j, "sampler", p->sampler);
	json_bool(&j, "misses_measured", p->misses_measured);
	json_uint(&j, "samples", p->samples);
	json_uint(&j, "misses", p->misses);
	json_array_begin(&j, "types");
	for (size_t i = 0; i < p->nr_types; i++) {
		const struct profile_type *t = &p->types[i];

		if (!shown(t, target))
			continue;
		type_cells(tc, &x, p, t, syms);
		table_row_open(&types, tc);
		if (t->kmalloc) {
			json_array_begin(&j, "allocation_sites");
			for (int k = 0; k < PROFILE_SITES && t->sites[k].allocs;
			     k++) {
				json_object_begin(&j, NULL);
				json_string(&j, "call_site",
					    ksyms_format(syms,
							 t->sites[k].call_site,
							 sym, sizeof(sym)));
				json_uint(&j, "allocations", t->sites[k].allocs);
				json_object_end(&j);
			}
			json_array_end(&j);
			by_site_json(&j, t, syms);
		}
		json_array_begin(&j, "fields");
		for (size_t k = 0; k < t->nr_fields; k++) {
			field_cells(fc, &x, p, t, &t->fields[k], syms, ws);
			table_row(&fields, fc);
		}
		json_array_end(&j);
		unsampled_json(&j, r, t);
		table_row_close(&types);
	}
	json_array_end(&j);
	json_object_end(&j);
	json_finish(&j);
}

/*
 * Whether @name is one of the types made of samples in no slab object
 * ("runqueues(percpu)", "[stack]"), which -t takes by their full name.
 */
static bool data_type_named(const struct profile *p, const char *name)
{
	for (size_t i = 0; i < p->nr_types; i++)
		if (p->types[i].data && !strcmp(p->types[i].cache, name))
			return true;
	return false;
}

/*
 * The heat map of every slab type with samples (or of -t's), with the
 * sharing labels of the recording's histories.
 */
static int profile_svg(const struct profile_opts *o, const struct recording *r,
		       const struct profile *p)
{
	struct layout **layouts = view_layouts(r, &o->a.map);
	struct heat_type *h = xcalloc(p->nr_types + 1, sizeof(*h));
	struct history_set hs;
	struct classify c;
	size_t n = 0, labelled = 0;
	FILE *svg;
	int ret = EXIT_OK;

	histories_build(&hs, r);
	classify_build(&c, &hs);
	for (size_t i = 0; i < p->nr_types; i++) {
		const struct profile_type *t = &p->types[i];
		size_t ti;

		if (o->a.target ? strcmp(o->a.target, t->cache) : !t->samples)
			continue;
		for (ti = 0; ti < r->nr_targets; ti++)
			if (r->targets[ti].index == t->target && !t->data)
				break;
		if (ti == r->nr_targets || !t->object_size)
			continue;	/* no slab object to draw */
		heat_build(p, t, layouts[ti], &c, (int)ti, &h[n]);
		labelled += h[n++].labelled;
	}
	if (!n) {
		errmsg("profile: --svg: %s has no sampled slab type%s%s to draw",
		       o->a.view.input, o->a.target ? " named " : "",
		       o->a.target ? o->a.target : "");
		ret = EXIT_USAGE;
	} else if (!(svg = fopen(o->svg, "w"))) {
		errmsg("profile: cannot write %s: %s", o->svg, strerror(errno));
		ret = EXIT_FAIL;
	} else {
		heat_write_svg(svg, p, h, n);
		if (fclose(svg)) {
			errmsg("profile: writing %s: %s", o->svg,
			       strerror(errno));
			ret = EXIT_FAIL;
		} else {
			printf("svg: %s: %zu types, %zu boxes outlined by a label (from %llu complete histories)\n",
			       o->svg, n, labelled,
			       (unsigned long long)c.histories);
		}
	}
	for (size_t i = 0; i < n; i++)
		heat_free(&h[i]);
	free(h);
	classify_free(&c);
	histories_free(&hs);
	view_layouts_free(layouts, r->nr_targets);
	return ret;
}

int cmd_profile(int argc, char **argv)
{
	struct profile_opts o;
	struct recording r;
	struct profile p;
	struct ksyms syms;
	struct winshare ws;
	struct history_set hs;
	FILE *out;
	int ret;

	memset(&o, 0, sizeof(o));
	script_help_fill();
	ret = opts_parse_view(&profile_cmd, &o, argc, argv, &o.a);
	if (ret)
		goto out_map;
	ret = view_open(&o.a.view, &r, &out, "profile");
	if (ret)
		goto out_map;
	if (o.kernel) {
		if (o.a.target && view_target(&r, "profile", &o.a.target) < 0) {
			view_close(out, &o.a.view);
			recording_free(&r);
			ret = EXIT_USAGE;
			goto out_map;
		}
		if (!r.profile_text) {
			errmsg("profile: %s holds no profile from dprof.ko (recorded without a sampler?)",
			       o.a.view.input);
			view_close(out, &o.a.view);
			recording_free(&r);
			ret = EXIT_USAGE;
			goto out_map;
		}
		fputs(r.profile_text, out);
		ret = view_close(out, &o.a.view);
		recording_free(&r);
		goto out_map;
	}
	profile_build(&r, &o.a.map, &p);
	/* A variable or bucket of samples in no slab object, or a cache. */
	if (o.a.target && !data_type_named(&p, o.a.target) &&
	    view_target(&r, "profile", &o.a.target) < 0) {
		view_close(out, &o.a.view);
		profile_free(&p);
		recording_free(&r);
		ret = EXIT_USAGE;
		goto out_map;
	}
	if (o.svg) {
		ret = profile_svg(&o, &r, &p);
		view_close(out, &o.a.view);
		profile_free(&p);
		recording_free(&r);
		goto out_map;
	}
	ksyms_load(&syms, r.kallsyms);
	/* The lives' units (winshare.h). */
	histories_build(&hs, &r);
	winshare_build(&ws, &r, &hs);
	if (o.a.view.json)
		profile_json(out, &r, &p, o.a.target, &syms, &ws);
	else if (o.a.view.script)
		profile_script(out, &p, o.a.target, &syms, &ws);
	else
		profile_text(out, &r, &p, o.a.target, &syms, &ws);
	ret = view_close(out, &o.a.view);
	ksyms_free(&syms);
	winshare_free(&ws);
	histories_free(&hs);
	profile_free(&p);
	recording_free(&r);
out_map:
	type_map_free(&o.a.map);
	return ret;
}

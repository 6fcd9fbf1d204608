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

struct profile_opts {
	struct view_args a;
	int kernel;
	const char *svg;
};

static const struct opt profile_own[] = {
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
	"usage: dprof-view profile [--json|--svg FILE] [-o FILE] [-t CACHE] [--type CACHE=STRUCT]... [RECORDING]\n"
	"\n"
	"The data profile: one line per profiled type (slab cache) with its\n"
	"samples, misses, share of all misses, average miss latency (over the\n"
	"misses of loads: the hardware gives stores none) and bounce (objects\n"
	"freed on another CPU than the one that allocated them); then\n"
	"per type every sampled field, named from the recording's BTF, in\n"
	"offset order with cache-line boundaries, and the function that\n"
	"touched it most.  With the watch sampler (no IBS/PEBS, e.g. in a VM)\n"
	"misses are not measured: types and fields are ranked by sampled\n"
	"accesses and the miss columns say est.  IBS/PEBS samples in no slab\n"
	"object are types too, named from kallsyms: var, var[module],\n"
	"var(percpu), [stack], [user], [unnamed].\n",
	.sets = OPTS_JSON | OPTS_TARGET | OPTS_TYPES,
	.own = profile_own,
	.handle = profile_option,
};

static int parse_opts(int argc, char **argv, struct profile_opts *o)
{
	struct command_opts c = profile_cmd;

	c.ctx = o;
	return opts_parse_view(&c, argc, argv, &o->a);
}

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

/* The misses, and the average latency over those that carry one. */
static void misses_text(const struct profile *p, uint64_t misses,
			uint64_t latency_sum, uint64_t lat_misses, char *m,
			size_t mlen, char *lat, size_t llen)
{
	if (!p->misses_measured) {
		snprintf(m, mlen, "est.");
		snprintf(lat, llen, "-");
		return;
	}
	snprintf(m, mlen, "%llu", (unsigned long long)misses);
	if (lat_misses)
		snprintf(lat, llen, "%.0f", (double)latency_sum / lat_misses);
	else
		snprintf(lat, llen, "-");
}

static void bounce_text(const struct profile_type *t, char *buf, size_t len)
{
	if (!t->matched_frees)
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%s (%llu of %llu freed on another CPU)",
			 t->remote_frees ? "yes" : "no",
			 (unsigned long long)t->remote_frees,
			 (unsigned long long)t->matched_frees);
}

static void header_text(FILE *out, const struct profile *p)
{
	if (p->misses_measured)
		fprintf(out, "sampler: %s; types and fields by sampled L1 misses\n",
			p->sampler);
	else if (!strcmp(p->sampler, "watch"))
		fprintf(out, "sampler: watch (debug registers; no IBS/PEBS where this was recorded): misses are not measured, types and fields are ranked by sampled accesses (est.)\n");
	else
		fprintf(out, "sampler: %s: no samples were taken\n", p->sampler);
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
			if (i <= width)
				cut = i;
			else
				more++;
		}
	if (!cut)
		return name;
	more++;		/* the alternative the cut starts */
	for (size_t i = cut + 1; i <= width && i < n; i++)
		more -= name[i] == '|';
	snprintf(buf, 512, "%.*s|+%zu more", (int)cut, name, more);
	return buf;
}

static void type_text(FILE *out, const struct profile *p,
		      const struct profile_type *t, const struct ksyms *syms)
{
	char m[32], lat[32], sym[160], nbuf[512];
	uint64_t tw = weight(p, t->samples, t->misses);
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
	if (!t->nr_fields) {
		fprintf(out, "  no samples\n");
		return;
	}
	fprintf(out, "  %6s %5s  %-32s %9s %6s %8s %8s %8s %7s  %s\n",
		"offset", "size", "field", "samples", "share", "loads",
		"stores", "misses", "avg_lat", "top function");
	for (size_t i = 0; i < t->nr_fields; i++) {
		const struct profile_field *f = &t->fields[i];

		if ((long)(f->offset / PROFILE_LINE) != line) {
			line = f->offset / PROFILE_LINE;
			fprintf(out, "  --- cache line %ld (bytes %ld-%ld) ---\n",
				line, line * PROFILE_LINE,
				(line + 1) * PROFILE_LINE - 1);
		}
		misses_text(p, f->misses, f->latency_sum, f->lat_misses, m,
			    sizeof(m), lat, sizeof(lat));
		fprintf(out, "  %6u %5u  %-32s %9llu %5.1f%% %8llu %8llu %8s %7s  %s\n",
			f->offset, f->size, short_name(f->name, nbuf, 48),
			(unsigned long long)f->samples,
			pct(weight(p, f->samples, f->misses), tw),
			(unsigned long long)f->loads,
			(unsigned long long)f->stores, m, lat,
			f->top_ip ? ksyms_format(syms, f->top_ip, sym,
						 sizeof(sym)) : "-");
	}
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

static void profile_text(FILE *out, const struct profile *p,
			 const char *target, const struct ksyms *syms)
{
	uint64_t all = weight(p, p->samples, p->misses);
	char m[32], lat[32], bounce[96], name[160];

	header_text(out, p);
	fprintf(out, "\n%-24s %-26s %9s %8s %6s %7s  %s\n", "type", "struct",
		"samples", "misses", "share", "avg_lat", "bounce");
	for (size_t i = 0; i < p->nr_types; i++) {
		const struct profile_type *t = &p->types[i];

		if (target && strcmp(target, t->cache))
			continue;
		misses_text(p, t->misses, t->latency_sum, t->lat_misses, m,
			    sizeof(m), lat, sizeof(lat));
		bounce_text(t, bounce, sizeof(bounce));
		fprintf(out, "%-24s %-26.26s %9llu %8s %5.1f%% %7s  %s\n",
			t->cache, type_name(t, syms, name, sizeof(name)),
			(unsigned long long)t->samples, m,
			pct(weight(p, t->samples, t->misses), all), lat, bounce);
	}
	for (size_t i = 0; i < p->nr_types; i++)
		if (!target || !strcmp(target, p->types[i].cache))
			type_text(out, p, &p->types[i], syms);
}

static void profile_json(FILE *out, const struct profile *p,
			 const char *target, const struct ksyms *syms)
{
	uint64_t all = weight(p, p->samples, p->misses);
	struct json j;
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
		uint64_t tw = weight(p, t->samples, t->misses);

		if (target && strcmp(target, t->cache))
			continue;
		json_object_begin(&j, NULL);
		json_string(&j, "cache", t->cache);
		json_string(&j, "kind", t->data ? data_region_name(t->region) :
			    t->variable ? "variable" : "slab");
		if (t->struct_name)
			json_string(&j, "struct", t->struct_name);
		else
			json_string(&j, "unnamed_why", t->no_names_why);
		json_uint(&j, "object_size", t->object_size);
		json_uint(&j, "samples", t->samples);
		json_uint(&j, "loads", t->loads);
		json_uint(&j, "stores", t->stores);
		if (p->misses_measured)
			json_uint(&j, "misses", t->misses);
		else
			json_null(&j, "misses");
		json_double(&j, "share", pct(tw, all));
		json_uint(&j, "frees_matched", t->matched_frees);
		json_uint(&j, "frees_on_other_cpu", t->remote_frees);
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
		}
		json_array_begin(&j, "fields");
		for (size_t k = 0; k < t->nr_fields; k++) {
			const struct profile_field *f = &t->fields[k];

			json_object_begin(&j, NULL);
			json_uint(&j, "offset", f->offset);
			json_uint(&j, "size", f->size);
			json_uint(&j, "cache_line", f->offset / PROFILE_LINE);
			json_string(&j, "field", f->name);
			json_uint(&j, "samples", f->samples);
			json_uint(&j, "loads", f->loads);
			json_uint(&j, "stores", f->stores);
			if (p->misses_measured) {
				json_uint(&j, "misses", f->misses);
				if (f->lat_misses)
					json_double(&j, "avg_latency",
						    (double)f->latency_sum /
						    f->lat_misses);
			} else {
				json_null(&j, "misses");
			}
			json_double(&j, "share",
				    pct(weight(p, f->samples, f->misses), tw));
			if (f->top_ip)
				json_string(&j, "top_function",
					    ksyms_format(syms, f->top_ip, sym,
							 sizeof(sym)));
			json_object_end(&j);
		}
		json_array_end(&j);
		json_object_end(&j);
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
			printf("svg: %s: %zu types, %zu boxes labelled true or false sharing (from %llu complete histories)\n",
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
	FILE *out;
	int ret;

	memset(&o, 0, sizeof(o));
	ret = parse_opts(argc, argv, &o);
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
	if (o.a.view.json)
		profile_json(out, &p, o.a.target, &syms);
	else
		profile_text(out, &p, o.a.target, &syms);
	ret = view_close(out, &o.a.view);
	ksyms_free(&syms);
	profile_free(&p);
	recording_free(&r);
out_map:
	type_map_free(&o.a.map);
	return ret;
}

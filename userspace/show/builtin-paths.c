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

static void path_text(struct ctx *c, const struct path *p, size_t rank)
{
	const struct path_target *pt = &c->ps->t[p->target];
	char a[160], b[160], f[2048], offs[64];
	double lo, hi;

	diff_wilson((double)p->count, (double)pt->histories, &lo, &hi);
	fprintf(c->out, "\n  path %zu: %llu of %zu histories (%.1f%%, 95%% %.1f-%.1f), offsets %s, %zu steps, %zu CPU change%s, lifetime %.1f us mean\n",
		rank, (unsigned long long)p->count, pt->histories,
		100.0 * (double)p->count / (double)pt->histories,
		100 * lo, 100 * hi,
		offsets_format(p->offset, p->nr_offsets, offs, sizeof(offs)),
		p->nr_steps,
		cpu_changes(p), cpu_changes(p) == 1 ? "" : "s",
		p->lifetime_sum_ns / (double)p->count / 1e3);
	fprintf(c->out, "    allocated by %s\n",
		ksyms_format(&c->syms, p->alloc_site, a, sizeof(a)));
	fprintf(c->out, "    %10s %2s %6s %-28s %-5s %7s  %s\n", "time_us", "",
		"offset", "field", "rw", "samples", "instruction");
	for (size_t i = 0; i < p->nr_steps; i++) {
		const struct path_step *s = &p->steps[i];

		fprintf(c->out, "    %10.2f %2s %6u %-28s %-5s %7llu  %s\n",
			s->time_sum_ns / (double)p->count / 1e3,
			s->cpu_change ? "->" : "", s->offset,
			view_field_short(c->layouts[p->target], s->offset, p->len, f,
				   sizeof(f)),
			s->write ? "write" : "read",
			(unsigned long long)s->samples,
			ksyms_format(&c->syms, s->ip, b, sizeof(b)));
	}
	fprintf(c->out, "    %s freed by %s\n", p->free_cpu_change ? "->" : "  ",
		ksyms_format(&c->syms, p->free_site, b, sizeof(b)));
}

static void path_script(struct ctx *c, const struct path *p, size_t rank)
{
	const char *name = c->r->targets[p->target].name;
	char b[160], offs[64];

	fprintf(c->out, "path %s %zu %llu %zu %zu %s\n", name, rank,
		(unsigned long long)p->count, p->nr_steps, cpu_changes(p),
		offsets_format(p->offset, p->nr_offsets, offs, sizeof(offs)));
	for (size_t i = 0; i < p->nr_steps; i++) {
		const struct path_step *s = &p->steps[i];

		fprintf(c->out, "step %s %zu %zu %.0f %u %s %s %llu %s\n", name,
			rank, i, s->time_sum_ns / (double)p->count, s->offset,
			s->write ? "write" : "read",
			s->cpu_change ? "change" : "same",
			(unsigned long long)s->samples,
			ksyms_format(&c->syms, s->ip, b, sizeof(b)));
	}
}

static void path_json(struct ctx *c, struct json *j, const struct path *p)
{
	size_t n = c->ps->t[p->target].histories;
	char b[160], f[2048];
	double lo, hi;

	diff_wilson((double)p->count, (double)n, &lo, &hi);
	json_object_begin(j, NULL);
	json_uint(j, "histories", p->count);
	json_uint(j, "of_histories", n);
	json_double(j, "share", n ? (double)p->count / (double)n : 0);
	json_double(j, "share_lo95", lo);
	json_double(j, "share_hi95", hi);
	json_array_begin(j, "offsets");
	for (int k = 0; k < p->nr_offsets; k++)
		json_uint(j, NULL, p->offset[k]);
	json_array_end(j);
	json_double(j, "lifetime_mean_ns", p->lifetime_sum_ns / (double)p->count);
	json_string(j, "allocated_by", ksyms_format(&c->syms, p->alloc_site, b,
						    sizeof(b)));
	json_string(j, "freed_by", ksyms_format(&c->syms, p->free_site, b,
						sizeof(b)));
	json_bool(j, "freed_on_other_cpu", p->free_cpu_change);
	json_array_begin(j, "steps");
	for (size_t i = 0; i < p->nr_steps; i++) {
		const struct path_step *s = &p->steps[i];

		json_object_begin(j, NULL);
		json_double(j, "time_mean_ns", s->time_sum_ns / (double)p->count);
		json_uint(j, "offset", s->offset);
		json_string(j, "field", view_field(c->layouts[p->target],
						   s->offset, p->len, f,
						   sizeof(f)));
		json_bool(j, "write", s->write);
		json_bool(j, "cpu_change", s->cpu_change);
		json_uint(j, "samples", s->samples);
		json_uint(j, "misses", s->misses);
		json_string(j, "instruction", ksyms_format(&c->syms, s->ip, b,
							   sizeof(b)));
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
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

static void offsets_list(const struct combined_trace *t, char *buf,
			 size_t size)
{
	size_t n = 0;

	buf[0] = 0;
	for (size_t i = 0; i < t->nr_offsets && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%u", i ? "," : "",
				      t->offsets[i]);
}

static void combined_text(struct ctx *c, const struct combined_trace *t,
			  size_t rank)
{
	char a[160], b[160], f[256], offs[512];

	offsets_list(t, offs, sizeof(offs));
	fprintf(c->out, "\n  combined trace %zu: %llu histories in %zu paths, offsets %s\n",
		rank, (unsigned long long)t->histories_used, t->paths_used,
		offs);
	fprintf(c->out, "    allocated by %s\n",
		ksyms_format(&c->syms, t->alloc_site, a, sizeof(a)));
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
	fprintf(c->out, "    %10s %3s %6s %-28s %-5s %7s  %s\n", "time_us", "",
		"offset", "field", "rw", "samples", "instruction");
	for (size_t i = 0; i < t->nr_steps; i++) {
		const struct combined_step *s = &t->steps[i];
		char mark[4];

		snprintf(mark, sizeof(mark), "%s%s", cpu_mark(s->cpu),
			 s->by_time ? "~" : "");
		fprintf(c->out, "    %10.2f %3s %6u %-28s %-5s %7llu  %s\n",
			s->time_mean_ns / 1e3, mark, s->offset,
			view_field_short(c->layouts[t->target], s->offset,
					 t->len, f, sizeof(f)),
			s->write ? "write" : "read",
			(unsigned long long)s->samples,
			ksyms_format(&c->syms, s->ip, b, sizeof(b)));
	}
	fprintf(c->out, "    %3s freed by %s\n", cpu_mark(t->free_cpu),
		ksyms_format(&c->syms, t->free_site, b, sizeof(b)));
}

static void combined_script(struct ctx *c, const struct combined_trace *t,
			    size_t rank)
{
	const char *name = c->r->targets[t->target].name;
	char b[160], offs[512];

	offsets_list(t, offs, sizeof(offs));
	fprintf(c->out, "combined %s %zu %llu %zu %zu %s %zu %zu %zu %llu %llu %zu\n",
		name, rank, (unsigned long long)t->histories_used, t->nr_steps,
		t->cpu_changes, offs, t->pairs_watched, t->pairs, t->by_time,
		(unsigned long long)t->order_broken,
		(unsigned long long)t->order_weight, t->paths_other);
	for (size_t i = 0; i < t->nr_steps; i++) {
		const struct combined_step *s = &t->steps[i];

		fprintf(c->out, "cstep %s %zu %zu %.0f %u %s %s %s %llu %s\n",
			name, rank, i, s->time_mean_ns, s->offset,
			s->write ? "write" : "read", cpu_word(s->cpu),
			s->by_time ? "by-time" : "ordered",
			(unsigned long long)s->samples,
			ksyms_format(&c->syms, s->ip, b, sizeof(b)));
	}
}

static void combined_json(struct ctx *c, struct json *j,
			  const struct combined_trace *t)
{
	char b[160], f[2048];

	json_object_begin(j, NULL);
	json_uint(j, "histories", t->histories_used);
	json_uint(j, "paths", t->paths_used);
	json_uint(j, "paths_left_out", t->paths_other);
	json_uint(j, "histories_left_out", t->histories_other);
	json_array_begin(j, "offsets");
	for (size_t k = 0; k < t->nr_offsets; k++)
		json_uint(j, NULL, t->offsets[k]);
	json_array_end(j);
	json_uint(j, "offset_pairs", t->pairs);
	json_uint(j, "offset_pairs_watched", t->pairs_watched);
	json_uint(j, "steps_by_time", t->by_time);
	json_uint(j, "order_weight", t->order_weight);
	json_uint(j, "order_broken", t->order_broken);
	json_uint(j, "cpu_changes", t->cpu_changes);
	json_string(j, "allocated_by", ksyms_format(&c->syms, t->alloc_site, b,
						    sizeof(b)));
	json_string(j, "freed_by", ksyms_format(&c->syms, t->free_site, b,
						sizeof(b)));
	json_string(j, "free_cpu", cpu_word(t->free_cpu));
	json_array_begin(j, "steps");
	for (size_t i = 0; i < t->nr_steps; i++) {
		const struct combined_step *s = &t->steps[i];

		json_object_begin(j, NULL);
		json_double(j, "time_mean_ns", s->time_mean_ns);
		json_uint(j, "offset", s->offset);
		json_string(j, "field", view_field(c->layouts[t->target],
						   s->offset, t->len, f,
						   sizeof(f)));
		json_bool(j, "write", s->write);
		json_string(j, "cpu", cpu_word(s->cpu));
		json_bool(j, "placed_by_time", s->by_time);
		json_uint(j, "histories", s->histories);
		json_uint(j, "samples", s->samples);
		json_uint(j, "misses", s->misses);
		json_string(j, "instruction", ksyms_format(&c->syms, s->ip, b,
							   sizeof(b)));
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
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
		if (c->o->a.view.json)
			combined_json(c, j, ct);
		else if (c->o->a.view.script)
			combined_script(c, ct, rank);
		else
			combined_text(c, ct, rank);
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
			if (c->o->a.view.json)
				path_json(c, &j, p);
			else if (c->o->a.view.script)
				path_script(c, p, rank);
			else
				path_text(c, p, rank);
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

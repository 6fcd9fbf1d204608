// SPDX-License-Identifier: GPL-2.0
/*
 * dprof-view paths: path traces of each type, most frequent first, with
 * the coverage curve that says whether enough histories were collected.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "builtin.h"
#include "json.h"
#include "ksyms.h"
#include "layout.h"
#include "paths.h"
#include "util.h"
#include "view.h"

static const char paths_usage[] =
	"usage: dprof-view paths [--json|--script] [-o FILE] [-t CACHE] [-n N] RECORDING\n"
	"\n"
	"Path traces: complete object access histories of a type merged when\n"
	"they watched the same offsets and went the same way (same accessing\n"
	"instructions in the same order, same CPU changes, same allocation and\n"
	"free sites).  Per type: histories used, unique paths, and how the\n"
	"number of unique paths grew with the histories collected (new paths\n"
	"in the last 20%% mean more collection would find more).  Per path: how\n"
	"many histories took it, mean lifetime, then every step with its mean\n"
	"time since allocation, a -> where the object changed CPU, the field,\n"
	"read or write, the access samples for that instruction and field, and\n"
	"the instruction.\n"
	"\n"
	"  -t, --target CACHE   only this cache\n"
	"  -n, --top N          paths per type (default 5, 0: all)\n"
	"  -T, --type CACHE=STRUCT  name fields as STRUCT (see profile --help)\n"
	"  -D, --debug FILE     DWARF for structs the BTF lacks (profile --help)\n"
	"  -s, --script         one line per path and per step, for scripts:\n"
	"                         path CACHE RANK COUNT STEPS CPU_CHANGES OFFSETS\n"
	"                         step CACHE RANK INDEX TIME_NS OFFSET read|write\n"
	"                           same|change SAMPLES SYMBOL\n"
	"  -j, --json           JSON instead of text\n"
	"  -o, --output FILE    write there instead of stdout\n"
	"  -h, --help           this text\n";

struct paths_opts {
	struct view_opts view;
	const char *target;
	long top;
	int script;
	struct type_map map;
};

static int parse_opts(int argc, char **argv, struct paths_opts *o)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'o' },
		{ "target", required_argument, NULL, 't' },
		{ "top", required_argument, NULL, 'n' },
		{ "type", required_argument, NULL, 'T' },
		{ "debug", required_argument, NULL, 'D' },
		{ "script", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	o->top = 5;
	while ((c = getopt_long(argc, argv, "jo:t:n:T:sD:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			o->view.json = 1;
			break;
		case 'o':
			o->view.output = optarg;
			break;
		case 't':
			o->target = optarg;
			break;
		case 's':
			o->script = 1;
			break;
		case 'n':
			o->top = strtol(optarg, &end, 10);
			if (*end || o->top < 0) {
				errmsg("paths: --top %s: not a count", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'D':
			type_map_add_debug(&o->map, optarg);
			break;
		case 'T':
			if (type_map_add(&o->map, optarg)) {
				errmsg("paths: --type %s: expected CACHE=STRUCT",
				       optarg);
				return EXIT_USAGE;
			}
			break;
		case 'h':
			fputs(paths_usage, stdout);
			exit(EXIT_OK);
		default:
			fputs(paths_usage, stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		errmsg("paths: expected one recording (see --help)");
		return EXIT_USAGE;
	}
	o->view.input = argv[optind];
	return 0;
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
	struct layout **layouts;
	struct ksyms syms;
	const struct paths_opts *o;
};

static void type_header(struct ctx *c, size_t t)
{
	const struct path_target *pt = &c->ps->t[t];
	size_t tail = paths_new_in_tail(pt, 0.2);

	fprintf(c->out, "%s: %zu complete histories (%zu others not used), %zu unique path%s\n",
		c->r->targets[t].name, pt->histories, pt->skipped,
		pt->nr_paths, pt->nr_paths == 1 ? "" : "s");
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
	char a[160], b[160], f[256];
	unsigned int len = 8;

	fprintf(c->out, "\n  path %zu: %llu of %zu histories (%.1f%%), offsets %u%s%.0u, %zu steps, %zu CPU change%s, lifetime %.1f us mean\n",
		rank, (unsigned long long)p->count, pt->histories,
		100.0 * (double)p->count / (double)pt->histories,
		p->offset[0], p->nr_offsets > 1 ? "," : "",
		p->nr_offsets > 1 ? p->offset[1] : 0, p->nr_steps,
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
			view_field(c->layouts[p->target], s->offset, len, f,
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
	char b[160];

	fprintf(c->out, "path %s %zu %llu %zu %zu %u%s%.0u\n", name, rank,
		(unsigned long long)p->count, p->nr_steps, cpu_changes(p),
		p->offset[0], p->nr_offsets > 1 ? "," : "",
		p->nr_offsets > 1 ? p->offset[1] : 0);
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
	char b[160], f[256];

	json_object_begin(j, NULL);
	json_uint(j, "histories", p->count);
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
						   s->offset, 8, f, sizeof(f)));
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

static void emit(struct ctx *c)
{
	struct json j;
	size_t rank = 0;
	int cur = -1;

	if (c->o->view.json) {
		json_init(&j, c->out);
		json_object_begin(&j, NULL);
		json_array_begin(&j, "types");
	}
	for (size_t t = 0; t < c->r->nr_targets; t++) {
		const struct path_target *pt = &c->ps->t[t];

		if (c->o->target && strcmp(c->o->target, c->r->targets[t].name))
			continue;
		if (c->o->view.json) {
			json_object_begin(&j, NULL);
			json_string(&j, "cache", c->r->targets[t].name);
			json_uint(&j, "histories", pt->histories);
			json_uint(&j, "histories_not_used", pt->skipped);
			json_uint(&j, "unique_paths", pt->nr_paths);
			json_uint(&j, "new_paths_in_last_20_percent",
				  paths_new_in_tail(pt, 0.2));
			json_array_begin(&j, "paths");
		} else if (!c->o->script) {
			if (t)
				fputc('\n', c->out);
			type_header(c, t);
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
			if (c->o->view.json)
				path_json(c, &j, p);
			else if (c->o->script)
				path_script(c, p, rank);
			else
				path_text(c, p, rank);
		}
		if (c->o->view.json) {
			json_array_end(&j);
			json_object_end(&j);
		}
	}
	if (c->o->view.json) {
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
	struct recording r;
	struct ctx c;
	FILE *out;
	int ret;

	memset(&o, 0, sizeof(o));
	ret = parse_opts(argc, argv, &o);
	if (ret)
		goto out_map;
	ret = view_open(&o.view, &r, &out, "paths");
	if (ret)
		goto out_map;
	if (o.target && view_target(&r, "paths", o.target) < 0) {
		view_close(out, &o.view);
		recording_free(&r);
		ret = EXIT_USAGE;
		goto out_map;
	}
	histories_build(&hs, &r);
	paths_build(&ps, &r, &hs);
	memset(&c, 0, sizeof(c));
	c.out = out;
	c.r = &r;
	c.ps = &ps;
	c.o = &o;
	c.layouts = view_layouts(&r, &o.map);
	ksyms_load(&c.syms, r.kallsyms);
	emit(&c);
	ret = view_close(out, &o.view);
	view_layouts_free(c.layouts, r.nr_targets);
	ksyms_free(&c.syms);
	paths_free(&ps);
	histories_free(&hs);
	recording_free(&r);
out_map:
	type_map_free(&o.map);
	return ret;
}

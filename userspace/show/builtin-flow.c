// SPDX-License-Identifier: GPL-2.0
/*
 * dprof-view flow: the data flow graph of one type, as text, Graphviz DOT
 * or SVG (rendered by graphviz's dot when it is installed).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "builtin.h"
#include "columns.h"
#include "flow.h"
#include "json.h"
#include "options.h"
#include "util.h"
#include "view.h"

struct flow_opts {
	struct view_args a;
	const char *cache, *svg;
	int dot;
};

static const struct opt flow_own[] = {
	{ 'd', "dot", NULL, 0, "Graphviz DOT instead of text" },
	{ 'S', "svg", "FILE", 0, "render the graph to FILE with graphviz's dot" },
	OPT_END,
};

static int flow_option(void *ctx, int key, const char *arg)
{
	struct flow_opts *o = ctx;

	if (key == 'd')
		o->dot = 1;
	else if (key == 'S')
		o->svg = arg;
	else
		return EXIT_USAGE;
	return 0;
}

static const struct command_opts flow_cmd = {
	.cmd = "flow",
	.synopsis =
	"usage: dprof-view flow [--dot|--json] [--svg FILE] [-o FILE] [RECORDING] CACHE\n"
	"\n"
	"The data flow graph of CACHE's objects: the functions they pass\n"
	"through from allocation to free, merged over every complete object\n"
	"access history.  Each edge counts the histories that took it; edges\n"
	"where the object changed CPU are bold and red; each node gives the\n"
	"histories through it, the accesses made there and the share of them\n"
	"that were estimated misses (transfers and invalidations, see\n"
	"classify --help), by which nodes are shaded in DOT and SVG.\n",
	.sets = OPTS_JSON,
	.own = flow_own,
	.handle = flow_option,
};

static int parse_opts(int argc, char **argv, struct flow_opts *o)
{
	int first, ret;

	ret = opts_parse(&flow_cmd, o, argc, argv, &o->a, &first);
	if (ret)
		return ret;
	/* [RECORDING] CACHE: the mission's "dprof-view flow skbuff --dot" */
	if (argc - first < 1) {
		errmsg("flow: expected a cache name, e.g. dprof-view flow skbuff --dot (see --help)");
		return EXIT_USAGE;
	}
	o->cache = argv[argc - 1];
	return view_input(&o->a.view, argc - first - 1, argv + first, "flow");
}

static double miss_rate(const struct flow_node *n)
{
	return n->accesses ? (double)n->est_misses / (double)n->accesses : 0;
}

static const char *role_name(enum flow_role r)
{
	return r == FLOW_ALLOC ? "alloc" : r == FLOW_FREE ? "free" : "access";
}

/* DOT string: quotes and backslashes escaped. */
static void dot_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void write_dot(FILE *out, const struct flow *fl, const char *cache)
{
	uint64_t max = 1;

	for (size_t i = 0; i < fl->nr_edges; i++)
		if (fl->edges[i].histories > max)
			max = fl->edges[i].histories;
	fprintf(out, "digraph dprof_flow {\n");
	fprintf(out, "\tlabel=");
	{
		char title[512];

		snprintf(title, sizeof(title),
			 "%s: data flow over %llu histories (bold red: CPU change; darker: more estimated misses)",
			 cache, (unsigned long long)fl->histories);
		dot_str(out, title);
	}
	fprintf(out, ";\n\tlabelloc=t;\n\trankdir=TB;\n");
	fprintf(out, "\tnode [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\"];\n");
	for (size_t i = 0; i < fl->nr_nodes; i++) {
		const struct flow_node *n = &fl->nodes[i];
		char label[512];
		/* White (no misses) to orange (every access a miss). */
		int green = 255 - (int)(miss_rate(n) * 120);
		int blue = 255 - (int)(miss_rate(n) * 255);

		if (n->role == FLOW_ACCESS)
			snprintf(label, sizeof(label),
				 "%s\\n%llu histories, %llu accesses, %.0f%% est. misses",
				 n->name, (unsigned long long)n->histories,
				 (unsigned long long)n->accesses,
				 100 * miss_rate(n));
		else
			snprintf(label, sizeof(label), "%s: %s\\n%llu histories",
				 role_name(n->role), n->name,
				 (unsigned long long)n->histories);
		fprintf(out, "\tn%zu [label=\"", i);
		for (const char *s = label; *s; s++) {
			if (*s == '"')
				fputc('\\', out);
			fputc(*s, out);
		}
		fprintf(out, "\", fillcolor=\"#ff%02x%02x\"%s];\n", green, blue,
			n->role == FLOW_ACCESS ? "" : ", shape=ellipse");
	}
	for (size_t i = 0; i < fl->nr_edges; i++) {
		const struct flow_edge *e = &fl->edges[i];
		double w = 1 + 4.0 * (double)e->histories / (double)max;

		fprintf(out, "\tn%zu -> n%zu [label=\"%llu\", penwidth=%.1f%s];\n",
			e->from, e->to, (unsigned long long)e->histories,
			e->cpu_change ? w + 2 : w,
			e->cpu_change ? ", color=red, style=bold, fontcolor=red" : "");
	}
	fprintf(out, "}\n");
}

/*
 * The nodes and the edges, as text tables and JSON arrays.  The edges'
 * text has no header: "FROM -> TO HISTORIES  NAME -> NAME", => where the
 * object changed CPU.
 */
enum { FN_ID, FN_ROLE, FN_HISTORIES, FN_ACCESSES, FN_MISSES, FN_FUNCTION,
       FN_N };

static const struct column node_cols[FN_N] = {
	[FN_ID] = { "id", "id", 0, COL_UINT, 4 },
	[FN_ROLE] = { "role", "role", 0, COL_STR, -6 },
	[FN_HISTORIES] = { "histories", "histories", 0, COL_UINT, 9 },
	[FN_ACCESSES] = { "accesses", "accesses", 0, COL_UINT, 9 },
	[FN_MISSES] = { "misses", "estimated_misses", 0, COL_PCT, 7, 0,
			FN_ACCESSES },
	[FN_FUNCTION] = { "function", "function", 0, COL_STR, 0, 2 },
};

enum { FE_FROM, FE_CHANGE, FE_TO, FE_HISTORIES, FE_NAMES, FE_N };

static const struct column edge_cols[FE_N] = {
	[FE_FROM] = { "", "from", 0, COL_UINT, 4 },
	[FE_CHANGE] = { "", "cpu_change", 0, COL_BOOL },
	[FE_TO] = { "", "to", 0, COL_UINT, -4 },
	[FE_HISTORIES] = { "", "histories", 0, COL_UINT, 6 },
	[FE_NAMES] = { "", NULL, 0, COL_STR, 0, 2 },
};

static void node_rows(const struct table *tab, const struct flow *fl)
{
	for (size_t i = 0; i < fl->nr_nodes; i++) {
		const struct flow_node *n = &fl->nodes[i];
		struct cell c[FN_N] = {
			[FN_ID] = { .u = i },
			[FN_ROLE] = { .s = role_name(n->role) },
			[FN_HISTORIES] = { .u = n->histories },
			[FN_ACCESSES] = { .u = n->accesses },
			[FN_MISSES] = { .u = n->est_misses },
			[FN_FUNCTION] = { .s = n->name },
		};

		table_row(tab, c);
	}
}

static void edge_rows(const struct table *tab, const struct flow *fl)
{
	char names[1100];

	for (size_t i = 0; i < fl->nr_edges; i++) {
		const struct flow_edge *e = &fl->edges[i];
		const char *arrow = e->cpu_change ? "=>" : "->";
		struct cell c[FE_N] = {
			[FE_FROM] = { .u = e->from },
			[FE_CHANGE] = { .u = e->cpu_change, .text = arrow },
			[FE_TO] = { .u = e->to },
			[FE_HISTORIES] = { .u = e->histories },
			[FE_NAMES] = { .s = names },
		};

		snprintf(names, sizeof(names), "%s %s %s",
			 fl->nodes[e->from].name, arrow, fl->nodes[e->to].name);
		table_row(tab, c);
	}
}

static void write_text(FILE *out, const struct flow *fl, const char *cache)
{
	struct table nodes = {
		.cols = node_cols, .nr_cols = FN_N, .mode = TABLE_TEXT,
		.out = out, .indent = "  ",
	};
	struct table edges = {
		.cols = edge_cols, .nr_cols = FE_N, .mode = TABLE_TEXT,
		.out = out, .indent = "  ",
	};

	fprintf(out, "%s: data flow over %llu complete histories\n", cache,
		(unsigned long long)fl->histories);
	fprintf(out, "nodes:\n");
	table_header(&nodes);
	node_rows(&nodes, fl);
	fprintf(out, "edges (-> same CPU, => CPU change):\n");
	edge_rows(&edges, fl);
	if (!fl->histories)
		fprintf(out, "no complete histories of %s in this recording\n", cache);
}

static void write_json(FILE *out, const struct flow *fl, const char *cache)
{
	struct json j;
	struct table nodes = {
		.cols = node_cols, .nr_cols = FN_N, .mode = TABLE_JSON,
		.out = out, .j = &j,
	};
	struct table edges = {
		.cols = edge_cols, .nr_cols = FE_N, .mode = TABLE_JSON,
		.out = out, .j = &j,
	};

	json_init(&j, out);
	json_object_begin(&j, NULL);
	json_string(&j, "cache", cache);
	json_uint(&j, "histories", fl->histories);
	json_array_begin(&j, "nodes");
	node_rows(&nodes, fl);
	json_array_end(&j);
	json_array_begin(&j, "edges");
	edge_rows(&edges, fl);
	json_array_end(&j);
	json_object_end(&j);
	json_finish(&j);
}

/* Render through graphviz's dot; a clear message when it is missing. */
static int render_svg(const struct flow *fl, const char *cache,
		      const char *path)
{
	char cmd[4200];
	FILE *p;
	int st;

	if (system("command -v dot >/dev/null 2>&1") != 0) {
		errmsg("flow: graphviz's dot is not installed, so no SVG was written (apt-get install graphviz, or use --dot)");
		return EXIT_FAIL;
	}
	if (strchr(path, '\'')) {
		errmsg("flow: --svg %s: quotes in the path are not supported", path);
		return EXIT_USAGE;
	}
	snprintf(cmd, sizeof(cmd), "dot -Tsvg -o '%s'", path);
	p = popen(cmd, "w");
	if (!p) {
		errmsg("flow: cannot run dot: %s", strerror(errno));
		return EXIT_FAIL;
	}
	write_dot(p, fl, cache);
	st = pclose(p);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		errmsg("flow: dot failed to render %s", path);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

int cmd_flow(int argc, char **argv)
{
	struct flow_opts o;
	struct history_set hs;
	struct recording r;
	struct ksyms syms;
	struct flow fl;
	FILE *out;
	int ret, target;

	memset(&o, 0, sizeof(o));
	ret = parse_opts(argc, argv, &o);
	if (ret)
		return ret;
	ret = view_open(&o.a.view, &r, &out, "flow");
	if (ret)
		return ret;
	view_sample_note(&r, "flow");
	target = view_target(&r, "flow", &o.cache);
	if (target < 0) {
		view_close(out, &o.a.view);
		recording_free(&r);
		return EXIT_USAGE;
	}
	histories_build(&hs, &r);
	ksyms_load(&syms, r.kallsyms);
	flow_build(&fl, &hs, target, &syms);
	if (o.svg)
		ret = render_svg(&fl, o.cache, o.svg);
	if (o.a.view.json)
		write_json(out, &fl, o.cache);
	else if (o.dot)
		write_dot(out, &fl, o.cache);
	else if (!o.svg)
		write_text(out, &fl, o.cache);
	if (view_close(out, &o.a.view) && !ret)
		ret = EXIT_FAIL;
	flow_free(&fl);
	ksyms_free(&syms);
	histories_free(&hs);
	recording_free(&r);
	return ret;
}

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

#define FLOW_DEFAULT_HOPS 2

struct flow_opts {
	struct view_args a;
	const char *cache, *svg;
	int dot;
	bool all;		/* the whole graph, not the part around changes */
	long hops;
};

/* What is drawn: the whole graph, or the part around the CPU changes. */
struct flow_shown {
	bool *node, *edge;		/* drawn in text, DOT and SVG */
	bool *around_node, *around_edge; /* the part around the changes */
	size_t nodes, edges, changes;
	bool all;
};

static const struct opt flow_own[] = {
	{ 'd', "dot", NULL, 0, "Graphviz DOT instead of text" },
	{ 'S', "svg", "FILE", 0, "render the graph to FILE with graphviz's dot" },
	{ 'a', "all", NULL, 0,
	  "the whole graph (default: the functions around\n"
	  "each CPU change, as the thesis draws it)" },
	{ 'H', "hops", "N", 0,
	  "functions before and after a CPU change (default 2)" },
	OPT_END,
};

static int flow_option(void *ctx, int key, const char *arg)
{
	struct flow_opts *o = ctx;

	if (key == 'd')
		o->dot = 1;
	else if (key == 'S')
		o->svg = arg;
	else if (key == 'a')
		o->all = true;
	else if (key == 'H')
		return opts_count("flow", "hops", arg, 0, &o->hops) ?
		       EXIT_USAGE : 0;
	else
		return EXIT_USAGE;
	return 0;
}

static const struct command_opts flow_cmd = {
	.cmd = "flow",
	.synopsis =
	"usage: dprof-view flow [--dot|--json] [--svg FILE] [--all | --hops N] [-o FILE] [RECORDING] CACHE\n"
	"\n"
	"The data flow graph of CACHE's objects: the functions they pass\n"
	"through from allocation to free, merged over every complete object\n"
	"access history.  Each edge counts the histories that took it; edges\n"
	"where the object changed CPU are bold and red; each node gives the\n"
	"histories through it, the accesses made there and the share of them\n"
	"that were estimated misses (transfers and invalidations, see\n"
	"classify --help), by which nodes are shaded in DOT and SVG.\n"
	"\n"
	"By default text, DOT and SVG show the part of the graph around each\n"
	"CPU change, as the DProf thesis draws skbuff's flow (Figure 6-1): the\n"
	"functions that lead to a change within --hops edges, those the\n"
	"object reaches within as many after it, and the edges between them;\n"
	"--all shows every function (the whole graph when nothing changed\n"
	"CPU).  --json always holds the whole graph, each node and edge with\n"
	"\"around_change\".\n",
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

/*
 * The part shown: around the changes (flow_around_changes()), or all of
 * it with --all or when nothing changed CPU.  around_* keep the part for
 * JSON, which lists everything.
 */
static void shown_build(struct flow_shown *sh, const struct flow *fl,
			bool all, long hops)
{
	memset(sh, 0, sizeof(*sh));
	sh->around_node = xcalloc(fl->nr_nodes + 1, sizeof(bool));
	sh->around_edge = xcalloc(fl->nr_edges + 1, sizeof(bool));
	sh->changes = flow_around_changes(fl, (unsigned int)hops,
					  sh->around_node, sh->around_edge);
	sh->all = all || !sh->changes;
	sh->node = xcalloc(fl->nr_nodes + 1, sizeof(bool));
	sh->edge = xcalloc(fl->nr_edges + 1, sizeof(bool));
	for (size_t i = 0; i < fl->nr_nodes; i++) {
		sh->node[i] = sh->all || sh->around_node[i];
		sh->nodes += sh->node[i];
	}
	for (size_t i = 0; i < fl->nr_edges; i++) {
		sh->edge[i] = sh->all || sh->around_edge[i];
		sh->edges += sh->edge[i];
	}
}

static void shown_free(struct flow_shown *sh)
{
	free(sh->node);
	free(sh->edge);
	free(sh->around_node);
	free(sh->around_edge);
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

/* The title of text, DOT and SVG: what the graph is and how much of it. */
static void title(char *buf, size_t len, const struct flow *fl,
		  const char *cache, const struct flow_shown *sh)
{
	if (sh->all)
		snprintf(buf, len, "%s: data flow over %llu complete histories, %zu functions%s",
			 cache, (unsigned long long)fl->histories, fl->nr_nodes,
			 sh->changes ? "" : ", no CPU change");
	else
		snprintf(buf, len, "%s: data flow over %llu complete histories, %zu of %zu functions around %zu CPU changes (--all: every one)",
			 cache, (unsigned long long)fl->histories, sh->nodes,
			 fl->nr_nodes, sh->changes);
}

static void write_dot(FILE *out, const struct flow *fl, const char *cache,
		      const struct flow_shown *sh)
{
	uint64_t max = 1;
	char head[512];

	for (size_t i = 0; i < fl->nr_edges; i++)
		if (sh->edge[i] && fl->edges[i].histories > max)
			max = fl->edges[i].histories;
	fprintf(out, "digraph dprof_flow {\n");
	fprintf(out, "\tlabel=");
	title(head, sizeof(head), fl, cache, sh);
	dot_str(out, head);
	fprintf(out, ";\n\tlabelloc=t;\n\trankdir=TB;\n");
	fprintf(out, "\tnode [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\"];\n");
	for (size_t i = 0; i < fl->nr_nodes; i++) {
		const struct flow_node *n = &fl->nodes[i];
		char label[512];
		/* White (no misses) to orange (every access a miss). */
		int green = 255 - (int)(miss_rate(n) * 120);
		int blue = 255 - (int)(miss_rate(n) * 255);

		if (!sh->node[i])
			continue;
		/* The misses where there are some: shading says the rest. */
		if (n->role == FLOW_ACCESS && n->est_misses)
			snprintf(label, sizeof(label),
				 "%s\\n%llu histories, %llu accesses, %.0f%% est. misses",
				 n->name, (unsigned long long)n->histories,
				 (unsigned long long)n->accesses,
				 100 * miss_rate(n));
		else if (n->role == FLOW_ACCESS)
			snprintf(label, sizeof(label),
				 "%s\\n%llu histories, %llu accesses",
				 n->name, (unsigned long long)n->histories,
				 (unsigned long long)n->accesses);
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

		if (!sh->edge[i])
			continue;
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
enum { FN_ID, FN_ROLE, FN_HISTORIES, FN_ACCESSES, FN_MISSES, FN_AROUND,
       FN_FUNCTION, FN_N };

static const struct column node_cols[FN_N] = {
	[FN_ID] = { "id", "id", 0, COL_UINT, 4 },
	[FN_ROLE] = { "role", "role", 0, COL_STR, -6 },
	[FN_HISTORIES] = { "histories", "histories", 0, COL_UINT, 9 },
	[FN_ACCESSES] = { "accesses", "accesses", 0, COL_UINT, 9 },
	[FN_MISSES] = { "misses", "estimated_misses", 0, COL_PCT, 7, 0,
			FN_ACCESSES },
	[FN_AROUND] = { NULL, "around_change", 0, COL_BOOL },
	[FN_FUNCTION] = { "function", "function", 0, COL_STR, 0, 2 },
};

enum { FE_FROM, FE_CHANGE, FE_TO, FE_HISTORIES, FE_AROUND, FE_NAMES, FE_N };

static const struct column edge_cols[FE_N] = {
	[FE_FROM] = { "", "from", 0, COL_UINT, 4 },
	[FE_CHANGE] = { "", "cpu_change", 0, COL_BOOL },
	[FE_TO] = { "", "to", 0, COL_UINT, -4 },
	[FE_HISTORIES] = { "", "histories", 0, COL_UINT, 6 },
	[FE_AROUND] = { NULL, "around_change", 0, COL_BOOL },
	[FE_NAMES] = { "", NULL, 0, COL_STR, 0, 2 },
};

/* The rows shown (text), or every row with its around_change (JSON). */
static void node_rows(const struct table *tab, const struct flow *fl,
		      const struct flow_shown *sh, const bool *around)
{
	for (size_t i = 0; i < fl->nr_nodes; i++) {
		const struct flow_node *n = &fl->nodes[i];

		if (!sh->node[i])
			continue;
		struct cell c[FN_N] = {
			[FN_ID] = { .u = i },
			[FN_ROLE] = { .s = role_name(n->role) },
			[FN_HISTORIES] = { .u = n->histories },
			[FN_ACCESSES] = { .u = n->accesses },
			[FN_MISSES] = { .u = n->est_misses },
			[FN_AROUND] = { .u = around[i] },
			[FN_FUNCTION] = { .s = n->name },
		};

		table_row(tab, c);
	}
}

static void edge_rows(const struct table *tab, const struct flow *fl,
		      const struct flow_shown *sh, const bool *around)
{
	char names[1100];

	for (size_t i = 0; i < fl->nr_edges; i++) {
		const struct flow_edge *e = &fl->edges[i];
		const char *arrow = e->cpu_change ? "=>" : "->";

		if (!sh->edge[i])
			continue;
		struct cell c[FE_N] = {
			[FE_FROM] = { .u = e->from },
			[FE_CHANGE] = { .u = e->cpu_change, .text = arrow },
			[FE_TO] = { .u = e->to },
			[FE_HISTORIES] = { .u = e->histories },
			[FE_AROUND] = { .u = around[i] },
			[FE_NAMES] = { .s = names },
		};

		snprintf(names, sizeof(names), "%s %s %s",
			 fl->nodes[e->from].name, arrow, fl->nodes[e->to].name);
		table_row(tab, c);
	}
}

static void write_text(FILE *out, const struct flow *fl, const char *cache,
		       const struct flow_shown *sh)
{
	char head[512];

	struct table nodes = {
		.cols = node_cols, .nr_cols = FN_N, .mode = TABLE_TEXT,
		.out = out, .indent = "  ",
	};
	struct table edges = {
		.cols = edge_cols, .nr_cols = FE_N, .mode = TABLE_TEXT,
		.out = out, .indent = "  ",
	};

	title(head, sizeof(head), fl, cache, sh);
	fprintf(out, "%s\n", head);
	fprintf(out, "nodes:\n");
	table_header(&nodes);
	node_rows(&nodes, fl, sh, sh->node);
	fprintf(out, "edges (-> same CPU, => CPU change):\n");
	edge_rows(&edges, fl, sh, sh->edge);
	if (!fl->histories)
		fprintf(out, "no complete histories of %s in this recording\n", cache);
}

static void write_json(FILE *out, const struct flow *fl, const char *cache,
		       const struct flow_shown *part)
{
	struct flow_shown all = *part;
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
	json_uint(&j, "cpu_changes", part->changes);
	all.node = xmalloc((fl->nr_nodes + 1) * sizeof(bool));
	all.edge = xmalloc((fl->nr_edges + 1) * sizeof(bool));
	memset(all.node, 1, (fl->nr_nodes + 1) * sizeof(bool));
	memset(all.edge, 1, (fl->nr_edges + 1) * sizeof(bool));
	json_array_begin(&j, "nodes");
	node_rows(&nodes, fl, &all, part->around_node);
	json_array_end(&j);
	json_array_begin(&j, "edges");
	edge_rows(&edges, fl, &all, part->around_edge);
	json_array_end(&j);
	free(all.node);
	free(all.edge);
	json_object_end(&j);
	json_finish(&j);
}

/* Render through graphviz's dot; a clear message when it is missing. */
static int render_svg(const struct flow *fl, const char *cache,
		      const struct flow_shown *sh, const char *path)
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
	write_dot(p, fl, cache, sh);
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
	struct flow_shown sh;
	struct flow fl;
	FILE *out;
	int ret, target;

	memset(&o, 0, sizeof(o));
	o.hops = FLOW_DEFAULT_HOPS;
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
	shown_build(&sh, &fl, o.all, o.hops);
	if (o.svg)
		ret = render_svg(&fl, o.cache, &sh, o.svg);
	if (o.a.view.json)
		write_json(out, &fl, o.cache, &sh);
	else if (o.dot)
		write_dot(out, &fl, o.cache, &sh);
	else if (!o.svg)
		write_text(out, &fl, o.cache, &sh);
	shown_free(&sh);
	if (view_close(out, &o.a.view) && !ret)
		ret = EXIT_FAIL;
	flow_free(&fl);
	ksyms_free(&syms);
	histories_free(&hs);
	recording_free(&r);
	return ret;
}

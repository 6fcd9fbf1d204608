// SPDX-License-Identifier: GPL-2.0
/*
 * Data flow graphs (see flow.h).  Graphs have tens of functions, so nodes
 * and edges are found by linear search.
 */
#include <stdlib.h>
#include <string.h>
#include "classify.h"
#include "flow.h"
#include "util.h"

static void function_name(const struct ksyms *syms, uint64_t ip, char *buf,
			  size_t len)
{
	const struct ksym *s = ksyms_find(syms, ip);

	if (!s || ip - s->addr > (1u << 20))
		snprintf(buf, len, "0x%llx", (unsigned long long)ip);
	else if (s->module)
		snprintf(buf, len, "%s [%s]", s->name, s->module);
	else
		snprintf(buf, len, "%s", s->name);
}

static size_t node_of(struct flow *fl, const char *name, enum flow_role role)
{
	for (size_t i = 0; i < fl->nr_nodes; i++)
		if (fl->nodes[i].role == role && !strcmp(fl->nodes[i].name, name))
			return i;
	fl->nodes = xrealloc(fl->nodes, (fl->nr_nodes + 1) * sizeof(*fl->nodes));
	memset(&fl->nodes[fl->nr_nodes], 0, sizeof(*fl->nodes));
	fl->nodes[fl->nr_nodes].name = xstrdup(name);
	fl->nodes[fl->nr_nodes].role = role;
	return fl->nr_nodes++;
}

static void edge(struct flow *fl, size_t from, size_t to, bool cpu_change)
{
	for (size_t i = 0; i < fl->nr_edges; i++) {
		struct flow_edge *e = &fl->edges[i];

		if (e->from == from && e->to == to && e->cpu_change == cpu_change) {
			e->histories++;
			return;
		}
	}
	fl->edges = xrealloc(fl->edges, (fl->nr_edges + 1) * sizeof(*fl->edges));
	fl->edges[fl->nr_edges] = (struct flow_edge){ from, to, cpu_change, 1 };
	fl->nr_edges++;
}

static void walk(struct flow *fl, const struct history *h,
		 const struct ksyms *syms)
{
	uint8_t *class = xcalloc(h->nr_elems + 1, 1);
	const struct hist_elem **writer = xcalloc(h->nr_elems + 1,
						  sizeof(*writer));
	char name[256];
	size_t cur, n;
	int cpu = h->alloc_cpu;
	/* A walk adds at most one node per access plus the free. */
	bool *visited = xcalloc(fl->nr_nodes + h->nr_elems + 2, sizeof(bool));

	classify_history(h, class, writer);
	function_name(syms, h->alloc_site, name, sizeof(name));
	cur = node_of(fl, name, FLOW_ALLOC);
	fl->nodes[cur].histories++;
	visited[cur] = true;
	for (size_t i = 0; i < h->nr_elems; i++) {
		const struct hist_elem *e = &h->elems[i];

		function_name(syms, e->ip, name, sizeof(name));
		n = node_of(fl, name, FLOW_ACCESS);
		fl->nodes[n].accesses++;
		fl->nodes[n].est_misses += class[i] == CLASS_TRUE_SHARING ||
					   class[i] == CLASS_FALSE_SHARING ||
					   class[i] == CLASS_TRANSFER;
		if (n != cur || e->cpu != cpu) {
			edge(fl, cur, n, e->cpu != cpu);
			if (!visited[n])
				fl->nodes[n].histories++;
			visited[n] = true;
		}
		cur = n;
		cpu = e->cpu;
	}
	function_name(syms, h->free_site, name, sizeof(name));
	n = node_of(fl, name, FLOW_FREE);
	fl->nodes[n].histories++;
	edge(fl, cur, n, h->end_cpu != cpu);
	free(visited);
	free(writer);
	free(class);
}

void flow_build(struct flow *fl, const struct history_set *hs, int target,
		const struct ksyms *syms)
{
	memset(fl, 0, sizeof(*fl));
	for (size_t i = 0; i < hs->n; i++) {
		const struct history *h = &hs->h[i];

		if (h->target != target || !classify_usable(h))
			continue;
		walk(fl, h, syms);
		fl->histories++;
	}
}

/*
 * Hops from each node to the nearest start along the edges (forward) or
 * against them; SIZE_MAX where none is within @hops.  One hop a round,
 * each round from the last one's distances (relaxing in place would run
 * down a chain in one round): graphs are a few hundred edges.
 */
static void hops_from(const struct flow *fl, size_t *dist, unsigned int hops,
		      bool forward)
{
	size_t *last = xmalloc((fl->nr_nodes + 1) * sizeof(*last));

	for (unsigned int round = 0; round < hops; round++) {
		memcpy(last, dist, fl->nr_nodes * sizeof(*last));
		for (size_t i = 0; i < fl->nr_edges; i++) {
			const struct flow_edge *e = &fl->edges[i];
			size_t a = forward ? e->from : e->to;
			size_t b = forward ? e->to : e->from;

			if (last[a] != SIZE_MAX && last[a] + 1 < dist[b])
				dist[b] = last[a] + 1;
		}
	}
	free(last);
}

size_t flow_around_changes(const struct flow *fl, unsigned int hops,
			   bool *keep_node, bool *keep_edge)
{
	size_t *before = xmalloc((fl->nr_nodes + 1) * sizeof(*before));
	size_t *after = xmalloc((fl->nr_nodes + 1) * sizeof(*after));
	size_t changes = 0;

	for (size_t i = 0; i < fl->nr_nodes; i++)
		before[i] = after[i] = SIZE_MAX;
	for (size_t i = 0; i < fl->nr_edges; i++)
		if (fl->edges[i].cpu_change) {
			before[fl->edges[i].from] = 0;
			after[fl->edges[i].to] = 0;
			changes++;
		}
	hops_from(fl, before, hops, false);
	hops_from(fl, after, hops, true);
	for (size_t i = 0; i < fl->nr_nodes; i++)
		keep_node[i] = before[i] != SIZE_MAX || after[i] != SIZE_MAX;
	for (size_t i = 0; i < fl->nr_edges; i++)
		keep_edge[i] = keep_node[fl->edges[i].from] &&
			       keep_node[fl->edges[i].to];
	free(before);
	free(after);
	return changes;
}

void flow_free(struct flow *fl)
{
	for (size_t i = 0; i < fl->nr_nodes; i++)
		free(fl->nodes[i].name);
	free(fl->nodes);
	free(fl->edges);
	memset(fl, 0, sizeof(*fl));
}

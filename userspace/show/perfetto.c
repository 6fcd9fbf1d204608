// SPDX-License-Identifier: GPL-2.0
/*
 * Object histories as a Chrome JSON trace (see perfetto.h), in the terms
 * of Chromium's "Trace Event Format" document: "X" complete events for the pieces of a life,
 * "i" instant events for accesses, "s"/"f" flow events for CPU changes,
 * "M" metadata events naming the process and the per-CPU tracks.
 * Times are microseconds since the earliest allocation, exact to the ns.
 */
#include <stdlib.h>
#include <string.h>
#include "json.h"
#include "perfetto.h"
#include "util.h"
#include "view.h"

/* A track's thread id: CPUs in order, a CPU's extra tracks after it. */
#define LANES_PER_CPU 1000

static size_t new_slice(struct obj_trace *t, size_t *cap,
			const struct history *h, uint64_t start, uint16_t cpu,
			size_t first_elem)
{
	struct trace_slice *s;

	if (t->nr_slices == *cap) {
		*cap = *cap ? *cap * 2 : 256;
		t->slices = xrealloc(t->slices, *cap * sizeof(*t->slices));
	}
	s = &t->slices[t->nr_slices];
	memset(s, 0, sizeof(*s));
	s->h = h;
	s->start_ns = start;
	s->cpu = cpu;
	s->first_elem = first_elem;
	if (cpu >= t->nr_cpus)
		t->nr_cpus = cpu + 1u;
	return t->nr_slices++;
}

/* The pieces of one life, one per stay on a CPU. */
static void history_slices(struct obj_trace *t, size_t *cap,
			   const struct history *h)
{
	uint64_t end = h->alloc_ns;
	size_t cur, first;

	if (h->reason)
		end = h->end_ns;
	else if (h->nr_elems)
		end = h->alloc_ns + h->elems[h->nr_elems - 1].time_ns;
	first = cur = new_slice(t, cap, h, h->alloc_ns, h->alloc_cpu, 0);
	for (size_t i = 0; i < h->nr_elems; i++) {
		const struct hist_elem *e = &h->elems[i];
		uint64_t at = h->alloc_ns + e->time_ns;

		if (e->cpu == t->slices[cur].cpu)
			continue;
		t->slices[cur].end_ns = at;
		t->slices[cur].nr_elems = i - t->slices[cur].first_elem;
		cur = new_slice(t, cap, h, at, e->cpu, i);
		t->flows++;
	}
	t->slices[cur].end_ns = end > t->slices[cur].start_ns ? end :
				t->slices[cur].start_ns;
	t->slices[cur].nr_elems = h->nr_elems - t->slices[cur].first_elem;
	if (h->reason == DPROF_HIST_FREED && h->end_cpu != t->slices[cur].cpu) {
		cur = new_slice(t, cap, h, t->slices[cur].end_ns, h->end_cpu,
				h->nr_elems);
		t->slices[cur].end_ns = t->slices[cur].start_ns;
		t->slices[cur].free_only = true;
		t->flows++;
	}
	t->slices[first].first = true;
	t->slices[cur].last = true;
}

static int by_start(const void *a, const void *b)
{
	const struct trace_slice *x = *(const struct trace_slice * const *)a;
	const struct trace_slice *y = *(const struct trace_slice * const *)b;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * Tracks: in order of start, each slice goes on the first track of its
 * CPU that is free by then, or opens another.  Optimal for intervals.
 */
static void assign_lanes(struct obj_trace *t)
{
	struct trace_slice **order = xcalloc(t->nr_slices + 1, sizeof(*order));
	uint64_t **lane_end = xcalloc(t->nr_cpus + 1, sizeof(*lane_end));
	size_t i;

	t->lanes = xcalloc(t->nr_cpus + 1, sizeof(*t->lanes));
	for (i = 0; i < t->nr_slices; i++)
		order[i] = &t->slices[i];
	qsort(order, t->nr_slices, sizeof(*order), by_start);
	for (i = 0; i < t->nr_slices; i++) {
		struct trace_slice *s = order[i];
		uint16_t l, *n = &t->lanes[s->cpu];

		for (l = 0; l < *n; l++)
			if (lane_end[s->cpu][l] <= s->start_ns)
				break;
		if (l == *n) {
			if (*n == LANES_PER_CPU - 1)
				l = *n - 1;	/* overlaps shown as nested */
			else
				lane_end[s->cpu] = xrealloc(lane_end[s->cpu],
							    ++*n * sizeof(**lane_end));
		}
		/* A zero-length piece still takes its instant. */
		lane_end[s->cpu][l] = s->end_ns > s->start_ns ? s->end_ns :
				      s->start_ns + 1;
		s->lane = l;
	}
	for (i = 0; i < t->nr_cpus; i++)
		free(lane_end[i]);
	free(lane_end);
	free(order);
}

void trace_build(const struct history_set *hs, int target,
		 struct obj_trace *t)
{
	size_t cap = 0;

	memset(t, 0, sizeof(*t));
	t->origin_ns = UINT64_MAX;
	for (size_t i = 0; i < hs->n; i++) {
		const struct history *h = &hs->h[i];

		if (target >= 0 && h->target != target)
			continue;
		history_slices(t, &cap, h);
		t->histories++;
		if (h->alloc_ns < t->origin_ns)
			t->origin_ns = h->alloc_ns;
	}
	if (!t->histories)
		t->origin_ns = 0;
	assign_lanes(t);
}

void trace_free(struct obj_trace *t)
{
	free(t->slices);
	free(t->lanes);
	memset(t, 0, sizeof(*t));
}

static unsigned int track_id(const struct trace_slice *s)
{
	return s->cpu * LANES_PER_CPU + s->lane;
}

/* The fields of one event every event has. */
static void event_head(struct json *j, const char *ph, const char *name,
		       const char *cat, unsigned int tid)
{
	json_object_begin(j, NULL);
	json_string(j, "ph", ph);
	json_string(j, "name", name);
	if (cat)
		json_string(j, "cat", cat);
	json_uint(j, "pid", 1);
	json_uint(j, "tid", tid);
}

static void write_tracks(struct json *j, const struct obj_trace *t,
			 const struct recording *r)
{
	char name[64];

	event_head(j, "M", "process_name", NULL, 0);
	json_object_begin(j, "args");
	snprintf(name, sizeof(name), "dprof object histories");
	json_string(j, "name", r->path ? r->path : name);
	json_object_end(j);
	json_object_end(j);
	for (size_t cpu = 0; cpu < t->nr_cpus; cpu++)
		for (unsigned int l = 0; l < t->lanes[cpu]; l++) {
			unsigned int tid = cpu * LANES_PER_CPU + l;

			if (l)
				snprintf(name, sizeof(name), "CPU %zu #%u", cpu,
					 l + 1);
			else
				snprintf(name, sizeof(name), "CPU %zu", cpu);
			event_head(j, "M", "thread_name", NULL, tid);
			json_object_begin(j, "args");
			json_string(j, "name", name);
			json_object_end(j);
			json_object_end(j);
			event_head(j, "M", "thread_sort_index", NULL, tid);
			json_object_begin(j, "args");
			json_uint(j, "sort_index", tid);
			json_object_end(j);
			json_object_end(j);
		}
}

static void write_slice(struct json *j, const struct obj_trace *t,
			const struct trace_slice *s,
			const struct recording *r, const struct ksyms *syms)
{
	const struct history *h = s->h;
	char name[160], buf[160];

	snprintf(name, sizeof(name), "%s #%u%s", r->targets[h->target].name,
		 h->id, s->free_only ? " freed" : "");
	event_head(j, "X", name, "object", track_id(s));
	json_ns_as_us(j, "ts", s->start_ns - t->origin_ns);
	/* At least 1 ns, so that a flow arrow can end in it. */
	json_ns_as_us(j, "dur", s->end_ns > s->start_ns ?
		      s->end_ns - s->start_ns : 1);
	json_object_begin(j, "args");
	json_uint(j, "history", h->id);
	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)h->addr);
	json_string(j, "address", buf);
	json_uint(j, "accesses", s->nr_elems);
	if (s->first)
		json_string(j, "allocated_by",
			    ksyms_format(syms, h->alloc_site, buf, sizeof(buf)));
	if (s->last) {
		json_string(j, "end", history_end_name(h));
		if (h->reason == DPROF_HIST_FREED)
			json_string(j, "freed_by",
				    ksyms_format(syms, h->free_site, buf,
						 sizeof(buf)));
	}
	json_object_end(j);
	json_object_end(j);
}

static void write_accesses(struct json *j, const struct obj_trace *t,
			   const struct trace_slice *s, struct layout *l,
			   const struct ksyms *syms)
{
	const struct history *h = s->h;
	char field[512], buf[160];

	for (size_t i = s->first_elem; i < s->first_elem + s->nr_elems; i++) {
		const struct hist_elem *e = &h->elems[i];

		view_field(l, e->offset, h->len, field, sizeof(field));
		event_head(j, "i", field, "access", track_id(s));
		json_string(j, "s", "t");
		json_ns_as_us(j, "ts", h->alloc_ns + e->time_ns - t->origin_ns);
		json_object_begin(j, "args");
		json_uint(j, "history", h->id);
		json_uint(j, "offset", e->offset);
		json_string(j, "function",
			    ksyms_format(syms, e->ip, buf, sizeof(buf)));
		json_string(j, "kind", access_kind_name(e->kind));
		if (e->rw_known)
			json_string(j, "rw", e->write ? "write" : "read");
		json_object_end(j);
		json_object_end(j);
	}
}

/* The arrow from piece @a to the next piece @b of the same life. */
static void write_flow(struct json *j, const struct obj_trace *t,
		       const struct trace_slice *a,
		       const struct trace_slice *b, uint64_t id)
{
	/* Inside @a, whose end is exclusive; @b encloses its own start. */
	uint64_t from = a->end_ns > a->start_ns ? a->end_ns - 1 : a->start_ns;

	event_head(j, "s", "CPU change", "cpu_change", track_id(a));
	json_uint(j, "id", id);
	json_ns_as_us(j, "ts", from - t->origin_ns);
	json_object_end(j);
	event_head(j, "f", "CPU change", "cpu_change", track_id(b));
	json_string(j, "bp", "e");
	json_uint(j, "id", id);
	json_ns_as_us(j, "ts", b->start_ns - t->origin_ns);
	json_object_end(j);
}

void trace_write(FILE *out, const struct obj_trace *t,
		 const struct recording *r, struct layout **layouts,
		 const struct ksyms *syms)
{
	const char *kernel = recording_meta(r, "kernel");
	const char *host = recording_meta(r, "hostname");
	uint64_t flow_id = 0;
	struct json j;

	json_init(&j, out);
	json_object_begin(&j, NULL);
	json_string(&j, "displayTimeUnit", "ns");
	json_object_begin(&j, "otherData");
	json_string(&j, "producer", "dprof-view export --perfetto");
	if (kernel)
		json_string(&j, "kernel", kernel);
	if (host)
		json_string(&j, "hostname", host);
	json_uint(&j, "histories", t->histories);
	json_uint(&j, "cpu_changes", t->flows);
	json_object_end(&j);
	json_array_begin(&j, "traceEvents");
	write_tracks(&j, t, r);
	for (size_t i = 0; i < t->nr_slices; i++) {
		const struct trace_slice *s = &t->slices[i];

		write_slice(&j, t, s, r, syms);
		write_accesses(&j, t, s, layouts[s->h->target], syms);
		if (!s->last)
			write_flow(&j, t, s, s + 1, ++flow_id);
	}
	json_array_end(&j);
	json_object_end(&j);
	json_finish(&j);
}

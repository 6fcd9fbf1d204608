// SPDX-License-Identifier: GPL-2.0
/*
 * A recording's buckets for the differential profile (see diffbuckets.h).
 * Each measure comes from the analysis that owns it: the data profile
 * (samples, misses, latency), the address set (allocations, lifetimes),
 * the working-set model (live objects and bytes, lines per set), the
 * histories and path traces (CPU changes, paths).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cachesim.h"
#include "diffbuckets.h"
#include "histories.h"
#include "ksyms.h"
#include "objects.h"
#include "paths.h"
#include "profile.h"
#include "rawsamples.h"
#include "util.h"

#define B(x) (1u << (x))

const char *const diff_by_names[DIFF_BY_MAX] = {
	[DIFF_BY_TYPE] = "type",
	[DIFF_BY_FIELD] = "field",
	[DIFF_BY_FUNCTION] = "function",
	[DIFF_BY_PATH] = "path",
	[DIFF_BY_SET] = "set",
};

const struct diff_measure_info diff_measures[DIFF_M_MAX] = {
	[DIFF_M_SAMPLES] = { "samples", DIFF_COUNT,
		B(DIFF_BY_TYPE) | B(DIFF_BY_FIELD) | B(DIFF_BY_FUNCTION), 1,
		"samples", "access samples" },
	[DIFF_M_MISSES] = { "misses", DIFF_COUNT,
		B(DIFF_BY_TYPE) | B(DIFF_BY_FIELD) | B(DIFF_BY_FUNCTION), 1,
		"misses", "sampled cache misses (IBS/PEBS only)" },
	[DIFF_M_LATENCY] = { "latency", DIFF_MEAN,
		B(DIFF_BY_TYPE) | B(DIFF_BY_FIELD) | B(DIFF_BY_FUNCTION), 1,
		"cycles", "mean latency of the sampled misses (IBS/PEBS only)" },
	[DIFF_M_ALLOCS] = { "allocs", DIFF_COUNT, B(DIFF_BY_TYPE), 1,
		"allocs", "recorded allocations" },
	[DIFF_M_LIFETIME] = { "lifetime", DIFF_MEAN, B(DIFF_BY_TYPE) |
		B(DIFF_BY_PATH), 1e-3, "us",
		"mean object lifetime (recorded frees; paths: histories)" },
	[DIFF_M_LIVE_OBJECTS] = { "live-objects", DIFF_LEVEL, B(DIFF_BY_TYPE),
		1, "objects", "objects live on average" },
	[DIFF_M_LIVE_BYTES] = { "live-bytes", DIFF_LEVEL, B(DIFF_BY_TYPE), 1,
		"bytes", "objects live on average x object size" },
	[DIFF_M_WS_BYTES] = { "ws-bytes", DIFF_LEVEL, B(DIFF_BY_TYPE), 1,
		"bytes", "working set: live objects x lines they touch (estimate)" },
	[DIFF_M_SIM_MISS_RATE] = { "sim-miss-rate", DIFF_LEVEL, B(DIFF_BY_TYPE),
		100, "%", "miss rate in the LRU simulation (workingset; estimate)" },
	[DIFF_M_CPU_CHANGES] = { "cpu-changes", DIFF_MEAN, B(DIFF_BY_TYPE), 1,
		"per life", "CPU changes per complete history (bounce)" },
	[DIFF_M_REMOTE_FREES] = { "remote-frees", DIFF_COUNT, B(DIFF_BY_TYPE),
		1, "frees", "frees on another CPU than the allocation (bounce)" },
	[DIFF_M_HISTORIES] = { "histories", DIFF_COUNT, B(DIFF_BY_PATH), 1,
		"histories", "complete histories taking the path" },
	[DIFF_M_WS_LINES] = { "ws-lines", DIFF_LEVEL, B(DIFF_BY_SET), 1,
		"lines", "working-set lines in the set on average (estimate)" },
};

int diff_measure_lookup(const char *name)
{
	for (int i = 0; i < DIFF_M_MAX; i++)
		if (!strcmp(diff_measures[i].name, name))
			return i;
	return -1;
}

int diff_by_lookup(const char *name)
{
	for (int i = 0; i < DIFF_BY_MAX; i++)
		if (!strcmp(diff_by_names[i], name))
			return i;
	return -1;
}

static void add(struct diff_table *t, const char *key, double value, double n,
		double var)
{
	diff_table_add(t, key, (struct diff_cell){ value, n, var });
}

static void add_count(struct diff_table *t, const char *key, double count)
{
	add(t, key, count, count, NAN);
}

/* --- from the data profile --------------------------------------------- */

static void profile_buckets(struct diff_table *t, const struct recording *r,
			    enum diff_by by, enum diff_measure m,
			    const struct type_map *map)
{
	struct profile p;

	profile_build(r, map, &p);
	for (size_t i = 0; i < p.nr_types; i++) {
		const struct profile_type *ty = &p.types[i];

		if (by == DIFF_BY_TYPE) {
			if (m == DIFF_M_SAMPLES)
				add_count(t, ty->cache, (double)ty->samples);
			else if (m == DIFF_M_MISSES)
				add_count(t, ty->cache, (double)ty->misses);
			else if (ty->lat_misses)
				add(t, ty->cache, (double)ty->latency_sum /
				    (double)ty->lat_misses,
				    (double)ty->lat_misses, NAN);
			continue;
		}
		for (size_t f = 0; f < ty->nr_fields; f++) {
			const struct profile_field *pf = &ty->fields[f];
			char key[512];

			snprintf(key, sizeof(key), "%s.%s", ty->cache, pf->name);
			if (m == DIFF_M_SAMPLES)
				add_count(t, key, (double)pf->samples);
			else if (m == DIFF_M_MISSES)
				add_count(t, key, (double)pf->misses);
			else if (pf->lat_misses)
				add(t, key, (double)pf->latency_sum /
				    (double)pf->lat_misses,
				    (double)pf->lat_misses, NAN);
		}
	}
	profile_free(&p);
}

/* Misses and their latency exist only where IBS or PEBS measured them. */
static int misses_measured(const struct recording *r, enum diff_measure m,
			   char *err, size_t errlen)
{
	char sampler[16];

	if (m == DIFF_M_SAMPLES || profile_sampler(r, sampler, sizeof(sampler)))
		return 0;
	snprintf(err, errlen,
		 "%s has no measured misses (sampler %s: debug registers see accesses, not misses); compare --measure samples instead",
		 r->path ? r->path : "the recording", sampler);
	return -1;
}

/* The function of @ip, without the offset: "name [module]". */
static void function_key(const struct ksyms *k, uint64_t ip, char *buf,
			 size_t len)
{
	const struct ksym *s = ksyms_find(k, ip);

	if (!s || ip - s->addr > (1u << 20)) {
		snprintf(buf, len, "(unknown)");
		return;
	}
	if (s->module)
		snprintf(buf, len, "%s [%s]", s->name, s->module);
	else
		snprintf(buf, len, "%s", s->name);
}

static void function_buckets(struct diff_table *t, const struct recording *r,
			     enum diff_measure m)
{
	struct dprof_sample_agg *raw = NULL;
	const struct dprof_sample_agg *e = r->samples;
	size_t n = r->nr_samples;
	struct ksyms syms;

	if (!n) {
		n = raw_samples_aggregate(r, &raw);
		e = raw;
	}
	ksyms_load(&syms, r->kallsyms);
	for (size_t i = 0; i < n; i++) {
		uint64_t ip = e[i].ip;
		char key[256];

		if (e[i].flags & DPROF_AGG_WATCH_IP) {
			uint64_t a = ipmap_lookup(r, ip);

			ip = a ? a : ip;
		}
		function_key(&syms, ip, key, sizeof(key));
		if (m == DIFF_M_SAMPLES)
			add_count(t, key, (double)e[i].count);
		else if (m == DIFF_M_MISSES)
			add_count(t, key, (double)e[i].misses);
		else if (agg_latency_misses(&e[i]))
			add(t, key, (double)e[i].latency_sum /
			    (double)agg_latency_misses(&e[i]),
			    (double)agg_latency_misses(&e[i]), NAN);
	}
	ksyms_free(&syms);
	free(raw);
}

/* --- from the address set and the working-set model -------------------- */

static void lives_buckets(struct diff_table *t, const struct recording *r,
			  const struct obj_summary *objs, enum diff_measure m)
{
	for (size_t tg = 0; tg < r->nr_targets; tg++) {
		double sum = 0, sq = 0, k = 0;

		for (size_t i = 0; i < objs->nr_lives; i++) {
			const struct obj_life *o = &objs->lives[i];
			double life;

			if (o->target != tg)
				continue;
			if (m == DIFF_M_ALLOCS) {
				k++;
				continue;
			}
			if (!o->freed || o->end_ns < o->alloc_ns)
				continue;
			life = (double)(o->end_ns - o->alloc_ns);
			sum += life;
			sq += life * life;
			k++;
		}
		if (m == DIFF_M_ALLOCS)
			add_count(t, r->targets[tg].name, k);
		else if (k > 0)
			add(t, r->targets[tg].name, sum / k, k,
			    fmax(0, sq / k - (sum / k) * (sum / k)));
	}
}

static void ws_buckets(struct diff_table *t, const struct recording *r,
		       const struct history_set *hs,
		       const struct obj_summary *objs,
		       const struct ws_geometry *geo, enum diff_measure m)
{
	struct workingset ws;

	workingset_build(&ws, r, hs, objs, geo);
	if (m == DIFF_M_WS_LINES) {
		for (unsigned int s = 0; s < ws.geo.sets; s++) {
			char key[32];

			if (ws.set_lines[s] <= 0)
				continue;
			snprintf(key, sizeof(key), "set %u", s);
			add(t, key, ws.set_lines[s], 1, NAN);
		}
	}
	for (size_t i = 0; m != DIFF_M_WS_LINES && i < ws.nr_types; i++) {
		const struct ws_type *ty = &ws.types[i];
		double v = m == DIFF_M_LIVE_OBJECTS ? ty->objects :
			   m == DIFF_M_LIVE_BYTES ?
			   ty->objects * r->targets[i].object_size : ty->bytes;

		add(t, r->targets[i].name, v, 1, NAN);
	}
	workingset_free(&ws);
}

/* Simulated accesses per recording at most: keeps a diff quick. */
#define SIM_MAX_ACCESSES 5000000

static void sim_buckets(struct diff_table *t, const struct recording *r,
			const struct history_set *hs,
			const struct obj_summary *objs,
			const struct ws_geometry *geo)
{
	struct sim_template *tmpl = xcalloc(r->nr_targets + 1, sizeof(*tmpl));
	struct cachesim sim;

	sim_templates_build(tmpl, r, hs);
	cachesim_run(&sim, tmpl, r->nr_targets, objs, geo, SIM_MAX_ACCESSES);
	for (size_t i = 0; i < r->nr_targets; i++)
		if (sim.types[i].accesses)
			add(t, r->targets[i].name,
			    (double)sim.types[i].misses /
			    (double)sim.types[i].accesses, 1, NAN);
	cachesim_free(&sim);
	sim_templates_free(tmpl, r->nr_targets);
	free(tmpl);
}

/* --- from histories and path traces ------------------------------------ */

static void cpu_change_buckets(struct diff_table *t, const struct recording *r,
			       const struct history_set *hs)
{
	for (size_t tg = 0; tg < r->nr_targets; tg++) {
		double sum = 0, sq = 0, k = 0;

		for (size_t i = 0; i < hs->n; i++) {
			const struct history *h = &hs->h[i];
			int cpu = h->alloc_cpu;
			double c = 0;

			if ((size_t)h->target != tg || !history_complete(h))
				continue;
			for (size_t e = 0; e < h->nr_elems; e++) {
				c += h->elems[e].cpu != cpu;
				cpu = h->elems[e].cpu;
			}
			c += h->end_cpu != cpu;
			sum += c;
			sq += c * c;
			k++;
		}
		if (k > 0)
			add(t, r->targets[tg].name, sum / k, k,
			    fmax(0, sq / k - (sum / k) * (sum / k)));
	}
}

/*
 * A path's name across recordings: its type, sites and steps by symbol
 * (addresses change with KASLR and module loads), hashed into a tag.
 */
static void path_key(const struct recording *r, const struct ksyms *syms,
		     const struct path *p, char *key, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	char a[160], f[160], s[160];

	for (size_t i = 0; i < p->nr_steps; i++) {
		const struct path_step *st = &p->steps[i];

		ksyms_format(syms, st->ip, s, sizeof(s));
		for (const char *c = s; *c; c++)
			h = (h ^ (uint8_t)*c) * 0x100000001b3ull;
		h = (h ^ ((uint64_t)st->offset << 2 | st->write << 1 |
			  st->cpu_change)) * 0x100000001b3ull;
	}
	for (int k = 0; k < p->nr_offsets; k++)
		h = (h ^ p->offset[k]) * 0x100000001b3ull;
	snprintf(key, len, "%s %s -> %s, %zu steps #%08x",
		 r->targets[p->target].name,
		 ksyms_format(syms, p->alloc_site, a, sizeof(a)),
		 ksyms_format(syms, p->free_site, f, sizeof(f)), p->nr_steps,
		 (unsigned int)(h ^ (h >> 32)));
}

static void path_buckets(struct diff_table *t, const struct recording *r,
			 const struct history_set *hs, enum diff_measure m)
{
	struct path_set ps;
	struct ksyms syms;

	paths_build(&ps, r, hs);
	ksyms_load(&syms, r->kallsyms);
	for (size_t i = 0; i < ps.n; i++) {
		const struct path *p = &ps.p[i];
		char key[600];

		path_key(r, &syms, p, key, sizeof(key));
		if (m == DIFF_M_HISTORIES)
			add_count(t, key, (double)p->count);
		else
			add(t, key, p->lifetime_sum_ns / (double)p->count,
			    (double)p->count, NAN);
	}
	ksyms_free(&syms);
	paths_free(&ps);
}

static double meta_number(const struct recording *r, const char *key)
{
	const char *v = recording_meta(r, key);
	char *end;
	double d;

	if (!v)
		return NAN;
	d = strtod(v, &end);
	return end == v || *end ? NAN : d;
}

int diff_buckets_build(struct diff_table *t, const struct recording *r,
		       enum diff_by by, enum diff_measure m,
		       const struct type_map *map,
		       const struct ws_geometry *geo, char *err,
		       size_t errlen)
{
	enum diff_kind kind = diff_measures[m].kind;
	struct obj_summary objs;
	struct history_set hs;

	memset(t, 0, sizeof(*t));
	t->duration_s = (double)r->end.duration_ns / 1e9;
	t->work = meta_number(r, "work");
	t->load = meta_number(r, "load");
	if (!(diff_measures[m].by & B(by))) {
		size_t n = (size_t)snprintf(err, errlen,
			"--measure %s does not exist by %s; it does with -b",
			diff_measures[m].name, diff_by_names[by]);

		for (int b = 0, first = 1; b < DIFF_BY_MAX && n < errlen; b++)
			if (diff_measures[m].by & B(b)) {
				n += (size_t)snprintf(err + n, errlen - n, "%s%s",
						      first ? " " : " or ",
						      diff_by_names[b]);
				first = 0;
			}
		return -1;
	}
	switch (m) {
	case DIFF_M_SAMPLES:
	case DIFF_M_MISSES:
	case DIFF_M_LATENCY:
		if (misses_measured(r, m, err, errlen))
			return -1;
		if (by == DIFF_BY_FUNCTION)
			function_buckets(t, r, m);
		else
			profile_buckets(t, r, by, m, map);
		break;
	case DIFF_M_ALLOCS:
	case DIFF_M_LIFETIME:
	case DIFF_M_LIVE_OBJECTS:
	case DIFF_M_LIVE_BYTES:
	case DIFF_M_WS_BYTES:
	case DIFF_M_SIM_MISS_RATE:
	case DIFF_M_WS_LINES:
	case DIFF_M_CPU_CHANGES:
	case DIFF_M_HISTORIES:
	case DIFF_M_REMOTE_FREES:
		if (objects_summarize(r, &objs)) {
			snprintf(err, errlen, "%s: too many CPUs",
				 r->path ? r->path : "the recording");
			return -1;
		}
		histories_build(&hs, r);
		if (by == DIFF_BY_PATH)
			path_buckets(t, r, &hs, m);
		else if (m == DIFF_M_ALLOCS || m == DIFF_M_LIFETIME)
			lives_buckets(t, r, &objs, m);
		else if (m == DIFF_M_CPU_CHANGES)
			cpu_change_buckets(t, r, &hs);
		else if (m == DIFF_M_SIM_MISS_RATE)
			sim_buckets(t, r, &hs, &objs, geo);
		else if (m == DIFF_M_REMOTE_FREES)
			for (size_t i = 0; i < r->nr_targets &&
			     i < objs.nr_targets; i++)
				add_count(t, r->targets[i].name,
					  (double)objs.targets[i].remote_frees);
		else
			ws_buckets(t, r, &hs, &objs, geo, m);
		histories_free(&hs);
		objects_free(&objs);
		break;
	default:
		snprintf(err, errlen, "unknown measure");
		return -1;
	}
	diff_table_finish(t, kind);
	return 0;
}

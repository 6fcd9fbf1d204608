// SPDX-License-Identifier: GPL-2.0
/*
 * Working-set occupancy model (see workingset.h).  Touch probabilities
 * are per 8-byte slot of a type: the share of the complete histories
 * watching a slot in which it was accessed.  An object's line is touched
 * with the largest probability of its slots (slots of one line are
 * usually used together).  A slot of the type's plan that no usable
 * history watched is unknown: it counts at the watched slots' mean, and
 * its line's upper bound is 1.  Cost: one pass over the lives, times the
 * slots of the object.
 */
#include <stdlib.h>
#include <string.h>
#include "classify.h"
#include "diffstat.h"
#include "workingset.h"
#include "util.h"
#include "trackrule.h"

#define SLOT 8

/*
 * Geometries the models can hold: a power-of-two line of 16 B to 4 KiB,
 * 1 to 1024 ways, and at most WS_MAX_LINES lines (a 1 GiB cache of
 * 64-byte lines; the simulation keeps some 40 bytes per line).  Anything
 * else in a recording or on the command line is bad input, not an
 * allocation to attempt.
 */
bool ws_geometry_ok(uint64_t sets, uint64_t ways, uint64_t line)
{
	return line >= 16 && line <= 4096 && !(line & (line - 1)) &&
	       ways >= 1 && ways <= 1024 && sets >= 1 &&
	       sets * ways <= WS_MAX_LINES;
}

bool ws_geometry_from(const struct recording *r, unsigned int level,
		      struct ws_geometry *g)
{
	for (size_t i = 0; i < r->nr_caches; i++) {
		const struct dprof_file_cache *c = &r->caches[i];
		unsigned int ways = c->ways ? c->ways : 1;

		if (c->type == DPROF_CACHE_INSTRUCTION ||
		    !ws_geometry_ok(c->sets, ways, c->line_size) ||
		    (level && c->level != level))
			continue;
		g->level = c->level;
		g->size = c->size;
		g->ways = ways;
		g->line = c->line_size;
		g->sets = c->sets;
		return true;
	}
	return false;
}

/* "32K,8,64" -> geometry; false when malformed or out of range. */
bool ws_parse_cache(const char *s, struct ws_geometry *g)
{
	char *end;
	uint64_t size = strtoull(s, &end, 10), ways, line, sets;

	if (end == s || size > (UINT64_C(1) << 40))
		return false;
	if (*end == 'K' || *end == 'k')
		size <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		size <<= 20, end++;
	if (*end != ',')
		return false;
	ways = strtoull(end + 1, &end, 10);
	if (*end != ',')
		return false;
	line = strtoull(end + 1, &end, 10);
	if (*end || !ways || !line || ways > 1024 || line > 4096 ||
	    size % (ways * line))
		return false;
	sets = size / (ways * line);
	if (!ws_geometry_ok(sets, ways, line))
		return false;
	g->size = size;
	g->ways = (unsigned int)ways;
	g->line = (unsigned int)line;
	g->sets = (unsigned int)sets;
	g->level = 0;
	return true;
}

/* Per type and slot: touch probability, and the histories behind it. */
struct slot_touch {
	double p;
	uint64_t watched;	/* 0: from samples, or nothing */
	/*
	 * In the type's plan but watched by no usable history: p is the
	 * watched slots' mean, and nothing bounds it (0 to 1).  A type with
	 * a few lives of a large object (kmalloc-8k: 4 of its 256 items)
	 * had its other lines counted untouched, with an interval of none.
	 */
	bool unknown;
};

/* Marks @t's plan slots no history watched as unknown, at @p's mean. */
static void plan_slots_unknown(const struct recording *r, size_t t,
			       struct slot_touch *p, size_t nslots)
{
	double sum = 0;
	size_t n = 0;

	for (size_t s = 0; s < nslots; s++)
		if (p[s].watched) {
			sum += p[s].p;
			n++;
		}
	if (!n)
		return;
	for (size_t i = 0; i < r->nr_plans; i++) {
		const struct dprof_plan_item *it = &r->plans[i];

		if (it->target != t)
			continue;
		for (int k = 0; k < it->nr_offsets &&
				k < DPROF_HIST_MAX_OFFSETS; k++) {
			size_t s = it->offset[k] / SLOT;

			if (it->offset[k] == DPROF_HIST_NO_OFFSET ||
			    s >= nslots || p[s].watched)
				continue;
			p[s].p = sum / (double)n;
			p[s].unknown = true;
		}
	}
}

static struct slot_touch *slot_probabilities(const struct recording *r,
					     const struct history_set *hs,
					     size_t t, uint32_t size,
					     bool *from_hist,
					     uint64_t *histories)
{
	size_t nslots = (size + SLOT - 1) / SLOT;
	struct slot_touch *p = xcalloc(nslots + 1, sizeof(*p));
	uint64_t *touched = xcalloc(nslots + 1, sizeof(*touched));

	*from_hist = false;
	*histories = 0;
	for (size_t i = 0; i < hs->n; i++) {
		const struct history *h = &hs->h[i];
		bool seen[DPROF_HIST_MAX_OFFSETS] = { false };

		if ((size_t)h->target != t || !classify_usable(h))
			continue;
		(*histories)++;
		for (size_t k = 0; k < h->nr_elems; k++)
			for (int w = 0; w < h->nr_offsets; w++)
				seen[w] |= h->elems[k].offset == h->offset[w];
		for (int w = 0; w < h->nr_offsets; w++) {
			size_t s = h->offset[w] / SLOT;

			if (s < nslots) {
				p[s].watched++;
				touched[s] += seen[w];
			}
		}
	}
	for (size_t s = 0; s < nslots; s++)
		if (p[s].watched) {
			p[s].p = (double)touched[s] / (double)p[s].watched;
			*from_hist = true;
		}
	if (*from_hist)
		plan_slots_unknown(r, t, p, nslots);
	else	/* IBS/PEBS without histories: sampled slots */
		for (size_t i = 0; i < r->nr_samples; i++)
			if (r->samples[i].target == r->targets[t].index &&
			    r->samples[i].offset / SLOT < nslots)
				p[r->samples[i].offset / SLOT].p = 1.0;
	free(touched);
	return p;
}

/* The 95% bounds of a line touched with @p by @watched histories. */
static void line_bounds(double p, uint64_t watched, double *lo, double *hi)
{
	if (!watched) {		/* samples: no interval */
		*lo = p;
		*hi = p;
		return;
	}
	diff_wilson(p * (double)watched, (double)watched, lo, hi);
}

static int by_lines(const void *a, const void *b)
{
	const struct ws_hot_set *x = a, *y = b;

	return x->lines > y->lines ? -1 : x->lines < y->lines;
}

void workingset_build(struct workingset *ws, const struct recording *r,
		      const struct history_set *hs,
		      const struct obj_summary *objs,
		      const struct ws_geometry *geo)
{
	struct slot_touch **probs;
	double *by_type, *one_in;
	unsigned int *shift;
	size_t nt = r->nr_targets;

	memset(ws, 0, sizeof(*ws));
	ws->geo = *geo;
	ws->nr_types = nt;
	ws->types = xcalloc(nt ? nt : 1, sizeof(*ws->types));
	ws->set_lines = xcalloc(geo->sets, sizeof(*ws->set_lines));
	ws->set_lo = xcalloc(geo->sets, sizeof(*ws->set_lo));
	ws->set_hi = xcalloc(geo->sets, sizeof(*ws->set_hi));
	by_type = xcalloc((size_t)geo->sets * (nt ? nt : 1), sizeof(*by_type));
	probs = xcalloc(nt ? nt : 1, sizeof(*probs));
	/* Read from the status text once per cache, not once per life. */
	one_in = xcalloc(nt ? nt : 1, sizeof(*one_in));
	shift = xcalloc(nt ? nt : 1, sizeof(*shift));
	for (size_t t = 0; t < nt; t++) {
		one_in[t] = recording_track_one_in(r, t);
		shift[t] = (unsigned int)__builtin_ctz((unsigned int)one_in[t]);
	}
	ws->track_one_in = recording_track_one_in_max(r);
	ws->duration_ns = objs->last_ns > objs->first_ns ?
			  (double)(objs->last_ns - objs->first_ns) : 0;
	for (size_t t = 0; t < nt; t++) {
		ws->types[t].target = (unsigned int)t;
		probs[t] = slot_probabilities(r, hs, t, r->targets[t].object_size,
					      &ws->types[t].from_histories,
					      &ws->types[t].histories);
	}
	for (size_t i = 0; ws->duration_ns > 0 && i < objs->nr_lives; i++) {
		const struct obj_life *o = &objs->lives[i];
		size_t t = o->target;
		uint32_t size;
		double weight, lines = 0, lines_lo = 0, lines_hi = 0;
		/* The line's most touched known slot; its unknown ones' p. */
		struct slot_touch line_p = { 0, 0, false };
		double unknown_p = 0;
		bool unknown = false;
		uint64_t cur_line = UINT64_MAX;

		if (t >= nt || o->end_ns < o->alloc_ns)
			continue;
		/*
		 * Only the lives the rule at the end keeps: the cache's rule
		 * grew coarser during the run where the lives recorded before
		 * were more, and the ones a sweep dropped have no free.
		 * Weighing those by the last rule read skbuff_head_cache's
		 * objects live 5 times the referee's in 6 of 26 memcached runs.
		 */
		if (!dprof_track_rule(o->addr, shift[t]))
			continue;
		size = r->targets[t].object_size;
		/* A followed life stands for track_one_in of them. */
		weight = (double)(o->end_ns - o->alloc_ns) / ws->duration_ns *
			 one_in[t];
		ws->types[t].objects += weight;
		/* Slots in address order: close a line when the next begins. */
		for (uint32_t off = 0; off <= size; off += SLOT) {
			uint64_t line = off < size ? (o->addr + off) / geo->line :
					UINT64_MAX;

			if (line != cur_line && cur_line != UINT64_MAX &&
			    (line_p.p > 0 || unknown)) {
				size_t set = cur_line % geo->sets;
				double lo, hi, p = line_p.p;

				line_bounds(line_p.p, line_p.watched, &lo, &hi);
				/* A slot of it no history watched: up to 1. */
				if (unknown) {
					p = p > unknown_p ? p : unknown_p;
					hi = 1;
				}
				ws->set_lines[set] += weight * p;
				ws->set_lo[set] += weight * lo;
				ws->set_hi[set] += weight * hi;
				by_type[set * nt + t] += weight * p;
				lines += p;
				lines_lo += lo;
				lines_hi += hi;
				if (line_p.watched &&
				    (!ws->types[t].fewest ||
				     line_p.watched < ws->types[t].fewest))
					ws->types[t].fewest = line_p.watched;
			}
			if (line != cur_line) {
				cur_line = line;
				line_p.p = 0;
				line_p.watched = 0;
				unknown = false;
				unknown_p = 0;
			}
			if (off >= size)
				continue;
			if (probs[t][off / SLOT].unknown) {
				unknown = true;
				unknown_p = probs[t][off / SLOT].p;
			} else if (probs[t][off / SLOT].p > line_p.p) {
				line_p = probs[t][off / SLOT];
			}
		}
		ws->types[t].lines_per_object += weight * lines;
		ws->types[t].lines_lo += weight * lines_lo;
		ws->types[t].lines_hi += weight * lines_hi;
	}
	for (size_t t = 0; t < nt; t++) {
		struct ws_type *ty = &ws->types[t];

		ws->total_lines += ty->lines_per_object;
		ws->total_lo += ty->lines_lo;
		ws->total_hi += ty->lines_hi;
		ty->bytes = ty->lines_per_object * geo->line;
		ty->bytes_lo = ty->lines_lo * geo->line;
		ty->bytes_hi = ty->lines_hi * geo->line;
		if (ty->objects > 0) {
			ty->lines_per_object /= ty->objects;
			ty->lines_lo /= ty->objects;
			ty->lines_hi /= ty->objects;
		}
		free(probs[t]);
	}
	free(probs);
	free(one_in);
	free(shift);
	for (unsigned int s = 0; s < geo->sets; s++)
		if (ws->set_lines[s] > ws->max_set_lines)
			ws->max_set_lines = ws->set_lines[s];
	ws->avg_set_lines = ws->total_lines / geo->sets;
	/* Conflict: more lines than ways, and twice the average or more. */
	{
		struct ws_hot_set *all = xcalloc(geo->sets, sizeof(*all));
		size_t n = 0;

		/* Decided on the lower bound; the upper bound alone: undecided. */
		for (unsigned int s = 0; s < geo->sets; s++)
			if (ws->set_lo[s] > geo->ways &&
			    ws->set_lo[s] >= 2 * ws->avg_set_lines) {
				all[n].set = s;
				all[n++].lines = ws->set_lines[s];
			} else if (ws->set_hi[s] > geo->ways &&
				   ws->set_hi[s] >= 2 * ws->avg_set_lines) {
				ws->nr_conflict_undecided++;
			}
		if (n)
			qsort(all, n, sizeof(*all), by_lines);
		for (size_t k = 0; k < n && k < WS_MAX_HOT; k++) {
			ws->hot[k] = all[k];
			ws->hot[k].by_type = xcalloc(nt ? nt : 1, sizeof(double));
			memcpy(ws->hot[k].by_type, &by_type[all[k].set * nt],
			       nt * sizeof(double));
		}
		ws->nr_hot = n < WS_MAX_HOT ? n : WS_MAX_HOT;
		ws->conflict = n > 0;
		free(all);
	}
	/*
	 * Capacity: more lines than the cache holds, spread evenly; decided
	 * when the whole interval is on one side of the cache's lines.
	 */
	{
		double fit = (double)geo->sets * geo->ways;
		bool even = ws->max_set_lines < 2 * ws->avg_set_lines;

		ws->capacity = ws->total_lo > fit && even;
		ws->capacity_undecided = !ws->capacity && even &&
					 ws->total_hi > fit;
	}
	free(by_type);
}

void workingset_free(struct workingset *ws)
{
	for (size_t k = 0; k < ws->nr_hot; k++)
		free(ws->hot[k].by_type);
	free(ws->types);
	free(ws->set_lines);
	free(ws->set_lo);
	free(ws->set_hi);
	memset(ws, 0, sizeof(*ws));
}

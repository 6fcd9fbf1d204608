/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cache simulation (thesis 4.2, 5.3): the recorded lives (address set)
 * replay their type's access template, an estimated access stream, through
 * an LRU set-associative cache of the recorded geometry and, beside it, a
 * fully associative LRU cache of the same number of lines.  Every miss is
 * one of the classic three:
 *   cold      the life's first access to that line (a new object);
 *   capacity  the fully associative cache misses too: too much data;
 *   conflict  only the set-associative cache misses: too many lines in
 *             that set.
 * A type's template comes from its complete histories, i.e. its path
 * traces with their frequencies: histories watch one offset set each, so
 * a variant of the template takes one history of every offset set and
 * merges their accesses by time (each access at its time since
 * allocation as a share of that history's life).  Life i replays variant
 * i mod the number of variants, so paths recur in proportion to how often
 * they were seen, and every life's accesses are scaled to its own
 * lifetime.  Without histories, the offsets the access samples saw, once
 * each at allocation.  So the stream is an estimate: the lives and
 * addresses are measured, the accesses within a life are the histories'.
 * Plain analysis: no I/O.
 */
#ifndef DPROF_CACHESIM_H
#define DPROF_CACHESIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "histories.h"
#include "objects.h"
#include "recfile.h"
#include "workingset.h"

enum sim_source {
	SIM_SOURCE_NONE,	/* nothing known: the type is not simulated */
	SIM_SOURCE_HISTORIES,	/* complete histories (path traces) */
	SIM_SOURCE_SAMPLES,	/* sampled offsets, once each, at allocation */
};

struct sim_access {
	uint32_t offset;
	double frac;		/* of the life, 0..1, ascending */
};

struct sim_variant {
	struct sim_access *a;
	size_t n;
};

#define SIM_MAX_VARIANTS 64

struct sim_template {
	enum sim_source source;
	struct sim_variant *v;	/* nv, a power of two */
	size_t nv;
	size_t histories;	/* behind the variants */
	size_t offset_sets;	/* merged into each variant */
};

/*
 * The simulated lives in allocation order, cut into this many batches:
 * the spread of the per-batch rates gives the rates' intervals (the
 * stream's own variation; the templates' sampling error is not in it).
 */
#define SIM_BATCHES 20

enum sim_kind { SIM_MISS, SIM_COLD, SIM_CAPACITY, SIM_CONFLICT, SIM_KINDS };

struct sim_type {
	uint64_t lives, accesses, misses;
	uint64_t cold, capacity, conflict;
	double lines_in_cache;	/* lines it holds, averaged over snapshots */
	uint64_t batch_accesses[SIM_BATCHES];
	uint64_t batch[SIM_KINDS][SIM_BATCHES];
};

/*
 * Half the 95% interval of @ty's rate of @kind (ratio of sums over the
 * batches, Student's t over the batches that had accesses); -1 with
 * fewer than two such batches.
 */
double sim_rate_half(const struct sim_type *ty, enum sim_kind kind);

struct cachesim {
	struct ws_geometry geo;
	size_t nr_types;
	struct sim_type *types;
	uint64_t *set_misses, *set_conflict;	/* geo.sets entries */
	uint64_t accesses, misses, cold, capacity, conflict;
	uint64_t fa_misses;	/* of the fully associative cache */
	uint64_t lives, lives_skipped;	/* simulated; not (access cap) */
	size_t snapshots;
};

/* Templates for the @r->nr_targets types (@t has that many entries). */
void sim_templates_build(struct sim_template *t, const struct recording *r,
			 const struct history_set *hs);
/* Accesses per life, averaged over the variants. */
double sim_template_accesses(const struct sim_template *t);
void sim_templates_free(struct sim_template *t, size_t n);

/*
 * Replays @objs' lives in allocation order until @max_accesses (0: no
 * limit); the lives left are counted in lives_skipped.
 */
void cachesim_run(struct cachesim *sim, const struct sim_template *t,
		  size_t nr_types, const struct obj_summary *objs,
		  const struct ws_geometry *geo, uint64_t max_accesses);
void cachesim_free(struct cachesim *sim);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The referee's cache model: per-core L1D and L2 (inclusive, LRU), a
 * shared last level, MESI between the cores, and the classification of
 * every miss of a core's private caches as the DProf thesis (§5.3) and
 * dprof's classify do:
 *
 *   compulsory     the core never held the line (since the model started)
 *   true sharing   another core's write invalidated the core's copy and
 *                  this access touches bytes written since then
 *   false sharing  invalidated the same way, but this access touches none
 *                  of the bytes written since then
 *   conflict       evicted by the core's own accesses, and a fully
 *                  associative LRU cache of the L2's size would still
 *                  hold it
 *   capacity       evicted, and the fully associative cache would not
 *
 * Accesses come in one total order (the guest runs single-threaded TCG),
 * so no two cores race here.  Plain C, no QEMU: unit-tested on the host
 * (test-coherence.c).
 */
#ifndef REFEREE_COHERENCE_H
#define REFEREE_COHERENCE_H

#include <stdbool.h>
#include <stdint.h>

#define COH_MAX_CORES	8
#define COH_LINE	64

enum coh_kind {
	COH_LOAD,
	COH_STORE,
	COH_ATOMIC,	/* read-modify-write: a store for coherence */
};

enum coh_result {
	COH_HIT,	/* in L1 with the state it needs */
	COH_L1_MISS,	/* in L2 */
	COH_UPGRADE,	/* a store to a shared line: others invalidated */
	COH_COMPULSORY,
	COH_TRUE_SHARING,
	COH_FALSE_SHARING,
	COH_CONFLICT,
	COH_CAPACITY,
	COH_NR_RESULTS,
};

extern const char *const coh_result_names[COH_NR_RESULTS];

struct coh_geometry {
	unsigned int cores;
	unsigned int l1_kb, l1_ways;
	unsigned int l2_kb, l2_ways;
	unsigned int llc_kb, llc_ways;
};

struct coh_outcome {
	enum coh_result result;
	bool llc_miss;		/* went to memory */
	int from_core;		/* sharing misses: the last writer; else -1 */
	/*
	 * A miss of the core's private caches on a line another core holds
	 * Modified: that core (a cache-to-cache transfer of a dirty line,
	 * perf c2c's HITM), whatever the class; else -1.
	 */
	int modified_in;
};

struct coh_model;

/* NULL with a message in @err (at least 128 bytes) on bad geometry. */
struct coh_model *coh_new(const struct coh_geometry *g, char *err);
void coh_free(struct coh_model *m);
/*
 * Core @core accesses @size bytes at physical address @addr (an access
 * that crosses a line is the caller's to split).
 */
struct coh_outcome coh_access(struct coh_model *m, unsigned int core,
			      uint64_t addr, unsigned int size,
			      enum coh_kind kind);
/* Lines the model tracks (for the cost report). */
uint64_t coh_lines(const struct coh_model *m);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The referee's table (referee/, Documentation/referee.rst): every data
 * access of a guest run, per type and offset, with the misses of a
 * coherent cache model classified, read from its JSON with json-c.
 */
#ifndef DPROF_ORACLE_H
#define DPROF_ORACLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct oracle_field {
	char *cache;		/* slab cache, or a global's symbol */
	int global;		/* kind "global" */
	uint32_t object_size;
	uint32_t offset;	/* byte where the access began */
	uint64_t loads, stores, atomics;
	/*
	 * Of the stores, those that were the second half of one plain
	 * read-modify-write instruction (its load is in loads): the
	 * instruction is one access.  0 in tables before the count.
	 */
	uint64_t rmw;
	/*
	 * Of the accesses (loads + stores - rmw + atomics), those made
	 * with interrupts off, which no timer tick stops before; 0 in
	 * tables before the count (see has_irqs_off).
	 */
	uint64_t irqs_off;
	/*
	 * Accesses the allocator made before returning the object (not in
	 * the above): a sampled instruction sees them, a breakpoint armed
	 * at the return does not; and those of them with interrupts off.
	 */
	uint64_t at_alloc, at_alloc_irqs_off;
	uint64_t compulsory, true_sharing, false_sharing, conflict, capacity;
};

/*
 * A slab cache's occupancy (referee/objmap.h): its objects live and the
 * cache lines they touched, averaged over the measured time.  Tables of
 * referees older than this have none.
 */
struct oracle_occupancy {
	char *cache;
	uint32_t object_size;
	double live_objects, touched_lines;
};

struct oracle {
	struct oracle_field *f;
	size_t n;
	struct oracle_occupancy *occ;
	size_t nocc;
	double seconds;		/* measured */
	uint64_t accesses;
	/* the profiler's own objects (allocated while it loaded), left out */
	uint64_t own_objects, own_accesses;
	bool own_marked;	/* the run had the own markers */
	bool has_irqs_off;	/* the fields count irqs_off */
};

/* 0, or -1 after one line on stderr naming the file and the problem. */
int oracle_load(struct oracle *o, const char *path);
void oracle_free(struct oracle *o);

#endif

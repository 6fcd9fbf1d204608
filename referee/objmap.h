/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The referee's own record of live slab objects, from the allocator's
 * calls it follows (oracle.c): address range -> (cache, base).  Plain C,
 * no QEMU.  An object inserted over the range of one still recorded
 * replaces it: that one's free was missed (its life ends there).
 *
 * Occupancy, the referee's working set (issue "A referee on real
 * workloads", item 3): while the window is open, each object remembers
 * the cache lines its life touched (by address, as dprof's workingset
 * counts them), and when the life ends (free, replacement, or the window
 * closing) its cache is credited with its time in the window, and that
 * time multiplied by its touched lines.  Divided by the window's length,
 * these are the objects a cache keeps live on average and the lines
 * they keep in use, the quantities dprof's workingset estimates.  A line
 * counts for the whole life once touched in it, as in dprof's model.
 * Lines past an object's 64th count as its 64th (objects over 4 KiB).
 * Times are the caller's, in nanoseconds.
 */
#ifndef REFEREE_OBJMAP_H
#define REFEREE_OBJMAP_H

#include <stdbool.h>
#include <stdint.h>

struct objmap;

struct objmap *objmap_new(void);
void objmap_free(struct objmap *m);
/* Records [base, base + size) of cache @cache; false without memory. */
bool objmap_insert(struct objmap *m, uint64_t base, uint32_t size,
		   uint32_t cache, uint64_t now);
/* Forgets the object at @base; false if none starts there. */
bool objmap_remove(struct objmap *m, uint64_t base, uint64_t now);
/* The object holding @addr: its cache and base; false if none. */
bool objmap_find(const struct objmap *m, uint64_t addr, uint32_t *cache,
		 uint64_t *base);
/*
 * Marks the object at @base as the profiler's own (allocated while it
 * loaded): it stays in the map, so that its addresses stay typed, but
 * its life credits no occupancy.  False if no object starts at @base.
 */
bool objmap_set_own(struct objmap *m, uint64_t base);
/*
 * objmap_find(), and @addr's line marked touched in the object's life;
 * *@own (when not NULL) says whether it is the profiler's own.
 */
bool objmap_touch(struct objmap *m, uint64_t addr, uint32_t *cache,
		  uint64_t *base, bool *own);
/* Opens or closes the occupancy window at @now. */
void objmap_window(struct objmap *m, bool open, uint64_t now);
/*
 * @cache's sums over closed lives: object-nanoseconds and
 * line-nanoseconds in the window; false if it never had one.
 */
bool objmap_occupancy(const struct objmap *m, uint32_t cache,
		      double *obj_ns, double *line_ns);
uint64_t objmap_live(const struct objmap *m);
uint64_t objmap_replaced(const struct objmap *m);

#endif

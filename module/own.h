/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The profiler's own objects: the perf events dprof creates (breakpoints,
 * in-use ticks, hardware samplers) live in the perf_event slab cache like
 * any program's.  The perf core touches them on every trap and tick, so
 * left alone they would be profiled as the workload's: a user would read
 * dprof's cost as theirs (perf_event reached the top 5 of target=all on
 * memcached).  Every such event is created and released through here, and
 * the resolver and the census refuse them.
 */
#ifndef _DPROF_OWN_H
#define _DPROF_OWN_H

#include <linux/perf_event.h>

struct kmem_cache;

/* The cache holding dprof's own events, once it created one; NULL before. */
extern struct kmem_cache *dprof_own_cache;

int dprof_own_init(void);
void dprof_own_exit(void);

/* perf_event_create_kernel_counter(), the event remembered as dprof's. */
struct perf_event *dprof_own_counter(struct perf_event_attr *attr, int cpu,
				     perf_overflow_handler_t handler,
				     void *context);
/* perf_event_release_kernel(), the event forgotten first. */
void dprof_own_release(struct perf_event *event);

/* Is @base, an object of cache @s, one of dprof's own?  Any context. */
bool dprof_own_contains(unsigned long base);

static inline bool dprof_own_object(const struct kmem_cache *s,
				    unsigned long base)
{
	return unlikely(s == READ_ONCE(dprof_own_cache)) &&
	       dprof_own_contains(base);
}

/* Lookups that refused an object as dprof's own, and the objects now. */
void dprof_own_stats(unsigned long *objects, u64 *refused);

#endif /* _DPROF_OWN_H */

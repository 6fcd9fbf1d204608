/* SPDX-License-Identifier: GPL-2.0 */
/*
 * target.c and adopt.c: the caches being profiled, and the index the
 * hooks read to find a cache's target (any context).
 */
#ifndef _DPROF_TARGET_H
#define _DPROF_TARGET_H

#include <linux/types.h>
#include <linux/compiler.h>
#include <linux/hash.h>
#include "uapi/dprof.h"

struct kmem_cache;

struct dprof_target {
	struct kmem_cache *cache;	/* identity only on hot paths */
	unsigned int object_size;
	unsigned int stride;
	unsigned int left_pad;		/* slub_debug's left red zone */
	unsigned int flags;		/* DPROF_TARGET_* */
	u64 older;			/* objects the scan found live */
	unsigned long var_addr;		/* DPROF_TARGET_VAR: the variable */
	bool gone;			/* dead for good (target.c life_lock) */
	/*
	 * Objects followed 1 in 2^track_shift by address hash (liveset.c);
	 * frees test sweep_shift, the oldest rule still in the set.
	 */
	unsigned int track_shift;
	unsigned int sweep_shift;
	bool low;			/* in the low set (liveset.c low_lock) */
	char name[DPROF_NAME_LEN];
	/* Tracked allocations, counted racily (a rate, not a total). */
	unsigned int tracked;
	/*
	 * Its allocations since load, each tracked one counted as the
	 * 2^track_shift it stands for (racy: a lost add is an allocation
	 * less in the young windows' and lives' scale, profile.c).
	 */
	u64 allocs_scaled;
};

extern struct dprof_target dprof_targets[DPROF_MAX_TARGETS];
extern unsigned int dprof_nr_targets;
extern bool dprof_have_kmalloc_target;
extern bool dprof_target_all;	/* target=all */

#define DPROF_MAX_NAMED_TARGETS	8	/* names in target= */
/* With the siblings size-N adds (kmalloc-cg-N, buckets, random caches). */
#define DPROF_MAX_LISTED_TARGETS	64
/* Offsets in records and tables are 16 bits (struct dprof_sample_agg). */
#define DPROF_MAX_OBJECT_SIZE	65536

/* target= (adopt.c): the caches named, or every cache. */
int dprof_target_init(void);
void dprof_target_start(void);
void dprof_target_stop(void);
void dprof_target_exit(void);
/*
 * Cache pointer -> target index, for the hooks (any context): open
 * addressing keyed by the pointer, written only under target.c's lock in
 * process context, read with plain loads.  An entry is never moved; a
 * dead cache's entry becomes a tombstone (target.c, "lives of target
 * caches"), so a new cache at the same address is a new target.
 * The lookup is inline: every allocation and free in the system asks.
 */
#define DPROF_INDEX_BITS	13	/* 8192 slots for at most 4095 targets */
#define DPROF_INDEX_PROBES	32
#define DPROF_INDEX_TOMB	((struct kmem_cache *)1UL)

struct dprof_cache_slot {
	struct kmem_cache *cache;	/* NULL empty, INDEX_TOMB removed */
	int target;
};

extern struct dprof_cache_slot dprof_cache_index[1 << DPROF_INDEX_BITS];

static inline unsigned int dprof_index_slot(const struct kmem_cache *s,
					    unsigned int i)
{
	return (hash_ptr(s, DPROF_INDEX_BITS) + i) &
	       ((1U << DPROF_INDEX_BITS) - 1);
}

/* Index of the live target whose cache is @s, or -1.  Any context. */
static inline int dprof_target_of_cache(const struct kmem_cache *s)
{
	unsigned int i;

	if (!s)
		return -1;
	for (i = 0; i < DPROF_INDEX_PROBES; i++) {
		const struct dprof_cache_slot *slot =
			&dprof_cache_index[dprof_index_slot(s, i)];
		/* Acquire: paired with the publication's store-release. */
		struct kmem_cache *c = smp_load_acquire(&slot->cache);
		int t;

		if (!c)
			return -1;
		if (c != s)
			continue;
		t = READ_ONCE(slot->target);
		if (READ_ONCE(dprof_targets[t].flags) & DPROF_TARGET_DEAD)
			return -1;
		return t;
	}
	return -1;
}

/*
 * Destroys in flight that target.c counts at once, per cache pointer;
 * the destroy probe's instances are as many.  Beyond them a destroy is
 * not seen at entry (counted in status); its cache still dies for good
 * when its struct kmem_cache is freed.
 */
#define DPROF_DESTROYS_IN_FLIGHT	1024
/* kmem_cache_destroy(@s) entered: the target it stops, or -1. */
int dprof_target_destroy_begin(const struct kmem_cache *s, bool *tracked);
/* kmem_cache_destroy(@s) returned (when its begin was tracked). */
void dprof_target_destroy_end(const struct kmem_cache *s);
/* The struct kmem_cache at @s is being freed. */
void dprof_target_cache_freed(const struct kmem_cache *s);
void dprof_target_life_stats(unsigned int *aliases, unsigned int *overflow);
/*
 * For adopt.c, which decides what becomes a target: under the lock it
 * fills dprof_targets[dprof_nr_targets] and publishes it for cache @s,
 * read by a walk that began at dprof_target_life_seq() @since (-EAGAIN:
 * @s began dying since then).
 */
void dprof_target_lock(void);
void dprof_target_unlock(void);
u64 dprof_target_life_seq(void);
int dprof_target_publish(struct kmem_cache *s, u64 since);
bool dprof_target_known(const struct kmem_cache *s);
void dprof_target_clear(void);
void dprof_target_unknown_alloc(void);
/* watch_symbols=: a kernel variable as a target; its index or -errno. */
int dprof_target_add_variable(const char *name, unsigned long addr,
			      unsigned int size);
/* Its module is going: no sample or watch is attributed to it again. */
void dprof_target_var_gone(int target);
void dprof_target_all_stats(u64 *unknown, unsigned int *over_limit,
			    unsigned int *too_large, unsigned int *nr_rescans,
			    unsigned int *retried);
/* target=kmalloc-N: the caches of size N it leaves out, or NULL. */
const char *dprof_target_missed_siblings(void);

#endif /* _DPROF_TARGET_H */

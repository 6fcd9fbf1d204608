/* SPDX-License-Identifier: GPL-2.0 */
/*
 * allocount.c: under target=all, every allocation of every cache counted
 * per CPU by a hash of its cache pointer, the young windows' and lives'
 * scale (profile.c).  The tracked allocations scaled by 2^track_shift
 * are an unbiased count too, but of a sample of addresses: a type whose
 * allocations reuse a handful of addresses (TCP's fclones under Apache,
 * recycled by each CPU's free list) is counted by whether those few hash
 * in, and its share swung from 0.3% to 14.5% between runs of the same
 * load.  The cache pointer is in hand on every allocation hook's path
 * (kmalloc finds it from the page for the low set), so counting all of
 * them is one per-CPU increment.
 */
#ifndef _DPROF_ALLOCOUNT_H
#define _DPROF_ALLOCOUNT_H

#include <linux/compiler.h>
#include <linux/hash.h>
#include <linux/percpu.h>
#include <linux/types.h>

struct kmem_cache;

/*
 * 4096 counters of 8 bytes per CPU (32 KiB, the most one dynamic per-CPU
 * allocation may take): with some 260 caches, one shares its counter
 * with another 6% of the time, and is then scaled from its tracked
 * allocations as before.
 */
#define DPROF_ALLOC_COUNT_BITS	12

extern u64 __percpu *dprof_alloc_counts;

/* Any context: one allocation from @s (nothing unless counting). */
static __always_inline void dprof_count_allocs(const struct kmem_cache *s,
					       unsigned long n)
{
	u64 __percpu *c = READ_ONCE(dprof_alloc_counts);

	if (c)
		this_cpu_add(c[hash_ptr((void *)s, DPROF_ALLOC_COUNT_BITS)],
			     n);
}

/*
 * target=all: counting starts; an allocation failure leaves it off (and
 * the draws to the any gate).
 */
void dprof_alloc_count_init(void);
/* After the hooks are gone (their calls have returned). */
void dprof_alloc_count_exit(void);
/*
 * Process context.  Which counters hold one target's allocations only:
 * NULL when not counting or out of memory (kfree() it).
 */
u16 *dprof_alloc_count_owners(void);
/*
 * Target @t's allocations since load: all of them where @owners says
 * its counter is its own (*@exact true), else its tracked ones scaled.
 */
u64 dprof_alloc_count(unsigned int t, const u16 *owners, bool *exact);
/*
 * How target=all draws the type of a young window or a life (pick_types=,
 * collector.c): from the counters, in proportion to each type's
 * allocations over the last quarter second or to their square root;
 * half by those and half by them times the spread of the type's lives
 * so far (the default, plan.c, dprof_plan_life_spread()); or by the any
 * gate (the first allocation after an instant, whatever its cache)
 * (design.rst, "Lives").
 */
enum dprof_draw_rule {
	DPROF_DRAW_GATE,
	DPROF_DRAW_RATE,
	DPROF_DRAW_SQRT,
	DPROF_DRAW_SPREAD,
};

/*
 * The collector: a target drawn by @rule, or -1 (then the any gate): no
 * counters, the gate's rule, or a type drawn that allocates under 100
 * times a second (its wait would idle the watch).
 */
int dprof_alloc_count_draw(enum dprof_draw_rule rule);
/* For status: counting at all, and the caches with a counter of their own. */
void dprof_alloc_count_stats(bool *counting, unsigned int *own,
			     unsigned int *shared);

#endif

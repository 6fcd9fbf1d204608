// SPDX-License-Identifier: GPL-2.0
/*
 * The targets: the table every record's target index points into, the
 * index from cache pointer to target that every hook reads, and the lives
 * of target caches (destroys in flight, the free of a struct kmem_cache).
 * Which caches become targets is adopt.c's; it publishes them here.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/hash.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include "uapi/dprof.h"
#include "calibrate.h"
#include "target.h"

struct dprof_target dprof_targets[DPROF_MAX_TARGETS];
unsigned int dprof_nr_targets;
/* target=all (adopt.c sets it at load): the hooks and the views read it. */
bool dprof_target_all;

/* The cache index (dprof.h), written only under target_lock. */
struct dprof_cache_slot dprof_cache_index[1 << DPROF_INDEX_BITS];
static DEFINE_MUTEX(target_lock);
/*
 * The lives of target caches.  A target dies for good when its struct
 * kmem_cache is freed (the kmem_cache_free tracepoint on the "kmem_cache"
 * cache, which cannot miss a call) or when kmem_cache_destroy() returns
 * with the cache off slab_caches; while any kmem_cache_destroy() of its
 * cache is in flight it is dead for the time being (DPROF_TARGET_DEAD: no
 * hook records it, no history reserves from it), and a destroy that only
 * dropped a merged alias's reference revives it when the last destroy in
 * flight returns.  Destroys in flight are counted per cache pointer,
 * targets or not, so that a cache adopted while a destroy of it is in
 * flight starts dead.  Every change happens under life_lock, taken only
 * by the destroy probes, the struct's free and the publication of a
 * target, never by an allocation hook (interrupts off: the probes run
 * with them off).
 */
static DEFINE_RAW_SPINLOCK(life_lock);

struct destroy_in_flight {
	const struct kmem_cache *s;
	unsigned int count;
};

static struct destroy_in_flight in_flight[DPROF_DESTROYS_IN_FLIGHT];
static unsigned int in_flight_overflow;	/* destroys not tracked */
static unsigned int alias_destroys;

/*
 * Caches whose destroy began or whose struct was freed, the last
 * DYING_RING of them, numbered by dying_seq: a walk of slab_caches
 * (without slab_mutex, which is not exported) publishes none of the
 * caches it read that were dying since it began.
 */
#define DYING_RING	64
static const struct kmem_cache *dying[DYING_RING];
static u64 dying_seq;

/* Under life_lock. */
static void note_dying(const struct kmem_cache *s)
{
	dying[dying_seq++ % DYING_RING] = s;
}

/* Under life_lock: whether @s may have been dying since @seq. */
static bool dying_since(const struct kmem_cache *s, u64 seq)
{
	u64 i;

	if (dying_seq - seq > DYING_RING)
		return true;	/* the ring went round: cannot tell */
	for (i = seq; i < dying_seq; i++)
		if (dying[i % DYING_RING] == s)
			return true;
	return false;
}

/* Under life_lock: the destroys of @s in flight. */
static struct destroy_in_flight *in_flight_of(const struct kmem_cache *s)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(in_flight); i++)
		if (in_flight[i].count && in_flight[i].s == s)
			return &in_flight[i];
	return NULL;
}

/* Under life_lock: an unused entry of in_flight[], or NULL. */
static struct destroy_in_flight *in_flight_free_slot(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(in_flight); i++)
		if (!in_flight[i].count)
			return &in_flight[i];
	return NULL;
}

/* Under target_lock.  The target must be complete before this. */
static int index_add(struct kmem_cache *s, int target)
{
	unsigned int i;

	for (i = 0; i < DPROF_INDEX_PROBES; i++) {
		struct dprof_cache_slot *slot = &dprof_cache_index[dprof_index_slot(s, i)];

		if (slot->cache && slot->cache != DPROF_INDEX_TOMB)
			continue;
		WRITE_ONCE(slot->target, target);
		/* Readers that see the pointer see the index. */
		smp_store_release(&slot->cache, s);
		return 0;
	}
	return -ENOSPC;
}

/* Whether @s has an index entry (a target in any state but buried). */
bool dprof_target_known(const struct kmem_cache *s)
{
	unsigned int i;

	for (i = 0; i < DPROF_INDEX_PROBES; i++) {
		struct kmem_cache *c = dprof_cache_index[dprof_index_slot(s, i)].cache;

		if (!c)
			return false;
		if (c == s)
			return true;
	}
	return false;
}

/*
 * The target whose cache is @s in any state, or -1: the index entry goes
 * only when the target dies for good.  Under life_lock or target_lock.
 */
static int index_lookup(const struct kmem_cache *s)
{
	unsigned int i;

	for (i = 0; i < DPROF_INDEX_PROBES; i++) {
		const struct dprof_cache_slot *slot =
			&dprof_cache_index[dprof_index_slot(s, i)];
		struct kmem_cache *c = READ_ONCE(slot->cache);

		if (!c)
			return -1;
		if (c == s)
			return READ_ONCE(slot->target);
	}
	return -1;
}

/* Under life_lock: @t is dead for good; a new cache at its address is new. */
static void target_bury(int t)
{
	const struct kmem_cache *s = dprof_targets[t].cache;
	unsigned int i;

	dprof_targets[t].gone = true;
	WRITE_ONCE(dprof_targets[t].flags,
		   dprof_targets[t].flags | DPROF_TARGET_DEAD);
	for (i = 0; i < DPROF_INDEX_PROBES; i++) {
		struct dprof_cache_slot *slot =
			&dprof_cache_index[dprof_index_slot(s, i)];

		if (!slot->cache)
			return;
		if (slot->cache == s) {
			WRITE_ONCE(slot->cache, DPROF_INDEX_TOMB);
			return;
		}
	}
}

/*
 * kmem_cache_destroy(@s) begins (its entry probe; process context,
 * interrupts off).  Returns the target it stops, or -1; false in
 * *@tracked when too many destroys are in flight to count this one (its
 * return must then be ignored).
 */
int dprof_target_destroy_begin(const struct kmem_cache *s, bool *tracked)
{
	struct destroy_in_flight *f;
	unsigned long irqs;
	int t;

	raw_spin_lock_irqsave(&life_lock, irqs);
	note_dying(s);
	f = in_flight_of(s) ?: in_flight_free_slot();
	*tracked = !!f;
	if (f) {
		f->s = s;
		f->count++;
	} else {
		in_flight_overflow++;
	}
	t = index_lookup(s);
	if (t >= 0 && !dprof_targets[t].gone)
		WRITE_ONCE(dprof_targets[t].flags,
			   dprof_targets[t].flags | DPROF_TARGET_DEAD);
	else
		t = -1;
	raw_spin_unlock_irqrestore(&life_lock, irqs);
	return t;
}

static int match_pointer(struct kmem_cache *s, const char *name, void *arg)
{
	return s == arg;
}

/*
 * kmem_cache_destroy(@s) returned (its return probe, process context).  A
 * destroyed cache left slab_caches before the call returned; a cache
 * still listed had only a merged alias destroyed (a reference dropped),
 * and its target lives again once no other destroy of it is in flight.
 * Allocations while a destroy was in flight are not recorded: status
 * counts these gaps.
 */
void dprof_target_destroy_end(const struct kmem_cache *s)
{
	bool listed = dprof_walk_caches(match_pointer, (void *)s) == 1;
	struct destroy_in_flight *f;
	unsigned long irqs;
	int t;

	raw_spin_lock_irqsave(&life_lock, irqs);
	f = in_flight_of(s);
	if (f)
		f->count--;
	t = index_lookup(s);
	if (t >= 0 && !dprof_targets[t].gone) {
		if (!listed) {
			target_bury(t);
		} else if (!f || !f->count) {
			WRITE_ONCE(dprof_targets[t].flags,
				   dprof_targets[t].flags & ~DPROF_TARGET_DEAD);
			alias_destroys++;
		}
	}
	raw_spin_unlock_irqrestore(&life_lock, irqs);
}

/*
 * The struct kmem_cache at @s is being freed (kmem_cache_free() on the
 * "kmem_cache" cache): whatever target it was is gone for good.  Any
 * context the free may come from; interrupts off inside.
 */
void dprof_target_cache_freed(const struct kmem_cache *s)
{
	unsigned long irqs;
	int t;

	raw_spin_lock_irqsave(&life_lock, irqs);
	note_dying(s);
	t = index_lookup(s);
	if (t >= 0 && !dprof_targets[t].gone)
		target_bury(t);
	raw_spin_unlock_irqrestore(&life_lock, irqs);
}

void dprof_target_life_stats(unsigned int *aliases, unsigned int *overflow)
{
	*aliases = READ_ONCE(alias_destroys);
	*overflow = READ_ONCE(in_flight_overflow);
}

/* Where the dying ring stands: take it before a walk of slab_caches. */
u64 dprof_target_life_seq(void)
{
	unsigned long irqs;
	u64 seq;

	raw_spin_lock_irqsave(&life_lock, irqs);
	seq = dying_seq;
	raw_spin_unlock_irqrestore(&life_lock, irqs);
	return seq;
}

/*
 * Under target_lock: publish dprof_targets[dprof_nr_targets] for @s, which
 * a walk that began at dying sequence @since read.  -EAGAIN when @s began
 * dying since: its struct may be freed, or about to be.  A cache with a
 * destroy in flight (begun before the walk) starts dead; the destroy's
 * return buries or revives it.  Under life_lock, so that no destroy or
 * free of @s falls between the check and the publication.
 */
int dprof_target_publish(struct kmem_cache *s, u64 since)
{
	struct dprof_target *t = &dprof_targets[dprof_nr_targets];
	unsigned long irqs;
	int ret = -EAGAIN;

	raw_spin_lock_irqsave(&life_lock, irqs);
	if (dying_since(s, since))
		goto out;
	if (in_flight_of(s))
		t->flags |= DPROF_TARGET_DEAD;
	ret = index_add(s, dprof_nr_targets);
	if (ret)
		goto out;
	/* Publish after the fields: readers loop to dprof_nr_targets. */
	smp_store_release(&dprof_nr_targets, dprof_nr_targets + 1);
out:
	raw_spin_unlock_irqrestore(&life_lock, irqs);
	return ret;
}

int dprof_target_add_variable(const char *name, unsigned long addr,
			      unsigned int size)
{
	struct dprof_target *t;
	int ret;

	mutex_lock(&target_lock);
	if (dprof_nr_targets == DPROF_MAX_TARGETS) {
		mutex_unlock(&target_lock);
		pr_err("watch_symbols=%s: no target slot left (%d in use)\n",
		       name, DPROF_MAX_TARGETS);
		return -ENOSPC;
	}
	t = &dprof_targets[dprof_nr_targets];
	memset(t, 0, sizeof(*t));
	strscpy(t->name, name, sizeof(t->name));
	if (size > DPROF_MAX_OBJECT_SIZE) {
		mutex_unlock(&target_lock);
		pr_err("watch_symbols=%s: %u bytes; dprof records offsets in 16 bits, so it watches variables of at most %u bytes\n",
		       name, size, DPROF_MAX_OBJECT_SIZE);
		return -E2BIG;
	}
	t->object_size = size;
	t->stride = size;
	t->var_addr = addr;
	t->flags = DPROF_TARGET_VAR;
	ret = dprof_nr_targets;
	/* Fields before the count: readers loop to dprof_nr_targets. */
	smp_store_release(&dprof_nr_targets, dprof_nr_targets + 1);
	mutex_unlock(&target_lock);
	return ret;
}

/* adopt.c's walks fill and publish targets under this. */
void dprof_target_lock(void)
{
	mutex_lock(&target_lock);
}

void dprof_target_unlock(void)
{
	mutex_unlock(&target_lock);
}

void dprof_target_var_gone(int target)
{
	struct dprof_target *t = &dprof_targets[target];

	WRITE_ONCE(t->flags, t->flags | DPROF_TARGET_DEAD);
}

/* Every target forgotten (unload, or a load that failed). */
void dprof_target_clear(void)
{
	unsigned long irqs;

	raw_spin_lock_irqsave(&life_lock, irqs);
	WRITE_ONCE(dprof_nr_targets, 0);
	memset(dprof_cache_index, 0, sizeof(dprof_cache_index));
	raw_spin_unlock_irqrestore(&life_lock, irqs);
}

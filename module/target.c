// SPDX-License-Identifier: GPL-2.0
/*
 * The caches being profiled: parse target=, translate the thesis' names,
 * find each cache by walking slab_caches, remember it by pointer.  With
 * target=all every cache is a target, those created after load included
 * (a rescan when the hooks meet an unknown cache).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/hash.h>
#include <linux/mutex.h>
#include <linux/ctype.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <linux/moduleparam.h>
#include "dprof.h"

struct dprof_target dprof_targets[DPROF_MAX_TARGETS];
unsigned int dprof_nr_targets;
bool dprof_have_kmalloc_target;

/* Names used by the DProf thesis and by habit (shared with dprof-view). */
static const struct {
	const char *alias;
	const char *cache;
} target_aliases[] = DPROF_TARGET_ALIASES;

/*
 * "size-N" (thesis, SLAB era) and "kmalloc-N" with N in bytes both become
 * the SLUB name, which writes multiples of 1024 as "Nk": size-1024 ->
 * kmalloc-1k.  Returns false when @in is not of that form.
 */
static bool kmalloc_name(const char *in, char *out, size_t len)
{
	const char *num;
	unsigned int size;

	if (str_has_prefix(in, "size-"))
		num = in + 5;
	else if (str_has_prefix(in, "kmalloc-"))
		num = in + 8;
	else
		return false;
	if (kstrtouint(num, 10, &size))
		return false;	/* already "kmalloc-1k" or not a size */
	if (size == 0)
		return false;
	if (size >= 1024 && size % 1024 == 0)
		snprintf(out, len, "kmalloc-%uk", size / 1024);
	else
		snprintf(out, len, "kmalloc-%u", size);
	return true;
}

static void canonical_name(const char *in, char *out, size_t len)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(target_aliases); i++) {
		if (!strcmp(in, target_aliases[i].alias)) {
			strscpy(out, target_aliases[i].cache, len);
			return;
		}
	}
	if (kmalloc_name(in, out, len))
		return;
	strscpy(out, in, len);
}

/* The cache index (dprof.h), written only under target_lock. */
struct dprof_cache_slot dprof_cache_index[1 << DPROF_INDEX_BITS];
static DEFINE_MUTEX(target_lock);
static DEFINE_PER_CPU(u64, unknown_allocs);	/* target=all: new caches */
static u64 rescan_seen;			/* unknown_allocs at the last rescan */
static unsigned int caches_over_limit;	/* target=all: beyond the limit */
static unsigned int caches_too_large;	/* target=all: objects > 64 KiB */
static unsigned int rescans;
static unsigned int rescans_retried;	/* a walk raced with destroys */

static unsigned int test_rescan_ms = 1000;
module_param(test_rescan_ms, uint, 0444);
MODULE_PARM_DESC(test_rescan_ms, "Tests only: target=all looks for new caches every N ms (default 1000), to race rescans with cache destroys");

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

static void rescan_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(rescan_work, rescan_fn);
bool dprof_target_all;

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

static bool index_has(const struct kmem_cache *s)
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

void dprof_target_life_stats(unsigned int *aliases, unsigned int *overflow,
			     unsigned int *retried)
{
	*aliases = READ_ONCE(alias_destroys);
	*overflow = READ_ONCE(in_flight_overflow);
	*retried = READ_ONCE(rescans_retried);
}

/*
 * Fill @t for cache @s.  The cache comes from a walk without slab_mutex
 * (not exported), so its fields are read with nofault loads: it may be
 * going away under us.
 */
static int target_fill(struct dprof_target *t, struct kmem_cache *s)
{
	u32 size[2];	/* stride ("size"), then object_size after it */

	if (copy_from_kernel_nofault(size, (char *)s + dprof_layout.cache_size,
				     sizeof(size)))
		return -EFAULT;
	t->cache = s;
	t->stride = size[0];
	t->object_size = size[1];
	t->left_pad = 0;
	if (dprof_layout.cache_red_left_pad >= 0 &&
	    copy_from_kernel_nofault(&t->left_pad, (char *)s +
				     dprof_layout.cache_red_left_pad,
				     sizeof(t->left_pad)))
		return -EFAULT;
	if (!t->object_size || t->stride < t->object_size ||
	    t->left_pad > t->stride - t->object_size)
		return -EINVAL;
	if (t->object_size > DPROF_MAX_OBJECT_SIZE)
		return -E2BIG;
	/* kmalloc-N, kmalloc-cg-N, kmalloc-rcl-N and dma-kmalloc-N. */
	if (str_has_prefix(t->name, "kmalloc-") ||
	    str_has_prefix(t->name, "dma-kmalloc-")) {
		t->flags |= DPROF_TARGET_KMALLOC;
		dprof_have_kmalloc_target = true;
	}
	return 0;
}

/* Where the dying ring stands: take it before a walk of slab_caches. */
static u64 dying_now(void)
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
static int target_publish(struct kmem_cache *s, u64 since)
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

static int match_cache(struct kmem_cache *s, const char *name, void *arg)
{
	struct dprof_target *t = arg;

	if (strcmp(name, t->name))
		return 0;
	t->cache = s;
	return 1;
}

static int target_add(const char *requested)
{
	struct dprof_target *t;
	unsigned int i;
	u64 since;
	int ret;

	if (!*requested) {
		pr_err("target=: empty cache name in the list\n");
		return -EINVAL;
	}
	if (!strcmp(requested, "all")) {
		pr_err("target=all profiles every cache: do not combine it with cache names\n");
		return -EINVAL;
	}
	if (dprof_nr_targets == DPROF_MAX_NAMED_TARGETS) {
		pr_err("target=: too many caches (at most %d; target=all profiles every cache)\n",
		       DPROF_MAX_NAMED_TARGETS);
		return -EINVAL;
	}
	t = &dprof_targets[dprof_nr_targets];
	memset(t, 0, sizeof(*t));
	canonical_name(requested, t->name, sizeof(t->name));
	for (i = 0; i < dprof_nr_targets; i++) {
		if (!strcmp(dprof_targets[i].name, t->name)) {
			pr_err("target=: cache '%s' given twice\n", t->name);
			return -EINVAL;
		}
	}
	since = dying_now();
	ret = dprof_walk_caches(match_cache, t);
	if (ret < 0) {
		pr_err("target=: cannot walk the slab cache list (%d)\n", ret);
		return ret;
	}
	if (!t->cache) {
		if (strcmp(requested, t->name))
			pr_err("target=: '%s' means slab cache '%s', which this kernel does not have (names in /proc/slabinfo; merged caches appear under the cache they were merged into: boot with slab_nomerge)\n",
			       requested, t->name);
		else
			pr_err("target=: unknown slab cache '%s'; valid names are in /proc/slabinfo (merged caches appear under the cache they were merged into: boot with slab_nomerge)\n",
			       t->name);
		return -ENOENT;
	}
	ret = target_fill(t, t->cache);
	if (ret == -E2BIG) {
		pr_err("target=: cache '%s' has objects of %u bytes; dprof records offsets in 16 bits, so it profiles objects of at most %u bytes\n",
		       t->name, t->object_size, DPROF_MAX_OBJECT_SIZE);
		return -EINVAL;
	}
	if (ret) {
		pr_err("target=: cache '%s' has an implausible layout (object %u, stride %u, red zone %u); check the calibration in debugfs status\n",
		       t->name, t->object_size, t->stride, t->left_pad);
		return -EINVAL;
	}
	/* Plain kmalloc-N named as such: say where the rest of size N goes. */
	if (str_has_prefix(t->name, "kmalloc-") &&
	    isdigit(t->name[strlen("kmalloc-")]) &&
	    !str_has_prefix(requested, "size-"))
		pr_info("target=%s: kmalloc() with __GFP_ACCOUNT uses kmalloc-cg-*, with GFP_DMA dma-kmalloc-*: name those caches too to profile them (size-N names both kmalloc-N and kmalloc-cg-N)\n",
			t->name);
	mutex_lock(&target_lock);
	ret = target_publish(t->cache, since);
	mutex_unlock(&target_lock);
	if (ret == -EAGAIN)
		pr_err("target=: cache '%s' is being destroyed\n", t->name);
	return ret == -EAGAIN ? -ENOENT : ret;
}

/*
 * size-N, the thesis's name, meant every kmalloc() of N bytes; with memcg
 * kmem accounting (Debian) those with __GFP_ACCOUNT come from kmalloc-cg-N,
 * so size-N profiles that cache too when the kernel has it.  Called just
 * after the kmalloc-N target was added.
 */
static int target_add_cg_twin(void)
{
	const char *plain = dprof_targets[dprof_nr_targets - 1].name;
	struct dprof_target probe = { };
	char twin[DPROF_NAME_LEN];

	snprintf(twin, sizeof(twin), "kmalloc-cg-%s",
		 plain + strlen("kmalloc-"));
	strscpy(probe.name, twin, sizeof(probe.name));
	if (dprof_walk_caches(match_cache, &probe) <= 0 || !probe.cache)
		return 0;	/* no memcg kmem: kmalloc-N is all of size-N */
	return target_add(twin);
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

void dprof_target_var_gone(int target)
{
	struct dprof_target *t = &dprof_targets[target];

	WRITE_ONCE(t->flags, t->flags | DPROF_TARGET_DEAD);
}

struct walk_all {
	bool late;		/* created after load */
	u64 since;		/* the dying sequence when the walk began */
	unsigned int raced;	/* caches dying since: left to the next walk */
};

/* target=all: every cache the walk meets that is not a target yet. */
static int add_any_cache(struct kmem_cache *s, const char *name, void *arg)
{
	struct walk_all *walk = arg;
	struct dprof_target *t;
	int ret;

	/* dprof's own calibration caches are not the kernel's. */
	if (index_has(s) || str_has_prefix(name, "dprof_calib"))
		return 0;
	if (dprof_nr_targets == DPROF_MAX_TARGETS) {
		caches_over_limit++;
		return 0;
	}
	t = &dprof_targets[dprof_nr_targets];
	memset(t, 0, sizeof(*t));
	strscpy(t->name, name, sizeof(t->name));
	if (walk->late)
		t->flags |= DPROF_TARGET_LATE;
	ret = target_fill(t, s);
	if (ret == -E2BIG)
		caches_too_large++;	/* offsets would wrap: shown in status */
	if (ret)
		return 0;	/* going away, or not a cache after all */
	if (target_publish(s, walk->since) == -EAGAIN)
		walk->raced++;
	return 0;
}

/*
 * Caches created after load: the hooks count allocations from caches
 * that are not targets yet; when that count moved, walk the list again.
 * Once a second at most: a new cache's first objects before it are not
 * profiled (and their frees are not matched).
 */
static u64 unknown_sum(void)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu(unknown_allocs, cpu));
	return sum;
}

static unsigned long rescan_delay(void)
{
	return max(1UL, msecs_to_jiffies(clamp(test_rescan_ms, 1U, 1000U)));
}

static void rescan_fn(struct work_struct *work)
{
	u64 unknown = unknown_sum();
	struct walk_all walk = { .late = true };

	if (unknown != rescan_seen) {
		mutex_lock(&target_lock);
		caches_over_limit = 0;
		caches_too_large = 0;
		walk.since = dying_now();
		dprof_walk_caches(add_any_cache, &walk);
		rescans++;
		/* A cache that raced with a destroy: look again next time. */
		if (walk.raced)
			rescans_retried++;
		else
			rescan_seen = unknown;
		mutex_unlock(&target_lock);
	}
	dprof_liveset_adapt();
	schedule_delayed_work(&rescan_work, rescan_delay());
}

/* From the hooks (any context): an allocation from an unknown cache. */
void dprof_target_unknown_alloc(void)
{
	this_cpu_inc(unknown_allocs);
}

void dprof_target_all_stats(u64 *unknown, unsigned int *over_limit,
			    unsigned int *too_large, unsigned int *nr_rescans)
{
	*unknown = unknown_sum();
	*over_limit = READ_ONCE(caches_over_limit);
	*too_large = READ_ONCE(caches_too_large);
	*nr_rescans = READ_ONCE(rescans);
}

static int target_init_all(void)
{
	struct walk_all walk = { .late = false };
	int ret;

	dprof_target_all = true;
	mutex_lock(&target_lock);
	walk.since = dying_now();
	ret = dprof_walk_caches(add_any_cache, &walk);
	mutex_unlock(&target_lock);
	if (ret < 0) {
		pr_err("target=all: cannot walk the slab cache list (%d)\n",
		       ret);
		return ret;
	}
	if (!dprof_nr_targets) {
		pr_err("target=all: found no slab cache; check the calibration in debugfs status\n");
		return -ENOENT;
	}
	if (caches_over_limit)
		pr_warn("target=all: %u caches beyond the first %d are not profiled\n",
			caches_over_limit, DPROF_MAX_TARGETS);
	if (caches_too_large)
		pr_warn("target=all: %u caches of objects over %u bytes are not profiled (16-bit offsets)\n",
			caches_too_large, DPROF_MAX_OBJECT_SIZE);
	return 0;
}

int dprof_target_init(const char *spec)
{
	char *copy, *cursor, *name;
	int ret = 0;

	if (!spec || !*spec) {
		pr_err("no target given: load with target=<cache>[,<cache>...], e.g. target=skbuff (names in /proc/slabinfo), or target=all\n");
		return -EINVAL;
	}
	copy = kstrdup(spec, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	cursor = strim(copy);
	if (!strcmp(cursor, "all")) {
		ret = target_init_all();
		cursor = NULL;
	}
	while (cursor && (name = strsep(&cursor, ",")) != NULL) {
		name = strim(name);
		ret = target_add(name);
		if (!ret && str_has_prefix(name, "size-"))
			ret = target_add_cg_twin();
		if (ret)
			break;
	}
	kfree(copy);
	if (ret)
		dprof_target_exit();
	return ret;
}

/* After the hooks are in: caches created from now on are seen. */
void dprof_target_start(void)
{
	if (dprof_target_all)
		schedule_delayed_work(&rescan_work, rescan_delay());
}

/* Before the hooks go: no rescan may walk the list after this. */
void dprof_target_stop(void)
{
	cancel_delayed_work_sync(&rescan_work);
}

void dprof_target_exit(void)
{
	unsigned long irqs;

	cancel_delayed_work_sync(&rescan_work);
	raw_spin_lock_irqsave(&life_lock, irqs);
	WRITE_ONCE(dprof_nr_targets, 0);
	memset(dprof_cache_index, 0, sizeof(dprof_cache_index));
	raw_spin_unlock_irqrestore(&life_lock, irqs);
	dprof_have_kmalloc_target = false;
	dprof_target_all = false;
}

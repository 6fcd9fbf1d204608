// SPDX-License-Identifier: GPL-2.0
/*
 * Which caches become targets: parse target=, translate the thesis'
 * names, find each cache by walking slab_caches, and publish it through
 * target.c.  With target=all every cache is a target, those created after
 * load included (a rescan when the hooks meet an unknown cache).  The
 * walk takes no slab_mutex (not exported): target.c refuses to publish a
 * cache that began dying since the walk began, and the walk is repeated.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/ctype.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <linux/moduleparam.h>
#include "uapi/dprof.h"
#include "calibrate.h"
#include "target.h"
#include "testparams.h"
#include "allocount.h"
#include "liveset.h"

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

static DEFINE_PER_CPU(u64, unknown_allocs);	/* target=all: new caches */
static unsigned int caches_over_limit;	/* target=all: beyond the limit */
static unsigned int caches_too_large;	/* target=all: objects > 64 KiB */
static unsigned int rescans;
static unsigned int rescans_retried;	/* a walk raced with destroys */

static void rescan_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(rescan_work, rescan_fn);

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
	dprof_track_init_target(t);
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

static int match_cache(struct kmem_cache *s, const char *name, void *arg)
{
	struct dprof_target *t = arg;

	if (strcmp(name, t->name))
		return 0;
	t->cache = s;
	return 1;
}

/*
 * The kmalloc size names ("8" ... "8k"): the suffixes of a set of
 * kmem_buckets_create() caches ("msg_msg-64", "memdup_user-1k", with
 * CONFIG_SLAB_BUCKETS, on in Debian's 6.12) and of the random kmalloc
 * caches ("kmalloc-rnd-05-64", CONFIG_RANDOM_KMALLOC_CACHES).
 */
static const char *const kmalloc_sizes[] = {
	"8", "16", "32", "64", "96", "128", "192", "256", "512", "1k", "2k",
	"4k", "8k",
};

/* A bucket set has a cache for most kmalloc sizes; 4 of them is enough. */
#define BUCKET_SET_MIN 4
#define SIBLINGS_MAX 32

/* What the walks below collect: caches of one size @size besides kmalloc-N. */
struct siblings {
	const char *size;	/* "64", "1k" */
	char name[SIBLINGS_MAX][DPROF_NAME_LEN];
	unsigned int n, more;
	char prefix[DPROF_NAME_LEN];	/* a bucket set being counted */
	unsigned int in_set;
};

static bool is_kmalloc_size(const char *s)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kmalloc_sizes); i++)
		if (!strcmp(s, kmalloc_sizes[i]))
			return true;
	return false;
}

/* "<prefix>-<size>": the size part, or NULL. */
static const char *size_suffix(const char *name)
{
	const char *dash = strrchr(name, '-');

	return dash && dash != name && is_kmalloc_size(dash + 1) ? dash + 1 :
								   NULL;
}

/* Counts the caches of the set named sib->prefix ("<prefix>-<size>"). */
static int count_set(struct kmem_cache *s, const char *name, void *arg)
{
	struct siblings *sib = arg;
	size_t len = strlen(sib->prefix);
	const char *suffix = size_suffix(name);

	if (suffix && suffix == name + len + 1 &&
	    !strncmp(name, sib->prefix, len))
		sib->in_set++;
	return 0;
}

/* "64" -> 64, "1k" -> 1024. */
static unsigned int size_bytes(const char *size)
{
	unsigned int n = 0;

	while (isdigit(*size))
		n = n * 10 + (*size++ - '0');
	return *size == 'k' ? n * 1024 : n;
}

/*
 * Candidates of size sib->size: random kmalloc caches, and caches named
 * "<prefix>-<size>" outside the kmalloc families whose objects are that
 * many bytes (bucket sets, checked by count_set() afterwards; sgpool-64
 * holds 64 scatterlists, not 64 bytes).
 */
static int collect_sibling(struct kmem_cache *s, const char *name, void *arg)
{
	struct siblings *sib = arg;
	const char *suffix = size_suffix(name);
	u32 size[2];	/* stride, object_size (target_fill()) */

	if (!suffix || strcmp(suffix, sib->size))
		return 0;
	if (copy_from_kernel_nofault(size, (char *)s + dprof_layout.cache_size,
				     sizeof(size)) ||
	    size[1] != size_bytes(sib->size))
		return 0;
	if (str_has_prefix(name, "kmalloc-") &&
	    !str_has_prefix(name, "kmalloc-rnd-"))
		return 0;	/* kmalloc-N, -cg-, -rcl-: named otherwise */
	if (str_has_prefix(name, "dma-kmalloc-"))
		return 0;	/* GFP_DMA: its own name, as before */
	if (sib->n == SIBLINGS_MAX) {
		sib->more++;
		return 0;
	}
	strscpy(sib->name[sib->n++], name, DPROF_NAME_LEN);
	return 0;
}

/*
 * The caches that take kmalloc()s of size @size besides kmalloc-N and
 * kmalloc-cg-N: random kmalloc caches and kmem_buckets sets; a cache
 * called "<prefix>-<size>" is a bucket if its prefix has at least
 * BUCKET_SET_MIN sizes.  Returns how many, names in @sib.
 */
static int find_siblings(struct siblings *sib, const char *size)
{
	unsigned int i, kept = 0;
	int ret;

	memset(sib, 0, sizeof(*sib));
	sib->size = size;
	ret = dprof_walk_caches(collect_sibling, sib);
	if (ret < 0)
		return ret;
	for (i = 0; i < sib->n; i++) {
		const char *name = sib->name[i];

		if (!str_has_prefix(name, "kmalloc-rnd-")) {
			strscpy(sib->prefix, name, sizeof(sib->prefix));
			sib->prefix[strlen(name) - strlen(size) - 1] = 0;
			sib->in_set = 0;
			ret = dprof_walk_caches(count_set, sib);
			if (ret < 0)
				return ret;
			if (sib->in_set < BUCKET_SET_MIN)
				continue;	/* a cache that only looks so */
		}
		if (kept != i)
			strscpy(sib->name[kept], name, DPROF_NAME_LEN);
		kept++;
	}
	sib->n = kept;
	return kept;
}

/* target=kmalloc-N: what of size N it leaves out, in the log and status. */
static char missed_siblings[512];

static void note_missed_siblings(const char *size)
{
	struct siblings *sib = kzalloc(sizeof(*sib), GFP_KERNEL);
	size_t pos = strlen(missed_siblings);
	const char *first = missed_siblings + pos + (pos ? 2 : 0);
	unsigned int i;

	/* Several kmalloc-N targets: each one's list, after the last. */
	pos += scnprintf(missed_siblings + pos, sizeof(missed_siblings) - pos,
			 "%skmalloc-cg-%s (__GFP_ACCOUNT), dma-kmalloc-%s (GFP_DMA)",
			 pos ? "; " : "", size, size);
	if (sib && find_siblings(sib, size) > 0)
		for (i = 0; i < sib->n; i++)
			pos += scnprintf(missed_siblings + pos,
					 sizeof(missed_siblings) - pos, ", %s",
					 sib->name[i]);
	pr_info("target=kmalloc-%s: kmalloc()s of this size also go to %s, not profiled: target=size-%s names them all\n",
		size, first, size);
	kfree(sib);
}

const char *dprof_target_missed_siblings(void)
{
	return missed_siblings[0] ? missed_siblings : NULL;
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
	if (dprof_nr_targets == DPROF_MAX_LISTED_TARGETS) {
		pr_err("target=: too many caches (at most %d with the siblings size-N adds; target=all profiles every cache)\n",
		       DPROF_MAX_LISTED_TARGETS);
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
	since = dprof_target_life_seq();
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
		note_missed_siblings(t->name + strlen("kmalloc-"));
	dprof_target_lock();
	ret = dprof_target_publish(t->cache, since);
	dprof_target_unlock();
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

/*
 * And the random kmalloc caches and kmem_buckets sets of that size
 * (find_siblings()), each a target of its own.
 */
static int target_add_size_siblings(const char *plain)
{
	const char *size = plain + strlen("kmalloc-");
	struct siblings *sib = kzalloc(sizeof(*sib), GFP_KERNEL);
	unsigned int i;
	int ret;

	if (!sib)
		return -ENOMEM;
	ret = find_siblings(sib, size);
	for (i = 0; ret >= 0 && i < sib->n; i++) {
		pr_info("target=size-%s: also %s\n", size, sib->name[i]);
		ret = target_add(sib->name[i]);
	}
	if (ret >= 0 && sib->more)
		pr_warn("target=size-%s: %u more caches of this size were not examined\n",
			size, sib->more);
	kfree(sib);
	return ret < 0 ? ret : 0;
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
	if (dprof_target_known(s) || str_has_prefix(name, "dprof_calib"))
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
	/* Its first allocations reach the lookup if it starts low. */
	dprof_track_low_sync(t);
	ret = dprof_target_publish(s, walk->since);
	if (ret)
		dprof_track_low_drop(t);
	if (ret == -EAGAIN)
		walk->raced++;
	return 0;
}

/*
 * Caches created after load: walk the list again once a second (some
 * 100 instructions a cache), so a new cache's first objects before the
 * walk are not profiled (and their frees are not matched).  The hooks
 * count the allocations they meet from caches that are not targets yet,
 * shown in status; in auto mode only those past the gate reach the
 * lookup (1 in 32), so the walk cannot wait for that count to move, as
 * it did before the gate: a cache of a few objects went unseen.
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
	return max(1UL, msecs_to_jiffies(dprof_test_rescan_ms()));
}

static void rescan_fn(struct work_struct *work)
{
	struct walk_all walk = { .late = true };

	dprof_target_lock();
	caches_over_limit = 0;
	caches_too_large = 0;
	walk.since = dprof_target_life_seq();
	dprof_walk_caches(add_any_cache, &walk);
	rescans++;
	/* A cache that raced with a destroy: looked at again next time. */
	if (walk.raced)
		rescans_retried++;
	dprof_target_unlock();
	dprof_liveset_adapt();
	schedule_delayed_work(&rescan_work, rescan_delay());
}

/* From the hooks (any context): an allocation from an unknown cache. */
void dprof_target_unknown_alloc(void)
{
	this_cpu_inc(unknown_allocs);
}

void dprof_target_all_stats(u64 *unknown, unsigned int *over_limit,
			    unsigned int *too_large, unsigned int *nr_rescans,
			    unsigned int *retried)
{
	*retried = READ_ONCE(rescans_retried);
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
	dprof_target_lock();
	walk.since = dprof_target_life_seq();
	ret = dprof_walk_caches(add_any_cache, &walk);
	dprof_target_unlock();
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

static char *target_spec;
module_param_named(target, target_spec, charp, 0444);
MODULE_PARM_DESC(target,
		 "Slab caches to profile, comma-separated (names from /proc/slabinfo; aliases: skbuff, tcp, udp, size-N (every cache kmalloc() of N bytes uses: kmalloc-N, kmalloc-cg-N, kmem_buckets and random kmalloc caches of that size), kmalloc-N; at most 8), or all: every cache, those created later included. Required.");

int dprof_target_init(void)
{
	const char *spec = target_spec;
	char *copy, *cursor, *name;
	unsigned int named = 0;
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
		if (++named > DPROF_MAX_NAMED_TARGETS) {
			pr_err("target=: too many caches (at most %d names; target=all profiles every cache)\n",
			       DPROF_MAX_NAMED_TARGETS);
			ret = -EINVAL;
			break;
		}
		ret = target_add(name);
		if (!ret && str_has_prefix(name, "size-")) {
			char plain[DPROF_NAME_LEN];

			strscpy(plain, dprof_targets[dprof_nr_targets - 1].name,
				sizeof(plain));
			ret = target_add_cg_twin();
			if (!ret)
				ret = target_add_size_siblings(plain);
		}
		if (ret)
			break;
	}
	kfree(copy);
	if (ret)
		dprof_target_exit();
	else if (dprof_target_all)
		dprof_alloc_count_init();
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
	cancel_delayed_work_sync(&rescan_work);
	dprof_alloc_count_exit();
	dprof_target_clear();
	dprof_have_kmalloc_target = false;
	dprof_target_all = false;
}

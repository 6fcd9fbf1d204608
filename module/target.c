// SPDX-License-Identifier: GPL-2.0
/*
 * The caches being profiled: parse target=, translate the thesis' names,
 * find each cache by walking slab_caches, remember it by pointer.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
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
	int ret;

	if (!*requested) {
		pr_err("target=: empty cache name in the list\n");
		return -EINVAL;
	}
	if (dprof_nr_targets == DPROF_MAX_TARGETS) {
		pr_err("target=: too many caches (at most %d)\n",
		       DPROF_MAX_TARGETS);
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
	ret = dprof_walk_caches(match_cache, t);
	if (ret < 0) {
		pr_err("target=: cannot walk the slab cache list (%d)\n", ret);
		return ret;
	}
	if (!t->cache) {
		pr_err("target=: unknown slab cache '%s'; valid names are in /proc/slabinfo (merged caches appear under the cache they were merged into: boot with slab_nomerge)\n",
		       t->name);
		return -ENOENT;
	}
	t->object_size = kmem_cache_size(t->cache);
	t->stride = dprof_cache_stride(t->cache);
	if (!t->object_size || t->stride < t->object_size) {
		pr_err("target=: cache '%s' has an implausible layout (object %u, stride %u); check the calibration in debugfs status\n",
		       t->name, t->object_size, t->stride);
		return -EINVAL;
	}
	if (str_has_prefix(t->name, "kmalloc-") ||
	    str_has_prefix(t->name, "kmalloc-cg-")) {
		t->flags |= DPROF_TARGET_KMALLOC;
		dprof_have_kmalloc_target = true;
	}
	/* Publish after the fields: hooks read dprof_nr_targets first. */
	smp_store_release(&dprof_nr_targets, dprof_nr_targets + 1);
	return 0;
}

int dprof_target_init(const char *spec)
{
	char *copy, *cursor, *name;
	int ret = 0;

	if (!spec || !*spec) {
		pr_err("no target given: load with target=<cache>[,<cache>...], e.g. target=skbuff (names in /proc/slabinfo)\n");
		return -EINVAL;
	}
	copy = kstrdup(spec, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	cursor = strim(copy);
	while ((name = strsep(&cursor, ",")) != NULL) {
		ret = target_add(strim(name));
		if (ret)
			break;
	}
	kfree(copy);
	if (ret)
		dprof_target_exit();
	return ret;
}

void dprof_target_exit(void)
{
	WRITE_ONCE(dprof_nr_targets, 0);
	dprof_have_kmalloc_target = false;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Address resolution for samplers and histories: which target object, if
 * any, holds a data address.  Runs in NMI and #DB context, so it uses plain
 * loads only: the page's folio, the calibrated slab->slab_cache word, the
 * target's stride, and a lookup in the live-object set.
 *
 * A racing free can make the folio stop being a slab; the cache pointer read
 * from it is then only compared with target pointers, never dereferenced,
 * and the live-set lookup rejects objects that are not live (the tracked
 * ones: see dprof_resolve_any()).
 */
#include <linux/mm.h>
#include <linux/module.h>
#include "calibrate.h"
#include "target.h"
#include "liveset.h"
#include "own.h"
#include "resolve.h"

/*
 * Where @addr falls: in a live target object (0), in an object on the
 * grid of a target's slab whose address the tracking rule follows and
 * that is not in the live set (DPROF_RESOLVE_UNKNOWN: free, or older than
 * the module and not established), or neither (-ENOENT).  *@slab tells
 * whether @addr is in a slab at all: the sample path then need not look
 * the folio up a second time.
 */
int dprof_resolve_any(unsigned long addr, struct dprof_resolved *out,
		      bool *slab)
{
	const struct dprof_target *t;
	struct kmem_cache *s;
	unsigned long slab_base, base, rel;
	int target;

	s = dprof_cache_of((const void *)addr, &slab_base);
	*slab = s;
	if (!s)
		return -ENOENT;
	target = dprof_target_of_cache(s);
	if (target < 0)
		return -ENOENT;
	t = &dprof_targets[target];
	/* Objects sit at left_pad + i * stride (slub_debug red zones). */
	rel = addr - slab_base;
	if (rel < t->left_pad)
		return -ENOENT;
	rel -= t->left_pad;
	base = slab_base + t->left_pad + rel - rel % t->stride;
	/* Bytes past object_size are SLUB metadata (free pointer, padding). */
	if (addr - base >= t->object_size)
		return -ENOENT;
	/* dprof's own perf events are not the workload's (own.h). */
	if (dprof_own_object(s, base))
		return -ENOENT;
	out->target = target;
	out->base = base;
	out->offset = addr - base;
	/*
	 * The live set tells a live object from a free one only for the
	 * objects it tracks.  Under sampled tracking (track_one_in > 1) an
	 * untracked object is taken as live: its type and offset are right,
	 * and dropping its samples would keep 1 in track_one_in of them.
	 */
	if (dprof_track_maybe(target, base) && !dprof_liveset_contains(base))
		return DPROF_RESOLVE_UNKNOWN;
	return 0;
}

int dprof_resolve_slab(unsigned long addr, struct dprof_resolved *out,
		       bool *slab)
{
	return dprof_resolve_any(addr, out, slab) ? -ENOENT : 0;
}

int dprof_resolve(unsigned long addr, struct dprof_resolved *out)
{
	bool slab;

	return dprof_resolve_slab(addr, out, &slab);
}
EXPORT_SYMBOL_GPL(dprof_resolve);

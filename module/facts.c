// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs "facts" (uapi/dprof.h, struct dprof_facts): the figures the
 * views need, typed, so that they read no sentence of the module's: the
 * header with the sampler and target=all, and per target its follow
 * rate; the sample counts and each target's share come from profile.c
 * (dprof_profile_facts()), the same share_of() its "profile" rows print.
 */
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include "uapi/dprof.h"
#include "target.h"
#include "liveset.h"
#include "facts.h"
#include "profile.h"
#include "sample.h"
#include "slab.h"

void *dprof_facts_build(size_t *len)
{
	unsigned int nr = READ_ONCE(dprof_nr_targets), t;
	unsigned int base_shift = READ_ONCE(dprof_track_base);
	struct dprof_target_fact *tf;
	struct dprof_facts *f;

	*len = sizeof(*f) + (size_t)nr * sizeof(*tf);
	f = kvzalloc(*len, GFP_KERNEL);
	if (!f)
		return NULL;
	f->size = sizeof(*f);
	f->target_size = sizeof(*tf);
	f->nr_targets = nr;
	f->flags = (dprof_target_all ? DPROF_FACTS_TARGET_ALL : 0) |
		   (dprof_slab_hooked() ? 0 : DPROF_FACTS_NO_HOOKS);
	f->sampler = dprof_sampler()->id;
	f->track_base_shift = base_shift;
	tf = (struct dprof_target_fact *)(f + 1);
	for (t = 0; t < nr; t++) {
		tf[t].target = t;
		/* Below the base, a cache's rule is lifted to it (liveset.c). */
		tf[t].track_shift = max_t(unsigned int,
					  READ_ONCE(dprof_targets[t].track_shift),
					  base_shift);
	}
	if (dprof_profile_facts(f, tf, nr)) {
		kvfree(f);
		return NULL;
	}
	return f;
}

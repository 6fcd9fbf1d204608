/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which groups of each type's history plan (the recording's PLANS
 * section) the recorded complete histories cover, so that a view can say
 * which groups of offsets have no or too few histories instead of
 * leaving them out.  A history names its group by plan_item.  Plain
 * analysis: no printing.
 */
#ifndef DPROF_COVERAGE_H
#define DPROF_COVERAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "histories.h"
#include "recfile.h"

struct coverage_group {
	uint32_t item;		/* index in the type's plan */
	uint16_t offset[DPROF_HIST_MAX_OFFSETS];	/* padded 0xffff */
	uint64_t complete;	/* complete histories of it in the recording */
};

struct coverage_target {
	struct coverage_group *g;	/* by item */
	size_t n;
	size_t short_groups;	/* fewer than the minimum */
};

struct coverage {
	struct coverage_target *t;	/* by recording target */
	size_t nr_targets;
	uint64_t min;		/* complete histories a group should have */
	bool have_plans;	/* false: a recording older than PLANS */
};

void coverage_build(struct coverage *cv, const struct recording *r,
		    const struct history_set *hs, uint64_t min);
void coverage_free(struct coverage *cv);

#endif

// SPDX-License-Identifier: GPL-2.0
/* Coverage of the history plans by the recording (see coverage.h). */
#include <stdlib.h>
#include <string.h>
#include "coverage.h"
#include "util.h"

static struct coverage_group *group_of(struct coverage_target *t,
				       uint32_t item)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->g[i].item == item)
			return &t->g[i];
	return NULL;
}

void coverage_build(struct coverage *cv, const struct recording *r,
		    const struct history_set *hs, uint64_t min)
{
	memset(cv, 0, sizeof(*cv));
	cv->min = min;
	cv->nr_targets = r->nr_targets;
	cv->have_plans = r->nr_plans > 0;
	cv->t = xcalloc(r->nr_targets + 1, sizeof(*cv->t));
	for (size_t i = 0; i < r->nr_plans; i++) {
		const struct dprof_plan_item *e = &r->plans[i];
		struct coverage_target *t;
		struct coverage_group *g;

		if (e->target >= r->nr_targets)
			continue;
		t = &cv->t[e->target];
		if (group_of(t, e->item))
			continue;	/* written twice: keep the first */
		t->g = xrealloc(t->g, (t->n + 1) * sizeof(*t->g));
		g = &t->g[t->n++];
		memset(g, 0, sizeof(*g));
		g->item = e->item;
		memcpy(g->offset, e->offset, sizeof(g->offset));
	}
	for (size_t i = 0; i < hs->n; i++) {
		const struct history *h = &hs->h[i];
		struct coverage_group *g;

		if (h->target < 0 || (size_t)h->target >= r->nr_targets ||
		    !history_complete(h))
			continue;
		g = group_of(&cv->t[h->target], h->plan_item);
		if (g && offsets_equal(g->offset, h->offset))
			g->complete++;
	}
	for (size_t k = 0; k < r->nr_targets; k++)
		for (size_t i = 0; i < cv->t[k].n; i++)
			cv->t[k].short_groups += cv->t[k].g[i].complete < min;
}

void coverage_free(struct coverage *cv)
{
	for (size_t k = 0; cv->t && k < cv->nr_targets; k++)
		free(cv->t[k].g);
	free(cv->t);
	memset(cv, 0, sizeof(*cv));
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmalloc-N's samples split by allocation site.  A kmalloc cache holds
 * many types; its samples are typed by cache (the slab page), and the
 * module writes a sample on an object its live set holds as a record
 * (DPROF_SAMPLE_LIVE, with the object's base).  Such an object's last
 * ALLOC record before the sample is its allocation, whose call site says
 * which type it is.  The objects followed are a sample of the cache's
 * (1 in track_one_in, by address hash, blind to the site), so the sites'
 * shares of the followed objects' samples estimate the cache's.
 *
 * The independent units are the lives (one allocation to its free): a
 * life's samples come together.  A site's share is a ratio of sums over
 * lives, its 95 % interval linearised with Student's t, never narrower
 * than the binomial (Wilson) interval of its samples.
 */
#ifndef DPROF_SITESPLIT_H
#define DPROF_SITESPLIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "recfile.h"

struct site_share {
	uint64_t call_site;
	uint64_t samples;	/* on its objects */
	uint64_t lives;		/* its objects sampled */
	double share;		/* of the target's matched samples */
	double half;		/* 95 % half-width; < 0: unknown (one life) */
};

struct site_split {
	uint64_t records;	/* LIVE sample records of the target */
	uint64_t matched;	/* of them, with the object's ALLOC found */
	uint64_t lives;		/* objects those samples fell on */
	struct site_share *sites;	/* most samples first */
	size_t nr_sites;
};

/* By target index, DPROF_MAX_TARGETS of them; empty where no record. */
struct site_splits {
	struct site_split *t;
	size_t nr;
};

/*
 * The split of every target @want says (by target index; NULL: all)
 * from @r's records; site_split_free() releases it.
 */
void site_split_build(const struct recording *r, const bool *want,
		      struct site_splits *out);
void site_split_free(struct site_splits *s);

#endif

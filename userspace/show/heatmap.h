/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A type's cache lines as a heat map (dprof-view profile --svg): one row
 * per 64-byte line, the struct's fields as boxes as wide as their bytes,
 * shaded by the misses (or, with the watch sampler, the sampled
 * accesses) that fell in them, outlined where the miss classification
 * labelled them true sharing, false sharing or handoff (decided labels
 * only: an undecided field is not outlined); a line's own decided label
 * (classify -L: a hand-off is a line's) is written under its bytes.  heat_build() is the analysis (no
 * I/O); heat_write_svg() draws.
 */
#ifndef DPROF_HEATMAP_H
#define DPROF_HEATMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "classify.h"
#include "layout.h"
#include "profile.h"

#define HEAT_LINE 64

/* Bytes that one box covers: fields that overlap (unions, bitfields) merge. */
struct heat_box {
	uint32_t offset, size;
	char *name;		/* the first field, "+N more" for the others */
	char *names;		/* every field, for the tooltip */
	bool padding;		/* no field: a hole, or past the struct */
	double weight;		/* samples or misses in these bytes */
	uint64_t accesses;	/* classified history accesses of its slots */
	enum classify_label label;
};

struct heat_type {
	const struct profile_type *t;
	struct heat_box *boxes;	/* by offset, covering the object */
	size_t nr_boxes;
	double total, max;	/* over boxes */
	size_t labelled;	/* boxes with a decided miss label */
	enum classify_label *line_label;	/* per line, classify -L's */
	size_t nr_lines;
};

/* The labels a box is outlined for. */
static inline bool heat_outlined(enum classify_label l)
{
	return l == CLASSIFY_TRUE_SHARING || l == CLASSIFY_FALSE_SHARING ||
	       l == CLASSIFY_HANDOFF;
}

/*
 * The boxes of @t from @l (NULL: the profile's rows, gaps as holes),
 * weighted by misses when @p measured them, else by samples; @c (may be
 * NULL) labels them from its fields of recording target @target.
 */
void heat_build(const struct profile *p, const struct profile_type *t,
		const struct layout *l, const struct classify *c, int target,
		struct heat_type *h);
void heat_free(struct heat_type *h);

/* Every type of @h (@n of them) as one SVG document. */
void heat_write_svg(FILE *out, const struct profile *p,
		    const struct heat_type *h, size_t n);

#endif

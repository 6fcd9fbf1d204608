/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Miss classification (thesis 4.3) from object access histories: which
 * accesses are estimated misses, and why.  Replaying each complete
 * history in time order, an access by CPU c to cache line L is
 *
 *   an invalidation when c accessed L earlier in the life and another CPU
 *     wrote L since: true sharing if that write touched the same watched
 *     bytes, false sharing if other bytes of the line (the writer's field
 *     is kept);
 *   a transfer when it is c's first access to L and another CPU wrote L
 *     before: the object moving between CPUs, which sharing does not
 *     cause and moving less would avoid;
 *   a first touch when it is c's first access to L and no other CPU wrote
 *     it: cold for this CPU, unclassified;
 *   a hit otherwise.
 *
 * Histories see only their watched offsets, so a write to another field
 * of the line is visible only in histories that watched both (history_mode
 * =pairs covers every pair).  Conflict and capacity misses need the
 * working-set simulation and are not classified here.  Plain analysis.
 */
#ifndef DPROF_CLASSIFY_H
#define DPROF_CLASSIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "histories.h"
#include "recfile.h"

#define CLASSIFY_LINE 64
#define CLASSIFY_MAX_WRITERS 4

/* Who invalidated a field's line: the writing field and instruction. */
struct classify_writer {
	uint16_t offset;
	uint64_t ip;
	uint64_t count;
};

enum classify_label {
	CLASSIFY_NEITHER,	/* invalidations rare: private or read-mostly */
	CLASSIFY_TRUE_SHARING,
	CLASSIFY_FALSE_SHARING,
	CLASSIFY_UNDECIDED,	/* an interval holds the threshold */
};

/*
 * A share of a field's accesses with its 95% interval.  The histories are
 * the independent units, not the accesses (one object's accesses move
 * together): p = sum x_h / sum n_h over the histories h that watched the
 * field, and its variance, linearised for a ratio of sums,
 * sum (x_h - p n_h)^2 / (H (H - 1) nbar^2).  @half is negative when
 * unknown (fewer than two histories).
 */
struct classify_share {
	double p, half;
};

/*
 * Per-history sums behind the shares (classify.c).  False sharing is
 * seen only by histories that watched a line-mate of the field too, so
 * its share is over those (mate_*), when there are any.
 */
struct classify_sums {
	double n2, t2, tn, f2, fn;
	uint64_t mate_histories, mate_accesses, mate_false;
	double mate_n2, mate_f2, mate_fn;
};

struct classify_field {
	int target;
	uint16_t offset;	/* watched slot */
	uint8_t len;		/* its bytes (history_len) */
	uint64_t accesses;	/* history elements */
	uint64_t hits, true_sharing, false_sharing, transfers, first_touch;
	uint64_t histories;	/* complete histories that watched it */
	struct classify_writer true_writers[CLASSIFY_MAX_WRITERS];
	struct classify_writer false_writers[CLASSIFY_MAX_WRITERS];
	struct classify_sums sums;
	/* false_share: over the histories with a line-mate, if any */
	struct classify_share true_share, false_share;
	uint64_t false_histories;	/* the histories false_share is over */
	enum classify_label label;
	/*
	 * Undecided: about how many histories in all would decide it (the
	 * interval shrinking as 1 / sqrt(n) until it leaves the threshold);
	 * 0 when the share sits on the threshold.
	 */
	uint64_t histories_to_decide;
};

struct classify {
	struct classify_field *f;	/* by target, then offset */
	size_t n;
	double threshold;	/* share of accesses that makes a label */
	uint64_t histories, skipped;
	size_t decided, undecided;	/* labels */
};

/* Share of a field's accesses that must be invalidations to label it. */
#define CLASSIFY_THRESHOLD 0.05

/* The class of each access of one history, as the replay finds it. */
enum classify_class {
	CLASS_HIT,
	CLASS_TRUE_SHARING,
	CLASS_FALSE_SHARING,
	CLASS_TRANSFER,
	CLASS_FIRST_TOUCH,
};

/*
 * @class[i] for h->elems[i]; @writer[i] the other CPU's write that
 * invalidated or transferred the line, or NULL.
 */
void classify_history(const struct history *h, uint8_t *class,
		      const struct hist_elem **writer);
bool classify_usable(const struct history *h);
void classify_build(struct classify *c, const struct history_set *hs);
void classify_free(struct classify *c);
const char *classify_label_name(enum classify_label l);

#endif

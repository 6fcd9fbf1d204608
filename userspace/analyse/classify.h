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
 *     before: the object moving between CPUs (a hand-off), which sharing
 *     does not cause and moving less would avoid (charged to a field only
 *     by histories that watched the whole line: transfer_histories);
 *   a first touch when it is c's first access to L and no other CPU wrote
 *     it: cold for this CPU, unclassified;
 *   a hit otherwise.
 *
 * Histories see only their watched offsets, so a write to another field
 * of the line is visible only in histories that watched both (history_mode
 * =pairs covers every pair).  Conflict and capacity misses need the
 * working-set simulation and are not classified here.  Plain analysis.
 *
 * A line moves once per arrival of a CPU, whichever of its fields that
 * CPU touches first: per field, the transfer lands on that field and its
 * line-mates hit.  The per-line totals (struct classify_line) do not
 * depend on which field it was, and a history sees a move of the line
 * whenever the arriving CPU touches any watched slot of it, so the share
 * of lives in which a line moved, per group of slots watched together,
 * is a lower bound of the truth: the line's figure is the group whose
 * interval says most (see classify_line).
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
	/*
	 * Transfers above the threshold and above both invalidations: the
	 * field's misses come from the object moving between CPUs (the
	 * thesis counts such a miss as true sharing; a label of its own
	 * says that moving less, not sharing less, is the fix).
	 */
	CLASSIFY_HANDOFF,
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
	double n2, t2, tn, f2, fn, r2, rn;	/* r: transfers */
	uint64_t mate_histories, mate_accesses, mate_false;
	double mate_n2, mate_f2, mate_fn;
	/* Over the histories that watched the field's line whole (below). */
	uint64_t whole_accesses, whole_transfers;
	double whole_n2, whole_r2, whole_rn;
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
	/* The other CPU's last write to the line before it moved here. */
	struct classify_writer transfer_writers[CLASSIFY_MAX_WRITERS];
	struct classify_sums sums;
	/* false_share: over the histories with a line-mate, if any */
	struct classify_share true_share, false_share, transfer_share;
	uint64_t false_histories;	/* the histories false_share is over */
	/*
	 * A move lands on the first watched slot the arriving CPU touches,
	 * which is the field that took the miss only if the history watched
	 * every slot of the line the CPU might touch first.  The transfer
	 * share is over the histories that watched every slot of the line
	 * that any history saw accessed; with fewer than two, its interval
	 * is unknown, transfer_share.p is the share over all the field's
	 * histories (an upper bound: the move may have been another slot's),
	 * and the label is from the invalidations alone: the line's row
	 * says whether the line moves.
	 */
	uint64_t transfer_histories;
	enum classify_label label;
	/*
	 * Undecided: about how many histories in all would decide it (the
	 * interval shrinking as 1 / sqrt(n) until it leaves the threshold);
	 * 0 when the share sits on the threshold.
	 */
	uint64_t histories_to_decide;
};

/* A set of a line's slots watched together by some histories. */
#define CLASSIFY_LINE_GROUPS 16
struct classify_group {
	uint16_t offset[DPROF_HIST_MAX_OFFSETS];	/* in the line; padded 0xffff */
	uint64_t histories, moved;	/* moved: lives with a transfer */
};

/*
 * One cache line of a type: the sums of its watched fields (each access
 * has one class, decided per line), its shares as for a field, and how
 * often it moved between CPUs in a life.
 */
struct classify_line {
	int target;
	uint16_t line;		/* offset / CLASSIFY_LINE */
	uint64_t accesses, hits, true_sharing, false_sharing, transfers,
		 first_touch;
	uint64_t histories;	/* that watched any slot of the line */
	uint64_t slots_watched;	/* distinct slots, over all histories */
	uint8_t most_together;	/* most slots of the line in one history */
	struct classify_sums sums;
	struct classify_share true_share, false_share, transfer_share;
	/*
	 * Lives in which the line moved: per group of slots watched
	 * together, moved / histories is a lower bound of the true rate
	 * (an arriving CPU that touched only unwatched slots is not seen);
	 * the line shows the group whose Wilson interval's lower end is
	 * highest, @moved_lo..@moved_hi (95%).  A line whose moved_lo is
	 * above CLASSIFY_MOVED_MOST with more transfers than invalidations
	 * is labelled handoff.  Groups beyond
	 * CLASSIFY_LINE_GROUPS are counted in @groups_left_out.
	 */
	struct classify_group group[CLASSIFY_LINE_GROUPS];
	size_t nr_groups, groups_left_out, best_group;
	double moved_lo, moved_hi;
	enum classify_label label;
	uint64_t histories_to_decide;
};

struct classify {
	struct classify_field *f;	/* by target, then offset */
	size_t n;
	struct classify_line *l;	/* by target, then line */
	size_t nl;
	double threshold;	/* share of accesses that makes a label */
	uint64_t histories, skipped;
	uint64_t unaligned;	/* histories of objects not aligned to a line */
	/* From classify_cover(): planned offsets, and those no history saw. */
	size_t planned, unwatched;
	size_t decided, undecided;	/* fields' labels */
	size_t lines_decided, lines_undecided;
};

/* Share of a field's accesses that must be invalidations to label it. */
#define CLASSIFY_THRESHOLD 0.05
/*
 * A line whose moves' interval is above this share of lives, and whose
 * transfers outnumber its invalidations, is labelled handoff whatever its
 * share of accesses.
 */
#define CLASSIFY_MOVED_MOST 0.5

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
/*
 * The offsets the history plans meant to watch (the recording's plans),
 * so that a slot no complete history watched is a row (n 0, undecided)
 * instead of a gap, and so is its line.  After classify_build().
 */
void classify_cover(struct classify *c, const struct dprof_plan_item *items,
		    size_t n);
/*
 * The labels, fields' and lines' together, of target @target (-1: every
 * target) that are decided and undecided: record --until decided.
 */
void classify_count_labels(const struct classify *c, int target,
			   size_t *decided, size_t *undecided);
void classify_free(struct classify *c);
const char *classify_label_name(enum classify_label l);

#endif

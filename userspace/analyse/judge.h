/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A recording judged by the referee's table of the same run (issue "A
 * referee on real workloads", item 3), like with like:
 *  - types: dprof's estimated share of the accesses (report's, the
 *    module's window estimate; else its sampled accesses) against the
 *    referee's accesses (loads, stores, atomics), ranks and the top five;
 *  - fields: dprof's share of its type (samples per window, from the
 *    sample windows, winshare.h) against the referee's share of the
 *    type's accesses over the same bytes, and whether dprof's 95%
 *    interval holds it;
 *  - labels: classify's decided sharing labels against the referee's
 *    majority class among the field's sharing misses (a hand-off is a
 *    true-sharing miss in the referee's classes, as in the thesis);
 *  - working set: dprof's bytes a type keeps in use on average
 *    (workingset.h, with its 95% interval) against the referee's lines
 *    touched by the type's live objects (referee/objmap.h), both over
 *    dprof's span, and the objects live on average.
 * The watch sampler samples accesses, not misses, so shares are of
 * accesses on both sides.  Plain analysis.
 */
#ifndef DPROF_JUDGE_H
#define DPROF_JUDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "classify.h"
#include "lives.h"
#include "oracle.h"
#include "recfile.h"
#include "report.h"
#include "winshare.h"
#include "workingset.h"

struct judge_type {
	int target;		/* recording index, -1: the referee's only */
	const char *cache;
	uint64_t dprof_samples;	/* sampled accesses (windows) */
	/* report's estimated share (NAN: none), else the samples: ranked */
	double dprof_share, dprof_share_half;
	/* The share's upper end with the type's unseen part (report.h). */
	double dprof_share_hi, dprof_unseen;
	/* [share - half, hi] holds the referee's share; by share +- half */
	bool share_held, share_held_seen;
	double dprof_weight;
	/*
	 * Report's position (1 first; 0: not in report's window shares):
	 * dprof ranks by it where there is one, the shares on one sampled
	 * unit after the rest (report.c).
	 */
	size_t dprof_order;
	/* The referee's (with interrupts on only, when interruptible) */
	uint64_t oracle_accesses;
	uint64_t oracle_irqs_off;	/* accesses with interrupts off */
	size_t dprof_rank, oracle_rank;	/* 1 first; 0 none */
	/* Working set (bytes), when both have it. */
	bool have_ws;		/* dprof's, from histories */
	double ws_bytes, ws_lo, ws_hi, ws_objects;
	uint64_t ws_histories;
	bool have_oracle_ws;
	double oracle_ws_bytes, oracle_objects;
	bool ws_held;		/* [ws_lo, ws_hi] holds the referee's */
	/*
	 * Accesses per second from complete lives (lives.h), against the
	 * referee's accesses over its measured seconds.
	 */
	bool have_lives;
	bool lives_exact;	/* its allocations counted one by one */
	uint64_t lives, lives_cut;
	double lives_rate, lives_half, oracle_rate;
	bool lives_held;
};

enum judge_verdict {
	JUDGE_AGREE,
	JUDGE_CONTRADICT,
	JUDGE_NO_MISSES,	/* the referee saw no sharing miss there */
};

struct judge_field {
	int target;
	uint16_t offset, len;
	struct winshare_est dprof;	/* share, half, windows */
	bool have_dprof;
	double samples;		/* dprof's samples of the field, windows */
	double oracle_share;	/* of the type's accesses */
	uint64_t oracle_accesses;
	bool held;		/* dprof's interval holds the referee's share */
	bool held_seen;		/* share +- half alone holds it (no unseen) */
	bool classified;	/* classify has the field as a row */
	enum classify_label label;	/* classify's, then */
	bool labelled;		/* decided sharing or handoff label */
	uint64_t oracle_true, oracle_false;	/* the referee's misses */
	enum judge_verdict verdict;	/* of a decided label */
};

/*
 * A cache line's decided label (classify's per-line table) against the
 * referee's sharing misses over the line's 64 bytes: reported, not
 * judged.  A move between CPUs is charged to the line whichever field
 * the arriving CPU touched first, so this is where handoff is decided.
 */
struct judge_line {
	int target;
	uint16_t line;		/* offset / 64 */
	enum classify_label label;
	uint64_t oracle_true, oracle_false;
	enum judge_verdict verdict;
};

struct judge {
	struct judge_type *t;
	size_t nt;
	struct judge_field *f;
	size_t nf;
	struct judge_line *l;	/* the lines with a decided label */
	size_t nl;
	size_t lines_contradicted;
	double spearman;	/* over the types both saw; NAN below 2 */
	size_t both_types;	/* types both saw */
	uint64_t oracle_slab_accesses;	/* the referee's, over slab types */
	uint64_t oracle_slab_irqs_off;	/* of all of them: interrupts off */
	uint64_t oracle_slab_at_alloc;	/* the allocator's, before returning */
	/*
	 * sampler=operand against a referee that counts accesses made with
	 * interrupts off: judged against the others, those a tick can see.
	 */
	bool interruptible;
	bool sampled;		/* sampler=operand: at_alloc accesses count */
	bool irqs_counted;	/* the referee counted irqs_off */
	/*
	 * Types the referee puts above 1 % of the slab accesses, and of
	 * them those whose 95% interval holds its share; whether both
	 * rank the same type first, and whether they agree on it: the
	 * same, or dprof's intervals of the two top types overlap.
	 */
	size_t types_over_1pct, types_over_1pct_held;
	bool top1_same, top1_tied;
	size_t top5_common;	/* of dprof's top 5, in the referee's top 5 */
	size_t top5;		/* how many dprof's top 5 holds */
	uint64_t min_samples;	/* fields counted in the calibration */
	size_t calibrated, held;	/* fields with min_samples; held */
	/*
	 * Of the calibrated: held by share +- half alone (the kinds that
	 * saw the type), and widened by an unseen part (winshare.h).
	 */
	size_t held_seen, widened;
	/*
	 * Types both saw with an interval (reported, not judged): held
	 * with the unseen part, and by share +- half alone.
	 */
	size_t types_judged, types_held, types_held_seen;
	size_t labels, contradicted;	/* decided sharing labels judged */
	size_t ws_types, ws_held;	/* working sets judged; held */
	/* The referee's span over dprof's (judge.c): its averages' factor. */
	double ws_span_scale;
	/* types with lives_min lives or more; their rates held (judge_lives) */
	uint64_t lives_min;
	size_t lives_types, lives_held;
};

/*
 * @rep, @wset may be NULL: types ranked by samples; no working set
 * judged.
 */
void judge_build(struct judge *j, const struct recording *r,
		 const struct oracle *o, const struct winshare *ws,
		 const struct classify *c, const struct report *rep,
		 const struct workingset *wset, uint64_t min_samples);
/*
 * The lives estimate of each type with @min_lives complete lives or
 * more, against the referee's accesses per second (@seconds its
 * measured time): reported beside the window shares, not judged.
 */
void judge_lives(struct judge *j, const struct recording *r,
		 const struct lives *l, double seconds, uint64_t min_lives);
void judge_free(struct judge *j);

#endif

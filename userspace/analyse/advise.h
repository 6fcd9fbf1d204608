/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A measured layout proposal for one type (issue "From diagnosis to
 * fix"), and its what-if.  Plain analysis.
 *
 * Units: the struct's top-level members as they can move: leaves that
 * share bytes (unions, bitfields in one storage unit, a struct_group())
 * or a top-level name (a nested struct) move together; a zero-sized
 * member at the end (a flexible array) stays last; pinned units keep
 * their offset.  Alignment comes from the leaves' sizes, bounded by the
 * unit's old offset (BTF keeps no alignment attributes: a member
 * declared ____cacheline_aligned must be pinned, and the printout says
 * so).
 *
 * Roles, from the complete histories of the type (the watched slots'
 * accesses per life, the mean over the histories that watched each
 * slot; a slot over several units counts for each, since a history
 * does not tell which of its bytes an access touched): a unit is written by the allocating CPU's side (A), by other
 * CPUs (B), by both, or read-mostly (writes under ADVISE_WRITE_SHARE of
 * its accesses by every side), or cold (no access seen) or unwatched (no
 * history watched it).  The side of a write is relative to the life:
 * the CPU that allocated the object, or another.
 *
 * Layouts, one per strategy: by writer, groups in the order written-by-A,
 * read-mostly, written-by-B, written-by-both (false sharing and readers
 * away from writers); by touch, touched-by-A, touched-by-both,
 * touched-by-B (a handed-off object's consumer reads what its producer
 * wrote: its fields together cost the fewest lines).  In either, each
 * hot unit first, each group
 * starting on a line that holds no other group's unit (ADVISE_LINE
 * bytes, or --line): a group's last line is filled with cold or
 * unwatched units, the last of which may run into the next line, before
 * any padding; then the cold and unwatched units in their old order; the
 * flexible array last.  Padding is added only to keep two groups off one
 * line, and each pad says which groups it separates.  The proposal is
 * the layout whose replay (the what-if, below) has the least false
 * sharing, then the fewest estimated misses (true and false sharing,
 * transfers), then the fewest lines a life touches, bytes, lines
 * holding two sides' writes; today's order is one of the layouts and wins
 * ties: a layout is proposed only when it is better by these.
 *
 * What-if: the histories replayed with their offsets moved to the
 * proposal's through the same classification (classify.h): true and
 * false sharing, transfers, and lines touched per life, before and
 * after, at 64- and at 128-byte lines (the pairs of lines that
 * adjacent-line prefetch moves together; the layouts are chosen by the
 * replay at --line, 64 unless 128 is asked); the line pairs the
 * proposal brings together that no history watched together are
 * counted, where the what-if extrapolates.
 */
#ifndef DPROF_ADVISE_H
#define DPROF_ADVISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "classify.h"
#include "fastpath.h"
#include "histories.h"
#include "layout.h"

#define ADVISE_LINE 64
/* A side writes a unit when its writes are this share of its accesses. */
#define ADVISE_WRITE_SHARE 0.05

/*
 * How a hot path uses a member (advise_build_paths()), as the networking
 * maintainers' tables say it: not at all, read-mostly, written.  A
 * store share whose 95 % interval straddles ADVISE_WRITE_SHARE is
 * "unsure", labelled with a '?' and packed by its point estimate: a
 * share of 5 % or more as written, else as read.
 */
enum advise_access {
	ADVISE_ACC_NONE,		/* under --min-samples on the path */
	ADVISE_ACC_READ,
	ADVISE_ACC_READ_UNSURE,
	ADVISE_ACC_WRITE_UNSURE,
	ADVISE_ACC_WRITE,
};

enum advise_role {
	ADVISE_WRITE_A,		/* written by the allocating CPU */
	ADVISE_READ,		/* read-mostly, hot */
	ADVISE_WRITE_B,		/* written by other CPUs */
	ADVISE_WRITE_BOTH,	/* written by both: true sharing */
	/*
	 * A side's write share too close to ADVISE_WRITE_SHARE for its
	 * interval to tell: packed as written by both (a line of its own
	 * side), the cautious guess.
	 */
	ADVISE_UNDECIDED,
	ADVISE_COLD,		/* watched, no access */
	ADVISE_UNWATCHED,	/* no history watched it */
	ADVISE_NR_ROLES
};

struct advise_unit {
	char *name;		/* top-level member names, ", " between */
	uint32_t old_off, size, align;
	uint32_t new_off;
	bool pinned, flex;
	/*
	 * Not in the layout given (advise_use_offsets): another build
	 * dropped or renamed it.  Its accesses are left out of both
	 * replays, so that the two compare like with like.
	 */
	bool gone;
	/* per life: accesses, and writes and reads by each side */
	double accesses, writes_a, writes_b, reads_a, reads_b;
	/*
	 * Each side's writes over the accesses and its 95% half-width,
	 * the histories as units (advise.c, measure()); < 0: unknown.
	 */
	double share_a, half_a, share_b, half_b;
	uint64_t histories;	/* fewest behind one of its watched slots */
	enum advise_role role;
	int group;		/* in the strategy's layout; -1: a filler */
	/*
	 * advise_build_paths(): per hot path, then the other paths ([npaths]),
	 * the samples and stores in the unit, and each hot path's use of it.
	 */
	uint64_t path_samples[FASTPATH_MAX_PATHS + 1];
	uint64_t path_stores[FASTPATH_MAX_PATHS + 1];
	enum advise_access access[FASTPATH_MAX_PATHS];
	/* its functions on each hot path, busiest first, ", " between */
	char *path_funcs[FASTPATH_MAX_PATHS];
	int path_group;		/* -1: on no hot path */
};

enum advise_strategy {
	ADVISE_TODAY,		/* the struct as it is */
	ADVISE_BY_WRITER,
	ADVISE_BY_TOUCH,
	ADVISE_NR_STRATEGIES,
	/*
	 * Not a candidate of the histories' choice: advise_build_paths()'s
	 * groups, one per (read or written, set of hot paths).
	 */
	ADVISE_BY_PATH = ADVISE_NR_STRATEGIES,
};
#define ADVISE_MAX_GROUPS 4
/* By path: read and written, per non-empty set of hot paths. */
#define ADVISE_MAX_PATH_GROUPS 32

struct advise_pad {
	uint32_t off, size;
	const char *before, *after;	/* the groups it separates */
};

/* The classification's totals for the type, at one layout. */
struct advise_totals {
	uint64_t accesses, true_sharing, false_sharing, transfers;
	double lines_per_life;	/* distinct lines a complete history touched */
};

struct advise_candidate {
	struct advise_totals totals;	/* replayed at its layout */
	size_t mixed_lines;
	uint32_t size;
};

struct advise {
	struct advise_unit *u;	/* in old order */
	size_t nu;
	size_t *order;		/* unit indices in the proposed order */
	struct advise_pad *pads;
	size_t npads;
	uint32_t line;
	uint32_t old_size, new_size;
	uint64_t histories;	/* complete histories of the type used */
	bool same_order;	/* the proposal is today's order */
	enum advise_strategy strategy;	/* the proposal's */
	struct advise_candidate cand[ADVISE_NR_STRATEGIES];
	/* lines holding units of two different writing sides, before/after */
	size_t mixed_lines_before, mixed_lines_after;
	/*
	 * Set by advise_use_offsets(): the new offsets are a layout given
	 * (a person's idea, another build's struct), not a proposal; what
	 * it came from.
	 */
	const char *given;
	size_t nr_gone;		/* units the layout given lacks */
	/* advise_build_paths(): the split, and the groups' names */
	const struct fastpath *fp;
	char *group_names[ADVISE_MAX_PATH_GROUPS];
	int ngroups;
	uint64_t min_samples;	/* on a path, for it to use a unit */
};

/*
 * The proposal for target @target of @hs, laid out as @l, lines of @line
 * bytes; @pins names members that keep their offsets (NULL-terminated,
 * may be NULL).  0, or -1 with a reason in @err (a pin that names no
 * member; no histories).
 */
int advise_build(struct advise *a, const struct layout *l,
		 const struct history_set *hs, int target, uint32_t line,
		 const char *const *pins, char *err, size_t errlen);
void advise_free(struct advise *a);
/*
 * The proposal by hot path, from @fp's split of the type's samples:
 * each unit's use per path (advise_access: --min-samples @min_samples
 * on the path, else none), then groups in the kernel's convention,
 * <struct>_read_<paths> and <struct>_write_<paths> (the paths that use
 * the unit; written when one of them writes it), read groups first, and
 * the units no hot path uses after them in their old order.  A group
 * starts on a fresh line only when it would otherwise span more lines
 * than its bytes need.  A first member that is a struct of its own (the
 * kernel's inheritance: tcp_sock begins with inet_connection_sock)
 * keeps offset 0.  0, or -1 with a reason in @err (no chained sample,
 * a --pin that names no member).
 */
int advise_build_paths(struct advise *a, const struct layout *l,
		       const struct fastpath *fp, uint32_t line,
		       uint64_t min_samples, const char *const *pins,
		       char *err, size_t errlen);
/*
 * The same, the units with a name in one of @together's sets ("a,b",
 * NULL-terminated; NULL: none) joined where consecutive: the members one
 * declaration or #if block of the header declares (advise --header).
 */
int advise_build_paths_joined(struct advise *a, const struct layout *l,
			      const struct fastpath *fp, uint32_t line,
			      uint64_t min_samples, const char *const *pins,
			      const char *const *together, char *err,
			      size_t errlen);
/* "-", "read_mostly", "read_mostly?", "read_write?", "read_write". */
const char *advise_access_name(enum advise_access acc);
/*
 * The distinct lines of @line bytes holding the offsets hot path @p
 * was sampled at, in the units it uses: today (*@before) and at the new
 * offsets (*@after, a unit the layout given lacks left out).
 */
void advise_path_lines(const struct advise *a, size_t p, uint32_t line,
		       unsigned int *before, unsigned int *after);
/*
 * The same with *@after counted where @map puts each hit of the
 * fastpath (advise_field_map(): another build's layout, field by field;
 * NULL: the proposal).
 */
void advise_path_lines_mapped(const struct advise *a, size_t p,
			      uint32_t line, const int64_t *map,
			      unsigned int *before, unsigned int *after);
/*
 * Their 95 % intervals, [0] low and [1] high, by a Poisson bootstrap of
 * the path's samples: each hit's count drawn again as a Poisson of
 * itself, a unit used where its drawn samples on @p reach min_samples,
 * the lines counted again; ADVISE_LINE_REPS replicates, from a fixed
 * seed (the same output for the same recording).  A line no sample
 * reached enters no draw: the interval is the sampling error of the
 * lines seen, not a bound on lines never sampled.
 */
#define ADVISE_LINE_REPS 400

void advise_path_lines_interval(const struct advise *a, size_t p,
				uint32_t line, const int64_t *map,
				unsigned int before[2], unsigned int after[2]);
/*
 * Another build's layout @other replayed field by field: each hit's
 * byte, in the innermost field of @old (the recorded build's layout)
 * holding it, goes where @other puts the field of the same path
 * ("inet_conn.icsk_inet.sk.sk_rcvbuf"), at the same distance into it
 * (clamped to its size); -1 where @other has no such field (renamed,
 * removed, or padding), those hits' samples summed in *@gone_samples and
 * their distinct fields in *@gone_fields, the first ADVISE_GONE_NAMES
 * named in @gone_names (strings of @old).  Nested structs whose members
 * moved are followed inside, which the units' replay
 * (advise_use_layout()) cannot do.  The caller frees the map.
 */
#define ADVISE_GONE_NAMES 3

int64_t *advise_field_map(const struct advise *a, const struct layout *old,
			  const struct layout *other, uint64_t *gone_samples,
			  size_t *gone_fields,
			  const char *gone_names[ADVISE_GONE_NAMES]);

/*
 * Replaces the proposal by a layout given from @what (for the what-if):
 * each unit takes the offset of its first member among @names (top-level
 * member names, or a unit's names joined by ", " as advise --json writes
 * them) at @offs, the struct @size bytes (at least the units' end).  A
 * unit none of whose first member the layout has is gone (advise_unit).
 * 0, or -1 with a reason in @err: two units that overlap there, or no
 * unit of today's struct in it.  Members only the layout has are
 * ignored: no history watched them.
 */
int advise_use_offsets(struct advise *a, const char *const *names,
		       const uint32_t *offs, size_t n, uint32_t size,
		       const char *what, char *err, size_t errlen);
/* The same from the struct's layout in another build (@l: BTF, DWARF). */
int advise_use_layout(struct advise *a, const struct layout *l,
		      const char *what, char *err, size_t errlen);
const char *advise_role_name(enum advise_role r);
const char *advise_strategy_name(enum advise_strategy st);
/* Group @g of strategy @st ("cold" for -1). */
const char *advise_group_name(enum advise_strategy st, int g);
/* The unit holding old offset @off, or NULL. */
const struct advise_unit *advise_unit_at(const struct advise *a,
					 uint32_t off);

struct advise_whatif {
	/* [0] at 64-byte lines, [1] at 128 (adjacent-line prefetch pairs) */
	struct advise_totals before[2], after[2];
	/*
	 * Per unit (a->u's order), at 64-byte lines: the replay's counts of
	 * the slots the unit holds, today and at the new offsets
	 * (lines_per_life unused).  advise_whatif_free() frees them.
	 */
	struct advise_totals *unit_before, *unit_after;
	/* accesses to units the given layout lacks, left out of both */
	uint64_t gone_accesses;
	/*
	 * Pairs of watched slots the proposal puts on one line that no
	 * complete history watched together: their false sharing is not
	 * seen, before or after.
	 */
	size_t unseen_pairs, line_pairs;
};

/* The histories of @target replayed as they are, and moved to @a's. */
void advise_whatif(struct advise_whatif *w, const struct advise *a,
		   const struct history_set *hs, int target);
void advise_whatif_free(struct advise_whatif *w);
/*
 * The distinct lines of @line bytes that the steps at @offs (@n of
 * them, today's offsets) touch, today (*@before) and moved to @a's new
 * offsets (*@after): a path's lines, before and after.
 */
void advise_lines_touched(const struct advise *a, const uint16_t *offs,
			  size_t n, uint32_t line, unsigned int *before,
			  unsigned int *after);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dprof-view advise by hot path (advise_build_paths()): the members'
 * table as the networking maintainers write it
 * (Documentation/networking/net_cachelines/), the struct with
 * __cacheline_group_begin/end() markers and its *_struct_check() lines,
 * the lines each hot path touches today, proposed and in another build,
 * and the guard of the groups.
 */
#ifndef DPROF_ADVISE_PATHS_H
#define DPROF_ADVISE_PATHS_H

#include <stdbool.h>
#include <stdio.h>
#include "advise.h"
#include "cachegroups.h"

/*
 * Lines a hot path touches: [0] at 64 bytes, [1] at 128; each with its
 * 95 % interval, [k][0] low and [k][1] high.
 */
struct path_lines {
	unsigned int today[2], proposed[2], against[2];
	unsigned int today_ci[2][2], proposed_ci[2][2], against_ci[2][2];
};

/* A member on a hot path that left its group in the other build. */
struct group_break {
	const struct advise_unit *u;
	char *group;
	uint32_t new_off;	/* in the other build; gone: u->gone */
	bool group_gone;	/* the other build has no such group */
	uint32_t begin, end;	/* the group's bytes there */
};

struct paths_report {
	const struct advise *a;		/* the proposal */
	const char *cache, *type;
	struct path_lines lines[FASTPATH_MAX_PATHS];
	const char *against;		/* --against FILE, or NULL */
	/* fields the other build lacks (renamed, removed), and their samples */
	size_t against_gone;
	const char *against_gone_names[ADVISE_GONE_NAMES];
	uint64_t against_gone_samples;
	/* --check: the groups of the recorded build, and what broke */
	bool check;
	size_t nr_guarded;		/* members on a path inside a group */
	struct group_break *breaks;
	size_t nr_breaks;
	bool wide;
};

/*
 * The guard (--check): every unit of @a that a hot path uses and that
 * lies inside a top-level group of @old (the recorded build's layout)
 * must lie inside that group in @other's layout (@moved: @a's units at
 * @other's offsets, advise_use_layout()).
 */
void paths_guard(struct paths_report *rep, const struct advise *moved,
		 const struct layout *old, const struct layout *other);
void paths_report_text(FILE *out, const struct paths_report *rep);
/* @a's unit indices in increasing new offset (the caller frees them). */
size_t *paths_by_new(const struct advise *a);
void paths_report_json(FILE *out, const struct paths_report *rep);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* What every view does first: open the output, load the recording. */
#ifndef DPROF_VIEW_H
#define DPROF_VIEW_H

#include <stdio.h>
#include "builtin.h"
#include "recfile.h"

/*
 * Load o->input (errors: one line with the byte offset, EXIT_USAGE) and
 * open o->output or stdout.  Returns 0 or an exit status.
 */
int view_open(const struct view_opts *o, struct recording *r, FILE **out,
	      const char *cmd);
/*
 * Only the output: o->output or stdout, for the views that read no single
 * recording (diff, layout).  0, or EXIT_FAIL after one line.
 */
int view_output(const struct view_opts *o, FILE **out, const char *cmd);

/* What "dprof-view record" writes and every view reads by default. */
#define VIEW_DEFAULT_RECORDING "dprof.data"

/*
 * The recording a view reads: -i FILE (already in o->input), else its one
 * operand in @args, else ./dprof.data.  0, or EXIT_USAGE after one line.
 */
int view_input(struct view_opts *o, int nargs, char **args, const char *cmd);
int view_close(FILE *out, const struct view_opts *o);
/*
 * On stderr, for the views whose counts come from ALLOC and FREE records:
 * that they are of a sample of the objects when track_one_in was above 1.
 */
void view_sample_note(const struct recording *r, const char *cmd);

/*
 * The index of the profiled cache @name in @r: its name, an alias
 * (DPROF_TARGET_ALIASES, size-N, kmalloc-N in bytes) or a prefix of one
 * name only; *@name becomes the cache's own name.  -1 after a one-line
 * error naming @cmd, the recording and the candidates.
 */
int view_target(const struct recording *r, const char *cmd, const char **name);

struct layout;
struct type_map;
/*
 * The struct layout of each target from the recording's BTF, for field
 * names (layout.h); NULL entries where no struct is known.
 */
struct layout **view_layouts(const struct recording *r,
			     const struct type_map *map);
void view_layouts_free(struct layout **l, size_t n);
/* The fields a slot of @len bytes at @off covers, or "+OFF" unnamed. */
const char *view_field(struct layout *l, unsigned int off, unsigned int len,
		       char *buf, size_t n);
/*
 * The same as one name, for text tables: the outermost member inside the
 * slot, "+N more" for the others (layout_short_range()).  --json and
 * --script keep view_field()'s full list.
 */
const char *view_field_short(struct layout *l, unsigned int off,
			     unsigned int len, char *buf, size_t n);

struct kind_counts;
struct json;
/*
 * How the histories' accesses were typed: decoded kinds, and how often
 * the breakpoints' read/write report disagreed with the instruction.
 */
void view_kinds_text(FILE *out, const struct kind_counts *k);
struct coverage;
/*
 * "@indent plan: 8 groups of offsets; 2 with fewer than 2 complete
 * histories: {32,40,48,56} 1, ..." for target @t, or that the recording
 * has no plans; nothing for a type without a plan.
 */
void view_coverage_text(FILE *out, const struct coverage *cv, size_t t,
			const char *indent);
/* The same as "plan_groups", "plan_groups_short" and "plan_short". */
void view_coverage_json(struct json *j, const struct coverage *cv, size_t t);
void view_kinds_json(struct json *j, const struct kind_counts *k);

#endif

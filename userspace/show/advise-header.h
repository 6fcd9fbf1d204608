/* SPDX-License-Identifier: GPL-2.0 */
/*
 * advise --header FILE: the proposal as a patch of the struct's
 * definition in its header, as a kernel developer would send it.
 *
 * The struct's body is cut into declarations, each with the comments and
 * blank lines before it, its trailing comment and, for a declaration
 * under #if, the whole #if ... #endif block; a declaration goes where
 * the proposal puts the unit of the first member it declares, the ones
 * the layout lacks (a config turned off in the build recorded) staying
 * after the declaration before them.  By hot path, the groups'
 * __cacheline_group_begin/end() markers are written and the old ones
 * dropped.  The patch is a unified diff of the file's lines.
 */
#ifndef DPROF_ADVISE_HEADER_H
#define DPROF_ADVISE_HEADER_H

#include <stddef.h>
#include "advise.h"

/*
 * The unified diff turning struct @name's definition in @text (the
 * header's contents; @path names it in the diff's ---/+++ lines) into
 * @a's proposal, or NULL with a reason in @err (no such struct, braces
 * not on lines of their own, unbalanced).  The caller frees it.
 */
char *advise_header_patch(const struct advise *a, const char *text,
			  const char *path, const char *name, char *err,
			  size_t errlen);
/*
 * The members each declaration of struct @name in @text declares with
 * others ("a,b": "u8 a:1, b:1;", an #if block's, an anonymous union's),
 * NULL-terminated, for advise_build_paths_joined(): the patch moves a
 * declaration whole, so the proposal must.  NULL with a reason in @err
 * as advise_header_patch().  The caller frees each and the array.
 */
char **advise_header_sets(const char *text, const char *path,
			  const char *name, char *err, size_t errlen);

#endif

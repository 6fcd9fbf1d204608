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
int view_close(FILE *out, const struct view_opts *o);

#endif

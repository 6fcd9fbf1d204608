/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Command-line options declared once, in tables (perf's OPT_* tables with
 * a parent set are the model): each command lists its own options and
 * names the common sets it takes; opts_parse() builds getopt_long's
 * arguments and the --help text from them, handles the common options
 * itself and hands the command's own to its callback.
 */
#ifndef DPROF_OPTIONS_H
#define DPROF_OPTIONS_H

#include <stdio.h>
#include "builtin.h"
#include "typemap.h"

/* One option.  key: its letter, or OPT_LONG + n for a long-only one. */
struct opt {
	int key;
	const char *name;	/* long name, without "--" */
	const char *arg;	/* the argument's name in help; NULL: none */
	int optional;		/* --name[=ARG]: the argument may be left out */
	const char *help;	/* '\n' starts each further help line */
};

#define OPT_LONG 256
#define OPT_END { 0, NULL, NULL, 0, NULL }

/*
 * The common sets.  The input set (-i, -o, -h) comes with every command;
 * an own option with a common option's key only replaces its help text.
 */
#define OPTS_JSON	0x01	/* -j, --json */
#define OPTS_SCRIPT	0x02	/* -s, --script (help: the command's own) */
#define OPTS_TARGET	0x04	/* -t, --target CACHE */
#define OPTS_TYPES	0x08	/* -T, -D, --vmlinux, --module-dir */
#define OPTS_NO_OUTPUT	0x10	/* no -o: the command names its own files */
#define OPTS_NO_INPUT	0x20	/* no -i: the operands are what it reads */
#define OPTS_COMMAND	0x40	/* options end at the first operand: a command */
#define OPTS_WIDE	0x80	/* -v, --wide: every column and note */

/* What the common sets fill. */
struct view_args {
	struct view_opts view;
	const char *target;
	struct type_map map;
};

struct command_opts {
	const char *cmd;	/* "classify", for error lines */
	const char *synopsis;	/* usage line(s) and description */
	const char *epilogue;	/* after the options, or NULL */
	void (*more_help)(FILE *out);	/* after that: tables made at run time */
	unsigned int sets;	/* OPTS_* */
	const struct opt *own;	/* the command's own options, or NULL */
	/*
	 * An own option, with the caller's @ctx: 0, or EXIT_USAGE after one
	 * line naming it.
	 */
	int (*handle)(void *ctx, int key, const char *arg);
};

/*
 * Parses @argv's options into @a (zeroed first) and through c->handle
 * (given @ctx, the command's own options struct, or NULL);
 * --help prints the help and exits 0.  *@operand is the index of the
 * first operand.  0, or EXIT_USAGE after one line (and the help on
 * stderr for an unknown option).  Either way the caller frees a->map.
 */
int opts_parse(const struct command_opts *c, void *ctx, int argc,
	       char **argv, struct view_args *a, int *operand);
/* The help text of @c on @out: synopsis, options, epilogue. */
void opts_help(const struct command_opts *c, FILE *out);
/*
 * An option's argument as a whole number >= @min into *@n; else one line
 * naming --@name, and EXIT_USAGE.  For the handlers of counts (--top).
 */
int opts_count(const char *cmd, const char *name, const char *arg, long min,
	       long *n);
/*
 * opts_parse() and then the one recording operand (view_input()): what
 * a view that reads one recording does first.
 */
int opts_parse_view(const struct command_opts *c, void *ctx, int argc,
		    char **argv, struct view_args *a);

#endif

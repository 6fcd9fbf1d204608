/* SPDX-License-Identifier: GPL-2.0 */
/* One entry point per subcommand, dispatched by dprof-view.c. */
#ifndef DPROF_BUILTIN_H
#define DPROF_BUILTIN_H

int cmd_record(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_objects(int argc, char **argv);
int cmd_histories(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_paths(int argc, char **argv);
int cmd_classify(int argc, char **argv);
int cmd_flow(int argc, char **argv);
int cmd_workingset(int argc, char **argv);
int cmd_layout(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_export(int argc, char **argv);

/* Options every view takes: [--json] [-o FILE] FILE. */
struct view_opts {
	const char *input;
	const char *output;
	int json;
	int script;		/* -s: only where VIEW_OPT_SCRIPT is passed */
};

#define VIEW_OPT_SCRIPT	1	/* the command has a --script output */

/*
 * Parses view options (-j, -i, -o, -h and those of @extra, VIEW_OPT_*);
 * prints usage and returns EXIT_USAGE on error.
 */
int parse_view_opts(int argc, char **argv, struct view_opts *o,
		    const char *usage, unsigned int extra);

#endif

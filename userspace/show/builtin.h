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
int cmd_referee(int argc, char **argv);
int cmd_flow(int argc, char **argv);
int cmd_workingset(int argc, char **argv);
int cmd_layout(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_advise(int argc, char **argv);
int cmd_load(int argc, char **argv);

/* What every view reads and writes (options.h fills it). */
struct view_opts {
	const char *input;
	const char *output;
	int json;
	int script;		/* -s, where the command has a --script output */
	int wide;		/* -v: every column and note, past 160 columns */
};

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * dprof-view: the userspace half of dprof.  A table of subcommands, each
 * in builtin-<name>.c, in the manner of perf.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtin.h"
#include "view.h"
#include "util.h"
#include "uapi/dprof.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "load", cmd_load, "load dprof.ko, symbol names and PMU types filled in" },
	{ "record", cmd_record, "drain dprof.ko's rings into a recording" },
	{ "report", cmd_report, "all types ranked by share of misses (or accesses): where to look first" },
	{ "info", cmd_info, "what a recording holds: kernel, targets, caches, counts" },
	{ "objects", cmd_objects, "address set: allocations and frees per type and CPU, lifetimes" },
	{ "histories", cmd_histories, "object access histories: list, or one in full with symbolised ips" },
	{ "workingset", cmd_workingset, "working set per type and cache set: conflict and capacity (estimated)" },
	{ "flow", cmd_flow, "data flow graph of one type: functions from alloc to free (text, DOT, SVG)" },
	{ "classify", cmd_classify, "miss classification: true and false sharing per field (estimated)" },
	{ "referee", cmd_referee, "a recording judged by the referee's table of the same run (QEMU plugin)" },
	{ "paths", cmd_paths, "path traces: histories merged by execution path, with coverage" },
	{ "profile", cmd_profile, "data profile: types by misses, then their fields by cache line" },
	{ "diff", cmd_diff, "differential profile of two sides (peak vs drop-off): ratio, weighted, saturation" },
	{ "export", cmd_export, "the profile as pprof, the histories as a Perfetto/Chrome JSON trace" },
	{ "layout", cmd_layout, "a struct's fields as dprof names them, from BTF" },
	{ "advise", cmd_advise, "a field order for a type from its histories, and its what-if" },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: dprof-view [--version] [--help] COMMAND [ARGS]\n\n"
		     "Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-10s %s\n", commands[i].name,
			commands[i].summary);
	fprintf(out, "\n'dprof-view COMMAND --help' describes a command; "
		     "man dprof-view has the details.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("dprof-view %s (abi %d)\n", DPROF_VERSION,
		       DPROF_ABI_VERSION);
		return EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	errmsg("unknown command '%s'; see 'dprof-view --help'", argv[1]);
	return EXIT_USAGE;
}

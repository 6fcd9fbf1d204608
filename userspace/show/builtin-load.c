// SPDX-License-Identifier: GPL-2.0
/*
 * dprof-view load: load dprof.ko with the parameters given, completed
 * with what the module does not read itself (loader.h).  The module
 * checks what it is given.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "builtin.h"
#include "loader.h"
#include "modparams.h"
#include "options.h"
#include "util.h"

struct load_opts {
	struct view_args a;
	const char *module;	/* --module FILE: insmod it */
	bool dry_run;
};

static const struct opt load_own[] = {
	{ 'm', "module", "FILE", 0,
	  "load FILE (finit_module, as insmod) instead of\n"
	  "modprobe dprof (the DKMS or Debian package's)" },
	{ 'n', "dry-run", NULL, 0, "print the parameters, load nothing" },
	OPT_END,
};

static int load_option(void *ctx, int key, const char *arg)
{
	struct load_opts *o = ctx;

	if (key == 'm')
		o->module = arg;
	else if (key == 'n')
		o->dry_run = true;
	else
		return EXIT_USAGE;
	return 0;
}

static const struct command_opts load_cmd = {
	.cmd = "load",
	.synopsis =
	"usage: dprof-view load [--module FILE] [-n] PARAM=VALUE...\n"
	"\n"
	"Loads dprof.ko with these module parameters (modinfo dprof lists them),\n"
	"first filling in what the module does not read itself:\n"
	"  watch_symbols=NAME,...  each [module:]NAME[/SIZE] gets its address from\n"
	"                          /proc/kallsyms (NAME@0xADDRESS); a function, a\n"
	"                          per-CPU variable or an unknown name is refused\n"
	"  pmu_ibs_type=           the ibs_op PMU's type, where sysfs has one\n"
	"  pmu_pebs_loads=, pmu_pebs_stores=\n"
	"                          the core PMU's mem-loads and mem-stores events\n"
	"A parameter given stays as given.  When the load fails, the module's\n"
	"lines of the kernel log say why.  DPROF_PROCFS and DPROF_SYSFS move\n"
	"/proc and /sys (tests).\n",
	.sets = OPTS_NO_INPUT | OPTS_NO_OUTPUT,
	.own = load_own,
	.handle = load_option,
};

int cmd_load(int argc, char **argv)
{
	struct mod_params p = { .nr = 0 };
	struct load_opts o;
	char err[512], *params;
	int first, ret;

	memset(&o, 0, sizeof(o));
	ret = opts_parse(&load_cmd, &o, argc, argv, &o.a, &first);
	if (ret)
		return ret;
	for (int i = first; i < argc && !ret; i++)
		if (modparams_add(&p, argv[i], err, sizeof(err))) {
			errmsg("load: %s", err);
			ret = EXIT_USAGE;
		}
	if (!ret)
		ret = loader_complete(&p, "load");
	if (ret)
		goto out;
	params = modparams_join(&p);
	if (o.dry_run) {
		printf("%s\n", params);
	} else if (loader_loaded()) {
		errmsg("load: dprof is loaded already; rmmod dprof first");
		ret = EXIT_FAIL;
	} else {
		ret = loader_load(o.module, &p, "load");
		if (!ret)
			printf("loaded %s: %s\n", o.module ? o.module : "dprof",
			       params);
	}
	free(params);
out:
	modparams_free(&p);
	type_map_free(&o.a.map);
	return ret;
}

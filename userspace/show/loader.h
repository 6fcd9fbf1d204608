/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dprof.ko loaded and unloaded on a user's behalf (dprof-view load, and
 * record -e): the parameters completed from /proc and /sys as the module
 * cannot (modparams.h), then modprobe dprof (the DKMS or Debian
 * package's module) or finit_module(2) of a file, as insmod does.  A
 * failed load prints the module's own lines of the kernel log.
 */
#ifndef DPROF_LOADER_H
#define DPROF_LOADER_H

#include <stdbool.h>
#include "modparams.h"

/*
 * @p completed: watch_symbols= addresses from /proc/kallsyms, the PMU's
 * type and events from sysfs.  0, or EXIT_USAGE after one line that
 * names @cmd.
 */
int loader_complete(struct mod_params *p, const char *cmd);
/* Whether dprof is loaded (/sys/module/dprof). */
bool loader_loaded(void);
/*
 * Loads @module (a file; NULL: modprobe dprof) with @p.  0, or EXIT_FAIL
 * after one line naming @cmd and the module's own kernel-log lines.
 */
int loader_load(const char *module, const struct mod_params *p,
		const char *cmd);
/*
 * rmmod dprof, retrying while a reader still holds it (a few seconds).
 * 0, or EXIT_FAIL after one line naming @cmd.
 */
int loader_unload(const char *cmd);

#endif

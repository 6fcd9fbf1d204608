/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What "record" captures about the profiled machine.  Every path can be
 * redirected by an environment variable so tests can use fixtures:
 * DPROF_SYSFS (default /sys), DPROF_PROCFS (/proc), DPROF_DEBUGFS
 * (/sys/kernel/debug/dprof).
 */
#ifndef DPROF_SYSINFO_H
#define DPROF_SYSINFO_H

#include <stddef.h>
#include "uapi/dprof.h"

/* CPU caches of cpu0 from sysfs; returns the number found (0: none). */
size_t sysinfo_caches(struct dprof_file_cache *out, size_t max);
/* Parse a sysfs cache size ("32K", "8192K", "1M"); 0 when malformed. */
unsigned long long parse_cache_size(const char *s);
/* Parse the debugfs "targets" text; returns the count or -1 (line in *bad). */
int parse_targets(const char *text, struct dprof_file_target *out,
		  size_t max, int *bad_line);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* The handler-cost table of debugfs "status" (costs.c). */
#ifndef DPROF_COSTS_H
#define DPROF_COSTS_H

#include "stats.h"

struct seq_file;

void dprof_costs_show(struct seq_file *m, const struct dprof_cpu_stats *sum);

#endif

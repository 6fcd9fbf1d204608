/* SPDX-License-Identifier: GPL-2.0 */
/*
 * collector.c: the debug registers' set-up, teardown and report, for
 * main.c and debugfs.c.
 */
#ifndef _DPROF_COLLECTOR_H
#define _DPROF_COLLECTOR_H

#include "watch_config.h"

/* The history_*, window and pick parameters into @hc, or -EINVAL. */
int dprof_history_params(struct dprof_history_config *hc);
int dprof_history_init(const struct dprof_history_config *config);
void dprof_history_exit(void);
void dprof_history_sync(void);
struct seq_file;
void dprof_history_show(struct seq_file *m, bool brief);

#endif /* _DPROF_COLLECTOR_H */

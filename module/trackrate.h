/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trackrate.c: the rule that halves the busiest target's tracking while
 * the tracked allocations pass track_max_rate, for main.c and debugfs.c.
 */
#ifndef _DPROF_TRACKRATE_H
#define _DPROF_TRACKRATE_H

#include <linux/types.h>

/* track_max_rate= checked, before anything is set up. */
int dprof_track_rate_params(void);
void dprof_track_rate_start(void);
void dprof_track_rate_stop(void);
/* The tracking rules' state for status (liveset.c's and the rate's). */
void dprof_track_stats(unsigned int *one_in, bool *is_auto,
		       unsigned int *nr_raises, unsigned int *nr_rate_raises,
		       unsigned int *max_rate, u64 *nr_swept,
		       unsigned int *nr_sweeps, bool *owed);

#endif /* _DPROF_TRACKRATE_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * census.c: the census of the live set that old and in-use windows draw
 * from (window.c).  Every CENSUS_MS (CENSUS_RETRY_MS while turns find no
 * kept object alive) a walk of the live set, in a work of its own,
 * counts each type's objects older than a window and keeps a uniform
 * reservoir of CENSUS_KEEP of them; the collector takes the walk's
 * result at its next old turn.  Only the collector reads or writes
 * struct census.
 */
#ifndef _DPROF_CENSUS_H
#define _DPROF_CENSUS_H

#include <linux/types.h>

#define CENSUS_MS	4000
/* Sooner when a turn found no kept object alive: at most this often. */
#define CENSUS_RETRY_MS	250
#define CENSUS_KEEP	8

/* The census the turns draw from (the collector's). */
struct census {
	unsigned long (*keep)[CENSUS_KEEP];	/* per target */
	u32 *seen;		/* kept objects a draw may take, per target */
	u32 *old;		/* old objects per target at the last census */
	u32 *in_use;		/* of them in use, at the census */
	bool ready;		/* a census was taken: draws may begin */
	bool by_use;		/* this turn's type: from the objects in use */
	u64 turns_by_use;	/* windows drawn from the objects in use */
	unsigned long min_age;	/* jiffies: a window's length */
	u64 at_ns;		/* when the last census was taken */
	bool stale;		/* a turn found no kept object alive */
	unsigned int cursor;	/* the rotation */
	unsigned int taken;	/* censuses since load */
	unsigned int retaken;	/* of them, early: every kept object dead */
};

extern struct census dprof_census;

/*
 * The collector, at an old turn: takes the census a walk finished and
 * queues the next walk when due; true if there is a census to draw from
 * (false before the first, or without memory).
 */
bool dprof_census_take(void);
/* Before the collector starts. */
void dprof_census_init(void);
/* After the collector stopped (it alone queues the walks). */
void dprof_census_exit(void);

#endif

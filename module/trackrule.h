/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which objects are tracked under a rule of 1 in 2^shift, by address
 * (liveset.h).  Nested: an address that passes shift s + 1 passes s, and
 * a cache's shift only grows during a run (liveset.c), so the objects
 * its rule at the end keeps were followed all along.  dprof-view weighs
 * a recording's lives by that (workingset.c).
 *
 * Plain code, no kernel dependencies: the module and dprof-view share it.
 */
#ifndef _DPROF_TRACKRULE_H
#define _DPROF_TRACKRULE_H

#include <linux/types.h>
#ifndef __KERNEL__
#include <stdbool.h>
#endif

static inline bool dprof_track_rule(__u64 base, unsigned int shift)
{
	/* Top bits of a product with an odd constant (not the slot hash's). */
	return !shift || !((base * 0xff51afd7ed558ccdULL) >> (64 - shift));
}

#endif

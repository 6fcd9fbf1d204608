/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Objects in use (inuse.c): the live target objects the CPUs' registers
 * held at a 100 Hz kernel-mode tick, counted per period of one second.
 * The old sample windows draw from them (window.c; design.rst, "Objects
 * in use").  Everything but the tick runs in the collector thread.
 */
#ifndef _DPROF_INUSE_H
#define _DPROF_INUSE_H

#include <linux/seq_file.h>
#include <linux/types.h>

/* The tick on every online CPU, following hotplug; 0 or -errno. */
int dprof_inuse_init(void);
void dprof_inuse_exit(void);

/*
 * Collector, every step: fold the CPUs' rings into this period's table;
 * at the period's end, its objects older than @min_age jiffies become
 * the in-use set the draws below read.
 */
void dprof_inuse_fold(unsigned long min_age);

/*
 * A type drawn by the in-use set's counts (where the CPUs work); -1: none.
 * Its chance of the draw, its counts over all, in @chance (1/2^32).
 */
int dprof_inuse_pick_type(u32 *chance);

/*
 * How many of type @t's in-use objects are still live and old (0 if
 * none); dprof_inuse_pick() returns the base of the @u-th of them (0 if
 * none).
 */
unsigned int dprof_inuse_objects(unsigned int t);
unsigned long dprof_inuse_pick(unsigned int t, unsigned int u);
/* An object's count in the in-use set (n; 0 if absent). */
u32 dprof_inuse_count(unsigned long base);
/* Per target below @nr, its objects in the set still live and old. */
void dprof_inuse_count_types(u32 *per_target, unsigned int nr);

void dprof_inuse_show(struct seq_file *m);

#endif /* _DPROF_INUSE_H */

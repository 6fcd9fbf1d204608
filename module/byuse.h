/* SPDX-License-Identifier: GPL-2.0 */
/*
 * byuse.c: older objects the scan could not establish, established by
 * their use (the in-use tick's registers).  Collector context only.
 */
#ifndef _DPROF_BYUSE_H
#define _DPROF_BYUSE_H

#include <linux/types.h>

struct seq_file;

/*
 * @objects older objects of @target from @first on, @tracked of them
 * entered live: counted in the target and recorded (SLAB_LIVE).  The
 * scan's and the candidates'.
 */
void dprof_older_add(int target, unsigned long first, u32 objects,
		     u32 tracked);
/* The scan's init: older objects wanted and can be told live (@on). */
void dprof_byuse_want(bool on);

void dprof_byuse_init(void);
void dprof_byuse_exit(void);
/* A register pointed at @base of @target, which the live set lacks. */
void dprof_byuse_seen(unsigned long base, unsigned int target);
/* The in-use period ended. */
void dprof_byuse_period(void);
void dprof_byuse_show(struct seq_file *m);

#endif /* _DPROF_BYUSE_H */

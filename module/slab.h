/* SPDX-License-Identifier: GPL-2.0 */
/*
 * slab.c: the allocation and free hooks, and the switch they check.
 */
#ifndef _DPROF_SLAB_H
#define _DPROF_SLAB_H

#include <linux/types.h>

/* Runtime switch (enable=), checked by every hook. */
extern bool dprof_enabled;

/* The kmem_cache_destroy() probe: before any target is looked for. */
int dprof_slab_destroy_init(void);
void dprof_slab_destroy_exit(void);
unsigned long dprof_slab_destroy_missed(void);
struct seq_file;
void dprof_slab_show_hooks(struct seq_file *m);
/*
 * Whether the allocation and free hooks are armed (not with target=all's
 * operand default): without them no object is followed.
 */
bool dprof_slab_hooked(void);
int dprof_slab_init(void);
void dprof_slab_exit(void);
/* Calls the kprobes could not follow (their nmissed): lost records. */
unsigned long dprof_slab_bulk_missed(void);
unsigned long dprof_slab_free_bulk_missed(void);

#endif /* _DPROF_SLAB_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * byuse.c: older objects the scan could not establish, established by
 * their use (the instructions the in-use tick stopped before).  Collector
 * context only.
 */
#ifndef _DPROF_BYUSE_H
#define _DPROF_BYUSE_H

#include <linux/bitops.h>
#include <linux/compiler.h>
#include <linux/hash.h>
#include <linux/types.h>

/*
 * The addresses the hooks allocated or freed since load, tracked ones
 * only, in a Bloom filter of one hash (2^23 bits, 1 MiB): an older object
 * has none, so a candidate whose bit is set is not older (a freed object
 * whose address some code still holds: TCP's hints held freed skbuffs
 * for a minute).  A false bit only leaves an older object unestablished.
 * NULL when objects are not established by use.
 */
#define DPROF_TOUCHED_BITS	23
extern unsigned long *dprof_touched;

/* The hooks, on every tracked allocation and free. */
static inline void dprof_byuse_touch(unsigned long base)
{
	unsigned long *map = READ_ONCE(dprof_touched);
	unsigned long bit;

	if (!map)
		return;
	bit = hash_long(base, DPROF_TOUCHED_BITS);
	/* Tested first: written at every allocation, the words would bounce. */
	if (!test_bit(bit, map))
		set_bit(bit, map);
}

struct seq_file;

/*
 * @objects older objects of @target from @first on, @tracked of them
 * entered live: counted in the target and recorded (SLAB_LIVE).  The
 * scan's and the candidates'.
 */
void dprof_older_add(int target, unsigned long first, u32 objects,
		     u32 tracked);
/*
 * The scan's init, before the hooks: older objects wanted and can be told
 * live (@on); the touched addresses' filter is allocated then (without
 * it, nothing is established by use).  Freed by dprof_byuse_teardown(),
 * once the hooks are gone.
 */
void dprof_byuse_want(bool on);
void dprof_byuse_teardown(void);

void dprof_byuse_init(void);
void dprof_byuse_exit(void);
/*
 * The instruction at @ip was about to touch @base of @target, which the
 * live set lacks.
 */
void dprof_byuse_seen(unsigned long base, unsigned int target,
		      unsigned long ip);
/* The in-use period ended. */
void dprof_byuse_period(void);
void dprof_byuse_show(struct seq_file *m);

#endif /* _DPROF_BYUSE_H */

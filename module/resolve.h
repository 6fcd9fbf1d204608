/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The address resolver, exported so that samplers, histories and test
 * modules (through symbol_get()) can use it.
 */
#ifndef _DPROF_RESOLVE_H
#define _DPROF_RESOLVE_H

struct dprof_resolved {
	unsigned int target;	/* index into dprof_targets */
	unsigned long base;	/* start of the object */
	unsigned int offset;	/* addr - base, < object_size */
};

/*
 * Map any address inside a live target object to its object.  Safe in any
 * context, NMI and #DB included: plain loads, no locks, no allocation.
 * Returns 0 on success, -ENOENT when @addr is not inside a live target
 * object.
 */
int dprof_resolve(unsigned long addr, struct dprof_resolved *out);

/*
 * dprof_resolve(), or DPROF_RESOLVE_UNKNOWN with @out filled for an
 * object on a target's grid that the live set follows and does not hold
 * (free, or older than the module and not established: byuse.c), telling
 * in *@slab whether @addr is in a slab at all.
 */
#define DPROF_RESOLVE_UNKNOWN	1
int dprof_resolve_any(unsigned long addr, struct dprof_resolved *out,
		      bool *slab);

/* dprof_resolve(), telling in *@slab whether @addr is in a slab at all. */
int dprof_resolve_slab(unsigned long addr, struct dprof_resolved *out,
		       bool *slab);

#endif /* _DPROF_RESOLVE_H */

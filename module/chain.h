/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Call chains at access samples (chain.c, callchain=N): the return
 * addresses of the interrupted kernel stack, for the views' split of a
 * type's accesses by the path that made them (dprof-view advise's fast
 * path).
 */
#ifndef DPROF_CHAIN_H
#define DPROF_CHAIN_H

#include <linux/types.h>

struct pt_regs;

/* callchain=: 0 (off) or 1..DPROF_CHAIN_MAX; -EINVAL, said, otherwise. */
int dprof_chain_params(void);
/* Frames to keep per sample; 0: no chains. */
unsigned int dprof_chain_depth(void);
/*
 * Up to @max return addresses of the kernel stack @regs interrupted,
 * innermost first, the interrupted ip itself left out; 0 for user mode
 * or no @regs.  Any context (NMI included): the ORC unwinder reads only
 * the stack and its tables.  Its cycles are charged to the callchain
 * hook, and dprof_chain_cycles() hands them to the sample's caller, which
 * takes them out of the sample hook's own figure.
 */
unsigned int dprof_chain_take(struct pt_regs *regs, u64 *frames,
			      unsigned int max);
/* The cycles the last dprof_chain_take() on this CPU spent; then 0. */
u64 dprof_chain_cycles(void);

#endif

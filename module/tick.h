/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tick.c: a per-CPU timer of busy time, for the samplers that read the
 * interrupted kernel (the in-use tick of the watch sampler, inuse.c; the
 * operand sampler, operand.c).  One user at a time.
 */
#ifndef _DPROF_TICK_H
#define _DPROF_TICK_H

#include <linux/types.h>

struct pt_regs;
struct seq_file;

/*
 * Every @period_ns of a CPU's time running a task, hard interrupt
 * context: @fn with the interrupted registers, in kernel mode only.
 */
typedef void (*dprof_tick_fn)(struct pt_regs *regs, s64 late_ns);
int dprof_tick_start(u64 period_ns, dprof_tick_fn fn);
void dprof_tick_stop(void);
/* Over all CPUs: ticks that called fn, and the stops on an idle CPU. */
void dprof_tick_counts(u64 *kernel_ticks, u64 *stops);
/* One status line: the kernel ticks by how late they ran. */
void dprof_tick_show(struct seq_file *m);

#endif /* _DPROF_TICK_H */

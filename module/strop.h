/* SPDX-License-Identifier: GPL-2.0 */
/*
 * strop.c: the watched offsets a repeated string instruction (rep stos,
 * rep movs) went through without a trap of their own.
 *
 * A data breakpoint traps after the access.  Inside a rep string
 * instruction the CPU traps after the iteration that hit (the ip is the
 * instruction itself and rcx counts what is left), so a later watched
 * offset of the same instruction traps again when the instruction
 * resumes.  QEMU's TCG (9.1 and later, the project's test substrate)
 * runs the whole instruction before it raises the #DB and reports only
 * the first watched offset it met: the others are lost.  Measured on
 * UDP skbuffs (6.1): __alloc_skb's inlined memset (rep stosq over the
 * first 184 bytes) was seen at the first watched offset of a group of
 * four and missed at the other three (cb at +72, whose one access per
 * skbuff is that memset, read 0), and the referee's shares fell outside
 * dprof's intervals on the offsets with few accesses.  So when a trap
 * comes after a rep string instruction that ran to its end (rcx 0), the
 * watched ranges between the one that trapped and where the instruction
 * stopped were accessed too, in that direction.
 */
#ifndef DPROF_STROP_H
#define DPROF_STROP_H

#include <linux/ptrace.h>
#include <linux/types.h>

#define DPROF_STROP_MAX	4	/* watched offsets: the debug registers */

/*
 * #DB context, for the watched offset @w of the object at @addr reported
 * at @now.  dprof_strop_counted(), called first for every report: true
 * when a string instruction's trap already counted @w in this #DB (a CPU
 * that sets a DR6 bit for every offset such an instruction hit): skip it.
 * dprof_strop_rest(), after @w was counted: the other watched offsets,
 * @offset[i] (@nr of them, @len bytes each), that the instruction went
 * through without a trap of their own, by index, none counted in this
 * #DB yet; *@dest: they were its destination (written), else its source.
 */
bool dprof_strop_counted(const struct pt_regs *regs, unsigned long addr,
			 unsigned int w, u64 now);
unsigned int dprof_strop_rest(const struct pt_regs *regs, unsigned long addr,
			      const u16 *offset, unsigned int nr,
			      unsigned int len, unsigned int w, u64 now,
			      bool *dest);

#endif

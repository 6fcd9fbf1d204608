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
 * first 184 bytes) was seen once per object instead of once per watched
 * offset, 4 of every 20-27 accesses of a group of four offsets, and the
 * referee's shares fell outside dprof's intervals on the offsets with few
 * accesses.  So when a trap comes after a rep string instruction that ran
 * to its end (rcx 0), the watched ranges between the one that trapped and
 * where the instruction stopped were accessed too, in that direction.
 */
#ifndef DPROF_STROP_H
#define DPROF_STROP_H

#include <linux/ptrace.h>

/*
 * @regs: the trap frame of a data breakpoint on [@lo[@hit], + @len).
 * The other ranges [@lo[i], + @len) (@nr of them, i != @hit) that the
 * string instruction ending at regs->ip went through after @hit:
 * a mask by i, 0 when the instruction before the ip is not a rep stos or
 * rep movs that ran to its end.  *@dest: whether they were its
 * destination (written) or its source (read).  #DB context: reads three
 * bytes of kernel text, nothing else.
 */
unsigned int dprof_strop_covered(const struct pt_regs *regs,
				 const unsigned long *lo, unsigned int nr,
				 unsigned int len, unsigned int hit,
				 bool *dest);

#endif

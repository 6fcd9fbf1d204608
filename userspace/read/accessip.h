/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86 data breakpoints trap after the access: the reported ip is the next
 * instruction.  The accessing instruction is the one that ends there,
 * found by decoding forward from the start of the function (capstone).
 */
#ifndef DPROF_ACCESSIP_H
#define DPROF_ACCESSIP_H

#include <stddef.h>
#include <stdint.h>
#include "ksyms.h"
#include "uapi/dprof.h"

/*
 * @code holds the bytes from @start (a function's first instruction) up
 * to at least @trap_ip, and if possible the instruction at @trap_ip.
 * Returns the address of the instruction that ends exactly at @trap_ip,
 * or @trap_ip itself when that is a repeated string instruction (which
 * traps between iterations) and the one before has no memory operand;
 * 0 when decoding does not land on @trap_ip.
 */
uint64_t access_ip_in_code(const uint8_t *code, size_t len, uint64_t start,
			   uint64_t trap_ip);
/* The same, and the kind of access that instruction makes (@kind may be NULL). */
uint64_t access_decode(const uint8_t *code, size_t len, uint64_t start,
		       uint64_t trap_ip, enum dprof_access_kind *kind);

/* The kind of memory access of one decoded instruction (capstone detail on). */
struct cs_insn;
enum dprof_access_kind access_kind_of(const struct cs_insn *insn);

/*
 * Map every trap ip in @ips (sorted, distinct) with the kernel text read
 * from @kcore (an ELF core: /proc/kcore).  Fills map[n] and kinds[n]
 * sorted by trap ip; returns how many were mapped, or -1 when kcore
 * cannot be read (the maps then hold access_ip 0 and kind UNKNOWN).
 */
long access_ip_map(const char *kcore, const struct ksyms *syms,
		   const uint64_t *ips, size_t n, struct dprof_file_ipmap *map,
		   struct dprof_file_access_kind *kinds);

#endif

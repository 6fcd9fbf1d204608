/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The memory operand of one x86-64 instruction: which registers and
 * displacement make its address (ModRM and SIB, Intel SDM Vol. 2, 2.1
 * and 2.2.1).  The in-use tick (inuse.c) decodes the instruction its
 * interrupt stopped before, adds the interrupted registers and so knows
 * the field the CPU is about to touch: the item draws' hints (plan.c).
 *
 * Only what a hint needs: an address through general registers.  Left
 * out, as "no operand": register operands; RIP-relative and absolute
 * addresses (globals); %fs and %gs (per-CPU data); 32-bit addresses
 * (0x67); VEX and EVEX encodings; operands without ModRM (string
 * instructions, push and pop, moffs); and instructions that name an
 * address without reading or writing it (lea, nop, prefetch, clflush,
 * the system groups 0f 00, 0f 01).  A wrong hint only misplaces a
 * weight, which the draw's rho corrects; a missing one changes nothing.
 *
 * Plain code, no kernel dependencies: the unit tests run it against
 * capstone over real machine code (userspace/tests/test-memop.c).
 */
#ifndef _DPROF_MEMOP_H
#define _DPROF_MEMOP_H

#include <linux/types.h>

/* The longest x86 instruction. */
#define DPROF_MEMOP_MAX_LEN	15
/* No base or no index register. */
#define DPROF_MEMOP_NO_REG	(-1)
/* The general registers, and the stack pointer's number among them. */
#define DPROF_MEMOP_NR_REGS	16
#define DPROF_MEMOP_REG_SP	4

/*
 * Registers by their encoding number: 0 ax, 1 cx, 2 dx, 3 bx, 4 sp,
 * 5 bp, 6 si, 7 di, 8-15 r8-r15.
 */
struct dprof_memop {
	__s8 base;
	__s8 index;
	__u8 scale;		/* 1, 2, 4 or 8 */
	__s32 disp;
};

/* One-byte opcodes with a ModRM byte, 64-bit mode, a bit per opcode. */
static const __u32 dprof_memop_modrm1[8] = {
	0x0f0f0f0f,		/* 00-1f: alu r/m forms */
	0x0f0f0f0f,		/* 20-3f */
	0x00000000,		/* 40-5f: rex, push, pop */
	0x00000a08,		/* 60-7f: 63 movsxd, 69 and 6b imul */
	0x0000ffff,		/* 80-9f: 80-8f */
	0x00000000,		/* a0-bf */
	0xff0f00c3,		/* c0-df: c0 c1 c6 c7, d0-d3, d8-df */
	0xc0c00000,		/* e0-ff: f6 f7 fe ff */
};

/* Two-byte opcodes (0f xx) with a ModRM byte, 64-bit mode. */
static const __u32 dprof_memop_modrm2[8] = {
	0xffff200f,		/* 00-1f: 00-03, 0d, 10-1f */
	0x0000ff0f,		/* 20-3f: 20-23, 28-2f (38, 3a apart) */
	0xffffffff,		/* 40-5f: cmovcc, sse */
	0xff7fffff,		/* 60-7f: not 77 emms */
	0xffff0000,		/* 80-9f: setcc, not jcc */
	0xfffff838,		/* a0-bf: a3-a5, ab-af, b0-bf */
	0xffff00ff,		/* c0-df: c0-c7, d0-df, not bswap */
	0xffffffff,		/* e0-ff */
};

static inline int dprof_memop_bit(const __u32 *map, __u8 op)
{
	return (map[op >> 5] >> (op & 31)) & 1;
}

/*
 * ModRM without an access: 0f 00, 0f 01 (system), 0f 0d, 0f 18-1f
 * (prefetch, hint nops), 0f ae (fences, fxsave, clflush), 0f b9 (ud1),
 * 0f ff (ud0).
 */
static inline int dprof_memop_no_access2(__u8 op)
{
	return op <= 0x01 || op == 0x0d || (op >= 0x18 && op <= 0x1f) ||
	       op == 0xae || op == 0xb9 || op == 0xff;
}

/*
 * Decode the memory operand of the instruction at @code (@len bytes
 * readable).  Returns 1 and fills @m when it has one made of general
 * registers, 0 otherwise (see above).
 */
static inline int dprof_memop_decode(const __u8 *code, unsigned int len,
				     struct dprof_memop *m)
{
	unsigned int i = 0, rex = 0;
	__u8 op, modrm, mod, rm, sib;
	int modrm_ok;

	if (len > DPROF_MEMOP_MAX_LEN)
		len = DPROF_MEMOP_MAX_LEN;
	/* Legacy prefixes, then at most one REX right before the opcode. */
	for (; i < len; i++) {
		op = code[i];
		if (op == 0x64 || op == 0x65 || op == 0x67)
			return 0;	/* %fs, %gs, 32-bit address */
		if (op != 0xf0 && op != 0xf2 && op != 0xf3 && op != 0x66 &&
		    op != 0x2e && op != 0x36 && op != 0x3e && op != 0x26)
			break;
	}
	if (i < len && (code[i] & 0xf0) == 0x40)
		rex = code[i++];
	if (i >= len)
		return 0;
	op = code[i++];
	if (op == 0x0f) {
		if (i >= len)
			return 0;
		op = code[i++];
		if (op == 0x38 || op == 0x3a) {
			if (i >= len)
				return 0;
			i++;		/* the third opcode byte: all ModRM */
			modrm_ok = 1;
		} else {
			modrm_ok = dprof_memop_bit(dprof_memop_modrm2, op) &&
				   !dprof_memop_no_access2(op);
		}
	} else {
		/* 8d lea names an address, c4 c5 62 are VEX and EVEX. */
		modrm_ok = dprof_memop_bit(dprof_memop_modrm1, op) &&
			   op != 0x8d;
	}
	if (!modrm_ok || i >= len)
		return 0;
	modrm = code[i++];
	mod = modrm >> 6;
	rm = modrm & 7;
	if (mod == 3)
		return 0;		/* a register operand */
	m->index = DPROF_MEMOP_NO_REG;
	m->scale = 1;
	m->disp = 0;
	if (rm == 4) {
		unsigned int index;

		if (i >= len)
			return 0;
		sib = code[i++];
		index = ((sib >> 3) & 7) | (rex & 2 ? 8 : 0);
		if (index != 4) {	/* 4 without REX.X: no index */
			m->index = index;
			m->scale = 1 << (sib >> 6);
		}
		if ((sib & 7) == 5 && mod == 0) {
			/* No base: disp32 alone, or with the index. */
			m->base = DPROF_MEMOP_NO_REG;
			mod = 2;
		} else {
			m->base = (sib & 7) | (rex & 1 ? 8 : 0);
		}
	} else if (rm != 5 || mod != 0) {
		m->base = rm | (rex & 1 ? 8 : 0);
	} else {
		return 0;		/* RIP-relative: a global */
	}
	if (mod == 1) {
		if (i >= len)
			return 0;
		m->disp = (__s8)code[i];
	} else if (mod == 2) {
		if (i + 4 > len)
			return 0;
		m->disp = (__s32)((__u32)code[i] | (__u32)code[i + 1] << 8 |
				  (__u32)code[i + 2] << 16 |
				  (__u32)code[i + 3] << 24);
	}
	if (m->base == DPROF_MEMOP_NO_REG && m->index == DPROF_MEMOP_NO_REG)
		return 0;		/* an absolute address: a global */
	return 1;
}

#endif /* _DPROF_MEMOP_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The memory operand of one x86-64 instruction: which registers and
 * displacement make its address (ModRM and SIB, Intel SDM Vol. 2, 2.1
 * and 2.2.1).  The in-use tick (inuse.c) decodes the instruction its
 * interrupt stopped before, adds the interrupted registers and so knows
 * the field the CPU is about to touch: the item draws' hints (plan.c).
 *
 * dprof_memop_decode() gives what a hint needs: an address through
 * general registers.  Left out, as "no operand": register operands;
 * RIP-relative and absolute addresses (globals); %fs and %gs (per-CPU
 * data); 32-bit addresses (0x67); VEX and EVEX encodings; operands
 * without ModRM (string instructions, push and pop, moffs); and
 * instructions that name an address without reading or writing it (lea,
 * nop, prefetch, clflush, the system groups 0f 00, 0f 01).  A wrong hint
 * only misplaces a weight, which the draw's rho corrects; a missing one
 * changes nothing.
 *
 * dprof_memop_decode_ex(all=1), for a sampler of data addresses
 * (design.rst, "The operand sampler"), adds the %gs per-CPU forms, the
 * RIP-relative and absolute ones (the instruction's length, immediates
 * included, says where the next one starts), the string instructions
 * (movs, cmps, stos, lods, scas: %rsi and %rdi, exact in the middle of a
 * rep), and what the instruction does to its operand (load, store or
 * read-modify-write, from the opcode, per the Intel SDM; unknown for
 * the SSE and x87 forms).  %fs, 0x67, VEX, EVEX and moffs stay out: the
 * kernel's code has almost none.
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
	/* dprof_memop_decode_ex() with all=1 only: */
	__s8 base2;		/* a string instruction's second operand */
	__u8 gs;		/* add the %gs base (the kernel's per-CPU) */
	__u8 rip;		/* add the next instruction's address */
	__u8 len;		/* the instruction's bytes */
	__u8 access, access2;	/* DPROF_MEMOP_LOAD, _STORE, _RMW or _UNKNOWN */
	__u8 string;		/* a string instruction's element bytes, else 0 */
	__u8 rep;		/* a string instruction with a rep prefix */
};

#define DPROF_MEMOP_UNKNOWN	0
#define DPROF_MEMOP_LOAD	1
#define DPROF_MEMOP_STORE	2
#define DPROF_MEMOP_RMW		3

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
 * The immediate's bytes after the ModRM operand of a one-byte opcode
 * (@reg: ModRM's reg field; @osize16: a 66 prefix without REX.W).
 */
static inline unsigned int dprof_memop_imm1(__u8 op, __u8 reg, int osize16)
{
	unsigned int z = osize16 ? 2 : 4;

	switch (op) {
	case 0x69: case 0x81: case 0xc7:
		return z;
	case 0x6b: case 0x80: case 0x82: case 0x83: case 0xc0: case 0xc1:
	case 0xc6:
		return 1;
	case 0xf6:
		return reg <= 1 ? 1 : 0;	/* test $imm8 */
	case 0xf7:
		return reg <= 1 ? z : 0;
	default:
		return 0;
	}
}

/* The same for two-byte opcodes (0f @op; 0f 3a takes an imm8 always). */
static inline unsigned int dprof_memop_imm2(__u8 op)
{
	return (op >= 0x70 && op <= 0x73) || op == 0xa4 || op == 0xac ||
	       op == 0xba || op == 0xc2 || (op >= 0xc4 && op <= 0xc6);
}

/* What a one-byte opcode's r/m operand does (@reg: ModRM's reg field). */
static inline __u8 dprof_memop_access1(__u8 op, __u8 reg)
{
	if (op < 0x40) {		/* the ALU block: op r/m,r and op r,r/m */
		if ((op & 7) >= 2)
			return DPROF_MEMOP_LOAD;
		return (op & 0x38) == 0x38 ? DPROF_MEMOP_LOAD : DPROF_MEMOP_RMW;
	}
	switch (op) {
	case 0x63: case 0x69: case 0x6b: case 0x84: case 0x85: case 0x8a:
	case 0x8b:
		return DPROF_MEMOP_LOAD;
	case 0x86: case 0x87: case 0xc0: case 0xc1: case 0xd0: case 0xd1:
	case 0xd2: case 0xd3:
		return DPROF_MEMOP_RMW;
	case 0x88: case 0x89: case 0x8c: case 0x8f: case 0xc6: case 0xc7:
		return DPROF_MEMOP_STORE;
	case 0x80: case 0x81: case 0x82: case 0x83:
		return reg == 7 ? DPROF_MEMOP_LOAD : DPROF_MEMOP_RMW;
	case 0xf6: case 0xf7:		/* test, not, neg, mul, div */
		return reg == 2 || reg == 3 ? DPROF_MEMOP_RMW : DPROF_MEMOP_LOAD;
	case 0xfe: case 0xff:		/* inc, dec; call, jmp, push */
		return reg <= 1 ? DPROF_MEMOP_RMW : DPROF_MEMOP_LOAD;
	default:
		return DPROF_MEMOP_UNKNOWN;
	}
}

/* The same for two-byte opcodes (0f @op). */
static inline __u8 dprof_memop_access2(__u8 op, __u8 reg)
{
	if ((op >= 0x40 && op <= 0x4f) || op == 0xa3 || op == 0xb6 ||
	    op == 0xb7 || op == 0xbe || op == 0xbf || op == 0xbc ||
	    op == 0xbd)
		return DPROF_MEMOP_LOAD;	/* cmovcc, bt, movzx, movsx, bsf */
	if (op >= 0x90 && op <= 0x9f)
		return DPROF_MEMOP_STORE;	/* setcc */
	if (op == 0xb0 || op == 0xb1 || op == 0xc0 || op == 0xc1 ||
	    op == 0xab || op == 0xb3 || op == 0xbb || (op == 0xc7 && reg == 1))
		return DPROF_MEMOP_RMW;	/* cmpxchg(8b/16b), xadd, bts, btr, btc */
	if (op == 0xba)
		return reg == 4 ? DPROF_MEMOP_LOAD : DPROF_MEMOP_RMW;
	return DPROF_MEMOP_UNKNOWN;
}

/*
 * Decode the memory operand of the instruction at @code (@len bytes
 * readable).  Returns 1 and fills @m when it has one, 0 otherwise.
 * @all: 0 for an operand made of general registers only (see above);
 * 1 also for a %gs override (m->gs: the per-CPU base to add), a
 * RIP-relative or absolute address (m->rip: relative to the next
 * instruction, m->len bytes on), and the string instructions (movs,
 * cmps, stos, lods, scas: %rsi and %rdi, m->base2 for the second).
 * m->len is the instruction's length and m->access what it does to the
 * operand where the opcode says it, with @all.
 */
static inline int dprof_memop_decode_ex(const __u8 *code, unsigned int len,
					struct dprof_memop *m, int all)
{
	unsigned int i = 0, rex = 0, imm = 0;
	__u8 op, modrm, mod, rm, sib, reg;
	int modrm_ok, two = 0, osize16 = 0, gs = 0, rep = 0;

	if (len > DPROF_MEMOP_MAX_LEN)
		len = DPROF_MEMOP_MAX_LEN;
	/* Legacy prefixes, then at most one REX right before the opcode. */
	for (; i < len; i++) {
		op = code[i];
		if (op == 0x64 || op == 0x67 || (op == 0x65 && !all))
			return 0;	/* %fs, 32-bit address; %gs */
		if (op == 0x65) {
			gs = 1;
			continue;
		}
		if (op == 0x66)
			osize16 = 1;
		if (op == 0xf2 || op == 0xf3)
			rep = 1;
		if (op != 0xf0 && op != 0xf2 && op != 0xf3 && op != 0x66 &&
		    op != 0x2e && op != 0x36 && op != 0x3e && op != 0x26)
			break;
	}
	if (i < len && (code[i] & 0xf0) == 0x40)
		rex = code[i++];
	if (rex & 8)
		osize16 = 0;
	if (i >= len)
		return 0;
	op = code[i++];
	m->base2 = DPROF_MEMOP_NO_REG;
	m->gs = gs;
	m->rip = 0;
	m->access = DPROF_MEMOP_UNKNOWN;
	m->access2 = DPROF_MEMOP_UNKNOWN;
	m->string = 0;
	m->rep = 0;
	if (all && op >= 0xa4 && op <= 0xaf && op != 0xa8 && op != 0xa9) {
		/* String instructions: (%rsi) and (%rdi), no ModRM. */
		m->index = DPROF_MEMOP_NO_REG;
		m->scale = 1;
		m->disp = 0;
		m->len = i;
		m->string = !(op & 1) ? 1 : (rex & 8) ? 8 : osize16 ? 2 : 4;
		m->rep = rep;
		if (op <= 0xa7) {	/* movs, cmps: source, then destination */
			m->base = 6;
			m->base2 = 7;
			m->access = DPROF_MEMOP_LOAD;
			m->access2 = op <= 0xa5 ? DPROF_MEMOP_STORE :
						  DPROF_MEMOP_LOAD;
		} else if (op <= 0xab) {
			m->base = 7;	/* stos */
			m->access = DPROF_MEMOP_STORE;
		} else if (op <= 0xad) {
			m->base = 6;	/* lods */
			m->access = DPROF_MEMOP_LOAD;
		} else {
			m->base = 7;	/* scas */
			m->access = DPROF_MEMOP_LOAD;
		}
		return 1;
	}
	if (op == 0x0f) {
		if (i >= len)
			return 0;
		op = code[i++];
		two = 1;
		if (op == 0x38 || op == 0x3a) {
			if (i >= len)
				return 0;
			imm = op == 0x3a;
			i++;		/* the third opcode byte: all ModRM */
			modrm_ok = 1;
			two = 3;
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
	reg = (modrm >> 3) & 7;
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
	} else if (all) {
		m->base = DPROF_MEMOP_NO_REG;	/* RIP-relative */
		m->rip = 1;
		mod = 2;
	} else {
		return 0;		/* RIP-relative: a global */
	}
	if (mod == 1) {
		if (i >= len)
			return 0;
		m->disp = (__s8)code[i++];
	} else if (mod == 2) {
		if (i + 4 > len)
			return 0;
		m->disp = (__s32)((__u32)code[i] | (__u32)code[i + 1] << 8 |
				  (__u32)code[i + 2] << 16 |
				  (__u32)code[i + 3] << 24);
		i += 4;
	}
	if (!all && m->base == DPROF_MEMOP_NO_REG &&
	    m->index == DPROF_MEMOP_NO_REG)
		return 0;		/* an absolute address: a global */
	if (two == 1)
		imm = dprof_memop_imm2(op);
	else if (!two)
		imm = dprof_memop_imm1(op, reg, osize16);
	m->len = i + imm;
	if (all && m->len > len)
		return 0;		/* cut short */
	if (two == 1)
		m->access = dprof_memop_access2(op, reg);
	else if (!two)
		m->access = dprof_memop_access1(op, reg);
	return 1;
}

/* An operand through general registers only (the in-use tick's hints). */
static inline int dprof_memop_decode(const __u8 *code, unsigned int len,
				     struct dprof_memop *m)
{
	return dprof_memop_decode_ex(code, len, m, 0);
}

/*
 * The bytes before an interrupted instruction, @before[0 .. @n - 1]
 * ending at it: do they end with an instruction that turns interrupts
 * on?  popf (9d) is itself the last, after the push of the flags
 * (native restore_fl: push %rdi; popf); sti (fb) lets one instruction
 * run first (its shadow: no interrupt is taken right after an sti), and
 * where paravirt patched a call to irq_enable or restore_fl into sti or
 * popf, that one is the nop padding the call
 * (arch/x86/include/asm/nops.h: the long nops 0f 1f, after 66 for six
 * bytes).  An interrupt taken here was held while interrupts were off.
 * A lone fb or 9d before the instruction is most often another
 * instruction's last byte, always the same one: mov %rdi,%rbx is
 * 48 89 fb, and dropping the ticks after it hid the load that follows
 * it in a function's prologue (dprof_fastpath: both_ro on receive, 0
 * samples of some 250).
 */
#define DPROF_MEMOP_IRQ_ENABLE_BEFORE	9	/* fb and an 8-byte nop */

static inline int dprof_memop_irq_on(__u8 op)
{
	return op == 0x9d || op == 0xfb;	/* popf, sti */
}

static inline int dprof_memop_after_irq_enable(const __u8 *before,
					       unsigned int n)
{
	static const __u8 nops[8][8] = {
		{ 0x90 },
		{ 0x66, 0x90 },
		{ 0x0f, 0x1f, 0x00 },
		{ 0x0f, 0x1f, 0x40, 0x00 },
		{ 0x0f, 0x1f, 0x44, 0x00, 0x00 },
		{ 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 },
		{ 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00 },
		{ 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 },
	};
	unsigned int len, i;

	/* push %reg (50+r, 41 50+r for r8-r15); popf */
	if (n >= 2 && before[n - 1] == 0x9d && (before[n - 2] & 0xf8) == 0x50)
		return 1;
	/* A nop of len bytes ending at the instruction, after sti or popf. */
	for (len = 1; len <= 8 && len < n; len++) {
		const __u8 *c = before + n - len;

		for (i = 0; i < len && c[i] == nops[len - 1][i]; i++)
			;
		if (i == len && dprof_memop_irq_on(c[-1]))
			return 1;
	}
	return 0;
}

#endif /* _DPROF_MEMOP_H */

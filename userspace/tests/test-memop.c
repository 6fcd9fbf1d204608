// SPDX-License-Identifier: GPL-2.0
/*
 * The in-use tick's operand decoder (module/memop.h), first on encodings
 * objdump prints for the instructions in the comments, then against
 * capstone over real machine code: every instruction of this test
 * program's own .text (gcc's code, with the sanitizers' checks: loads,
 * stores, lock'ed atomics, SIB forms, r8-r15).  The decoder must never
 * give an operand capstone does not, and must give nearly every one that
 * its header does not leave out.
 */
#include <capstone/capstone.h>
#include <dirent.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>
#include "memop.h"
#include "harness.h"

struct memop_case {
	const char *what;
	uint8_t bytes[15];
	uint8_t len;
	int has;		/* expected: an operand */
	int8_t base, index;
	uint8_t scale;
	int32_t disp;
};

#define NO DPROF_MEMOP_NO_REG

static const struct memop_case cases[] = {
	{ "mov 0x10(%rdi),%rax", { 0x48, 0x8b, 0x47, 0x10 }, 4, 1, 7, NO, 1, 0x10 },
	{ "mov %eax,-0x8(%rbp)", { 0x89, 0x45, 0xf8 }, 3, 1, 5, NO, 1, -8 },
	{ "mov 0x1234(%r12),%rdx", { 0x49, 0x8b, 0x94, 0x24, 0x34, 0x12, 0x00, 0x00 }, 8, 1, 12, NO, 1, 0x1234 },
	{ "mov (%r13),%rax", { 0x49, 0x8b, 0x45, 0x00 }, 4, 1, 13, NO, 1, 0 },
	{ "mov (%rax,%rbx,8),%rcx", { 0x48, 0x8b, 0x0c, 0xd8 }, 4, 1, 0, 3, 8, 0 },
	{ "mov 0x40(%rdx,%r12,4),%ecx", { 0x42, 0x8b, 0x4c, 0xa2, 0x40 }, 5, 1, 2, 12, 4, 0x40 },
	{ "mov 0x0(,%rax,8),%rdx", { 0x48, 0x8b, 0x14, 0xc5, 0x00, 0x00, 0x00, 0x00 }, 8, 1, NO, 0, 8, 0 },
	{ "lock cmpxchg %ecx,0x18(%rdi)", { 0xf0, 0x0f, 0xb1, 0x4f, 0x18 }, 5, 1, 7, NO, 1, 0x18 },
	{ "lock incl 0x4(%rsi)", { 0xf0, 0xff, 0x46, 0x04 }, 4, 1, 6, NO, 1, 4 },
	{ "movzwl 0x2a(%rbx),%eax", { 0x0f, 0xb7, 0x43, 0x2a }, 4, 1, 3, NO, 1, 0x2a },
	{ "cmpq $0x0,0x8(%rsp)", { 0x48, 0x83, 0x7c, 0x24, 0x08, 0x00 }, 6, 1, 4, NO, 1, 8 },
	{ "testb $0x1,0x91(%r15)", { 0x41, 0xf6, 0x87, 0x91, 0x00, 0x00, 0x00, 0x01 }, 8, 1, 15, NO, 1, 0x91 },
	{ "movw $0x0,0x8(%rdi)", { 0x66, 0xc7, 0x47, 0x08, 0x00, 0x00 }, 6, 1, 7, NO, 1, 8 },
	{ "call *0x20(%rax)", { 0xff, 0x50, 0x20 }, 3, 1, 0, NO, 1, 0x20 },
	{ "mov %rax,%rbx", { 0x48, 0x89, 0xc3 }, 3, 0, NO, NO, 1, 0 },
	{ "lea 0x8(%rdi),%rax", { 0x48, 0x8d, 0x47, 0x08 }, 4, 0, NO, NO, 1, 0 },
	{ "mov 0x10(%rip),%rax", { 0x48, 0x8b, 0x05, 0x10, 0x00, 0x00, 0x00 }, 7, 0, NO, NO, 1, 0 },
	{ "mov %gs:0x28,%rax", { 0x65, 0x48, 0x8b, 0x04, 0x25, 0x28, 0x00, 0x00, 0x00 }, 9, 0, NO, NO, 1, 0 },
	{ "mov 0x1000,%eax (absolute, SIB)", { 0x8b, 0x04, 0x25, 0x00, 0x10, 0x00, 0x00 }, 7, 0, NO, NO, 1, 0 },
	{ "nopl 0x0(%rax,%rax,1)", { 0x0f, 0x1f, 0x44, 0x00, 0x00 }, 5, 0, NO, NO, 1, 0 },
	{ "prefetcht0 (%rdi)", { 0x0f, 0x18, 0x0f }, 3, 0, NO, NO, 1, 0 },
	{ "clflush (%rdi)", { 0x0f, 0xae, 0x3f }, 3, 0, NO, NO, 1, 0 },
	{ "rep movsb", { 0xf3, 0xa4 }, 2, 0, NO, NO, 1, 0 },
	{ "push %rbx", { 0x53 }, 1, 0, NO, NO, 1, 0 },
	{ "jne +0x10", { 0x75, 0x10 }, 2, 0, NO, NO, 1, 0 },
	{ "mov 0x10(%rdi),%rax, cut short", { 0x48, 0x8b, 0x47 }, 3, 0, NO, NO, 1, 0 },
	{ "vmovdqu (%rdi),%ymm0 (VEX)", { 0xc5, 0xfe, 0x6f, 0x07 }, 4, 0, NO, NO, 1, 0 },
	{ NULL, { 0 }, 0, 0, 0, 0, 0, 0 }
};

static void test_memop_cases(void)
{
	for (const struct memop_case *c = cases; c->what; c++) {
		struct dprof_memop m;
		int has = dprof_memop_decode(c->bytes, c->len, &m);

		if (has != c->has) {
			fprintf(stderr, "%s: decoded %d, expected %d\n", c->what,
				has, c->has);
			test_checks_failed++;
			continue;
		}
		if (has && (m.base != c->base || m.index != c->index ||
			    m.scale != c->scale || m.disp != c->disp)) {
			fprintf(stderr, "%s: base %d index %d scale %u disp %d\n",
				c->what, m.base, m.index, m.scale, m.disp);
			test_checks_failed++;
		}
	}
}

/* dprof_memop_decode_ex(all=1): what the operand sampler reads. */
struct memop_ex_case {
	const char *what;
	uint8_t bytes[15];
	uint8_t len;
	int has;
	int8_t base, index, base2;
	int32_t disp;
	uint8_t gs, rip, ilen, access, access2;
};

#define LD DPROF_MEMOP_LOAD
#define ST DPROF_MEMOP_STORE
#define RMW DPROF_MEMOP_RMW
#define UNK DPROF_MEMOP_UNKNOWN

static const struct memop_ex_case ex_cases[] = {
	{ "mov %gs:0x28,%rax", { 0x65, 0x48, 0x8b, 0x04, 0x25, 0x28, 0x00, 0x00, 0x00 }, 9,
	  1, NO, NO, NO, 0x28, 1, 0, 9, LD, UNK },
	{ "incl %gs:(%rax)", { 0x65, 0xff, 0x00 }, 3, 1, 0, NO, NO, 0, 1, 0, 3, RMW, UNK },
	{ "mov 0x10(%rip),%rax", { 0x48, 0x8b, 0x05, 0x10, 0x00, 0x00, 0x00 }, 7,
	  1, NO, NO, NO, 0x10, 0, 1, 7, LD, UNK },
	{ "cmpl $0x5,0x10(%rip): the imm32 after disp", { 0x83, 0x3d, 0x10, 0x00, 0x00, 0x00, 0x05 }, 7,
	  1, NO, NO, NO, 0x10, 0, 1, 7, LD, UNK },
	{ "movl $0x1,-0x10(%rip)", { 0xc7, 0x05, 0xf0, 0xff, 0xff, 0xff, 0x01, 0x00, 0x00, 0x00 }, 10,
	  1, NO, NO, NO, -0x10, 0, 1, 10, ST, UNK },
	{ "movw $0x1,0x8(%rip): 66, imm16", { 0x66, 0xc7, 0x05, 0x08, 0x00, 0x00, 0x00, 0x01, 0x00 }, 9,
	  1, NO, NO, NO, 8, 0, 1, 9, ST, UNK },
	{ "mov 0xffffffff82001000,%eax (absolute)", { 0x8b, 0x04, 0x25, 0x00, 0x10, 0x00, 0x82 }, 7,
	  1, NO, NO, NO, (int32_t)0x82001000, 0, 0, 7, LD, UNK },
	{ "rep movsb", { 0xf3, 0xa4 }, 2, 1, 6, NO, 7, 0, 0, 0, 2, LD, ST },
	{ "rep stos %rax,(%rdi)", { 0xf3, 0x48, 0xab }, 3, 1, 7, NO, NO, 0, 0, 0, 3, ST, UNK },
	{ "repz cmpsb", { 0xf3, 0xa6 }, 2, 1, 6, NO, 7, 0, 0, 0, 2, LD, LD },
	{ "lodsq", { 0x48, 0xad }, 2, 1, 6, NO, NO, 0, 0, 0, 2, LD, UNK },
	{ "mov %eax,-0x8(%rbp)", { 0x89, 0x45, 0xf8 }, 3, 1, 5, NO, NO, -8, 0, 0, 3, ST, UNK },
	{ "lock cmpxchg %ecx,0x18(%rdi)", { 0xf0, 0x0f, 0xb1, 0x4f, 0x18 }, 5, 1, 7, NO, NO, 0x18, 0, 0, 5, RMW, UNK },
	{ "cmp %rax,0x8(%rdi)", { 0x48, 0x39, 0x47, 0x08 }, 4, 1, 7, NO, NO, 8, 0, 0, 4, LD, UNK },
	{ "add %rax,0x8(%rdi)", { 0x48, 0x01, 0x47, 0x08 }, 4, 1, 7, NO, NO, 8, 0, 0, 4, RMW, UNK },
	{ "btsq $0x3,0x8(%rdi)", { 0x48, 0x0f, 0xba, 0x6f, 0x08, 0x03 }, 6, 1, 7, NO, NO, 8, 0, 0, 6, RMW, UNK },
	{ "testb $0x1,0x91(%r15)", { 0x41, 0xf6, 0x87, 0x91, 0x00, 0x00, 0x00, 0x01 }, 8,
	  1, 15, NO, NO, 0x91, 0, 0, 8, LD, UNK },
	{ "mov %fs:0x28,%rax", { 0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0x00, 0x00, 0x00 }, 9,
	  0, NO, NO, NO, 0, 0, 0, 0, UNK, UNK },
	{ "lea 0x8(%rip),%rax", { 0x48, 0x8d, 0x05, 0x08, 0x00, 0x00, 0x00 }, 7,
	  0, NO, NO, NO, 0, 0, 0, 0, UNK, UNK },
	{ "cmpl $0x5,0x10(%rip), imm cut short", { 0x83, 0x3d, 0x10, 0x00, 0x00, 0x00 }, 6,
	  0, NO, NO, NO, 0, 0, 0, 0, UNK, UNK },
	{ NULL, { 0 }, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }
};

static void test_memop_ex_cases(void)
{
	for (const struct memop_ex_case *c = ex_cases; c->what; c++) {
		struct dprof_memop m;
		int has = dprof_memop_decode_ex(c->bytes, c->len, &m, 1);

		if (has != c->has) {
			fprintf(stderr, "%s: decoded %d, expected %d\n", c->what,
				has, c->has);
			test_checks_failed++;
			continue;
		}
		if (has && (m.base != c->base || m.index != c->index ||
			    m.base2 != c->base2 || m.disp != c->disp ||
			    m.gs != c->gs || m.rip != c->rip || m.len != c->ilen ||
			    m.access != c->access || m.access2 != c->access2)) {
			fprintf(stderr, "%s: base %d index %d base2 %d disp %d gs %u rip %u len %u access %u %u\n",
				c->what, m.base, m.index, m.base2, m.disp, m.gs,
				m.rip, m.len, m.access, m.access2);
			test_checks_failed++;
		}
	}
}

/* Capstone's 64-bit general registers by their encoding number. */
static int reg_number(x86_reg r)
{
	static const x86_reg regs[16] = {
		X86_REG_RAX, X86_REG_RCX, X86_REG_RDX, X86_REG_RBX,
		X86_REG_RSP, X86_REG_RBP, X86_REG_RSI, X86_REG_RDI,
		X86_REG_R8, X86_REG_R9, X86_REG_R10, X86_REG_R11,
		X86_REG_R12, X86_REG_R13, X86_REG_R14, X86_REG_R15,
	};

	if (r == X86_REG_INVALID)
		return NO;
	for (int i = 0; i < 16; i++)
		if (regs[i] == r)
			return i;
	return -2;		/* another register: rip, a 32-bit one */
}

/*
 * The index of the opcode's first byte: after the legacy prefixes (%gs
 * included) and one REX; insn->size when there is none.
 */
static unsigned int opcode_index(const cs_insn *insn)
{
	static const uint8_t prefixes[] = {
		0xf0, 0xf2, 0xf3, 0x66, 0x2e, 0x3e, 0x26, 0x36, 0x65,
	};
	unsigned int i = 0, k;

	for (; i < insn->size; i++) {
		for (k = 0; k < sizeof(prefixes) && insn->bytes[i] != prefixes[k]; k++)
			;
		if (k == sizeof(prefixes))
			break;
	}
	if (i < insn->size && (insn->bytes[i] & 0xf0) == 0x40)
		i++;
	return i;
}

/* The instructions memop.h leaves out on purpose (see its header). */
static int left_out(const cs_insn *insn, const cs_x86_op *op)
{
	const cs_x86 *x = &insn->detail->x86;
	unsigned int i = 0;
	uint8_t b;

	if (op->mem.segment != X86_REG_INVALID || x->addr_size != 8)
		return 1;
	if (reg_number(op->mem.base) == -2 || reg_number(op->mem.index) == -2)
		return 1;
	if (op->mem.base == X86_REG_INVALID && op->mem.index == X86_REG_INVALID)
		return 1;
	/* The first byte after the legacy prefixes and REX. */
	i = opcode_index(insn);
	if (i >= insn->size)
		return 1;
	b = insn->bytes[i];
	if (b == 0xc4 || b == 0xc5 || b == 0x62)
		return 1;		/* VEX, EVEX */
	if ((b >= 0xa0 && b <= 0xaf) || b == 0xd7 || (b >= 0x50 && b <= 0x5f) ||
	    (b >= 0x6c && b <= 0x6f) || b == 0xc3 || b == 0xc2 || b == 0x9c ||
	    b == 0x9d || b == 0xc9 || b == 0xe8 || b == 0x68 || b == 0x6a)
		return 1;		/* no ModRM: string, stack, moffs, call */
	switch (insn->id) {
	case X86_INS_LEA: case X86_INS_NOP: case X86_INS_PREFETCH:
	case X86_INS_PREFETCHNTA: case X86_INS_PREFETCHT0:
	case X86_INS_PREFETCHT1: case X86_INS_PREFETCHT2:
	case X86_INS_PREFETCHW: case X86_INS_CLFLUSH: case X86_INS_CLFLUSHOPT:
	case X86_INS_FXSAVE: case X86_INS_FXRSTOR: case X86_INS_FXSAVE64:
	case X86_INS_FXRSTOR64: case X86_INS_LDMXCSR: case X86_INS_STMXCSR:
	case X86_INS_XSAVE: case X86_INS_XRSTOR: case X86_INS_XSAVEOPT:
		return 1;
	default:
		return 0;
	}
}

struct memop_tally {
	unsigned long insns, operands, found, wrong, missed;
};

static void tally_code(csh cs, const uint8_t *code, size_t len,
		       uint64_t addr, struct memop_tally *t)
{
	cs_insn *insn = cs_malloc(cs);

	while (len) {
		const uint8_t *at = code;
		struct dprof_memop m;
		const cs_x86_op *op = NULL;
		int has;

		if (!cs_disasm_iter(cs, &code, &len, &addr, insn)) {
			/* Data or padding capstone cannot read: skip a byte. */
			code++, len--, addr++;
			continue;
		}
		t->insns++;
		for (int i = 0; i < insn->detail->x86.op_count; i++)
			if (insn->detail->x86.operands[i].type == X86_OP_MEM)
				op = &insn->detail->x86.operands[i];
		has = dprof_memop_decode(at, insn->size, &m);
		if (has && (!op || m.base != reg_number(op->mem.base) ||
			    m.index != reg_number(op->mem.index) ||
			    (m.index != NO && m.scale != op->mem.scale) ||
			    m.disp != op->mem.disp)) {
			if (t->wrong++ < 5)
				fprintf(stderr, "memop: %s %s decoded base %d index %d scale %u disp %d\n",
					insn->mnemonic, insn->op_str, m.base,
					m.index, m.scale, m.disp);
			continue;
		}
		if (!op || left_out(insn, op))
			continue;
		t->operands++;
		if (has) {
			t->found++;
		} else if (t->missed++ < 5) {
			fprintf(stderr, "memop: missed %s %s\n", insn->mnemonic,
				insn->op_str);
		}
	}
	cs_free(insn, 1);
}

/* The forms dprof_memop_decode_ex(all=1) still leaves out. */
static int left_out_ex(const cs_insn *insn, const cs_x86_op *op)
{
	const cs_x86 *x = &insn->detail->x86;
	unsigned int i = 0;
	uint8_t b;

	if (op->mem.segment == X86_REG_FS || x->addr_size != 8)
		return 1;
	i = opcode_index(insn);
	if (i >= insn->size)
		return 1;
	b = insn->bytes[i];
	if (b == 0xc4 || b == 0xc5 || b == 0x62)
		return 1;		/* VEX, EVEX */
	if ((b >= 0xa0 && b <= 0xa3) || b == 0xd7 || (b >= 0x50 && b <= 0x5f) ||
	    (b >= 0x6c && b <= 0x6f) || b == 0xc3 || b == 0xc2 || b == 0x9c ||
	    b == 0x9d || b == 0xc9 || b == 0xe8 || b == 0x68 || b == 0x6a ||
	    b == 0xc8 || b == 0xcf)
		return 1;		/* moffs, stack, call, ins/outs, xlat */
	if (b == 0x0f && i + 1 < insn->size &&
	    (insn->bytes[i + 1] <= 0x01 || insn->bytes[i + 1] == 0x0d ||
	     (insn->bytes[i + 1] >= 0x18 && insn->bytes[i + 1] <= 0x1f) ||
	     insn->bytes[i + 1] == 0xae || insn->bytes[i + 1] == 0xa0 ||
	     insn->bytes[i + 1] == 0xa1 || insn->bytes[i + 1] == 0xa8 ||
	     insn->bytes[i + 1] == 0xa9))
		return 1;		/* system, hints, fences; push/pop fs/gs */
	switch (insn->id) {
	case X86_INS_LEA: case X86_INS_NOP: case X86_INS_PREFETCH:
	case X86_INS_PREFETCHNTA: case X86_INS_PREFETCHT0:
	case X86_INS_PREFETCHT1: case X86_INS_PREFETCHT2:
	case X86_INS_PREFETCHW: case X86_INS_CLFLUSH: case X86_INS_CLFLUSHOPT:
	case X86_INS_FXSAVE: case X86_INS_FXRSTOR: case X86_INS_FXSAVE64:
	case X86_INS_FXRSTOR64: case X86_INS_LDMXCSR: case X86_INS_STMXCSR:
	case X86_INS_XSAVE: case X86_INS_XRSTOR: case X86_INS_XSAVEOPT:
		return 1;
	default:
		return 0;
	}
}

/*
 * Where capstone 4.0's access tables contradict the Intel SDM (Vol. 2):
 * TEST only reads its operands (capstone: read and write), SETcc only
 * writes its byte, shifts and rotates write theirs, and CMPXCHG always
 * writes its destination, the old value back when the compare fails
 * (capstone: read, for some encodings).  memop.h follows the SDM.
 */
static int capstone_access_wrong(const cs_insn *insn, const cs_x86_op *op)
{
	switch (insn->id) {
	case X86_INS_TEST:
		return op->access == (CS_AC_READ | CS_AC_WRITE);
	case X86_INS_CMPXCHG: case X86_INS_ROL: case X86_INS_ROR:
	case X86_INS_RCL: case X86_INS_RCR: case X86_INS_SHL:
	case X86_INS_SHR: case X86_INS_SAR:
		return op->access == CS_AC_READ;
	default:
		return insn->mnemonic[0] == 's' && insn->mnemonic[1] == 'e' &&
		       insn->mnemonic[2] == 't' && op->access == CS_AC_READ;
	}
}

/* Capstone's access bits for one of memop.h's kinds. */
static uint8_t cs_access(uint8_t kind)
{
	return kind == DPROF_MEMOP_LOAD ? CS_AC_READ :
	       kind == DPROF_MEMOP_STORE ? CS_AC_WRITE : CS_AC_READ | CS_AC_WRITE;
}

struct memop_ex_tally {
	unsigned long insns, operands, found, wrong, missed, strings, gs, rip;
	unsigned long with_access, access_wrong, capstone_wrong;
};

/* One ModRM (or moffs-free) operand against capstone's; 0 if it agrees. */
static int ex_wrong(const cs_insn *insn, const cs_x86_op *op,
		    const struct dprof_memop *m)
{
	if (m->len != insn->size)
		return 1;
	if (m->rip ? op->mem.base != X86_REG_RIP :
		     m->base != reg_number(op->mem.base))
		return 1;
	if (m->index != reg_number(op->mem.index) ||
	    (m->index != NO && m->scale != op->mem.scale) ||
	    m->disp != op->mem.disp)
		return 1;
	return m->gs != (op->mem.segment == X86_REG_GS);
}

/*
 * A string instruction: capstone's operands are (%rsi) and/or (%rdi), of
 * the element's size.
 */
static int ex_string_wrong(const cs_insn *insn, const struct dprof_memop *m)
{
	const cs_x86 *x = &insn->detail->x86;
	int seen[16] = { 0 }, n = 0;

	if (m->len != insn->size)
		return 1;
	/* rep, repz, repnz: capstone's first prefix byte (0xf3, 0xf2). */
	if (m->rep != (x->prefix[0] == 0xf3 || x->prefix[0] == 0xf2))
		return 1;
	for (int i = 0; i < x->op_count; i++) {
		const cs_x86_op *op = &x->operands[i];
		int r = op->type == X86_OP_MEM ? reg_number(op->mem.base) : -3;

		if (r >= 0) {
			seen[r] = 1;
			n++;
			if (op->size != m->string)	/* the element's bytes */
				return 1;
		}
	}
	if (!seen[m->base])
		return 1;
	return m->base2 != NO ? !seen[m->base2] || n != 2 : n != 1;
}

/* movs, cmps, stos, lods, scas: the opcode after the prefixes and REX. */
static int is_string_op(const cs_insn *insn)
{
	unsigned int i = opcode_index(insn);
	uint8_t b;

	if (i >= insn->size)
		return 0;
	b = insn->bytes[i];
	return b >= 0xa4 && b <= 0xaf && b != 0xa8 && b != 0xa9;
}

static void tally_ex(csh cs, const uint8_t *code, size_t len, uint64_t addr,
		     struct memop_ex_tally *t)
{
	cs_insn *insn = cs_malloc(cs);

	while (len) {
		const uint8_t *at = code;
		struct dprof_memop m;
		const cs_x86_op *op = NULL;
		int has, nmem = 0;

		if (!cs_disasm_iter(cs, &code, &len, &addr, insn)) {
			code++, len--, addr++;
			continue;
		}
		t->insns++;
		for (int i = 0; i < insn->detail->x86.op_count; i++)
			if (insn->detail->x86.operands[i].type == X86_OP_MEM) {
				op = &insn->detail->x86.operands[i];
				nmem++;
			}
		has = dprof_memop_decode_ex(at, insn->size, &m, 1);
		if (has && is_string_op(insn)) {
			t->strings++;
			if (ex_string_wrong(insn, &m) && t->wrong++ < 5)
				fprintf(stderr, "memop ex: string %s %s decoded base %d base2 %d len %u\n",
					insn->mnemonic, insn->op_str, m.base, m.base2, m.len);
			continue;
		}
		if (has && (!op || ex_wrong(insn, op, &m))) {
			if (t->wrong++ < 5)
				fprintf(stderr, "memop ex: %s %s decoded base %d index %d scale %u disp %d gs %u rip %u len %u (capstone size %u)\n",
					insn->mnemonic, insn->op_str, m.base,
					m.index, m.scale, m.disp, m.gs, m.rip,
					m.len, insn->size);
			continue;
		}
		if (!op || left_out_ex(insn, op))
			continue;
		t->operands++;
		if (!has) {
			if (t->missed++ < 5)
				fprintf(stderr, "memop ex: missed %s %s\n",
					insn->mnemonic, insn->op_str);
			continue;
		}
		t->found++;
		t->gs += m.gs;
		t->rip += m.rip;
		if (m.access != DPROF_MEMOP_UNKNOWN && op->access) {
			t->with_access++;
			if (cs_access(m.access) == op->access)
				continue;
			if (capstone_access_wrong(insn, op)) {
				t->capstone_wrong++;
				continue;
			}
			if (t->access_wrong++ < 5)
				fprintf(stderr, "memop ex: %s %s: access %u, capstone's %u\n",
					insn->mnemonic, insn->op_str, m.access,
					op->access);
		}
	}
	cs_free(insn, 1);
}

/* Every executable section of the ELF file at @path, through @fn. */
static int for_each_code(const char *path, csh cs,
			 void (*fn)(csh, const uint8_t *, size_t, uint64_t, void *),
			 void *arg)
{
	Elf_Scn *scn = NULL;
	int fd = open(path, O_RDONLY), n = 0;
	size_t shstrndx;
	Elf *elf;

	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_getshdrstrndx(elf, &shstrndx)) {
		if (elf)
			elf_end(elf);
		close(fd);
		return -1;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			continue;
		fn(cs, d->d_buf, d->d_size, sh.sh_addr, arg);
		n++;
	}
	elf_end(elf);
	close(fd);
	return n;
}

static void tally_ex_fn(csh cs, const uint8_t *code, size_t len, uint64_t addr,
			void *arg)
{
	tally_ex(cs, code, len, addr, arg);
}

/*
 * The kernel's own code: the modules of the reference kernel make check
 * installs (uncompressed on 6.1), with per-CPU %gs accesses, RIP-relative
 * globals, string instructions and lock'ed atomics as the kernel emits
 * them.  Their displacements to be relocated read zero, for capstone too.
 */
static const char *const kernel_modules[] = {
	"fs/ext4/ext4.ko", "net/ipv4/tcp_bbr.ko", "drivers/net/ethernet/intel/igb/igb.ko",
	"net/netfilter/nf_conntrack.ko", "fs/xfs/xfs.ko", "drivers/net/virtio_net.ko",
};

/* A kernel under /lib/modules whose ext4.ko is uncompressed, or NULL. */
static const char *kernel_with_plain_modules(char *buf, size_t size)
{
	DIR *d = opendir("/lib/modules");
	struct dirent *e;
	const char *found = NULL;

	while (d && (e = readdir(d)) && !found) {
		char path[512];

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/lib/modules/%s/kernel/%s",
			 e->d_name, kernel_modules[0]);
		if (!access(path, R_OK)) {
			snprintf(buf, size, "%s", e->d_name);
			found = buf;
		}
	}
	if (d)
		closedir(d);
	return found;
}

static void test_memop_ex_against_capstone(void)
{
	struct memop_ex_tally self = {}, kern = {};
	char path[512], release[256];
	const char *kernel = kernel_with_plain_modules(release, sizeof(release));
	int nko = 0;
	csh cs;

	elf_version(EV_CURRENT);
	CHECK(cs_open(CS_ARCH_X86, CS_MODE_64, &cs) == CS_ERR_OK);
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	CHECK(for_each_code("/proc/self/exe", cs, tally_ex_fn, &self) > 0);
	for (size_t i = 0; kernel && i < sizeof(kernel_modules) / sizeof(kernel_modules[0]); i++) {
		snprintf(path, sizeof(path), "/lib/modules/%s/kernel/%s",
			 kernel, kernel_modules[i]);
		if (for_each_code(path, cs, tally_ex_fn, &kern) > 0)
			nko++;
	}
	cs_close(&cs);
	printf("memop ex, this program: %lu instructions, %lu operands, %lu decoded, %lu missed, %lu wrong, %lu strings; access %lu of them, %lu unlike capstone's (%lu where capstone contradicts the SDM)\n",
	       self.insns, self.operands, self.found, self.missed, self.wrong,
	       self.strings, self.with_access, self.access_wrong, self.capstone_wrong);
	printf("memop ex, %d kernel modules of %s: %lu instructions, %lu operands, %lu decoded (%lu %%gs, %lu RIP-relative), %lu missed, %lu wrong, %lu strings; access %lu of them, %lu unlike capstone's (%lu where capstone contradicts the SDM)\n",
	       nko, kernel ? kernel : "(none)", kern.insns, kern.operands, kern.found,
	       kern.gs, kern.rip, kern.missed, kern.wrong, kern.strings,
	       kern.with_access, kern.access_wrong, kern.capstone_wrong);
	CHECK(self.operands >= 10000);
	CHECK_EQ_U64(self.wrong, 0);
	CHECK_EQ_U64(kern.wrong, 0);
	CHECK(self.missed * 1000 <= self.operands);
	CHECK(kern.missed * 1000 <= kern.operands);
	CHECK_EQ_U64(self.access_wrong, 0);
	CHECK_EQ_U64(kern.access_wrong, 0);
	/* make check installs the reference kernel: its code must be read. */
	CHECK(nko > 0 && kern.gs > 100 && kern.rip > 1000 && kern.strings > 0);
}

static void test_memop_against_capstone(void)
{
	struct memop_tally t = {};
	Elf_Scn *scn = NULL;
	int fd = open("/proc/self/exe", O_RDONLY);
	size_t shstrndx;
	Elf *elf;
	csh cs;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	CHECK(elf && !elf_getshdrstrndx(elf, &shstrndx));
	CHECK(cs_open(CS_ARCH_X86, CS_MODE_64, &cs) == CS_ERR_OK);
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		d = elf_getdata(scn, NULL);
		if (!name || strcmp(name, ".text") || !d || !d->d_buf)
			continue;
		tally_code(cs, d->d_buf, d->d_size, sh.sh_addr, &t);
	}
	cs_close(&cs);
	if (elf)
		elf_end(elf);
	close(fd);
	printf("memop: %lu instructions, %lu memory operands through registers, %lu decoded, %lu missed, %lu wrong\n",
	       t.insns, t.operands, t.found, t.missed, t.wrong);
	/* A real program: tens of thousands of operands, not a handful. */
	CHECK(t.operands >= 10000);
	CHECK_EQ_U64(t.wrong, 0);
	/* At most one in a thousand missed. */
	CHECK(t.missed * 1000 <= t.operands);
}

/* The bytes before a tick taken where interrupts came back on. */
static void test_after_irq_enable(void)
{
	/*
	 * push %rdi; popf.  Then sti and paravirt's six-byte nop, sti and
	 * a two-byte nop; no interrupt comes right after sti (its shadow),
	 * so a lone fb is another instruction's end: mov %rdi,%rbx, and a
	 * 9d without its push (a displacement's last byte).  A mov's end.
	 */
	static const uint8_t popf[] = { 0x48, 0x89, 0xc7, 0x57, 0x9d };
	static const uint8_t mov_rdi_rbx[] = { 0x00, 0x48, 0x89, 0xfb };
	static const uint8_t disp_9d[] = { 0x48, 0x8b, 0x87, 0x9d };
	static const uint8_t sti_nop6[] = { 0x00, 0x00, 0xfb, 0x66, 0x0f,
					    0x1f, 0x44, 0x00, 0x00 };
	static const uint8_t sti_nop2[] = { 0x00, 0xfb, 0x66, 0x90 };
	static const uint8_t mov[] = { 0x48, 0x8b, 0x47, 0x08 };
	static const uint8_t nop6[] = { 0x48, 0x89, 0xc7, 0x66, 0x0f,
					0x1f, 0x44, 0x00, 0x00 };

	CHECK(dprof_memop_after_irq_enable(popf, sizeof(popf)));
	CHECK(!dprof_memop_after_irq_enable(mov_rdi_rbx, sizeof(mov_rdi_rbx)));
	CHECK(!dprof_memop_after_irq_enable(disp_9d, sizeof(disp_9d)));
	CHECK(dprof_memop_after_irq_enable(sti_nop6, sizeof(sti_nop6)));
	CHECK(dprof_memop_after_irq_enable(sti_nop2, sizeof(sti_nop2)));
	CHECK(!dprof_memop_after_irq_enable(mov, sizeof(mov)));
	CHECK(!dprof_memop_after_irq_enable(nop6, sizeof(nop6)));
	CHECK(!dprof_memop_after_irq_enable(mov, 0));
}

const struct unit_test memop_tests[] = {
	{ "memop: hand-encoded operands", test_memop_cases },
	{ "memop: ticks held while interrupts were off", test_after_irq_enable },
	{ "memop: hand-encoded operands, all forms", test_memop_ex_cases },
	{ "memop: against capstone over this program's code", test_memop_against_capstone },
	{ "memop: all forms against capstone, this program and kernel modules", test_memop_ex_against_capstone },
	{ NULL, NULL },
};

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
	while (i < insn->size && (insn->bytes[i] == 0xf0 ||
				  insn->bytes[i] == 0xf2 || insn->bytes[i] == 0xf3 ||
				  insn->bytes[i] == 0x66 || insn->bytes[i] == 0x2e ||
				  insn->bytes[i] == 0x3e || insn->bytes[i] == 0x26 ||
				  insn->bytes[i] == 0x36))
		i++;
	if (i < insn->size && (insn->bytes[i] & 0xf0) == 0x40)
		i++;
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

const struct unit_test memop_tests[] = {
	{ "memop: hand-encoded operands", test_memop_cases },
	{ "memop: against capstone over this program's code", test_memop_against_capstone },
	{ NULL, NULL },
};

// SPDX-License-Identifier: GPL-2.0
/*
 * Trap ip -> accessing instruction and how it uses memory, with capstone
 * and libelf on kcore.
 */
#include <capstone/capstone.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "accessip.h"
#include "util.h"

/* Longest function prefix decoded: kernel functions are far smaller. */
#define MAX_DECODE (256 * 1024)
#define MAX_INSN 15

static bool has_memory_operand(const cs_insn *insn)
{
	const cs_x86 *x86 = &insn->detail->x86;

	for (int i = 0; i < x86->op_count; i++)
		if (x86->operands[i].type == X86_OP_MEM)
			return true;
	return false;
}

static bool is_rep_string(const cs_insn *insn)
{
	switch (insn->id) {
	case X86_INS_STOSB: case X86_INS_STOSW: case X86_INS_STOSD:
	case X86_INS_STOSQ: case X86_INS_MOVSB: case X86_INS_MOVSW:
	case X86_INS_MOVSD: case X86_INS_MOVSQ: case X86_INS_LODSB:
	case X86_INS_LODSW: case X86_INS_LODSD: case X86_INS_LODSQ:
	case X86_INS_CMPSB: case X86_INS_CMPSW: case X86_INS_CMPSD:
	case X86_INS_CMPSQ: case X86_INS_SCASB: case X86_INS_SCASW:
	case X86_INS_SCASD: case X86_INS_SCASQ:
		return insn->detail->x86.prefix[0] != 0;
	default:
		return false;
	}
}

/*
 * The kind of access an instruction makes, by the Intel SDM.  capstone 4's
 * operand access flags are wrong for several of the instructions the
 * kernel shares memory with (it gives lock cmpxchg and cmpxchg16b as
 * reads, test as a read-write, lea as a read), so the opcode decides
 * where the SDM is clear and the flags only for plain data movement and
 * arithmetic, where they are right.
 */
static enum dprof_access_kind kind_by_opcode(const cs_insn *insn, bool *decided)
{
	*decided = true;
	switch (insn->id) {
	/* Atomic or exclusive by definition; cmpxchg writes even on failure. */
	case X86_INS_XCHG: case X86_INS_CMPXCHG: case X86_INS_CMPXCHG8B:
	case X86_INS_CMPXCHG16B: case X86_INS_XADD:
		return DPROF_ACCESS_RMW;
	/* Read their memory operand only. */
	case X86_INS_TEST: case X86_INS_CMP: case X86_INS_BT:
	case X86_INS_PUSH:
		return DPROF_ACCESS_LOAD;
	case X86_INS_POP:
		return DPROF_ACCESS_STORE;
	/* Address arithmetic and hints: no data access, no data breakpoint. */
	case X86_INS_LEA: case X86_INS_NOP: case X86_INS_PREFETCH:
	case X86_INS_PREFETCHW: case X86_INS_PREFETCHNTA:
	case X86_INS_PREFETCHT0: case X86_INS_PREFETCHT1:
	case X86_INS_PREFETCHT2: case X86_INS_CLFLUSH:
	case X86_INS_CLFLUSHOPT: case X86_INS_CLWB:
		return DPROF_ACCESS_UNKNOWN;
	default:
		*decided = false;
		return DPROF_ACCESS_UNKNOWN;
	}
}

enum dprof_access_kind access_kind_of(const cs_insn *insn)
{
	const cs_x86 *x86 = &insn->detail->x86;
	enum dprof_access_kind kind = DPROF_ACCESS_UNKNOWN, k;
	bool decided, has_mem = false;

	for (int i = 0; i < x86->op_count; i++)
		has_mem |= x86->operands[i].type == X86_OP_MEM;
	if (!has_mem)	/* capstone lists string operands as memory too */
		return DPROF_ACCESS_UNKNOWN;
	/* A lock prefix makes any memory operand a read-modify-write. */
	if (x86->prefix[0] == X86_PREFIX_LOCK && has_mem)
		return DPROF_ACCESS_RMW;
	k = kind_by_opcode(insn, &decided);
	if (decided)
		return k;
	for (int i = 0; i < x86->op_count; i++) {
		const cs_x86_op *op = &x86->operands[i];

		if (op->type != X86_OP_MEM)
			continue;
		switch (op->access & (CS_AC_READ | CS_AC_WRITE)) {
		case CS_AC_READ:
			k = DPROF_ACCESS_LOAD;
			break;
		case CS_AC_WRITE:
			k = DPROF_ACCESS_STORE;
			break;
		case CS_AC_READ | CS_AC_WRITE:
			k = DPROF_ACCESS_RMW;
			break;
		default:
			k = DPROF_ACCESS_UNKNOWN;
			break;
		}
		if (kind == DPROF_ACCESS_UNKNOWN)
			kind = k;
		else if (k != kind)
			return DPROF_ACCESS_AMBIGUOUS;	/* movs: source or target */
	}
	return kind;
}

uint64_t access_ip_in_code(const uint8_t *code, size_t len, uint64_t start,
			   uint64_t trap_ip)
{
	return access_decode(code, len, start, trap_ip, NULL);
}

uint64_t access_decode(const uint8_t *code, size_t len, uint64_t start,
		       uint64_t trap_ip, enum dprof_access_kind *kind)
{
	csh handle;
	cs_insn *insn;
	const uint8_t *p = code;
	size_t left = len;
	uint64_t addr = start, found = 0;
	bool prev_touches_memory = false;
	enum dprof_access_kind found_kind = DPROF_ACCESS_UNKNOWN;

	if (kind)
		*kind = DPROF_ACCESS_UNKNOWN;
	if (trap_ip <= start || trap_ip - start > len)
		return 0;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &handle) != CS_ERR_OK)
		return 0;
	cs_option(handle, CS_OPT_DETAIL, CS_OPT_ON);
	insn = cs_malloc(handle);
	while (addr < trap_ip &&
	       cs_disasm_iter(handle, &p, &left, &addr, insn)) {
		if (addr == trap_ip) {
			found = insn->address;
			prev_touches_memory = has_memory_operand(insn);
			found_kind = access_kind_of(insn);
		}
	}
	/*
	 * A repeated string instruction traps between iterations with the ip
	 * still on itself: when the instruction before it cannot have made
	 * the access, the string instruction did.
	 */
	if (found && !prev_touches_memory && left &&
	    cs_disasm_iter(handle, &p, &left, &addr, insn) &&
	    is_rep_string(insn)) {
		found = trap_ip;
		found_kind = access_kind_of(insn);
	}
	if (kind && found)
		*kind = found_kind;
	cs_free(insn, 1);
	cs_close(&handle);
	return found;
}

struct kcore {
	int fd;
	Elf *elf;
	size_t nr_phdrs;
};

static int kcore_open(struct kcore *kc, const char *path)
{
	memset(kc, 0, sizeof(*kc));
	kc->fd = -1;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -1;
	kc->fd = open(path, O_RDONLY);
	if (kc->fd < 0)
		return -1;
	kc->elf = elf_begin(kc->fd, ELF_C_READ, NULL);
	if (!kc->elf || elf_kind(kc->elf) != ELF_K_ELF ||
	    elf_getphdrnum(kc->elf, &kc->nr_phdrs)) {
		if (kc->elf)
			elf_end(kc->elf);
		close(kc->fd);
		kc->fd = -1;
		return -1;
	}
	return 0;
}

static void kcore_close(struct kcore *kc)
{
	if (kc->elf)
		elf_end(kc->elf);
	if (kc->fd >= 0)
		close(kc->fd);
}

/* Copy [addr, addr + len) of kernel memory; false if not all mapped. */
static bool kcore_read(const struct kcore *kc, uint64_t addr, uint8_t *buf,
		       size_t len)
{
	for (size_t i = 0; i < kc->nr_phdrs; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(kc->elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (addr < ph.p_vaddr || addr - ph.p_vaddr > ph.p_filesz ||
		    len > ph.p_filesz - (addr - ph.p_vaddr))
			continue;
		return pread(kc->fd, buf, len,
			     ph.p_offset + (addr - ph.p_vaddr)) == (ssize_t)len;
	}
	return false;
}

long access_ip_map(const char *kcore, const struct ksyms *syms,
		   const uint64_t *ips, size_t n, struct dprof_file_ipmap *map,
		   struct dprof_file_access_kind *kinds)
{
	struct kcore kc;
	uint8_t *code = NULL;
	long mapped = 0;

	for (size_t i = 0; i < n; i++) {
		map[i].trap_ip = ips[i];
		map[i].access_ip = 0;
		memset(&kinds[i], 0, sizeof(kinds[i]));
		kinds[i].trap_ip = ips[i];
	}
	if (kcore_open(&kc, kcore))
		return -1;
	code = xmalloc(MAX_DECODE + MAX_INSN);
	for (size_t i = 0; i < n; i++) {
		const struct ksym *s = ksyms_find(syms, ips[i]);
		enum dprof_access_kind kind;
		size_t len;

		if (!s || ips[i] - s->addr > MAX_DECODE || ips[i] == s->addr)
			continue;
		/* Up to the trap ip, and the instruction there. */
		len = ips[i] - s->addr + MAX_INSN;
		if (!kcore_read(&kc, s->addr, code, len) &&
		    !kcore_read(&kc, s->addr, code, len -= MAX_INSN))
			continue;
		map[i].access_ip = access_decode(code, len, s->addr, ips[i],
						 &kind);
		kinds[i].kind = kind;
		mapped += map[i].access_ip != 0;
	}
	free(code);
	kcore_close(&kc);
	return mapped;
}

// SPDX-License-Identifier: GPL-2.0
/* Trap ip -> accessing instruction, with capstone and libelf on kcore. */
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

uint64_t access_ip_in_code(const uint8_t *code, size_t len, uint64_t start,
			   uint64_t trap_ip)
{
	csh handle;
	cs_insn *insn;
	const uint8_t *p = code;
	size_t left = len;
	uint64_t addr = start, found = 0;

	if (trap_ip <= start || trap_ip - start > len)
		return 0;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &handle) != CS_ERR_OK)
		return 0;
	/* Padding and data between functions must not stop the walk. */
	cs_option(handle, CS_OPT_SKIPDATA, CS_OPT_ON);
	insn = cs_malloc(handle);
	while (addr < trap_ip &&
	       cs_disasm_iter(handle, &p, &left, &addr, insn)) {
		if (addr == trap_ip && insn->id != X86_INS_INVALID &&
		    insn->id != 0)
			found = insn->address;
	}
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
		   const uint64_t *ips, size_t n, struct dprof_file_ipmap *map)
{
	struct kcore kc;
	uint8_t *code = NULL;
	long mapped = 0;

	for (size_t i = 0; i < n; i++) {
		map[i].trap_ip = ips[i];
		map[i].access_ip = 0;
	}
	if (kcore_open(&kc, kcore))
		return -1;
	code = xmalloc(MAX_DECODE);
	for (size_t i = 0; i < n; i++) {
		const struct ksym *s = ksyms_find(syms, ips[i]);
		size_t len;

		if (!s || ips[i] - s->addr > MAX_DECODE || ips[i] == s->addr)
			continue;
		len = ips[i] - s->addr;
		if (!kcore_read(&kc, s->addr, code, len))
			continue;
		map[i].access_ip = access_ip_in_code(code, len, s->addr,
						     ips[i]);
		mapped += map[i].access_ip != 0;
	}
	free(code);
	kcore_close(&kc);
	return mapped;
}

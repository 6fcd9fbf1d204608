// SPDX-License-Identifier: GPL-2.0
/* Instruction bytes, as the referee reads them (insn.h). */
#include <string.h>
#include "insn.h"

/* Legacy and REX prefixes, which neither kind below depends on. */
static bool prefix(uint8_t b)
{
	return (b >= 0x40 && b <= 0x4f) || b == 0xf2 || b == 0xf3 ||
	       b == 0x2e || b == 0x36 || b == 0x3e || b == 0x26 ||
	       b == 0x64 || b == 0x65 || b == 0x66 || b == 0x67;
}

bool insn_atomic(const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (b[i] == 0xf0)
			return true;
		if (prefix(b[i]))
			continue;
		return b[i] == 0x86 || b[i] == 0x87;
	}
	return false;
}

bool insn_string(const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (prefix(b[i]) || b[i] == 0xf0)
			continue;
		return (b[i] >= 0xa4 && b[i] <= 0xa7) ||
		       (b[i] >= 0xaa && b[i] <= 0xaf) ||
		       (b[i] >= 0x6c && b[i] <= 0x6f);
	}
	return false;
}

enum insn_branch insn_direct(uint64_t pc, const uint8_t *b, size_t n,
			     uint64_t *target)
{
	int32_t rel;

	if (n == 5 && (b[0] == 0xe8 || b[0] == 0xe9)) {
		memcpy(&rel, b + 1, 4);
		*target = pc + 5 + (int64_t)rel;
		return b[0] == 0xe8 ? INSN_CALL : INSN_JMP;
	}
	if (n == 2 && b[0] == 0xeb) {
		*target = pc + 2 + (int8_t)b[1];
		return INSN_JMP;
	}
	return INSN_NOT_BRANCH;
}

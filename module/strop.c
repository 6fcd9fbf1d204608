// SPDX-License-Identifier: GPL-2.0
/* Watched offsets a rep string instruction went through (see strop.h). */
#include <linux/uaccess.h>
#include <asm/processor-flags.h>
#include "strop.h"

/*
 * The element size of the rep stos / rep movs whose last byte is just
 * before @ip, or 0.  Encodings: F3 [66 | REX] {A4, A5, AA, AB}; a REX
 * with W makes A5/AB move quadwords.  The bytes could also end a longer
 * instruction (an immediate that reads F3 AB), so the caller asks more:
 * rcx 0 and a watched range between the one that trapped and the
 * instruction's end pointer.
 */
static unsigned int string_element(unsigned long ip, bool *movs)
{
	u8 b[3];
	unsigned int size;

	if (copy_from_kernel_nofault(b, (void *)(ip - sizeof(b)), sizeof(b)))
		return 0;
	switch (b[2]) {
	case 0xa4:
	case 0xaa:
		size = 1;
		break;
	case 0xa5:
	case 0xab:
		size = 4;
		break;
	default:
		return 0;
	}
	*movs = b[2] == 0xa4 || b[2] == 0xa5;
	if (b[1] == 0xf3)
		return size;
	if (b[0] != 0xf3)
		return 0;
	if (b[1] == 0x66)
		return size == 4 ? 2 : size;
	if ((b[1] & 0xf0) == 0x40)
		return size == 4 && (b[1] & 0x08) ? 8 : size;
	return 0;
}

/*
 * Whether [@lo, @lo + @len) lies on the path from the range that trapped,
 * [@hit_lo, @hit_lo + @len), to @end, the pointer the instruction left
 * (one element past its last, either way), in direction @down.
 */
static bool on_path(unsigned long lo, unsigned int len, unsigned long hit_lo,
		    unsigned long end, unsigned int elem, bool down)
{
	if (!down)
		return lo > hit_lo && lo < end;
	/* Downwards the last element is at end + elem. */
	return lo < hit_lo && lo + len > end + elem;
}

/* The distance from the range that trapped to @end, or ULONG_MAX. */
static unsigned long reach(unsigned long hit_lo, unsigned int len,
			   unsigned long end, bool down)
{
	if (!down)
		return end > hit_lo ? end - hit_lo : ULONG_MAX;
	return hit_lo + len > end ? hit_lo + len - end : ULONG_MAX;
}

unsigned int dprof_strop_covered(const struct pt_regs *regs,
				 const unsigned long *lo, unsigned int nr,
				 unsigned int len, unsigned int hit,
				 bool *dest)
{
	bool movs = false, down = regs->flags & X86_EFLAGS_DF;
	unsigned long end, to_di, to_si;
	unsigned int elem, i, mask = 0;

	/* Stopped between iterations: the rest traps when it resumes. */
	if (regs->cx)
		return 0;
	elem = string_element(regs->ip, &movs);
	if (!elem)
		return 0;
	/*
	 * stos writes at rdi; movs reads at rsi and writes at rdi.  The
	 * range that trapped is on the side whose end pointer it is the
	 * nearest behind: the instruction covered it on its way there.
	 */
	to_di = reach(lo[hit], len, regs->di, down);
	to_si = movs ? reach(lo[hit], len, regs->si, down) : ULONG_MAX;
	if (to_di == ULONG_MAX && to_si == ULONG_MAX)
		return 0;
	*dest = to_di <= to_si;
	end = *dest ? regs->di : regs->si;
	for (i = 0; i < nr; i++)
		if (i != hit && on_path(lo[i], len, lo[hit], end, elem, down))
			mask |= 1U << i;
	return mask;
}

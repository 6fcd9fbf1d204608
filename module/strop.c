// SPDX-License-Identifier: GPL-2.0
/* Watched offsets a rep string instruction went through (see strop.h). */
#include <linux/bitops.h>
#include <linux/percpu.h>
#include <linux/time64.h>
#include <linux/uaccess.h>
#include <asm/processor-flags.h>
#include "strop.h"

/* The #DB under way on this CPU: the offsets counted, and credited. */
struct strop_db {
	const struct pt_regs *regs;
	unsigned long ip, addr;
	u64 ns;
	unsigned int seen, credited;
};

static DEFINE_PER_CPU(struct strop_db, strop_db);

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

/*
 * The ranges [@lo[i], + @len) (i != @hit) that the string instruction
 * ending at regs->ip went through after [@lo[@hit], + @len): a mask by i,
 * 0 when it is no rep stos or rep movs that ran to its end.  *@dest:
 * whether they were its destination (written) or its source (read).
 */
static unsigned int covered(const struct pt_regs *regs,
			    const unsigned long *lo, unsigned int nr,
			    unsigned int len, unsigned int hit, bool *dest)
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

/*
 * One #DB may report several offsets: those a string instruction's trap
 * credited are not counted again when reported.  A #DB is told by its
 * frame, ip and object, its calls coming within SAME_DB_NS of each other,
 * and by reporting each offset once: an offset reported again is a new
 * #DB (the same instruction again, in a loop), so the state starts over.
 * Only offsets credited by a string instruction are ever skipped, once
 * each.
 */
#define SAME_DB_NS	(1000 * NSEC_PER_USEC)

static bool same_db(const struct strop_db *db, const struct pt_regs *regs,
		    unsigned long addr, u64 now)
{
	return db->regs == regs && db->ip == regs->ip && db->addr == addr &&
	       now - db->ns < SAME_DB_NS;
}

bool dprof_strop_counted(const struct pt_regs *regs, unsigned long addr,
			 unsigned int w, u64 now)
{
	struct strop_db *db = this_cpu_ptr(&strop_db);

	/* Every trap asks: one load while nothing is credited. */
	if (likely(!db->credited))
		return false;
	if (!same_db(db, regs, addr, now) ||
	    (db->seen & ~db->credited & BIT(w))) {
		db->seen = 0;
		db->credited = 0;
		return false;
	}
	if (db->credited & BIT(w)) {
		db->credited &= ~BIT(w);
		return true;
	}
	db->seen |= BIT(w);
	return false;
}

unsigned int dprof_strop_rest(const struct pt_regs *regs, unsigned long addr,
			      const u16 *offset, unsigned int nr,
			      unsigned int len, unsigned int w, u64 now,
			      bool *dest)
{
	struct strop_db *db = this_cpu_ptr(&strop_db);
	unsigned long lo[DPROF_STROP_MAX];
	unsigned int i, rest;

	/* Most traps: not at the end of a string instruction. */
	if (likely(regs->cx) || !addr || w >= nr || nr > DPROF_STROP_MAX)
		return 0;
	for (i = 0; i < nr; i++)
		lo[i] = addr + offset[i];
	rest = covered(regs, lo, nr, len, w, dest);
	if (!rest)
		return 0;
	if (!same_db(db, regs, addr, now)) {
		db->regs = regs;
		db->ip = regs->ip;
		db->addr = addr;
		db->seen = 0;
		db->credited = 0;
	}
	db->ns = now;
	db->seen |= BIT(w);
	rest &= ~db->seen;
	db->seen |= rest;
	db->credited |= rest;
	return rest;
}

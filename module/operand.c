// SPDX-License-Identifier: GPL-2.0
/*
 * The operand sampler (sampler=operand; design.rst, "The operand
 * sampler"): accesses sampled by time, at interruptible points, with no
 * PMU.  Every period of a CPU's busy time (tick.c) the instruction the
 * interrupt stopped before has not run yet: its memory operand, from the
 * interrupted registers (memop.h, all forms: %gs per-CPU, RIP-relative,
 * string instructions), is the exact address it is about to touch.  The
 * address goes to the per-CPU tables the IBS and PEBS samples use
 * (dprof_sample_one()), typed by the slab page beneath it: an object the
 * live set does not hold counts as live, since the CPU is about to touch
 * it.
 *
 * Code that runs with interrupts off (the scheduler's core, hard
 * interrupt handlers, irqsave sections) is never sampled; its accesses
 * are missing from the shares, not misplaced.  Hard interrupt context:
 * no allocation, lock or print; the sample path's own per-CPU guard
 * drops a nested sample and counts it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include <asm/ptrace.h>
#include "memop.h"
#include "decode.h"
#include "sample.h"
#include "slab.h"
#include "stats.h"
#include "tick.h"
#include "compat.h"
#include "chain.h"
#include "operand.h"

struct operand_cpu {
	u64 no_operand;		/* the instruction touches no memory we read */
	u64 unreadable;		/* its text could not be read */
	u64 operands;		/* addresses handed to the sample path */
	u64 string_skipped;	/* string elements within an 8-byte slot */
	u64 rep_done;		/* a rep string whose count is 0 */
	u64 after_enable;	/* right after an sti or popf */
	u64 late_kept;		/* 1 us late or more, kept */
	u64 paused;		/* enable=N: not sampled */
};

static DEFINE_PER_CPU(struct operand_cpu, operand_cpu);
static u64 operand_period_ns;
static bool operand_on;

/* One operand's address: @base is m->base or m->base2. */
static unsigned long operand_addr(const struct dprof_memop *m, int base,
				  const unsigned long *reg, unsigned long ip)
{
	unsigned long addr = (long)m->disp;

	if (base != DPROF_MEMOP_NO_REG)
		addr += reg[base];
	if (m->index != DPROF_MEMOP_NO_REG)
		addr += reg[m->index] * m->scale;
	if (m->rip)
		addr += ip + m->len;
	if (m->gs)
		addr += dprof_percpu_base();
	return addr;
}

static void operand_sample(unsigned long addr, unsigned long ip, u8 access,
			   struct pt_regs *regs)
{
	struct dprof_access a = {
		.src = DPROF_SRC_UNKNOWN,
		.load = access == DPROF_MEMOP_LOAD || access == DPROF_MEMOP_RMW,
		.store = access == DPROF_MEMOP_STORE ||
			 access == DPROF_MEMOP_RMW,
	};
	struct operand_cpu *c = this_cpu_ptr(&operand_cpu);
	u64 start = get_cycles();
	bool hit;

	WRITE_ONCE(c->operands, c->operands + 1);
	hit = dprof_sample_one(addr, ip, &a, regs);
	/* A call chain's walk is charged to its own hook. */
	dprof_cost_add(DPROF_HOOK_SAMPLE, hit,
		       get_cycles() - start - dprof_chain_cycles());
}

/* tick.c's callback: hard interrupt context, kernel mode. */
static void operand_tick(struct pt_regs *regs, s64 late_ns)
{
	/* In the instruction encoding's order (memop.h). */
	const unsigned long reg[DPROF_MEMOP_NR_REGS] = {
		regs->ax, regs->cx, regs->dx, regs->bx, regs->sp, regs->bp,
		regs->si, regs->di, regs->r8, regs->r9, regs->r10, regs->r11,
		regs->r12, regs->r13, regs->r14, regs->r15,
	};
	struct operand_cpu *c = this_cpu_ptr(&operand_cpu);
	/* The bytes before the instruction, then the instruction. */
	u8 text[DPROF_MEMOP_IRQ_ENABLE_BEFORE + DPROF_MEMOP_MAX_LEN];
	const u8 *code = text + DPROF_MEMOP_IRQ_ENABLE_BEFORE;
	struct dprof_memop m;

	/* enable=N pauses the samples as it does the hooks. */
	if (!READ_ONCE(dprof_enabled)) {
		WRITE_ONCE(c->paused, c->paused + 1);
		return;
	}
	if (copy_from_kernel_nofault(text, (void *)(regs->ip -
				     DPROF_MEMOP_IRQ_ENABLE_BEFORE),
				     sizeof(text))) {
		WRITE_ONCE(c->unreadable, c->unreadable + 1);
		return;
	}
	/*
	 * A tick that expired while interrupts were off is taken where they
	 * come back on: right after the popf, or after the instruction in
	 * an sti's shadow, most often the nops that paravirt's patching
	 * left of a call (memop.h).  Its instruction stands for the whole
	 * section, not for itself: memcached under the referee had 1,290 of
	 * 32,400 ticks so, almost all on a memory operand (the preempt
	 * count's decrement, then the caller's next field), where an
	 * on-time tick found one half the time.  Dropped and counted.  The
	 * byte patterns are specific (memop.h): a lone sti or popf byte is
	 * most often another instruction's end, and always the same one's.
	 */
	if (dprof_memop_after_irq_enable(text, DPROF_MEMOP_IRQ_ENABLE_BEFORE)) {
		WRITE_ONCE(c->after_enable, c->after_enable + 1);
		return;
	}
	/* How many of the rest were late, and so stand for more. */
	if (late_ns >= NSEC_PER_USEC)
		WRITE_ONCE(c->late_kept, c->late_kept + 1);
	if (!dprof_memop_decode_ex(code, DPROF_MEMOP_MAX_LEN, &m, 1)) {
		WRITE_ONCE(c->no_operand, c->no_operand + 1);
		return;
	}
	/*
	 * A rep string whose count is 0 touches nothing: its %rdi and %rsi
	 * point past the string.  Under -icount TCG runs a rep string once
	 * more after its last element (no loop on a count of 0 when
	 * counting instructions), so every memset() and copy showed an
	 * access to the byte after it, at offset 0 of the next object when
	 * objects are whole slots: memset() of 16 bytes read 1.42 times the
	 * same stores by movq (dprof_strings, 906 and 638 samples), of 64
	 * bytes 1.10 times.  On a CPU it is only a string of no bytes.
	 */
	if (m.rep && !regs->cx) {
		WRITE_ONCE(c->rep_done, c->rep_done + 1);
		return;
	}
	/*
	 * A rep string instruction of elements under 8 bytes runs an
	 * element at a time under TCG, where a CPU's fast strings move
	 * many bytes an operation: one element of each 8-byte slot of the
	 * destination (the one whose offset in the slot is below the
	 * element's size, either direction) stands for the slot, so that a
	 * byte copy weighs as a loop of 8-byte moves, as the referee counts
	 * it (referee/oracle.c).  A CPU with fast strings takes the
	 * interrupt between groups of whole lines, where the rule keeps it.
	 */
	if (m.string && m.string < 8 &&
	    (operand_addr(&m, m.base2 != DPROF_MEMOP_NO_REG ? m.base2 : m.base,
			  reg, regs->ip) & 7) >= m.string) {
		WRITE_ONCE(c->string_skipped, c->string_skipped + 1);
		return;
	}
	operand_sample(operand_addr(&m, m.base, reg, regs->ip), regs->ip,
		       m.access, regs);
	if (m.base2 != DPROF_MEMOP_NO_REG)	/* movs, cmps */
		operand_sample(operand_addr(&m, m.base2, reg, regs->ip),
			       regs->ip, m.access2, regs);
}

#define OPERAND_WHY \
	"memory operands at timer interrupts, by time at interruptible points"

static int operand_setup(const struct dprof_sample_config *sc,
			 struct sample_state *st)
{
	u64 period = sc->period ? sc->period : NSEC_PER_MSEC;

	if (period < 10 * NSEC_PER_USEC || period > NSEC_PER_SEC) {
		pr_err("period=%llu: sampler=operand takes ns between samples, 10000 to 1000000000\n",
		       period);
		return -EINVAL;
	}
	st->period = period;
	st->why = OPERAND_WHY;
	return 0;
}

/* After the tables and the hooks, as the hardware samplers' NMIs. */
static int operand_start(void)
{
	unsigned int cpu;
	int ret;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&operand_cpu, cpu), 0,
		       sizeof(struct operand_cpu));
	operand_period_ns = dprof_sampling.period;
	ret = dprof_tick_start(operand_period_ns, operand_tick);
	if (ret)
		pr_err("sampler=operand: its timer did not start (%d)\n", ret);
	operand_on = !ret;
	return ret;
}

/* No tick writes the sample tables after it. */
static void operand_stop(void)
{
	if (!operand_on)
		return;
	dprof_tick_stop();
	operand_on = false;
}

static void operand_show(struct seq_file *m)
{
	u64 ticks, stops, none = 0, unreadable = 0, operands = 0, skipped = 0;
	u64 after_enable = 0, late_kept = 0, paused = 0, rep_done = 0;
	unsigned int cpu;

	if (!operand_period_ns)
		return;
	for_each_possible_cpu(cpu) {
		const struct operand_cpu *c = per_cpu_ptr(&operand_cpu, cpu);

		none += READ_ONCE(c->no_operand);
		unreadable += READ_ONCE(c->unreadable);
		operands += READ_ONCE(c->operands);
		skipped += READ_ONCE(c->string_skipped);
		rep_done += READ_ONCE(c->rep_done);
		after_enable += READ_ONCE(c->after_enable);
		late_kept += READ_ONCE(c->late_kept);
		paused += READ_ONCE(c->paused);
	}
	dprof_tick_counts(&ticks, &stops);
	seq_printf(m, "operand sampler: every %llu us of busy time, interruptible points only; %llu kernel ticks, %llu stops on an idle CPU\n",
		   div_u64(operand_period_ns, NSEC_PER_USEC), ticks, stops);
	seq_printf(m, "  %llu operands sampled, %llu ticks on no memory operand, %llu on unreadable text, %llu on a string element inside an 8-byte slot\n",
		   operands, none, unreadable, skipped);
	seq_printf(m, "  %llu ticks right after an sti or popf, dropped; %llu on a rep string with a count of 0, dropped; %llu others 1 us late or more, kept\n",
		   after_enable, rep_done, late_kept);
	if (paused)
		seq_printf(m, "  %llu ticks while enable=N, not sampled\n",
			   paused);
	dprof_tick_show(m);
}

/*
 * Its tick counts as perf:sample with its text copy and decode: issue
 * "Sample accesses where they happen" gives it 1,000 instructions.
 */
const struct dprof_sampler_ops dprof_operand_sampler = {
	.id = DPROF_SAMPLER_OPERAND,
	.share_of = DPROF_SHARE_OF_ACCESSES,
	.at_access = true,
	.period_unit = " ns",
	.budget = 1000,
	.setup = operand_setup,
	.start = operand_start,
	.stop = operand_stop,
	.show = operand_show,
};

// SPDX-License-Identifier: GPL-2.0
/*
 * Objects in use, for the old sample windows (design.rst, "Objects in
 * use").  A server's accesses sit in few of a type's objects (its running
 * tasks, its sockets), which a uniform draw among the live ones almost
 * never reaches.  Without a PMU, the registers of an interrupted kernel
 * say what the CPU is working on: a per-CPU timer, INUSE_HZ (100) times a
 * second while the CPU runs a task, resolves in kernel mode each general
 * register that points into a live target object and puts the distinct
 * objects in its CPU's ring.  The collector folds the rings
 * into a table per period (INUSE_PERIOD_MS); at the period's end the
 * objects older than a window, with their counts (and the last set's,
 * halved), become the in-use set the old windows draw from in the next
 * period: a stratum of their own, its types drawn by the counts and its
 * objects uniformly, each window weighed by the type's objects in use
 * over its old objects (window.c), so the estimate stays unbiased.
 *
 * The tick also decodes the instruction it stopped before (memop.h):
 * when its memory operand falls in a target object, the field the CPU
 * was about to touch is a hint for the item draws of that type's windows
 * (plan.c, dprof_plan_hint()): time spent on a field's instructions, a
 * prior for where its accesses are, before any window has hit it.
 *
 * The tick runs in hard interrupt context (a pinned hard hrtimer, the
 * interrupted registers from get_irq_regs(), as perf's cpu-clock takes
 * them): it reads its registers and the kernel text at its ip
 * (copy_from_kernel_nofault), resolves (plain loads, dprof_resolve()) and
 * writes its own CPU's rings, single producer; the collector is the
 * single consumer of every ring and the only user of the tables.  A full
 * ring or table counts what it lost (dprof_inuse_show()); a ring half
 * full kicks the collector.
 *
 * The clock is tick.c's: 100 Hz of each CPU's time running a task, quiet
 * on an idle or isolated CPU.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include "target.h"
#include "liveset.h"
#include "resolve.h"
#include "byuse.h"
#include "inuse.h"
#include "memop.h"
#include "stats.h"
#include "plan.h"
#include "watch.h"
#include "tick.h"

/*
 * When the tick was a cpu-clock perf event, perf's work on its perf_event
 * object (some 53 accesses a tick) was 5.4 % of memcached's slab
 * accesses at 250 Hz and 2.9 % at 100 Hz (the referee's count).
 */
#define INUSE_HZ		100
#define INUSE_PERIOD_NS		(NSEC_PER_SEC / INUSE_HZ)
#define INUSE_PERIOD_MS		1000
/* A tick's count: halved each period, it lasts three (period_end()). */
#define INUSE_HIT		4
/*
 * Per CPU: 100 ticks a second of a few objects; the collector reads them
 * at least four times a second, and at once when half full.
 */
#define INUSE_RING		64
#define INUSE_SLOTS_BITS	10
#define INUSE_SLOTS		BIT(INUSE_SLOTS_BITS)
/* Past 3/4 full the probes grow long: new objects are counted as lost. */
#define INUSE_SLOTS_MAX		(INUSE_SLOTS * 3 / 4)
/* Types the debugfs line names. */
#define INUSE_SHOW_TYPES	6
/*
 * A ring entry's target with this bit: an object the live set lacks
 * (byuse.c).  Target indices are below DPROF_MAX_TARGETS (4,095).
 */
#define INUSE_CANDIDATE		0x8000
/* Per CPU: at most one hint a tick, read with the objects. */
#define INUSE_HINT_RING		16

struct inuse_cpu {
	unsigned long base[INUSE_RING];
	u16 target[INUSE_RING];
	unsigned long ip[INUSE_RING];	/* a candidate's: who touched it */
	unsigned int head;	/* the tick's */
	unsigned int tail;	/* the collector's */
	/* The field the interrupted instruction was about to touch. */
	u16 hint_target[INUSE_HINT_RING];
	u16 hint_offset[INUSE_HINT_RING];
	unsigned int hint_head, hint_tail;
	u64 hits;		/* objects put in the ring */
	u64 lost;		/* the ring was full */
	u64 operands;		/* ticks on an instruction with an operand */
	u64 hints;		/* ... in a target object */
	u64 hints_lost;		/* the hint ring was full */
};

static DEFINE_PER_CPU(struct inuse_cpu, inuse_cpu);

struct inuse_obj {
	unsigned long base;
	u32 count;		/* ticks whose registers held it */
	u16 target;
};

struct inuse_state {
	struct inuse_obj *table;	/* this period's, open addressing */
	unsigned int used;
	struct inuse_obj *set;		/* the last period's old objects */
	unsigned int nr_set;
	u64 set_total;			/* the sum of their counts */
	u64 period_ns;			/* when this period began */
	unsigned long min_age;		/* jiffies: a window's length */
	u64 periods, table_lost;
};

static struct inuse_state inuse;

/* ---- the tick (hard interrupt) ---------------------------------------- */

/*
 * The instruction at the interrupted ip has not run yet: its memory
 * operand, from the registers as they are, is the address it is about
 * to read or write.  In a target object, its offset is a hint.  @reg:
 * the general registers by their encoding number.  An object the live
 * set lacks goes to *@candidate (byuse.c): the CPU is about to touch it,
 * which outside the allocator says it is allocated; a register that
 * merely holds its address says nothing (SLUB's fast path keeps the next
 * free object in one, and a callee leaves its scratch registers behind).
 */
static void inuse_hint(struct inuse_cpu *c, unsigned long ip,
		       const unsigned long *reg, struct dprof_resolved *candidate)
{
	u8 code[DPROF_MEMOP_MAX_LEN];
	struct dprof_resolved r;
	struct dprof_memop m;
	unsigned long addr;
	bool slab;
	int how;

	if (copy_from_kernel_nofault(code, (void *)ip, sizeof(code)) ||
	    !dprof_memop_decode(code, sizeof(code), &m))
		return;
	WRITE_ONCE(c->operands, c->operands + 1);
	addr = (long)m.disp;
	if (m.base != DPROF_MEMOP_NO_REG)
		addr += reg[m.base];
	if (m.index != DPROF_MEMOP_NO_REG)
		addr += reg[m.index] * m.scale;
	if (addr < PAGE_OFFSET)
		return;
	how = dprof_resolve_any(addr, &r, &slab);
	if (how < 0 || r.offset > U16_MAX)
		return;
	if (how == DPROF_RESOLVE_UNKNOWN)
		*candidate = r;
	WRITE_ONCE(c->hints, c->hints + 1);
	if (c->hint_head - READ_ONCE(c->hint_tail) >= INUSE_HINT_RING) {
		WRITE_ONCE(c->hints_lost, c->hints_lost + 1);
		return;
	}
	c->hint_target[c->hint_head % INUSE_HINT_RING] = r.target;
	c->hint_offset[c->hint_head % INUSE_HINT_RING] = r.offset;
	/* The entry before the index that publishes it. */
	smp_store_release(&c->hint_head, c->hint_head + 1);
	if (c->hint_head - READ_ONCE(c->hint_tail) >= INUSE_HINT_RING / 2)
		dprof_watch_kick();
}

static void inuse_tick(struct inuse_cpu *c, struct pt_regs *regs)
{
	/* In the instruction encoding's order (memop.h). */
	const unsigned long reg[DPROF_MEMOP_NR_REGS] = {
		regs->ax, regs->cx, regs->dx, regs->bx, regs->sp, regs->bp,
		regs->si, regs->di, regs->r8, regs->r9, regs->r10, regs->r11,
		regs->r12, regs->r13, regs->r14, regs->r15,
	};
	unsigned long seen[DPROF_MEMOP_NR_REGS];
	struct dprof_resolved r, candidate = { .base = 0 };
	unsigned int i, j, nr = 0, head;
	u64 start = get_cycles();
	bool slab;

	dprof_watch_check_here();
	inuse_hint(c, regs->ip, reg, &candidate);
	head = c->head;
	if (candidate.base) {
		if (head - READ_ONCE(c->tail) < INUSE_RING) {
			c->base[head % INUSE_RING] = candidate.base;
			c->target[head % INUSE_RING] = candidate.target |
						       INUSE_CANDIDATE;
			c->ip[head % INUSE_RING] = regs->ip;
			head++;
		} else {
			WRITE_ONCE(c->lost, c->lost + 1);
		}
	}
	for (i = 0; i < DPROF_MEMOP_NR_REGS; i++) {
		/* The stack, small integers, user pointers: no resolution. */
		if (i == DPROF_MEMOP_REG_SP || reg[i] < PAGE_OFFSET)
			continue;
		/* Objects in use: live ones only. */
		if (dprof_resolve_any(reg[i], &r, &slab))
			continue;
		for (j = 0; j < nr && seen[j] != r.base; j++)
			;
		if (j < nr)
			continue;	/* one count per tick and object */
		seen[nr++] = r.base;
		if (head - READ_ONCE(c->tail) >= INUSE_RING) {
			WRITE_ONCE(c->lost, c->lost + 1);
			continue;
		}
		c->base[head % INUSE_RING] = r.base;
		c->target[head % INUSE_RING] = r.target;
		head++;
		WRITE_ONCE(c->hits, c->hits + 1);
	}
	/* The entries before the index that publishes them. */
	smp_store_release(&c->head, head);
	if (head - READ_ONCE(c->tail) >= INUSE_RING / 2)
		dprof_watch_kick();
	/* On a target: a register held a live target object. */
	dprof_cost_add(DPROF_HOOK_INUSE_TICK, nr > 0, get_cycles() - start);
}

/* tick.c's callback: hard interrupt context, kernel mode. */
static void inuse_tick_fn(struct pt_regs *regs, s64 late_ns)
{
	inuse_tick(this_cpu_ptr(&inuse_cpu), regs);
}

int dprof_inuse_init(void)
{
	int ret;

	inuse.table = kvcalloc(INUSE_SLOTS, sizeof(*inuse.table), GFP_KERNEL);
	inuse.set = kvcalloc(INUSE_SLOTS, sizeof(*inuse.set), GFP_KERNEL);
	if (!inuse.table || !inuse.set) {
		ret = -ENOMEM;
		goto err;
	}
	BUILD_BUG_ON(DPROF_MAX_TARGETS >= INUSE_CANDIDATE);
	dprof_byuse_init();
	inuse.period_ns = ktime_get_mono_fast_ns();
	ret = dprof_tick_start(INUSE_PERIOD_NS, inuse_tick_fn);
	if (ret)
		goto err;
	return 0;
err:
	dprof_byuse_exit();
	kvfree(inuse.table);
	kvfree(inuse.set);
	memset(&inuse, 0, sizeof(inuse));
	return ret;
}

void dprof_inuse_exit(void)
{
	unsigned int cpu;

	dprof_tick_stop();
	/* The ticks are gone: no candidate comes any more. */
	dprof_byuse_exit();
	kvfree(inuse.table);
	kvfree(inuse.set);
	memset(&inuse, 0, sizeof(inuse));
	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&inuse_cpu, cpu), 0, sizeof(struct inuse_cpu));
}

/* ---- the collector's tables ------------------------------------------- */

static void table_add(unsigned long base, u16 target, u32 count)
{
	unsigned int i = hash_long(base, INUSE_SLOTS_BITS);

	for (;; i = (i + 1) & (INUSE_SLOTS - 1)) {
		struct inuse_obj *o = &inuse.table[i];

		if (o->base == base) {
			o->count += count;
			return;
		}
		if (!o->base)
			break;
	}
	if (inuse.used >= INUSE_SLOTS_MAX) {
		inuse.table_lost++;
		return;
	}
	inuse.table[i].base = base;
	inuse.table[i].target = target;
	inuse.table[i].count = count;
	inuse.used++;
}

/*
 * The period's objects still old become the set, with the last set's
 * counts halved; the table starts over.  With a tick worth INUSE_HIT, an
 * object seen once stays three periods: a busy object among a few dozen
 * is in the set even when this period's 100 ticks missed it.
 */
static void period_end(void)
{
	unsigned int i;

	for (i = 0; i < inuse.nr_set; i++)
		if (inuse.set[i].count / 2)
			table_add(inuse.set[i].base, inuse.set[i].target,
				  inuse.set[i].count / 2);
	inuse.nr_set = 0;
	inuse.set_total = 0;
	for (i = 0; i < INUSE_SLOTS; i++) {
		struct inuse_obj *o = &inuse.table[i];

		/*
		 * Objects the census can draw: tracked, older than a window
		 * (younger ones are the young windows' accesses).
		 */
		if (o->base && dprof_track_wanted(o->target, o->base) &&
		    dprof_liveset_age(o->base) >= inuse.min_age) {
			inuse.set[inuse.nr_set++] = *o;
			inuse.set_total += o->count;
		}
	}
	memset(inuse.table, 0, INUSE_SLOTS * sizeof(*inuse.table));
	inuse.used = 0;
	inuse.periods++;
}

void dprof_inuse_fold(unsigned long min_age)
{
	unsigned int cpu, t, head;
	u64 now;

	if (!inuse.table)
		return;
	inuse.min_age = min_age;
	for_each_possible_cpu(cpu) {
		struct inuse_cpu *c = per_cpu_ptr(&inuse_cpu, cpu);

		/* The entries after the index that published them. */
		head = smp_load_acquire(&c->head);
		for (t = c->tail; t != head; t++) {
			u16 target = c->target[t % INUSE_RING];

			if (target & INUSE_CANDIDATE)
				dprof_byuse_seen(c->base[t % INUSE_RING],
						 target & ~INUSE_CANDIDATE,
						 c->ip[t % INUSE_RING]);
			else
				table_add(c->base[t % INUSE_RING], target,
					  INUSE_HIT);
		}
		/* The slots read before the tick may write them again. */
		smp_store_release(&c->tail, head);
		/* The hints after the index that published them. */
		head = smp_load_acquire(&c->hint_head);
		for (t = c->hint_tail; t != head; t++)
			dprof_plan_hint(c->hint_target[t % INUSE_HINT_RING],
					c->hint_offset[t % INUSE_HINT_RING]);
		/* Read before the tick may write them again. */
		smp_store_release(&c->hint_tail, head);
	}
	now = ktime_get_mono_fast_ns();
	if (now - inuse.period_ns >= INUSE_PERIOD_MS * NSEC_PER_MSEC) {
		period_end();
		dprof_byuse_period();
		inuse.period_ns = now;
	}
}

int dprof_inuse_pick_type(u32 *chance)
{
	u64 u, of_type = 0;
	unsigned int i;
	int t = -1;

	*chance = 0;
	if (!inuse.set_total)
		return -1;
	u = get_random_u64() % inuse.set_total;
	for (i = 0; i < inuse.nr_set && t < 0; i++) {
		if (u < inuse.set[i].count)
			t = inuse.set[i].target;
		else
			u -= inuse.set[i].count;
	}
	if (t < 0)
		return -1;
	for (i = 0; i < inuse.nr_set; i++)
		if (inuse.set[i].target == t)
			of_type += inuse.set[i].count;
	*chance = clamp_t(u64, mul_u64_u64_div_u64(of_type, BIT_ULL(32),
						   inuse.set_total),
			  1, U32_MAX);
	return t;
}

/* Still the object the period saw: live, and old (not freed and reused). */
static bool set_entry_live(const struct inuse_obj *o)
{
	return dprof_liveset_age(o->base) >= inuse.min_age;
}

unsigned int dprof_inuse_objects(unsigned int t)
{
	unsigned int i, n = 0;

	for (i = 0; i < inuse.nr_set; i++)
		n += inuse.set[i].target == t && set_entry_live(&inuse.set[i]);
	return n;
}

unsigned long dprof_inuse_pick(unsigned int t, unsigned int u)
{
	unsigned int i;

	for (i = 0; i < inuse.nr_set; i++) {
		const struct inuse_obj *o = &inuse.set[i];

		if (o->target != t || !set_entry_live(o))
			continue;
		if (!u--)
			return o->base;
	}
	return 0;
}

u32 dprof_inuse_count(unsigned long base)
{
	unsigned int i;

	for (i = 0; i < inuse.nr_set; i++)
		if (inuse.set[i].base == base)
			return inuse.set[i].count;
	return 0;
}

void dprof_inuse_count_types(u32 *per_target, unsigned int nr)
{
	unsigned int i;

	memset(per_target, 0, nr * sizeof(*per_target));
	for (i = 0; i < inuse.nr_set; i++)
		if (inuse.set[i].target < nr && set_entry_live(&inuse.set[i]))
			per_target[inuse.set[i].target]++;
}

/* The set's busiest types (a racy read of the collector's set). */
static void show_top_types(struct seq_file *m)
{
	u64 best_count[INUSE_SHOW_TYPES] = {};
	int best[INUSE_SHOW_TYPES];
	unsigned int i, j, k, nr = READ_ONCE(inuse.nr_set);

	for (k = 0; k < INUSE_SHOW_TYPES; k++)
		best[k] = -1;
	for (i = 0; i < nr; i++) {
		u16 t = inuse.set[i].target;
		u64 count = 0;

		/* Each type once: at its first entry. */
		for (j = 0; j < i && inuse.set[j].target != t; j++)
			;
		if (j < i)
			continue;
		for (j = i; j < nr; j++)
			if (inuse.set[j].target == t)
				count += inuse.set[j].count;
		for (k = 0; k < INUSE_SHOW_TYPES && count <= best_count[k]; k++)
			;
		if (k == INUSE_SHOW_TYPES)
			continue;
		memmove(&best[k + 1], &best[k],
			(INUSE_SHOW_TYPES - k - 1) * sizeof(best[0]));
		memmove(&best_count[k + 1], &best_count[k],
			(INUSE_SHOW_TYPES - k - 1) * sizeof(best_count[0]));
		best[k] = t;
		best_count[k] = count;
	}
	seq_puts(m, "  in use now, by counts:");
	for (k = 0; k < INUSE_SHOW_TYPES && best[k] >= 0; k++) {
		unsigned int objs = 0;

		for (i = 0; i < nr; i++)
			objs += inuse.set[i].target == best[k];
		seq_printf(m, " %s %u objects (%llu)",
			   best[k] < READ_ONCE(dprof_nr_targets) ?
			   dprof_targets[best[k]].name : "?", objs,
			   best_count[k]);
	}
	seq_putc(m, '\n');
}

void dprof_inuse_show(struct seq_file *m)
{
	u64 hits = 0, lost = 0, operands = 0, hints = 0;
	u64 hints_lost = 0, stops, ticks;
	unsigned int cpu;

	if (!inuse.table) {
		seq_puts(m, "objects in use: off (old windows draw uniformly)\n");
		return;
	}
	for_each_possible_cpu(cpu) {
		const struct inuse_cpu *c = per_cpu_ptr(&inuse_cpu, cpu);

		hits += READ_ONCE(c->hits);
		lost += READ_ONCE(c->lost);
		operands += READ_ONCE(c->operands);
		hints += READ_ONCE(c->hints);
		hints_lost += READ_ONCE(c->hints_lost);
	}
	dprof_tick_counts(&ticks, &stops);
	seq_printf(m, "objects in use: %llu kernel ticks at %u Hz, %llu stops on an idle CPU, %llu objects in registers, %llu lost (ring full), %llu lost (table full)\n",
		   ticks, INUSE_HZ, stops, hits, lost, inuse.table_lost);
	seq_printf(m, "  %llu periods of %u ms, the last %u old objects in use (%llu counts)\n",
		   inuse.periods, INUSE_PERIOD_MS, inuse.nr_set,
		   inuse.set_total);
	seq_printf(m, "  item hints: %llu ticks on an instruction with a memory operand, %llu of them in target objects, %llu lost (ring full), %llu on types without a plan yet\n",
		   operands, hints, hints_lost, dprof_plan_hints_unplanned());
	show_top_types(m);
	dprof_byuse_show(m);
}

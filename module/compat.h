/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernels dprof supports lives here, and only
 * here.  Reference kernels: Debian 6.1 and 6.12; mainline must compile.
 */
#ifndef _DPROF_COMPAT_H
#define _DPROF_COMPAT_H

#include <linux/version.h>
#include <linux/sched.h>
#include <linux/ptrace.h>
#include <linux/uaccess.h>
#include <asm/debugreg.h>
#include <linux/hw_breakpoint.h>
#include <linux/percpu.h>
#include <linux/smp.h>

#if !defined(CONFIG_X86_64)
#error "dprof needs x86-64 (debug registers, IBS/PEBS)"
#endif
#if !defined(CONFIG_SLUB)
#error "dprof needs the SLUB allocator (CONFIG_SLUB=y)"
#endif
#if !defined(CONFIG_RING_BUFFER)
#error "dprof needs CONFIG_RING_BUFFER=y (per-CPU output rings)"
#endif
#if !defined(CONFIG_KPROBES) || !defined(CONFIG_KRETPROBES)
#error "dprof needs CONFIG_KPROBES=y and CONFIG_KRETPROBES=y (bulk slab paths)"
#endif
#if !defined(CONFIG_HAVE_HW_BREAKPOINT)
#error "dprof needs CONFIG_HAVE_HW_BREAKPOINT=y (object access histories)"
#endif
#if !defined(CONFIG_TRACEPOINTS)
#error "dprof needs CONFIG_TRACEPOINTS=y (kmem tracepoints)"
#endif

/*
 * 6.10 (memory allocation profiling) renamed the out-of-line bulk allocator;
 * the old name became a macro, so kprobes must use the new symbol.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define DPROF_SYM_ALLOC_BULK "kmem_cache_alloc_bulk_noprof"
#else
#define DPROF_SYM_ALLOC_BULK "kmem_cache_alloc_bulk"
#endif
#define DPROF_SYM_FREE_BULK "kmem_cache_free_bulk"
#define DPROF_SYM_CACHE_DESTROY "kmem_cache_destroy"

/*
 * At the first instruction of a probed function the x86-64 stack pointer
 * points at the return address: the call site of the allocator.
 */
static inline unsigned long dprof_entry_call_site(struct pt_regs *regs)
{
	unsigned long ret = 0;

	if (copy_from_kernel_nofault(&ret, (void *)regs->sp, sizeof(ret)))
		return 0;
	return ret;
}

/*
 * Debug address registers as the CPU holds them now (through paravirt
 * where the kernel has it), and DR7 as perf set it: cpu_dr7, perf's copy
 * (exported), which the CPU's DR7 equals except inside #DB, where the
 * kernel clears DR7 until the handlers return (local_db_save()).  dprof
 * never changes DR7: which slot perf gave each breakpoint, see watch.c.
 */
#define DPROF_DR_RW_WRITE	0x1	/* DR7 R/W field: data writes */
#define DPROF_DR_RW_READWRITE	0x3	/* DR7 R/W field: data reads or writes */

static inline void dprof_read_debugregs(unsigned long addr[4],
					unsigned long *dr7)
{
	get_debugreg(addr[0], 0);
	get_debugreg(addr[1], 1);
	get_debugreg(addr[2], 2);
	get_debugreg(addr[3], 3);
	*dr7 = this_cpu_read(cpu_dr7);
}

/*
 * Point breakpoint @bp, parked in debug address register @slot of this
 * CPU, at @addr, keeping its DR7 length and type (watch.c).  Interrupts
 * off, on @bp's own CPU, as perf's scheduling is.
 *
 * A kernel with modify_wide_hw_breakpoint_local() (proposed upstream with
 * the wprobe and KStackWatch work: CONFIG_HAVE_REINSTALL_HW_BREAKPOINT)
 * re-points it through perf, which checks the address as
 * hw_breakpoint_arch_parse() does and finds the register itself.  Debian
 * 6.1 and 6.12 have no such call: dprof writes the register and perf's
 * copy of the address (counter_arch_bp(bp)->address, which perf writes
 * back whenever it installs the breakpoint again), having checked the
 * address itself (watch.c: aligned to the length; only slab objects,
 * dprof's parking words and watch_symbols= variables that perf's own
 * checks accepted at load reach here).  The kernel's cpu_debugreg copy,
 * which hw_breakpoint_restore() writes back, is not exported: watch.c
 * finds and mends what it rewrote.
 */
#ifdef CONFIG_HAVE_REINSTALL_HW_BREAKPOINT
static inline void dprof_bp_retarget(struct perf_event *bp, int slot,
				     unsigned long addr)
{
	struct perf_event_attr attr = bp->attr;

	attr.bp_addr = addr;
	modify_wide_hw_breakpoint_local(bp, &attr);
}
#else
static inline void dprof_bp_retarget(struct perf_event *bp, int slot,
				     unsigned long addr)
{
	counter_arch_bp(bp)->address = addr;
	switch (slot) {
	case 0:
		set_debugreg(addr, 0);
		break;
	case 1:
		set_debugreg(addr, 1);
		break;
	case 2:
		set_debugreg(addr, 2);
		break;
	case 3:
		set_debugreg(addr, 3);
		break;
	}
}
#endif

/*
 * A probe of the scheduler's sched_switch tracepoint (inuse.c): the same
 * arguments in 6.1 and 6.12 (prev_state since 5.18).
 */
#define DPROF_SCHED_SWITCH_ARGS \
	bool preempt, struct task_struct *prev, struct task_struct *next, \
	unsigned int prev_state

static inline unsigned int dprof_dr7_type(unsigned long dr7, unsigned int i)
{
	return (dr7 >> (DR_CONTROL_SHIFT + i * DR_CONTROL_SIZE)) & 0x3;
}

static inline bool dprof_dr7_enabled(unsigned long dr7, unsigned int i)
{
	return (dr7 >> (i * DR_ENABLE_SIZE)) & 0x3;
}

/*
 * Tests only (test_fail_nth=): the count behind /proc/<pid>/fail-nth,
 * after which the current task's next fault-injection point fails; the
 * field exists with CONFIG_FAULT_INJECTION only.
 */
#ifdef CONFIG_FAULT_INJECTION
#define DPROF_HAVE_FAIL_NTH	1
static inline void dprof_fail_nth_set(unsigned int n)
{
	WRITE_ONCE(current->fail_nth, n);
}

static inline unsigned int dprof_fail_nth_get(void)
{
	return READ_ONCE(current->fail_nth);
}
#else
#define DPROF_HAVE_FAIL_NTH	0
static inline void dprof_fail_nth_set(unsigned int n)
{
}

static inline unsigned int dprof_fail_nth_get(void)
{
	return 0;
}
#endif

/*
 * A cache flag that keeps the boot's slub_debug= options (red zones among
 * them) off a cache: calibration needs one cache without a left red zone.
 * SLAB_NO_USER_FLAGS since 6.0 (a macro in 6.1 and 6.12).
 */
#ifdef SLAB_NO_USER_FLAGS
#define DPROF_SLAB_NO_BOOT_DEBUG	SLAB_NO_USER_FLAGS
#else
#define DPROF_SLAB_NO_BOOT_DEBUG	0
#endif

/*
 * Generic KASAN holds freed objects in a quarantine before SLUB may hand
 * them out again, so a freed reserve is not the next object allocated and
 * histories (which wait for that reuse) seldom arm; and the quarantined
 * objects still count as in use in their slab's counters, so a full slab
 * is not a slab of live objects and the scan cannot tell the live ones.
 */
#define DPROF_FREE_QUARANTINE	IS_ENABLED(CONFIG_KASAN_GENERIC)

/*
 * Trace events (dprof_trace.h): __assign_str() takes the source again
 * before 6.10; from 6.10 on only the field (the source is __string()'s).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define dprof_trace_assign_str(field, src)	__assign_str(field)
#else
#define dprof_trace_assign_str(field, src)	__assign_str(field, src)
#endif

/*
 * The %gs base of kernel code on this CPU, which a %gs-relative operand
 * adds to its address: the CPU's per-CPU offset (x86-64, 6.1 and 6.12).
 */
static inline unsigned long dprof_percpu_base(void)
{
	return this_cpu_read(this_cpu_off);
}

#endif /* _DPROF_COMPAT_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * Call chains at access samples (callchain=N).  A type whose objects
 * live long (a socket, a device) is touched on a few hot paths, and its
 * layout is judged per path (dprof-view advise, "fast path"): which
 * members transmit reads, which receive writes.  A sample's ip names
 * the leaf function only; the path is named by a frame further out
 * (tcp_sendmsg, tcp_v4_rcv), so a sample in a target object carries the
 * return addresses of the stack it interrupted, as perf's callchains
 * do: the kernel's ORC unwinder from the interrupted registers, which
 * runs in NMI and hard interrupt context without a lock or an
 * allocation.  The chain rides on the sample's ring record
 * (DPROF_SAMPLE_CHAIN); samples outside targets take none.
 *
 * The unwinder may warn once (printk_deferred) on a stack it cannot
 * follow, as it does under perf; dprof itself prints nothing here.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <asm/ptrace.h>
#include <asm/unwind.h>
#include "uapi/dprof.h"
#include "stats.h"
#include "chain.h"

static unsigned int callchain;
module_param(callchain, uint, 0444);
MODULE_PARM_DESC(callchain,
		 "Return addresses kept per sample in a target object, 0 (default: none) to 32: the chains dprof-view advise splits a type's accesses by path with (8 bytes a frame in the sample's record)");

static DEFINE_PER_CPU(u64, chain_cycles);

int dprof_chain_params(void)
{
	if (callchain > DPROF_CHAIN_MAX) {
		pr_err("callchain=%u: at most %u frames (0: no chains)\n",
		       callchain, DPROF_CHAIN_MAX);
		return -EINVAL;
	}
	return 0;
}

unsigned int dprof_chain_depth(void)
{
	return callchain;
}

unsigned int dprof_chain_take(struct pt_regs *regs, u64 *frames,
			      unsigned int max)
{
	struct unwind_state state;
	unsigned int n = 0;
	u64 start;

	if (!regs || user_mode(regs) || !max)
		return 0;
	start = get_cycles();
	for (unwind_start(&state, current, regs, NULL);
	     !unwind_done(&state) && n < max; unwind_next_frame(&state)) {
		unsigned long addr = unwind_get_return_address(&state);

		if (!addr)
			break;
		/* The unwinder's first frame is the interrupted ip. */
		if (!n && addr == regs->ip && state.regs == regs)
			continue;
		frames[n++] = addr;
	}
	this_cpu_write(chain_cycles, get_cycles() - start);
	dprof_cost_add(DPROF_HOOK_CHAIN, n > 0, this_cpu_read(chain_cycles));
	return n;
}

u64 dprof_chain_cycles(void)
{
	return this_cpu_xchg(chain_cycles, 0);
}

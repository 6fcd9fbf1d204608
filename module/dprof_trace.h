/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dprof's records as the kernel's own trace events (system "dprof"), so
 * that trace-cmd record -e dprof or perf record -e 'dprof:*' capture them
 * beside the scheduler's and the network's.  They are independent of the
 * rings: an event is traced whether or not its record found ring space
 * (dprof_lost says when it did not).  Disabled, each costs the static
 * branch of its tracepoint.  Object addresses are printed hashed (%p):
 * the text of tracefs is not behind the perfmon / LOCKDOWN_PERF gate that
 * guards the same data in debugfs (the review, issue 29 point 9); the
 * same object hashes the same, so events still pair up.  The binary
 * fields keep the raw address for perf and trace-cmd, whose readers
 * need CAP_PERFMON (or root) for tracepoints.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM dprof

#if !defined(_DPROF_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _DPROF_TRACE_H

#include <linux/tracepoint.h>
#include "compat.h"
#include "decode.h"
#include "target.h"
#include "uapi/dprof.h"

/* Allocation and free of a target object: the address set. */
DECLARE_EVENT_CLASS(dprof_obj,
	TP_PROTO(u16 target, u8 flags, unsigned long addr,
		 unsigned long call_site),
	TP_ARGS(target, flags, addr, call_site),
	TP_STRUCT__entry(
		__string(cache, dprof_targets[target].name)
		__field(unsigned long, addr)
		__field(unsigned long, call_site)
		__field(u16, target)
		__field(u8, flags)
	),
	TP_fast_assign(
		dprof_trace_assign_str(cache, dprof_targets[target].name);
		__entry->addr = addr;
		__entry->call_site = call_site;
		__entry->target = target;
		__entry->flags = flags;
	),
	TP_printk("cache=%s target=%u addr=%p call_site=%pS flags=0x%x",
		  __get_str(cache), __entry->target, (void *)__entry->addr,
		  (void *)__entry->call_site, __entry->flags)
);

DEFINE_EVENT(dprof_obj, dprof_alloc,
	TP_PROTO(u16 target, u8 flags, unsigned long addr,
		 unsigned long call_site),
	TP_ARGS(target, flags, addr, call_site)
);

DEFINE_EVENT(dprof_obj, dprof_free,
	TP_PROTO(u16 target, u8 flags, unsigned long addr,
		 unsigned long call_site),
	TP_ARGS(target, flags, addr, call_site)
);

/* One access to a watched offset of the object a history follows. */
TRACE_EVENT(dprof_hist_elem,
	TP_PROTO(u32 id, unsigned long addr, u16 offset, unsigned long ip,
		 bool write, u32 since_ns),
	TP_ARGS(id, addr, offset, ip, write, since_ns),
	TP_STRUCT__entry(
		__field(unsigned long, addr)
		__field(unsigned long, ip)
		__field(u32, id)
		__field(u32, since_ns)
		__field(u16, offset)
		__field(bool, write)
	),
	TP_fast_assign(
		__entry->addr = addr;
		__entry->ip = ip;
		__entry->id = id;
		__entry->since_ns = since_ns;
		__entry->offset = offset;
		__entry->write = write;
	),
	TP_printk("id=%u addr=%p offset=%u %s ip=%pS since_alloc_ns=%u",
		  __entry->id, (void *)__entry->addr, __entry->offset,
		  __entry->write ? "write" : "access", (void *)__entry->ip,
		  __entry->since_ns)
);

/* A sample window of the watch sampler, when its registers are released. */
TRACE_EVENT(dprof_window,
	TP_PROTO(int target, unsigned long addr, const u16 *offset,
		 unsigned int nr_offsets, u64 watched_ns, u64 samples,
		 bool cut),
	TP_ARGS(target, addr, offset, nr_offsets, watched_ns, samples, cut),
	TP_STRUCT__entry(
		__string(cache, dprof_targets[target].name)
		__field(unsigned long, addr)
		__field(u64, watched_ns)
		__field(u64, samples)
		__array(u16, offset, DPROF_HIST_MAX_OFFSETS)
		__field(u16, target)
		__field(u8, nr_offsets)
		__field(bool, cut)
	),
	TP_fast_assign(
		unsigned int i;

		dprof_trace_assign_str(cache, dprof_targets[target].name);
		__entry->addr = addr;
		__entry->watched_ns = watched_ns;
		__entry->samples = samples;
		for (i = 0; i < DPROF_HIST_MAX_OFFSETS; i++)
			__entry->offset[i] = i < nr_offsets ? offset[i] :
					     DPROF_HIST_NO_OFFSET;
		__entry->target = target;
		__entry->nr_offsets = nr_offsets;
		__entry->cut = cut;
	),
	TP_printk("cache=%s target=%u addr=%p offsets=%u,%u,%u,%u nr=%u watched_ns=%llu samples=%llu%s",
		  __get_str(cache), __entry->target, (void *)__entry->addr,
		  __entry->offset[0], __entry->offset[1], __entry->offset[2],
		  __entry->offset[3], __entry->nr_offsets,
		  __entry->watched_ns, __entry->samples,
		  __entry->cut ? " cut_by_free" : "")
);

/* A sample that fell in a target object (any sampler). */
TRACE_EVENT(dprof_sample,
	TP_PROTO(u16 target, u16 offset, u64 ip, const struct dprof_access *a),
	TP_ARGS(target, offset, ip, a),
	TP_STRUCT__entry(
		__string(cache, dprof_targets[target].name)
		__field(unsigned long, ip)
		__field(u16, offset)
		__field(u16, latency)
		__field(u16, target)
		__field(u8, src)
		__field(u8, load)
		__field(u8, store)
		__field(u8, l1_miss)
	),
	TP_fast_assign(
		dprof_trace_assign_str(cache, dprof_targets[target].name);
		__entry->ip = ip;
		__entry->offset = offset;
		__entry->latency = a->latency;
		__entry->target = target;
		__entry->src = a->src;
		__entry->load = a->load;
		__entry->store = a->store;
		__entry->l1_miss = a->l1_miss;
	),
	TP_printk("cache=%s target=%u offset=%u ip=%pS load=%u store=%u l1_miss=%u src=%u latency=%u",
		  __get_str(cache), __entry->target, __entry->offset,
		  (void *)__entry->ip, __entry->load, __entry->store,
		  __entry->l1_miss, __entry->src, __entry->latency)
);

/* A record that found no room in this CPU's ring. */
TRACE_EVENT(dprof_lost,
	TP_PROTO(u16 kind, u64 lost_on_cpu),
	TP_ARGS(kind, lost_on_cpu),
	TP_STRUCT__entry(
		__field(u64, lost_on_cpu)
		__field(u16, kind)
	),
	TP_fast_assign(
		__entry->lost_on_cpu = lost_on_cpu;
		__entry->kind = kind;
	),
	TP_printk("kind=%u lost_on_cpu=%llu", __entry->kind,
		  __entry->lost_on_cpu)
);

#endif /* _DPROF_TRACE_H */

/* Out of the kernel tree: found through ccflags-y's -I of module/. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE dprof_trace
#include <trace/define_trace.h>

// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU output rings, lockless for writers and safe from NMI and #DB.
 *
 * Each CPU has a power-of-two buffer and two byte counters that only
 * grow: head (reserved by writers on that CPU) and tail (consumed by the
 * one reader).  A writer reserves with a local cmpxchg on head, so a
 * handler that interrupts another writer on the same CPU takes the next
 * bytes; it writes the record body in place, then publishes the record by
 * writing its 8-byte header last (ring.h).  The reader takes records in
 * order while their header is non-zero (kind 0 does not exist), zeroes
 * what it consumed and only then moves tail on: a reserved record not yet
 * published stops it until its writer finishes, even if a nested one was
 * published after it.  A record that would cross the end of the buffer
 * is preceded by a pad record up to the end, so that every record lies
 * in one piece where its writer can fill it.
 *
 * Producer mode: a full ring refuses new records rather than eating
 * unread ones, the loss is counted per CPU, and the next record that fits
 * on that CPU is preceded by a DPROF_REC_LOST record saying how many were
 * lost.
 *
 * Why not the tracing ring_buffer, which dprof used first: its reserve
 * and commit timestamp every event and cost about 700 instructions per
 * record (cost_parts=1 under QEMU -icount), most of a target hook's; dprof
 * keeps its own timestamps.  relay is not NMI-safe.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/vmalloc.h>
#include <asm/local.h>
#include "uapi/dprof.h"
#include "stats.h"
#include "ring.h"
#include "dprof_trace.h"

DEFINE_PER_CPU(struct dprof_cpu_ring, dprof_rings);
DEFINE_PER_CPU(u64, dprof_ring_lost_pending);

void dprof_ring_exit(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct dprof_cpu_ring *r = per_cpu_ptr(&dprof_rings, cpu);

		vfree(r->buf);
		r->buf = NULL;
	}
}

static unsigned int ring_kb = 2048;
module_param(ring_kb, uint, 0444);
MODULE_PARM_DESC(ring_kb,
		 "Output ring size per CPU in KiB (64..1048576, default 2048)");

int dprof_ring_init(void)
{
	unsigned long bytes;
	unsigned int cpu;

	if (ring_kb < 64 || ring_kb > 1048576) {
		pr_err("ring_kb=%u: must be between 64 and 1048576\n", ring_kb);
		return -EINVAL;
	}
	bytes = roundup_pow_of_two((unsigned long)ring_kb << 10);

	for_each_possible_cpu(cpu) {
		struct dprof_cpu_ring *r = per_cpu_ptr(&dprof_rings, cpu);

		r->buf = vzalloc_node(bytes, cpu_to_node(cpu));
		if (!r->buf)
			goto nomem;
		r->mask = bytes - 1;
		local_set(&r->head, 0);
		r->tail = 0;
		per_cpu(dprof_ring_lost_pending, cpu) = 0;
	}
	return 0;
nomem:
	/* ring_kb= is the user's to lower: say so. */
	pr_err("cannot allocate %lu KiB rings per CPU; lower ring_kb=\n",
	       bytes >> 10);
	dprof_ring_exit();
	return -ENOMEM;
}

/*
 * dprof_ring_reserve() of a record that would cross the end of the
 * buffer: a pad record takes the bytes up to the end, published at once,
 * and the record the bytes from the start.  Preemption is off.
 */
void *dprof_ring_reserve_wrap(unsigned int size)
{
	struct dprof_cpu_ring *r = this_cpu_ptr(&dprof_rings);
	unsigned long h, to_end, need;
	struct dprof_rec_hdr pad = { .kind = DPROF_RING_PAD };

	do {
		h = local_read(&r->head);
		to_end = r->mask + 1 - (h & r->mask);
		need = size > to_end ? to_end + size : size;
		/* Pairs with the reader's release: its zeroing is done. */
		if (h + need - smp_load_acquire(&r->tail) > r->mask + 1)
			return NULL;
	} while (local_cmpxchg(&r->head, h, h + need) != h);
	if (need == size)	/* a nested writer padded the end meanwhile */
		return r->buf + (h & r->mask);
	pad.size = to_end;	/* less than @size: fits the u16 */
	dprof_ring_commit(r->buf + (h & r->mask), &pad);
	return r->buf;
}

/* The ring had no room for a record of @kind: counted, said later. */
void dprof_ring_refused(u8 kind)
{
	this_cpu_inc(dprof_ring_lost_pending);
	this_cpu_inc(dprof_stats.ring_lost);
	trace_dprof_lost(kind, this_cpu_read(dprof_stats.ring_lost));
}

/*
 * Tell the reader how many records this CPU lost since its last record,
 * before the record being written.  Preemption is off.
 */
void dprof_ring_put_lost(void)
{
	struct dprof_rec_hdr hdr = {
		.kind = DPROF_REC_LOST,
		.size = sizeof(struct dprof_lost_event),
		.cpu = smp_processor_id(),
		.target = DPROF_NO_TARGET,
	};
	u64 count = this_cpu_xchg(dprof_ring_lost_pending, 0);
	struct dprof_lost_event *lost;

	if (!count)
		return;
	lost = dprof_ring_try_reserve(sizeof(*lost));
	if (!lost) {	/* still full: said with the next record instead */
		this_cpu_add(dprof_ring_lost_pending, count);
		return;
	}
	lost->time_ns = ktime_get_mono_fast_ns();
	lost->count = count;
	dprof_ring_commit(lost, &hdr);
}

/* One whole record, header included, from any context (NMI included). */
bool dprof_ring_write(const void *rec, unsigned int size)
{
	const struct dprof_rec_hdr *hdr = rec;
	void *slot;

	preempt_disable_notrace();
	slot = dprof_ring_reserve(size, hdr->kind);
	if (slot) {
		memcpy(slot + sizeof(*hdr), rec + sizeof(*hdr),
		       size - sizeof(*hdr));
		dprof_ring_commit(slot, hdr);
	}
	preempt_enable_notrace();
	return slot;
}

/*
 * Up to @batch published records of @r into @buf + *@used (whole records
 * that fit); returns false when one did not fit.
 */
static bool drain_cpu(struct dprof_cpu_ring *r, void *buf, size_t room,
		      size_t *used, int batch, bool *progress)
{
	unsigned long t = r->tail, ring_bytes = r->mask + 1;

	while (batch--) {
		unsigned long pos = t & r->mask, first;
		struct dprof_rec_hdr h;
		u64 hdr;

		/* Pairs with the writer's smp_wmb(): the body is there. */
		hdr = smp_load_acquire((u64 *)(r->buf + pos));
		if (!hdr)
			break;	/* empty, or reserved and not yet published */
		memcpy(&h, &hdr, sizeof(h));
		if (h.size < sizeof(h) || h.size % 8 || h.size > ring_bytes) {
			WARN_ONCE(1, "dprof: ring record of size %u", h.size);
			break;
		}
		if (h.kind == DPROF_RING_PAD) {
			/* The writer's, not the reader's: dropped here. */
			memset(r->buf + pos, 0, h.size);
			t += h.size;
			/* Zeroed before writers may reuse the bytes. */
			smp_store_release(&r->tail, t);
			continue;
		}
		if (h.size > room - *used)
			return false;
		first = min_t(unsigned long, h.size, ring_bytes - pos);
		memcpy(buf + *used, r->buf + pos, first);
		memcpy(buf + *used + first, r->buf, h.size - first);
		memset(r->buf + pos, 0, first);
		memset(r->buf, 0, h.size - first);
		*used += h.size;
		t += h.size;
		/* Zeroed before writers may reuse the bytes. */
		smp_store_release(&r->tail, t);
		*progress = true;
	}
	return true;
}

/*
 * Move whole records of all CPUs into @buf (process context, one reader at
 * a time: debugfs.c enforces that).  A record that does not fit stays in
 * the ring for the next call.
 */
size_t dprof_ring_drain(void *buf, size_t room)
{
	size_t used = 0;
	bool progress = true;
	int cpu;

	while (progress) {
		progress = false;
		/* A batch per CPU keeps CPUs roughly interleaved. */
		for_each_possible_cpu(cpu)
			if (!drain_cpu(per_cpu_ptr(&dprof_rings, cpu), buf, room,
				       &used, 64, &progress))
				return used;
	}
	return used;
}

u64 dprof_ring_lost_total(void)
{
	u64 total = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		total += per_cpu(dprof_stats, cpu).ring_lost;
	return total;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU output rings, lockless for writers and safe from NMI and #DB.
 *
 * Each CPU has a power-of-two buffer and two byte counters that only
 * grow: head (reserved by writers on that CPU) and tail (consumed by the
 * one reader).  A writer reserves with a local cmpxchg on head, so a
 * handler that interrupts another writer on the same CPU takes the next
 * bytes; it copies the record body, then publishes the record by writing
 * its 8-byte header last.  The reader takes records in order while their
 * header is non-zero (kind 0 does not exist), zeroes what it consumed and
 * only then moves tail on: a reserved record not yet published stops it
 * until its writer finishes, even if a nested one was published after it.
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
#include <linux/percpu.h>
#include <linux/vmalloc.h>
#include <asm/local.h>
#include "dprof.h"
#include "dprof_trace.h"

struct cpu_ring {
	u8 *buf;
	unsigned long mask;	/* bytes - 1 */
	local_t head;		/* bytes reserved since load */
	unsigned long tail;	/* bytes consumed since load (the reader) */
};

static DEFINE_PER_CPU(struct cpu_ring, rings);
static DEFINE_PER_CPU(u64, lost_pending);

void dprof_ring_exit(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct cpu_ring *r = per_cpu_ptr(&rings, cpu);

		vfree(r->buf);
		r->buf = NULL;
	}
}

int dprof_ring_init(unsigned long bytes_per_cpu)
{
	unsigned long bytes = roundup_pow_of_two(bytes_per_cpu);
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct cpu_ring *r = per_cpu_ptr(&rings, cpu);

		r->buf = vzalloc_node(bytes, cpu_to_node(cpu));
		if (!r->buf)
			goto nomem;
		r->mask = bytes - 1;
		local_set(&r->head, 0);
		r->tail = 0;
		per_cpu(lost_pending, cpu) = 0;
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
 * One record of @size bytes (a multiple of 8, at least the header) into
 * this CPU's ring; false when it is full.  Preemption is off.
 */
static bool ring_put(const void *rec, unsigned int size)
{
	struct cpu_ring *r = this_cpu_ptr(&rings);
	const u64 *src = rec;
	u64 *slots = (u64 *)r->buf;
	unsigned long h, pos, i, mask8 = r->mask >> 3;

	do {
		h = local_read(&r->head);
		/* Pairs with the reader's release: its zeroing is done. */
		if (h + size - smp_load_acquire(&r->tail) > r->mask + 1)
			return false;
	} while (local_cmpxchg(&r->head, h, h + size) != h);
	/*
	 * Records are a few u64 (at most 56 bytes): copied word by word,
	 * wrapping at the end, cheaper than memcpy() for so few.
	 */
	pos = (h & r->mask) >> 3;
	for (i = 1; i < size >> 3; i++)
		slots[(pos + i) & mask8] = src[i];
	smp_wmb();		/* body before header: the reader's acquire */
	WRITE_ONCE(slots[pos], src[0]);
	return true;
}

/* Tell the reader how many records this CPU lost since its last record. */
static void ring_put_lost(void)
{
	struct dprof_lost_event lost = {
		.hdr = {
			.kind = DPROF_REC_LOST,
			.size = sizeof(lost),
			.cpu = smp_processor_id(),
			.target = DPROF_NO_TARGET,
		},
		.time_ns = ktime_get_mono_fast_ns(),
	};

	lost.count = this_cpu_xchg(lost_pending, 0);
	if (!lost.count)
		return;
	if (!ring_put(&lost, sizeof(lost)))
		this_cpu_add(lost_pending, lost.count);
}

/* Any context, NMI included. */
bool dprof_ring_write(const void *rec, unsigned int size)
{
	bool ok;

	preempt_disable_notrace();
	if (unlikely(this_cpu_read(lost_pending)))
		ring_put_lost();
	ok = ring_put(rec, size);
	if (unlikely(!ok)) {
		this_cpu_inc(lost_pending);
		this_cpu_inc(dprof_stats.ring_lost);
		/* Every record begins with its u16 kind. */
		trace_dprof_lost(*(const u16 *)rec,
				 this_cpu_read(dprof_stats.ring_lost));
	}
	preempt_enable_notrace();
	return ok;
}

/*
 * Up to @batch published records of @r into @buf + *@used (whole records
 * that fit); returns false when one did not fit.
 */
static bool drain_cpu(struct cpu_ring *r, void *buf, size_t room,
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
			if (!drain_cpu(per_cpu_ptr(&rings, cpu), buf, room,
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

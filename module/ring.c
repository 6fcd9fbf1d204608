// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU output rings on the tracing ring_buffer, which is lockless for
 * writers and safe from NMI.  It runs in producer mode (no overwrite): a
 * full ring refuses new records rather than eating unread ones, the loss is
 * counted per CPU, and the next record that fits on that CPU is preceded by
 * a DPROF_REC_LOST record saying how many were lost.  relay is not used: it
 * is not NMI-safe.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ring_buffer.h>
#include <linux/ktime.h>
#include <linux/cpumask.h>
#include "dprof.h"
#include "compat.h"

static struct trace_buffer *ring;
static DEFINE_PER_CPU(u64, lost_pending);

int dprof_ring_init(unsigned long bytes_per_cpu)
{
	ring = ring_buffer_alloc(bytes_per_cpu, 0);
	if (!ring) {
		pr_err("cannot allocate %lu KiB rings per CPU; lower ring_kb=\n",
		       bytes_per_cpu >> 10);
		return -ENOMEM;
	}
	return 0;
}

void dprof_ring_exit(void)
{
	if (ring)
		ring_buffer_free(ring);
	ring = NULL;
}

static bool ring_put(const void *rec, unsigned int size)
{
	struct ring_buffer_event *event;

	event = ring_buffer_lock_reserve(ring, size);
	if (!event)
		return false;
	memcpy(ring_buffer_event_data(event), rec, size);
	dprof_rb_commit(ring, event);
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
			.target = 0xff,
		},
		.time_ns = ktime_get_mono_fast_ns(),
	};

	lost.count = this_cpu_xchg(lost_pending, 0);
	if (!lost.count)
		return;
	if (!ring_put(&lost, sizeof(lost)))
		this_cpu_add(lost_pending, lost.count);
}

/* Any context; the caller has preemption disabled. */
bool dprof_ring_write(const void *rec, unsigned int size)
{
	if (unlikely(this_cpu_read(lost_pending)))
		ring_put_lost();
	if (likely(ring_put(rec, size)))
		return true;
	this_cpu_inc(lost_pending);
	this_cpu_inc(dprof_stats.ring_lost);
	return false;
}

/*
 * Move whole records of all CPUs into @buf (process context, one reader at
 * a time: debugfs.c enforces that).  A record that does not fit stays in
 * the ring for the next call.
 */
size_t dprof_ring_drain(void *buf, size_t room)
{
	struct ring_buffer_event *event;
	size_t used = 0;
	bool progress = true;
	int cpu;

	while (progress) {
		progress = false;
		for_each_possible_cpu(cpu) {
			unsigned int len;

			/* A batch per CPU keeps CPUs roughly interleaved. */
			int batch = 64;

			while (batch--) {
				event = ring_buffer_peek(ring, cpu, NULL, NULL);
				if (!event)
					break;
				len = ring_buffer_event_length(event);
				if (len > room - used)
					return used;
				event = ring_buffer_consume(ring, cpu, NULL,
							    NULL);
				if (!event)
					break;
				len = min_t(unsigned int, len,
					    ((struct dprof_rec_hdr *)
					     ring_buffer_event_data(event))->size);
				memcpy(buf + used, ring_buffer_event_data(event),
				       len);
				used += len;
				progress = true;
			}
		}
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

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The writer side of the per-CPU rings (ring.c), inline so that a hook
 * writes its record in place: reserve bytes on this CPU, fill the body
 * where it lies, publish by writing the 8-byte header last.  No copy, no
 * record on the stack (so no stack protector in the hooks for it), no
 * call on the straight path.
 *
 * A record never wraps around the end of the buffer: one that would is
 * preceded by a pad record filling the end (ring.c's slow path), which
 * the reader drops.  Callers run with preemption off (tracepoint, kprobe,
 * #DB and NMI handlers are); dprof_ring_write() is for everyone else.
 */
#ifndef _DPROF_RING_H
#define _DPROF_RING_H

#include <linux/percpu.h>
#include <linux/string.h>
#include <asm/local.h>
#include "uapi/dprof.h"

struct dprof_cpu_ring {
	u8 *buf;
	unsigned long mask;	/* bytes - 1 */
	local_t head;		/* bytes reserved since load */
	unsigned long tail;	/* bytes consumed since load (the reader) */
};

DECLARE_PER_CPU(struct dprof_cpu_ring, dprof_rings);
DECLARE_PER_CPU(u64, dprof_ring_lost_pending);

/*
 * Kind of the pad records that fill the end of a buffer; never leaves
 * ring.c's reader.  Not a kind of enum dprof_rec_kind.
 */
#define DPROF_RING_PAD	0xff

/* The slow paths, out of line (ring.c). */
void *dprof_ring_reserve_wrap(unsigned int size);
void dprof_ring_put_lost(void);
void dprof_ring_refused(u8 kind);

/* dprof_ring_reserve() without its accounting: NULL when full. */
static __always_inline void *dprof_ring_try_reserve(unsigned int size)
{
	struct dprof_cpu_ring *r = this_cpu_ptr(&dprof_rings);
	unsigned long mask = r->mask, h, off;

	do {
		h = local_read(&r->head);
		off = h & mask;
		if (unlikely(off + size > mask + 1))
			return dprof_ring_reserve_wrap(size);
		/* Pairs with the reader's release: its zeroing is done. */
		if (unlikely(h + size - smp_load_acquire(&r->tail) > mask + 1))
			return NULL;
	} while (local_cmpxchg(&r->head, h, h + size) != h);
	return r->buf + off;
}

/*
 * @size bytes (a multiple of 8, at most 296: a SAMPLE with its chain)
 * on this CPU's ring for a record of @kind, or NULL when full (the loss
 * is counted and the next record that fits says so).  The bytes read as
 * zero until committed.
 */
static __always_inline void *dprof_ring_reserve(unsigned int size, u8 kind)
{
	void *rec;

	if (unlikely(this_cpu_read(dprof_ring_lost_pending)))
		dprof_ring_put_lost();
	rec = dprof_ring_try_reserve(size);
	if (unlikely(!rec))
		dprof_ring_refused(kind);
	return rec;
}

/* Publish the record at @rec, whose body is written, with header @hdr. */
static __always_inline void dprof_ring_commit(void *rec,
					      const struct dprof_rec_hdr *hdr)
{
	u64 word;

	BUILD_BUG_ON(sizeof(*hdr) != sizeof(word));
	memcpy(&word, hdr, sizeof(word));
	smp_wmb();		/* body before header: the reader's acquire */
	WRITE_ONCE(*(u64 *)rec, word);
}

/* ring.c's set-up, the writer for process context, and the reader. */
/* ring_kb= (ring.c): the size of each CPU's ring. */
int dprof_ring_init(void);
void dprof_ring_exit(void);
bool dprof_ring_write(const void *rec, unsigned int size);
/* Copy whole records of every CPU into @buf; returns bytes copied. */
size_t dprof_ring_drain(void *buf, size_t room);
u64 dprof_ring_lost_total(void);

#endif /* _DPROF_RING_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * The profiler's own objects (own.h): a set of the perf events dprof
 * created, read from any context (NMI and #DB: the resolver), written in
 * process context only, where perf events are created and released.
 *
 * An open-addressing table of object addresses, sized at load for every
 * possible CPU's events (OWN_PER_CPU) twice over, so that probes stay
 * short and an insert always finds a slot.  A removal leaves a tombstone
 * that the next insert reuses; the table never moves.  Readers use plain
 * loads: an object racing its own insert or removal may be taken as the
 * workload's once, which costs one sample at most.
 */
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "calibrate.h"
#include "own.h"

/*
 * Events of one CPU at most: four breakpoints, two samplers' events and
 * an in-use tick, with room to spare.
 */
#define OWN_PER_CPU	8
#define OWN_EMPTY	0UL
#define OWN_TOMB	1UL

struct kmem_cache *dprof_own_cache;

static unsigned long *own_slots;
static unsigned int own_bits;
static unsigned long own_nr;
static DEFINE_MUTEX(own_lock);
static DEFINE_PER_CPU(u64, own_refused);

int dprof_own_init(void)
{
	own_bits = order_base_2(2 * OWN_PER_CPU * nr_cpu_ids);
	own_slots = kvcalloc(1UL << own_bits, sizeof(*own_slots), GFP_KERNEL);
	return own_slots ? 0 : -ENOMEM;
}

/* After every event is released. */
void dprof_own_exit(void)
{
	WARN_ON_ONCE(own_nr);
	WRITE_ONCE(dprof_own_cache, NULL);
	kvfree(own_slots);
	own_slots = NULL;
	own_nr = 0;
}

static unsigned long own_hash(unsigned long base)
{
	return hash_long(base, own_bits);
}

bool dprof_own_contains(unsigned long base)
{
	unsigned long mask = (1UL << own_bits) - 1, i = own_hash(base), n, v;

	for (n = 0; n <= mask; n++, i = (i + 1) & mask) {
		v = READ_ONCE(own_slots[i]);
		if (v == OWN_EMPTY)
			return false;
		if (v == base) {
			this_cpu_inc(own_refused);
			return true;
		}
	}
	return false;
}

/* Under own_lock. */
static void own_insert(unsigned long base)
{
	unsigned long mask = (1UL << own_bits) - 1, i = own_hash(base), n;

	for (n = 0; n <= mask; n++, i = (i + 1) & mask) {
		if (own_slots[i] <= OWN_TOMB) {
			WRITE_ONCE(own_slots[i], base);
			own_nr++;
			return;
		}
	}
	/* More events than OWN_PER_CPU allows for: a bug, seen here. */
	WARN_ONCE(1, "dprof: own-object table full (%lu)\n", own_nr);
}

/* Under own_lock. */
static void own_remove(unsigned long base)
{
	unsigned long mask = (1UL << own_bits) - 1, i = own_hash(base), n, v;

	for (n = 0; n <= mask; n++, i = (i + 1) & mask) {
		v = own_slots[i];
		if (v == OWN_EMPTY)
			return;
		if (v == base) {
			WRITE_ONCE(own_slots[i], OWN_TOMB);
			own_nr--;
			return;
		}
	}
}

struct perf_event *dprof_own_counter(struct perf_event_attr *attr, int cpu,
				     perf_overflow_handler_t handler,
				     void *context)
{
	struct perf_event *event;
	struct kmem_cache *s;

	event = perf_event_create_kernel_counter(attr, cpu, NULL, handler,
						 context);
	if (IS_ERR(event))
		return event;
	/* Events are slab objects; were they not, nothing would resolve. */
	s = dprof_cache_of(event, NULL);
	mutex_lock(&own_lock);
	own_insert((unsigned long)event);
	if (s && !dprof_own_cache)
		WRITE_ONCE(dprof_own_cache, s);
	mutex_unlock(&own_lock);
	return event;
}

void dprof_own_release(struct perf_event *event)
{
	mutex_lock(&own_lock);
	own_remove((unsigned long)event);
	mutex_unlock(&own_lock);
	perf_event_release_kernel(event);
}

void dprof_own_stats(unsigned long *objects, u64 *refused)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(own_refused, cpu);
	*objects = READ_ONCE(own_nr);
	*refused = sum;
}

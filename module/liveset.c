// SPDX-License-Identifier: GPL-2.0
/*
 * The set of live target objects, usable from any context (NMI and #DB
 * included): a preallocated open-addressing table of object base addresses.
 *
 * - Insert (allocation hooks) claims a slot with cmpxchg().  Two inserts of
 *   the same address cannot race: an object is allocated once at a time.
 * - Remove (free hooks) turns the slot into a tombstone, which later inserts
 *   reuse.  The set never shrinks or rehashes, so readers never see a table
 *   move.
 * - Probing is linear and bounded by PROBE_LIMIT both ways: lookups stay
 *   O(1) however many tombstones pile up, and an insert that finds no slot
 *   within the bound fails (counted by the caller as "untracked") instead of
 *   spinning.
 * rhashtable and xarray are not usable here: their writers take locks and
 * allocate.
 */
#include <linux/vmalloc.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/atomic.h>
#include <linux/random.h>
#include <linux/sched.h>
#include "dprof.h"

#define SLOT_EMPTY	0UL
#define SLOT_TOMB	1UL	/* object addresses are never 1 */
#define PROBE_LIMIT	64

static unsigned long *slots;
static unsigned int slot_bits;
static atomic_long_t live_count;
static unsigned int max_probe_seen;

int dprof_liveset_init(unsigned int max_objects)
{
	/* Twice the expected maximum keeps the load factor at or below 1/2. */
	unsigned long nr = roundup_pow_of_two((unsigned long)max_objects * 2);

	slots = vzalloc(array_size(nr, sizeof(*slots)));
	if (!slots)
		return -ENOMEM;
	slot_bits = ilog2(nr);
	atomic_long_set(&live_count, 0);
	max_probe_seen = 0;
	return 0;
}

void dprof_liveset_exit(void)
{
	vfree(slots);
	slots = NULL;
}

static inline unsigned long slot_index(unsigned long base, unsigned int i)
{
	return (hash_64(base, slot_bits) + i) & ((1UL << slot_bits) - 1);
}

static void note_probe(unsigned int i)
{
	if (i > READ_ONCE(max_probe_seen))
		WRITE_ONCE(max_probe_seen, i);
}

enum dprof_liveset_result dprof_liveset_insert(unsigned long base)
{
	unsigned long *free_slot, seen;
	unsigned int i;

retry:
	free_slot = NULL;
	seen = SLOT_EMPTY;
	for (i = 0; i < PROBE_LIMIT; i++) {
		unsigned long *slot = &slots[slot_index(base, i)];
		unsigned long v = READ_ONCE(*slot);

		if (v == base)
			return DPROF_LIVE_DUPLICATE;
		if (v == SLOT_TOMB && !free_slot) {
			free_slot = slot;
			seen = v;
		}
		if (v == SLOT_EMPTY) {
			if (!free_slot) {
				free_slot = slot;
				seen = v;
			}
			break;	/* base cannot be further along */
		}
	}
	if (!free_slot)
		return DPROF_LIVE_FULL;
	if (cmpxchg(free_slot, seen, base) != seen)
		goto retry;	/* another object took the slot */
	note_probe(i);
	atomic_long_inc(&live_count);
	return DPROF_LIVE_INSERTED;
}

bool dprof_liveset_remove(unsigned long base)
{
	unsigned int i;

	for (i = 0; i < PROBE_LIMIT; i++) {
		unsigned long *slot = &slots[slot_index(base, i)];
		unsigned long v = READ_ONCE(*slot);

		if (v == SLOT_EMPTY)
			return false;
		if (v == base && cmpxchg(slot, base, SLOT_TOMB) == base) {
			atomic_long_dec(&live_count);
			return true;
		}
	}
	return false;
}

bool dprof_liveset_contains(unsigned long base)
{
	unsigned int i;

	if (!slots || base <= SLOT_TOMB)
		return false;
	for (i = 0; i < PROBE_LIMIT; i++) {
		unsigned long v = READ_ONCE(slots[slot_index(base, i)]);

		if (v == base)
			return true;
		if (v == SLOT_EMPTY)
			return false;
	}
	return false;
}

/* Slots one pick may read: 8 MiB, a few ms at most. */
#define PICK_MAX_READS	BIT(20)

/*
 * A live object chosen uniformly at random, for the sample windows
 * (process context).  A dense set is sampled by rejection (random slots
 * until one holds an object); a sparse one, where that would take too
 * many tries, by a reservoir over the slots from a random start (just
 * taking the first object after a random slot would favour objects after
 * long empty runs).  Both read at most PICK_MAX_READS slots, so a table
 * larger than that is only sampled in part when it is sparse.
 */
bool dprof_liveset_pick(unsigned long *base)
{
	unsigned long live = atomic_long_read(&live_count), v;
	unsigned int nr = 1U << slot_bits, i, start, seen = 0;

	if (!slots || !live)
		return false;
	if (live * 64 >= nr) {
		for (i = 0; i < 64 * 16; i++) {
			v = READ_ONCE(slots[get_random_u32_below(nr)]);
			if (v > SLOT_TOMB) {
				*base = v;
				return true;
			}
		}
	}
	start = get_random_u32_below(nr);
	for (i = 0; i < min_t(unsigned int, nr, PICK_MAX_READS); i++) {
		v = READ_ONCE(slots[(start + i) & (nr - 1)]);
		if (v > SLOT_TOMB && !get_random_u32_below(++seen))
			*base = v;
		if (!(i & 0xffff))
			cond_resched();
	}
	return seen > 0;
}

void dprof_liveset_stats(unsigned long *capacity, unsigned long *live,
			 unsigned long *max_probe)
{
	*capacity = slots ? 1UL << slot_bits : 0;
	*live = atomic_long_read(&live_count);
	*max_probe = READ_ONCE(max_probe_seen);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The pick gate (watch.h; design.rst, "Objects chosen at allocation"):
 * which target's next allocation becomes the watched object.  The
 * collector opens it for a type, or opens the "any" gate, whose first
 * allocation only names its type; the allocation hook that matches
 * claims it and closes it.
 */
#include <linux/atomic.h>
#include "watch.h"
#include "allocount.h"

int dprof_pick = DPROF_PICK_CLOSED;
/* The type an allocation through the "any" gate named, or -1. */
static atomic_t pick_named = ATOMIC_INIT(-1);

/*
 * The any gate matched an allocation of @target (hook context): it names
 * the type, once, and closes.  The name waits for the collector.
 */
void dprof_pick_name(int target)
{
	if (atomic_cmpxchg(&pick_named, -1, target) == -1) {
		WRITE_ONCE(dprof_pick, DPROF_PICK_CLOSED);
		dprof_watch_kick();
	}
}

int dprof_pick_take_name(void)
{
	/* From the counters, without the gate's timing (allocount.h). */
	int target = dprof_alloc_count_draw(dprof_watch_cfg.pick_types);

	if (target >= 0)
		return target;
	target = atomic_xchg(&pick_named, -1);

	if (target < 0 && READ_ONCE(dprof_pick) == DPROF_PICK_CLOSED)
		WRITE_ONCE(dprof_pick, DPROF_PICK_ANY);
	return target;
}

void dprof_pick_open(int target)
{
	/* After the watch is WAITING: a hook that sees the gate finds it ready. */
	smp_store_release(&dprof_pick, target);
}

void dprof_pick_close(void)
{
	WRITE_ONCE(dprof_pick, DPROF_PICK_CLOSED);
	atomic_set(&pick_named, -1);
}

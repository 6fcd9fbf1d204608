/* SPDX-License-Identifier: GPL-2.0 */
/*
 * history.c, for the hooks below the debug-register files: a cache being
 * destroyed, and the flag that keeps dprof's own allocations out.
 */
#ifndef _DPROF_HISTORY_H
#define _DPROF_HISTORY_H

#include <linux/percpu.h>

/*
 * The hooks' calls (dprof_history_alloc(), dprof_history_free(),
 * dprof_window_free()) are inline in watch.h: they compare the address
 * with the watched one before calling.
 */
void dprof_history_cache_destroyed(int target);
/* Set while dprof allocates or frees an object itself: hooks ignore it. */
DECLARE_PER_CPU(int, dprof_self_alloc);

#endif /* _DPROF_HISTORY_H */

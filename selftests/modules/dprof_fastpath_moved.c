// SPDX-License-Identifier: GPL-2.0
/*
 * dprof_fastpath's other build: tx_rw moved out of its cache-line group
 * (the guard of dprof-view advise --against --check).  Never loaded; its
 * DWARF is the "new build" the guard reads.
 */
#define FASTPATH_MOVED
#include "dprof_fastpath.c"

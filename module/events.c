// SPDX-License-Identifier: GPL-2.0
/*
 * The trace events of system "dprof" (dprof_trace.h) are defined here,
 * once; the files that fire them include the header alone.
 */
#define CREATE_TRACE_POINTS
#include "dprof_trace.h"

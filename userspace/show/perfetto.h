/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Object histories as a timeline: the Chrome JSON trace-event format
 * that Perfetto (ui.perfetto.dev), chrome://tracing and speedscope open.
 *
 * One track per CPU.  An object's life is cut where it changes CPU:
 * each piece is a slice on the track of the CPU that had it, from its
 * allocation (or the first access on that CPU) to the next CPU's first
 * access (or the free), and a flow arrow joins consecutive pieces.  Each
 * access is an instant event on its piece, named by the field.  Lives of
 * objects watched at the same time on one CPU would overlap, which a
 * track cannot show; they go to extra tracks of that CPU ("CPU 0 #2").
 *
 * trace_build() is the analysis (no I/O); trace_write() prints.
 */
#ifndef DPROF_PERFETTO_H
#define DPROF_PERFETTO_H

#include <stdint.h>
#include <stdio.h>
#include "histories.h"
#include "ksyms.h"
#include "recfile.h"

struct layout;

/* One piece of an object's life on one CPU. */
struct trace_slice {
	const struct history *h;
	uint64_t start_ns, end_ns;	/* CLOCK_MONOTONIC */
	size_t first_elem, nr_elems;	/* its accesses in h->elems */
	uint16_t cpu;
	uint16_t lane;		/* 0: the CPU's first track */
	/*
	 * The last piece of a life freed on a CPU that made no watched
	 * access: the object reached that CPU some time after the previous
	 * piece's last access, and only the free shows it.
	 */
	bool free_only;
	bool first, last;	/* of its history */
};

struct obj_trace {
	struct trace_slice *slices;	/* by history, then time */
	size_t nr_slices;
	uint64_t origin_ns;	/* earliest allocation: time 0 */
	uint64_t flows;		/* CPU changes: arrows */
	uint16_t *lanes;	/* tracks per CPU, by CPU id */
	size_t nr_cpus;
	size_t histories;
};

/*
 * The slices of every history of @hs whose target is @target (an index
 * into the recording's targets; -1: all).  Histories without END (still
 * watched when recording stopped) end at their last access.
 */
void trace_build(const struct history_set *hs, int target,
		 struct obj_trace *t);
void trace_free(struct obj_trace *t);

/*
 * @t as one JSON document on @out; @layouts (by target, entries may be
 * NULL) name the accessed fields, @syms the instructions.
 */
void trace_write(FILE *out, const struct obj_trace *t,
		 const struct recording *r, struct layout **layouts,
		 const struct ksyms *syms);

#endif

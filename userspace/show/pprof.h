/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The data profile as a pprof profile (github.com/google/pprof,
 * proto/profile.proto), so that pprof-based tools read, merge and compare
 * dprof profiles of many hosts.  Each sample is one accessing
 * instruction of one field: its stack, leaf first, is
 *
 *	function (the kernel symbol of the ip)
 *	CACHE.FIELD  (filename: the struct, line: the field's byte offset)
 *	CACHE (struct NAME)
 *
 * so a flame graph reads type -> field -> function, `pprof -top` lists
 * functions and `pprof -top -cum` types and fields.  Values: samples
 * (count); where the sampler measured misses (IBS, PEBS) also misses
 * (count) and latency (cycles, summed over the misses of loads).  Labels
 * cache, field and offset (bytes) allow -tagfocus.  Encoding only: the
 * caller compresses and writes.
 */
#ifndef DPROF_PPROF_H
#define DPROF_PPROF_H

#include <stddef.h>
#include <stdint.h>
#include "ksyms.h"
#include "profile.h"

/* A growable byte buffer, the encoder's output. */
struct pb_buf {
	uint8_t *data;
	size_t len, cap;
};

struct pprof_meta {
	const char *target;	/* only this type; NULL: all */
	uint64_t duration_ns;	/* of the recording; 0 unknown */
	const char *comment;	/* one line, e.g. host and kernel; or NULL */
};

/*
 * The Profile message of @p, uncompressed, into @out (which it owns
 * afterwards; pb_buf_free()).  @syms names the instructions.
 */
void pprof_encode(const struct profile *p, const struct ksyms *syms,
		  const struct pprof_meta *meta, struct pb_buf *out);
void pb_buf_free(struct pb_buf *b);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* Builds small recordings in memory for the tests. */
#ifndef DPROF_TEST_FIXTURE_H
#define DPROF_TEST_FIXTURE_H

#include <stddef.h>
#include <stdint.h>
#include "uapi/dprof.h"

struct fixture {
	uint8_t *buf;
	size_t len, cap;
	uint64_t records;
	size_t events_offset;	/* file offset of the first event record */
};

void fixture_begin(struct fixture *f, unsigned int nr_targets);
/* The same, every target with DPROF_TARGET_* @flags (KMALLOC: by site). */
void fixture_begin_flags(struct fixture *f, unsigned int nr_targets,
			 uint32_t flags);
void fixture_event(struct fixture *f, uint16_t kind, uint16_t cpu,
		   uint16_t target, uint64_t time_ns, uint64_t addr);
/* Any record (history records, malformed ones); size from the caller. */
void fixture_raw(struct fixture *f, const void *rec, size_t size);
/* Closes the events section and appends the end section. */
void fixture_end(struct fixture *f);
/* Same, with one more section between the events and the end. */
void fixture_end_with(struct fixture *f, uint32_t kind, const void *data,
		      uint64_t len);
/* Same, with several sections, in order. */
struct fixture_section {
	uint32_t kind;
	const void *data;
	uint64_t len;
};
void fixture_end_sections(struct fixture *f, const struct fixture_section *s,
			  size_t n);
/* A facts section (watch sampler) of the one entry @tf, built in @buf. */
#define FIXTURE_FACTS_SIZE \
	(sizeof(struct dprof_facts) + sizeof(struct dprof_target_fact))
void fixture_facts(struct fixture_section *sec,
		   uint8_t buf[FIXTURE_FACTS_SIZE],
		   const struct dprof_target_fact *tf);
void fixture_free(struct fixture *f);

#endif

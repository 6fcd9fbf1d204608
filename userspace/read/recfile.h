/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Recording files (layout in module/uapi/dprof.h): a writer used by
 * "record", and a reader that validates everything once, at load, so that
 * analyses can walk records without checks of their own.
 */
#ifndef DPROF_RECFILE_H
#define DPROF_RECFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "uapi/dprof.h"

struct rec_error {
	uint64_t offset;	/* byte offset in the file the error is about */
	char msg[240];
};

/* ---- writing -------------------------------------------------------- */
struct rec_writer {
	FILE *file;
	char *path;
	uint64_t offset;
	bool failed;
};

int rec_writer_open(struct rec_writer *w, const char *path);
int rec_write_section(struct rec_writer *w, uint32_t kind, const void *data,
		      uint64_t len);
/* Writes nothing more; returns -1 if any write failed. */
int rec_writer_close(struct rec_writer *w);

/* ---- reading -------------------------------------------------------- */
struct rec_section {
	uint32_t kind;
	uint64_t header_offset;	/* of struct dprof_section in the file */
	uint64_t length;
	const uint8_t *data;
};

#define REC_MAX_KIND 16
#define REC_MAX_OBJECT_SIZE (8u << 20)	/* twice kmalloc's largest */
#define REC_MAX_CPUS 8192		/* the kernel's NR_CPUS limit */

struct recording {
	const char *path;
	uint8_t *buf;		/* the whole file, owned when loaded */
	size_t size;
	bool owns_buf;
	bool mapped;		/* buf is an mmap() of the file */
	uint32_t abi_version;
	struct rec_section *sections;
	size_t nr_sections;
	struct dprof_file_end end;

	struct dprof_file_target *targets;	/* copied, aligned */
	size_t nr_targets;
	struct dprof_file_cache *caches;
	size_t nr_caches;
	char **meta_keys, **meta_values;
	size_t nr_meta;
	const char *kallsyms;	/* NUL-terminated copies */
	const char *status;
	const char *histories_text;	/* debugfs "histories" at the end */
	struct dprof_file_ipmap *ipmap;	/* sorted by trap_ip by the writer */
	size_t nr_ipmap;
	struct dprof_file_access_kind *access_kinds;	/* sorted by trap_ip */
	size_t nr_access_kinds;
	struct dprof_sample_agg *samples;	/* aggregated, all CPUs */
	size_t nr_samples;
	struct dprof_data_agg *data_samples;	/* in no slab object */
	size_t nr_data_samples;
	uint64_t *percpu_offsets;	/* by CPU id; 0: impossible CPU */
	size_t nr_percpu_offsets;
	/* The history cover plans at the end; none in older recordings. */
	struct dprof_plan_item *plans;
	size_t nr_plans;
	/* ops=: calls of the functions counted since load, by name. */
	struct dprof_op_count *ops;
	size_t nr_ops;
	const char *profile_text;	/* debugfs "profile" at the end */
	/*
	 * debugfs "facts" at the end (uapi struct dprof_facts): the figures
	 * the analyses read, typed; none in recordings before them, whose
	 * figures come from the texts above.  Fields the writer did not
	 * have are zero; target_facts are by target index.
	 */
	bool has_facts;
	struct dprof_facts facts;
	struct dprof_target_fact *target_facts;
	size_t nr_target_facts;
	const uint8_t *btf;
	size_t btf_len;

	uint64_t records;	/* all records in EVENTS sections */
	uint64_t kind_count[REC_MAX_KIND];	/* by kind, known ones */
	uint64_t unknown_records;		/* skipped kinds */
	uint64_t lost_marked;	/* sum of LOST records' counts */
};

int recording_load(struct recording *r, const char *path,
		   struct rec_error *err);
/*
 * Parse a buffer the caller keeps alive (tests and fuzzing).  On failure
 * nothing is held: no recording_free() is needed.
 */
int recording_parse(struct recording *r, const uint8_t *buf, size_t size,
		    struct rec_error *err);
void recording_free(struct recording *r);
/* Target @t's facts, or NULL (no facts section, or no entry for @t). */
const struct dprof_target_fact *recording_target_fact(const struct recording *r,
						      size_t t);
/*
 * 1 in how many objects of target @t the module followed at the end of
 * the recording (its status: "track_one_in: N", the base, and the caches
 * raised above it for their allocation rate, "track_one_in per cache:
 * ... NAME=N"; 1 if absent).  Above 1, that cache's ALLOC and FREE
 * records are a sample of its objects, chosen by address hash.
 */
unsigned int recording_track_one_in(const struct recording *r, size_t t);
/* The largest of them over the targets. */
unsigned int recording_track_one_in_max(const struct recording *r);
const char *recording_meta(const struct recording *r, const char *key);
/* Accessing ip for a trap ip via the recording's ipmap; 0 if absent. */
uint64_t ipmap_lookup(const struct recording *r, uint64_t trap_ip);
/* Decoded kind of the access that trapped at @trap_ip; UNKNOWN if absent. */
enum dprof_access_kind access_kind_lookup(const struct recording *r,
					  uint64_t trap_ip);
const char *section_kind_name(uint32_t kind);
/*
 * A WINDOW record (@rec points at one) as this reader's struct: a record
 * of ABI 6, before the draw's weight, reads rho = DPROF_WINDOW_RHO_ONE.
 */
void rec_window(const void *rec, struct dprof_window_rec *w);
/* The WINDOW record's size in ABI 6 recordings. */
#define DPROF_WINDOW_REC_ABI6_SIZE offsetof(struct dprof_window_rec, rho)
/*
 * A SAMPLE record (@rec points at one) as this reader's struct: a record
 * of ABI 6 or 7, before the object's base, reads base 0.
 */
void rec_sample(const void *rec, struct dprof_sample_rec *s);
/*
 * The call chain a SAMPLE record carries (DPROF_SAMPLE_CHAIN): up to @max
 * return addresses into @frames, innermost first; returns how many (0:
 * none).
 */
size_t rec_sample_chain(const void *rec, uint64_t *frames, size_t max);
/* The SAMPLE record's size in ABI 6 and 7 recordings. */
#define DPROF_SAMPLE_REC_ABI7_SIZE offsetof(struct dprof_sample_rec, base)

/* Walk every record of every EVENTS section, in file order. */
struct rec_iter {
	const struct recording *r;
	size_t section;
	uint64_t pos;
	const uint8_t *dropped;	/* mapped: pages before it given back */
};

void rec_iter_init(struct rec_iter *it, const struct recording *r);
/* The next record, or NULL at the end.  Records were validated at load. */
const struct dprof_rec_hdr *rec_iter_next(struct rec_iter *it);

#endif

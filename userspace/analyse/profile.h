/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The data profile view (thesis 4.1) as data: per target type its samples
 * and misses, share of all, bounce, and per field (named from the
 * recorded BTF) the same figures with the cache line the field is in and
 * the function that touched it most.  Plain analysis: no I/O.
 */
#ifndef DPROF_PROFILE_H
#define DPROF_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "typemap.h"
#include "recfile.h"
#include "sitesplit.h"

#define PROFILE_LINE 64		/* cache line size the rows are grouped by */

/* One accessing instruction of a field: what the pprof export stacks. */
struct profile_ip {
	uint64_t ip;
	uint64_t samples, misses, latency_sum;
};

struct profile_field {
	uint32_t offset;	/* first byte of the field (or sampled byte) */
	uint32_t size;		/* bytes of the field; 0 unknown */
	char *name;		/* field path, "(padding)", or "+OFF" */
	uint64_t samples, loads, stores, misses, latency_sum;
	uint64_t lat_misses;	/* misses with a latency: the average's */
	uint64_t top_ip;	/* accessing instruction with most samples */
	uint64_t top_ip_samples;
	struct profile_ip *ips;	/* every accessing instruction, by ip */
	size_t nr_ips;
};

#define PROFILE_SITES 3

/* Where objects of a kmalloc cache come from: its types, by call site. */
struct profile_site {
	uint64_t call_site;
	uint64_t allocs;
};

struct profile_type {
	unsigned int target;
	bool kmalloc;		/* a generic cache: named by call sites */
	bool variable;		/* a kernel variable (watch_symbols=) */
	/*
	 * Samples in no slab object (IBS/PEBS): a variable named from
	 * kallsyms, or a bucket (stack, user, unnamed); target is UINT32_MAX.
	 */
	bool data;
	int region;		/* enum data_region, when data */
	char *own_cache;	/* the name, when data */
	uint64_t allocs;	/* recorded allocations */
	struct profile_site sites[PROFILE_SITES];	/* most first */
	/* kmalloc: its samples by allocation site (sitesplit.h); owned */
	struct site_split by_site;
	const char *cache;	/* slab cache, or variable (see data) */
	char *struct_name;	/* "struct sk_buff"; NULL: fields unnamed */
	char *no_names_why;	/* why, when struct_name is NULL */
	uint32_t object_size;
	uint64_t samples, loads, stores, misses, latency_sum;
	uint64_t lat_misses;	/* misses with a latency: the average's */
	uint64_t matched_frees, remote_frees;	/* bounce: freed elsewhere */
	/* Its 95% half-width over bounce_addrs addresses; <0 unknown. */
	uint64_t bounce_addrs;
	double bounce_err;
	struct profile_field *fields;		/* by offset */
	size_t nr_fields;
};

struct profile {
	char sampler[16];	/* "ibs", "pebs", "watch", "off", "?" */
	bool misses_measured;	/* false: watch, misses are estimates */
	uint64_t samples, misses;	/* over all target types */
	struct profile_type *types;	/* by misses (or samples), most first */
	size_t nr_types;
};

/*
 * Build the profile of @r; @map names the struct of each cache (NULL:
 * built-in table only).  Never fails on content: types without BTF or
 * without a known struct get "+OFF" rows and a reason.
 */
void profile_build(const struct recording *r, const struct type_map *map,
		   struct profile *p);
void profile_free(struct profile *p);
/*
 * The sampler @r was recorded with ("ibs", "pebs", "watch", "off", "?")
 * into @sampler; true when it measured misses (IBS or PEBS).
 */
bool profile_sampler(const struct recording *r, char *sampler, size_t len);

#endif

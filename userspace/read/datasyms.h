/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a sampled data address outside every slab object lies: a variable
 * of the kernel image or of a module, one CPU's copy of a per-CPU
 * variable, a task stack, user memory, or memory no symbol names
 * (vmalloc, page cache, the direct map).  Named from the recording's
 * kallsyms and per-CPU offsets, so that it works on another machine and
 * across KASLR.  Plain analysis: no I/O.
 *
 * kallsyms has no sizes: a variable is taken to reach the next symbol
 * (capped); field names and exact sizes come from BTF or DWARF later.
 * On x86_64 per-CPU symbols are offsets into the per-CPU area, small
 * numbers (vmlinux's of type 'A', a module's 'a', after __per_cpu_end);
 * CPU c's copy of one is at that offset plus per_cpu_offset(c), which the
 * module recorded.
 */
#ifndef DPROF_DATASYMS_H
#define DPROF_DATASYMS_H

#include <stddef.h>
#include <stdint.h>
#include "uapi/dprof.h"

#define DATASYM_MAX_SIZE (1u << 20)	/* a variable is taken no larger */

enum data_region {
	DATA_IMAGE,		/* data, bss or rodata of the kernel image */
	DATA_MODULE,		/* a module's data */
	DATA_PERCPU,		/* one CPU's copy of a per-CPU variable */
	DATA_STACK,		/* the interrupted task's stack */
	DATA_USER,		/* user memory (copy_*_user and friends) */
	DATA_UNNAMED,		/* no symbol: vmalloc, page cache, ... */
	DATA_NR_REGIONS,
};

struct data_sym {
	uint64_t addr;
	uint64_t size;		/* to the next symbol, at most MAX_SIZE */
	const char *name;	/* into data_syms.names */
	const char *module;	/* NULL for the kernel image */
	char type;		/* kallsyms type letter */
};

struct data_syms {
	struct data_sym *image;	/* image and module data, by address */
	size_t nr_image;
	struct data_sym *percpu;	/* per-CPU variables, by offset */
	size_t nr_percpu;
	const uint64_t *cpu_offsets;	/* by CPU id (the recording's) */
	size_t nr_cpus;
	char *names;		/* owned copy of the kallsyms text */
};

struct data_place {
	enum data_region region;
	const struct data_sym *sym;	/* NULL for stack, user, unnamed */
	uint64_t offset;	/* of the address in the symbol */
	int cpu;		/* DATA_PERCPU: whose copy; else -1 */
};

/* Parse @kallsyms (may be NULL); @offsets stay the caller's. */
void data_syms_load(struct data_syms *d, const char *kallsyms,
		    const uint64_t *offsets, size_t nr_cpus);
void data_syms_free(struct data_syms *d);
/* Where @e's address lies. */
void data_syms_place(const struct data_syms *d, const struct dprof_data_agg *e,
		     struct data_place *out);
/* "region" words for output: "image", "module", "percpu", ... */
const char *data_region_name(enum data_region r);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel symbols from a /proc/kallsyms snapshot (the recording's, so that
 * analysis works on another machine and across KASLR): address -> function
 * name + offset, module included.
 */
#ifndef DPROF_KSYMS_H
#define DPROF_KSYMS_H

#include <stddef.h>
#include <stdint.h>

struct ksym {
	uint64_t addr;
	const char *name;	/* points into ksyms.names */
	const char *module;	/* NULL for vmlinux */
};

struct ksyms {
	struct ksym *syms;	/* text symbols, sorted by address */
	size_t nr;
	char *names;		/* owned copy of the text */
};

/* Parse kallsyms text (may be NULL: no symbols).  Never fails. */
void ksyms_load(struct ksyms *k, const char *text);
void ksyms_free(struct ksyms *k);
/* The text symbol containing @addr, or NULL (below the first one). */
const struct ksym *ksyms_find(const struct ksyms *k, uint64_t addr);
/*
 * "name+0xoff [module]" or "0x<addr>" into buf; returns buf.  A symbol
 * more than 1 MiB below addr is not trusted.
 */
const char *ksyms_format(const struct ksyms *k, uint64_t addr, char *buf,
			 size_t len);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The parameters dprof.ko is loaded with, completed from what the module
 * does not read itself (it opens no file): watch_symbols= names get their
 * addresses from a /proc/kallsyms text, and the hardware samplers' PMU
 * type and events come from what sysfs says.  Plain analysis of texts
 * the caller read: no I/O.
 */
#ifndef DPROF_MODPARAMS_H
#define DPROF_MODPARAMS_H

#include <stddef.h>

#define MODPARAMS_MAX	64

struct mod_params {
	char *word[MODPARAMS_MAX];	/* "name=value", owned */
	size_t nr;
};

/* What sysfs says of the samplers' PMUs: NULL where a file is absent. */
struct pmu_facts {
	const char *ibs_op_type;	/* devices/ibs_op/type */
	const char *mem_loads;		/* devices/cpu/events/mem-loads */
	const char *mem_stores;		/* devices/cpu/events/mem-stores */
};

/*
 * Adds "name=value" (or a bare "name", a boolean's Y); 0, or -1 with one
 * line in @err.  A name given twice: the last one counts, as for insmod.
 */
int modparams_add(struct mod_params *p, const char *word, char *err,
		  size_t errlen);
/* The value of @name, or NULL. */
const char *modparams_get(const struct mod_params *p, const char *name);
/*
 * watch_symbols=[module:]NAME[/SIZE],... becomes NAME@0xADDRESS[/SIZE]
 * from @kallsyms; a name that already has an address is kept.  0, or -1
 * with one line in @err naming the symbol: unknown, ambiguous (give the
 * module), a function, a per-CPU variable, or addresses hidden
 * (kptr_restrict).
 */
int modparams_resolve_symbols(struct mod_params *p, const char *kallsyms,
			      char *err, size_t errlen);
/* pmu_ibs_type=, pmu_pebs_loads=, pmu_pebs_stores= unless given. */
void modparams_add_pmu(struct mod_params *p, const struct pmu_facts *f);
/* "a=b c=d", for finit_module() and for the user; the caller frees it. */
char *modparams_join(const struct mod_params *p);
void modparams_free(struct mod_params *p);

#endif

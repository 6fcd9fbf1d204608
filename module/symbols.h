/* SPDX-License-Identifier: GPL-2.0 */
/*
 * symbols.c: kernel variables named in watch_symbols=.
 */
#ifndef _DPROF_SYMBOLS_H
#define _DPROF_SYMBOLS_H

#include <linux/types.h>

#define DPROF_MAX_VARIABLES	8

/* watch_symbols= (symbols.c): the variables to watch, @len bytes a slot. */
int dprof_symbols_init(unsigned int len);
void dprof_symbols_exit(void);
unsigned int dprof_nr_variables(void);
struct dprof_resolved;
/* The variable holding @addr; any context (NMI included). */
int dprof_var_resolve(unsigned long addr, struct dprof_resolved *r);
/* Collector: the next variable to watch, round robin; -1 if none. */
int dprof_var_next(void);

#endif /* _DPROF_SYMBOLS_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which struct a slab cache holds (dprof's built-in table and the user's
 * --type CACHE=STRUCT), the DWARF files to search (--debug, --module-dir),
 * and the lookup of a struct or variable type through the layout loaders.
 */
#ifndef DPROF_TYPEMAP_H
#define DPROF_TYPEMAP_H

#include "layout.h"

/*
 * Where the views find types: the struct dprof's built-in table or the
 * user maps a slab cache to, and DWARF files (.ko, vmlinux) to search
 * when the recording's BTF lacks a struct.
 */
struct type_map {
	char **caches, **structs;
	size_t nr;
	char **debug;
	size_t nr_debug;
};

void type_map_add_debug(struct type_map *m, const char *path);
/*
 * Struct @name from @btf (may be NULL), else from the first of @m's DWARF
 * files that has it.  -1 with every reason in @err when none does.
 */
int layout_find(const struct btf *btf, const struct type_map *m,
		const char *name, struct layout *out, char *err,
		size_t errlen);

/* The same for the type of variable @var (watch_symbols= targets). */
int layout_find_var(const struct btf *btf, const struct type_map *m,
		    const char *var, struct layout *out, char *err,
		    size_t errlen);

/* Adds "CACHE=STRUCT"; -1 when malformed. */
int type_map_add(struct type_map *m, const char *spec);
/* The struct for @cache: user mappings, the built-in table, then NULL. */
const char *type_map_lookup(const struct type_map *m, const char *cache);
void type_map_free(struct type_map *m);

#endif

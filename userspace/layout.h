/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Struct layouts from BTF: which field a byte offset of an object falls
 * in, as a path through nested structs, anonymous unions and arrays
 * ("headers.protocol", "cb[12]", "len|data_len" when a union overlaps),
 * or padding.  Built once per type; a lookup is two binary searches and a
 * scan of the fields that can reach the offset.
 */
#ifndef DPROF_LAYOUT_H
#define DPROF_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

struct btf;

/* One leaf member, flattened: its bytes are [offset, offset + size). */
struct layout_field {
	uint32_t offset;
	uint32_t size;		/* bytes covered (a bitfield: the bytes it spans) */
	uint32_t elem_size;	/* arrays: bytes per element; else 0 */
	uint16_t bit_offset;	/* bitfields: bit in the struct, mod 8 */
	uint16_t bit_size;	/* bitfields: width; 0 when not a bitfield */
	uint32_t seq;		/* order of the member in the type */
	uint32_t type_id;	/* BTF type, modifiers skipped */
	char *path;
};

struct layout {
	char *name;		/* "struct sk_buff" */
	uint32_t size;
	struct layout_field *fields;	/* sorted by offset, then member order */
	size_t nr_fields;
	uint32_t max_field_size;	/* bounds the search for covering fields */
};

/*
 * The layout of struct (or union) @name in @btf.  Returns 0, or -1 with a
 * reason in @err when there is no such type.
 */
int layout_from_btf(const struct btf *btf, const char *name,
		    struct layout *out, char *err, size_t errlen);
void layout_free(struct layout *l);

/*
 * The fields covering byte @off, joined with '|' (unions), "[k]" added for
 * array elements; "(padding)" when none does, "(beyond the struct)" past
 * its size.  Returns @buf.
 */
const char *layout_name_at(const struct layout *l, uint32_t off, char *buf,
			   size_t len);

/*
 * The fields overlapping bytes [@off, @off + @n), as layout_name_at()
 * names them ("[a..b]" for several array elements); a field listed twice
 * under struct_group() is named once.
 */
const char *layout_name_range(const struct layout *l, uint32_t off,
			      uint32_t n, char *buf, size_t len);

/* The first field (in member order) covering byte @off, or NULL. */
const struct layout_field *layout_field_at(const struct layout *l,
					   uint32_t off);

/* The struct dprof's built-in table or the user maps a slab cache to. */
struct type_map {
	char **caches, **structs;
	size_t nr;
};

/* Adds "CACHE=STRUCT"; -1 when malformed. */
int type_map_add(struct type_map *m, const char *spec);
/* The struct for @cache: user mappings, the built-in table, then NULL. */
const char *type_map_lookup(const struct type_map *m, const char *cache);
void type_map_free(struct type_map *m);

#endif

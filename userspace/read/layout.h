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
	/*
	 * The compiler's alignment of the field (an array's: its element
	 * type's), from BTF; 0 where not known (DWARF, tests): the views
	 * then take the natural alignment of its size.
	 */
	uint32_t align;
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
/*
 * The same from DWARF (a .ko or a vmlinux with debug info, through
 * libdwfl so that a module's relocations are applied).
 */
int layout_from_dwarf(const char *path, const char *name,
		      struct layout *out, char *err, size_t errlen);
/* The struct or union type of variable @var, from BTF or DWARF. */
int layout_var_from_btf(const struct btf *btf, const char *var,
			struct layout *out, char *err, size_t errlen);
int layout_var_from_dwarf(const char *path, const char *var,
			  struct layout *out, char *err, size_t errlen);
void layout_free(struct layout *l);

/* For the builders: add one leaf, then sort and name the whole. */
void layout_add_field(struct layout *l, size_t *cap, const char *path,
		      uint32_t type_id, uint32_t offset, uint32_t size,
		      uint32_t elem_size, uint32_t bit_off, uint32_t bit_size);
void layout_finish(struct layout *l, const char *kind, const char *name,
		   uint32_t size);
/* "prefix.name", "name" without a prefix, "prefix" without a name. */
char *layout_join(const char *prefix, const char *name);

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
/*
 * One name for a span, for text views: the outermost member that lies
 * wholly inside it ("d_lockref" for the seven names of a lockref's 8
 * bytes, "sk_receive_queue.lock" for a spinlock's), and "+N more" when
 * the span holds parts of other members.  layout_name_range() lists
 * every name, for --json and --script.
 */
const char *layout_short_range(const struct layout *l, uint32_t off,
			       uint32_t n, char *buf, size_t len);

/*
 * The same from a name list alone ("a.b.c|a.b.d|a.e"), for names stored
 * without their layout (diff buckets): the members every name shares,
 * and how many names there were ("a (3 names)"); a single name as is.
 */
const char *names_short(const char *list, char *buf, size_t len);

const struct layout_field *layout_field_at(const struct layout *l,
					   uint32_t off);

/*
 * Where layouts come from: a loader finds a struct, or a variable's type,
 * in its source (BTF: a struct btf; DWARF: a file's path).  typemap.c
 * asks the BTF loader, then the DWARF one for each debug file.
 */
struct layout_loader {
	const char *what;	/* "BTF", "DWARF": for error lines */
	int (*type)(const void *src, const char *name, struct layout *out,
		    char *err, size_t errlen);
	int (*var)(const void *src, const char *var, struct layout *out,
		   char *err, size_t errlen);
};

extern const struct layout_loader layout_btf_loader, layout_dwarf_loader;

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * Struct layouts from DWARF (see layout.h), for types BTF does not have:
 * out-of-tree modules get no BTF without the kernel's vmlinux at build
 * time, but their .ko keeps DWARF when the kernel was built with debug
 * info.  A .ko is a relocatable object whose .debug_info refers to its
 * string tables through relocations, so it is opened with libdwfl, which
 * applies them, not with plain libdw.  The flattening mirrors the BTF one.
 */
#include <dwarf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include "layout.h"
#include "util.h"

#define MAX_DEPTH 32

struct dwarf_flattener {
	struct layout *l;
	size_t cap;
};

static bool is_modifier(int tag)
{
	return tag == DW_TAG_typedef || tag == DW_TAG_const_type ||
	       tag == DW_TAG_volatile_type || tag == DW_TAG_restrict_type ||
	       tag == DW_TAG_atomic_type;
}

/* The type of @die with typedefs and qualifiers skipped; NULL: void. */
static Dwarf_Die *type_of(Dwarf_Die *die, Dwarf_Die *mem)
{
	Dwarf_Attribute attr;
	Dwarf_Die *t;
	int guard = 0;

	if (!dwarf_attr_integrate(die, DW_AT_type, &attr))
		return NULL;
	t = dwarf_formref_die(&attr, mem);
	while (t && is_modifier(dwarf_tag(t)) && guard++ < 64) {
		if (!dwarf_attr_integrate(t, DW_AT_type, &attr))
			return NULL;
		t = dwarf_formref_die(&attr, mem);
	}
	return t;
}

static bool member_location(Dwarf_Die *m, Dwarf_Word *bytes)
{
	Dwarf_Attribute attr;
	Dwarf_Op *expr;
	size_t n;

	*bytes = 0;
	if (!dwarf_attr_integrate(m, DW_AT_data_member_location, &attr))
		return true;	/* union members, and the first member */
	if (dwarf_formudata(&attr, bytes) == 0)
		return true;
	/* Old compilers: DW_OP_plus_uconst N. */
	if (dwarf_getlocation(&attr, &expr, &n) == 0 && n == 1 &&
	    expr[0].atom == DW_OP_plus_uconst) {
		*bytes = expr[0].number;
		return true;
	}
	return false;
}

static int flatten(struct dwarf_flattener *f, Dwarf_Die *type,
		   uint64_t base_bits, const char *prefix, int depth)
{
	Dwarf_Die child, tmem;
	int ret = 0;

	if (depth > MAX_DEPTH)
		return -1;
	if (dwarf_child(type, &child) != 0)
		return 0;	/* no members */
	do {
		Dwarf_Attribute attr;
		Dwarf_Word loc, bit_off = 0, word;
		Dwarf_Die *mt;
		const char *name;
		char *path;
		int bsize;
		uint64_t bits;

		if (dwarf_tag(&child) != DW_TAG_member)
			continue;
		name = dwarf_diename(&child);
		if (!member_location(&child, &loc))
			return -1;
		bits = base_bits + loc * 8;
		bsize = dwarf_bitsize(&child);
		if (bsize > 0) {
			/* DWARF 4+: from the start of the struct. */
			if (dwarf_attr_integrate(&child, DW_AT_data_bit_offset,
						 &attr) &&
			    dwarf_formudata(&attr, &word) == 0) {
				bits = base_bits + word;
			} else if (dwarf_attr_integrate(&child, DW_AT_bit_offset,
							&attr) &&
				   dwarf_formudata(&attr, &bit_off) == 0) {
				/* DWARF 2/3, big-endian numbering. */
				int storage = dwarf_bytesize(&child);

				if (storage <= 0) {
					mt = type_of(&child, &tmem);
					storage = mt ? dwarf_bytesize(mt) : 0;
				}
				bits += (uint64_t)storage * 8 - bit_off - bsize;
			}
		}
		path = layout_join(prefix, name ? name : "");
		mt = type_of(&child, &tmem);
		if (!mt) {
			free(path);
			continue;
		}
		if (bsize > 0) {
			uint64_t first = bits / 8, last = (bits + bsize - 1) / 8;

			layout_add_field(f->l, &f->cap, path,
					 (uint32_t)dwarf_dieoffset(mt),
					 (uint32_t)first,
					 (uint32_t)(last - first + 1), 0,
					 bits % 8, (uint32_t)bsize);
		} else if (dwarf_tag(mt) == DW_TAG_structure_type ||
			   dwarf_tag(mt) == DW_TAG_union_type) {
			Dwarf_Die copy = *mt;

			ret = flatten(f, &copy, bits, path, depth + 1);
		} else {
			Dwarf_Word size = 0, esize = 0;
			Dwarf_Die emem, *et;

			dwarf_aggregate_size(mt, &size);
			if (dwarf_tag(mt) == DW_TAG_array_type) {
				et = type_of(mt, &emem);
				if (et)
					dwarf_aggregate_size(et, &esize);
			}
			layout_add_field(f->l, &f->cap, path,
					 (uint32_t)dwarf_dieoffset(mt),
					 (uint32_t)(bits / 8), (uint32_t)size,
					 (uint32_t)esize, 0, 0);
		}
		free(path);
	} while (!ret && dwarf_siblingof(&child, &child) == 0);
	return ret;
}

/* A complete definition of struct or union @name in any CU. */
/*
 * Struct or union @name at a unit's top level; with @variable, the struct
 * or union type of the variable @name instead (typedefs and qualifiers
 * skipped).
 */
static bool find_type(Dwarf *dw, const char *name, bool variable,
		      Dwarf_Die *out)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, child;

		if (dwarf_offdie(dw, off + hsize, &cu) &&
		    dwarf_child(&cu, &child) == 0) {
			do {
				int tag = dwarf_tag(&child);
				Dwarf_Die mem, *t;
				const char *n;

				if (variable ? tag != DW_TAG_variable :
				    tag != DW_TAG_structure_type &&
				    tag != DW_TAG_union_type)
					continue;
				n = dwarf_diename(&child);
				if (!n || strcmp(n, name) ||
				    dwarf_hasattr(&child, DW_AT_declaration))
					continue;
				if (!variable) {
					*out = child;
					return true;
				}
				t = type_of(&child, &mem);
				if (t && (dwarf_tag(t) == DW_TAG_structure_type ||
					  dwarf_tag(t) == DW_TAG_union_type)) {
					*out = *t;
					return true;
				}
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		off = next;
	}
	return false;
}

static int from_dwarf(const char *path, const char *name, bool variable,
		      struct layout *out, char *err, size_t errlen)
{
	static const Dwfl_Callbacks callbacks = {
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.section_address = dwfl_offline_section_address,
	};
	struct dwarf_flattener f = { .l = out };
	Dwfl *dwfl = dwfl_begin(&callbacks);
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	Dwarf_Die type;
	Dwarf_Word size = 0;
	Dwarf *dw;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (!dwfl) {
		snprintf(err, errlen, "libdwfl: %s", dwfl_errmsg(-1));
		return -1;
	}
	mod = dwfl_report_offline(dwfl, "", path, -1);
	dwfl_report_end(dwfl, NULL, NULL);
	dw = mod ? dwfl_module_getdwarf(mod, &bias) : NULL;
	if (!dw) {
		snprintf(err, errlen, "%s: no DWARF (%s)", path,
			 dwfl_errmsg(-1));
		goto out;
	}
	if (!find_type(dw, name, variable, &type)) {
		snprintf(err, errlen, variable ?
			 "no variable '%s' of a struct or union type in the DWARF of %s" :
			 "no struct or union '%s' in the DWARF of %s",
			 name, path);
		goto out;
	}
	if (variable && dwarf_diename(&type))
		name = dwarf_diename(&type);
	if (flatten(&f, &type, 0, "", 0)) {
		layout_free(out);
		snprintf(err, errlen, "struct %s in %s: malformed DWARF", name,
			 path);
		goto out;
	}
	dwarf_aggregate_size(&type, &size);
	layout_finish(out, dwarf_tag(&type) == DW_TAG_union_type ? "union" :
		      "struct", name, (uint32_t)size);
	ret = 0;
out:
	dwfl_end(dwfl);
	return ret;
}

int layout_from_dwarf(const char *path, const char *name,
		      struct layout *out, char *err, size_t errlen)
{
	return from_dwarf(path, name, false, out, err, errlen);
}

int layout_var_from_dwarf(const char *path, const char *var,
			  struct layout *out, char *err, size_t errlen)
{
	return from_dwarf(path, var, true, out, err, errlen);
}

static int loader_dwarf_type(const void *src, const char *name,
			     struct layout *out, char *err, size_t errlen)
{
	return layout_from_dwarf(src, name, out, err, errlen);
}

static int loader_dwarf_var(const void *src, const char *var,
			    struct layout *out, char *err, size_t errlen)
{
	return layout_var_from_dwarf(src, var, out, err, errlen);
}

const struct layout_loader layout_dwarf_loader = {
	.what = "DWARF",
	.type = loader_dwarf_type,
	.var = loader_dwarf_var,
};

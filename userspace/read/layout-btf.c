// SPDX-License-Identifier: GPL-2.0
/*
 * Struct layouts from BTF (see layout.h).  The struct is flattened into
 * its leaf members: nested structs and unions, named or anonymous, are
 * walked into; arrays, scalars, pointers and enums are leaves.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "layout.h"
#include "util.h"

/* Deep enough for any kernel struct; guards against malformed BTF. */
#define MAX_DEPTH 32

struct flattener {
	const struct btf *btf;
	struct layout *l;
	size_t cap;
};

/* typedef, const, volatile, restrict, type_tag: what they name. */
static const struct btf_type *skip_mods(const struct btf *btf, uint32_t *id)
{
	const struct btf_type *t = btf__type_by_id(btf, *id);
	int guard = 0;

	while (t && (btf_is_mod(t) || btf_is_typedef(t)) && guard++ < 64) {
		*id = t->type;
		t = btf__type_by_id(btf, *id);
	}
	return t;
}

static void add_field(struct flattener *f, const char *path, uint32_t type_id,
		      uint32_t offset, uint32_t size, uint32_t elem_size,
		      uint32_t bit_off, uint32_t bit_size)
{
	layout_add_field(f->l, &f->cap, path, type_id, offset, size, elem_size,
			 bit_off, bit_size);
}

/*
 * The last field's alignment from its type: an array of structs of 8
 * bytes holding u32s is 4-aligned, which its size does not say.
 */
static void set_align(struct flattener *f, uint32_t type_id)
{
	int al = btf__align_of(f->btf, type_id);

	if (al > 0)
		f->l->fields[f->l->nr_fields - 1].align = (uint32_t)al;
}

static int flatten(struct flattener *f, uint32_t id, uint32_t base_bits,
		   const char *prefix, int depth)
{
	const struct btf_type *t = skip_mods(f->btf, &id);
	const struct btf_member *m;
	int i, ret = 0;

	if (!t || depth > MAX_DEPTH)
		return -1;
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t) && !ret; i++, m++) {
		uint32_t mid = m->type, bits = base_bits +
				btf_member_bit_offset(t, i);
		uint32_t bsize = btf_member_bitfield_size(t, i);
		const struct btf_type *mt = skip_mods(f->btf, &mid);
		const char *name = btf__name_by_offset(f->btf, m->name_off);
		char *path = layout_join(prefix, name ? name : "");
		long long sz;

		if (!mt) {
			free(path);
			return -1;
		}
		if (bsize) {
			uint32_t first = bits / 8, last = (bits + bsize - 1) / 8;

			add_field(f, path, mid, first, last - first + 1, 0,
				  bits % 8, bsize);
		} else if (btf_is_composite(mt)) {
			ret = flatten(f, mid, bits, path, depth + 1);
		} else {
			sz = btf__resolve_size(f->btf, mid);
			if (sz < 0)
				sz = 0;
			if (btf_is_array(mt)) {
				uint32_t eid = btf_array(mt)->type;
				long long esz = btf__resolve_size(f->btf, eid);

				add_field(f, path, mid, bits / 8, (uint32_t)sz,
					  esz > 0 ? (uint32_t)esz : 0, 0, 0);
				set_align(f, eid);
			} else {
				add_field(f, path, mid, bits / 8, (uint32_t)sz,
					  0, 0, 0);
				set_align(f, mid);
			}
		}
		free(path);
	}
	return ret;
}

int layout_from_btf(const struct btf *btf, const char *name,
		    struct layout *out, char *err, size_t errlen)
{
	struct flattener f = { .btf = btf, .l = out };
	const struct btf_type *t;
	int kind = BTF_KIND_STRUCT;
	int id = btf__find_by_name_kind(btf, name, BTF_KIND_STRUCT);

	memset(out, 0, sizeof(*out));
	if (id < 0) {
		id = btf__find_by_name_kind(btf, name, BTF_KIND_UNION);
		kind = BTF_KIND_UNION;
	}
	if (id < 0) {
		snprintf(err, errlen, "no struct or union '%s' in the BTF", name);
		return -1;
	}
	t = btf__type_by_id(btf, id);
	if (flatten(&f, id, 0, "", 0)) {
		layout_free(out);
		snprintf(err, errlen, "struct %s: malformed BTF", name);
		return -1;
	}
	layout_finish(out, kind == BTF_KIND_UNION ? "union" : "struct", name,
		      t->size);
	return 0;
}

/*
 * The variable's own type.  vmlinux BTF holds per-CPU variables only
 * unless pahole ran with global_var; DWARF then has the rest.
 */
int layout_var_from_btf(const struct btf *btf, const char *var,
			struct layout *out, char *err, size_t errlen)
{
	struct flattener f = { .btf = btf, .l = out };
	int id = btf__find_by_name_kind(btf, var, BTF_KIND_VAR);
	const struct btf_type *t;
	const char *name;
	uint32_t tid;

	memset(out, 0, sizeof(*out));
	if (id < 0) {
		snprintf(err, errlen, "no variable '%s' in the BTF", var);
		return -1;
	}
	tid = btf__type_by_id(btf, id)->type;
	t = skip_mods(btf, &tid);
	if (!t || (!btf_is_struct(t) && !btf_is_union(t))) {
		snprintf(err, errlen, "variable '%s' is not of a struct or union type",
			 var);
		return -1;
	}
	if (flatten(&f, tid, 0, "", 0)) {
		layout_free(out);
		snprintf(err, errlen, "variable %s: malformed BTF", var);
		return -1;
	}
	name = btf__name_by_offset(btf, t->name_off);
	layout_finish(out, btf_is_union(t) ? "union" : "struct",
		      name && *name ? name : var, t->size);
	return 0;
}

static int loader_btf_type(const void *src, const char *name,
			   struct layout *out, char *err, size_t errlen)
{
	return layout_from_btf(src, name, out, err, errlen);
}

static int loader_btf_var(const void *src, const char *var,
			  struct layout *out, char *err, size_t errlen)
{
	return layout_var_from_btf(src, var, out, err, errlen);
}

const struct layout_loader layout_btf_loader = {
	.what = "BTF",
	.type = loader_btf_type,
	.var = loader_btf_var,
};

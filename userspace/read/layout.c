// SPDX-License-Identifier: GPL-2.0
/*
 * Struct layouts from BTF (see layout.h).  The struct is flattened into
 * its leaf members: nested structs and unions, named or anonymous, are
 * walked into; arrays, scalars, pointers and enums are leaves.  Padding
 * is what no leaf covers, so it needs no bookkeeping of its own.
 */
#include <stdbool.h>
#include <ftw.h>
#include <stdlib.h>
#include <sys/stat.h>
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

void layout_add_field(struct layout *l, size_t *cap, const char *path,
		      uint32_t type_id, uint32_t offset, uint32_t size,
		      uint32_t elem_size, uint32_t bit_off, uint32_t bit_size)
{
	struct layout_field *lf;

	if (l->nr_fields == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		l->fields = xrealloc(l->fields, *cap * sizeof(*l->fields));
	}
	lf = &l->fields[l->nr_fields++];
	lf->offset = offset;
	lf->size = size;
	lf->elem_size = elem_size;
	lf->bit_offset = bit_off;
	lf->bit_size = bit_size;
	lf->type_id = type_id;
	lf->path = xstrdup(path);
}

static void add_field(struct flattener *f, const char *path, uint32_t type_id,
		      uint32_t offset, uint32_t size, uint32_t elem_size,
		      uint32_t bit_off, uint32_t bit_size)
{
	layout_add_field(f->l, &f->cap, path, type_id, offset, size, elem_size,
			 bit_off, bit_size);
}

char *layout_join(const char *prefix, const char *name)
{
	size_t n = strlen(prefix) + strlen(name) + 2;
	char *s = xmalloc(n);

	snprintf(s, n, "%s%s%s", prefix, *prefix && *name ? "." : "", name);
	return text_printable(s);
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
			} else {
				add_field(f, path, mid, bits / 8, (uint32_t)sz,
					  0, 0, 0);
			}
		}
		free(path);
	}
	return ret;
}

static int by_offset(const void *a, const void *b)
{
	const struct layout_field *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	/* qsort is not stable: the members' order breaks ties. */
	return x->seq < y->seq ? -1 : x->seq > y->seq;
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

void layout_finish(struct layout *out, const char *kind, const char *name,
		   uint32_t size)
{
	for (size_t i = 0; i < out->nr_fields; i++) {
		out->fields[i].seq = (uint32_t)i;
		if (out->fields[i].size > out->max_field_size)
			out->max_field_size = out->fields[i].size;
	}
	if (out->nr_fields)
		qsort(out->fields, out->nr_fields, sizeof(*out->fields),
		      by_offset);
	out->size = size;
	out->name = xmalloc(strlen(kind) + strlen(name) + 2);
	sprintf(out->name, "%s %s", kind, name);
	text_printable(out->name);
}

void layout_free(struct layout *l)
{
	size_t i;

	for (i = 0; i < l->nr_fields; i++)
		free(l->fields[i].path);
	free(l->fields);
	free(l->name);
	memset(l, 0, sizeof(*l));
}

static void append(char *buf, size_t len, size_t *pos, const char *s)
{
	int n = snprintf(buf + *pos, len - *pos, "%s", s);

	if (n > 0)
		*pos = *pos + (size_t)n < len ? *pos + (size_t)n : len - 1;
}

/* Fields [*first, *end) are the only ones that can overlap [lo_off, hi_off]. */
static void candidates(const struct layout *l, uint32_t lo_off,
		       uint32_t hi_off, size_t *first, size_t *end)
{
	size_t lo = 0, hi = l->nr_fields;
	uint32_t from;

	/* The first field starting after hi_off bounds the candidates. */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (l->fields[mid].offset <= hi_off)
			lo = mid + 1;
		else
			hi = mid;
	}
	/*
	 * Fields starting before lo_off may still cover it (a union's longer
	 * member, an array), but none starting more than the largest field's
	 * size before it.
	 */
	from = lo_off + 1 > l->max_field_size ?
	       lo_off + 1 - l->max_field_size : 0;
	*end = lo;
	*first = 0;
	hi = lo;
	while (*first < hi) {
		size_t mid = (*first + hi) / 2;

		if (l->fields[mid].offset < from)
			*first = mid + 1;
		else
			hi = mid;
	}
}

static bool covers(const struct layout_field *f, uint32_t off)
{
	return off >= f->offset && off < f->offset + f->size;
}

const struct layout_field *layout_field_at(const struct layout *l,
					   uint32_t off)
{
	const struct layout_field *best = NULL;
	size_t i, first, end;

	candidates(l, off, off, &first, &end);
	for (i = first; i < end; i++)
		if (covers(&l->fields[i], off) &&
		    (!best || l->fields[i].seq < best->seq))
			best = &l->fields[i];
	return best;
}

static const char *last_component(const char *path)
{
	const char *dot = strrchr(path, '.');

	return dot ? dot + 1 : path;
}

/*
 * Was this member already listed for this range under another path?  The
 * kernel's struct_group() declares every member twice, in an anonymous
 * struct and in a named one (sk_buff's "headers"), unioned: "pkt_type"
 * and "headers.pkt_type" are the same bytes, name and type (unlike
 * "next" and "list.next", which only share a name).
 */
static bool listed(const struct layout *l, size_t first, size_t i,
		   uint32_t off, uint32_t len)
{
	const struct layout_field *f = &l->fields[i];

	for (size_t k = first; k < i; k++) {
		const struct layout_field *g = &l->fields[k];

		if (g->offset + g->size > off && g->offset < off + len &&
		    g->offset == f->offset && g->size == f->size &&
		    g->type_id == f->type_id && g->bit_size == f->bit_size &&
		    g->bit_offset == f->bit_offset &&
		    !strcmp(last_component(g->path), last_component(f->path)))
			return true;
	}
	return false;
}

const char *layout_name_range(const struct layout *l, uint32_t off,
			      uint32_t n, char *buf, size_t len)
{
	size_t i, first, end, pos = 0;
	int found = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	if (off >= l->size) {
		snprintf(buf, len, "(beyond the struct)");
		return buf;
	}
	if (!n)
		n = 1;
	if (off + n > l->size)
		n = l->size - off;
	candidates(l, off, off + n - 1, &first, &end);
	for (i = first; i < end; i++) {
		const struct layout_field *f = &l->fields[i];
		uint32_t from = f->offset > off ? f->offset : off;
		char idx[32];

		if (!f->size || f->offset >= off + n ||
		    f->offset + f->size <= off || listed(l, first, i, off, n))
			continue;
		if (found++)
			append(buf, len, &pos, "|");
		append(buf, len, &pos, f->path);
		if (f->elem_size && f->size > f->elem_size) {
			uint32_t a = (from - f->offset) / f->elem_size;
			uint32_t b = (off + n - 1 < f->offset + f->size - 1 ?
				      off + n - 1 : f->offset + f->size - 1);

			b = (b - f->offset) / f->elem_size;
			if (a == b)
				snprintf(idx, sizeof(idx), "[%u]", a);
			else
				snprintf(idx, sizeof(idx), "[%u..%u]", a, b);
			append(buf, len, &pos, idx);
		}
	}
	if (!found)
		snprintf(buf, len, "(padding)");
	return buf;
}

/* @f's path, with the elements of [off, off + n) when it is an array. */
static void leaf_name(const struct layout_field *f, uint32_t off, uint32_t n,
		      char *buf, size_t len)
{
	uint32_t from = f->offset > off ? f->offset : off;
	uint32_t last = off + n - 1 < f->offset + f->size - 1 ?
			off + n - 1 : f->offset + f->size - 1;

	if (!f->elem_size || f->size <= f->elem_size) {
		snprintf(buf, len, "%s", f->path);
		return;
	}
	from = (from - f->offset) / f->elem_size;
	last = (last - f->offset) / f->elem_size;
	if (from == last)
		snprintf(buf, len, "%s[%u]", f->path, from);
	else
		snprintf(buf, len, "%s[%u..%u]", f->path, from, last);
}

/* Where the member @path[0, plen) lies: the span of its leaves. */
static void member_extent(const struct layout *l, const char *path,
			  size_t plen, uint32_t *from, uint32_t *to)
{
	*from = UINT32_MAX;
	*to = 0;
	for (size_t i = 0; i < l->nr_fields; i++) {
		const struct layout_field *f = &l->fields[i];

		if (strncmp(f->path, path, plen) ||
		    (f->path[plen] && f->path[plen] != '.'))
			continue;
		if (f->offset < *from)
			*from = f->offset;
		if (f->offset + f->size > *to)
			*to = f->offset + f->size;
	}
}

/*
 * The outermost member of @f's path that lies wholly in [off, off + n):
 * "d_lockref" for any of a lockref's seven leaves in its 8 bytes.  0 when
 * not even the leaf does (an array or a field larger than the span).
 */
static size_t outermost_within(const struct layout *l,
			       const struct layout_field *f, uint32_t off,
			       uint32_t n)
{
	for (size_t k = 1; ; k++) {
		uint32_t from, to;

		if (f->path[k] && f->path[k] != '.')
			continue;
		member_extent(l, f->path, k, &from, &to);
		if (from >= off && to <= off + n)
			return k;
		if (!f->path[k])
			return 0;
	}
}

const char *layout_short_range(const struct layout *l, uint32_t off,
			       uint32_t n, char *buf, size_t len)
{
	/* A slot of bitfields touches dozens of members: room for them all. */
	char names[64][128], name[128];
	size_t i, start, end, distinct = 0;

	if (!len)
		return buf;
	if (off >= l->size)
		return layout_name_range(l, off, n, buf, len);
	if (!n)
		n = 1;
	if (off + n > l->size)
		n = l->size - off;
	candidates(l, off, off + n - 1, &start, &end);
	for (i = start; i < end; i++) {
		const struct layout_field *f = &l->fields[i];
		size_t k, m;

		if (!f->size || f->offset >= off + n ||
		    f->offset + f->size <= off || listed(l, start, i, off, n))
			continue;
		k = outermost_within(l, f, off, n);
		if (k)
			snprintf(name, sizeof(name), "%.*s", (int)k, f->path);
		else	/* larger than the span: the leaf, arrays indexed */
			leaf_name(f, off, n, name, sizeof(name));
		for (m = 0; m < distinct && m < 64; m++)
			if (!strcmp(names[m], name))
				break;
		if (m < distinct && m < 64)
			continue;	/* another leaf of the same member */
		if (distinct < 64)
			memcpy(names[distinct], name, sizeof(name));
		distinct++;
	}
	if (!distinct)
		return layout_name_range(l, off, n, buf, len);
	if (distinct == 1)
		snprintf(buf, len, "%s", names[0]);
	else
		snprintf(buf, len, "%s +%zu more", names[0], distinct - 1);
	return buf;
}

const char *names_short(const char *list, char *buf, size_t len)
{
	const char *bar = strchr(list, '|'), *alt;
	size_t common, names = 1;

	if (!bar) {
		snprintf(buf, len, "%s", list);
		return buf;
	}
	common = (size_t)(bar - list);
	for (alt = bar + 1; ; alt = bar + 1) {
		size_t k = 0, n;

		bar = strchr(alt, '|');
		n = bar ? (size_t)(bar - alt) : strlen(alt);
		names++;
		while (k < common && k < n && list[k] == alt[k])
			k++;
		/* back to a member boundary of both */
		if (!((k == common || list[k] == '.') && (k == n || alt[k] == '.')))
			while (k && list[k] != '.')
				k--;
		common = k;
		if (!bar)
			break;
	}
	if (common)
		snprintf(buf, len, "%.*s (%zu names)", (int)common, list, names);
	else	/* nothing shared: the first, and how many others */
		snprintf(buf, len, "%.*s +%zu more",
			 (int)(strchr(list, '|') - list), list, names - 1);
	return buf;
}

const char *layout_name_at(const struct layout *l, uint32_t off, char *buf,
			   size_t len)
{
	return layout_name_range(l, off, 1, buf, len);
}

/*
 * Slab caches whose objects are a kernel struct of another name.  Caches
 * named like their struct (dentry, task_struct, mm_struct, ...) need no
 * entry: the lookup falls back to the cache name.
 */
static const char *const builtin_map[][2] = {
	{ "skbuff_head_cache", "sk_buff" },
	{ "skbuff_fclone_cache", "sk_buff_fclones" },
	{ "skbuff_small_head", NULL },
	{ "TCP", "tcp_sock" },
	{ "TCPv6", "tcp6_sock" },
	{ "UDP", "udp_sock" },
	{ "UDPv6", "udp6_sock" },
	{ "RAW", "raw_sock" },
	{ "PING", "inet_sock" },
	{ "request_sock_TCP", "tcp_request_sock" },
	{ "tw_sock_TCP", "tcp_timewait_sock" },
	{ "sock_inode_cache", "socket_alloc" },
	{ "filp", "file" },
	{ "inode_cache", "inode" },
	{ "vm_area_struct", "vm_area_struct" },
	{ "files_cache", "files_struct" },
	{ "signal_cache", "signal_struct" },
	{ "sighand_cache", "sighand_struct" },
	{ "fs_cache", "fs_struct" },
	{ "cred_jar", "cred" },
	{ "anon_vma_chain", "anon_vma_chain" },
	{ "pid", "pid" },
};

int type_map_add(struct type_map *m, const char *spec)
{
	const char *eq = strchr(spec, '=');

	if (!eq || eq == spec || !eq[1])
		return -1;
	m->caches = xrealloc(m->caches, (m->nr + 1) * sizeof(*m->caches));
	m->structs = xrealloc(m->structs, (m->nr + 1) * sizeof(*m->structs));
	m->caches[m->nr] = xstrdup(spec);
	m->caches[m->nr][eq - spec] = '\0';
	m->structs[m->nr] = xstrdup(eq + 1);
	m->nr++;
	return 0;
}

const char *type_map_lookup(const struct type_map *m, const char *cache)
{
	size_t i;

	for (i = m ? m->nr : 0; i-- > 0;)
		if (!strcmp(m->caches[i], cache))
			return m->structs[i];
	for (i = 0; i < sizeof(builtin_map) / sizeof(builtin_map[0]); i++)
		if (!strcmp(builtin_map[i][0], cache))
			return builtin_map[i][1];
	return NULL;
}

static struct type_map *walk_map;

static bool is_module_file(const char *path)
{
	static const char *const ends[] = { ".ko", ".ko.xz", ".ko.zst",
					    ".ko.gz" };
	size_t n = strlen(path);

	for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		size_t e = strlen(ends[i]);

		if (n > e && !strcmp(path + n - e, ends[i]))
			return true;
	}
	return false;
}

static int add_module(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_F && is_module_file(path))
		type_map_add_debug(walk_map, path);
	return 0;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void type_map_add_debug(struct type_map *m, const char *path)
{
	struct stat st;

	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		size_t from = m->nr_debug;

		/* --module-dir: every module below, in a stable order. */
		walk_map = m;
		nftw(path, add_module, 16, FTW_PHYS);
		walk_map = NULL;
		qsort(m->debug + from, m->nr_debug - from, sizeof(*m->debug),
		      str_cmp);
		return;
	}
	m->debug = xrealloc(m->debug, (m->nr_debug + 1) * sizeof(*m->debug));
	m->debug[m->nr_debug++] = xstrdup(path);
}

int layout_find(const struct btf *btf, const struct type_map *m,
		const char *name, struct layout *out, char *err, size_t errlen)
{
	char why[300];
	size_t pos;

	if (btf && !layout_from_btf(btf, name, out, err, errlen))
		return 0;
	if (!btf)
		snprintf(err, errlen, "no BTF");
	for (size_t i = 0; m && i < m->nr_debug; i++) {
		if (!layout_from_dwarf(m->debug[i], name, out, why, sizeof(why)))
			return 0;
		pos = strlen(err);
		snprintf(err + pos, errlen - pos, "; %s", why);
	}
	return -1;
}

int layout_find_var(const struct btf *btf, const struct type_map *m,
		    const char *var, struct layout *out, char *err,
		    size_t errlen)
{
	char why[300];
	size_t pos;

	if (btf && !layout_var_from_btf(btf, var, out, err, errlen))
		return 0;
	if (!btf)
		snprintf(err, errlen, "no BTF");
	for (size_t i = 0; m && i < m->nr_debug; i++) {
		if (!layout_var_from_dwarf(m->debug[i], var, out, why,
					   sizeof(why)))
			return 0;
		pos = strlen(err);
		snprintf(err + pos, errlen - pos, "; %s", why);
	}
	return -1;
}

void type_map_free(struct type_map *m)
{
	size_t i;

	for (i = 0; i < m->nr; i++) {
		free(m->caches[i]);
		free(m->structs[i]);
	}
	free(m->caches);
	free(m->structs);
	for (i = 0; i < m->nr_debug; i++)
		free(m->debug[i]);
	free(m->debug);
	memset(m, 0, sizeof(*m));
}

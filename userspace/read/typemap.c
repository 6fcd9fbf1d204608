// SPDX-License-Identifier: GPL-2.0
/* The cache -> struct map and the lookup through the loaders (typemap.h). */
#include <stdbool.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include "typemap.h"
#include "util.h"

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

/*
 * From @btf (may be NULL), else from the first debug file of @m that has
 * it; @var: a variable's type instead of a struct.  The reasons of every
 * loader that failed go to @err.
 */
static int find_layout(const struct btf *btf, const struct type_map *m,
		       bool var, const char *name, struct layout *out,
		       char *err, size_t errlen)
{
	const struct layout_loader *b = &layout_btf_loader;
	const struct layout_loader *d = &layout_dwarf_loader;
	char why[300];
	size_t pos;

	if (btf && !(var ? b->var : b->type)(btf, name, out, err, errlen))
		return 0;
	if (!btf)
		snprintf(err, errlen, "no %s", b->what);
	for (size_t i = 0; m && i < m->nr_debug; i++) {
		if (!(var ? d->var : d->type)(m->debug[i], name, out, why,
					       sizeof(why)))
			return 0;
		pos = strlen(err);
		snprintf(err + pos, errlen - pos, "; %s", why);
	}
	return -1;
}

int layout_find(const struct btf *btf, const struct type_map *m,
		const char *name, struct layout *out, char *err, size_t errlen)
{
	return find_layout(btf, m, false, name, out, err, errlen);
}

int layout_find_var(const struct btf *btf, const struct type_map *m,
		    const char *var, struct layout *out, char *err,
		    size_t errlen)
{
	return find_layout(btf, m, true, var, out, err, errlen);
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

// SPDX-License-Identifier: GPL-2.0
/* A struct's __cacheline_group_begin/end() groups (cachegroups.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cachegroups.h"
#include "util.h"

/*
 * @path's last component when it is a marker of @kind: the group's name
 * with the path before it ("sk." + "sock_read_rx"), or NULL.
 */
static char *marker(const char *path, const char *kind)
{
	const char *last = strrchr(path, '.');
	size_t pre, klen = strlen(kind);
	char *name;

	last = last ? last + 1 : path;
	if (strncmp(last, kind, klen) || !last[klen])
		return NULL;
	pre = (size_t)(last - path);
	name = xmalloc(pre + strlen(last + klen) + 1);
	memcpy(name, path, pre);
	strcpy(name + pre, last + klen);
	return name;
}

static uint32_t lines_spanned(uint32_t begin, uint32_t end, uint32_t line)
{
	return end > begin ? (end - 1) / line - begin / line + 1 : 0;
}

int cache_groups_find(const struct layout *l, uint32_t line_size,
		      struct cache_groups *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < l->nr_fields; i++) {
		const struct layout_field *f = &l->fields[i];
		struct cache_group *g;
		char *name = marker(f->path, CACHE_GROUP_BEGIN);
		size_t k;

		if (!name)
			continue;
		out->g = xrealloc(out->g, (out->n + 1) * sizeof(*out->g));
		g = &out->g[out->n++];
		memset(g, 0, sizeof(*g));
		g->name = name;
		g->begin = f->offset;
		g->end = UINT32_MAX;
		for (k = 0; k < l->nr_fields; k++) {
			char *end = marker(l->fields[k].path, CACHE_GROUP_END);
			int same = end && !strcmp(end, name);

			free(end);
			if (same) {
				g->end = l->fields[k].offset;
				break;
			}
		}
		if (g->end == UINT32_MAX || g->end < g->begin) {
			snprintf(err, errlen, "%s: group %s %s", l->name, name,
				 g->end == UINT32_MAX ? "begins and never ends" :
				 "ends before it begins");
			cache_groups_free(out);
			return -1;
		}
		for (k = 0; k < l->nr_fields; k++)
			g->members += l->fields[k].size &&
				      l->fields[k].offset >= g->begin &&
				      l->fields[k].offset < g->end;
		g->lines = lines_spanned(g->begin, g->end, line_size);
		g->fewest = (g->end - g->begin + line_size - 1) / line_size;
	}
	for (size_t i = 0; i < l->nr_fields; i++) {
		char *name = marker(l->fields[i].path, CACHE_GROUP_END);
		size_t k;

		if (!name)
			continue;
		for (k = 0; k < out->n && strcmp(out->g[k].name, name); k++)
			;
		if (k == out->n) {
			snprintf(err, errlen, "%s: group %s ends and never begins",
				 l->name, name);
			free(name);
			cache_groups_free(out);
			return -1;
		}
		free(name);
	}
	return 0;
}

void cache_groups_free(struct cache_groups *g)
{
	for (size_t i = 0; i < g->n; i++)
		free(g->g[i].name);
	free(g->g);
	memset(g, 0, sizeof(*g));
}

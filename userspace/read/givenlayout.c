// SPDX-License-Identifier: GPL-2.0
/* A layout given as advise's JSON (see givenlayout.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "givenlayout.h"
#include "util.h"

/* @key of @obj as a count below 2^32; false when absent or not one. */
static bool count_of(struct json_object *obj, const char *key, uint32_t *v)
{
	struct json_object *x;
	int64_t n;

	if (!json_object_object_get_ex(obj, key, &x) ||
	    !json_object_is_type(x, json_type_int))
		return false;
	n = json_object_get_int64(x);
	if (n < 0 || n > UINT32_MAX)
		return false;
	*v = (uint32_t)n;
	return true;
}

int given_layout_load(struct given_layout *g, const char *path, char *err,
		      size_t errlen)
{
	struct json_object *root, *members, *name;
	size_t n;

	memset(g, 0, sizeof(*g));
	root = json_object_from_file(path);
	if (!root) {
		snprintf(err, errlen, "%s: cannot read it as JSON: %s", path,
			 json_util_get_last_err());
		return -1;
	}
	if (!json_object_object_get_ex(root, "members", &members) ||
	    !json_object_is_type(members, json_type_array) ||
	    !count_of(root, "size_after", &g->size)) {
		snprintf(err, errlen, "%s: no \"members\" array or \"size_after\": not what dprof-view advise --json writes",
			 path);
		json_object_put(root);
		return -1;
	}
	n = json_object_array_length(members);
	g->names = xcalloc(n + 1, sizeof(*g->names));
	g->offs = xcalloc(n + 1, sizeof(*g->offs));
	for (size_t i = 0; i < n; i++) {
		struct json_object *m = json_object_array_get_idx(members, i);

		if (!json_object_is_type(m, json_type_object) ||
		    !json_object_object_get_ex(m, "member", &name) ||
		    !json_object_is_type(name, json_type_string) ||
		    !count_of(m, "new_offset", &g->offs[g->n])) {
			snprintf(err, errlen, "%s: members[%zu] lacks a \"member\" name or a \"new_offset\" count",
				 path, i);
			json_object_put(root);
			given_layout_free(g);
			return -1;
		}
		g->names[g->n++] = xstrdup(json_object_get_string(name));
	}
	json_object_put(root);
	if (!g->n) {
		snprintf(err, errlen, "%s: no member in \"members\"", path);
		given_layout_free(g);
		return -1;
	}
	return 0;
}

void given_layout_free(struct given_layout *g)
{
	for (size_t i = 0; i < g->n; i++)
		free(g->names[i]);
	free(g->names);
	free(g->offs);
	memset(g, 0, sizeof(*g));
}

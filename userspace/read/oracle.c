// SPDX-License-Identifier: GPL-2.0
/* The referee's JSON table (see oracle.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "oracle.h"
#include "util.h"

static uint64_t u64_of(struct json_object *obj, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(obj, key, &v))
		return 0;
	return (uint64_t)json_object_get_int64(v);
}

static int field_of(struct oracle_field *f, struct json_object *obj)
{
	struct json_object *cache, *kind;

	if (!json_object_is_type(obj, json_type_object) ||
	    !json_object_object_get_ex(obj, "cache", &cache) ||
	    !json_object_is_type(cache, json_type_string))
		return -1;
	memset(f, 0, sizeof(*f));
	f->cache = xstrdup(json_object_get_string(cache));
	f->global = json_object_object_get_ex(obj, "kind", &kind) &&
		    !strcmp(json_object_get_string(kind), "global");
	f->object_size = (uint32_t)u64_of(obj, "object_size");
	f->offset = (uint32_t)u64_of(obj, "offset");
	f->loads = u64_of(obj, "loads");
	f->stores = u64_of(obj, "stores");
	f->atomics = u64_of(obj, "atomics");
	f->rmw = u64_of(obj, "rmw");
	f->irqs_off = u64_of(obj, "irqs_off");
	f->at_alloc = u64_of(obj, "at_alloc");
	f->at_alloc_irqs_off = u64_of(obj, "at_alloc_irqs_off");
	if (f->rmw > f->stores) {	/* a store half it never counted */
		free(f->cache);
		f->cache = NULL;
		return -1;
	}
	f->compulsory = u64_of(obj, "compulsory");
	f->true_sharing = u64_of(obj, "true_sharing");
	f->false_sharing = u64_of(obj, "false_sharing");
	f->conflict = u64_of(obj, "conflict");
	f->capacity = u64_of(obj, "capacity");
	return 0;
}

static double double_of(struct json_object *obj, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(obj, key, &v))
		return 0;
	return json_object_get_double(v);
}

static int occupancy_of(struct oracle_occupancy *c, struct json_object *obj)
{
	struct json_object *cache;

	if (!json_object_is_type(obj, json_type_object) ||
	    !json_object_object_get_ex(obj, "cache", &cache) ||
	    !json_object_is_type(cache, json_type_string))
		return -1;
	c->cache = xstrdup(json_object_get_string(cache));
	c->object_size = (uint32_t)u64_of(obj, "object_size");
	c->live_objects = double_of(obj, "live_objects");
	c->touched_lines = double_of(obj, "touched_lines");
	return 0;
}

/* The occupancy array, when the table has one; -1 when malformed. */
static int load_occupancy(struct oracle *o, struct json_object *root)
{
	struct json_object *occ;
	size_t n;

	if (!json_object_object_get_ex(root, "occupancy", &occ))
		return 0;
	if (!json_object_is_type(occ, json_type_array))
		return -1;
	n = json_object_array_length(occ);
	o->occ = xcalloc(n + 1, sizeof(*o->occ));
	for (size_t i = 0; i < n; i++) {
		if (occupancy_of(&o->occ[o->nocc],
				 json_object_array_get_idx(occ, i)))
			return -1;
		o->nocc++;
	}
	return 0;
}

int oracle_load(struct oracle *o, const char *path)
{
	struct json_object *root, *fields, *measured, *v;
	size_t n;

	memset(o, 0, sizeof(*o));
	root = json_object_from_file(path);
	if (!root) {
		fprintf(stderr, "%s: referee: cannot read %s as JSON (%s): give the file the referee plugin wrote (scripts/referee.sh)\n",
			prog_name, path, json_util_get_last_err() ?
			json_util_get_last_err() : strerror(errno));
		return -1;
	}
	if (!json_object_object_get_ex(root, "referee", &v) ||
	    !json_object_object_get_ex(root, "fields", &fields) ||
	    !json_object_is_type(fields, json_type_array)) {
		fprintf(stderr, "%s: referee: %s is not the referee's table (no \"referee\" and \"fields\")\n",
			prog_name, path);
		json_object_put(root);
		return -1;
	}
	if (json_object_object_get_ex(root, "measured", &measured)) {
		struct json_object *s;

		if (json_object_object_get_ex(measured, "seconds", &s))
			o->seconds = json_object_get_double(s);
		o->accesses = u64_of(measured, "accesses");
	}
	if (json_object_object_get_ex(root, "own", &v)) {
		o->own_marked = u64_of(v, "markers") >= 2;
		o->own_objects = u64_of(v, "objects");
		o->own_accesses = u64_of(v, "accesses");
	}
	n = json_object_array_length(fields);
	o->f = xcalloc(n + 1, sizeof(*o->f));
	for (size_t i = 0; i < n; i++) {
		struct json_object *x = json_object_array_get_idx(fields, i);

		o->has_irqs_off |= json_object_is_type(x, json_type_object) &&
				   json_object_object_get_ex(x, "irqs_off", &v);
		if (field_of(&o->f[o->n], x)) {
			fprintf(stderr, "%s: referee: %s: field %zu is malformed\n",
				prog_name, path, i);
			json_object_put(root);
			oracle_free(o);
			return -1;
		}
		o->n++;
	}
	if (load_occupancy(o, root)) {
		fprintf(stderr, "%s: referee: %s: \"occupancy\" is malformed\n",
			prog_name, path);
		json_object_put(root);
		oracle_free(o);
		return -1;
	}
	json_object_put(root);
	return 0;
}

void oracle_free(struct oracle *o)
{
	for (size_t i = 0; i < o->n; i++)
		free(o->f[i].cache);
	free(o->f);
	for (size_t i = 0; i < o->nocc; i++)
		free(o->occ[i].cache);
	free(o->occ);
	memset(o, 0, sizeof(*o));
}

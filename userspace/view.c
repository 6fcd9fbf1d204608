// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "layout.h"
#include "util.h"
#include "view.h"

int view_open(const struct view_opts *o, struct recording *r, FILE **out,
	      const char *cmd)
{
	struct rec_error err;

	if (recording_load(r, o->input, &err)) {
		errmsg("%s: %s: byte %llu: %s", cmd, o->input,
		       (unsigned long long)err.offset, err.msg);
		return EXIT_USAGE;
	}
	*out = stdout;
	if (o->output) {
		*out = fopen(o->output, "w");
		if (!*out) {
			errmsg("%s: cannot write %s: %s", cmd, o->output,
			       strerror(errno));
			recording_free(r);
			return EXIT_FAIL;
		}
	}
	return 0;
}

int view_close(FILE *out, const struct view_opts *o)
{
	if (out != stdout) {
		if (fclose(out)) {
			errmsg("cannot write %s: %s", o->output,
			       strerror(errno));
			return EXIT_FAIL;
		}
	} else if (fflush(stdout)) {
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

int view_target(const struct recording *r, const char *cmd, const char *name)
{
	for (size_t t = 0; t < r->nr_targets; t++)
		if (!strcmp(r->targets[t].name, name))
			return (int)t;
	errmsg("%s: %s profiled no cache named %s", cmd, r->path, name);
	return -1;
}

struct layout **view_layouts(const struct recording *r,
			     const struct type_map *map)
{
	struct layout **l = xcalloc(r->nr_targets ? r->nr_targets : 1,
				    sizeof(*l));
	struct btf *btf = r->btf ? btf__new(r->btf, r->btf_len) : NULL;
	char err[600];

	if (libbpf_get_error(btf))
		btf = NULL;
	for (size_t t = 0; t < r->nr_targets; t++) {
		const char *s = type_map_lookup(map, r->targets[t].name);

		l[t] = xcalloc(1, sizeof(**l));
		if (layout_find(btf, map, s ? s : r->targets[t].name, l[t], err,
				sizeof(err))) {
			free(l[t]);
			l[t] = NULL;
		}
	}
	btf__free(btf);
	return l;
}

void view_layouts_free(struct layout **l, size_t n)
{
	for (size_t t = 0; t < n; t++) {
		if (l[t])
			layout_free(l[t]);
		free(l[t]);
	}
	free(l);
}

const char *view_field(struct layout *l, unsigned int off, unsigned int len,
		       char *buf, size_t n)
{
	if (!l)
		snprintf(buf, n, "+%u", off);
	else
		layout_name_range(l, off, len, buf, n);
	return buf;
}

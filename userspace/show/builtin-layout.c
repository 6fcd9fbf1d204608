// SPDX-License-Identifier: GPL-2.0
/*
 * dprof-view layout: a struct as dprof names its bytes, from a
 * recording's BTF or any BTF file (raw, like /sys/kernel/btf/vmlinux, or
 * an ELF with a .BTF section), so that the names the views print can be
 * checked against pahole.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "builtin.h"
#include "cachegroups.h"
#include "columns.h"
#include "json.h"
#include "typemap.h"
#include "profile.h"
#include "recfile.h"
#include "options.h"
#include "util.h"
#include "view.h"

struct layout_opts {
	struct view_args a;	/* -i names the recording, as the operand */
	const char *btf_path, *debug_path, *recording, *name;
	int bytes, groups;
};

static const struct opt layout_own[] = {
	{ 'b', "btf", "FILE", 0,
	  "read the BTF from FILE (raw BTF such as\n"
	  "/sys/kernel/btf/vmlinux, or an ELF with .BTF)\n"
	  "instead of a recording" },
	{ 'D', "debug", "FILE", 0,
	  "read it from FILE's DWARF (a .ko, or a vmlinux\n"
	  "with debug info) instead" },
	{ 'D', "vmlinux", "FILE", 0, "the same as --debug FILE" },
	{ 'D', "module-dir", "DIR", 0,
	  "search every module (.ko, .ko.xz, ...) below DIR" },
	{ 'B', "bytes", NULL, 0, "one line per byte: OFFSET NAME (for scripts)" },
	{ 'G', "groups", NULL, 0,
	  "the struct's cache-line groups instead: its\n"
	  "__cacheline_group_begin/end() markers (6.8 on)" },
	OPT_END,
};

static int layout_option(void *ctx, int key, const char *arg)
{
	struct layout_opts *o = ctx;

	if (key == 'b')
		o->btf_path = arg;
	else if (key == 'D')
		o->debug_path = arg;
	else if (key == 'B')
		o->bytes = 1;
	else if (key == 'G')
		o->groups = 1;
	else
		return EXIT_USAGE;
	return 0;
}

static const struct command_opts layout_cmd = {
	.cmd = "layout",
	.synopsis =
	"usage: dprof-view layout [--json|--bytes|--groups] [-o FILE] (--btf FILE | --debug FILE | RECORDING) STRUCT\n"
	"\n"
	"The leaf fields of struct STRUCT as dprof's views name them (nested and\n"
	"anonymous structs and unions walked into, arrays and bitfields kept\n"
	"whole), in offset order with cache-line boundaries and the padding\n"
	"between them.\n"
	"\n"
	"--groups: the groups the kernel marks with __cacheline_group_begin()\n"
	"and _end() (tcp_sock, sock, net_device, netns_ipv4 since 6.8), a line\n"
	"each: name (a nested struct's with its path), bytes [begin, end),\n"
	"size, the 64-byte lines the bytes span, the fewest lines they could\n"
	"take, and the members of some size inside.\n",
	.sets = OPTS_JSON,
	.own = layout_own,
	.handle = layout_option,
};

static int parse_opts(int argc, char **argv, struct layout_opts *o)
{
	int first, ret;
	bool file = false;

	memset(o, 0, sizeof(*o));
	ret = opts_parse(&layout_cmd, o, argc, argv, &o->a, &first);
	if (ret)
		return ret;
	file = o->btf_path || o->debug_path || o->a.view.input;
	if (argc - first != (file ? 1 : 2)) {
		errmsg("layout: expected %s (see --help)",
		       file ? "STRUCT after the file" :
		       "a recording and a struct name");
		return EXIT_USAGE;
	}
	o->recording = o->a.view.input;
	if (!file)
		o->recording = argv[first++];
	o->name = argv[first];
	if (!strncmp(o->name, "struct ", 7))
		o->name += 7;
	return 0;
}

/* The fields: text rows (with the padding between), JSON objects. */
enum {
	LC_OFFSET, LC_SIZE, LC_FIELD, LC_BIT_OFFSET, LC_BIT_SIZE, LC_ELEM,
	LC_N
};

static const struct column field_cols[LC_N] = {
	[LC_OFFSET] = { "offset", "offset", 0, COL_UINT, 6 },
	[LC_SIZE] = { "size", "size", 0, COL_UINT, 5 },
	[LC_FIELD] = { "field", "field", 0, COL_STR, 0, 2 },
	[LC_BIT_OFFSET] = { NULL, "bit_offset", 0, COL_UINT },
	[LC_BIT_SIZE] = { NULL, "bit_size", 0, COL_UINT },
	[LC_ELEM] = { NULL, "element_size", 0, COL_UINT },
};

/* --bytes: "BYTE FIELD" per byte of the struct. */
enum { LB_BYTE, LB_FIELD, LB_N };

static const struct column byte_cols[LB_N] = {
	[LB_BYTE] = { NULL, NULL, 1, COL_UINT },
	[LB_FIELD] = { NULL, NULL, 2, COL_STR },
};

static void field_row(const struct table *tab, const struct layout_field *f)
{
	char text[600];
	struct cell c[LC_N] = {
		[LC_OFFSET] = { .u = f->offset },
		[LC_SIZE] = { .u = f->size },
		[LC_FIELD] = { .s = f->path },
		[LC_BIT_OFFSET] = { .u = f->bit_offset, .absent = !f->bit_size },
		[LC_BIT_SIZE] = { .u = f->bit_size, .absent = !f->bit_size },
		[LC_ELEM] = { .u = f->elem_size, .absent = !f->elem_size },
	};

	if (f->bit_size) {
		snprintf(text, sizeof(text), "%s:%u (bit %u)", f->path,
			 f->bit_size, f->bit_offset);
		c[LC_FIELD].text = text;
	}
	table_row(tab, c);
}

/* --groups: a group a row. */
enum { LG_NAME, LG_BEGIN, LG_END, LG_SIZE, LG_LINES, LG_FEWEST, LG_MEMBERS,
	LG_N };

static const struct column group_cols[LG_N] = {
	[LG_NAME] = { "group", "group", 0, COL_STR, -38, 2 },
	[LG_BEGIN] = { "begin", "begin", 0, COL_UINT, 6 },
	[LG_END] = { "end", "end", 0, COL_UINT, 6 },
	[LG_SIZE] = { "size", "size", 0, COL_UINT, 5 },
	[LG_LINES] = { "lines", "lines", 0, COL_UINT, 5 },
	[LG_FEWEST] = { "fewest", "fewest", 0, COL_UINT, 6 },
	[LG_MEMBERS] = { "members", "members", 0, COL_UINT, 7 },
};

static void print_groups(FILE *out, const struct layout *l,
			 const struct cache_groups *g, bool json)
{
	struct json j;
	struct table tab = {
		.cols = group_cols, .nr_cols = LG_N,
		.mode = json ? TABLE_JSON : TABLE_TEXT, .out = out,
		.indent = "  ", .j = &j,
	};

	if (json) {
		json_init(&j, out);
		json_object_begin(&j, NULL);
		json_string(&j, "name", l->name);
		json_uint(&j, "size", l->size);
		json_array_begin(&j, "groups");
	} else {
		fprintf(out, "%s: %u bytes, %zu cache-line groups\n", l->name,
			l->size, g->n);
		if (g->n)
			table_header(&tab);
	}
	for (size_t i = 0; i < g->n; i++) {
		struct cell c[LG_N] = {
			[LG_NAME] = { .s = g->g[i].name },
			[LG_BEGIN] = { .u = g->g[i].begin },
			[LG_END] = { .u = g->g[i].end },
			[LG_SIZE] = { .u = g->g[i].end - g->g[i].begin },
			[LG_LINES] = { .u = g->g[i].lines },
			[LG_FEWEST] = { .u = g->g[i].fewest },
			[LG_MEMBERS] = { .u = g->g[i].members },
		};

		table_row(&tab, c);
	}
	if (json) {
		json_array_end(&j);
		json_object_end(&j);
		json_finish(&j);
	}
}

static void padding_row(const struct table *tab, uint32_t offset,
			uint32_t size)
{
	struct cell c[LC_N] = {
		[LC_OFFSET] = { .u = offset },
		[LC_SIZE] = { .u = size },
		[LC_FIELD] = { .s = "(padding)" },
	};

	table_row(tab, c);
}

static void print_text(FILE *out, const struct layout *l)
{
	struct table tab = {
		.cols = field_cols, .nr_cols = LC_N, .mode = TABLE_TEXT,
		.out = out, .indent = "  ",
	};
	uint32_t next = 0;
	long line = -1;

	fprintf(out, "%s: %u bytes, %u cache lines of %d\n", l->name, l->size,
		(l->size + PROFILE_LINE - 1) / PROFILE_LINE, PROFILE_LINE);
	table_header(&tab);
	for (size_t i = 0; i < l->nr_fields; i++) {
		const struct layout_field *f = &l->fields[i];

		if (f->offset > next)
			padding_row(&tab, next, f->offset - next);
		if ((long)(f->offset / PROFILE_LINE) != line) {
			line = f->offset / PROFILE_LINE;
			fprintf(out, "  --- cache line %ld ---\n", line);
		}
		field_row(&tab, f);
		if (f->offset + f->size > next)
			next = f->offset + f->size;
	}
	if (l->size > next)
		padding_row(&tab, next, l->size - next);
}

static void print_json(FILE *out, const struct layout *l)
{
	struct json j;
	struct table tab = {
		.cols = field_cols, .nr_cols = LC_N, .mode = TABLE_JSON,
		.out = out, .j = &j,
	};

	json_init(&j, out);
	json_object_begin(&j, NULL);
	json_string(&j, "name", l->name);
	json_uint(&j, "size", l->size);
	json_array_begin(&j, "fields");
	for (size_t i = 0; i < l->nr_fields; i++)
		field_row(&tab, &l->fields[i]);
	json_array_end(&j);
	json_object_end(&j);
	json_finish(&j);
}

static void print_bytes(FILE *out, const struct layout *l)
{
	struct table tab = {
		.cols = byte_cols, .nr_cols = LB_N, .mode = TABLE_SCRIPT,
		.out = out,
	};
	char name[512];

	for (uint32_t b = 0; b < l->size; b++) {
		struct cell c[LB_N] = {
			[LB_BYTE] = { .u = b },
			[LB_FIELD] = { .s = layout_name_at(l, b, name,
							 sizeof(name)) },
		};

		table_row(&tab, c);
	}
}

static struct btf *load_btf(const struct layout_opts *o, struct recording *r,
			    int *ret)
{
	struct rec_error err;
	struct btf *btf;

	*ret = EXIT_USAGE;
	if (o->btf_path) {
		btf = btf__parse(o->btf_path, NULL);
		if (libbpf_get_error(btf)) {
			errmsg("layout: %s: not raw BTF nor an ELF with a .BTF section",
			       o->btf_path);
			return NULL;
		}
		return btf;
	}
	if (recording_load(r, o->recording, &err)) {
		errmsg("%s: at byte %llu: %s", o->recording,
		       (unsigned long long)err.offset, err.msg);
		return NULL;
	}
	if (!r->btf) {
		errmsg("layout: %s holds no BTF (the recording kernel had none); use --btf FILE",
		       o->recording);
		return NULL;
	}
	btf = btf__new(r->btf, r->btf_len);
	if (libbpf_get_error(btf)) {
		errmsg("layout: %s: its BTF section is unreadable", o->recording);
		return NULL;
	}
	return btf;
}

int cmd_layout(int argc, char **argv)
{
	struct layout_opts o;
	struct recording r = { 0 };
	struct layout l;
	struct btf *btf;
	char err[600];
	FILE *out = stdout;
	int ret;

	ret = parse_opts(argc, argv, &o);
	if (ret)
		return ret;
	if (o.debug_path) {
		struct type_map map = { 0 };
		int found;

		/* A file, or a directory of modules (--module-dir). */
		type_map_add_debug(&map, o.debug_path);
		if (!map.nr_debug) {
			errmsg("layout: %s holds no kernel module (.ko)",
			       o.debug_path);
			return EXIT_USAGE;
		}
		found = map.nr_debug == 1 ?
			layout_from_dwarf(map.debug[0], o.name, &l, err,
					  sizeof(err)) :
			layout_find(NULL, &map, o.name, &l, err, sizeof(err));
		type_map_free(&map);
		if (found) {
			errmsg("layout: %s", err);
			return EXIT_USAGE;
		}
		btf = NULL;
		goto print;
	}
	btf = load_btf(&o, &r, &ret);
	if (!btf)
		goto out;
	if (layout_from_btf(btf, o.name, &l, err, sizeof(err))) {
		errmsg("layout: %s", err);
		ret = EXIT_USAGE;
		goto out_btf;
	}
print:
	ret = view_output(&o.a.view, &out, "layout");
	if (ret)
		goto out_layout;
	if (o.groups) {
		struct cache_groups g;

		if (cache_groups_find(&l, PROFILE_LINE, &g, err, sizeof(err))) {
			errmsg("layout: %s", err);
			view_close(out, &o.a.view);
			ret = EXIT_USAGE;
			goto out_layout;
		}
		print_groups(out, &l, &g, o.a.view.json);
		cache_groups_free(&g);
	} else if (o.a.view.json) {
		print_json(out, &l);
	} else if (o.bytes) {
		print_bytes(out, &l);
	} else {
		print_text(out, &l);
	}
	ret = view_close(out, &o.a.view);
out_layout:
	layout_free(&l);
out_btf:
	btf__free(btf);
out:
	recording_free(&r);	/* a no-op when none was loaded */
	return ret;
}

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
	int bytes;
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
	else
		return EXIT_USAGE;
	return 0;
}

static const struct command_opts layout_cmd = {
	.cmd = "layout",
	.synopsis =
	"usage: dprof-view layout [--json|--bytes] [-o FILE] (--btf FILE | --debug FILE | RECORDING) STRUCT\n"
	"\n"
	"The leaf fields of struct STRUCT as dprof's views name them (nested and\n"
	"anonymous structs and unions walked into, arrays and bitfields kept\n"
	"whole), in offset order with cache-line boundaries and the padding\n"
	"between them.\n",
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

static void print_text(FILE *out, const struct layout *l)
{
	uint32_t next = 0;
	long line = -1;

	fprintf(out, "%s: %u bytes, %u cache lines of %d\n", l->name, l->size,
		(l->size + PROFILE_LINE - 1) / PROFILE_LINE, PROFILE_LINE);
	fprintf(out, "  %6s %5s  %s\n", "offset", "size", "field");
	for (size_t i = 0; i < l->nr_fields; i++) {
		const struct layout_field *f = &l->fields[i];

		if (f->offset > next)
			fprintf(out, "  %6u %5u  (padding)\n", next,
				f->offset - next);
		if ((long)(f->offset / PROFILE_LINE) != line) {
			line = f->offset / PROFILE_LINE;
			fprintf(out, "  --- cache line %ld ---\n", line);
		}
		if (f->bit_size)
			fprintf(out, "  %6u %5u  %s:%u (bit %u)\n", f->offset,
				f->size, f->path, f->bit_size, f->bit_offset);
		else
			fprintf(out, "  %6u %5u  %s\n", f->offset, f->size,
				f->path);
		if (f->offset + f->size > next)
			next = f->offset + f->size;
	}
	if (l->size > next)
		fprintf(out, "  %6u %5u  (padding)\n", next, l->size - next);
}

static void print_json(FILE *out, const struct layout *l)
{
	struct json j;

	json_init(&j, out);
	json_object_begin(&j, NULL);
	json_string(&j, "name", l->name);
	json_uint(&j, "size", l->size);
	json_array_begin(&j, "fields");
	for (size_t i = 0; i < l->nr_fields; i++) {
		const struct layout_field *f = &l->fields[i];

		json_object_begin(&j, NULL);
		json_uint(&j, "offset", f->offset);
		json_uint(&j, "size", f->size);
		json_string(&j, "field", f->path);
		if (f->bit_size) {
			json_uint(&j, "bit_offset", f->bit_offset);
			json_uint(&j, "bit_size", f->bit_size);
		}
		if (f->elem_size)
			json_uint(&j, "element_size", f->elem_size);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_object_end(&j);
	json_finish(&j);
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
	char err[600], name[512];
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
	if (o.a.view.json) {
		print_json(out, &l);
	} else if (o.bytes) {
		for (uint32_t b = 0; b < l.size; b++)
			fprintf(out, "%u %s\n", b,
				layout_name_at(&l, b, name, sizeof(name)));
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

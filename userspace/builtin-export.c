// SPDX-License-Identifier: GPL-2.0
/*
 * dprof-view export: a recording in formats other tools read.  --pprof
 * writes the data profile as a gzipped pprof profile (pprof.h), for
 * pprof and the continuous profilers built on its format; --perfetto
 * writes the object histories as a Chrome JSON trace (perfetto.h), for
 * Perfetto, chrome://tracing and speedscope.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "builtin.h"
#include "histories.h"
#include "ksyms.h"
#include "layout.h"
#include "perfetto.h"
#include "pprof.h"
#include "profile.h"
#include "util.h"
#include "view.h"

static const char export_usage[] =
	"usage: dprof-view export [--pprof FILE] [--perfetto FILE] [-t CACHE] [-T CACHE=STRUCT]... [RECORDING]\n"
	"\n"
	"Writes a recording in formats that other tools read: pprof, and the\n"
	"Chrome JSON trace of Perfetto, chrome://tracing and speedscope.\n"
	"\n"
	"  --pprof FILE        the data profile as a gzipped pprof profile\n"
	"                      (profile.proto).  One sample per field and\n"
	"                      accessing instruction, its stack (leaf first)\n"
	"                      function <- CACHE.FIELD <- CACHE (struct): pprof\n"
	"                      -top lists functions, -top -cum types and\n"
	"                      fields, a flame graph reads type -> field ->\n"
	"                      function.  Values: samples; with IBS or PEBS\n"
	"                      also misses and latency (cycles; the default is\n"
	"                      misses).  Labels cache, field, offset (bytes)\n"
	"                      for -tagfocus.  With the watch sampler only\n"
	"                      samples, and a comment says misses were not\n"
	"                      measured.\n"
	"  --perfetto FILE     the object histories as a Chrome JSON trace\n"
	"                      (Perfetto, chrome://tracing, speedscope): one\n"
	"                      track per CPU, each object's life as slices,\n"
	"                      one per CPU it stayed on, its accesses as\n"
	"                      instant events named by field, its CPU changes\n"
	"                      as flow arrows.  Times in microseconds since\n"
	"                      the first allocation.\n"
	"  -t, --target CACHE  only this cache\n"
	"  -T, --type CACHE=STRUCT  name fields as STRUCT (see profile --help)\n"
	"  -D, --debug FILE    DWARF for structs the BTF lacks (profile --help)\n"
	"  -i, --input FILE    what to read (default ./dprof.data)\n"
	"  -h, --help          this text\n"
	"\n"
	"FILE - is stdout.  At least one of --pprof and --perfetto is needed.\n";

struct export_opts {
	struct view_opts view;
	const char *target;
	const char *pprof, *perfetto;
	struct type_map map;
};

enum { OPT_PPROF = 256, OPT_PERFETTO };

static int parse_opts(int argc, char **argv, struct export_opts *o)
{
	static const struct option longopts[] = {
		{ "pprof", required_argument, NULL, OPT_PPROF },
		{ "perfetto", required_argument, NULL, OPT_PERFETTO },
		{ "input", required_argument, NULL, 'i' },
		{ "target", required_argument, NULL, 't' },
		{ "type", required_argument, NULL, 'T' },
		{ "debug", required_argument, NULL, 'D' },
		{ "vmlinux", required_argument, NULL, 'D' },
		{ "module-dir", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "i:t:T:D:h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_PPROF:
			o->pprof = optarg;
			break;
		case OPT_PERFETTO:
			o->perfetto = optarg;
			break;
		case 'i':
			o->view.input = optarg;
			break;
		case 't':
			o->target = optarg;
			break;
		case 'D':
			type_map_add_debug(&o->map, optarg);
			break;
		case 'T':
			if (type_map_add(&o->map, optarg)) {
				errmsg("export: --type %s: expected CACHE=STRUCT",
				       optarg);
				return EXIT_USAGE;
			}
			break;
		case 'h':
			fputs(export_usage, stdout);
			exit(EXIT_OK);
		default:
			fputs(export_usage, stderr);
			return EXIT_USAGE;
		}
	}
	if (!o->pprof && !o->perfetto) {
		errmsg("export: say what to write: --pprof FILE and/or --perfetto FILE");
		return EXIT_USAGE;
	}
	if (o->pprof && o->perfetto && !strcmp(o->pprof, "-") &&
	    !strcmp(o->perfetto, "-")) {
		errmsg("export: --pprof - and --perfetto - would both write to stdout: name a file for one");
		return EXIT_USAGE;
	}
	return view_input(&o->view, argc - optind, argv + optind, "export");
}

/* @len bytes of @data gzipped into @path ("-": stdout). */
static int write_gzip(const char *path, const uint8_t *data, size_t len)
{
	int fd = strcmp(path, "-") ? -1 : dup(STDOUT_FILENO);
	gzFile gz = fd >= 0 ? gzdopen(fd, "wb9") : gzopen(path, "wb9");
	size_t done = 0;
	int err;

	if (!gz) {
		errmsg("export: cannot write %s: %s", path,
		       errno ? strerror(errno) : "out of memory");
		if (fd >= 0)
			close(fd);
		return EXIT_FAIL;
	}
	while (done < len) {
		unsigned int chunk = len - done > (1u << 30) ? 1u << 30 :
				     (unsigned int)(len - done);

		if (gzwrite(gz, data + done, chunk) != (int)chunk) {
			errmsg("export: writing %s: %s", path,
			       gzerror(gz, &err));
			gzclose(gz);
			return EXIT_FAIL;
		}
		done += chunk;
	}
	if (gzclose(gz) != Z_OK) {
		errmsg("export: writing %s failed (disk full?)", path);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

static int export_pprof(const struct export_opts *o,
			const struct recording *r, const struct ksyms *syms)
{
	struct pprof_meta meta = { .target = o->target };
	const char *host = recording_meta(r, "hostname");
	const char *kernel = recording_meta(r, "kernel");
	char comment[400], misses[64];
	struct pb_buf buf;
	struct profile p;
	uint64_t samples = 0;
	size_t types = 0;
	int ret;

	profile_build(r, &o->map, &p);
	for (size_t i = 0; i < p.nr_types; i++)
		if (!o->target || !strcmp(o->target, p.types[i].cache)) {
			samples += p.types[i].samples;
			types += p.types[i].samples > 0;
		}
	if (!samples) {
		errmsg("export: --pprof: %s holds no access samples%s%s (record with a sampler: sampler=ibs, pebs or watch)",
		       o->view.input, o->target ? " of " : "",
		       o->target ? o->target : "");
		profile_free(&p);
		return EXIT_USAGE;
	}
	snprintf(comment, sizeof(comment), "dprof data profile of %s; host %s; kernel %s",
		 o->view.input, host ? host : "?", kernel ? kernel : "?");
	meta.comment = comment;
	meta.duration_ns = r->end.duration_ns;
	pprof_encode(&p, syms, &meta, &buf);
	ret = write_gzip(o->pprof, buf.data, buf.len);
	if (!ret && strcmp(o->pprof, "-")) {
		if (p.misses_measured)
			snprintf(misses, sizeof(misses), "%llu misses",
				 (unsigned long long)p.misses);
		else
			snprintf(misses, sizeof(misses),
				 "misses not measured (sampler %s)", p.sampler);
		printf("pprof: %s: %zu types, %llu samples, %s\n", o->pprof,
		       types, (unsigned long long)samples, misses);
	}
	pb_buf_free(&buf);
	profile_free(&p);
	return ret;
}

static int export_perfetto(const struct export_opts *o,
			   const struct recording *r, const struct ksyms *syms)
{
	struct view_opts out_opts = { .output = o->perfetto };
	struct history_set hs;
	struct obj_trace t;
	struct layout **layouts;
	int target = -1, ret;
	FILE *out;

	if (o->target)
		for (size_t i = 0; i < r->nr_targets; i++)
			if (!strcmp(r->targets[i].name, o->target))
				target = (int)i;
	histories_build(&hs, r);
	trace_build(&hs, target, &t);
	if (!t.histories) {
		errmsg("export: --perfetto: %s holds no object histories%s%s (record with history=1, the default)",
		       o->view.input, o->target ? " of " : "",
		       o->target ? o->target : "");
		trace_free(&t);
		histories_free(&hs);
		return EXIT_USAGE;
	}
	if (strcmp(o->perfetto, "-")) {
		out = fopen(o->perfetto, "w");
		if (!out) {
			errmsg("export: cannot write %s: %s", o->perfetto,
			       strerror(errno));
			trace_free(&t);
			histories_free(&hs);
			return EXIT_FAIL;
		}
	} else {
		out = stdout;
		out_opts.output = NULL;
	}
	layouts = view_layouts(r, &o->map);
	trace_write(out, &t, r, layouts, syms);
	ret = view_close(out, &out_opts);
	if (!ret && out != stdout)
		printf("perfetto: %s: %zu histories, %zu slices, %llu CPU changes\n",
		       o->perfetto, t.histories, t.nr_slices,
		       (unsigned long long)t.flows);
	view_layouts_free(layouts, r->nr_targets);
	trace_free(&t);
	histories_free(&hs);
	return ret;
}

int cmd_export(int argc, char **argv)
{
	struct export_opts o;
	struct recording r;
	struct ksyms syms;
	FILE *stdout_only;
	int ret;

	memset(&o, 0, sizeof(o));
	ret = parse_opts(argc, argv, &o);
	if (ret)
		goto out_map;
	/* No -o: the formats name their own files. */
	ret = view_open(&o.view, &r, &stdout_only, "export");
	if (ret)
		goto out_map;
	if (o.target && view_target(&r, "export", &o.target) < 0) {
		ret = EXIT_USAGE;
		goto out;
	}
	ksyms_load(&syms, r.kallsyms);
	if (o.pprof)
		ret = export_pprof(&o, &r, &syms);
	if (!ret && o.perfetto)
		ret = export_perfetto(&o, &r, &syms);
	ksyms_free(&syms);
out:
	recording_free(&r);
out_map:
	type_map_free(&o.map);
	return ret;
}

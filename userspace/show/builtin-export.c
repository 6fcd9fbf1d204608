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
#include "typemap.h"
#include "perfetto.h"
#include "pprof.h"
#include "profile.h"
#include "options.h"
#include "util.h"
#include "view.h"

struct export_opts {
	struct view_args a;
	const char *pprof, *perfetto;
};

enum { OPT_PPROF = OPT_LONG, OPT_PERFETTO };

static const struct opt export_own[] = {
	{ OPT_PPROF, "pprof", "FILE", 0,
	  "the data profile as a gzipped pprof profile\n"
	  "(profile.proto).  One sample per field and\n"
	  "accessing instruction, its stack (leaf first)\n"
	  "function <- CACHE.FIELD <- CACHE (struct): pprof\n"
	  "-top lists functions, -top -cum types and\n"
	  "fields, a flame graph reads type -> field ->\n"
	  "function.  Values: samples; with IBS or PEBS\n"
	  "also misses and latency (cycles; the default is\n"
	  "misses).  Labels cache, field, offset (bytes)\n"
	  "for -tagfocus.  With the watch sampler only\n"
	  "samples, and a comment says misses were not\n"
	  "measured." },
	{ OPT_PERFETTO, "perfetto", "FILE", 0,
	  "the object histories as a Chrome JSON trace\n"
	  "(Perfetto, chrome://tracing, speedscope): one\n"
	  "track per CPU, each object's life as slices,\n"
	  "one per CPU it stayed on, its accesses as\n"
	  "instant events named by field, its CPU changes\n"
	  "as flow arrows.  Times in microseconds since\n"
	  "the first allocation." },
	OPT_END,
};

static int export_option(void *ctx, int key, const char *arg)
{
	struct export_opts *o = ctx;

	if (key == OPT_PPROF)
		o->pprof = arg;
	else if (key == OPT_PERFETTO)
		o->perfetto = arg;
	else
		return EXIT_USAGE;
	return 0;
}

static const struct command_opts export_cmd = {
	.cmd = "export",
	.synopsis =
	"usage: dprof-view export [--pprof FILE] [--perfetto FILE] [-t CACHE] [-T CACHE=STRUCT]... [RECORDING]\n"
	"\n"
	"Writes a recording in formats that other tools read: pprof, and the\n"
	"Chrome JSON trace of Perfetto, chrome://tracing and speedscope.\n",
	.epilogue = "FILE - is stdout.  At least one of --pprof and --perfetto is needed.\n",
	.sets = OPTS_TARGET | OPTS_TYPES | OPTS_NO_OUTPUT,
	.own = export_own,
	.handle = export_option,
};

static int parse_opts(int argc, char **argv, struct export_opts *o)
{
	int ret;

	ret = opts_parse_view(&export_cmd, o, argc, argv, &o->a);
	if (ret)
		return ret;
	if (!o->pprof && !o->perfetto) {
		errmsg("export: say what to write: --pprof FILE and/or --perfetto FILE");
		return EXIT_USAGE;
	}
	if (o->pprof && o->perfetto && !strcmp(o->pprof, "-") &&
	    !strcmp(o->perfetto, "-")) {
		errmsg("export: --pprof - and --perfetto - would both write to stdout: name a file for one");
		return EXIT_USAGE;
	}
	return 0;
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
	struct pprof_meta meta = { .target = o->a.target };
	const char *host = recording_meta(r, "hostname");
	const char *kernel = recording_meta(r, "kernel");
	char comment[400], misses[64];
	struct pb_buf buf;
	struct profile p;
	uint64_t samples = 0;
	size_t types = 0;
	int ret;

	profile_build(r, &o->a.map, &p);
	for (size_t i = 0; i < p.nr_types; i++)
		if (!o->a.target || !strcmp(o->a.target, p.types[i].cache)) {
			samples += p.types[i].samples;
			types += p.types[i].samples > 0;
		}
	if (!samples) {
		errmsg("export: --pprof: %s holds no access samples%s%s (record with a sampler: sampler=ibs, pebs or watch)",
		       o->a.view.input, o->a.target ? " of " : "",
		       o->a.target ? o->a.target : "");
		profile_free(&p);
		return EXIT_USAGE;
	}
	snprintf(comment, sizeof(comment), "dprof data profile of %s; host %s; kernel %s",
		 o->a.view.input, host ? host : "?", kernel ? kernel : "?");
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

	if (o->a.target)
		for (size_t i = 0; i < r->nr_targets; i++)
			if (!strcmp(r->targets[i].name, o->a.target))
				target = (int)i;
	histories_build(&hs, r);
	trace_build(&hs, target, &t);
	if (!t.histories) {
		errmsg("export: --perfetto: %s holds no object histories%s%s (record with history=1, the default)",
		       o->a.view.input, o->a.target ? " of " : "",
		       o->a.target ? o->a.target : "");
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
	layouts = view_layouts(r, &o->a.map);
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
	ret = view_open(&o.a.view, &r, &stdout_only, "export");
	if (ret)
		goto out_map;
	if (o.a.target && view_target(&r, "export", &o.a.target) < 0) {
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
	type_map_free(&o.a.map);
	return ret;
}

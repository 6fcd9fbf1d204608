// SPDX-License-Identifier: GPL-2.0
/*
 * dprof-view classify: per type and field, the estimated misses of the
 * recorded histories split into true sharing, false sharing, transfers
 * and first touches, with the fields and instructions whose writes caused
 * the invalidations.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "builtin.h"
#include "classify.h"
#include "json.h"
#include "ksyms.h"
#include "typemap.h"
#include "options.h"
#include "util.h"
#include "view.h"

static const struct opt classify_own[] = {
	{ 's', "script", NULL, 0,
	  "one line per field, for scripts:\n"
	  "  field CACHE OFFSET LABEL ACCESSES TRUE FALSE\n"
	  "    TRANSFERS FIRST_TOUCH WRITER_OFFSETS\n"
	  "(WRITER_OFFSETS: the distinct offsets whose\n"
	  "writes caused the labelled invalidations, or -)" },
	OPT_END,
};

static const struct command_opts classify_cmd = {
	.cmd = "classify",
	.synopsis =
	"usage: dprof-view classify [--json|--script] [-o FILE] [-t CACHE] [-T CACHE=STRUCT]... [RECORDING]\n"
	"\n"
	"Miss classification from the object access histories: each complete\n"
	"history is replayed access by access, and an access by a CPU to a\n"
	"cache line is an invalidation when that CPU had used the line earlier\n"
	"in the object's life and another CPU wrote it since (true sharing when\n"
	"the write was to the same field, false sharing when to another field\n"
	"of the line), a transfer when it is the CPU's first use of a line\n"
	"another CPU wrote (the object moving), a first touch otherwise\n"
	"(unclassified), and a hit when none applies.  A field is labelled\n"
	"true-sharing or false-sharing when at least 5% of its accesses are\n"
	"such invalidations.  These are estimates from access order, not\n"
	"measured misses; a write to another field is seen only by histories\n"
	"that watched both (history_mode=pairs).  Conflict and capacity misses\n"
	"are the working-set view's (dprof-view workingset).\n",
	.sets = OPTS_JSON | OPTS_SCRIPT | OPTS_TARGET | OPTS_TYPES,
	.own = classify_own,
};


/* Room left for "invalidated by" in a 160-column table line. */
#define CLASSIFY_WRITERS_WIDTH 45

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

/* The writers behind the label: true-sharing or false-sharing ones. */
static const struct classify_writer *writers(const struct classify_field *f)
{
	return f->label == CLASSIFY_FALSE_SHARING ? f->false_writers :
	       f->true_writers;
}

/*
 * "FIELD by FUNCTION+OFF (COUNT), ..." for the label's writers: every
 * name in full for --json; one name per field for the text table.
 */
static void writers_text(const struct classify_field *f, struct layout *l,
			 const struct ksyms *syms, bool full, char *buf,
			 size_t len)
{
	const struct classify_writer *w = writers(f);
	char name[2048], sym[160];
	size_t pos = 0;

	buf[0] = '\0';
	if (f->label == CLASSIFY_NEITHER) {
		snprintf(buf, len, "-");
		return;
	}
	for (int i = 0; i < CLASSIFY_MAX_WRITERS && w[i].count && pos < len; i++) {
		if (full)
			view_field(l, w[i].offset, f->len, name, sizeof(name));
		else if (w[i].offset != f->offset)
			view_field_short(l, w[i].offset, f->len, name,
					 sizeof(name));
		else	/* the field itself: the table row names it */
			name[0] = '\0';
		pos += snprintf(buf + pos, len - pos, "%s%s%s%s (%llu)",
				i ? ", " : "", name, name[0] ? " by " : "",
				ksyms_format(syms, w[i].ip, sym, sizeof(sym)),
				(unsigned long long)w[i].count);
	}
}

/* @s cut to @width columns, its end kept: the specific part of a name. */
static const char *fit(const char *s, size_t width, char *buf, size_t len)
{
	size_t n = strlen(s);

	if (n <= width || width < 3)
		return s;
	snprintf(buf, len, "..%s", s + n - (width - 2));
	return buf;
}

int cmd_classify(int argc, char **argv)
{
	struct view_args o;
	struct history_set hs;
	struct classify c;
	struct recording r;
	struct layout **layouts;
	struct ksyms syms;
	struct json j;
	FILE *out;
	int ret, cur = -1;
	char name[2048], wbuf[8192], fbuf[64];

	memset(&o, 0, sizeof(o));
	ret = opts_parse_view(&classify_cmd, argc, argv, &o);
	if (ret)
		goto out_map;
	ret = view_open(&o.view, &r, &out, "classify");
	if (ret)
		goto out_map;
	if (o.target && view_target(&r, "classify", &o.target) < 0) {
		view_close(out, &o.view);
		recording_free(&r);
		ret = EXIT_USAGE;
		goto out_map;
	}
	histories_build(&hs, &r);
	classify_build(&c, &hs);
	layouts = view_layouts(&r, &o.map);
	ksyms_load(&syms, r.kallsyms);
	if (o.view.json) {
		json_init(&j, out);
		json_object_begin(&j, NULL);
		json_bool(&j, "estimated", true);
		json_uint(&j, "histories", c.histories);
		json_uint(&j, "histories_not_used", c.skipped);
		json_double(&j, "label_threshold", c.threshold);
		json_array_begin(&j, "fields");
	} else if (!o.view.script) {
		fprintf(out, "miss classification, estimated from %llu complete histories (%llu others not used); label at >= %.0f%% of accesses\n",
			(unsigned long long)c.histories,
			(unsigned long long)c.skipped, 100 * c.threshold);
	}
	for (size_t i = 0; i < c.n; i++) {
		const struct classify_field *f = &c.f[i];
		const char *cache;
		struct layout *l;

		if (f->target < 0 || (size_t)f->target >= r.nr_targets)
			continue;
		cache = r.targets[f->target].name;
		l = layouts[f->target];
		if (o.target && strcmp(o.target, cache))
			continue;
		if (o.view.json || o.view.script)
			view_field(l, f->offset, f->len, name, sizeof(name));
		else
			view_field_short(l, f->offset, f->len, name,
					 sizeof(name));
		if (o.view.json) {
			json_object_begin(&j, NULL);
			json_string(&j, "cache", cache);
			json_uint(&j, "offset", f->offset);
			json_string(&j, "field", name);
			json_string(&j, "label", classify_label_name(f->label));
			json_uint(&j, "accesses", f->accesses);
			json_uint(&j, "hits", f->hits);
			json_uint(&j, "true_sharing", f->true_sharing);
			json_uint(&j, "false_sharing", f->false_sharing);
			json_uint(&j, "transfers", f->transfers);
			json_uint(&j, "first_touch", f->first_touch);
			writers_text(f, l, &syms, true, wbuf, sizeof(wbuf));
			json_string(&j, "invalidated_by", wbuf);
			json_object_end(&j);
			continue;
		}
		if (o.view.script) {
			const struct classify_writer *w = writers(f);
			size_t pos = 0;

			wbuf[0] = '\0';
			for (int k = 0; f->label != CLASSIFY_NEITHER &&
			     k < CLASSIFY_MAX_WRITERS && w[k].count; k++) {
				bool dup = false;

				for (int m = 0; m < k; m++)
					dup |= w[m].offset == w[k].offset;
				if (!dup)
					pos += snprintf(wbuf + pos,
							sizeof(wbuf) - pos,
							"%s%u", pos ? "," : "",
							w[k].offset);
			}
			fprintf(out, "field %s %u %s %llu %llu %llu %llu %llu %s\n",
				cache, f->offset, classify_label_name(f->label),
				(unsigned long long)f->accesses,
				(unsigned long long)f->true_sharing,
				(unsigned long long)f->false_sharing,
				(unsigned long long)f->transfers,
				(unsigned long long)f->first_touch,
				wbuf[0] ? wbuf : "-");
			continue;
		}
		if (f->target != cur) {
			cur = f->target;
			fprintf(out, "\n%s:\n  %6s %-32s %9s %7s %8s %8s %8s %8s  %-13s %s\n",
				cache, "offset", "field", "accesses", "hits",
				"true_shr", "false_shr", "transfer", "1st_touch",
				"label", "invalidated by");
		}
		/* Table lines stay within 160 columns; --json has it all. */
		writers_text(f, l, &syms, false, wbuf, sizeof(wbuf));
		if (strlen(wbuf) > CLASSIFY_WRITERS_WIDTH)
			strcpy(wbuf + CLASSIFY_WRITERS_WIDTH - 3, "...");
		fprintf(out, "  %6u %-32s %9llu %6.1f%% %7.1f%% %8.1f%% %7.1f%% %8.1f%%  %-13s %s\n",
			f->offset, fit(name, 32, fbuf, sizeof(fbuf)),
			(unsigned long long)f->accesses,
			pct(f->hits, f->accesses),
			pct(f->true_sharing, f->accesses),
			pct(f->false_sharing, f->accesses),
			pct(f->transfers, f->accesses),
			pct(f->first_touch, f->accesses),
			classify_label_name(f->label), wbuf);
	}
	if (o.view.json) {
		json_array_end(&j);
		json_object_end(&j);
		json_finish(&j);
	} else if (!o.view.script) {
		fprintf(out, "\nfirst touches are unclassified; for conflict and capacity misses see dprof-view workingset\n");
	}
	ret = view_close(out, &o.view);
	ksyms_free(&syms);
	view_layouts_free(layouts, r.nr_targets);
	classify_free(&c);
	histories_free(&hs);
	recording_free(&r);
out_map:
	type_map_free(&o.map);
	return ret;
}

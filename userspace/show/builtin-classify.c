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
#include "columns.h"
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
	"such invalidations, neither when both stay below 5%, each with its\n"
	"whole 95% interval; the interval comes from the histories that\n"
	"watched the field (column n: the independent units; one object's\n"
	"accesses move together), linearised for a ratio of sums.  Where an\n"
	"interval holds 5% the label is undecided, and decide says about how\n"
	"many histories in all would settle it (never: the share sits on 5%).\n"
	"A line-mate's writes are seen only by histories that watched both,\n"
	"so the false-sharing share is over those (n_false) where there are any.\n"
	"These are estimates from access order, not\n"
	"measured misses; a write to another field is seen only by histories\n"
	"that watched both (history_mode=pairs).  Conflict and capacity misses\n"
	"are the working-set view's (dprof-view workingset).\n",
	.sets = OPTS_JSON | OPTS_SCRIPT | OPTS_TARGET | OPTS_TYPES,
	.own = classify_own,
};


/* Room left for "invalidated by" in a 160-column table line. */
#define CLASSIFY_WRITERS_WIDTH 45

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

/*
 * The rows of every output, in text order.  --script: field CACHE OFFSET
 * LABEL ACCESSES TRUE FALSE TRANSFERS FIRST_TOUCH WRITER_OFFSETS
 * HISTORIES TRUE_HALF95 FALSE_HALF95 HISTORIES_TO_DECIDE
 * FALSE_HISTORIES TRUE_SHARE FALSE_SHARE (halves in percentage points, -
 * when unknown; shares as fractions: the false one over the histories
 * with a line-mate, as the text table shows it).
 */
enum {
	COL_CACHE, COL_OFFSET, COL_FIELD, COL_HISTORIES, COL_ACCESSES,
	COL_HITS, COL_TRUE, COL_TRUE_HALF, COL_FALSE, COL_FALSE_HALF,
	COL_FALSE_HISTORIES, COL_TRUE_SHARE, COL_FALSE_SHARE,
	COL_TRANSFERS, COL_FIRST, COL_LABEL, COL_DECIDE, COL_WRITERS,
	COL_WRITER_OFFSETS, NR_CLASSIFY_COLS
};

static const struct column classify_cols[NR_CLASSIFY_COLS] = {
	[COL_CACHE] = { NULL, "cache", 1, COL_STR },
	[COL_OFFSET] = { "offset", "offset", 2, COL_UINT, 6 },
	[COL_FIELD] = { "field", "field", 0, COL_STR, -32 },
	[COL_HISTORIES] = { "n", "histories", 10, COL_UINT, 5 },
	[COL_ACCESSES] = { "accesses", "accesses", 4, COL_UINT, 9 },
	[COL_HITS] = { "hits", "hits", 0, COL_PCT, 7, 0, COL_ACCESSES },
	[COL_TRUE] = { "true_shr", "true_sharing", 5, COL_PCT, 8, 0,
		       COL_ACCESSES },
	[COL_TRUE_HALF] = { "±95%", "true_sharing_half95", 11, COL_DOUBLE, 6,
			    0, 0, 1 },
	[COL_FALSE] = { "false_shr", "false_sharing", 6, COL_PCT, 9, 0,
			COL_ACCESSES },
	[COL_FALSE_HALF] = { "±95%", "false_sharing_half95", 12, COL_DOUBLE,
			     6, 0, 0, 1 },
	[COL_FALSE_HISTORIES] = { "n_false", "false_sharing_histories", 14,
				  COL_UINT, 7 },
	/* The shares the labels use, as fractions (JSON and --script). */
	[COL_TRUE_SHARE] = { NULL, "true_sharing_share", 15, COL_DOUBLE },
	[COL_FALSE_SHARE] = { NULL, "false_sharing_share", 16, COL_DOUBLE },
	[COL_TRANSFERS] = { "transfer", "transfers", 7, COL_PCT, 8, 0,
			    COL_ACCESSES },
	[COL_FIRST] = { "1st_touch", "first_touch", 8, COL_PCT, 9, 0,
			COL_ACCESSES },
	[COL_LABEL] = { "label", "label", 3, COL_STR, -13, 2 },
	[COL_DECIDE] = { "decide", "histories_to_decide", 13, COL_UINT, -9 },
	[COL_WRITERS] = { "invalidated by", "invalidated_by", 0, COL_STR },
	[COL_WRITER_OFFSETS] = { NULL, NULL, 9, COL_STR },
};

/* The strings one row's cells point to. */
struct classify_bufs {
	char name[2048], short_name[2048], fit[64];
	char true_half[16], false_half[16], decide[32], false_pct[16];
	char writers[8192], writers_short[8192], offsets[256];
};

/* The distinct offsets whose writes caused the labelled invalidations. */
static void writer_offsets(const struct classify_field *f, char *buf,
			   size_t len)
{
	const struct classify_writer *w = writers(f);
	size_t pos = 0;

	buf[0] = '\0';
	for (int k = 0; f->label != CLASSIFY_NEITHER &&
	     k < CLASSIFY_MAX_WRITERS && w[k].count; k++) {
		bool dup = false;

		for (int m = 0; m < k; m++)
			dup |= w[m].offset == w[k].offset;
		if (!dup && pos < len)
			pos += snprintf(buf + pos, len - pos, "%s%u",
					pos ? "," : "", w[k].offset);
	}
	if (!buf[0])
		snprintf(buf, len, "-");
}

/* A share's 95% half-width, in percentage points: "±4.1", or unknown. */
static void half_cell(struct cell *c, struct classify_share s, char *buf,
		      size_t len)
{
	if (s.half < 0) {
		c->null = true;
		c->text = "±?";
		return;
	}
	c->d = 100 * s.half;
	snprintf(buf, len, "±%.1f", 100 * s.half);
	c->text = buf;
}

static void classify_cells(struct cell *cells, const struct classify_field *f,
			   const char *cache, struct layout *l,
			   const struct ksyms *syms, struct classify_bufs *b)
{
	memset(cells, 0, NR_CLASSIFY_COLS * sizeof(*cells));
	view_field(l, f->offset, f->len, b->name, sizeof(b->name));
	view_field_short(l, f->offset, f->len, b->short_name,
			 sizeof(b->short_name));
	writers_text(f, l, syms, true, b->writers, sizeof(b->writers));
	/* Table lines stay within 160 columns; --json has it all. */
	writers_text(f, l, syms, false, b->writers_short,
		     sizeof(b->writers_short));
	if (strlen(b->writers_short) > CLASSIFY_WRITERS_WIDTH)
		strcpy(b->writers_short + CLASSIFY_WRITERS_WIDTH - 3, "...");
	writer_offsets(f, b->offsets, sizeof(b->offsets));
	cells[COL_CACHE].s = cache;
	cells[COL_OFFSET].u = f->offset;
	cells[COL_FIELD].s = b->name;
	cells[COL_FIELD].text = fit(b->short_name, 32, b->fit, sizeof(b->fit));
	cells[COL_ACCESSES].u = f->accesses;
	cells[COL_HITS].u = f->hits;
	cells[COL_TRUE].u = f->true_sharing;
	cells[COL_FALSE].u = f->false_sharing;
	cells[COL_TRANSFERS].u = f->transfers;
	cells[COL_FIRST].u = f->first_touch;
	half_cell(&cells[COL_TRUE_HALF], f->true_share, b->true_half,
		  sizeof(b->true_half));
	half_cell(&cells[COL_FALSE_HALF], f->false_share, b->false_half,
		  sizeof(b->false_half));
	cells[COL_HISTORIES].u = f->histories;
	cells[COL_FALSE_HISTORIES].u = f->false_histories;
	cells[COL_TRUE_SHARE].d = f->true_share.p;
	cells[COL_FALSE_SHARE].d = f->false_share.p;
	snprintf(b->false_pct, sizeof(b->false_pct), "%.1f%%",
		 100 * f->false_share.p);
	cells[COL_FALSE].text = b->false_pct;
	cells[COL_LABEL].s = classify_label_name(f->label);
	/* What would decide an undecided label; nothing for the others. */
	if (f->label != CLASSIFY_UNDECIDED) {
		cells[COL_DECIDE].absent = true;
		cells[COL_DECIDE].text = "";
	} else if (!f->histories_to_decide) {
		cells[COL_DECIDE].null = true;
		cells[COL_DECIDE].text = "never";
	} else {
		cells[COL_DECIDE].u = f->histories_to_decide;
		snprintf(b->decide, sizeof(b->decide), "~%llu",
			 (unsigned long long)f->histories_to_decide);
		cells[COL_DECIDE].text = b->decide;
	}
	cells[COL_WRITERS].s = b->writers;
	cells[COL_WRITERS].text = b->writers_short;
	cells[COL_WRITER_OFFSETS].s = b->offsets;
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
	struct table tab = {
		.cols = classify_cols, .nr_cols = NR_CLASSIFY_COLS,
		.tag = "field", .indent = "  ",
	};
	struct classify_bufs bufs;	/* one row's strings */
	FILE *out;
	int ret, cur = -1;

	memset(&o, 0, sizeof(o));
	ret = opts_parse_view(&classify_cmd, NULL, argc, argv, &o);
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
		json_double(&j, "interval_level", 0.95);
		json_uint(&j, "labels_decided", c.decided);
		json_uint(&j, "labels_undecided", c.undecided);
		json_array_begin(&j, "fields");
	} else if (!o.view.script) {
		fprintf(out, "miss classification, estimated from %llu complete histories (%llu others not used); label at >= %.0f%% of accesses\n",
			(unsigned long long)c.histories,
			(unsigned long long)c.skipped, 100 * c.threshold);
		fprintf(out, "shares with their 95%% intervals over n, the histories that watched the field (the independent units, not the accesses); a label only where its interval is on one side of the threshold, else undecided with about how many histories would decide it; %zu labels decided at once, so expect about 1 in 20 of them to sit on the wrong side by chance\n",
			c.decided);
	}
	tab.mode = o.view.json ? TABLE_JSON : o.view.script ? TABLE_SCRIPT :
		   TABLE_TEXT;
	tab.out = out;
	tab.j = &j;
	for (size_t i = 0; i < c.n; i++) {
		const struct classify_field *f = &c.f[i];
		struct cell cells[NR_CLASSIFY_COLS];
		const char *cache;
		struct layout *l;

		if (f->target < 0 || (size_t)f->target >= r.nr_targets)
			continue;
		cache = r.targets[f->target].name;
		l = layouts[f->target];
		if (o.target && strcmp(o.target, cache))
			continue;
		if (tab.mode == TABLE_TEXT && f->target != cur) {
			cur = f->target;
			fprintf(out, "\n%s:\n", cache);
			table_header(&tab);
		}
		classify_cells(cells, f, cache, l, &syms, &bufs);
		table_row(&tab, cells);
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

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
#include "combine.h"
#include "lineclass.h"
#include "paths.h"
#include "json.h"
#include "ksyms.h"
#include "typemap.h"
#include "options.h"
#include "util.h"
#include "view.h"

struct classify_opts {
	struct view_args a;
	bool fields, lines;	/* the tables to show */
	bool combined;		/* the combined traces' lines instead */
};

static const struct opt classify_own[] = {
	{ 'F', "fields", NULL, 0, "the per-field table only" },
	{ 'L', "lines", NULL, 0, "the per-line table only" },
	{ 'c', "combined", NULL, 0,
	  "per line, one life with every watched field in\n"
	  "view: the combined trace of each allocation and\n"
	  "free site replayed (history_mode=pairs)" },
	{ 's', "script", NULL, 0,
	  "one line per field and per line, for scripts:\n"
	  "  field CACHE OFFSET LABEL ACCESSES TRUE FALSE\n"
	  "    TRANSFERS FIRST_TOUCH WRITER_OFFSETS\n"
	  "    HISTORIES TRUE_HALF95 FALSE_HALF95 DECIDE\n"
	  "    FALSE_HISTORIES TRUE_SHARE FALSE_SHARE\n"
	  "    TRANSFER_HALF95 TRANSFER_SHARE TRANSFER_HISTORIES\n"
	  "  line CACHE LINE LABEL ACCESSES TRUE FALSE\n"
	  "    TRANSFERS FIRST_TOUCH HISTORIES SLOTS TOGETHER\n"
	  "    MOVED GROUP_HISTORIES MOVED_LO MOVED_HI\n"
	  "    TRUE_SHARE FALSE_SHARE TRANSFER_SHARE DECIDE\n"
	  "(WRITER_OFFSETS: the distinct offsets whose\n"
	  "writes caused the labelled invalidations, or, for\n"
	  "handoff, the moves; - for neither; halves in\n"
	  "percentage points, shares as fractions, - when\n"
	  "unknown)" },
	OPT_END,
};

static int classify_option(void *ctx, int key, const char *arg)
{
	struct classify_opts *o = ctx;

	(void)arg;
	if (key == 'c')
		o->combined = true;
	else if (key == 'F')
		o->fields = true;
	else if (key == 'L')
		o->lines = true;
	else
		return EXIT_USAGE;
	return 0;
}

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
	"such invalidations, handoff when at least 5% are transfers (and more\n"
	"than either invalidation), neither when all three stay below 5%, each\n"
	"with its whole 95% interval; the interval comes from the histories that\n"
	"watched the field (column n: the independent units; one object's\n"
	"accesses move together), linearised for a ratio of sums.  Where an\n"
	"interval holds 5% the label is undecided, and decide says about how\n"
	"many histories in all would settle it (never: the share sits on 5%).\n"
	"A line-mate's writes are seen only by histories that watched both,\n"
	"so the false-sharing share is over those (n_false) where there are any.\n"
	"A move lands on the first watched field the arriving CPU touches,\n"
	"which took the miss only if every field of the line it might touch\n"
	"first was watched too: the transfer share is over the histories that\n"
	"watched every slot of the line any history saw used (n_tr); with\n"
	"fewer than two it shows <= the share over all (a bound), the label\n"
	"leaves moves out and the line's row says whether the line moves.\n"
	"These are estimates from access order, not\n"
	"measured misses; a write to another field is seen only by histories\n"
	"that watched both (history_mode=pairs).  Conflict and capacity misses\n"
	"are the working-set view's (dprof-view workingset).\n"
	"\n"
	"A line moves once when a CPU arrives, charged to the first field that\n"
	"CPU touches; its line-mates then hit.  The per-line table adds up the\n"
	"line's watched fields, which does not depend on which field that was:\n"
	"slots (the line's slots any history watched), together (the most one\n"
	"history watched at once), and moved, the lives in which the line went\n"
	"to another CPU, for the group of slots watched together that shows it\n"
	"most (a lower bound: a CPU that touched only unwatched slots is not\n"
	"seen), with its 95% Wilson interval.  Lines count from the line of\n"
	"the object's first byte.\n"
	"\n"
	"--combined replays instead the combined trace of each allocation and\n"
	"free site (dprof-view paths --combined): one life of the whole object\n"
	"put together from the paths of every pair of offsets, so that a miss is\n"
	"charged to the first access to a line after another CPU wrote it with\n"
	"all the line's watched fields in view.  Counts are per life; the\n"
	"object gets two CPUs, switching where the paths saw a change.  Exact\n"
	"only where every pair was watched together (history_mode=pairs), no\n"
	"step was placed by time and no CPU change is unknown; the header says.\n",
	.sets = OPTS_JSON | OPTS_SCRIPT | OPTS_TARGET | OPTS_TYPES | OPTS_WIDE,
	.own = classify_own,
	.handle = classify_option,
};


/* Room left for "invalidated by" in a 160-column table line. */
/* The writers' text within 160 columns; -v prints it whole. */
#define CLASSIFY_WRITERS_WIDTH 32
#define CLASSIFY_FIELD_WIDTH 28

/* The writers behind the label: true-sharing, false-sharing, moves. */
static const struct classify_writer *writers(const struct classify_field *f)
{
	if (f->label == CLASSIFY_HANDOFF)
		return f->transfer_writers;
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
	COL_TRANSFERS, COL_TRANSFER_HALF, COL_TRANSFER_HISTORIES,
	COL_TRANSFER_SHARE, COL_FIRST,
	COL_LABEL, COL_DECIDE, COL_WRITERS, COL_WRITER_OFFSETS,
	NR_CLASSIFY_COLS
};

static const struct column classify_cols[NR_CLASSIFY_COLS] = {
	[COL_CACHE] = { NULL, "cache", 1, COL_STR },
	[COL_OFFSET] = { "offset", "offset", 2, COL_UINT, 6 },
	[COL_FIELD] = { "field", "field", 0, COL_STR, -CLASSIFY_FIELD_WIDTH },
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
				  COL_UINT, 7, .wide = true },
	/* The shares the labels use, as fractions (JSON and --script). */
	[COL_TRUE_SHARE] = { NULL, "true_sharing_share", 15, COL_DOUBLE },
	[COL_FALSE_SHARE] = { NULL, "false_sharing_share", 16, COL_DOUBLE },
	[COL_TRANSFERS] = { "transfer", "transfers", 7, COL_PCT, 8, 0,
			    COL_ACCESSES },
	[COL_TRANSFER_HALF] = { "±95%", "transfers_half95", 18, COL_DOUBLE,
				6, 0, 0, 1 },
	/* The histories that watched the field's line whole. */
	[COL_TRANSFER_HISTORIES] = { "n_tr", "transfer_histories", 20,
				     COL_UINT, 5, .wide = true },
	[COL_TRANSFER_SHARE] = { NULL, "transfers_share", 19, COL_DOUBLE },
	[COL_FIRST] = { "1st_touch", "first_touch", 8, COL_PCT, 9, 0,
			COL_ACCESSES, .wide = true },
	[COL_LABEL] = { "label", "label", 3, COL_STR, -13, 2 },
	[COL_DECIDE] = { "decide", "histories_to_decide", 13, COL_UINT, -9 },
	/* For handoff, the other CPU's last write before the line moved. */
	[COL_WRITERS] = { "caused by", "invalidated_by", 0, COL_STR },
	[COL_WRITER_OFFSETS] = { NULL, NULL, 9, COL_STR },
};

/* The strings one row's cells point to. */
struct classify_bufs {
	char name[2048], short_name[2048], fit[64];
	char true_half[16], false_half[16], transfer_half[16], decide[32];
	char false_pct[16], transfer_pct[16];
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

/* What would decide an undecided label; nothing for the others. */
static void decide_cell(struct cell *c, enum classify_label label,
			uint64_t to_decide, char *buf, size_t len)
{
	if (label != CLASSIFY_UNDECIDED) {
		c->absent = true;
		c->text = "";
	} else if (!to_decide) {
		c->null = true;
		c->text = "never";
	} else {
		c->u = to_decide;
		snprintf(buf, len, "~%llu", (unsigned long long)to_decide);
		c->text = buf;
	}
}

static void classify_cells(struct cell *cells, const struct classify_field *f,
			   const char *cache, struct layout *l,
			   const struct ksyms *syms, struct classify_bufs *b,
			   bool wide)
{
	memset(cells, 0, NR_CLASSIFY_COLS * sizeof(*cells));
	view_field(l, f->offset, f->len, b->name, sizeof(b->name));
	view_field_short(l, f->offset, f->len, b->short_name,
			 sizeof(b->short_name));
	writers_text(f, l, syms, true, b->writers, sizeof(b->writers));
	/* Table lines stay within 160 columns; --json has it all. */
	writers_text(f, l, syms, false, b->writers_short,
		     sizeof(b->writers_short));
	if (!wide && strlen(b->writers_short) > CLASSIFY_WRITERS_WIDTH)
		strcpy(b->writers_short + CLASSIFY_WRITERS_WIDTH - 3, "...");
	writer_offsets(f, b->offsets, sizeof(b->offsets));
	cells[COL_CACHE].s = cache;
	cells[COL_OFFSET].u = f->offset;
	cells[COL_FIELD].s = b->name;
	cells[COL_FIELD].text = fit(b->short_name, CLASSIFY_FIELD_WIDTH, b->fit,
				    sizeof(b->fit));
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
	half_cell(&cells[COL_TRANSFER_HALF], f->transfer_share,
		  b->transfer_half, sizeof(b->transfer_half));
	cells[COL_TRANSFER_SHARE].d = f->transfer_share.p;
	cells[COL_TRANSFER_HISTORIES].u = f->transfer_histories;
	/* Over the histories that watched the line whole; else a bound. */
	snprintf(b->transfer_pct, sizeof(b->transfer_pct), "%s%.1f%%",
		 f->transfer_share.half < 0 && f->transfers ? "<=" : "",
		 100 * f->transfer_share.p);
	cells[COL_TRANSFERS].text = b->transfer_pct;
	cells[COL_HISTORIES].u = f->histories;
	cells[COL_FALSE_HISTORIES].u = f->false_histories;
	cells[COL_TRUE_SHARE].d = f->true_share.p;
	cells[COL_FALSE_SHARE].d = f->false_share.p;
	snprintf(b->false_pct, sizeof(b->false_pct), "%.1f%%",
		 100 * f->false_share.p);
	cells[COL_FALSE].text = b->false_pct;
	cells[COL_LABEL].s = classify_label_name(f->label);
	decide_cell(&cells[COL_DECIDE], f->label, f->histories_to_decide,
		    b->decide, sizeof(b->decide));
	cells[COL_WRITERS].s = b->writers;
	cells[COL_WRITERS].text = b->writers_short;
	cells[COL_WRITER_OFFSETS].s = b->offsets;
}

/*
 * The per-line rows.  --script: line CACHE LINE LABEL ACCESSES TRUE FALSE
 * TRANSFERS FIRST_TOUCH HISTORIES SLOTS TOGETHER MOVED GROUP_HISTORIES
 * MOVED_LO MOVED_HI TRUE_SHARE FALSE_SHARE TRANSFER_SHARE DECIDE.
 */
enum {
	LCOL_CACHE, LCOL_LINE, LCOL_BYTES, LCOL_HISTORIES, LCOL_SLOTS,
	LCOL_TOGETHER, LCOL_ACCESSES, LCOL_HITS, LCOL_TRUE, LCOL_TRUE_HALF,
	LCOL_FALSE, LCOL_FALSE_HALF, LCOL_TRANSFERS, LCOL_TRANSFER_HALF,
	LCOL_FIRST, LCOL_MOVED, LCOL_GROUP_HISTORIES, LCOL_MOVED_LO,
	LCOL_MOVED_HI, LCOL_MOVED_95, LCOL_GROUP, LCOL_TRUE_SHARE,
	LCOL_FALSE_SHARE, LCOL_TRANSFER_SHARE, LCOL_LABEL, LCOL_DECIDE,
	NR_LINE_COLS
};

static const struct column line_cols[NR_LINE_COLS] = {
	[LCOL_CACHE] = { NULL, "cache", 1, COL_STR },
	[LCOL_LINE] = { "line", "line", 2, COL_UINT, 4 },
	[LCOL_BYTES] = { "bytes", NULL, 0, COL_STR, -7 },
	[LCOL_HISTORIES] = { "n", "histories", 9, COL_UINT, 5 },
	[LCOL_SLOTS] = { "slots", "slots_watched", 10, COL_UINT, 5 },
	[LCOL_TOGETHER] = { "tog", "most_together", 11, COL_UINT, 3 },
	[LCOL_ACCESSES] = { "accesses", "accesses", 4, COL_UINT, 9 },
	[LCOL_HITS] = { "hits", "hits", 0, COL_PCT, 7, 0, LCOL_ACCESSES },
	[LCOL_TRUE] = { "true_shr", "true_sharing", 5, COL_PCT, 8, 0,
			LCOL_ACCESSES },
	[LCOL_TRUE_HALF] = { "±95%", "true_sharing_half95", 0, COL_DOUBLE,
			     6, 0, 0, 1 },
	[LCOL_FALSE] = { "false_shr", "false_sharing", 6, COL_PCT, 9, 0,
			 LCOL_ACCESSES },
	[LCOL_FALSE_HALF] = { "±95%", "false_sharing_half95", 0, COL_DOUBLE,
			      6, 0, 0, 1 },
	[LCOL_TRANSFERS] = { "transfer", "transfers", 7, COL_PCT, 8, 0,
			     LCOL_ACCESSES },
	[LCOL_TRANSFER_HALF] = { "±95%", "transfers_half95", 0, COL_DOUBLE,
				 6, 0, 0, 1 },
	[LCOL_FIRST] = { "1st_touch", "first_touch", 8, COL_PCT, 9, 0,
			 LCOL_ACCESSES },
	[LCOL_MOVED] = { "moved", "moved", 12, COL_UINT, 9 },
	[LCOL_GROUP_HISTORIES] = { NULL, "moved_of", 13, COL_UINT },
	[LCOL_MOVED_LO] = { NULL, "moved_lo95", 14, COL_DOUBLE },
	[LCOL_MOVED_HI] = { NULL, "moved_hi95", 15, COL_DOUBLE },
	[LCOL_MOVED_95] = { "95%", NULL, 0, COL_STR, 9 },
	[LCOL_GROUP] = { NULL, "moved_group", 0, COL_STR },
	[LCOL_TRUE_SHARE] = { NULL, "true_sharing_share", 16, COL_DOUBLE },
	[LCOL_FALSE_SHARE] = { NULL, "false_sharing_share", 17, COL_DOUBLE },
	[LCOL_TRANSFER_SHARE] = { NULL, "transfers_share", 18, COL_DOUBLE },
	[LCOL_LABEL] = { "label", "label", 3, COL_STR, -13, 2 },
	[LCOL_DECIDE] = { "decide", "histories_to_decide", 19, COL_UINT, -9 },
};

struct line_bufs {
	char bytes[32], true_half[16], false_half[16], transfer_half[16];
	char false_pct[16], moved[32], moved95[32], group[64], decide[32];
};

static void line_cells(struct cell *cells, const struct classify_line *l,
		       const char *cache, struct line_bufs *b)
{
	const struct classify_group *g = l->nr_groups ?
					 &l->group[l->best_group] : NULL;
	int n = 0;

	memset(cells, 0, NR_LINE_COLS * sizeof(*cells));
	cells[LCOL_CACHE].s = cache;
	cells[LCOL_LINE].u = l->line;
	snprintf(b->bytes, sizeof(b->bytes), "%u-%u",
		 l->line * CLASSIFY_LINE, l->line * CLASSIFY_LINE + 63);
	cells[LCOL_BYTES].s = b->bytes;
	cells[LCOL_HISTORIES].u = l->histories;
	cells[LCOL_SLOTS].u = l->slots_watched;
	cells[LCOL_TOGETHER].u = l->most_together;
	cells[LCOL_ACCESSES].u = l->accesses;
	cells[LCOL_HITS].u = l->hits;
	cells[LCOL_TRUE].u = l->true_sharing;
	cells[LCOL_FALSE].u = l->false_sharing;
	snprintf(b->false_pct, sizeof(b->false_pct), "%.1f%%",
		 100 * l->false_share.p);
	cells[LCOL_FALSE].text = b->false_pct;
	cells[LCOL_TRANSFERS].u = l->transfers;
	cells[LCOL_FIRST].u = l->first_touch;
	half_cell(&cells[LCOL_TRUE_HALF], l->true_share, b->true_half,
		  sizeof(b->true_half));
	half_cell(&cells[LCOL_FALSE_HALF], l->false_share, b->false_half,
		  sizeof(b->false_half));
	half_cell(&cells[LCOL_TRANSFER_HALF], l->transfer_share,
		  b->transfer_half, sizeof(b->transfer_half));
	cells[LCOL_TRUE_SHARE].d = l->true_share.p;
	cells[LCOL_FALSE_SHARE].d = l->false_share.p;
	cells[LCOL_TRANSFER_SHARE].d = l->transfer_share.p;
	if (g) {
		cells[LCOL_MOVED].u = g->moved;
		cells[LCOL_GROUP_HISTORIES].u = g->histories;
		snprintf(b->moved, sizeof(b->moved), "%llu/%llu",
			 (unsigned long long)g->moved,
			 (unsigned long long)g->histories);
		cells[LCOL_MOVED].text = b->moved;
		cells[LCOL_MOVED_LO].d = l->moved_lo;
		cells[LCOL_MOVED_HI].d = l->moved_hi;
		snprintf(b->moved95, sizeof(b->moved95), "%.0f-%.0f%%",
			 100 * l->moved_lo, 100 * l->moved_hi);
		cells[LCOL_MOVED_95].s = b->moved95;
		b->group[0] = '\0';
		for (int k = 0; k < DPROF_HIST_MAX_OFFSETS &&
		     g->offset[k] != 0xffff; k++)
			n += snprintf(b->group + n, sizeof(b->group) - n,
				      "%s%u", k ? "," : "", g->offset[k]);
		cells[LCOL_GROUP].s = b->group;
	} else {
		cells[LCOL_MOVED].null = cells[LCOL_GROUP_HISTORIES].null = true;
		cells[LCOL_MOVED_LO].null = cells[LCOL_MOVED_HI].null = true;
		cells[LCOL_MOVED_95].null = cells[LCOL_GROUP].null = true;
	}
	cells[LCOL_LABEL].s = classify_label_name(l->label);
	decide_cell(&cells[LCOL_DECIDE], l->label, l->histories_to_decide,
		    b->decide, sizeof(b->decide));
}

/* The lines of @target, as a table (text: under the type's fields). */
static void show_lines(const struct classify *c, int target,
		       const char *cache, struct table *tab, FILE *out)
{
	struct line_bufs b;
	bool header = false;

	for (size_t i = 0; i < c->nl; i++) {
		struct cell cells[NR_LINE_COLS];

		if (c->l[i].target != target)
			continue;
		if (tab->mode == TABLE_TEXT && !header) {
			fprintf(out, "\n  %s per cache line (moved: lives in which the line went to another CPU, a lower bound):\n",
				cache);
			table_header(tab);
			header = true;
		}
		line_cells(cells, &c->l[i], cache, &b);
		table_row(tab, cells);
	}
}

/* The per-life lines of the combined traces; --script: cline rows. */
enum {
	CCOL_CACHE, CCOL_RANK, CCOL_LINE, CCOL_BYTES, CCOL_FIELDS,
	CCOL_ACCESSES, CCOL_HITS, CCOL_TRUE, CCOL_FALSE, CCOL_TRANSFERS,
	CCOL_FIRST, NR_COMBINED_COLS
};

static const struct column combined_cols[NR_COMBINED_COLS] = {
	[CCOL_CACHE] = { NULL, "cache", 1, COL_STR },
	[CCOL_RANK] = { NULL, "rank", 2, COL_UINT },
	[CCOL_LINE] = { "line", "line", 3, COL_UINT, 4 },
	[CCOL_BYTES] = { "bytes", NULL, 0, COL_STR, -7 },
	[CCOL_FIELDS] = { "fields", "fields", 4, COL_UINT, 6 },
	[CCOL_ACCESSES] = { "accesses", "accesses", 5, COL_UINT, 9 },
	[CCOL_HITS] = { "hits", "hits", 6, COL_UINT, 6 },
	[CCOL_TRUE] = { "true_shr", "true_sharing", 7, COL_UINT, 8 },
	[CCOL_FALSE] = { "false_shr", "false_sharing", 8, COL_UINT, 9 },
	[CCOL_TRANSFERS] = { "transfer", "transfers", 9, COL_UINT, 8 },
	[CCOL_FIRST] = { "1st_touch", "first_touch", 10, COL_UINT, 9 },
};

static void show_combined(const struct recording *r, const char *target,
			  const struct lineclass_set *ls,
			  const struct ksyms *syms, FILE *out,
			  enum table_mode mode, struct json *j)
{
	struct table tab = {
		.cols = combined_cols, .nr_cols = NR_COMBINED_COLS,
		.tag = "cline", .indent = "    ", .mode = mode, .out = out,
		.j = j,
	};
	char alloc[160], free_site[160], bytes[32];
	size_t rank = 0;
	int cur = -1;

	if (mode == TABLE_JSON)
		json_array_begin(j, "combined");
	for (size_t i = 0; i < ls->n; i++) {
		const struct lineclass_trace *lt = &ls->t[i];
		const struct combined_trace *t = lt->t;
		const char *cache;

		if (t->target < 0 || (size_t)t->target >= r->nr_targets)
			continue;
		cache = r->targets[t->target].name;
		if (target && strcmp(target, cache))
			continue;
		rank = t->target == cur ? rank + 1 : 1;
		cur = t->target;
		ksyms_format(syms, t->alloc_site, alloc, sizeof(alloc));
		ksyms_format(syms, t->free_site, free_site, sizeof(free_site));
		if (mode == TABLE_TEXT) {
			fprintf(out, "\n%s, combined trace %zu: allocated by %s, freed by %s\n",
				cache, rank, alloc, free_site);
			fprintf(out, "one life: %llu histories, %zu paths, %zu of %zu offset pairs together, %zu steps placed by time, %zu CPU changes unknown; %s\n",
				(unsigned long long)t->histories_used,
				t->paths_used, t->pairs_watched, t->pairs,
				t->by_time, lt->unknown_cpu,
				lt->exact ? "exact" :
				"approximate (history_mode=pairs: exact)");
			table_header(&tab);
		} else if (mode == TABLE_SCRIPT) {
			fprintf(out, "ctrace %s %zu %llu %zu %d %zu %zu %zu %zu\n",
				cache, rank,
				(unsigned long long)t->histories_used,
				t->paths_used, lt->exact, lt->unknown_cpu,
				t->by_time, t->pairs_watched, t->pairs);
		} else {
			json_object_begin(j, NULL);
			json_string(j, "cache", cache);
			json_uint(j, "rank", rank);
			json_string(j, "allocated_by", alloc);
			json_string(j, "freed_by", free_site);
			json_uint(j, "histories", t->histories_used);
			json_uint(j, "paths", t->paths_used);
			json_uint(j, "pairs", t->pairs);
			json_uint(j, "pairs_watched", t->pairs_watched);
			json_uint(j, "steps_by_time", t->by_time);
			json_uint(j, "cpu_changes_unknown", lt->unknown_cpu);
			json_bool(j, "exact", lt->exact);
			json_array_begin(j, "lines");
		}
		for (size_t k = 0; k < lt->nr_lines; k++) {
			const struct lineclass_line *l = &lt->lines[k];
			struct cell c[NR_COMBINED_COLS];

			memset(c, 0, sizeof(c));
			c[CCOL_CACHE].s = cache;
			c[CCOL_RANK].u = rank;
			c[CCOL_LINE].u = l->line;
			snprintf(bytes, sizeof(bytes), "%u-%u",
				 l->line * CLASSIFY_LINE,
				 l->line * CLASSIFY_LINE + 63);
			c[CCOL_BYTES].s = bytes;
			c[CCOL_FIELDS].u = l->fields;
			c[CCOL_ACCESSES].u = l->accesses;
			c[CCOL_HITS].u = l->hits;
			c[CCOL_TRUE].u = l->true_sharing;
			c[CCOL_FALSE].u = l->false_sharing;
			c[CCOL_TRANSFERS].u = l->transfers;
			c[CCOL_FIRST].u = l->first_touch;
			table_row(&tab, c);
		}
		if (mode == TABLE_JSON) {
			json_array_end(j);
			json_object_end(j);
		}
	}
	if (mode == TABLE_JSON)
		json_array_end(j);
	else if (mode == TABLE_TEXT && !rank)
		fprintf(out, "\nno combined trace: no family of paths watched two offsets or more\n");
}

/* The fields of @target, as a table under its name. */
static void show_fields(const struct classify *c, int target,
			const char *cache, struct layout *l,
			const struct ksyms *syms, struct table *tab, FILE *out)
{
	struct classify_bufs *bufs = xmalloc(sizeof(*bufs));
	bool header = false;

	for (size_t i = 0; i < c->n; i++) {
		struct cell cells[NR_CLASSIFY_COLS];

		if (c->f[i].target != target)
			continue;
		if (tab->mode == TABLE_TEXT && !header) {
			fprintf(out, "\n%s:\n", cache);
			table_header(tab);
			header = true;
		}
		classify_cells(cells, &c->f[i], cache, l, syms, bufs,
			       tab->wide);
		table_row(tab, cells);
	}
	free(bufs);
}

int cmd_classify(int argc, char **argv)
{
	struct classify_opts o;
	struct history_set hs;
	struct classify c;
	struct recording r;
	struct layout **layouts;
	struct ksyms syms;
	struct json j;
	struct table fields = {
		.cols = classify_cols, .nr_cols = NR_CLASSIFY_COLS,
		.tag = "field", .indent = "  ",
	};
	struct table lines = {
		.cols = line_cols, .nr_cols = NR_LINE_COLS,
		.tag = "line", .indent = "  ",
	};
	FILE *out;
	int ret;

	memset(&o, 0, sizeof(o));
	ret = opts_parse_view(&classify_cmd, &o, argc, argv, &o.a);
	if (ret)
		goto out_map;
	if (!o.fields && !o.lines)
		o.fields = o.lines = true;
	ret = view_open(&o.a.view, &r, &out, "classify");
	if (ret)
		goto out_map;
	if (o.a.target && view_target(&r, "classify", &o.a.target) < 0) {
		view_close(out, &o.a.view);
		recording_free(&r);
		ret = EXIT_USAGE;
		goto out_map;
	}
	histories_build(&hs, &r);
	classify_build(&c, &hs);
	classify_cover(&c, r.plans, r.nr_plans);
	layouts = view_layouts(&r, &o.a.map);
	ksyms_load(&syms, r.kallsyms);
	if (o.a.view.json) {
		json_init(&j, out);
		json_object_begin(&j, NULL);
		json_bool(&j, "estimated", true);
		json_uint(&j, "histories", c.histories);
		json_uint(&j, "histories_not_used", c.skipped);
		json_uint(&j, "histories_unaligned", c.unaligned);
		json_double(&j, "label_threshold", c.threshold);
		json_double(&j, "interval_level", 0.95);
		json_uint(&j, "labels_decided", c.decided);
		json_uint(&j, "labels_undecided", c.undecided);
		json_uint(&j, "line_labels_decided", c.lines_decided);
		json_uint(&j, "line_labels_undecided", c.lines_undecided);
		/* null: the recording has no plans (older than the section). */
		if (r.nr_plans) {
			json_uint(&j, "offsets_planned", c.planned);
			json_uint(&j, "offsets_without_histories", c.unwatched);
		} else {
			json_null(&j, "offsets_planned");
			json_null(&j, "offsets_without_histories");
		}
	} else if (!o.a.view.script && !o.combined) {
		fprintf(out, "miss classification, estimated from %llu complete histories (%llu others not used); label at >= %.0f%% of accesses\n",
			(unsigned long long)c.histories,
			(unsigned long long)c.skipped, 100 * c.threshold);
		fprintf(out, "95%% intervals over n histories; %zu field and %zu line labels decided, about 1 in 20 of them on the wrong side by chance\n",
			c.decided, c.lines_decided);
		if (c.unaligned)
			fprintf(out, "%llu histories watched objects not aligned to a 64-byte line: their lines hold other fields than an aligned object's\n",
				(unsigned long long)c.unaligned);
		if (r.nr_plans)
			fprintf(out, "coverage: %zu offsets planned, %zu without a complete history (rows with n 0: record longer, or with --until covered=N or --until decided)\n",
				c.planned, c.unwatched);
		else
			fprintf(out, "coverage: the recording has no history plans (an older dprof-view recorded it): offsets no history watched are not listed\n");
	}
	fields.wide = lines.wide = o.a.view.wide;
	fields.mode = lines.mode = o.a.view.json ? TABLE_JSON :
				   o.a.view.script ? TABLE_SCRIPT : TABLE_TEXT;
	fields.out = lines.out = out;
	fields.j = lines.j = &j;
	if (o.combined) {
		struct path_set ps;
		struct combined_set cs;
		struct lineclass_set ls;

		paths_build(&ps, &r, &hs);
		combine_build(&cs, &ps);
		lineclass_build(&ls, &cs);
		if (!o.a.view.json && !o.a.view.script)
			fprintf(out, "combined traces per cache line: counts per life, every watched field of the line in view\n");
		show_combined(&r, o.a.target, &ls, &syms, out, fields.mode,
			      &j);
		lineclass_free(&ls);
		combine_free(&cs);
		paths_free(&ps);
		o.fields = o.lines = false;
	}
	/* JSON: every type's fields, then every type's lines. */
	for (int pass = 0; pass < (o.a.view.json ? 2 : 1); pass++) {
		bool do_fields = o.fields && (!o.a.view.json || pass == 0);
		bool do_lines = o.lines && (!o.a.view.json || pass == 1);

		if (o.a.view.json && (do_fields || do_lines))
			json_array_begin(&j, pass ? "lines" : "fields");
		for (size_t t = 0; t < r.nr_targets; t++) {
			const char *cache = r.targets[t].name;

			if (o.a.target && strcmp(o.a.target, cache))
				continue;
			if (do_fields)
				show_fields(&c, (int)t, cache, layouts[t],
					    &syms, &fields, out);
			if (do_lines)
				show_lines(&c, (int)t, cache, &lines, out);
		}
		if (o.a.view.json && (do_fields || do_lines))
			json_array_end(&j);
	}
	if (o.a.view.json) {
		json_object_end(&j);
		json_finish(&j);
	} else if (!o.a.view.script) {
		fprintf(out, "\nfirst touches are unclassified; for conflict and capacity misses see dprof-view workingset\n");
	}
	ret = view_close(out, &o.a.view);
	ksyms_free(&syms);
	view_layouts_free(layouts, r.nr_targets);
	classify_free(&c);
	histories_free(&hs);
	recording_free(&r);
out_map:
	type_map_free(&o.a.map);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * dprof-view advise: a layout proposal for one type from its histories,
 * printed as pahole prints a struct, with a diff against today's order
 * and the what-if of the proposal (analyse/advise.h).
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "advise.h"
#include "advise-paths.h"
#include "advise-header.h"
#include "builtin.h"
#include "classify.h"
#include "columns.h"
#include "givenlayout.h"
#include "json.h"
#include "ksyms.h"
#include "objects.h"
#include "options.h"
#include "paths.h"
#include "util.h"
#include "view.h"
#include "workingset.h"

#define MAX_PINS 32

enum {
	OPT_LINE = OPT_LONG, OPT_PIN, OPT_LAYOUT, OPT_AGAINST, OPT_CHECK,
	OPT_PATH, OPT_BY_PATH, OPT_MIN_SAMPLES, OPT_HEADER,
};

struct advise_opts {
	struct view_args a;
	const char *cache;
	long line;
	const char *pins[MAX_PINS + 1];
	size_t npins;
	const char *layout;	/* --layout: advise's JSON, a layout given */
	const char *against;	/* --against: another build's BTF or DWARF */
	bool check;		/* --check: exit 1 when misses grow */
	/* by hot path: --path rules, --by-path, --min-samples */
	struct fastpath_rule rules[FASTPATH_MAX_PATHS];
	size_t nrules;
	bool by_path;
	long min_samples;
	const char *header;	/* --header: the struct's header, for a patch */
};

/* The what-if beyond the totals (issue "From diagnosis to fix", item 2). */
#define ADVISE_PATHS 5

struct advise_extras {
	/* the type's objects live on average (workingset); < 0 unknown */
	double objects;
	/* the most common paths: histories, steps, lines today and after */
	size_t npaths, all_paths;
	struct {
		uint64_t count;
		size_t steps;
		unsigned int before, after, before_128, after_128;
	} path[ADVISE_PATHS];
};

/* The guard of --check: the given layout's misses against today's. */
struct advise_guard {
	uint64_t before, after;	/* true + false sharing + transfers */
	double half;		/* 95 % half-width of after - before */
	bool grows;		/* after - before beyond it */
};

static const struct opt advise_own[] = {
	{ OPT_LINE, "line", "BYTES", 0,
	  "the unit of false sharing: 64 (default), or 128\n"
	  "where adjacent-line prefetch pairs lines" },
	{ OPT_PIN, "pin", "MEMBER", 0,
	  "keep MEMBER at its offset (repeatable; members\n"
	  "declared ____cacheline_aligned, which BTF does not\n"
	  "show, and members an ABI fixes)" },
	{ OPT_LAYOUT, "layout", "FILE", 0,
	  "replay a layout given instead of the proposal: FILE\n"
	  "is advise --json's output, its members' new_offset\n"
	  "edited to a person's idea" },
	{ OPT_AGAINST, "against", "FILE", 0,
	  "replay the struct as another build lays it out:\n"
	  "FILE a .ko or vmlinux with DWARF, or BTF (raw, or an\n"
	  "ELF's .BTF), of the build to come" },
	{ OPT_PATH, "path", "NAME=FUNC[,FUNC]", 0,
	  "by hot path: a path NAME begun by the functions\n"
	  "given (repeatable, e.g. tx=tcp_sendmsg); a sample\n"
	  "is on the path of the innermost such function on\n"
	  "its call chain, else on \"other\"" },
	{ OPT_BY_PATH, "by-path", NULL, 0,
	  "by hot path, the paths named by their kernel entry\n"
	  "(the default when the type's samples carry call\n"
	  "chains and none of its histories is complete)" },
	{ OPT_MIN_SAMPLES, "min-samples", "N", 0,
	  "by hot path: samples a path needs in a member to\n"
	  "use it (default 3)" },
	{ OPT_HEADER, "header", "FILE", 0,
	  "by hot path: print the proposal as a patch of the\n"
	  "struct's definition in FILE (its header, e.g.\n"
	  "include/linux/tcp.h), instead of the report; the\n"
	  "members one declaration or #if block holds move\n"
	  "together (with --json: that proposal's report)" },
	{ OPT_CHECK, "check", NULL, 0,
	  "with --layout or --against: exit 1 when the layout's\n"
	  "replayed misses (true + false sharing + transfers)\n"
	  "exceed today's beyond the 95% interval (a layout\n"
	  "regression caught before it ships)" },
	OPT_END,
};

static int advise_option(void *ctx, int key, const char *arg)
{
	struct advise_opts *o = ctx;

	switch (key) {
	case OPT_LINE:
		if (opts_count("advise", "line", arg, 16, &o->line))
			return EXIT_USAGE;
		if (o->line > 4096 || (o->line & (o->line - 1))) {
			errmsg("advise: --line %s: a power of two of 16 to 4096 bytes",
			       arg);
			return EXIT_USAGE;
		}
		return 0;
	case OPT_PIN:
		if (o->npins == MAX_PINS) {
			errmsg("advise: at most %d --pin", MAX_PINS);
			return EXIT_USAGE;
		}
		o->pins[o->npins++] = arg;
		return 0;
	case OPT_LAYOUT:
		o->layout = arg;
		return 0;
	case OPT_AGAINST:
		o->against = arg;
		return 0;
	case OPT_CHECK:
		o->check = true;
		return 0;
	case OPT_PATH: {
		char err[256];

		if (o->nrules == FASTPATH_MAX_PATHS) {
			errmsg("advise: at most %d --path", FASTPATH_MAX_PATHS);
			return EXIT_USAGE;
		}
		if (fastpath_rule_parse(&o->rules[o->nrules], arg, err,
					sizeof(err))) {
			errmsg("advise: %s", err);
			return EXIT_USAGE;
		}
		o->nrules++;
		return 0;
	}
	case OPT_BY_PATH:
		o->by_path = true;
		return 0;
	case OPT_MIN_SAMPLES:
		return opts_count("advise", "min-samples", arg, 1,
				  &o->min_samples) ? EXIT_USAGE : 0;
	case OPT_HEADER:
		o->header = arg;
		return 0;
	default:
		return EXIT_USAGE;
	}
}

static const struct command_opts advise_cmd = {
	.cmd = "advise",
	.synopsis =
	"usage: dprof-view advise [--json] [-o FILE] [--line BYTES] [--pin MEMBER]...\n"
	"                         [--layout FILE | --against FILE [--check]]\n"
	"                         [--by-path | --path NAME=FUNC[,FUNC]...] [--min-samples N]\n"
	"                         [--header FILE]\n"
	"                         [-T CACHE=STRUCT] [-D FILE] [RECORDING] CACHE\n"
	"\n"
	"A field order for CACHE's struct, proposed from the recording's\n"
	"complete histories: members written by the allocating CPU, read-mostly\n"
	"members and members written by other CPUs each on lines of their own\n"
	"(false sharing gone, readers away from writers), members written by\n"
	"both (true sharing, which no layout removes) apart, hot members first\n"
	"in each group so that a path touches few lines, cold and unwatched\n"
	"members after, filling a group's last line before any padding is\n"
	"added.  Unions, bitfield runs and nested structs move as units; a\n"
	"flexible array stays last.  Printed as pahole prints a struct (offset,\n"
	"size, holes, line boundaries), with a diff of the member order against\n"
	"today's, and the what-if: the histories replayed at the proposed\n"
	"offsets through classify's estimates (true and false sharing,\n"
	"transfers, lines a life touches), before and after, with the pairs of\n"
	"slots the proposal puts on one line that no history watched together\n"
	"(where the what-if cannot see false sharing).  Estimates: the roles\n"
	"rest on the histories that watched each member (n).\n"
	"\n"
	"The members' table, per life (the mean over the n histories that\n"
	"watched the member): accesses, writes and reads by the allocating CPU\n"
	"and by others; wshare: each side's writes over the accesses, +- its\n"
	"95% interval (the histories as units).  A side writes a member when\n"
	"the whole interval is at 5% or more, does not when it is below, and\n"
	"the role is undecided (packed as written by both: a line of its own\n"
	"side) when the interval straddles it.  A union's or bitfield run's\n"
	"members read \"first +N more\" (-v: all of them).\n"
	"\n"
	"With --layout or --against the what-if replays that layout instead of\n"
	"the proposal; with --check too, the exit status is 1 when its misses\n"
	"grow beyond the interval: a guard for a kernel tree's CI, the\n"
	"recording from the old build, the layout from the new one.\n"
	"\n"
	"By hot path (--path, --by-path, or by default when the type's samples\n"
	"carry call chains, callchain=N, and none of its histories is\n"
	"complete: a long-lived object such as a socket): each sample is put\n"
	"on a path, named by --path's functions (the innermost on its chain)\n"
	"or by its kernel entry (__x64_sys_sendto, net_rx_action, a kthread's\n"
	"function).  The members' table, as the networking maintainers write\n"
	"it (Documentation/networking/net_cachelines/): per hot path, the use\n"
	"of each member and its samples there: read_mostly when the 95%\n"
	"interval of its stores' share is under 5%, read_write when it is at\n"
	"5% or more, a '?' when it straddles 5% (packed by the share itself:\n"
	"read_mostly? as read, read_write? as written), - under --min-samples;\n"
	"then the functions.  With the module loaded with ops=FUNC[,FUNC]\n"
	"(a kprobe counts each function's calls), each path's operations are\n"
	"the calls of the first function of its --path rule (by entry: of its\n"
	"own function) the recording counted, printed on the operations line,\n"
	"and a second table gives each member's loads and stores per million\n"
	"of its path's operations with their 95% Poisson interval: samples,\n"
	"not accesses; times the instructions between two ticks (operand\n"
	"sampler under -icount, one vCPU) or the events between two samples\n"
	"(IBS, PEBS), accesses.  As many paths as fit 160 columns (-v: all).\n"
	"The proposal groups the members\n"
	"in the kernel's convention, <struct>_read_<paths> then\n"
	"<struct>_write_<paths> (the paths that use it; written when one\n"
	"writes it), a group on a fresh line only when that saves a line; the\n"
	"rest after, in today's order.  A first member that is a struct (the\n"
	"kernel's inheritance) keeps offset 0.  Printed as the struct with\n"
	"__cacheline_group_begin/end() markers and a *_struct_check() with\n"
	"the CACHELINE_ASSERT_GROUP_MEMBER() and _SIZE() lines; then the\n"
	"distinct lines holding each hot path's sampled offsets, at 64 and\n"
	"128 bytes: today, proposed, and with --against in that build.  With\n"
	"--against and --check, the exit status is 1 when a member a hot path\n"
	"uses lay inside a group of the recorded build's struct and lies\n"
	"outside that group in the other build (or the group is gone), each\n"
	"named: the check CACHELINE_ASSERT_GROUP_MEMBER() makes, from a\n"
	"measurement.  With --header FILE (the struct's header, from the\n"
	"tree's top), the output is the proposal as a patch of its definition\n"
	"(patch -p1): declarations move with their comments, an #if block of\n"
	"declarations alone is parted, one with #else or a #define moves\n"
	"whole, and the proposal keeps the members it holds together.\n",
	.sets = OPTS_JSON | OPTS_TYPES | OPTS_WIDE,
	.own = advise_own,
	.handle = advise_option,
};

static int parse_opts(int argc, char **argv, struct advise_opts *o)
{
	int first, ret;

	ret = opts_parse(&advise_cmd, o, argc, argv, &o->a, &first);
	if (ret)
		return ret;
	if (argc - first < 1) {
		errmsg("advise: expected a cache name, e.g. dprof-view advise filp (see --help)");
		return EXIT_USAGE;
	}
	o->cache = argv[argc - 1];
	if (o->layout && o->against) {
		errmsg("advise: --layout and --against each give the layout to replay: one of them");
		return EXIT_USAGE;
	}
	if (o->by_path && o->nrules) {
		errmsg("advise: --by-path names the paths by their entry, --path by functions: one of them");
		return EXIT_USAGE;
	}
	if (o->layout && (o->by_path || o->nrules)) {
		errmsg("advise: by hot path, the layout to compare comes from --against");
		return EXIT_USAGE;
	}
	if (o->check && !o->layout && !o->against) {
		errmsg("advise: --check judges a layout given by --layout or --against");
		return EXIT_USAGE;
	}
	return view_input(&o->a.view, argc - first - 1, argv + first, "advise");
}

/* Units in increasing new (or old) offset. */
static size_t *sorted(const struct advise *a, bool new)
{
	size_t *v = xcalloc(a->nu + 1, sizeof(*v));

	for (size_t i = 0; i < a->nu; i++)
		v[i] = i;
	for (size_t i = 1; i < a->nu; i++)
		for (size_t k = i; k > 0; k--) {
			const struct advise_unit *x = &a->u[v[k - 1]];
			const struct advise_unit *y = &a->u[v[k]];
			uint32_t ox = new ? x->new_off : x->old_off;
			uint32_t oy = new ? y->new_off : y->old_off;

			if (new && x->gone != y->gone) {
				if (y->gone)
					break;	/* the gone go last */
			} else if (ox < oy || (ox == oy && !x->flex)) {
				break;
			}
			v[k - 1] ^= v[k];
			v[k] ^= v[k - 1];
			v[k - 1] ^= v[k];
		}
	return v;
}

static const struct advise_pad *pad_at(const struct advise *a, uint32_t off)
{
	for (size_t i = 0; i < a->npads; i++)
		if (a->pads[i].off == off)
			return &a->pads[i];
	return NULL;
}

/*
 * A unit's name for a text line: a union's or bitfield run's members
 * as "first +N more", cut to @width (the whole list with -v, and in
 * --json).
 */
#define UNIT_NAME_WIDTH 32

static const char *unit_label(const struct advise_unit *u, bool wide,
			      char *buf, size_t len)
{
	const char *comma = strchr(u->name, ',');
	size_t more = 0;

	if (wide || (!comma && strlen(u->name) <= UNIT_NAME_WIDTH))
		return u->name;
	for (const char *c = comma; c; c = strchr(c + 1, ','))
		more++;
	if (more)
		snprintf(buf, len, "%.*s +%zu more",
			 (int)(comma - u->name) > UNIT_NAME_WIDTH - 10 ?
			 UNIT_NAME_WIDTH - 10 : (int)(comma - u->name),
			 u->name, more);
	else
		snprintf(buf, len, "%.*s...", UNIT_NAME_WIDTH - 3, u->name);
	return buf;
}

/* The struct as pahole prints it, at the proposal's (or today's) offsets. */
static void print_struct(FILE *out, const struct advise *a, const char *name,
			 bool new, bool wide)
{
	char label[64];

	size_t *v = sorted(a, new);
	uint32_t at = 0, line = 0, size = new ? a->new_size : a->old_size;
	int group = -2;

	fprintf(out, "%s {\n", name);
	for (size_t k = 0; k < a->nu; k++) {
		const struct advise_unit *u = &a->u[v[k]];
		uint32_t off = new ? u->new_off : u->old_off;
		const struct advise_pad *p = new ? pad_at(a, at) : NULL;

		if (new && u->gone)
			break;	/* last: not in the given layout */

		if (p) {
			fprintf(out, "\n\t/* XXX %u bytes of padding: %s apart from %s */\n",
				p->size, p->before, p->after);
			at += p->size;
		}
		if (off > at)
			fprintf(out, "\n\t/* XXX %u bytes hole */\n", off - at);
		while (off >= (line + 1) * a->line && off < size) {
			line++;
			fprintf(out, "\t/* --- cacheline %u boundary (%u bytes) --- */\n",
				line, line * a->line);
		}
		if (new && !a->given && u->group != group && !u->flex &&
		    !u->pinned) {
			fprintf(out, "\t/* %s */\n",
				advise_group_name(a->strategy, u->group));
			group = u->group;
		}
		fprintf(out, "\t%-40s /* %5u %5u%s%s */\n",
			unit_label(u, wide, label, sizeof(label)), off, u->size,
			u->pinned ? " pinned" : "", u->flex ? " flexible" : "");
		if (off + u->size > at)
			at = off + u->size;
	}
	if (size > at)
		fprintf(out, "\n\t/* XXX %u bytes tail padding */\n", size - at);
	fprintf(out, "\n\t/* size: %u, cachelines: %u */\n};\n", size,
		(size + a->line - 1) / a->line);
	free(v);
}

/*
 * A unified diff of the member order (longest common subsequence);
 * members a given layout lacks are only on today's side.
 */
static void print_diff(FILE *out, const struct advise *a, bool wide)
{
	size_t *x = sorted(a, false), *y = sorted(a, true), n = a->nu, m = 0;
	size_t *lcs, w, i = 0, j = 0;
	char label[64];

	while (m < n && !a->u[y[m]].gone)
		m++;		/* sorted() puts the gone last */
	w = m + 1;
	lcs = xcalloc((n + 1) * w, sizeof(*lcs));
	for (size_t p = n; p-- > 0;)
		for (size_t q = m; q-- > 0;)
			lcs[p * w + q] = x[p] == y[q] ?
				lcs[(p + 1) * w + q + 1] + 1 :
				lcs[(p + 1) * w + q] > lcs[p * w + q + 1] ?
				lcs[(p + 1) * w + q] : lcs[p * w + q + 1];
	fprintf(out, "--- today\n+++ %s\n@@ -1,%zu +1,%zu @@\n",
		a->given ? "given" : "proposed", n, m);
	while (i < n || j < m) {
		if (i < n && j < m && x[i] == y[j]) {
			fprintf(out, " %s\n", unit_label(&a->u[x[i]], wide,
							 label, sizeof(label)));
			i++, j++;
		} else if (j < m && (i == n || lcs[i * w + j + 1] >=
					       lcs[(i + 1) * w + j])) {
			fprintf(out, "+%s\n", unit_label(&a->u[y[j]], wide,
							 label, sizeof(label)));
			j++;
		} else {
			fprintf(out, "-%s\n", unit_label(&a->u[x[i]], wide,
							 label, sizeof(label)));
			i++;
		}
	}
	free(lcs);
	free(x);
	free(y);
}

enum {
	AC_NAME, AC_OLD, AC_NEW, AC_SIZE, AC_ACC, AC_WA, AC_WB, AC_RA, AC_RB,
	AC_N, AC_SHA, AC_HALFA, AC_SHB, AC_HALFB, AC_ROLE, NR_ADVISE_COLS
};

static const struct column unit_cols[NR_ADVISE_COLS] = {
	[AC_NAME] = { "member", "member", 0, COL_STR, -32 },
	[AC_OLD] = { "today", "old_offset", 0, COL_UINT, 6 },
	[AC_NEW] = { "proposed", "new_offset", 0, COL_UINT, 8 },
	[AC_SIZE] = { "size", "size", 0, COL_UINT, 5 },
	[AC_ACC] = { "acc/life", "accesses_per_life", 0, COL_DOUBLE, 8, 0, 0,
		     2 },
	[AC_WA] = { "wr_alloc", "writes_allocating_cpu", 0, COL_DOUBLE, 8, 0,
		    0, 2 },
	[AC_WB] = { "wr_other", "writes_other_cpus", 0, COL_DOUBLE, 8, 0, 0,
		    2 },
	[AC_RA] = { "rd_alloc", "reads_allocating_cpu", 0, COL_DOUBLE, 8, 0,
		    0, 2 },
	[AC_RB] = { "rd_other", "reads_other_cpus", 0, COL_DOUBLE, 8, 0, 0,
		    2 },
	[AC_N] = { "n", "histories", 0, COL_UINT, 5 },
	/* text: "share% +-half" of each side's writes over the accesses */
	[AC_SHA] = { "wshare_alloc", "write_share_allocating_cpu", 0,
		     COL_DOUBLE, 14, 1, 0, 4 },
	[AC_HALFA] = { NULL, "write_share_allocating_cpu_half95", 0,
		       COL_DOUBLE, 0, 0, 0, 4 },
	[AC_SHB] = { "wshare_other", "write_share_other_cpus", 0, COL_DOUBLE,
		     14, 1, 0, 4 },
	[AC_HALFB] = { NULL, "write_share_other_cpus_half95", 0, COL_DOUBLE,
		       0, 0, 0, 4 },
	[AC_ROLE] = { "role", "role", 0, COL_STR, 0, 2 },
};

/* "12.5% +-3.1" (or "12.5% +-?" without an interval) into @buf. */
static const char *share_text(char *buf, size_t len, double share,
			      double half)
{
	if (half < 0)
		snprintf(buf, len, "%.1f%% +-?", 100 * share);
	else
		snprintf(buf, len, "%.1f%% +-%.1f", 100 * share, 100 * half);
	return buf;
}

enum {
	WC_NAME, WC_TRUE_B, WC_FALSE_B, WC_XFER_B, WC_TRUE_A, WC_FALSE_A,
	WC_XFER_A, NR_WHATIF_COLS
};

/* The what-if per member, at 64-byte lines: today, and after (proposed or given). */
static const struct column whatif_cols[NR_WHATIF_COLS] = {
	[WC_NAME] = { "member", "member", 0, COL_STR, -32 },
	[WC_TRUE_B] = { "today_true", "true_sharing_today", 0, COL_UINT, 11 },
	[WC_FALSE_B] = { "today_false", "false_sharing_today", 0, COL_UINT,
			 12 },
	[WC_XFER_B] = { "today_xfer", "transfers_today", 0, COL_UINT, 11 },
	[WC_TRUE_A] = { "after_true", "true_sharing_after", 0, COL_UINT, 11,
			3 },
	[WC_FALSE_A] = { "after_false", "false_sharing_after", 0, COL_UINT,
			 12 },
	[WC_XFER_A] = { "after_xfer", "transfers_after", 0, COL_UINT, 11 },
};

/* A member's misses in the replay: true + false sharing + transfers. */
static uint64_t unit_misses(const struct advise_totals *t)
{
	return t->true_sharing + t->false_sharing + t->transfers;
}

/*
 * Members with a miss in either replay, in today's order; the number of
 * members accessed without any is returned.
 */
static size_t whatif_rows(const struct table *t, const struct advise *a,
			  const struct advise_whatif *w)
{
	size_t quiet = 0;

	for (size_t i = 0; i < a->nu; i++) {
		const struct advise_totals *b = &w->unit_before[i];
		const struct advise_totals *f = &w->unit_after[i];
		struct cell c[NR_WHATIF_COLS] = { 0 };
		char label[64];

		if (!unit_misses(b) && !unit_misses(f)) {
			quiet += b->accesses || f->accesses;
			continue;
		}
		c[WC_NAME].s = a->u[i].name;
		c[WC_NAME].text = unit_label(&a->u[i], t->wide, label,
					     sizeof(label));
		c[WC_TRUE_B].u = b->true_sharing;
		c[WC_FALSE_B].u = b->false_sharing;
		c[WC_XFER_B].u = b->transfers;
		c[WC_TRUE_A].u = f->true_sharing;
		c[WC_FALSE_A].u = f->false_sharing;
		c[WC_XFER_A].u = f->transfers;
		table_row(t, c);
	}
	return quiet;
}

/* Bytes of the type's working set: objects x lines a life x line. */
static double ws_bytes(const struct advise_extras *x, double lines,
		       unsigned int line)
{
	return x->objects * lines * line;
}

static void extras_json(struct json *j, const struct advise *a,
			const struct advise_whatif *w,
			const struct advise_extras *x)
{
	struct table t = {
		.cols = whatif_cols, .nr_cols = NR_WHATIF_COLS,
		.mode = TABLE_JSON, .j = j,
	};

	json_array_begin(j, "members");
	whatif_rows(&t, a, w);
	json_array_end(j);
	if (x->objects >= 0) {
		json_object_begin(j, "working_set_bytes");
		json_double(j, "objects", x->objects);
		json_double(j, "before", ws_bytes(x, w->before[0].lines_per_life, 64));
		json_double(j, "after", ws_bytes(x, w->after[0].lines_per_life, 64));
		json_double(j, "before_128", ws_bytes(x, w->before[1].lines_per_life, 128));
		json_double(j, "after_128", ws_bytes(x, w->after[1].lines_per_life, 128));
		json_object_end(j);
	} else {
		json_null(j, "working_set_bytes");
	}
	json_uint(j, "paths", x->all_paths);
	json_array_begin(j, "top_paths");
	for (size_t i = 0; i < x->npaths; i++) {
		json_object_begin(j, NULL);
		json_uint(j, "histories", x->path[i].count);
		json_uint(j, "steps", x->path[i].steps);
		json_uint(j, "lines_before", x->path[i].before);
		json_uint(j, "lines_after", x->path[i].after);
		json_uint(j, "lines_before_128", x->path[i].before_128);
		json_uint(j, "lines_after_128", x->path[i].after_128);
		json_object_end(j);
	}
	json_array_end(j);
}

static void extras_text(FILE *out, const struct advise *a,
			const struct advise_whatif *w,
			const struct advise_extras *x, bool wide)
{
	struct table t = {
		.cols = whatif_cols, .nr_cols = NR_WHATIF_COLS,
		.mode = TABLE_TEXT, .out = out, .indent = "  ", .wide = wide,
	};
	const char *after = a->given ? "given" : "proposed";

	if (x->objects >= 0)
		fprintf(out, "  %-22s %10.0f %10.0f %10.0f %10.0f\n",
			"working set, bytes", ws_bytes(x, w->before[0].lines_per_life, 64),
			ws_bytes(x, w->after[0].lines_per_life, 64),
			ws_bytes(x, w->before[1].lines_per_life, 128),
			ws_bytes(x, w->after[1].lines_per_life, 128));
	else
		fprintf(out, "  working set, bytes: not known (the recording has no cache geometry or no lives of the type)\n");
	if (x->objects >= 0)
		fprintf(out, "  (%.1f objects live on average, as workingset counts them, times the lines a life touches)\n",
			x->objects);
	fprintf(out, "\nper member, at 64-byte lines (a replayed access counts for the member whose bytes it touched): today, then %s\n",
		after);
	size_t quiet;

	table_header(&t);
	quiet = whatif_rows(&t, a, w);
	if (quiet)
		fprintf(out, "  (and %zu members accessed without a miss in either replay)\n",
			quiet);
	fprintf(out, "\nlines a path touches, today -> %s at 64 and at 128 bytes (the %zu most common of %zu paths; paths: the histories with the same steps):\n",
		after, x->npaths, x->all_paths);
	for (size_t i = 0; i < x->npaths; i++)
		fprintf(out, "  path %zu: %llu histories, %zu steps: %u -> %u lines, %u -> %u pairs of lines\n",
			i + 1, (unsigned long long)x->path[i].count,
			x->path[i].steps, x->path[i].before, x->path[i].after,
			x->path[i].before_128, x->path[i].after_128);
}

static void unit_rows(const struct table *t, const struct advise *a)
{
	for (size_t k = 0; k < a->nu; k++) {
		const struct advise_unit *u = &a->u[k];
		struct cell c[NR_ADVISE_COLS];
		char ta[32], tb[32], label[64];

		memset(c, 0, sizeof(c));
		c[AC_NAME].s = u->name;
		c[AC_NAME].text = unit_label(u, t->wide, label, sizeof(label));
		c[AC_OLD].u = u->old_off;
		c[AC_NEW].u = u->new_off;
		c[AC_NEW].null = u->gone;
		c[AC_SIZE].u = u->size;
		c[AC_ACC].d = u->accesses;
		c[AC_WA].d = u->writes_a;
		c[AC_WB].d = u->writes_b;
		c[AC_RA].d = u->reads_a;
		c[AC_RB].d = u->reads_b;
		c[AC_N].u = u->histories;
		c[AC_SHA].d = u->share_a;
		c[AC_SHA].text = share_text(ta, sizeof(ta), u->share_a,
					    u->half_a);
		c[AC_HALFA].d = u->half_a;
		c[AC_SHB].d = u->share_b;
		c[AC_SHB].text = share_text(tb, sizeof(tb), u->share_b,
					    u->half_b);
		c[AC_HALFB].d = u->half_b;
		c[AC_HALFA].null = u->half_a < 0;
		c[AC_HALFB].null = u->half_b < 0;
		c[AC_ACC].null = c[AC_WA].null = c[AC_WB].null =
			c[AC_RA].null = c[AC_RB].null = c[AC_SHA].null =
			c[AC_SHB].null = c[AC_HALFA].null = c[AC_HALFB].null =
			u->role == ADVISE_UNWATCHED || u->role == ADVISE_COLD;
		c[AC_ROLE].s = advise_role_name(u->role);
		table_row(t, c);
	}
}

static uint64_t misses_of(const struct advise_candidate *c)
{
	return c->totals.true_sharing + c->totals.false_sharing +
	       c->totals.transfers;
}

static void totals_json(struct json *j, const char *key,
			const struct advise_totals *t)
{
	json_object_begin(j, key);
	json_uint(j, "accesses", t->accesses);
	json_uint(j, "true_sharing", t->true_sharing);
	json_uint(j, "false_sharing", t->false_sharing);
	json_uint(j, "transfers", t->transfers);
	json_double(j, "lines_per_life", t->lines_per_life);
	json_object_end(j);
}

static void report_json(FILE *out, const struct advise *a,
			const struct advise_whatif *w, const char *cache,
			const char *type, const struct advise_guard *g,
			const struct advise_extras *x)
{
	struct json j;
	struct table t = {
		.cols = unit_cols, .nr_cols = NR_ADVISE_COLS,
		.mode = TABLE_JSON, .out = out, .j = &j,
	};

	json_init(&j, out);
	json_object_begin(&j, NULL);
	json_bool(&j, "estimated", true);
	json_double(&j, "write_share_threshold", ADVISE_WRITE_SHARE);
	json_string(&j, "cache", cache);
	json_string(&j, "type", type);
	json_uint(&j, "line", a->line);
	json_uint(&j, "histories", a->histories);
	json_uint(&j, "size_before", a->old_size);
	json_uint(&j, "size_after", a->new_size);
	json_bool(&j, "same_order", a->same_order);
	json_string(&j, "strategy", advise_strategy_name(a->strategy));
	json_array_begin(&j, "candidates");
	for (enum advise_strategy st = 0; st < ADVISE_NR_STRATEGIES; st++) {
		json_object_begin(&j, NULL);
		json_string(&j, "strategy", advise_strategy_name(st));
		totals_json(&j, "replayed", &a->cand[st].totals);
		json_uint(&j, "mixed_write_lines", a->cand[st].mixed_lines);
		json_uint(&j, "size", a->cand[st].size);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_uint(&j, "mixed_write_lines_before", a->mixed_lines_before);
	json_uint(&j, "mixed_write_lines_after", a->mixed_lines_after);
	json_array_begin(&j, "members");
	unit_rows(&t, a);
	json_array_end(&j);
	json_array_begin(&j, "padding");
	for (size_t i = 0; i < a->npads; i++) {
		json_object_begin(&j, NULL);
		json_uint(&j, "offset", a->pads[i].off);
		json_uint(&j, "size", a->pads[i].size);
		json_string(&j, "before", a->pads[i].before);
		json_string(&j, "after", a->pads[i].after);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_object_begin(&j, "whatif");
	totals_json(&j, "before", &w->before[0]);
	totals_json(&j, "after", &w->after[0]);
	totals_json(&j, "before_128", &w->before[1]);
	totals_json(&j, "after_128", &w->after[1]);
	json_uint(&j, "slot_pairs_on_one_line", w->line_pairs);
	json_uint(&j, "slot_pairs_never_watched_together", w->unseen_pairs);
	extras_json(&j, a, w, x);
	json_object_end(&j);
	if (a->given)
		json_string(&j, "given", a->given);
	else
		json_null(&j, "given");
	json_array_begin(&j, "not_in_given");
	for (size_t i = 0; i < a->nu; i++)
		if (a->u[i].gone)
			json_string(&j, NULL, a->u[i].name);
	json_array_end(&j);
	json_uint(&j, "not_in_given_accesses", w->gone_accesses);
	if (g) {
		json_object_begin(&j, "check");
		json_uint(&j, "misses_today", g->before);
		json_uint(&j, "misses_given", g->after);
		json_double(&j, "growth_half95", g->half);
		json_bool(&j, "grows", g->grows);
		json_object_end(&j);
	}
	json_object_end(&j);
	json_finish(&j);
}

/* One count of the what-if, today and proposed, at 64 and 128. */
static void whatif_row(FILE *out, const char *what,
		       const struct advise_whatif *w, size_t at)
{
	const struct advise_totals *v[4] = {
		&w->before[0], &w->after[0], &w->before[1], &w->after[1],
	};

	fprintf(out, "  %-22s", what);
	for (int k = 0; k < 4; k++)
		fprintf(out, " %10llu", (unsigned long long)
			*(const uint64_t *)((const char *)v[k] + at));
	fputc('\n', out);
}

/* The members a given layout lacks, ", " between, into @buf. */
static const char *gone_names(const struct advise *a, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = 0;
	for (size_t i = 0; i < a->nu && at + 1 < len; i++)
		if (a->u[i].gone)
			at += (size_t)snprintf(buf + at, len - at, "%s%s",
					       at ? ", " : "", a->u[i].name);
	return buf;
}

static void report_text(FILE *out, const struct advise *a,
			const struct advise_whatif *w, const char *cache,
			const char *type, const struct advise_guard *g,
			const struct advise_extras *x, bool wide)
{
	char names[1024];

	struct table t = {
		.cols = unit_cols, .nr_cols = NR_ADVISE_COLS,
		.mode = TABLE_TEXT, .out = out, .indent = "  ", .wide = wide,
	};

	fprintf(out, "advise %s (%s), estimated from %llu complete histories; lines of %u bytes\n",
		type, cache, (unsigned long long)a->histories, a->line);
	fprintf(out, "per member, the mean of a life over n histories; wshare: a side's writes over the accesses ±95%%, a writer at %.0f%% (estimates, replayed below)\n",
		100 * ADVISE_WRITE_SHARE);
	table_header(&t);
	unit_rows(&t, a);
	fprintf(out, "\nlines holding two sides' writes: %zu today, %zu %s; size %u -> %u bytes\n",
		a->mixed_lines_before, a->mixed_lines_after,
		a->given ? "given" : "proposed", a->old_size, a->new_size);
	fprintf(out, "layouts tried, replayed through classify at %u-byte lines (estimated misses: true + false sharing + transfers%s):\n",
		a->line == 128 ? 128 : 64,
		a->line != 64 && a->line != 128 ?
		"; the replay knows 64- and 128-byte lines, not --line's" :
		"");
	for (enum advise_strategy st = 0; st < ADVISE_NR_STRATEGIES; st++) {
		const struct advise_candidate *c = &a->cand[st];

		fprintf(out, "  %-10s %8llu misses (%llu true, %llu false, %llu transfers), %.2f lines a life, %zu lines with two sides' writes, %u bytes%s\n",
			advise_strategy_name(st),
			(unsigned long long)(c->totals.true_sharing +
					     c->totals.false_sharing +
					     c->totals.transfers),
			(unsigned long long)c->totals.true_sharing,
			(unsigned long long)c->totals.false_sharing,
			(unsigned long long)c->totals.transfers,
			c->totals.lines_per_life, c->mixed_lines, c->size,
			st == a->strategy ? "  <- proposed" : "");
	}
	if (a->given) {
		fprintf(out, "given: the layout of %s, replayed below in place of the proposal\n",
			a->given);
		if (a->nr_gone)
			fprintf(out, "given: %zu of today's members (units moving together) it lacks or lays out over other bytes (a changed type: offsets in them do not map): %s; their %llu accesses are left out of both replays\n",
				a->nr_gone, gone_names(a, names, sizeof(names)),
				(unsigned long long)w->gone_accesses);
	}
	else if (a->same_order)
		fprintf(out, "no layout tried beats today's by the replay: keep it\n");
	else if (misses_of(&a->cand[a->strategy]) >
		 misses_of(&a->cand[ADVISE_TODAY]))
		fprintf(out, "the proposal trades %llu false-sharing misses for %llu more of the others by the replay, which overstates lines it merges (a history saw only the slots it watched; pairs below): confirm with a history_mode=pairs recording before applying it\n",
			(unsigned long long)(a->cand[ADVISE_TODAY].totals.false_sharing -
					     a->cand[a->strategy].totals.false_sharing),
			(unsigned long long)(misses_of(&a->cand[a->strategy]) -
					     misses_of(&a->cand[ADVISE_TODAY]) +
					     a->cand[ADVISE_TODAY].totals.false_sharing -
					     a->cand[a->strategy].totals.false_sharing));
	fprintf(out, "alignment from the members' sizes: BTF keeps no __aligned(); --pin the members declared ____cacheline_aligned\n\n");
	print_struct(out, a, type, true, wide);
	fprintf(out, "\n");
	print_diff(out, a, wide);
	fprintf(out, "\nwhat-if, the histories replayed at the %s offsets (classify's estimates, over %llu accesses), at 64-byte lines and at 128 (adjacent-line prefetch):\n",
		a->given ? "given" : "proposed",
		(unsigned long long)w->before[0].accesses);
	fprintf(out, "  %-22s %10s %10s %10s %10s\n", "", "today/64",
		a->given ? "given" : "proposed", "today/128",
		a->given ? "given" : "proposed");
	whatif_row(out, "true sharing", w, offsetof(struct advise_totals,
						    true_sharing));
	whatif_row(out, "false sharing", w, offsetof(struct advise_totals,
						     false_sharing));
	whatif_row(out, "transfers", w, offsetof(struct advise_totals,
						 transfers));
	fprintf(out, "  %-22s %10.2f %10.2f %10.2f %10.2f\n",
		"lines touched per life", w->before[0].lines_per_life,
		w->after[0].lines_per_life, w->before[1].lines_per_life,
		w->after[1].lines_per_life);
	extras_text(out, a, w, x, wide);
	fprintf(out, "extrapolated: %zu of the %zu pairs of watched slots the %s puts on one line were never watched together (history_mode=pairs sees them)\n",
		w->unseen_pairs, w->line_pairs,
		a->given ? "layout" : "proposal");
	if (g)
		fprintf(out, "check: %llu misses today, %llu with the given layout (%+lld, 95%% interval +-%.0f): %s\n",
			(unsigned long long)g->before,
			(unsigned long long)g->after,
			(long long)g->after - (long long)g->before, g->half,
			g->grows ? "they grow: a layout regression" :
			"no growth beyond the interval");
}

/*
 * --check: the given layout's replayed misses against today's, at the
 * line size advise packs for.  The counts are taken as Poisson, the
 * interval of their difference 1.96 sqrt(before + after): the two
 * replays share their histories, so this is wider than the paired
 * truth and a growth it flags is real.
 */
static void guard(struct advise_guard *g, const struct advise_whatif *w,
		  uint32_t line)
{
	int k = line == 128;

	g->before = w->before[k].true_sharing + w->before[k].false_sharing +
		    w->before[k].transfers;
	g->after = w->after[k].true_sharing + w->after[k].false_sharing +
		   w->after[k].transfers;
	g->half = 1.96 * sqrt((double)(g->before + g->after));
	g->grows = (double)g->after - (double)g->before > g->half;
}

/*
 * The what-if's working set and paths: the type's objects live on
 * average (workingset, from the recording's L1D geometry), and its most
 * common paths' lines before and after.
 */
static void extras(struct advise_extras *x, const struct advise *a,
		   const struct recording *r, const struct history_set *hs,
		   int t)
{
	struct ws_geometry geo;
	struct obj_summary objs;
	struct workingset ws;
	struct path_set ps;

	memset(x, 0, sizeof(*x));
	x->objects = -1;
	if (ws_geometry_from(r, 0, &geo) && !objects_summarize(r, &objs)) {
		workingset_build(&ws, r, hs, &objs, &geo);
		for (size_t i = 0; i < ws.nr_types; i++)
			if ((int)ws.types[i].target == t &&
			    ws.types[i].objects > 0)
				x->objects = ws.types[i].objects;
		workingset_free(&ws);
		objects_free(&objs);
	}
	paths_build(&ps, r, hs);
	for (size_t i = 0; i < ps.n; i++) {
		const struct path *p = &ps.p[i];
		uint16_t *offs;
		size_t k;

		if (p->target != t)
			continue;
		x->all_paths++;
		if (x->npaths == ADVISE_PATHS)
			continue;
		k = x->npaths++;
		offs = xcalloc(p->nr_steps + 1, sizeof(*offs));
		for (size_t s = 0; s < p->nr_steps; s++)
			offs[s] = p->steps[s].offset;
		x->path[k].count = p->count;
		x->path[k].steps = p->nr_steps;
		advise_lines_touched(a, offs, p->nr_steps, 64,
				     &x->path[k].before, &x->path[k].after);
		advise_lines_touched(a, offs, p->nr_steps, 128,
				     &x->path[k].before_128,
				     &x->path[k].after_128);
		free(offs);
	}
	paths_free(&ps);
}

/* The struct @type ("struct x") as the build in @path lays it out. */
static int against_layout(const char *path, const char *type,
			  struct layout *l, char *err, size_t errlen)
{
	const char *bare = strncmp(type, "struct ", 7) ? type : type + 7;
	char derr[256];
	struct btf *btf;
	int ret;

	if (!layout_from_dwarf(path, bare, l, derr, sizeof(derr)))
		return 0;
	btf = btf__parse(path, NULL);
	if (!btf) {
		snprintf(err, errlen, "--against %s: neither DWARF (%s) nor BTF holds the struct",
			 path, derr);
		return -1;
	}
	ret = layout_from_btf(btf, bare, l, err, errlen);
	btf__free(btf);
	return ret;
}

/*
 * Lines each hot path touches, today and at @a's new offsets, or with
 * @against where @map puts each sampled byte in the other build.
 */
static void path_lines(const struct advise *a, struct path_lines *pl,
		       bool against, const int64_t *map)
{
	for (size_t p = 0; p < a->fp->npaths; p++)
		for (int k = 0; k < 2; k++) {
			unsigned int before, after, bi[2], ai[2];

			advise_path_lines_mapped(a, p, k ? 128 : 64, map,
						 &before, &after);
			advise_path_lines_interval(a, p, k ? 128 : 64, map, bi,
						   ai);
			pl[p].today[k] = before;
			memcpy(pl[p].today_ci[k], bi, sizeof(bi));
			if (against) {
				pl[p].against[k] = after;
				memcpy(pl[p].against_ci[k], ai, sizeof(ai));
			} else {
				pl[p].proposed[k] = after;
				memcpy(pl[p].proposed_ci[k], ai, sizeof(ai));
			}
		}
}

/* --header's path as the diff names it: leading / and ./ stripped. */
static const char *header_path(const char *path)
{
	while (*path == '/' || !strncmp(path, "./", 2))
		path += *path == '/' ? 1 : 2;
	return path;
}

static const char *bare_struct(const struct layout *l)
{
	return strncmp(l->name, "struct ", 7) ? l->name : l->name + 7;
}

/* --header: the proposal as a patch of the struct's definition there. */
static int header_patch(const struct advise_opts *o, const struct advise *a,
			const struct layout *l, const char *text, FILE *out)
{
	char err[512], *patch;

	patch = advise_header_patch(a, text, header_path(o->header),
				    bare_struct(l), err, sizeof(err));
	if (!patch) {
		errmsg("advise: --header %s", err);
		return EXIT_USAGE;
	}
	fputs(patch, out);
	free(patch);
	return 0;
}

/* advise by hot path: the split, the proposal, the other build, the guard. */
static int advise_paths(const struct advise_opts *o, const struct fastpath *fp,
			const struct layout *l, FILE *out)
{
	struct paths_report rep = {
		.cache = o->cache, .type = l->name, .against = o->against,
		.wide = o->a.view.wide,
	};
	struct advise a, moved;
	char **together = NULL, *text = NULL;
	int64_t *map;
	char err[512];
	int ret = 0;

	if (o->header) {
		text = read_whole_file(o->header, NULL);
		if (!text) {
			errmsg("advise: --header %s: %s", o->header,
			       strerror(errno));
			return EXIT_USAGE;
		}
		together = advise_header_sets(text, header_path(o->header),
					      bare_struct(l), err, sizeof(err));
		if (!together) {
			errmsg("advise: --header %s", err);
			free(text);
			return EXIT_USAGE;
		}
	}
	ret = advise_build_paths_joined(&a, l, fp, (uint32_t)o->line,
					(uint64_t)o->min_samples, o->pins,
					(const char *const *)together, err,
					sizeof(err));
	for (size_t i = 0; together && together[i]; i++)
		free(together[i]);
	free(together);
	if (ret) {
		errmsg("advise: %s: %s", o->a.view.input, err);
		free(text);
		return EXIT_USAGE;
	}
	rep.a = &a;
	for (size_t p = 0; p < fp->npaths; p++)
		if (!fp->path_samples[p])
			errmsg("advise: path %s: no chain holds its functions (inlined, static under another name, or deeper than callchain= kept)",
			       fp->names[p]);
	path_lines(&a, rep.lines, false, NULL);
	if (o->against) {
		struct layout other;

		if (against_layout(o->against, l->name, &other, err,
				   sizeof(err))) {
			errmsg("advise: %s", err);
			advise_free(&a);
			free(text);
			return EXIT_USAGE;
		}
		/* The same units, at the other build's offsets. */
		if (advise_build_paths(&moved, l, fp, (uint32_t)o->line,
				       (uint64_t)o->min_samples, o->pins, err,
				       sizeof(err)) ||
		    advise_use_layout(&moved, &other, o->against, err,
				      sizeof(err))) {
			errmsg("advise: %s", err);
			advise_free(&moved);
			layout_free(&other);
			advise_free(&a);
			free(text);
			return EXIT_USAGE;
		}
		/* Field by field: nested structs followed inside. */
		map = advise_field_map(&a, l, &other, &rep.against_gone_samples,
				       &rep.against_gone,
				       rep.against_gone_names);
		path_lines(&a, rep.lines, true, map);
		free(map);
		if (o->check)
			paths_guard(&rep, &moved, l, &other);
		layout_free(&other);
	}
	if (o->header && !o->a.view.json)
		ret = header_patch(o, &a, l, text, out);
	else if (o->a.view.json)
		paths_report_json(out, &rep);
	else
		paths_report_text(out, &rep);
	if (rep.check && rep.nr_breaks)
		ret = 1;
	for (size_t i = 0; i < rep.nr_breaks; i++)
		free(rep.breaks[i].group);
	free(rep.breaks);
	if (o->against)
		advise_free(&moved);
	advise_free(&a);
	free(text);
	return ret;
}

int cmd_advise(int argc, char **argv)
{
	struct advise_opts o;
	struct history_set hs;
	struct classify c;
	struct recording r;
	struct layout **layouts;
	struct advise a;
	struct advise_whatif w;
	struct advise_guard g;
	struct advise_extras x;
	struct fastpath fp;
	struct ksyms syms;
	char err[512];
	FILE *out;
	int t, ret;

	memset(&o, 0, sizeof(o));
	o.line = ADVISE_LINE;
	o.min_samples = 3;
	ret = parse_opts(argc, argv, &o);
	if (ret)
		goto out_map;
	ret = view_open(&o.a.view, &r, &out, "advise");
	if (ret)
		goto out_map;
	t = view_target(&r, "advise", &o.cache);
	if (t < 0) {
		ret = EXIT_USAGE;
		goto out_rec;
	}
	layouts = view_layouts(&r, &o.a.map);
	if (!layouts[t]) {
		errmsg("advise: %s: no struct layout for %s in the recording's BTF: name it with --type %s=STRUCT, or give DWARF with --debug FILE",
		       o.a.view.input, o.cache, o.cache);
		ret = EXIT_USAGE;
		goto out_layouts;
	}
	ksyms_load(&syms, r.kallsyms);
	fastpath_build(&fp, &r, t, &syms, o.rules, o.nrules);
	if (o.by_path || o.nrules) {
		ret = advise_paths(&o, &fp, layouts[t], out);
		goto out_paths;
	}
	histories_build(&hs, &r);
	if (advise_build(&a, layouts[t], &hs, t, (uint32_t)o.line, o.pins,
			 err, sizeof(err))) {
		/* No complete history: a long-lived type, by hot path. */
		if (fp.chained) {
			histories_free(&hs);
			ret = advise_paths(&o, &fp, layouts[t], out);
			goto out_paths;
		}
		errmsg("advise: %s: %s", o.a.view.input, err);
		ret = EXIT_USAGE;
		goto out_hist;
	}
	if (o.header) {
		errmsg("advise: --header writes the advice by hot path: give --path NAME=FUNC or --by-path (%s has complete histories, so advise judges it by life)",
		       o.cache);
		ret = EXIT_USAGE;
		advise_free(&a);
		goto out_hist;
	}
	if (o.layout || o.against) {
		struct given_layout gl;
		struct layout other;
		int bad;

		if (o.layout) {
			bad = given_layout_load(&gl, o.layout, err,
						sizeof(err));
			if (!bad) {
				bad = advise_use_offsets(&a,
					(const char *const *)gl.names, gl.offs,
					gl.n, gl.size, o.layout, err,
					sizeof(err));
				given_layout_free(&gl);
			}
		} else {
			bad = against_layout(o.against, layouts[t]->name,
					     &other, err, sizeof(err));
			if (!bad) {
				bad = advise_use_layout(&a, &other, o.against,
							err, sizeof(err));
				layout_free(&other);
			}
		}
		if (bad) {
			errmsg("advise: %s", err);
			ret = EXIT_USAGE;
			advise_free(&a);
			goto out_hist;
		}
	}
	classify_build(&c, &hs);
	advise_whatif(&w, &a, &hs, t);
	extras(&x, &a, &r, &hs, t);
	if (o.check)
		guard(&g, &w, a.line);
	if (o.a.view.json)
		report_json(out, &a, &w, o.cache, layouts[t]->name,
			    o.check ? &g : NULL, &x);
	else
		report_text(out, &a, &w, o.cache, layouts[t]->name,
			    o.check ? &g : NULL, &x, o.a.view.wide);
	advise_whatif_free(&w);
	classify_free(&c);
	advise_free(&a);
	if (o.check && g.grows)
		ret = 1;
out_hist:
	histories_free(&hs);
out_paths:
	fastpath_free(&fp);
	ksyms_free(&syms);
out_layouts:
	view_layouts_free(layouts, r.nr_targets);
out_rec:
	if (ret)
		view_close(out, &o.a.view);
	else
		ret = view_close(out, &o.a.view);
	recording_free(&r);
out_map:
	for (size_t i = 0; i < o.nrules; i++)
		fastpath_rule_free(&o.rules[i]);
	type_map_free(&o.a.map);
	return ret;
}

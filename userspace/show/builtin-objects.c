// SPDX-License-Identifier: GPL-2.0
/*
 * dprof-view objects: the address set per target type — allocations and
 * frees per CPU, frees on another CPU than the allocation, lifetimes.
 */
#include <string.h>
#include "builtin.h"
#include "columns.h"
#include "json.h"
#include "objects.h"
#include "options.h"
#include "util.h"
#include "view.h"

static const struct opt objects_own[] = {
	{ 's', "script", NULL, 0,
	  "the address set itself, one line per event in the\n"
	  "recording's order (each CPU's in time order):\n"
	  "  alloc|free TARGET ADDR CPU TIME_NS FLAGS\n"
	  "(ADDR hex; TIME_NS CLOCK_MONOTONIC; FLAGS: bulk,\n"
	  "kmalloc, untracked, not_live, off_grid joined by\n"
	  "'+', or -)" },
	OPT_END,
};

static const struct command_opts objects_cmd = {
	.cmd = "objects",
	.synopsis =
	"usage: dprof-view objects [--json|--script] [-o FILE] [RECORDING]\n"
	"\n"
	"Per target cache: objects allocated and freed on each CPU, how many were\n"
	"freed on a CPU other than the one that allocated them (they crossed\n"
	"CPUs), and object lifetimes over alloc/free pairs seen in the recording.\n",
	.sets = OPTS_JSON | OPTS_SCRIPT,
	.own = objects_own,
};
static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * part / whole : 0.0;
}

/* Per CPU: the text table under each type, and the JSON "cpus" array. */
enum { OC_CPU, OC_ALLOCS, OC_FREES, OC_REMOTE, OC_N };

static const struct column cpu_cols[OC_N] = {
	[OC_CPU] = { "cpu", "cpu", 0, COL_UINT, -5 },
	[OC_ALLOCS] = { "allocs", "allocs", 0, COL_UINT, 12 },
	[OC_FREES] = { "frees", "frees", 0, COL_UINT, 12 },
	[OC_REMOTE] = { "remote_frees", "remote_frees", 0, COL_UINT, 14 },
};

/*
 * Per type, JSON only: the text says the same in sentences below its
 * CPU table.
 */
enum {
	OT_NAME, OT_ALLOCS, OT_FREES, OT_PAIRS, OT_REMOTE, OT_UNMATCHED,
	OT_LIVE, OT_BULK_ALLOCS, OT_BULK_FREES, OT_UNTRACKED, OT_MEAN,
	OT_P50, OT_P90, OT_MAX, OT_N
};

static const struct column target_cols[OT_N] = {
	[OT_NAME] = { NULL, "name", 0, COL_STR },
	[OT_ALLOCS] = { NULL, "allocs", 0, COL_UINT },
	[OT_FREES] = { NULL, "frees", 0, COL_UINT },
	[OT_PAIRS] = { NULL, "pairs", 0, COL_UINT },
	[OT_REMOTE] = { NULL, "remote_frees", 0, COL_UINT },
	[OT_UNMATCHED] = { NULL, "unmatched_frees", 0, COL_UINT },
	[OT_LIVE] = { NULL, "live_at_end", 0, COL_UINT },
	[OT_BULK_ALLOCS] = { NULL, "bulk_allocs", 0, COL_UINT },
	[OT_BULK_FREES] = { NULL, "bulk_frees", 0, COL_UINT },
	[OT_UNTRACKED] = { NULL, "untracked", 0, COL_UINT },
	[OT_MEAN] = { NULL, "lifetime_mean_ns", 0, COL_DOUBLE },
	[OT_P50] = { NULL, "lifetime_p50_ns", 0, COL_UINT },
	[OT_P90] = { NULL, "lifetime_p90_ns", 0, COL_UINT },
	[OT_MAX] = { NULL, "lifetime_max_ns", 0, COL_UINT },
};

static void cpu_row(const struct table *tab, uint64_t cpu, const char *text,
		    uint64_t allocs, uint64_t frees, uint64_t remote)
{
	struct cell c[OC_N] = {
		[OC_CPU] = { .u = cpu, .text = text },
		[OC_ALLOCS] = { .u = allocs },
		[OC_FREES] = { .u = frees },
		[OC_REMOTE] = { .u = remote },
	};

	table_row(tab, c);
}

/* @t's CPU rows; in text the sum over them, "all", below. */
static void cpu_rows(const struct table *tab, const struct obj_summary *s,
		     const struct obj_target_stats *t)
{
	for (int c = 0; c < s->nr_cpus; c++)
		cpu_row(tab, (uint64_t)c, NULL, t->cpu[c].allocs,
			t->cpu[c].frees, t->cpu[c].remote_frees);
	if (tab->mode == TABLE_TEXT)
		cpu_row(tab, 0, "all", t->allocs, t->frees, t->remote_frees);
}

static void objects_text(FILE *out, const struct recording *r,
			 const struct obj_summary *s)
{
	struct table tab = {
		.cols = cpu_cols, .nr_cols = OC_N, .mode = TABLE_TEXT,
		.out = out, .indent = "  ",
	};

	for (size_t i = 0; i < s->nr_targets; i++) {
		const struct obj_target_stats *t = &s->targets[i];

		fprintf(out, "%s (object %u B)\n", r->targets[i].name,
			r->targets[i].object_size);
		table_header(&tab);
		cpu_rows(&tab, s, t);
		fprintf(out, "  freed on another CPU: %llu of %llu alloc/free pairs (%.1f%%)\n",
			(unsigned long long)t->remote_frees,
			(unsigned long long)t->matched,
			pct(t->remote_frees, t->matched));
		if (t->matched)
			fprintf(out, "  lifetime: median %.1f us, p90 %.1f us, mean %.1f us, max %.1f us (n=%llu)\n",
				t->lifetime_p50_ns / 1e3,
				t->lifetime_p90_ns / 1e3,
				t->lifetime_mean_ns / 1e3,
				t->lifetime_max_ns / 1e3,
				(unsigned long long)t->matched);
		fprintf(out, "  bulk path: %llu allocs, %llu frees\n",
			(unsigned long long)t->bulk_allocs,
			(unsigned long long)t->bulk_frees);
		fprintf(out, "  live at end: %llu; frees of objects allocated before the recording: %llu\n",
			(unsigned long long)t->live_at_end,
			(unsigned long long)t->unmatched_frees);
		if (t->untracked)
			fprintf(out, "  untracked by the module (live set full; raise max_objects=): %llu\n",
				(unsigned long long)t->untracked);
	}
	if (s->lost_marked || r->end.lost)
		fprintf(out, "warning: %llu records lost (stream markers %llu): counts above are lower bounds\n",
			(unsigned long long)r->end.lost,
			(unsigned long long)s->lost_marked);
	else
		fprintf(out, "records lost: 0\n");
}

/* "bulk+kmalloc" etc. of DPROF_OBJ_* @flags, "-" for none. */
static const char *obj_flags_text(unsigned int flags, char *buf, size_t size)
{
	static const char *const names[] = {
		"bulk", "kmalloc", "untracked", "not_live", "off_grid",
	};
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (flags & (1u << i))
			len += snprintf(buf + len, size - len, "%s%s",
					len ? "+" : "", names[i]);
	return len ? buf : "-";
}

/* The address set, one line per ALLOC or FREE record. */
static void objects_script(FILE *out, const struct recording *r)
{
	const struct dprof_rec_hdr *hdr;
	struct rec_iter it;
	char flags[64];

	rec_iter_init(&it, r);
	while ((hdr = rec_iter_next(&it))) {
		const struct dprof_obj_event *o = (const void *)hdr;

		if (hdr->kind != DPROF_REC_ALLOC && hdr->kind != DPROF_REC_FREE)
			continue;
		fprintf(out, "%s %s 0x%llx %u %llu %s\n",
			hdr->kind == DPROF_REC_ALLOC ? "alloc" : "free",
			hdr->target < r->nr_targets ?
			r->targets[hdr->target].name : "?",
			(unsigned long long)o->addr, hdr->cpu,
			(unsigned long long)o->time_ns,
			obj_flags_text(hdr->flags, flags, sizeof(flags)));
	}
}

static void objects_json(FILE *out, const struct recording *r,
			 const struct obj_summary *s)
{
	struct json j;
	struct table types = {
		.cols = target_cols, .nr_cols = OT_N, .mode = TABLE_JSON,
		.out = out, .j = &j,
	};
	struct table cpus = {
		.cols = cpu_cols, .nr_cols = OC_N, .mode = TABLE_JSON,
		.out = out, .j = &j,
	};

	json_init(&j, out);
	json_object_begin(&j, NULL);
	json_uint(&j, "lost", r->end.lost);
	json_uint(&j, "lost_in_stream", s->lost_marked);
	json_array_begin(&j, "targets");
	for (size_t i = 0; i < s->nr_targets; i++) {
		const struct obj_target_stats *t = &s->targets[i];
		struct cell c[OT_N] = {
			[OT_NAME] = { .s = r->targets[i].name },
			[OT_ALLOCS] = { .u = t->allocs },
			[OT_FREES] = { .u = t->frees },
			[OT_PAIRS] = { .u = t->matched },
			[OT_REMOTE] = { .u = t->remote_frees },
			[OT_UNMATCHED] = { .u = t->unmatched_frees },
			[OT_LIVE] = { .u = t->live_at_end },
			[OT_BULK_ALLOCS] = { .u = t->bulk_allocs },
			[OT_BULK_FREES] = { .u = t->bulk_frees },
			[OT_UNTRACKED] = { .u = t->untracked },
			[OT_MEAN] = { .d = t->lifetime_mean_ns },
			[OT_P50] = { .u = t->lifetime_p50_ns },
			[OT_P90] = { .u = t->lifetime_p90_ns },
			[OT_MAX] = { .u = t->lifetime_max_ns },
		};

		table_row_open(&types, c);
		json_array_begin(&j, "cpus");
		cpu_rows(&cpus, s, t);
		json_array_end(&j);
		table_row_close(&types);
	}
	json_array_end(&j);
	json_object_end(&j);
	json_finish(&j);
}

int cmd_objects(int argc, char **argv)
{
	struct view_args o;
	struct recording r;
	struct obj_summary s;
	FILE *out;
	int ret;

	ret = opts_parse_view(&objects_cmd, NULL, argc, argv, &o);
	if (ret)
		return ret;
	ret = view_open(&o.view, &r, &out, "objects");
	if (ret)
		return ret;
	view_sample_note(&r, "objects");
	if (o.view.script) {
		objects_script(out, &r);
		recording_free(&r);
		return view_close(out, &o.view);
	}
	if (objects_summarize(&r, &s)) {
		errmsg("objects: %s: CPU numbers beyond %d", o.view.input,
		       OBJ_MAX_CPUS);
		recording_free(&r);
		return EXIT_USAGE;
	}
	if (o.view.json)
		objects_json(out, &r, &s);
	else
		objects_text(out, &r, &s);
	objects_free(&s);
	recording_free(&r);
	return view_close(out, &o.view);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * dprof-view histories: the object access histories of a recording, one
 * line each, or one history in full with symbolised ips.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "builtin.h"
#include "columns.h"
#include "coverage.h"
#include "histories.h"
#include "json.h"
#include "ksyms.h"
#include "options.h"
#include "util.h"
#include "view.h"

struct histories_opts {
	struct view_args a;
	long id;		/* -1: list */
};

static const struct opt histories_own[] = {
	{ 'I', "id", "ID", 0, "dump one history" },
	{ 's', "script", NULL, 0,
	  "one line per history and per access, for scripts:\n"
	  "  history ID TARGET offsets A[,B,C,D] alloc_cpu C\n"
	  "    end_cpu C lifetime_ns N end REASON complete 0|1\n"
	  "    dropped N addr ADDR alloc_ns T flags F  (ADDR\n"
	  "    hex, T CLOCK_MONOTONIC, F: cpus-changed,\n"
	  "    rw-unsure, truncated joined by '+', or -)\n"
	  "  access ID OFFSET CPU read|write|? TIME_NS KIND\n"
	  "    REPORTED SYMBOL  (KIND load|store|rmw|ambiguous|\n"
	  "    unknown, REPORTED read|write|none: the\n"
	  "    breakpoints' word)" },
	OPT_END,
};

static int histories_option(void *ctx, int key, const char *arg)
{
	struct histories_opts *o = ctx;
	char *end;

	if (key != 'I')
		return EXIT_USAGE;
	o->id = strtol(arg, &end, 0);
	if (*end || o->id < 0 || o->id > UINT32_MAX) {
		errmsg("histories: --id %s: not a history id", arg);
		return EXIT_USAGE;
	}
	return 0;
}

static const struct command_opts histories_cmd = {
	.cmd = "histories",
	.synopsis =
	"usage: dprof-view histories [--json|--script] [-o FILE] [-t TARGET] [-I ID] [RECORDING]\n"
	"\n"
	"Object access histories (debug-register traces of one object from\n"
	"allocation to free): per history the type, offsets watched, element\n"
	"count, reads/writes, CPUs, allocating and freeing CPU and lifetime.\n"
	"With --id, every access of that history with its symbolised ip (the\n"
	"instruction that made the access), CPU, time since allocation, and\n"
	"where the object changed CPU.  Read or write comes from the accessing\n"
	"instruction (load, store, rmw: read-modify-write such as lock cmpxchg,\n"
	"a write for coherence), else from the breakpoints; '!' marks an access\n"
	"the breakpoints reported otherwise, '?' one neither tells.\n",
	.sets = OPTS_JSON | OPTS_SCRIPT | OPTS_TARGET,
	.own = histories_own,
	.handle = histories_option,
};

static int parse_opts(int argc, char **argv, struct histories_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->id = -1;
	return opts_parse_view(&histories_cmd, o, argc, argv, &o->a);
}

static void count_rw(const struct history *h, size_t *reads, size_t *writes)
{
	*reads = *writes = 0;
	for (size_t i = 0; i < h->nr_elems; i++) {
		if (!h->elems[i].rw_known)
			continue;	/* neither the instruction nor a breakpoint said */
		if (h->elems[i].write)
			(*writes)++;
		else
			(*reads)++;
	}
}

static void cpu_list(const struct history *h, char *buf, size_t len)
{
	uint64_t mask = history_cpu_mask(h);
	size_t at = 0;

	buf[0] = '\0';
	for (int c = 0; c < 64 && at + 8 < len; c++)
		if (mask & (1ull << c))
			at += snprintf(buf + at, len - at, "%s%d",
				       at ? "," : "", c);
	if (!at)
		snprintf(buf, len, "-");
}

static void offsets_text(const struct history *h, char *buf, size_t len)
{
	offsets_format(h->offset, h->nr_offsets, buf, len);
}

static bool wanted(const struct recording *r, const struct history *h,
		   const char *target)
{
	return !target || !strcmp(r->targets[h->target].name, target);
}

/*
 * One history: the list's text row and its JSON object (the columns
 * without a head are JSON's only, those without a key the text's).
 */
enum {
	HC_ID, HC_TARGET, HC_ADDR, HC_OFFSETS, HC_LEN, HC_ELEMS, HC_READS,
	HC_WRITES, HC_CPUS, HC_MOVED, HC_LIFETIME_US, HC_ALLOC_CPU,
	HC_ALLOC_SITE, HC_END, HC_COMPLETE, HC_RW_REPORTED, HC_RW_KNOWN,
	HC_END_CPU, HC_LIFETIME_NS, HC_FREE_SITE, HC_DROPPED, HC_N
};

static const struct column history_cols[HC_N] = {
	[HC_ID] = { "id", "id", 0, COL_UINT, 8 },
	[HC_TARGET] = { NULL, "target", 0, COL_STR },
	[HC_ADDR] = { NULL, "addr", 0, COL_UINT },
	[HC_OFFSETS] = { "offsets", "offsets", 0, COL_LIST, -15 },
	[HC_LEN] = { NULL, "len", 0, COL_UINT },
	[HC_ELEMS] = { "elems", "elements", 0, COL_UINT, 6 },
	[HC_READS] = { "reads", "reads", 0, COL_UINT, 6 },
	[HC_WRITES] = { "writes", "writes", 0, COL_UINT, 6 },
	[HC_CPUS] = { "cpus", NULL, 0, COL_STR, -7 },
	[HC_MOVED] = { "alloc>end", NULL, 0, COL_STR, -9 },
	[HC_LIFETIME_US] = { "lifetime_us", NULL, 0, COL_DOUBLE, 12, 0, 0,
			     1 },
	[HC_ALLOC_CPU] = { NULL, "alloc_cpu", 0, COL_UINT },
	[HC_ALLOC_SITE] = { NULL, "alloc_site", 0, COL_STR },
	[HC_END] = { "end", "end", 0, COL_STR },
	[HC_COMPLETE] = { NULL, "complete", 0, COL_BOOL },
	[HC_RW_REPORTED] = { NULL, "rw_reported", 0, COL_BOOL },
	[HC_RW_KNOWN] = { NULL, "rw_known", 0, COL_BOOL },
	[HC_END_CPU] = { NULL, "end_cpu", 0, COL_UINT },
	[HC_LIFETIME_NS] = { NULL, "lifetime_ns", 0, COL_UINT },
	[HC_FREE_SITE] = { NULL, "free_site", 0, COL_STR },
	[HC_DROPPED] = { NULL, "dropped", 0, COL_UINT },
};

/* Buffers a history row's cells point into. */
struct history_texts {
	char cpus[64], moved[32], end[64], alloc_site[160], free_site[160];
};

/* Opens @h's row: for JSON the caller may add to it and closes it. */
static void history_row_open(const struct table *tab,
			     const struct recording *r,
			     const struct history *h,
			     const struct ksyms *syms,
			     struct history_texts *x)
{
	size_t reads, writes;
	bool ended = h->reason != 0;

	count_rw(h, &reads, &writes);
	cpu_list(h, x->cpus, sizeof(x->cpus));
	if (ended)
		snprintf(x->moved, sizeof(x->moved), "%u>%u", h->alloc_cpu,
			 h->end_cpu);
	else
		snprintf(x->moved, sizeof(x->moved), "%u>?", h->alloc_cpu);
	snprintf(x->end, sizeof(x->end), "%s%s%s", history_end_name(h),
		 h->end_flags & DPROF_HIST_CPUS_CHANGED ? " cpus-changed" : "",
		 h->begin_flags & DPROF_HIST_RW_UNSURE ? " rw-unsure" : "");
	{
		struct cell c[HC_N] = {
			[HC_ID] = { .u = h->id },
			[HC_TARGET] = { .s = r->targets[h->target].name },
			[HC_ADDR] = { .u = h->addr },
			[HC_OFFSETS] = { .list = h->offset,
					 .n = h->nr_offsets },
			[HC_LEN] = { .u = h->len },
			[HC_ELEMS] = { .u = h->nr_elems },
			[HC_READS] = { .u = reads },
			[HC_WRITES] = { .u = writes },
			[HC_CPUS] = { .s = x->cpus },
			[HC_MOVED] = { .s = x->moved },
			[HC_LIFETIME_US] = { .d = ended ? (h->end_ns -
						     h->alloc_ns) / 1e3 : 0.0 },
			[HC_ALLOC_CPU] = { .u = h->alloc_cpu },
			[HC_ALLOC_SITE] = {
				.s = ksyms_format(syms, h->alloc_site,
						  x->alloc_site,
						  sizeof(x->alloc_site)) },
			[HC_END] = { .s = history_end_name(h),
				     .text = x->end },
			[HC_COMPLETE] = { .u = history_complete(h) },
			[HC_RW_REPORTED] = {
				.u = !(h->begin_flags & DPROF_HIST_RW_UNSURE) },
			[HC_RW_KNOWN] = { .u = !h->rw_unknown },
			[HC_END_CPU] = { .u = h->end_cpu, .absent = !ended },
			[HC_LIFETIME_NS] = { .u = h->end_ns - h->alloc_ns,
					     .absent = !ended },
			[HC_FREE_SITE] = {
				.s = ended ? ksyms_format(syms, h->free_site,
							  x->free_site,
							  sizeof(x->free_site)) :
					     NULL,
				.absent = !ended },
			[HC_DROPPED] = { .u = h->dropped },
		};

		table_row_open(tab, c);
	}
}

/*
 * One access of a history: the --id text row and its JSON object.
 */
enum {
	AC_TIME_US, AC_TIME_NS, AC_CPU, AC_OFFSET, AC_ACCESS, AC_WRITE,
	AC_RW_KNOWN, AC_KIND, AC_REPORTED, AC_IP, AC_SYM, AC_N
};

static const struct column access_cols[AC_N] = {
	[AC_TIME_US] = { "time_us", NULL, 0, COL_DOUBLE, 10, 0, 0, 3 },
	[AC_TIME_NS] = { NULL, "time_ns", 0, COL_UINT },
	[AC_CPU] = { "cpu", "cpu", 0, COL_UINT, 4 },
	[AC_OFFSET] = { "offset", "offset", 0, COL_UINT, 6 },
	[AC_ACCESS] = { "access", NULL, 0, COL_STR, -6 },
	[AC_WRITE] = { NULL, "write", 0, COL_BOOL },
	[AC_RW_KNOWN] = { NULL, "rw_known", 0, COL_BOOL },
	[AC_KIND] = { "kind", "kind", 0, COL_STR, -9 },
	[AC_REPORTED] = { NULL, "reported", 0, COL_STR },
	[AC_IP] = { NULL, "ip", 0, COL_UINT },
	[AC_SYM] = { "instruction", "sym", 0, COL_STR },
};

static void list_text(FILE *out, const struct recording *r,
		      const struct history_set *hs, const char *target,
		      const struct ksyms *syms)
{
	struct table tab = {
		.cols = history_cols, .nr_cols = HC_N, .mode = TABLE_TEXT,
		.out = out, .indent = "  ",
	};
	struct coverage cover;

	/* Two: the fewest that give an interval. */
	coverage_build(&cover, r, hs, 2);
	for (size_t t = 0; t < r->nr_targets; t++) {
		size_t n = 0, complete = 0, elems = 0;

		if (target && strcmp(r->targets[t].name, target))
			continue;
		for (size_t i = 0; i < hs->n; i++) {
			if (hs->h[i].target != (int)t)
				continue;
			n++;
			complete += history_complete(&hs->h[i]);
			elems += hs->h[i].nr_elems;
		}
		fprintf(out, "%s (object %u B): %zu histories, %zu complete (freed while watched), %zu accesses\n",
			r->targets[t].name, r->targets[t].object_size, n,
			complete, elems);
		view_coverage_text(out, &cover, t, "  ");
		if (!n)
			continue;
		table_header(&tab);
		for (size_t i = 0; i < hs->n; i++) {
			struct history_texts x;

			if (hs->h[i].target != (int)t)
				continue;
			history_row_open(&tab, r, &hs->h[i], syms, &x);
			table_row_close(&tab);
		}
	}
	if (hs->orphan_elems)
		fprintf(out, "warning: %llu accesses belong to no recorded history (their BEGIN was lost)\n",
			(unsigned long long)hs->orphan_elems);
	if (!r->nr_ipmap && hs->n)
		fprintf(out, "note: the recording has no ip map; ips are those after each access\n");
	view_kinds_text(out, &hs->kinds);
	coverage_free(&cover);
}

/* For coherence: write, read, or "?" when neither side tells. */
static const char *elem_rw(const struct hist_elem *e)
{
	return !e->rw_known ? "?" : e->write ? "write" : "read";
}

/* The decoded kind, "!" when the breakpoints said otherwise. */
static const char *elem_kind_text(const struct hist_elem *e)
{
	static char buf[16];

	snprintf(buf, sizeof(buf), "%s%s", access_kind_name(e->kind),
		 hist_elem_disagrees(e) ? "!" : "");
	return buf;
}

static const char *reported_name(const struct hist_elem *e)
{
	return e->reported == HIST_REPORTED_WRITE ? "write" :
	       e->reported == HIST_REPORTED_READ ? "read" : "none";
}

static void access_row(const struct table *tab, const struct hist_elem *e,
		       const struct ksyms *syms)
{
	char sym[160];
	struct cell c[AC_N] = {
		[AC_TIME_US] = { .d = e->time_ns / 1e3 },
		[AC_TIME_NS] = { .u = e->time_ns },
		[AC_CPU] = { .u = e->cpu },
		[AC_OFFSET] = { .u = e->offset },
		[AC_ACCESS] = { .s = elem_rw(e) },
		[AC_WRITE] = { .u = e->write },
		[AC_RW_KNOWN] = { .u = e->rw_known },
		[AC_KIND] = { .s = access_kind_name(e->kind),
			      .text = elem_kind_text(e) },
		[AC_REPORTED] = { .s = reported_name(e) },
		[AC_IP] = { .u = e->ip },
		[AC_SYM] = { .s = ksyms_format(syms, e->ip, sym,
					       sizeof(sym)) },
	};

	table_row(tab, c);
}

static void dump_text(FILE *out, const struct recording *r,
		      const struct history *h, const struct ksyms *syms)
{
	struct table tab = {
		.cols = access_cols, .nr_cols = AC_N, .mode = TABLE_TEXT,
		.out = out, .indent = "  ",
	};
	char a[160], b[160], offs[32];
	int last_cpu = h->alloc_cpu;

	offsets_text(h, offs, sizeof(offs));
	fprintf(out, "history %u: %s object 0x%llx, offsets %s (%u bytes each), read/write %s\n",
		h->id, r->targets[h->target].name,
		(unsigned long long)h->addr, offs, h->len,
		h->rw_unknown ? "unknown for some accesses ('?')" :
		h->begin_flags & DPROF_HIST_RW_UNSURE ? "from the instructions" :
		"from the breakpoints");
	fprintf(out, "  allocated on cpu %u by %s\n", h->alloc_cpu,
		ksyms_format(syms, h->alloc_site, a, sizeof(a)));
	if (h->reason == DPROF_HIST_FREED)
		fprintf(out, "  freed on cpu %u by %s after %.1f us\n",
			h->end_cpu, ksyms_format(syms, h->free_site, b,
						 sizeof(b)),
			(h->end_ns - h->alloc_ns) / 1e3);
	else
		fprintf(out, "  not freed while watched (%s)\n",
			history_end_name(h));
	table_header(&tab);
	for (size_t i = 0; i < h->nr_elems; i++) {
		const struct hist_elem *e = &h->elems[i];

		if (e->cpu != last_cpu)
			fprintf(out, "  %10s -- cpu %d -> %u --\n", "",
				last_cpu, e->cpu);
		last_cpu = e->cpu;
		access_row(&tab, e, syms);
	}
	if (h->reason == DPROF_HIST_FREED && h->end_cpu != last_cpu)
		fprintf(out, "  %10s -- cpu %d -> %u (free) --\n", "",
			last_cpu, h->end_cpu);
	if (h->dropped)
		fprintf(out, "  %u accesses dropped by history_max_hits\n",
			h->dropped);
}

/* "cpus-changed+rw-unsure+truncated", those that apply, or "-". */
static const char *flags_text(const struct history *h, char *buf,
			      size_t size)
{
	snprintf(buf, size, "%s%s%s",
		 h->end_flags & DPROF_HIST_CPUS_CHANGED ? "+cpus-changed" : "",
		 h->begin_flags & DPROF_HIST_RW_UNSURE ? "+rw-unsure" : "",
		 h->end_flags & DPROF_HIST_TRUNCATED ? "+truncated" : "");
	return buf[0] ? buf + 1 : "-";
}

static void script_text(FILE *out, const struct recording *r,
			const struct history_set *hs, const struct history *one,
			const char *target, const struct ksyms *syms)
{
	char offs[32], sym[160], flags[48];

	for (size_t i = 0; i < hs->n; i++) {
		const struct history *h = &hs->h[i];

		if ((one && h != one) || !wanted(r, h, target))
			continue;
		offsets_text(h, offs, sizeof(offs));
		fprintf(out, "history %u %s offsets %s alloc_cpu %u end_cpu %d lifetime_ns %llu end %s complete %d dropped %u addr 0x%llx alloc_ns %llu flags %s\n",
			h->id, r->targets[h->target].name, offs, h->alloc_cpu,
			h->reason ? h->end_cpu : -1,
			h->reason ? (unsigned long long)(h->end_ns - h->alloc_ns) : 0ull,
			history_end_name(h), history_complete(h), h->dropped,
			(unsigned long long)h->addr,
			(unsigned long long)h->alloc_ns,
			flags_text(h, flags, sizeof(flags)));
		for (size_t k = 0; k < h->nr_elems; k++) {
			const struct hist_elem *e = &h->elems[k];

			fprintf(out, "access %u %u %u %s %u %s %s %s\n", h->id,
				e->offset, e->cpu, elem_rw(e), e->time_ns,
				access_kind_name(e->kind),
				reported_name(e),
				ksyms_format(syms, e->ip, sym, sizeof(sym)));
		}
	}
}

static void history_json(struct json *j, const struct recording *r,
			 const struct history *h, const struct ksyms *syms,
			 bool elements)
{
	struct table tab = {
		.cols = history_cols, .nr_cols = HC_N, .mode = TABLE_JSON,
		.j = j,
	};
	struct table acc = {
		.cols = access_cols, .nr_cols = AC_N, .mode = TABLE_JSON,
		.j = j,
	};
	struct history_texts x;

	history_row_open(&tab, r, h, syms, &x);
	if (elements) {
		json_array_begin(j, "accesses");
		for (size_t i = 0; i < h->nr_elems; i++)
			access_row(&acc, &h->elems[i], syms);
		json_array_end(j);
	}
	table_row_close(&tab);
}

int cmd_histories(int argc, char **argv)
{
	struct histories_opts o;
	struct history_set hs;
	struct recording r;
	struct ksyms syms;
	const struct history *one = NULL;
	FILE *out;
	int ret;

	ret = parse_opts(argc, argv, &o);
	if (ret)
		return ret;
	ret = view_open(&o.a.view, &r, &out, "histories");
	if (ret)
		return ret;
	histories_build(&hs, &r);
	ksyms_load(&syms, r.kallsyms);
	if (o.id >= 0) {
		one = histories_find(&hs, (uint32_t)o.id);
		if (!one) {
			errmsg("histories: %s holds no history %ld (list them without --id)",
			       o.a.view.input, o.id);
			ret = EXIT_USAGE;
			goto out;
		}
	}
	if (o.a.target && view_target(&r, "histories", &o.a.target) < 0) {
		ret = EXIT_USAGE;
		goto out;
	}
	if (o.a.view.json) {
		struct json j;

		json_init(&j, out);
		json_object_begin(&j, NULL);
		json_uint(&j, "orphan_accesses", hs.orphan_elems);
		json_bool(&j, "ips_mapped", r.nr_ipmap > 0);
		json_array_begin(&j, "histories");
		for (size_t i = 0; i < hs.n; i++)
			if ((!one || &hs.h[i] == one) &&
			    wanted(&r, &hs.h[i], o.a.target))
				history_json(&j, &r, &hs.h[i], &syms, one);
		json_array_end(&j);
		json_object_end(&j);
		json_finish(&j);
	} else if (o.a.view.script) {
		script_text(out, &r, &hs, one, o.a.target, &syms);
	} else if (one) {
		dump_text(out, &r, one, &syms);
	} else {
		list_text(out, &r, &hs, o.a.target, &syms);
	}
	ret = view_close(out, &o.a.view);
out:
	ksyms_free(&syms);
	histories_free(&hs);
	recording_free(&r);
	return ret;
}

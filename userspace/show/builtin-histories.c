// SPDX-License-Identifier: GPL-2.0
/*
 * dprof-view histories: the object access histories of a recording, one
 * line each, or one history in full with symbolised ips.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "builtin.h"
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

static void list_text(FILE *out, const struct recording *r,
		      const struct history_set *hs, const char *target)
{
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
		fprintf(out, "  %8s %-15s %6s %6s %6s %-7s %-9s %12s %s\n", "id",
			"offsets", "elems", "reads", "writes", "cpus",
			"alloc>end", "lifetime_us", "end");
		for (size_t i = 0; i < hs->n; i++) {
			const struct history *h = &hs->h[i];
			char offs[32], cpus[64], moved[32];
			size_t reads, writes;

			if (h->target != (int)t)
				continue;
			count_rw(h, &reads, &writes);
			offsets_text(h, offs, sizeof(offs));
			cpu_list(h, cpus, sizeof(cpus));
			if (h->reason)
				snprintf(moved, sizeof(moved), "%u>%u",
					 h->alloc_cpu, h->end_cpu);
			else
				snprintf(moved, sizeof(moved), "%u>?",
					 h->alloc_cpu);
			fprintf(out, "  %8u %-15s %6zu %6zu %6zu %-7s %-9s %12.1f %s%s%s\n",
				h->id, offs, h->nr_elems, reads, writes, cpus,
				moved,
				h->reason ? (h->end_ns - h->alloc_ns) / 1e3 : 0.0,
				history_end_name(h),
				h->end_flags & DPROF_HIST_CPUS_CHANGED ?
				" cpus-changed" : "",
				h->begin_flags & DPROF_HIST_RW_UNSURE ?
				" rw-unsure" : "");
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

static void dump_text(FILE *out, const struct recording *r,
		      const struct history *h, const struct ksyms *syms)
{
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
	fprintf(out, "  %10s %4s %6s %-6s %-9s %s\n", "time_us", "cpu", "offset",
		"access", "kind", "instruction");
	for (size_t i = 0; i < h->nr_elems; i++) {
		const struct hist_elem *e = &h->elems[i];

		if (e->cpu != last_cpu)
			fprintf(out, "  %10s -- cpu %d -> %u --\n", "",
				last_cpu, e->cpu);
		last_cpu = e->cpu;
		fprintf(out, "  %10.3f %4u %6u %-6s %-9s %s\n", e->time_ns / 1e3,
			e->cpu, e->offset, elem_rw(e), elem_kind_text(e),
			ksyms_format(syms, e->ip, a, sizeof(a)));
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
				e->reported == HIST_REPORTED_WRITE ? "write" :
				e->reported == HIST_REPORTED_READ ? "read" :
				"none",
				ksyms_format(syms, e->ip, sym, sizeof(sym)));
		}
	}
}

static void history_json(struct json *j, const struct recording *r,
			 const struct history *h, const struct ksyms *syms,
			 bool elements)
{
	char buf[160];
	size_t reads, writes;

	count_rw(h, &reads, &writes);
	json_object_begin(j, NULL);
	json_uint(j, "id", h->id);
	json_string(j, "target", r->targets[h->target].name);
	json_uint(j, "addr", h->addr);
	json_array_begin(j, "offsets");
	for (int i = 0; i < h->nr_offsets; i++)
		json_uint(j, NULL, h->offset[i]);
	json_array_end(j);
	json_uint(j, "len", h->len);
	json_uint(j, "elements", h->nr_elems);
	json_uint(j, "reads", reads);
	json_uint(j, "writes", writes);
	json_uint(j, "alloc_cpu", h->alloc_cpu);
	json_string(j, "alloc_site", ksyms_format(syms, h->alloc_site, buf,
						  sizeof(buf)));
	json_string(j, "end", history_end_name(h));
	json_bool(j, "complete", history_complete(h));
	json_bool(j, "rw_reported", !(h->begin_flags & DPROF_HIST_RW_UNSURE));
	json_bool(j, "rw_known", !h->rw_unknown);
	if (h->reason) {
		json_uint(j, "end_cpu", h->end_cpu);
		json_uint(j, "lifetime_ns", h->end_ns - h->alloc_ns);
		json_string(j, "free_site", ksyms_format(syms, h->free_site,
							 buf, sizeof(buf)));
	}
	json_uint(j, "dropped", h->dropped);
	if (elements) {
		json_array_begin(j, "accesses");
		for (size_t i = 0; i < h->nr_elems; i++) {
			const struct hist_elem *e = &h->elems[i];

			json_object_begin(j, NULL);
			json_uint(j, "time_ns", e->time_ns);
			json_uint(j, "cpu", e->cpu);
			json_uint(j, "offset", e->offset);
			json_bool(j, "write", e->write);
			json_bool(j, "rw_known", e->rw_known);
			json_string(j, "kind", access_kind_name(e->kind));
			json_string(j, "reported", e->reported ==
				    HIST_REPORTED_WRITE ? "write" :
				    e->reported == HIST_REPORTED_READ ?
				    "read" : "none");
			json_uint(j, "ip", e->ip);
			json_string(j, "sym", ksyms_format(syms, e->ip, buf,
							   sizeof(buf)));
			json_object_end(j);
		}
		json_array_end(j);
	}
	json_object_end(j);
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
		list_text(out, &r, &hs, o.a.target);
	}
	ret = view_close(out, &o.a.view);
out:
	ksyms_free(&syms);
	histories_free(&hs);
	recording_free(&r);
	return ret;
}

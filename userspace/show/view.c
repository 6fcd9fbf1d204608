// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "coverage.h"
#include "histories.h"
#include "json.h"
#include "typemap.h"
#include "util.h"
#include "view.h"

int view_input(struct view_opts *o, int nargs, char **args, const char *cmd)
{
	if (nargs > 1 || (nargs == 1 && o->input)) {
		errmsg("%s: expected one recording, as -i FILE or an operand (see --help)",
		       cmd);
		return EXIT_USAGE;
	}
	if (nargs == 1)
		o->input = args[0];
	else if (!o->input)
		o->input = VIEW_DEFAULT_RECORDING;
	return 0;
}

int view_open(const struct view_opts *o, struct recording *r, FILE **out,
	      const char *cmd)
{
	struct rec_error err;

	if (access(o->input, R_OK)) {
		errmsg("%s: cannot read %s: %s%s", cmd, o->input,
		       strerror(errno),
		       strcmp(o->input, VIEW_DEFAULT_RECORDING) ? "" :
		       " (the default recording: make one with dprof-view record, or name one with -i FILE)");
		return EXIT_USAGE;
	}

	if (recording_load(r, o->input, &err)) {
		errmsg("%s: %s: byte %llu: %s", cmd, o->input,
		       (unsigned long long)err.offset, err.msg);
		return EXIT_USAGE;
	}
	if (view_output(o, out, cmd)) {
		recording_free(r);
		return EXIT_FAIL;
	}
	return 0;
}

void view_sample_note(const struct recording *r, const char *cmd)
{
	size_t sampled = 0;
	unsigned int n;

	for (size_t t = 0; t < r->nr_targets; t++) {
		n = recording_track_one_in(r, t);
		if (n <= 1)
			continue;
		if (!sampled)
			fprintf(stderr, "dprof-view %s: objects are a sample (track_one_in; counts, not shares):",
				cmd);
		if (sampled++ < 3)
			fprintf(stderr, " %.*s 1 in %u",
				(int)sizeof(r->targets[t].name),
				r->targets[t].name, n);
	}
	if (sampled > 3)
		fprintf(stderr, " and %zu more caches", sampled - 3);
	if (sampled)
		fputc('\n', stderr);
}

int view_output(const struct view_opts *o, FILE **out, const char *cmd)
{
	*out = stdout;
	if (!o->output)
		return 0;
	*out = fopen(o->output, "w");
	if (!*out) {
		errmsg("%s: cannot write %s: %s", cmd, o->output,
		       strerror(errno));
		return EXIT_FAIL;
	}
	return 0;
}

int view_close(FILE *out, const struct view_opts *o)
{
	if (out != stdout) {
		if (fclose(out)) {
			errmsg("cannot write %s: %s", o->output,
			       strerror(errno));
			return EXIT_FAIL;
		}
	} else if (fflush(stdout)) {
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* "size-N" or "kmalloc-N" (bytes) -> SLUB's "kmalloc-N" ("kmalloc-1k"). */
static bool kmalloc_alias(const char *in, char *out, size_t len)
{
	const char *num = !strncmp(in, "size-", 5) ? in + 5 :
			  !strncmp(in, "kmalloc-", 8) ? in + 8 : NULL;
	char *end;
	unsigned long size;

	if (!num || !*num)
		return false;
	size = strtoul(num, &end, 10);
	if (*end || !size)
		return false;	/* "kmalloc-1k" already, or not a size */
	if (size >= 1024 && size % 1024 == 0)
		snprintf(out, len, "kmalloc-%luk", size / 1024);
	else
		snprintf(out, len, "kmalloc-%lu", size);
	return true;
}

/* The cache names of @r, those starting with @prefix, comma-separated. */
static void target_list(const struct recording *r, const char *prefix,
			char *buf, size_t len)
{
	size_t pos = 0, n = strlen(prefix);

	buf[0] = '\0';
	for (size_t t = 0; t < r->nr_targets && pos < len; t++)
		if (!strncmp(r->targets[t].name, prefix, n))
			pos += snprintf(buf + pos, len - pos, "%s%s",
					pos ? ", " : "", r->targets[t].name);
}

int view_target(const struct recording *r, const char *cmd, const char **name)
{
	static const struct {
		const char *alias, *cache;
	} aliases[] = DPROF_TARGET_ALIASES;
	const char *want = *name;
	char canon[DPROF_NAME_LEN], list[1024];
	size_t n = strlen(*name), found = 0, matches = 0;

	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcmp(want, aliases[i].alias))
			want = aliases[i].cache;
	if (kmalloc_alias(want, canon, sizeof(canon)))
		want = canon;
	for (size_t t = 0; t < r->nr_targets; t++)
		if (!strcmp(r->targets[t].name, want)) {
			*name = r->targets[t].name;
			return (int)t;
		}
	for (size_t t = 0; n && t < r->nr_targets; t++)
		if (!strncmp(r->targets[t].name, *name, n)) {
			matches++;
			found = t;
		}
	if (matches == 1) {
		*name = r->targets[found].name;
		return (int)found;
	}
	target_list(r, matches ? *name : "", list, sizeof(list));
	if (matches)
		errmsg("%s: '%s' names %zu caches profiled in %s (%s); give more of the name",
		       cmd, *name, matches, r->path ? r->path : "the recording",
		       list);
	else
		errmsg("%s: %s profiled no cache named '%s'; it profiled: %s",
		       cmd, r->path ? r->path : "the recording", *name, list);
	return -1;
}

struct layout **view_layouts(const struct recording *r,
			     const struct type_map *map)
{
	struct layout **l = xcalloc(r->nr_targets ? r->nr_targets : 1,
				    sizeof(*l));
	struct btf *btf = r->btf ? btf__new(r->btf, r->btf_len) : NULL;
	char err[600];

	if (libbpf_get_error(btf))
		btf = NULL;
	for (size_t t = 0; t < r->nr_targets; t++) {
		const char *s = type_map_lookup(map, r->targets[t].name);

		bool var = !s && (r->targets[t].flags & DPROF_TARGET_VAR);

		l[t] = xcalloc(1, sizeof(**l));
		/* A variable (watch_symbols=) has its declared type. */
		if (var ? layout_find_var(btf, map, r->targets[t].name, l[t],
					  err, sizeof(err)) :
			  layout_find(btf, map, s ? s : r->targets[t].name,
				      l[t], err, sizeof(err))) {
			free(l[t]);
			l[t] = NULL;
		}
	}
	btf__free(btf);
	return l;
}

void view_layouts_free(struct layout **l, size_t n)
{
	for (size_t t = 0; t < n; t++) {
		if (l[t])
			layout_free(l[t]);
		free(l[t]);
	}
	free(l);
}

const char *view_field_short(struct layout *l, unsigned int off,
			     unsigned int len, char *buf, size_t n)
{
	if (!l)
		snprintf(buf, n, "+%u", off);
	else
		layout_short_range(l, off, len, buf, n);
	return buf;
}

const char *view_field(struct layout *l, unsigned int off, unsigned int len,
		       char *buf, size_t n)
{
	if (!l)
		snprintf(buf, n, "+%u", off);
	else
		layout_name_range(l, off, len, buf, n);
	return buf;
}

void view_kinds_text(FILE *out, const struct kind_counts *k)
{
	const uint64_t *n = k->by_kind;
	uint64_t total = 0;

	for (int i = 0; i < DPROF_NR_ACCESS_KINDS; i++)
		total += n[i];
	if (!total)
		return;
	fprintf(out, "access kinds, from the instruction: %llu load, %llu store, %llu read-modify-write, %llu ambiguous, %llu not decoded\n",
		(unsigned long long)n[DPROF_ACCESS_LOAD],
		(unsigned long long)n[DPROF_ACCESS_STORE],
		(unsigned long long)n[DPROF_ACCESS_RMW],
		(unsigned long long)n[DPROF_ACCESS_AMBIGUOUS],
		(unsigned long long)n[DPROF_ACCESS_UNKNOWN]);
	if (k->compared)
		fprintf(out, "  against the breakpoints: %llu compared, %llu loads reported as writes, %llu writes reported as reads\n",
			(unsigned long long)k->compared,
			(unsigned long long)k->load_reported_write,
			(unsigned long long)k->write_reported_read);
	else
		fprintf(out, "  one read/write breakpoint per offset: the instruction alone tells reads from writes\n");
	if (k->rw_unknown)
		fprintf(out, "  %llu accesses neither decoded nor reported: their histories are left out of classify\n",
			(unsigned long long)k->rw_unknown);
}

void view_kinds_json(struct json *j, const struct kind_counts *k)
{
	json_object_begin(j, "access_kinds");
	for (int i = 0; i < DPROF_NR_ACCESS_KINDS; i++)
		json_uint(j, access_kind_name(i), k->by_kind[i]);
	json_uint(j, "compared_with_breakpoints", k->compared);
	json_uint(j, "loads_reported_as_writes", k->load_reported_write);
	json_uint(j, "writes_reported_as_reads", k->write_reported_read);
	json_uint(j, "rw_unknown", k->rw_unknown);
	json_object_end(j);
}

/* "{0,8,16,24}" */
static void group_text(const struct coverage_group *g, char *buf, size_t len)
{
	size_t pos = snprintf(buf, len, "{");

	for (int k = 0; k < DPROF_HIST_MAX_OFFSETS &&
	     g->offset[k] != DPROF_HIST_NO_OFFSET && pos < len; k++)
		pos += snprintf(buf + pos, len - pos, "%s%u", k ? "," : "",
				g->offset[k]);
	if (pos < len)
		snprintf(buf + pos, len - pos, "}");
}

#define COVERAGE_LISTED 6	/* short groups named in the text line */

void view_coverage_text(FILE *out, const struct coverage *cv, size_t t,
			const char *indent)
{
	const struct coverage_target *ct;
	size_t listed = 0;
	char buf[64];

	if (!cv->have_plans) {
		fprintf(out, "%splan: not in the recording (an older dprof-view recorded it): groups of offsets with no history cannot be listed\n",
			indent);
		return;
	}
	if (t >= cv->nr_targets || !cv->t[t].n)
		return;
	ct = &cv->t[t];
	fprintf(out, "%splan: %zu group%s of offsets; %zu with fewer than %llu complete histories%s",
		indent, ct->n, ct->n == 1 ? "" : "s", ct->short_groups,
		(unsigned long long)cv->min, ct->short_groups ? ":" : "");
	for (size_t i = 0; i < ct->n && listed < COVERAGE_LISTED; i++) {
		if (ct->g[i].complete >= cv->min)
			continue;
		group_text(&ct->g[i], buf, sizeof(buf));
		fprintf(out, "%s %s %llu", listed ? "," : "", buf,
			(unsigned long long)ct->g[i].complete);
		listed++;
	}
	if (ct->short_groups > listed)
		fprintf(out, ", %zu more", ct->short_groups - listed);
	fprintf(out, "%s\n", ct->short_groups ?
		" (record longer, or with --until covered=N)" : "");
}

void view_coverage_json(struct json *j, const struct coverage *cv, size_t t)
{
	const struct coverage_target *ct;
	char buf[64];

	if (!cv->have_plans || t >= cv->nr_targets) {
		json_null(j, "plan_groups");
		return;
	}
	ct = &cv->t[t];
	json_uint(j, "plan_groups", ct->n);
	json_uint(j, "plan_groups_short", ct->short_groups);
	json_uint(j, "plan_groups_min_histories", cv->min);
	json_array_begin(j, "plan_short");
	for (size_t i = 0; i < ct->n; i++) {
		if (ct->g[i].complete >= cv->min)
			continue;
		group_text(&ct->g[i], buf, sizeof(buf));
		json_object_begin(j, NULL);
		json_string(j, "offsets", buf);
		json_uint(j, "complete", ct->g[i].complete);
		json_object_end(j);
	}
	json_array_end(j);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * dprof-view info: what a recording holds.  The BTF blob is opened with
 * libbpf so a damaged one is reported here rather than in a later view.
 */
#include <errno.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "builtin.h"
#include "columns.h"
#include "histories.h"
#include "json.h"
#include "options.h"
#include "util.h"
#include "view.h"

static const struct command_opts info_cmd = {
	.cmd = "info",
	.synopsis =
	"usage: dprof-view info [--json] [-o FILE] [RECORDING]\n"
	"\n"
	"Print what a recording holds: kernel, CPUs, targets, CPU caches,\n"
	"symbols, BTF, sections and record counts, and the records lost.\n",
	.sets = OPTS_JSON,
};
struct info {
	const struct recording *r;
	size_t nr_symbols;
	long btf_types;		/* -1: no BTF, -2: BTF unreadable */
	double duration_s;
	struct kind_counts kinds;	/* of the history elements */
};

static void info_collect(struct info *in, const struct recording *r)
{
	memset(in, 0, sizeof(*in));
	in->r = r;
	for (const char *p = r->kallsyms; p && *p; p++)
		in->nr_symbols += *p == '\n';
	in->btf_types = -1;
	if (r->btf) {
		struct btf *btf = btf__new(r->btf, r->btf_len);

		if (libbpf_get_error(btf)) {
			in->btf_types = -2;
		} else {
			in->btf_types = btf__type_cnt(btf);
			btf__free(btf);
		}
	}
	in->duration_s = r->end.duration_ns / 1e9;
	if (r->kind_count[DPROF_REC_HIST_ELEM]) {
		struct history_set hs;

		histories_build(&hs, r);
		in->kinds = hs.kinds;
		histories_free(&hs);
	}
}

/*
 * The recording's three lists as column tables: targets, CPU caches and
 * sections, in the text and in JSON alike.
 */
enum { TG_INDEX, TG_NAME, TG_SIZE, TG_STRIDE, TG_FLAGS, TG_NOTES, NR_TG };

static const struct column target_cols[NR_TG] = {
	[TG_INDEX] = { "index", "index", 0, COL_UINT, 5 },
	[TG_NAME] = { "name", "name", 0, COL_STR, -24, 2 },
	[TG_SIZE] = { "object", "object_size", 0, COL_UINT, 7 },
	[TG_STRIDE] = { "stride", "stride", 0, COL_UINT, 7 },
	[TG_FLAGS] = { NULL, "flags", 0, COL_UINT },
	[TG_NOTES] = { "", NULL, 0, COL_STR, 0, 2 },
};

enum { CC_NAME, CC_LEVEL, CC_TYPE, CC_SIZE, CC_WAYS, CC_LINE, CC_SETS,
	NR_CC };

static const struct column cache_cols[NR_CC] = {
	[CC_NAME] = { "cache", NULL, 0, COL_STR, -5 },
	[CC_LEVEL] = { NULL, "level", 0, COL_UINT },
	[CC_TYPE] = { NULL, "type", 0, COL_STR },
	[CC_SIZE] = { "size", "size", 0, COL_UINT, 10 },
	[CC_WAYS] = { "ways", "ways", 0, COL_UINT, 5 },
	[CC_LINE] = { "line", "line_size", 0, COL_UINT, 5 },
	[CC_SETS] = { "sets", "sets", 0, COL_UINT, 7 },
};

enum { SC_KIND, SC_OFFSET, SC_LENGTH, SC_COUNT, NR_SC };

static const struct column section_cols[NR_SC] = {
	[SC_KIND] = { "section", "kind", 0, COL_STR, -16 },
	[SC_OFFSET] = { "at", "offset", 0, COL_UINT, 12 },
	[SC_LENGTH] = { "bytes", "length", 0, COL_UINT, 12 },
	[SC_COUNT] = { "chunks", "chunks", 0, COL_UINT, 7 },
};

static void targets_table(const struct table *t, const struct recording *r)
{
	struct cell c[NR_TG];
	char notes[48];

	table_header(t);
	for (size_t i = 0; i < r->nr_targets; i++) {
		const struct dprof_file_target *tg = &r->targets[i];
		const char *kind = tg->flags & DPROF_TARGET_VAR ? "variable" :
				   tg->flags & DPROF_TARGET_KMALLOC ?
				   "kmalloc" : "";
		bool dead = tg->flags & DPROF_TARGET_DEAD;

		memset(c, 0, sizeof(c));
		c[TG_INDEX].u = i;
		c[TG_NAME].s = tg->name;
		c[TG_SIZE].u = tg->object_size;
		c[TG_STRIDE].u = tg->stride;
		c[TG_FLAGS].u = tg->flags;
		snprintf(notes, sizeof(notes), "%s%s%s", kind,
			 *kind && dead ? ", " : "", dead ? "DESTROYED" : "");
		c[TG_NOTES].s = notes;
		table_row(t, c);
	}
}

static void caches_table(const struct table *t, const struct recording *r)
{
	struct cell c[NR_CC];
	char name[16], size[32];

	table_header(t);
	for (size_t i = 0; i < r->nr_caches; i++) {
		const struct dprof_file_cache *k = &r->caches[i];

		memset(c, 0, sizeof(c));
		snprintf(name, sizeof(name), "L%u%s", k->level,
			 k->type == DPROF_CACHE_DATA ? "d" :
			 k->type == DPROF_CACHE_INSTRUCTION ? "i" : "");
		c[CC_NAME].s = name;
		c[CC_LEVEL].u = k->level;
		c[CC_TYPE].s = k->type == DPROF_CACHE_DATA ? "data" :
			       k->type == DPROF_CACHE_INSTRUCTION ?
			       "instruction" : "unified";
		c[CC_SIZE].u = k->size;
		format_bytes(size, sizeof(size), k->size);
		c[CC_SIZE].text = size;
		c[CC_WAYS].u = k->ways;
		c[CC_LINE].u = k->line_size;
		c[CC_SETS].u = k->sets;
		table_row(t, c);
	}
}

/* One row per section; a run of event chunks is one, with its sum. */
static void sections_table(const struct table *t, const struct recording *r)
{
	struct cell c[NR_SC];

	table_header(t);
	for (size_t i = 0; i < r->nr_sections; i++) {
		const struct rec_section *s = &r->sections[i];
		size_t k = i + 1;

		memset(c, 0, sizeof(c));
		c[SC_KIND].s = section_kind_name(s->kind);
		c[SC_OFFSET].u = s->header_offset;
		c[SC_LENGTH].u = s->length;
		while (s->kind == DPROF_SEC_EVENTS && k < r->nr_sections &&
		       r->sections[k].kind == DPROF_SEC_EVENTS)
			c[SC_LENGTH].u += r->sections[k++].length;
		c[SC_COUNT].u = k - i;
		i = k - 1;
		table_row(t, c);
	}
}

static void info_text(FILE *out, const struct info *in, const char *path)
{
	const struct recording *r = in->r;
	struct table tab = { .mode = TABLE_TEXT, .out = out, .indent = "  " };
	const char *v;

#define META(key) (recording_meta(r, key) ? recording_meta(r, key) : "?")

	fprintf(out, "file:       %s (%zu bytes, abi %u)\n", path, r->size,
		r->abi_version);
	fprintf(out, "kernel:     %s  cpus online: %s\n", META("kernel"),
		META("cpus_online"));
	fprintf(out, "recorded:   %s for %.2f s\n", META("recorded_at"),
		in->duration_s);
	if ((v = recording_meta(r, "label")))
		fprintf(out, "label:      %s\n", v);
	if ((v = recording_meta(r, "command")))
		fprintf(out, "command:    %s\n", v);
	if ((v = recording_meta(r, "work")))
		fprintf(out, "work:       %s (as the workload reported it)\n", v);
	if ((v = recording_meta(r, "load")))
		fprintf(out, "load:       %s\n", v);
	if ((v = recording_meta(r, "until")))
		fprintf(out, "until:      %s, %s (ended by %s)\n", v,
			!strcmp(META("until_met"), "1") ? "met" : "not met",
			META("ended_by"));
	else if ((v = recording_meta(r, "ended_by")))
		fprintf(out, "ended by:   %s\n", v);
	if ((v = recording_meta(r, "until_labels")))
		fprintf(out, "            labels at the end: %s\n", v);
	if (r->nr_plans)
		fprintf(out, "plans:      %zu groups of offsets\n", r->nr_plans);
	fprintf(out, "targets:\n");
	tab.cols = target_cols;
	tab.nr_cols = NR_TG;
	targets_table(&tab, r);
	fprintf(out, "cpu caches:%s\n", r->nr_caches ? "" : " none recorded");
	if (r->nr_caches) {
		tab.cols = cache_cols;
		tab.nr_cols = NR_CC;
		caches_table(&tab, r);
	}
	fprintf(out, "symbols:    %zu (kallsyms)\n", in->nr_symbols);
	if (in->btf_types >= 0)
		fprintf(out, "btf:        %zu bytes, %ld types\n", r->btf_len,
			in->btf_types);
	else
		fprintf(out, "btf:        %s\n", in->btf_types == -1 ?
			"none (kernel without /sys/kernel/btf/vmlinux)" :
			"present but unreadable by libbpf");
	fprintf(out, "records:    %llu  (alloc %llu, free %llu, older live %llu, samples %llu, loss markers %llu, unknown kinds %llu)\n",
		(unsigned long long)r->records,
		(unsigned long long)r->kind_count[DPROF_REC_ALLOC],
		(unsigned long long)r->kind_count[DPROF_REC_FREE],
		(unsigned long long)r->kind_count[DPROF_REC_SLAB_LIVE],
		(unsigned long long)r->kind_count[DPROF_REC_SAMPLE],
		(unsigned long long)r->kind_count[DPROF_REC_LOST],
		(unsigned long long)r->unknown_records);
	if (r->kind_count[DPROF_REC_WINDOW])
		fprintf(out, "windows:    %llu sample windows recorded (the profile's independent units)\n",
			(unsigned long long)r->kind_count[DPROF_REC_WINDOW]);
	if (r->kind_count[DPROF_REC_HIST_BEGIN])
		fprintf(out, "histories:  %llu begun, %llu accesses, %llu ended; %zu trap ips mapped to instructions\n",
			(unsigned long long)r->kind_count[DPROF_REC_HIST_BEGIN],
			(unsigned long long)r->kind_count[DPROF_REC_HIST_ELEM],
			(unsigned long long)r->kind_count[DPROF_REC_HIST_END],
			r->nr_ipmap);
	view_kinds_text(out, &in->kinds);
	if (r->kind_count[DPROF_REC_SAMPLE])
		fprintf(out, "raw samples: %llu records\n",
			(unsigned long long)r->kind_count[DPROF_REC_SAMPLE]);
	if (r->nr_samples) {
		uint64_t n = 0;

		for (size_t i = 0; i < r->nr_samples; i++)
			n += r->samples[i].count;
		fprintf(out, "samples:    %llu in %zu aggregated entries (type, offset, ip, source)\n",
			(unsigned long long)n, r->nr_samples);
	}
	fprintf(out, "lost:       %llu records marked lost in the stream; module dropped %llu since load (%s at start)\n",
		(unsigned long long)r->lost_marked,
		(unsigned long long)r->end.lost, META("dropped_at_start"));
#undef META
	fprintf(out, "sections:\n");
	tab.cols = section_cols;
	tab.nr_cols = NR_SC;
	sections_table(&tab, r);
}

static void info_json(FILE *out, const struct info *in, const char *path)
{
	const struct recording *r = in->r;
	struct json j;
	struct table tab = { .mode = TABLE_JSON, .out = out, .j = &j };

	json_init(&j, out);
	json_object_begin(&j, NULL);
	json_string(&j, "file", path);
	json_uint(&j, "size", r->size);
	json_uint(&j, "abi_version", r->abi_version);
	json_object_begin(&j, "meta");
	for (size_t i = 0; i < r->nr_meta; i++)
		json_string(&j, r->meta_keys[i], r->meta_values[i]);
	json_object_end(&j);
	json_double(&j, "duration_s", in->duration_s);
	json_array_begin(&j, "targets");
	tab.cols = target_cols;
	tab.nr_cols = NR_TG;
	targets_table(&tab, r);
	json_array_end(&j);
	json_array_begin(&j, "caches");
	tab.cols = cache_cols;
	tab.nr_cols = NR_CC;
	caches_table(&tab, r);
	json_array_end(&j);
	json_array_begin(&j, "sections");
	tab.cols = section_cols;
	tab.nr_cols = NR_SC;
	sections_table(&tab, r);
	json_array_end(&j);
	json_uint(&j, "symbols", in->nr_symbols);
	if (in->btf_types >= 0)
		json_int(&j, "btf_types", in->btf_types);
	else
		json_null(&j, "btf_types");
	json_object_begin(&j, "records");
	json_uint(&j, "total", r->records);
	json_uint(&j, "alloc", r->kind_count[DPROF_REC_ALLOC]);
	json_uint(&j, "free", r->kind_count[DPROF_REC_FREE]);
	json_uint(&j, "slab_live", r->kind_count[DPROF_REC_SLAB_LIVE]);
	json_uint(&j, "windows", r->kind_count[DPROF_REC_WINDOW]);
	json_uint(&j, "sample_records", r->kind_count[DPROF_REC_SAMPLE]);
	json_uint(&j, "loss_markers", r->kind_count[DPROF_REC_LOST]);
	json_uint(&j, "unknown", r->unknown_records);
	json_uint(&j, "history_begin", r->kind_count[DPROF_REC_HIST_BEGIN]);
	json_uint(&j, "history_access", r->kind_count[DPROF_REC_HIST_ELEM]);
	json_uint(&j, "history_end", r->kind_count[DPROF_REC_HIST_END]);
	json_uint(&j, "ipmap_entries", r->nr_ipmap);
	view_kinds_json(&j, &in->kinds);
	json_uint(&j, "sample_entries", r->nr_samples);
	json_uint(&j, "lost_in_stream", r->lost_marked);
	json_uint(&j, "module_dropped", r->end.lost);
	json_object_end(&j);
	json_object_end(&j);
	json_finish(&j);
}

int cmd_info(int argc, char **argv)
{
	struct view_args o;
	struct recording r;
	struct info in;
	FILE *out;
	int ret;

	ret = opts_parse_view(&info_cmd, NULL, argc, argv, &o);
	if (ret)
		return ret;
	ret = view_open(&o.view, &r, &out, "info");
	if (ret)
		return ret;
	view_sample_note(&r, "info");
	info_collect(&in, &r);
	if (o.view.json)
		info_json(out, &in, o.view.input);
	else
		info_text(out, &in, o.view.input);
	recording_free(&r);
	return view_close(out, &o.view);
}

// SPDX-License-Identifier: GPL-2.0
/* dprof-view advise by hot path: the table, the grouped struct, the lines (see advise-paths.h). */
#include <stdlib.h>
#include <string.h>
#include "advise-paths.h"
#include "diffstat.h"
#include "json.h"
#include "util.h"

/* The text fits 160 columns; -v prints every function. */
#define PATHS_WIDTH 160
#define NAME_WIDTH 28

static const char *bare(const char *type)
{
	return strncmp(type, "struct ", 7) ? type : type + 7;
}

size_t *paths_by_new(const struct advise *a)
{
	size_t *v = xcalloc(a->nu + 1, sizeof(*v));

	for (size_t i = 0; i < a->nu; i++)
		v[i] = i;
	for (size_t i = 1; i < a->nu; i++)
		for (size_t k = i; k && a->u[v[k]].new_off < a->u[v[k - 1]].new_off;
		     k--) {
			size_t t = v[k];

			v[k] = v[k - 1];
			v[k - 1] = t;
		}
	return v;
}

/* Group @g's bytes at the new offsets: [*begin, *end). */
static void group_span(const struct advise *a, int g, uint32_t *begin,
		       uint32_t *end)
{
	*begin = UINT32_MAX;
	*end = 0;
	for (size_t i = 0; i < a->nu; i++) {
		const struct advise_unit *u = &a->u[i];

		if (u->path_group != g)
			continue;
		if (u->new_off < *begin)
			*begin = u->new_off;
		if (u->new_off + u->size > *end)
			*end = u->new_off + u->size;
	}
}

static bool on_a_path(const struct advise *a, const struct advise_unit *u)
{
	for (size_t p = 0; p < a->fp->npaths; p++)
		if (u->access[p] != ADVISE_ACC_NONE)
			return true;
	return false;
}

/* A unit's name in NAME_WIDTH: a union's members as "first +N more". */
static const char *short_name(const struct advise_unit *u, bool wide,
			      char *buf, size_t len)
{
	const char *comma = strchr(u->name, ',');
	size_t more = 0;

	if (wide || strlen(u->name) <= NAME_WIDTH)
		return u->name;
	for (const char *c = comma; c; c = strchr(c + 1, ','))
		more++;
	if (more)
		snprintf(buf, len, "%.*s +%zu more",
			 (int)(comma - u->name) > NAME_WIDTH - 10 ?
			 NAME_WIDTH - 10 : (int)(comma - u->name), u->name,
			 more);
	else
		snprintf(buf, len, "%.*s...", NAME_WIDTH - 3, u->name);
	return buf;
}

static void print_table(FILE *out, const struct paths_report *rep)
{
	const struct advise *a = rep->a;
	const struct fastpath *fp = a->fp;
	size_t *v = xcalloc(a->nu + 1, sizeof(*v));
	size_t cell = 18, used;

	for (size_t i = 0; i < a->nu; i++)
		v[i] = i;
	fprintf(out, "%-*s %6s %5s", NAME_WIDTH, "member", "offset", "size");
	for (size_t p = 0; p < fp->npaths; p++)
		fprintf(out, "  %-*.*s", (int)cell, (int)cell, fp->names[p]);
	fprintf(out, "  %s\n", "functions per path");
	used = NAME_WIDTH + 13 + fp->npaths * (cell + 2) + 2;
	for (size_t k = 0; k < a->nu; k++) {
		const struct advise_unit *u = &a->u[v[k]];
		char funcs[1024] = "", label[64];
		size_t room = rep->wide ? sizeof(funcs) - 1 :
			      (used < PATHS_WIDTH ? PATHS_WIDTH - used : 0);

		if (!on_a_path(a, u))
			continue;
		fprintf(out, "%-*s %6u %5u", NAME_WIDTH,
			short_name(u, rep->wide, label, sizeof(label)),
			u->old_off, u->size);
		for (size_t p = 0; p < fp->npaths; p++) {
			char c[64];

			snprintf(c, sizeof(c), "%s %llu",
				 advise_access_name(u->access[p]),
				 (unsigned long long)u->path_samples[p]);
			fprintf(out, "  %-*s", (int)cell, c);
			if (!u->path_funcs[p] || !*u->path_funcs[p])
				continue;
			snprintf(funcs + strlen(funcs),
				 sizeof(funcs) - strlen(funcs), "%s%s: %s",
				 *funcs ? "; " : "", fp->names[p],
				 u->path_funcs[p]);
		}
		if (strlen(funcs) > room && room > 3)
			strcpy(funcs + room - 3, "...");
		fprintf(out, "  %s\n", funcs);
	}
	free(v);
}

/*
 * Samples per million of the path's operations, and their 95 % interval
 * (a sample is rarer than an operation: per thousand, the figures of a
 * real run are mostly zeros after the point).
 */
#define PER_OPS 1e6

static void per_mop(uint64_t samples, uint64_t ops, double *v, double *lo,
		    double *hi)
{
	double scale = PER_OPS / (double)ops;

	diff_poisson((double)samples, lo, hi);
	*v = (double)samples * scale;
	*lo *= scale;
	*hi *= scale;
}

/* A rate in as few characters as its three figures need, no exponent. */
static void rate_text(char *buf, size_t len, double x)
{
	if (x == 0)
		snprintf(buf, len, "0");
	else if (x >= 100)
		snprintf(buf, len, "%.0f", x);
	else if (x >= 0.1)
		snprintf(buf, len, "%.3g", x);
	else
		snprintf(buf, len, "%.1g", x);
}

static void mop_cell(char *buf, size_t len, uint64_t samples, uint64_t ops)
{
	char v[24], lo[24], hi[24];
	double x, l, h;

	per_mop(samples, ops, &x, &l, &h);
	rate_text(v, sizeof(v), x);
	rate_text(lo, sizeof(lo), l);
	rate_text(hi, sizeof(hi), h);
	snprintf(buf, len, "%s [%s,%s]", v, lo, hi);
}

/*
 * The members' loads and stores per million operations on each path ops=
 * counted: a table of its own, the maintainers' one above staying as
 * they write it.  As many paths as fit 160 columns (-v: all).
 */
#define MOP_CELL 20

static void print_per_op(FILE *out, const struct paths_report *rep)
{
	const struct advise *a = rep->a;
	const struct fastpath *fp = a->fp;
	size_t shown[FASTPATH_MAX_PATHS], n = 0;
	size_t fit = (PATHS_WIDTH - NAME_WIDTH) / (2 * (MOP_CELL + 2));

	for (size_t p = 0; p < fp->npaths; p++)
		if (fp->ops[p] && (rep->wide || n < fit))
			shown[n++] = p;
	if (!n)
		return;
	fprintf(out, "\n%-*s", NAME_WIDTH, "samples per million ops");
	for (size_t i = 0; i < n; i++) {
		char h[64];

		snprintf(h, sizeof(h), "%s (%s)", fp->names[shown[i]],
			 fp->ops_func[shown[i]]);
		fprintf(out, "  %-*.*s", 2 * MOP_CELL + 2, 2 * MOP_CELL + 2, h);
	}
	fprintf(out, "\n%-*s", NAME_WIDTH, "member");
	for (size_t i = 0; i < n; i++)
		fprintf(out, "  %-*s  %-*s", MOP_CELL, "loads", MOP_CELL,
			"stores");
	fputc('\n', out);
	for (size_t k = 0; k < a->nu; k++) {
		const struct advise_unit *u = &a->u[k];
		char label[64];

		if (!on_a_path(a, u))
			continue;
		fprintf(out, "%-*s", NAME_WIDTH,
			short_name(u, rep->wide, label, sizeof(label)));
		for (size_t i = 0; i < n; i++) {
			size_t p = shown[i];
			char l[80], s[80];

			mop_cell(l, sizeof(l),
				 u->path_samples[p] - u->path_stores[p],
				 fp->ops[p]);
			mop_cell(s, sizeof(s), u->path_stores[p], fp->ops[p]);
			fprintf(out, "  %-*s  %-*s", MOP_CELL, l, MOP_CELL, s);
		}
		fputc('\n', out);
	}
}

static void print_struct(FILE *out, const struct paths_report *rep)
{
	const struct advise *a = rep->a;
	size_t *v = paths_by_new(a);
	int open = -1;
	uint32_t line = 0;
	char label[64];

	fprintf(out, "struct %s {\n", bare(rep->type));
	for (size_t k = 0; k < a->nu; k++) {
		const struct advise_unit *u = &a->u[v[k]];

		if (u->path_group != open && open >= 0) {
			fprintf(out, "\t__cacheline_group_end(%s);\n",
				a->group_names[open]);
			open = -1;
		}
		while (u->new_off >= (line + 1) * a->line) {
			line++;
			fprintf(out, "\t/* --- cacheline %u boundary (%u bytes) --- */\n",
				line, line * a->line);
		}
		if (u->path_group >= 0 && u->path_group != open) {
			open = u->path_group;
			fprintf(out, "\t__cacheline_group_begin(%s);\n",
				a->group_names[open]);
		}
		fprintf(out, "\t%-*s /* %5u %5u%s */\n", NAME_WIDTH + 12,
			short_name(u, rep->wide, label, sizeof(label)),
			u->new_off, u->size, u->pinned ? " pinned" : "");
	}
	if (open >= 0)
		fprintf(out, "\t__cacheline_group_end(%s);\n",
			a->group_names[open]);
	fprintf(out, "\t/* size: %u, cachelines: %u */\n};\n\n", a->new_size,
		(a->new_size + a->line - 1) / a->line);
	fprintf(out, "static void __init %s_struct_check(void)\n{\n",
		bare(rep->type));
	for (int g = 0; g < a->ngroups; g++) {
		uint32_t begin, end;

		for (size_t k = 0; k < a->nu; k++) {
			const struct advise_unit *u = &a->u[v[k]];
			const char *n = u->name;

			if (u->path_group != g)
				continue;
			/* Each member of a unit (a union's, say) is asserted. */
			while (*n) {
				size_t len = strcspn(n, ",");

				fprintf(out, "\tCACHELINE_ASSERT_GROUP_MEMBER(struct %s, %s, %.*s);\n",
					bare(rep->type), a->group_names[g],
					(int)len, n);
				n += len;
				while (*n == ',' || *n == ' ')
					n++;
			}
		}
		group_span(a, g, &begin, &end);
		fprintf(out, "\tCACHELINE_ASSERT_GROUP_SIZE(struct %s, %s, %u);\n",
			bare(rep->type), a->group_names[g], end - begin);
	}
	fprintf(out, "}\n");
	free(v);
}

static void print_lines(FILE *out, const struct paths_report *rep)
{
	const struct fastpath *fp = rep->a->fp;

	if (rep->against)
		fprintf(out, "%-24s %-14s %-14s %s\n", "lines a path touches",
			"today", "proposed", "against");
	else
		fprintf(out, "%-24s %-14s %s\n", "lines a path touches",
			"today", "proposed");
	for (size_t p = 0; p < fp->npaths; p++)
		for (int k = 0; k < 2; k++) {
			const struct path_lines *pl = &rep->lines[p];
			char what[64], t[40], n[40], o[40];

			snprintf(what, sizeof(what), "%.12s, %d-byte lines",
				 fp->names[p], k ? 128 : 64);
			snprintf(t, sizeof(t), "%u [%u,%u]", pl->today[k],
				 pl->today_ci[k][0], pl->today_ci[k][1]);
			snprintf(n, sizeof(n), "%u [%u,%u]", pl->proposed[k],
				 pl->proposed_ci[k][0], pl->proposed_ci[k][1]);
			fprintf(out, "%-24s %-14s ", what, t);
			if (rep->against) {
				snprintf(o, sizeof(o), "%u [%u,%u]",
					 pl->against[k], pl->against_ci[k][0],
					 pl->against_ci[k][1]);
				fprintf(out, "%-14s %s\n", n, o);
			} else {
				fprintf(out, "%s\n", n);
			}
		}
	if (rep->against && rep->against_gone) {
		fprintf(out, "against: %zu field%s gone there (renamed or removed), their %llu samples left out:",
			rep->against_gone, rep->against_gone > 1 ? "s" : "",
			(unsigned long long)rep->against_gone_samples);
		int used = 78;	/* the line's words before the names */
		bool cut = rep->against_gone > ADVISE_GONE_NAMES;

		for (size_t n = 0; n < ADVISE_GONE_NAMES; n++) {
			const char *g = rep->against_gone_names[n];

			if (!g)
				continue;
			if (used + 1 + (int)strlen(g) > PATHS_WIDTH - 4) {
				cut = true;	/* the rest in --json */
				break;
			}
			used += fprintf(out, " %s", g);
		}
		fprintf(out, "%s\n", cut ? " ..." : "");
	}
}

static void print_guard(FILE *out, const struct paths_report *rep)
{
	if (!rep->nr_guarded) {
		fprintf(out, "group guard: no member on a hot path lies in a group of the recorded build's struct: nothing to guard\n");
		return;
	}
	fprintf(out, "group guard: %zu members on a hot path in the recorded build's groups, %zu left them in %s\n",
		rep->nr_guarded, rep->nr_breaks, rep->against);
	for (size_t i = 0; i < rep->nr_breaks; i++) {
		const struct group_break *b = &rep->breaks[i];

		if (b->u->gone)
			fprintf(out, "  %s: not in %s's struct (was in %s)\n",
				b->u->name, rep->against, b->group);
		else if (b->group_gone)
			fprintf(out, "  %s: group %s is gone\n", b->u->name,
				b->group);
		else
			fprintf(out, "  %s: at %u, out of %s [%u, %u)\n",
				b->u->name, b->new_off, b->group, b->begin,
				b->end);
	}
}

/* Each path's operations, when the recording counted any. */
static void print_ops(FILE *out, const struct fastpath *fp)
{
	bool any = false;

	for (size_t p = 0; p < fp->npaths; p++)
		any |= fp->ops_func[p] != NULL;
	if (!any)
		return;
	fprintf(out, "operations:");
	for (size_t p = 0; p < fp->npaths; p++)
		if (fp->ops_func[p])
			fprintf(out, " %s %llu (%s)%s", fp->names[p],
				(unsigned long long)fp->ops[p], fp->ops_func[p],
				p + 1 < fp->npaths ? "," : "");
		else
			fprintf(out, " %s not counted%s", fp->names[p],
				p + 1 < fp->npaths ? "," : "");
	fputc('\n', out);
}

void paths_report_text(FILE *out, const struct paths_report *rep)
{
	const struct advise *a = rep->a;
	const struct fastpath *fp = a->fp;

	fprintf(out, "%s (%s, %u bytes): by hot path, %llu samples with call chains, %llu without\n",
		rep->cache, rep->type, a->old_size,
		(unsigned long long)fp->chained,
		(unsigned long long)fp->unchained);
	fprintf(out, "paths:");
	for (size_t p = 0; p < fp->npaths; p++)
		fprintf(out, " %s %llu samples,", fp->names[p],
			(unsigned long long)fp->path_samples[p]);
	fprintf(out, " other %llu\n",
		(unsigned long long)fp->path_samples[fp->npaths]);
	if (fp->no_entry)
		fprintf(out, "no kernel entry on %llu chains (deeper than the chain kept): other\n",
			(unsigned long long)fp->no_entry);
	print_ops(out, fp);
	fputc('\n', out);
	print_table(out, rep);
	print_per_op(out, rep);
	fprintf(out, "\nproposed (%s; members by name, declared as today):\n",
		a->ngroups ? "groups in the kernel's convention" :
			     "no member is on a hot path");
	print_struct(out, rep);
	fputc('\n', out);
	print_lines(out, rep);
	if (rep->check)
		print_guard(out, rep);
}

/* "lines_64_today_lo" and _hi. */
static void json_lines_interval(struct json *j, int k, const char *what,
				const unsigned int ci[2])
{
	char key[64];

	snprintf(key, sizeof(key), "lines_%d_%s_lo", k ? 128 : 64, what);
	json_uint(j, key, ci[0]);
	snprintf(key, sizeof(key), "lines_%d_%s_hi", k ? 128 : 64, what);
	json_uint(j, key, ci[1]);
}

/* A member's loads and stores per million of path @p's operations. */
static void json_per_mop(struct json *j, const struct advise_unit *u,
			 size_t p, uint64_t ops)
{
	static const char *const key[2][3] = {
		{ "loads_per_mop", "loads_per_mop_lo", "loads_per_mop_hi" },
		{ "stores_per_mop", "stores_per_mop_lo", "stores_per_mop_hi" },
	};

	for (int s = 0; s < 2; s++) {
		uint64_t k = s ? u->path_stores[p] :
			     u->path_samples[p] - u->path_stores[p];
		double v, lo, hi;

		per_mop(k, ops, &v, &lo, &hi);
		json_double(j, key[s][0], v);
		json_double(j, key[s][1], lo);
		json_double(j, key[s][2], hi);
	}
}

void paths_report_json(FILE *out, const struct paths_report *rep)
{
	const struct advise *a = rep->a;
	const struct fastpath *fp = a->fp;
	struct json j;

	json_init(&j, out);
	json_object_begin(&j, NULL);
	json_string(&j, "mode", "by-path");
	json_string(&j, "cache", rep->cache);
	json_string(&j, "type", rep->type);
	json_uint(&j, "size", a->old_size);
	json_uint(&j, "proposed_size", a->new_size);
	json_uint(&j, "line", a->line);
	json_uint(&j, "chained_samples", fp->chained);
	json_uint(&j, "unchained_samples", fp->unchained);
	json_uint(&j, "min_samples", a->min_samples);
	json_double(&j, "write_share_threshold", ADVISE_WRITE_SHARE);
	json_array_begin(&j, "paths");
	for (size_t p = 0; p < fp->npaths; p++) {
		json_object_begin(&j, NULL);
		json_string(&j, "name", fp->names[p]);
		json_uint(&j, "samples", fp->path_samples[p]);
		if (fp->ops_func[p]) {
			json_string(&j, "ops_function", fp->ops_func[p]);
			json_uint(&j, "ops", fp->ops[p]);
		} else {
			json_null(&j, "ops_function");
		}
		for (int k = 0; k < 2; k++) {
			json_uint(&j, k ? "lines_128_today" : "lines_64_today",
				  rep->lines[p].today[k]);
			json_uint(&j, k ? "lines_128_proposed" :
				  "lines_64_proposed", rep->lines[p].proposed[k]);
			json_lines_interval(&j, k, "today",
					    rep->lines[p].today_ci[k]);
			json_lines_interval(&j, k, "proposed",
					    rep->lines[p].proposed_ci[k]);
			if (rep->against)
				json_lines_interval(&j, k, "against",
						    rep->lines[p].against_ci[k]);
			if (rep->against && !k)
				json_uint(&j, "against_gone_samples",
					  rep->against_gone_samples);
			if (rep->against)
				json_uint(&j, k ? "lines_128_against" :
					  "lines_64_against",
					  rep->lines[p].against[k]);
		}
		json_object_end(&j);
	}
	json_array_end(&j);
	json_uint(&j, "other_samples", fp->path_samples[fp->npaths]);
	json_array_begin(&j, "members");
	for (size_t i = 0; i < a->nu; i++) {
		const struct advise_unit *u = &a->u[i];

		json_object_begin(&j, NULL);
		json_string(&j, "name", u->name);
		json_uint(&j, "offset", u->old_off);
		json_uint(&j, "size", u->size);
		json_uint(&j, "new_offset", u->new_off);
		json_bool(&j, "pinned", u->pinned);
		if (u->path_group >= 0)
			json_string(&j, "group", a->group_names[u->path_group]);
		else
			json_null(&j, "group");
		json_array_begin(&j, "paths");
		for (size_t p = 0; p < fp->npaths; p++) {
			double lo = 0, hi = 1;

			if (u->path_samples[p])
				diff_wilson((double)u->path_stores[p],
					    (double)u->path_samples[p], &lo, &hi);
			json_object_begin(&j, NULL);
			json_string(&j, "path", fp->names[p]);
			json_string(&j, "access",
				    advise_access_name(u->access[p]));
			json_uint(&j, "samples", u->path_samples[p]);
			json_uint(&j, "stores", u->path_stores[p]);
			json_double(&j, "store_share_lo", lo);
			json_double(&j, "store_share_hi", hi);
			json_string(&j, "functions",
				    u->path_funcs[p] ? u->path_funcs[p] : "");
			if (fp->ops[p])
				json_per_mop(&j, u, p, fp->ops[p]);
			json_object_end(&j);
		}
		json_array_end(&j);
		json_uint(&j, "other_samples", u->path_samples[fp->npaths]);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_array_begin(&j, "groups");
	for (int g = 0; g < a->ngroups; g++) {
		uint32_t begin, end;

		group_span(a, g, &begin, &end);
		json_object_begin(&j, NULL);
		json_string(&j, "name", a->group_names[g]);
		json_uint(&j, "begin", begin);
		json_uint(&j, "end", end);
		json_uint(&j, "lines", (end - 1) / a->line - begin / a->line + 1);
		json_object_end(&j);
	}
	json_array_end(&j);
	if (rep->check) {
		json_object_begin(&j, "guard");
		json_uint(&j, "guarded", rep->nr_guarded);
		json_array_begin(&j, "left");
		for (size_t i = 0; i < rep->nr_breaks; i++) {
			json_object_begin(&j, NULL);
			json_string(&j, "member", rep->breaks[i].u->name);
			json_string(&j, "group", rep->breaks[i].group);
			json_bool(&j, "member_gone", rep->breaks[i].u->gone);
			json_bool(&j, "group_gone", rep->breaks[i].group_gone);
			json_object_end(&j);
		}
		json_array_end(&j);
		json_object_end(&j);
	}
	json_object_end(&j);
	json_finish(&j);
}

void paths_guard(struct paths_report *rep, const struct advise *moved,
		 const struct layout *old, const struct layout *other)
{
	struct cache_groups og, ng;
	char err[256];

	rep->check = true;
	if (cache_groups_find(old, moved->line, &og, err, sizeof(err)))
		memset(&og, 0, sizeof(og));
	if (cache_groups_find(other, moved->line, &ng, err, sizeof(err)))
		memset(&ng, 0, sizeof(ng));
	for (size_t i = 0; i < moved->nu; i++) {
		const struct advise_unit *u = &moved->u[i];
		const struct cache_group *g = NULL, *n = NULL;

		if (!on_a_path(moved, u))
			continue;
		/* Top-level groups only: a nested struct moves whole. */
		for (size_t k = 0; k < og.n && !g; k++)
			if (!strchr(og.g[k].name, '.') &&
			    u->old_off >= og.g[k].begin &&
			    u->old_off < og.g[k].end)
				g = &og.g[k];
		if (!g)
			continue;
		rep->nr_guarded++;
		for (size_t k = 0; k < ng.n && !n; k++)
			if (!strcmp(ng.g[k].name, g->name))
				n = &ng.g[k];
		if (!u->gone && n && u->new_off >= n->begin &&
		    u->new_off < n->end)
			continue;
		rep->breaks = xrealloc(rep->breaks, (rep->nr_breaks + 1) *
				       sizeof(*rep->breaks));
		rep->breaks[rep->nr_breaks++] = (struct group_break){
			.u = u, .group = xstrdup(g->name),
			.new_off = u->new_off, .group_gone = !n,
			.begin = n ? n->begin : 0, .end = n ? n->end : 0,
		};
	}
	cache_groups_free(&og);
	cache_groups_free(&ng);
}

// SPDX-License-Identifier: GPL-2.0
/* A type's accesses split by hot path, from the samples' call chains (see fastpath.h). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "fastpath.h"
#include "util.h"

int fastpath_rule_parse(struct fastpath_rule *rule, const char *arg,
			char *err, size_t errlen)
{
	const char *eq = strchr(arg, '=');
	char *copy, *p;

	memset(rule, 0, sizeof(*rule));
	if (!eq || eq == arg || !eq[1]) {
		snprintf(err, errlen, "--path %s: expected NAME=FUNCTION[,FUNCTION...], e.g. tx=tcp_sendmsg",
			 arg);
		return -1;
	}
	copy = xstrdup(arg);
	copy[eq - arg] = 0;
	rule->name = copy;
	for (p = copy + (eq - arg) + 1; p;) {
		char *comma = strchr(p, ',');

		if (comma)
			*comma = 0;
		if (!*p) {
			snprintf(err, errlen, "--path %s: an empty function name", arg);
			fastpath_rule_free(rule);
			return -1;
		}
		rule->funcs = xrealloc(rule->funcs,
				       (rule->nfuncs + 1) * sizeof(*rule->funcs));
		rule->funcs[rule->nfuncs++] = p;
		p = comma ? comma + 1 : NULL;
	}
	return 0;
}

void fastpath_rule_free(struct fastpath_rule *rule)
{
	free((char *)rule->name);
	free(rule->funcs);
	memset(rule, 0, sizeof(*rule));
}

/* Frame @k's function: a return address's call is the byte before it. */
static const char *frame_func(const struct ksyms *syms, const uint64_t *frames,
			      size_t k)
{
	const struct ksym *s = ksyms_find(syms, k ? frames[k] - 1 : frames[k]);

	return s ? s->name : NULL;
}

/*
 * Where kernel work begins: the function a path's name is the callee of.
 * Syscalls (6.12 adds x64_sys_call between), softirqs (6.12 renames
 * __do_softirq handle_softirqs), kthreads and work items.
 */
static bool entry_boundary(const char *f)
{
	static const char *const names[] = {
		"do_syscall_64", "x64_sys_call", "__do_softirq",
		"handle_softirqs", "kthread", "process_one_work",
		"ret_from_fork", "do_int80_syscall_32",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(f, names[i]))
			return true;
	return false;
}

/* The path a chain (@frames[0] the sampled ip, then return addresses) is on. */
static const char *entry_name(const struct ksyms *syms, const uint64_t *frames,
			      size_t n)
{
	for (size_t k = 0; k < n; k++) {
		const char *f = frame_func(syms, frames, k);

		if (f && entry_boundary(f))
			return k ? frame_func(syms, frames, k - 1) : f;
	}
	return NULL;
}

/* One chained sample, before the hot paths are known. */
struct raw_hit {
	uint16_t offset;
	bool store;
	const char *path;	/* NULL: no entry found */
	const char *func;
};

static int by_path_name(const void *x, const void *y)
{
	const struct raw_hit *p = x, *q = y;

	if (!p->path || !q->path)
		return !p->path - !q->path;
	return strcmp(p->path, q->path);
}

static int by_key(const void *x, const void *y)
{
	const struct fastpath_hit *p = x, *q = y;

	if (p->offset != q->offset)
		return p->offset < q->offset ? -1 : 1;
	if (p->path != q->path)
		return p->path < q->path ? -1 : 1;
	return strcmp(p->func, q->func);
}

static int by_samples(const void *x, const void *y)
{
	const struct fastpath_hit *p = x, *q = y;

	if (p->offset != q->offset)
		return p->offset < q->offset ? -1 : 1;
	if (p->path != q->path)
		return p->path < q->path ? -1 : 1;
	if (p->samples != q->samples)
		return p->samples > q->samples ? -1 : 1;
	return strcmp(p->func, q->func);
}

/* By entry: the busiest names with FASTPATH_HOT_SHARE or more are hot. */
static void hot_by_entry(struct fastpath *fp, struct raw_hit *raw, size_t n)
{
	struct { const char *name; uint64_t count; } top[FASTPATH_MAX_PATHS];
	size_t ntop = 0;

	if (n)
		qsort(raw, n, sizeof(*raw), by_path_name);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && !by_path_name(&raw[i], &raw[j]); j++)
			;
		if (!raw[i].path)
			continue;
		if ((double)(j - i) < FASTPATH_HOT_SHARE * (double)n)
			continue;
		if (ntop < FASTPATH_MAX_PATHS) {
			top[ntop].name = raw[i].path;
			top[ntop++].count = j - i;
			continue;
		}
		/* Full (ten names have 10 % each): the least busy goes. */
		size_t least = 0;

		for (size_t k = 1; k < ntop; k++)
			if (top[k].count < top[least].count)
				least = k;
		if (top[least].count < j - i) {
			top[least].name = raw[i].path;
			top[least].count = j - i;
		}
	}
	/* Busiest first. */
	for (size_t i = 1; i < ntop; i++)
		for (size_t k = i; k && top[k].count > top[k - 1].count; k--) {
			__typeof__(top[0]) t = top[k];

			top[k] = top[k - 1];
			top[k - 1] = t;
		}
	for (size_t i = 0; i < ntop; i++)
		fp->names[fp->npaths++] = xstrdup(top[i].name);
}

static size_t path_index(const struct fastpath *fp, const char *name)
{
	for (size_t i = 0; name && i < fp->npaths; i++)
		if (!strcmp(fp->names[i], name))
			return i;
	return fp->npaths;
}

/* The rule naming the chain's innermost frame a rule lists, or NULL. */
static const char *by_rule(const struct ksyms *syms, const uint64_t *frames,
			   size_t n, const struct fastpath_rule *rules,
			   size_t nrules)
{
	for (size_t k = 0; k < n; k++) {
		const char *f = frame_func(syms, frames, k);

		for (size_t r = 0; f && r < nrules; r++)
			for (size_t i = 0; i < rules[r].nfuncs; i++)
				if (!strcmp(f, rules[r].funcs[i]))
					return rules[r].name;
	}
	return NULL;
}

static const struct dprof_op_count *op_count(const struct recording *r,
					    const char *func)
{
	for (size_t i = 0; i < r->nr_ops; i++)
		if (!strcmp(r->ops[i].name, func))
			return &r->ops[i];
	return NULL;
}

/* Each path's operations: see fastpath.h. */
static void count_ops(struct fastpath *fp, const struct recording *r,
		      const struct fastpath_rule *rules, size_t nrules)
{
	for (size_t p = 0; p < fp->npaths; p++) {
		const char *const *funcs = nrules ? rules[p].funcs :
				(const char *const *)&fp->names[p];
		size_t n = nrules ? rules[p].nfuncs : 1;

		for (size_t k = 0; k < n; k++) {
			const struct dprof_op_count *c = op_count(r, funcs[k]);

			if (!c)
				continue;
			fp->ops[p] = c->count;
			fp->ops_func[p] = xstrdup(c->name);
			break;
		}
	}
}

void fastpath_build(struct fastpath *fp, const struct recording *r,
		    int target, const struct ksyms *syms,
		    const struct fastpath_rule *rules, size_t nrules)
{
	uint64_t frames[DPROF_CHAIN_MAX + 1];
	struct raw_hit *raw = NULL;
	size_t nraw = 0, cap = 0;
	const struct dprof_rec_hdr *hdr;
	struct rec_iter it;

	memset(fp, 0, sizeof(*fp));
	rec_iter_init(&it, r);
	while ((hdr = rec_iter_next(&it))) {
		struct dprof_sample_rec sr;
		const struct ksym *leaf;
		size_t n;

		if (hdr->kind != DPROF_REC_SAMPLE || hdr->target != target)
			continue;
		rec_sample(hdr, &sr);
		n = rec_sample_chain(hdr, frames + 1, DPROF_CHAIN_MAX);
		if (!n) {
			fp->unchained++;
			continue;
		}
		frames[0] = sr.ip;
		if (nraw == cap) {
			cap = cap ? 2 * cap : 1024;
			raw = xrealloc(raw, cap * sizeof(*raw));
		}
		leaf = ksyms_find(syms, sr.ip);
		raw[nraw] = (struct raw_hit){
			.offset = sr.offset,
			.store = hdr->flags & DPROF_SAMPLE_STORE,
			.func = leaf ? leaf->name : "?",
			.path = nrules ? by_rule(syms, frames, n + 1, rules, nrules) :
				entry_name(syms, frames, n + 1),
		};
		fp->no_entry += !nrules && !raw[nraw].path;
		nraw++;
	}
	fp->chained = nraw;
	if (nrules) {
		for (size_t i = 0; i < nrules && i < FASTPATH_MAX_PATHS; i++)
			fp->names[fp->npaths++] = xstrdup(rules[i].name);
	} else {
		hot_by_entry(fp, raw, nraw);
	}
	fp->hits = xcalloc(nraw + 1, sizeof(*fp->hits));
	for (size_t i = 0; i < nraw; i++) {
		size_t p = path_index(fp, raw[i].path);

		fp->path_samples[p]++;
		fp->hits[i] = (struct fastpath_hit){
			.offset = raw[i].offset, .path = p, .func = raw[i].func,
			.samples = 1, .stores = raw[i].store,
		};
	}
	free(raw);
	if (nraw)
		qsort(fp->hits, nraw, sizeof(*fp->hits), by_key);
	for (size_t i = 0; i < nraw; i++) {
		struct fastpath_hit *last = fp->nhits ? &fp->hits[fp->nhits - 1] : NULL;

		if (last && !by_key(last, &fp->hits[i])) {
			last->samples++;
			last->stores += fp->hits[i].stores;
		} else {
			fp->hits[fp->nhits++] = fp->hits[i];
		}
	}
	if (fp->nhits)
		qsort(fp->hits, fp->nhits, sizeof(*fp->hits), by_samples);
	count_ops(fp, r, rules, nrules);
}

void fastpath_free(struct fastpath *fp)
{
	for (size_t i = 0; i < fp->npaths; i++) {
		free(fp->names[i]);
		free(fp->ops_func[i]);
	}
	free(fp->hits);
	memset(fp, 0, sizeof(*fp));
}

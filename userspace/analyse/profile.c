// SPDX-License-Identifier: GPL-2.0
/*
 * The data profile (see profile.h).  The module's aggregated entries are
 * keyed by (type, offset, ip, source) per CPU; here they are named and
 * merged into one row per field: each entry gets its field from the
 * type's BTF layout, the entries are sorted by (type, field) and every
 * run becomes a row, its top accessing instruction found by sorting the
 * run by ip.  Memory is proportional to the entries, not to samples.
 */
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "datasyms.h"
#include "histories.h"
#include "objects.h"
#include "profile.h"
#include "rawsamples.h"
#include "util.h"

/*
 * One aggregated entry, of a slab type's table or of the table of
 * samples in no slab object, with its row key.
 */
struct keyed {
	unsigned int target;	/* index into profile.types */
	uint32_t offset;	/* sampled byte, or start of a watched slot */
	uint32_t key_offset;	/* start of the field (array element) */
	uint32_t size;
	char *name;		/* owned until the rows are built */
	uint64_t ip;		/* accessing instruction */
	uint64_t count, misses, latency_sum, lat_misses;
	uint64_t loads, stores;	/* the entry's, or from its instruction */
};

/*
 * Loads and stores of an entry: the sampler's, or where the breakpoints
 * did not tell (one read/write breakpoint per offset) the kind of the
 * instruction at the trap ip, decoded by record; a read-modify-write is
 * a store, as coherence sees it.
 */
static void entry_kinds(struct keyed *k, const struct recording *r,
			const struct dprof_sample_agg *e)
{
	k->loads = e->loads;
	k->stores = e->stores;
	if (!(e->flags & DPROF_AGG_WATCH_IP) || e->loads || e->stores)
		return;
	switch (access_kind_lookup(r, e->ip)) {
	case DPROF_ACCESS_LOAD:
		k->loads = e->count;
		break;
	case DPROF_ACCESS_STORE:
	case DPROF_ACCESS_RMW:
		k->stores = e->count;
		break;
	default:
		break;
	}
}

static int by_row(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	int c;

	if (x->target != y->target)
		return x->target < y->target ? -1 : 1;
	if (x->key_offset != y->key_offset)
		return x->key_offset < y->key_offset ? -1 : 1;
	c = strcmp(x->name, y->name);
	if (c)
		return c;
	return x->ip < y->ip ? -1 : x->ip > y->ip;
}

/*
 * The watched slot length, from typed records: the history plans' items
 * (the windows' offset groups are plan items), else the first history's
 * BEGIN; 8, history_len's default, in a recording with neither.
 */
static uint32_t watch_slot(const struct recording *r)
{
	const struct dprof_rec_hdr *hdr;
	struct rec_iter it;

	for (size_t i = 0; i < r->nr_plans; i++)
		if (r->plans[i].len >= 1 && r->plans[i].len <= 8)
			return r->plans[i].len;
	if (!r->kind_count[DPROF_REC_HIST_BEGIN])
		return 8;
	rec_iter_init(&it, r);
	while ((hdr = rec_iter_next(&it)))
		if (hdr->kind == DPROF_REC_HIST_BEGIN) {
			const struct dprof_hist_begin *b = (const void *)hdr;

			if (b->len >= 1 && b->len <= 8)
				return b->len;
		}
	return 8;
}

bool profile_sampler(const struct recording *r, char *sampler, size_t len)
{
	static const char *const names[] = {
		[DPROF_SAMPLER_NONE] = "off", [DPROF_SAMPLER_IBS] = "ibs",
		[DPROF_SAMPLER_PEBS] = "pebs", [DPROF_SAMPLER_WATCH] = "watch",
		[DPROF_SAMPLER_INJECT] = "inject", [DPROF_SAMPLER_OPERAND] = "operand",
	};
	const char *s = r->profile_text ? strstr(r->profile_text, "sampler: ") :
		NULL;
	size_t i = 0;

	snprintf(sampler, len, "?");
	if (r->has_facts) {
		if (r->facts.sampler < sizeof(names) / sizeof(names[0]))
			snprintf(sampler, len, "%s", names[r->facts.sampler]);
	} else if (s) {
		/* Recordings before the facts: the sentence of "profile". */
		s += strlen("sampler: ");
		while (i + 1 < len && s[i] >= 'a' && s[i] <= 'z') {
			sampler[i] = s[i];
			i++;
		}
		sampler[i] = '\0';
	} else {
		for (i = 0; i < r->nr_samples; i++)
			if (r->samples[i].flags & DPROF_AGG_WATCH_IP) {
				snprintf(sampler, len, "watch");
				break;
			}
	}
	/* inject: samples a test wrote, with the miss flags it chose. */
	return !strcmp(sampler, "ibs") || !strcmp(sampler, "pebs") ||
	       !strcmp(sampler, "inject");
}


/* The layout of @t's struct, or NULL with the reason in t->no_names_why. */
static struct layout *type_layout(struct btf *btf, const char *btf_why,
				  const struct type_map *map,
				  struct profile_type *t)
{
	const char *sname = type_map_lookup(map, t->cache);
	struct layout *l;
	char err[600], why[800];

	if (!btf && (!map || !map->nr_debug)) {
		t->no_names_why = xstrdup(btf_why);
		return NULL;
	}
	if (!sname && !strncmp(t->cache, "kmalloc-", 8)) {
		t->no_names_why = xstrdup("kmalloc caches hold many types, named by allocation site; -T CACHE=STRUCT names the fields");
		return NULL;
	}
	l = xcalloc(1, sizeof(*l));
	/* A variable (watch_symbols=): its declared type, unless mapped. */
	if (!sname && t->variable) {
		if (!layout_find_var(btf, map, t->cache, l, err, sizeof(err))) {
			t->struct_name = xstrdup(l->name);
			return l;
		}
		snprintf(why, sizeof(why), "%s; -D FILE or -T NAME=STRUCT names its fields",
			 err);
		t->no_names_why = xstrdup(why);
		free(l);
		return NULL;
	}
	if (!sname)
		sname = t->cache;	/* dentry, task_struct, ... */
	if (layout_find(btf, map, sname, l, err, sizeof(err))) {
		snprintf(why, sizeof(why), "%s; -T CACHE=STRUCT or -D FILE names its fields",
			 err);
		t->no_names_why = xstrdup(why);
		free(l);
		return NULL;
	}
	t->struct_name = xstrdup(l->name);
	return l;
}

/*
 * A watch sample's offset is the start of the watched slot (history_len
 * bytes, 8 by default): the access was somewhere in it, so the row names
 * every field the slot overlaps.  IBS and PEBS give the exact byte.
 */
static void key_entry(struct keyed *k, const struct layout *l,
		      uint32_t slot, char *buf, size_t len)
{
	uint32_t off = k->offset;
	const struct layout_field *f = l ? layout_field_at(l, off) : NULL;

	if (!l) {
		snprintf(buf, len, "+%u", off);
		k->key_offset = off;
		k->size = slot;
	} else if (slot) {
		layout_name_range(l, off, slot, buf, len);
		k->key_offset = off;
		k->size = slot;
	} else if (!f) {
		layout_name_at(l, off, buf, len);	/* padding or beyond */
		k->key_offset = off;
		k->size = 1;
	} else {
		layout_name_at(l, off, buf, len);
		k->key_offset = f->offset;
		k->size = f->size;
		if (f->elem_size && f->size > f->elem_size) {
			k->key_offset += (off - f->offset) / f->elem_size *
					 f->elem_size;
			k->size = f->elem_size;
		}
	}
	k->name = xstrdup(buf);
}

/* One row from the run [from, to) of sorted entries. */
static void add_row(struct profile_type *t, const struct keyed *from,
		    const struct keyed *to)
{
	struct profile_field *f;

	t->fields = xrealloc(t->fields, (t->nr_fields + 1) * sizeof(*t->fields));
	f = &t->fields[t->nr_fields++];
	memset(f, 0, sizeof(*f));
	f->offset = from->key_offset;
	f->size = from->size;
	f->name = xstrdup(from->name);
	for (const struct keyed *k = from; k < to; k++)
		f->nr_ips += k == from || k[-1].ip != k->ip;
	f->ips = xcalloc(f->nr_ips, sizeof(*f->ips));
	f->nr_ips = 0;
	for (const struct keyed *k = from; k < to; k++) {
		f->samples += k->count;
		f->loads += k->loads;
		f->stores += k->stores;
		f->misses += k->misses;
		f->latency_sum += k->latency_sum;
		f->lat_misses += k->lat_misses;
		/* Sorted by ip within the run: sum each ip's entries. */
		if (k == from || k[-1].ip != k->ip)
			f->ips[f->nr_ips++].ip = k->ip;
		f->ips[f->nr_ips - 1].samples += k->count;
		f->ips[f->nr_ips - 1].misses += k->misses;
		f->ips[f->nr_ips - 1].latency_sum += k->latency_sum;
	}
	for (size_t i = 0; i < f->nr_ips; i++)
		if (f->ips[i].samples > f->top_ip_samples) {
			f->top_ip_samples = f->ips[i].samples;
			f->top_ip = f->ips[i].ip;
		}
	t->samples += f->samples;
	t->loads += f->loads;
	t->stores += f->stores;
	t->misses += f->misses;
	t->latency_sum += f->latency_sum;
	t->lat_misses += f->lat_misses;
}

/* Call-site counts of one kmalloc target: a small growable hash. */
struct site_count {
	uint64_t site, n;
};

static void count_site(struct site_count **tab, size_t *cap, size_t *used,
		       uint64_t site)
{
	size_t i;

	if (2 * (*used + 1) > *cap) {
		size_t old = *cap;
		struct site_count *o = *tab;

		*cap = old ? 2 * old : 256;
		*tab = xcalloc(*cap, sizeof(**tab));
		for (size_t k = 0; k < old; k++) {
			if (!o[k].n)
				continue;
			i = (o[k].site * 0x9e3779b97f4a7c15ull >> 20) & (*cap - 1);
			while ((*tab)[i].n)
				i = (i + 1) & (*cap - 1);
			(*tab)[i] = o[k];
		}
		free(o);
	}
	i = (site * 0x9e3779b97f4a7c15ull >> 20) & (*cap - 1);
	while ((*tab)[i].n && (*tab)[i].site != site)
		i = (i + 1) & (*cap - 1);
	if (!(*tab)[i].n) {
		(*tab)[i].site = site;
		(*used)++;
	}
	(*tab)[i].n++;
}

/* kmalloc-N's samples by the sites of the followed objects they fell on. */
static void samples_by_site(const struct recording *r, struct profile *p)
{
	struct site_splits all;
	bool *want = xcalloc(DPROF_MAX_TARGETS, sizeof(*want));
	bool any = false;

	for (size_t i = 0; i < p->nr_types; i++)
		if (p->types[i].kmalloc && p->types[i].target < DPROF_MAX_TARGETS)
			any = want[p->types[i].target] = true;
	if (any && r->kind_count[DPROF_REC_SAMPLE]) {
		site_split_build(r, want, &all);
		for (size_t i = 0; i < p->nr_types; i++) {
			struct profile_type *t = &p->types[i];

			if (!t->kmalloc || t->target >= DPROF_MAX_TARGETS)
				continue;
			t->by_site = all.t[t->target];
			all.t[t->target].sites = NULL;	/* the type's now */
		}
		site_split_free(&all);
	}
	free(want);
}

/* kmalloc-N holds many types: name them by their allocation sites. */
static void kmalloc_sites(const struct recording *r, struct profile *p)
{
	struct site_count **tab;
	size_t *cap, *used;
	const struct dprof_rec_hdr *hdr;
	struct rec_iter it;
	bool any = false;

	for (size_t i = 0; i < p->nr_types; i++)
		any |= p->types[i].kmalloc;
	if (!any)
		return;
	/* Up to 4095 targets: on the heap, not the stack. */
	tab = xcalloc(DPROF_MAX_TARGETS, sizeof(*tab));
	cap = xcalloc(DPROF_MAX_TARGETS, sizeof(*cap));
	used = xcalloc(DPROF_MAX_TARGETS, sizeof(*used));
	rec_iter_init(&it, r);
	while ((hdr = rec_iter_next(&it))) {
		const struct dprof_obj_event *o = (const void *)hdr;

		if (hdr->kind == DPROF_REC_ALLOC && hdr->target < DPROF_MAX_TARGETS)
			count_site(&tab[hdr->target], &cap[hdr->target],
				   &used[hdr->target], o->call_site);
	}
	for (size_t i = 0; i < p->nr_types; i++) {
		struct profile_type *t = &p->types[i];
		unsigned int ti = t->target;

		if (!t->kmalloc || ti >= DPROF_MAX_TARGETS)
			continue;
		for (size_t k = 0; k < cap[ti]; k++) {
			const struct site_count *s = &tab[ti][k];

			t->allocs += s->n;
			for (int j = 0; j < PROFILE_SITES; j++) {
				if (s->n <= t->sites[j].allocs)
					continue;
				memmove(&t->sites[j + 1], &t->sites[j],
					(PROFILE_SITES - j - 1) *
					sizeof(t->sites[0]));
				t->sites[j].call_site = s->site;
				t->sites[j].allocs = s->n;
				break;
			}
		}
	}
	for (size_t i = 0; i < DPROF_MAX_TARGETS; i++)
		free(tab[i]);
	free(tab);
	free(cap);
	free(used);
}

/* ---- samples in no slab object, as types ------------------------------ */

/* "jiffies_64", "var[module]", "runqueues(percpu)", "[stack]". */
static char *data_type_name(const struct data_place *pl)
{
	char buf[300];
	const struct data_sym *s = pl->sym;

	if (!s) {
		snprintf(buf, sizeof(buf), "[%s]", data_region_name(pl->region));
		return xstrdup(buf);
	}
	snprintf(buf, sizeof(buf), "%s%s%s%s%s", s->name,
		 pl->region == DATA_PERCPU ? "(percpu)" : "",
		 s->module ? "[" : "", s->module ? s->module : "",
		 s->module ? "]" : "");
	return xstrdup(buf);
}

/* A variable's layout from BTF or DWARF, or why its fields are unnamed. */
static struct layout *data_layout(struct btf *btf, const char *btf_why,
				  const struct type_map *map,
				  struct profile_type *t, const struct data_sym *s)
{
	const char *sname = type_map_lookup(map, t->cache);
	struct layout *l;
	char err[600], why[900];

	if (!s) {
		t->no_names_why = xstrdup(t->region == DATA_UNNAMED ?
			"no symbol holds these addresses (vmalloc, page cache, direct map): one row" :
			"one bucket, no fields");
		return NULL;
	}
	if (!btf && (!map || !map->nr_debug) && !sname) {
		t->no_names_why = xstrdup(btf_why);
		return NULL;
	}
	l = xcalloc(1, sizeof(*l));
	if (sname ? !layout_find(btf, map, sname, l, err, sizeof(err)) :
		    !layout_find_var(btf, map, s->name, l, err, sizeof(err))) {
		t->struct_name = xstrdup(l->name);
		t->object_size = l->size;
		return l;
	}
	/* The type's line names it; the options are in dprof-view(1). */
	snprintf(why, sizeof(why), "%s; %s or -T NAME=STRUCT names its fields",
		 err, s->module ? "-D MODULE.ko" : "--vmlinux FILE");
	t->no_names_why = xstrdup(why);
	free(l);
	return NULL;
}

/* Open addressing, symbol (or bucket) -> index into profile.types. */
struct group_map {
	uintptr_t *keys;
	size_t *types;
	size_t mask;
};

static size_t *group_slot(struct group_map *g, uintptr_t key)
{
	size_t i = (key * 0x9e3779b97f4a7c15ull >> 17) & g->mask;

	while (g->keys[i] && g->keys[i] != key)
		i = (i + 1) & g->mask;
	g->keys[i] = key;
	return &g->types[i];
}

/*
 * Append one type per variable (or bucket) the samples in no slab object
 * fell in, and their entries to @keyed from *@n on.  @layouts grows with
 * the types.
 */
static void add_data_types(const struct recording *r, struct btf *btf,
			   const char *btf_why, const struct type_map *map,
			   struct profile *p, struct layout ***layouts,
			   struct keyed *keyed, size_t *n)
{
	struct data_syms ds;
	struct group_map g;
	size_t cap = 16;

	if (!r->nr_data_samples)
		return;
	data_syms_load(&ds, r->kallsyms, r->percpu_offsets,
		       r->nr_percpu_offsets);
	while (cap < 2 * r->nr_data_samples)
		cap *= 2;
	g.keys = xcalloc(cap, sizeof(*g.keys));
	g.types = xcalloc(cap, sizeof(*g.types));
	g.mask = cap - 1;
	for (size_t i = 0; i < r->nr_data_samples; i++) {
		const struct dprof_data_agg *e = &r->data_samples[i];
		struct data_place pl;
		struct profile_type *t;
		struct keyed *k = &keyed[*n];
		size_t *ti;
		char buf[512];

		data_syms_place(&ds, e, &pl);
		/* A symbol's key is its address in ds; buckets are 1..5. */
		ti = group_slot(&g, pl.sym ? (uintptr_t)pl.sym :
				(uintptr_t)pl.region + 1);
		if (!*ti) {
			p->types = xrealloc(p->types, (p->nr_types + 1) *
					    sizeof(*p->types));
			*layouts = xrealloc(*layouts, (p->nr_types + 1) *
					    sizeof(**layouts));
			t = &p->types[p->nr_types];
			memset(t, 0, sizeof(*t));
			t->target = UINT32_MAX;
			t->data = true;
			t->region = pl.region;
			t->own_cache = data_type_name(&pl);
			t->cache = t->own_cache;
			t->object_size = pl.sym ? (uint32_t)pl.sym->size : 0;
			(*layouts)[p->nr_types] = data_layout(btf, btf_why, map,
							       t, pl.sym);
			*ti = ++p->nr_types;	/* 0 is "none yet" */
		}
		t = &p->types[*ti - 1];
		memset(k, 0, sizeof(*k));
		k->target = (unsigned int)(*ti - 1);
		k->offset = (uint32_t)pl.offset;
		k->count = e->count;
		k->misses = e->misses;
		k->latency_sum = e->latency_sum;
		k->lat_misses = e->loads ? e->misses : 0;	/* as agg_latency_misses() */
		k->loads = e->loads;
		k->stores = e->stores;
		k->ip = e->ip;
		if (pl.sym) {
			key_entry(k, (*layouts)[k->target], 0, buf, sizeof(buf));
		} else {
			k->name = xstrdup("(all addresses)");
			k->size = 0;
		}
		if (t->object_size < k->offset + 1 && pl.sym)
			t->object_size = k->offset + 1;
		(*n)++;
	}
	free(g.keys);
	free(g.types);
	data_syms_free(&ds);
}

static int by_weight(uint64_t wx, uint64_t wy, const struct profile_type *x,
		     const struct profile_type *y)
{
	if (wx != wy)
		return wx > wy ? -1 : 1;
	return x->target < y->target ? -1 : x->target > y->target;
}

static int by_misses(const void *a, const void *b)
{
	const struct profile_type *x = a, *y = b;

	return by_weight(x->misses, y->misses, x, y);
}

static int by_samples(const void *a, const void *b)
{
	const struct profile_type *x = a, *y = b;

	return by_weight(x->samples, y->samples, x, y);
}

void profile_build(const struct recording *r, const struct type_map *map,
		   struct profile *p)
{
	struct btf *btf = NULL;
	const char *btf_why = "the recording has no BTF";
	struct layout **layouts;
	struct keyed *keyed;
	struct obj_summary objs;
	struct dprof_sample_agg *own = NULL;
	const struct dprof_sample_agg *samples;
	size_t i, n = 0, start, nr_samples;
	uint32_t slot = watch_slot(r);
	char buf[512];

	memset(p, 0, sizeof(*p));
	p->misses_measured = profile_sampler(r, p->sampler, sizeof(p->sampler));
	if (r->btf) {
		btf = btf__new(r->btf, r->btf_len);
		if (libbpf_get_error(btf)) {
			btf = NULL;
			btf_why = "the recording's BTF is unreadable";
		}
	}
	p->nr_types = r->nr_targets;
	p->types = xcalloc(p->nr_types ? p->nr_types : 1, sizeof(*p->types));
	layouts = xcalloc(p->nr_types ? p->nr_types : 1, sizeof(*layouts));
	for (i = 0; i < p->nr_types; i++) {
		struct profile_type *t = &p->types[i];

		t->target = r->targets[i].index;
		t->cache = r->targets[i].name;
		t->variable = r->targets[i].flags & DPROF_TARGET_VAR;
		t->kmalloc = !t->variable &&
			     ((r->targets[i].flags & DPROF_TARGET_KMALLOC) ||
			      !strncmp(t->cache, "kmalloc-", 8));
		t->object_size = r->targets[i].object_size;
		layouts[i] = type_layout(btf, btf_why, map, t);
	}
	kmalloc_sites(r, p);
	samples_by_site(r, p);
	if (!objects_summarize(r, &objs)) {
		for (i = 0; i < p->nr_types; i++) {
			unsigned int ti = p->types[i].target;

			if (ti < objs.nr_targets) {
				p->types[i].matched_frees = objs.targets[ti].matched;
				p->types[i].remote_frees =
					objs.targets[ti].remote_frees;
				p->types[i].bounce_addrs =
					objs.targets[ti].bounce_addrs;
				p->types[i].bounce_err =
					objs.targets[ti].bounce_err;
			}
		}
		objects_free(&objs);
	}

	/* Without the module's tables, aggregate its raw sample records. */
	samples = r->samples;
	nr_samples = r->nr_samples;
	if (!nr_samples && r->kind_count[DPROF_REC_SAMPLE]) {
		nr_samples = raw_samples_aggregate(r, &own);
		samples = own;
	}
	keyed = xcalloc(nr_samples + r->nr_data_samples + 1, sizeof(*keyed));
	for (i = 0; i < nr_samples; i++) {
		const struct dprof_sample_agg *e = &samples[i];
		size_t t;

		for (t = 0; t < p->nr_types; t++)
			if (p->types[t].target == e->target)
				break;
		if (t == p->nr_types || !e->count)
			continue;	/* validated at load; no such type */
		keyed[n].target = (unsigned int)t;	/* index into types */
		keyed[n].offset = e->offset;
		keyed[n].count = e->count;
		keyed[n].misses = e->misses;
		keyed[n].latency_sum = e->latency_sum;
		keyed[n].lat_misses = agg_latency_misses(e);
		keyed[n].ip = e->ip;
		if (e->flags & DPROF_AGG_WATCH_IP) {
			uint64_t a = ipmap_lookup(r, e->ip);

			keyed[n].ip = a ? a : e->ip;
		}
		entry_kinds(&keyed[n], r, e);
		key_entry(&keyed[n], layouts[t],
			  e->flags & DPROF_AGG_WATCH_IP ? slot : 0, buf,
			  sizeof(buf));
		n++;
	}
	add_data_types(r, btf, btf_why, map, p, &layouts, keyed, &n);
	qsort(keyed, n, sizeof(*keyed), by_row);
	for (start = 0, i = 1; i <= n; i++) {
		if (i < n && keyed[i].target == keyed[start].target &&
		    keyed[i].key_offset == keyed[start].key_offset &&
		    !strcmp(keyed[i].name, keyed[start].name))
			continue;
		if (n)
			add_row(&p->types[keyed[start].target], &keyed[start],
				&keyed[i]);
		start = i;
	}
	for (i = 0; i < p->nr_types; i++) {
		p->samples += p->types[i].samples;
		p->misses += p->types[i].misses;
		if (layouts[i])
			layout_free(layouts[i]);
		free(layouts[i]);
	}
	qsort(p->types, p->nr_types, sizeof(*p->types),
	      p->misses_measured ? by_misses : by_samples);
	for (i = 0; i < n; i++)
		free(keyed[i].name);
	free(keyed);
	free(own);
	free(layouts);
	btf__free(btf);
}

void profile_free(struct profile *p)
{
	for (size_t i = 0; i < p->nr_types; i++) {
		struct profile_type *t = &p->types[i];

		for (size_t j = 0; j < t->nr_fields; j++) {
			free(t->fields[j].name);
			free(t->fields[j].ips);
		}
		free(t->fields);
		free(t->struct_name);
		free(t->no_names_why);
		free(t->own_cache);
		free(t->by_site.sites);
	}
	free(p->types);
	memset(p, 0, sizeof(*p));
}

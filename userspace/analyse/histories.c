// SPDX-License-Identifier: GPL-2.0
/*
 * Rebuilding histories.  Elements carry only the low 13 bits of their
 * history id; at most one history is open at a time and ids advance by at
 * most the arming rate, so an element belongs to the history with those
 * id bits whose BEGIN is nearest to it in the record stream (records of
 * different CPUs are interleaved by drain, never by more than one drain).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "histories.h"
#include "util.h"

static int id_cmp(const void *a, const void *b)
{
	const struct history *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int elem_cmp(const void *a, const void *b)
{
	const struct hist_elem *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

const struct history *histories_find(const struct history_set *hs,
				     uint32_t id)
{
	struct history key = { .id = id };

	if (!hs->n)	/* bsearch(NULL, 0) is undefined */
		return NULL;
	return bsearch(&key, hs->h, hs->n, sizeof(*hs->h), id_cmp);
}

/*
 * The histories grouped by the id bits an element carries, each group in
 * file order of BEGIN: an element's owner is found by binary search, so
 * the cost grows with log(histories per tag), not with their number (a
 * linear walk made building 16x the bench recording take 60x the time).
 */
struct owner_index {
	size_t start[DPROF_ELEM_ID_MASK + 2];	/* group of tag t: [t], [t+1] */
	struct begin_at {
		uint64_t pos;
		size_t h;
	} *by_pos;
};

static int begin_pos_cmp(const void *a, const void *b)
{
	const struct begin_at *x = a, *y = b;

	return (x->pos > y->pos) - (x->pos < y->pos);
}

static void owner_index_build(struct owner_index *ix,
			      const struct history_set *hs)
{
	struct begin_at *sorted = xcalloc(hs->n + 1, sizeof(*sorted));
	size_t *at = ix->start;

	memset(ix->start, 0, sizeof(ix->start));
	for (size_t i = 0; i < hs->n; i++) {
		sorted[i].pos = hs->h[i].begin_pos;
		sorted[i].h = i;
		ix->start[(hs->h[i].id & DPROF_ELEM_ID_MASK) + 1]++;
	}
	if (hs->n)	/* qsort(NULL, 0) is undefined */
		qsort(sorted, hs->n, sizeof(*sorted), begin_pos_cmp);
	for (size_t t = 1; t <= DPROF_ELEM_ID_MASK + 1; t++)
		at[t] += at[t - 1];
	/* Stable by tag: each group stays in BEGIN order. */
	ix->by_pos = xcalloc(hs->n + 1, sizeof(*ix->by_pos));
	for (size_t i = 0; i < hs->n; i++) {
		unsigned int tag = hs->h[sorted[i].h].id & DPROF_ELEM_ID_MASK;

		ix->by_pos[at[tag]++] = sorted[i];
	}
	/* at[t] now ends group t: shift back to starts. */
	memmove(ix->start + 1, ix->start, (DPROF_ELEM_ID_MASK + 1) *
		sizeof(*ix->start));
	ix->start[0] = 0;
	free(sorted);
}

/*
 * The history with these id bits whose BEGIN is nearest @pos; of two at
 * the same distance, the lower id.
 */
static struct history *owner(struct history_set *hs,
			     const struct owner_index *ix, unsigned int tag,
			     uint64_t pos)
{
	size_t lo = ix->start[tag], hi = ix->start[tag + 1], first = lo;
	const struct begin_at *before, *after;

	if (lo == hi)
		return NULL;
	while (lo < hi) {	/* the first BEGIN after @pos */
		size_t mid = lo + (hi - lo) / 2;

		if (ix->by_pos[mid].pos <= pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	before = lo > first ? &ix->by_pos[lo - 1] : NULL;
	after = lo < ix->start[tag + 1] ? &ix->by_pos[lo] : NULL;
	if (before && after) {
		uint64_t db = pos - before->pos, da = after->pos - pos;

		if (db != da)
			return &hs->h[db < da ? before->h : after->h];
		return &hs->h[before->h < after->h ? before->h : after->h];
	}
	return &hs->h[before ? before->h : after->h];
}

static void add_elem(struct history *h, const struct hist_elem *e)
{
	if (h->nr_elems == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 16;
		h->elems = xrealloc(h->elems, h->cap * sizeof(*h->elems));
	}
	h->elems[h->nr_elems++] = *e;
}

static void collect_begins(struct history_set *hs, const struct recording *r)
{
	struct rec_iter it;
	const struct dprof_rec_hdr *hdr;
	size_t cap = 0;
	uint64_t pos = 0;

	rec_iter_init(&it, r);
	for (; (hdr = rec_iter_next(&it)); pos++) {
		struct dprof_hist_begin b;
		struct history *h;

		if (hdr->kind != DPROF_REC_HIST_BEGIN)
			continue;
		memcpy(&b, hdr, sizeof(b));
		if (hs->n == cap) {
			cap = cap ? cap * 2 : 64;
			hs->h = xrealloc(hs->h, cap * sizeof(*hs->h));
		}
		h = &hs->h[hs->n++];
		memset(h, 0, sizeof(*h));
		h->id = b.id;
		h->plan_item = b.plan_item;
		h->target = b.hdr.target;
		h->addr = b.addr;
		h->alloc_ns = b.time_ns;
		h->alloc_site = b.call_site;
		h->alloc_cpu = b.hdr.cpu;
		/* Unused slots are NO_OFFSET, so offset arrays compare whole. */
		for (int k = 0; k < DPROF_HIST_MAX_OFFSETS; k++)
			h->offset[k] = k < b.nr_offsets ? b.offset[k] :
				       DPROF_HIST_NO_OFFSET;
		h->nr_offsets = b.nr_offsets;
		h->len = b.len;
		h->begin_flags = b.hdr.flags;
		h->begin_pos = pos;
	}
	if (hs->n)	/* qsort(NULL, 0) is undefined */
		qsort(hs->h, hs->n, sizeof(*hs->h), id_cmp);
}

bool hist_elem_disagrees(const struct hist_elem *e)
{
	if (e->reported == HIST_REPORTED_NONE)
		return false;
	switch (e->kind) {
	case DPROF_ACCESS_LOAD:
		return e->reported == HIST_REPORTED_WRITE;
	case DPROF_ACCESS_STORE:
	case DPROF_ACCESS_RMW:
		return e->reported == HIST_REPORTED_READ;
	default:
		return false;
	}
}

const char *offsets_format(const uint16_t *offset, int n, char *buf,
			   size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (int k = 0; k < n && at < len; k++)
		at += snprintf(buf + at, len - at, "%s%u", k ? "," : "",
			       offset[k]);
	return buf;
}

const char *access_kind_name(unsigned int kind)
{
	switch (kind) {
	case DPROF_ACCESS_LOAD: return "load";
	case DPROF_ACCESS_STORE: return "store";
	case DPROF_ACCESS_RMW: return "rmw";
	case DPROF_ACCESS_AMBIGUOUS: return "ambiguous";
	default: return "unknown";
	}
}

/*
 * Read or write for coherence: the instruction decides when it was
 * decoded to one kind; the breakpoints otherwise.
 */
static void elem_kind(struct hist_elem *e, const struct history *h,
		      uint16_t tag, const struct recording *r,
		      struct kind_counts *kc)
{
	e->kind = e->trap_ip ? access_kind_lookup(r, e->trap_ip) :
		  DPROF_ACCESS_UNKNOWN;
	e->reported = h->begin_flags & DPROF_HIST_RW_UNSURE ?
		      HIST_REPORTED_NONE :
		      tag & DPROF_ELEM_WRITE ? HIST_REPORTED_WRITE :
		      HIST_REPORTED_READ;
	kc->by_kind[e->kind]++;
	switch (e->kind) {
	case DPROF_ACCESS_LOAD:
	case DPROF_ACCESS_STORE:
	case DPROF_ACCESS_RMW:
		e->write = e->kind != DPROF_ACCESS_LOAD;
		e->rw_known = true;
		if (e->reported != HIST_REPORTED_NONE) {
			kc->compared++;
			if (hist_elem_disagrees(e))
				(*(e->write ? &kc->write_reported_read :
				   &kc->load_reported_write))++;
		}
		return;
	default:
		e->write = e->reported == HIST_REPORTED_WRITE;
		e->rw_known = e->reported != HIST_REPORTED_NONE;
		kc->rw_unknown += !e->rw_known;
	}
}

void histories_build(struct history_set *hs, const struct recording *r)
{
	struct owner_index *ix = xcalloc(1, sizeof(*ix));
	const struct dprof_rec_hdr *hdr;
	struct rec_iter it;
	uint64_t pos = 0;

	memset(hs, 0, sizeof(*hs));
	collect_begins(hs, r);
	owner_index_build(ix, hs);
	rec_iter_init(&it, r);
	for (; (hdr = rec_iter_next(&it)); pos++) {
		if (hdr->kind == DPROF_REC_HIST_ELEM) {
			struct dprof_hist_elem el;
			struct hist_elem e;
			struct history *h;
			unsigned int w;

			memcpy(&el, hdr, sizeof(el));
			h = owner(hs, ix, el.tag & DPROF_ELEM_ID_MASK, pos);
			w = (el.tag & DPROF_ELEM_WATCH_MASK) >>
			    DPROF_ELEM_WATCH_SHIFT;
			if (!h || w >= h->nr_offsets) {
				hs->orphan_elems++;
				continue;
			}
			e.trap_ip = el.ip_lo ? 0xffffffff00000000ull | el.ip_lo : 0;
			e.ip = e.trap_ip ? ipmap_lookup(r, e.trap_ip) : 0;
			if (!e.ip) {
				hs->unmapped_ips += e.trap_ip != 0;
				e.ip = e.trap_ip;
			}
			e.time_ns = el.time_ns;
			e.pos = pos;
			e.cpu = el.cpu;
			e.offset = h->offset[w];
			elem_kind(&e, h, el.tag, r, &hs->kinds);
			h->rw_unknown += !e.rw_known;
			add_elem(h, &e);
		} else if (hdr->kind == DPROF_REC_HIST_END) {
			struct dprof_hist_end en;
			struct history *h;

			memcpy(&en, hdr, sizeof(en));
			h = (struct history *)histories_find(hs, en.id);
			if (!h)
				continue;	/* BEGIN was lost */
			h->end_ns = en.time_ns;
			h->free_site = en.call_site;
			h->end_cpu = en.hdr.cpu;
			h->end_flags = en.hdr.flags;
			h->reason = en.reason;
			h->reported_elements = en.elements;
			h->dropped = en.dropped;
		}
	}
	free(ix->by_pos);
	free(ix);
	for (size_t i = 0; i < hs->n; i++)
		if (hs->h[i].nr_elems)
			qsort(hs->h[i].elems, hs->h[i].nr_elems,
			      sizeof(*hs->h[i].elems), elem_cmp);
}

void histories_free(struct history_set *hs)
{
	for (size_t i = 0; i < hs->n; i++)
		free(hs->h[i].elems);
	free(hs->h);
	memset(hs, 0, sizeof(*hs));
}

bool history_complete(const struct history *h)
{
	return h->reason == DPROF_HIST_FREED && !h->dropped &&
	       !(h->end_flags & (DPROF_HIST_CPUS_CHANGED |
				 DPROF_HIST_TRUNCATED));
}

uint64_t history_cpu_mask(const struct history *h)
{
	uint64_t mask = 0;

	for (size_t i = 0; i < h->nr_elems; i++)
		if (h->elems[i].cpu < 64)
			mask |= 1ull << h->elems[i].cpu;
	return mask;
}

const char *history_end_name(const struct history *h)
{
	switch (h->reason) {
	case DPROF_HIST_FREED: return "freed";
	case DPROF_HIST_TIMEOUT: return "timeout";
	case DPROF_HIST_UNLOAD: return "unload";
	case DPROF_HIST_WINDOW: return "window";
	default: return "open";
	}
}

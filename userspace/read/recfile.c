// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <byteswap.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "recfile.h"
#include "util.h"

/*
 * A mapped recording is read in passes over its events; each pass gives
 * back the pages it has gone past, a DROP_CHUNK at a time, so that the
 * resident memory stays with the analyses' own data, not the file's
 * size.  The pages come back from the page cache if touched again.
 */
#define DROP_CHUNK (32u << 20)

static void drop_behind(const struct recording *r, const uint8_t **from,
			const uint8_t *to)
{
	uintptr_t a = (uintptr_t)*from, b = (uintptr_t)to, page;

	/* Called per record: the cheap test first, sysconf() only per drop. */
	if (!r->mapped || b < a || b - a < DROP_CHUNK)
		return;
	page = (uintptr_t)sysconf(_SC_PAGESIZE);
	b &= ~(page - 1);
	madvise((void *)a, b - a, MADV_DONTNEED);
	*from = (const uint8_t *)b;
}

static const uint8_t zero_pad[8];

static uint64_t pad8(uint64_t n)
{
	return (8 - (n & 7)) & 7;
}

int rec_writer_open(struct rec_writer *w, const char *path)
{
	struct dprof_file_header hdr = {
		.magic = DPROF_FILE_MAGIC,
		.abi_version = DPROF_ABI_VERSION,
		.header_size = sizeof(hdr),
	};

	memset(w, 0, sizeof(*w));
	w->file = fopen(path, "wb");
	if (!w->file)
		return -1;
	w->path = xstrdup(path);
	if (fwrite(&hdr, sizeof(hdr), 1, w->file) != 1)
		w->failed = true;
	w->offset = sizeof(hdr);
	return w->failed ? -1 : 0;
}

int rec_write_section(struct rec_writer *w, uint32_t kind, const void *data,
		      uint64_t len)
{
	struct dprof_section sec = { .kind = kind, .length = len };

	if (w->failed)
		return -1;
	if (fwrite(&sec, sizeof(sec), 1, w->file) != 1 ||
	    (len && fwrite(data, len, 1, w->file) != 1) ||
	    (pad8(len) && fwrite(zero_pad, pad8(len), 1, w->file) != 1)) {
		w->failed = true;
		return -1;
	}
	w->offset += sizeof(sec) + len + pad8(len);
	return 0;
}

int rec_writer_close(struct rec_writer *w)
{
	int ret = w->failed ? -1 : 0;

	if (w->file && fclose(w->file))
		ret = -1;
	w->file = NULL;
	free(w->path);
	w->path = NULL;
	return ret;
}

const char *section_kind_name(uint32_t kind)
{
	switch (kind) {
	case DPROF_SEC_META: return "meta";
	case DPROF_SEC_TARGETS: return "targets";
	case DPROF_SEC_CACHES: return "caches";
	case DPROF_SEC_KALLSYMS: return "kallsyms";
	case DPROF_SEC_BTF: return "btf";
	case DPROF_SEC_EVENTS: return "events";
	case DPROF_SEC_STATUS: return "status";
	case DPROF_SEC_OPS: return "ops";
	case DPROF_SEC_END: return "end";
	case DPROF_SEC_IPMAP: return "ipmap";
	case DPROF_SEC_ACCESS_KINDS: return "access kinds";
	case DPROF_SEC_HISTORIES: return "histories";
	case DPROF_SEC_SAMPLES: return "samples";
	case DPROF_SEC_PROFILE: return "profile";
	case DPROF_SEC_DATA_SAMPLES: return "data samples";
	case DPROF_SEC_PERCPU: return "per-CPU offsets";
	case DPROF_SEC_PLANS: return "plans";
	case DPROF_SEC_FACTS: return "facts";
	default: return "unknown";
	}
}

static int fail(struct rec_error *err, uint64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct rec_error *err, uint64_t offset, const char *fmt, ...)
{
	va_list ap;

	err->offset = offset;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

static char *section_text(const struct rec_section *s)
{
	char *text = xmalloc(s->length + 1);

	memcpy(text, s->data, s->length);
	text[s->length] = '\0';
	/* Shown as is by info, profile, status: no escapes from the file. */
	return text_printable(text);
}

static int parse_meta(struct recording *r, const struct rec_section *s,
		      struct rec_error *err)
{
	char *text = section_text(s), *line, *save = NULL;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');

		if (!eq) {
			fail(err, s->header_offset,
			     "meta section: line without '=': \"%.40s\"", line);
			free(text);
			return -1;
		}
		*eq = '\0';
		r->meta_keys = xrealloc(r->meta_keys,
					(r->nr_meta + 1) * sizeof(char *));
		r->meta_values = xrealloc(r->meta_values,
					  (r->nr_meta + 1) * sizeof(char *));
		r->meta_keys[r->nr_meta] = xstrdup(line);
		r->meta_values[r->nr_meta] = xstrdup(eq + 1);
		r->nr_meta++;
	}
	free(text);
	return 0;
}

/* Each kind's part of a type's estimate, and the unseen part: at most all. */
static bool kind_parts_valid(const struct dprof_target_fact *f)
{
	for (int k = 0; k < DPROF_WINDOW_REC_KINDS; k++)
		if (f->kind_part[k] > 10000)
			return false;
	return f->unseen <= 10000;
}

/*
 * The facts: a header of its own size, then entries of their own size
 * (uapi/dprof.h); what this reader knows is copied, the rest zero.
 */
static int parse_facts(struct recording *r, const struct rec_section *s,
		       struct rec_error *err)
{
	const size_t entry_known = sizeof(struct dprof_target_fact);
	struct dprof_facts head;
	uint64_t need;

	if (s->length < 3 * sizeof(uint32_t))
		return fail(err, s->header_offset,
			    "facts section: %llu bytes, shorter than its sizes",
			    (unsigned long long)s->length);
	memset(&head, 0, sizeof(head));
	memcpy(&head, s->data, 3 * sizeof(uint32_t));
	if (head.size < 3 * sizeof(uint32_t) || head.size > s->length ||
	    head.target_size < DPROF_TARGET_FACT_V1_SIZE ||
	    head.nr_targets > DPROF_MAX_TARGETS)
		return fail(err, s->header_offset,
			    "facts section: header of %u bytes, entries of %u (at least %d), %u targets (at most %u) in %llu bytes",
			    head.size, head.target_size,
			    DPROF_TARGET_FACT_V1_SIZE,
			    head.nr_targets, DPROF_MAX_TARGETS,
			    (unsigned long long)s->length);
	need = head.size + (uint64_t)head.nr_targets * head.target_size;
	if (need > s->length)
		return fail(err, s->header_offset,
			    "facts section: %u entries of %u bytes need %llu bytes, the section has %llu",
			    head.nr_targets, head.target_size,
			    (unsigned long long)need,
			    (unsigned long long)s->length);
	memcpy(&head, s->data, head.size < sizeof(head) ? head.size :
	       sizeof(head));
	free(r->target_facts);
	r->target_facts = xcalloc(head.nr_targets ? head.nr_targets : 1,
				  entry_known);
	for (uint32_t i = 0; i < head.nr_targets; i++) {
		struct dprof_target_fact *f = &r->target_facts[i];

		memcpy(f, s->data + head.size + (uint64_t)i * head.target_size,
		       head.target_size < entry_known ? head.target_size :
		       entry_known);
		if (f->target >= DPROF_MAX_TARGETS || f->share > 10000 ||
		    f->half > 10000 || f->track_shift > 31 ||
		    !kind_parts_valid(f)) {
			fail(err, s->header_offset,
			     "facts section: entry %u (target %u) out of range: share %u, half %u in 1/10000, track shift %u, kinds' parts %u %u %u %u and unseen %u in 1/10000",
			     i, f->target, f->share, f->half, f->track_shift,
			     f->kind_part[0], f->kind_part[1],
			     f->kind_part[2], f->kind_part[3], f->unseen);
			free(r->target_facts);
			r->target_facts = NULL;
			return -1;
		}
	}
	if (head.track_base_shift > 31) {
		free(r->target_facts);
		r->target_facts = NULL;
		return fail(err, s->header_offset,
			    "facts section: track shift %u out of range",
			    head.track_base_shift);
	}
	r->facts = head;
	r->nr_target_facts = head.nr_targets;
	r->has_facts = true;
	return 0;
}

const struct dprof_target_fact *recording_target_fact(const struct recording *r,
						      size_t t)
{
	if (!r->has_facts)
		return NULL;
	/* The module writes them in target order. */
	if (t < r->nr_target_facts && r->target_facts[t].target == t)
		return &r->target_facts[t];
	for (size_t i = 0; i < r->nr_target_facts; i++)
		if (r->target_facts[i].target == t)
			return &r->target_facts[i];
	return NULL;
}

static int parse_array(const struct rec_section *s, size_t elem, void **out,
		       size_t *nr, const char *what, struct rec_error *err)
{
	if (s->length % elem)
		return fail(err, s->header_offset,
			    "%s section: length %llu is not a multiple of %zu",
			    what, (unsigned long long)s->length, elem);
	free(*out);
	*out = xmalloc(s->length);
	memcpy(*out, s->data, s->length);
	*nr = s->length / elem;
	return 0;
}

static int check_targets(struct recording *r, const struct rec_section *s,
			 struct rec_error *err)
{
	for (size_t i = 0; i < r->nr_targets; i++) {
		struct dprof_file_target *t = &r->targets[i];

		if (t->index != i || !memchr(t->name, 0, sizeof(t->name)) ||
		    !t->name[0] || t->stride < t->object_size)
			return fail(err, s->header_offset + sizeof(*s) +
					 i * sizeof(*t),
				    "target %zu is malformed", i);
		/* Slab cache names are printable; they reach the terminal. */
		if (!text_is_printable(t->name) || strpbrk(t->name, "\n\t"))
			return fail(err, s->header_offset + sizeof(*s) +
					 i * sizeof(*t),
				    "target %zu: its name has a control or non-ASCII byte",
				    i);
		/* No slab object is larger than kmalloc's largest, 4 MiB. */
		if (!t->object_size || t->object_size > REC_MAX_OBJECT_SIZE)
			return fail(err, s->header_offset + sizeof(*s) +
					 i * sizeof(*t),
				    "target %zu: object size %u is not a slab object's",
				    i, t->object_size);
	}
	return 0;
}

static size_t record_size(uint16_t kind)
{
	switch (kind) {
	case DPROF_REC_ALLOC:
	case DPROF_REC_FREE:
		return sizeof(struct dprof_obj_event);
	case DPROF_REC_LOST:
		return sizeof(struct dprof_lost_event);
	case DPROF_REC_HIST_BEGIN:
		return sizeof(struct dprof_hist_begin);
	case DPROF_REC_HIST_ELEM:
		return sizeof(struct dprof_hist_elem);
	case DPROF_REC_HIST_END:
		return sizeof(struct dprof_hist_end);
	case DPROF_REC_SAMPLE:
		return sizeof(struct dprof_sample_rec);
	case DPROF_REC_SLAB_LIVE:
		return sizeof(struct dprof_slab_live);
	case DPROF_REC_WINDOW:
		return sizeof(struct dprof_window_rec);
	default:
		return 0;
	}
}

void rec_window(const void *rec, struct dprof_window_rec *w)
{
	struct dprof_rec_hdr hdr;
	size_t n;

	memcpy(&hdr, rec, sizeof(hdr));
	n = hdr.size < sizeof(*w) ? hdr.size : sizeof(*w);
	memset(w, 0, sizeof(*w));
	memcpy(w, rec, n);
	if (n < offsetof(struct dprof_window_rec, rho) + sizeof(w->rho))
		w->rho = DPROF_WINDOW_RHO_ONE;
}

void rec_sample(const void *rec, struct dprof_sample_rec *s)
{
	struct dprof_rec_hdr hdr;

	memcpy(&hdr, rec, sizeof(hdr));
	memset(s, 0, sizeof(*s));
	memcpy(s, rec, hdr.size < sizeof(*s) ? hdr.size : sizeof(*s));
}

size_t rec_sample_chain(const void *rec, uint64_t *frames, size_t max)
{
	struct dprof_rec_hdr hdr;
	size_t n;

	memcpy(&hdr, rec, sizeof(hdr));
	if (!(hdr.flags & DPROF_SAMPLE_CHAIN) ||
	    hdr.size <= sizeof(struct dprof_sample_rec))
		return 0;
	n = (hdr.size - sizeof(struct dprof_sample_rec)) / sizeof(uint64_t);
	if (n > max)
		n = max;
	memcpy(frames, (const uint8_t *)rec + sizeof(struct dprof_sample_rec),
	       n * sizeof(uint64_t));
	return n;
}

/* Samples are decoded after the targets, so their indexes can be checked. */
static int check_sample(const struct recording *r,
			const struct dprof_sample_agg *e,
			const struct rec_section *s, size_t k,
			struct rec_error *err)
{
	uint64_t at = s->header_offset + sizeof(struct dprof_section) +
		      k * sizeof(*e);

	if (e->target >= r->nr_targets)
		return fail(err, at, "sample %zu names target %u, the file has %zu",
			    k, e->target, r->nr_targets);
	if (e->src >= DPROF_NR_SRC)
		return fail(err, at, "sample %zu has data source %u", k, e->src);
	if (e->offset >= r->targets[e->target].object_size)
		return fail(err, at, "sample %zu: offset %u beyond the %u-byte object",
			    k, e->offset, r->targets[e->target].object_size);
	if (!e->count || e->misses > e->count)
		return fail(err, at, "sample %zu counts %u samples, %u misses",
			    k, e->count, e->misses);
	return 0;
}

static int check_data_sample(const struct dprof_data_agg *e,
			     const struct rec_section *s, size_t k,
			     struct rec_error *err)
{
	uint64_t at = s->header_offset + sizeof(struct dprof_section) +
		      k * sizeof(*e);

	if (e->src >= DPROF_NR_SRC)
		return fail(err, at, "data sample %zu has data source %u", k,
			    e->src);
	if (!e->count || e->misses > e->count)
		return fail(err, at, "data sample %zu counts %u samples, %u misses",
			    k, e->count, e->misses);
	if ((e->flags & (DPROF_DATA_STACK | DPROF_DATA_USER)) && e->addr)
		return fail(err, at, "data sample %zu: a stack or user bucket with address 0x%llx",
			    k, (unsigned long long)e->addr);
	return 0;
}

/* Kind-specific checks of a record whose size is right. */
static int check_record(const struct recording *r, const uint8_t *rec,
			uint64_t at, struct rec_error *err)
{
	struct dprof_rec_hdr hdr;

	memcpy(&hdr, rec, sizeof(hdr));
	if (hdr.kind == DPROF_REC_LOST || hdr.kind == DPROF_REC_HIST_ELEM)
		return 0;	/* no target field */
	if (hdr.target >= r->nr_targets)
		return fail(err, at, "record names target %u, the file has %zu",
			    hdr.target, r->nr_targets);
	if (hdr.kind == DPROF_REC_HIST_BEGIN) {
		struct dprof_hist_begin b;
		uint32_t size = r->targets[hdr.target].object_size;

		memcpy(&b, rec, sizeof(b));
		if (b.nr_offsets < 1 || b.nr_offsets > DPROF_HIST_MAX_OFFSETS ||
		    (b.len != 1 && b.len != 2 && b.len != 4 && b.len != 8))
			return fail(err, at,
				    "history %u watches %u offsets of %u bytes",
				    b.id, b.nr_offsets, b.len);
		for (int i = 0; i < b.nr_offsets; i++) {
			if (b.offset[i] + (uint32_t)b.len > size)
				return fail(err, at,
					    "history %u watches offset %u beyond the %u-byte object",
					    b.id, b.offset[i], size);
			/* One register per offset: the analyses count on it. */
			for (int k = 0; k < i; k++)
				if (b.offset[k] == b.offset[i])
					return fail(err, at,
						    "history %u watches offset %u twice",
						    b.id, b.offset[i]);
		}
	}
	if (hdr.kind == DPROF_REC_WINDOW) {
		struct dprof_window_rec w;
		uint32_t size = r->targets[hdr.target].object_size;

		rec_window(rec, &w);
		if (w.nr_offsets < 1 || w.nr_offsets > DPROF_HIST_MAX_OFFSETS ||
		    w.kind > DPROF_WINDOW_REC_INUSE)
			return fail(err, at, "window of kind %u watches %u offsets",
				    w.kind, w.nr_offsets);
		/* Only an in-use draw weighs its samples other than 1. */
		if (!w.rho || (w.kind != DPROF_WINDOW_REC_INUSE &&
			       w.rho != DPROF_WINDOW_RHO_ONE))
			return fail(err, at, "window of kind %u weighs its samples by %u/%u",
				    w.kind, w.rho, DPROF_WINDOW_RHO_ONE);
		for (int i = 0; i < DPROF_HIST_MAX_OFFSETS; i++)
			if (i < w.nr_offsets ? w.offset[i] >= size :
			    w.samples[i] != 0)
				return fail(err, at, "window watches offset %u of a %u-byte object, or counts samples at no offset",
					    w.offset[i], size);
	}
	if (hdr.kind == DPROF_REC_SAMPLE) {
		struct dprof_sample_rec sr;

		rec_sample(rec, &sr);
		if (sr.src >= DPROF_NR_SRC ||
		    sr.offset >= r->targets[hdr.target].object_size)
			return fail(err, at, "sample at offset %u, source %u",
				    sr.offset, sr.src);
	}
	if (hdr.kind == DPROF_REC_HIST_END) {
		struct dprof_hist_end e;

		memcpy(&e, rec, sizeof(e));
		if (e.reason < DPROF_HIST_FREED || e.reason > DPROF_HIST_WINDOW)
			return fail(err, at, "history %u ends for reason %u",
				    e.id, e.reason);
	}
	return 0;
}

/* Validate every record once so that rec_iter_next() needs no checks. */
static int check_events(struct recording *r, const struct rec_section *s,
			struct rec_error *err)
{
	uint64_t pos = 0, base = s->header_offset + sizeof(struct dprof_section);
	const uint8_t *dropped = r->buf;

	while (pos < s->length) {
		struct dprof_rec_hdr hdr;
		size_t want;

		drop_behind(r, &dropped, s->data + pos);
		if (s->length - pos < sizeof(hdr))
			return fail(err, base + pos,
				    "record header cut short (%llu bytes left)",
				    (unsigned long long)(s->length - pos));
		memcpy(&hdr, s->data + pos, sizeof(hdr));
		if (hdr.size < sizeof(hdr) || hdr.size % 8 ||
		    hdr.size > s->length - pos)
			return fail(err, base + pos,
				    "record of kind %u has bad size %u", hdr.kind,
				    hdr.size);
		want = record_size(hdr.kind);
		if (hdr.kind == DPROF_REC_WINDOW && r->abi_version < 7)
			want = DPROF_WINDOW_REC_ABI6_SIZE;
		if (hdr.kind == DPROF_REC_SAMPLE && r->abi_version < 8)
			want = DPROF_SAMPLE_REC_ABI7_SIZE;
		/* ABI 9: a chain of 1 to DPROF_CHAIN_MAX frames follows. */
		if (hdr.kind == DPROF_REC_SAMPLE && r->abi_version >= 9 &&
		    (hdr.flags & DPROF_SAMPLE_CHAIN) && hdr.size > want &&
		    hdr.size <= want + DPROF_CHAIN_MAX * sizeof(uint64_t))
			want = hdr.size;
		if (!want) {
			r->unknown_records++;	/* newer writer: skip it */
		} else {
			if (hdr.size != want)
				return fail(err, base + pos,
					    "record of kind %u is %u bytes, expected %zu",
					    hdr.kind, hdr.size, want);
			if (check_record(r, s->data + pos, base + pos, err))
				return -1;
			r->kind_count[hdr.kind]++;
			if (hdr.kind == DPROF_REC_LOST) {
				struct dprof_lost_event lost;

				memcpy(&lost, s->data + pos, sizeof(lost));
				r->lost_marked += lost.count;
			}
		}
		r->records++;
		pos += hdr.size;
	}
	return 0;
}

static int read_sections(struct recording *r, struct rec_error *err)
{
	uint64_t pos = sizeof(struct dprof_file_header);
	size_t cap = 0;

	while (pos < r->size) {
		struct dprof_section sec;
		struct rec_section *s;

		if (r->size - pos < sizeof(sec))
			return fail(err, pos,
				    "truncated: section header cut short");
		memcpy(&sec, r->buf + pos, sizeof(sec));
		if (sec.length > r->size - pos - sizeof(sec))
			return fail(err, pos,
				    "truncated: %s section claims %llu bytes, %llu remain",
				    section_kind_name(sec.kind),
				    (unsigned long long)sec.length,
				    (unsigned long long)(r->size - pos -
							 sizeof(sec)));
		if (r->nr_sections == cap) {
			cap = cap ? cap * 2 : 16;
			r->sections = xrealloc(r->sections,
					       cap * sizeof(*r->sections));
		}
		s = &r->sections[r->nr_sections++];
		s->kind = sec.kind;
		s->header_offset = pos;
		s->length = sec.length;
		s->data = r->buf + pos + sizeof(sec);
		pos += sizeof(sec) + sec.length;
		if (pad8(sec.length) > r->size - pos)
			return fail(err, pos, "truncated: section padding cut short");
		pos += pad8(sec.length);
		if (sec.kind == DPROF_SEC_END)
			break;
	}
	if (!r->nr_sections || r->sections[r->nr_sections - 1].kind !=
	    DPROF_SEC_END)
		return fail(err, r->size,
			    "truncated: no end section (recording interrupted?)");
	if (pos != r->size)
		return fail(err, pos, "%llu bytes of garbage after the end section",
			    (unsigned long long)(r->size - pos));
	return 0;
}

/* An operation count names its function, NUL-terminated, once. */
static int check_op_count(const struct recording *r, size_t k,
			  const struct rec_section *s, struct rec_error *err)
{
	const struct dprof_op_count *c = &r->ops[k];

	if (!memchr(c->name, '\0', sizeof(c->name)) || !c->name[0])
		return fail(err, s->header_offset,
			    "ops section: entry %zu has no function name", k);
	for (size_t i = 0; i < k; i++)
		if (!strcmp(r->ops[i].name, c->name))
			return fail(err, s->header_offset,
				    "ops section: %s counted twice", c->name);
	return 0;
}

/* A plan item's target must be recorded and its offsets in the object. */
static int check_plan_item(const struct recording *r,
			   const struct dprof_plan_item *e,
			   const struct rec_section *s, size_t k,
			   struct rec_error *err)
{
	const struct dprof_file_target *t = NULL;

	for (size_t i = 0; i < r->nr_targets && !t; i++)
		if (r->targets[i].index == e->target)
			t = &r->targets[i];
	if (!t)
		return fail(err, s->header_offset,
			    "plans section: item %zu names target %u, which the recording does not have",
			    k, e->target);
	if (!e->nr_offsets || e->nr_offsets > DPROF_HIST_MAX_OFFSETS ||
	    !e->len || e->len > 8)
		return fail(err, s->header_offset,
			    "plans section: item %zu has %u offsets of %u bytes",
			    k, e->nr_offsets, e->len);
	for (int i = 0; i < e->nr_offsets; i++)
		if (e->offset[i] == DPROF_HIST_NO_OFFSET ||
		    (t->object_size && e->offset[i] >= t->object_size))
			return fail(err, s->header_offset,
				    "plans section: item %zu watches offset %u of %s, outside its %u bytes",
				    k, e->offset[i], t->name, t->object_size);
	return 0;
}

static int decode_sections(struct recording *r, struct rec_error *err)
{
	/* Targets first: event checks need their number. */
	for (size_t i = 0; i < r->nr_sections; i++) {
		const struct rec_section *s = &r->sections[i];

		if (s->kind != DPROF_SEC_TARGETS)
			continue;
		if (parse_array(s, sizeof(struct dprof_file_target),
				(void **)&r->targets, &r->nr_targets,
				"targets", err) ||
		    check_targets(r, s, err))
			return -1;
	}
	for (size_t i = 0; i < r->nr_sections; i++) {
		const struct rec_section *s = &r->sections[i];
		int ret = 0;

		switch (s->kind) {
		case DPROF_SEC_META:
			ret = parse_meta(r, s, err);
			break;
		case DPROF_SEC_CACHES:
			ret = parse_array(s, sizeof(struct dprof_file_cache),
					  (void **)&r->caches, &r->nr_caches,
					  "caches", err);
			break;
		case DPROF_SEC_KALLSYMS:
			free((void *)r->kallsyms);
			r->kallsyms = section_text(s);
			break;
		case DPROF_SEC_STATUS:
			free((void *)r->status);
			r->status = section_text(s);
			break;
		case DPROF_SEC_HISTORIES:
			free((void *)r->histories_text);
			r->histories_text = section_text(s);
			break;
		case DPROF_SEC_PROFILE:
			free((void *)r->profile_text);
			r->profile_text = section_text(s);
			break;
		case DPROF_SEC_FACTS:
			ret = parse_facts(r, s, err);
			break;
		case DPROF_SEC_SAMPLES:
			ret = parse_array(s, sizeof(struct dprof_sample_agg),
					  (void **)&r->samples, &r->nr_samples,
					  "samples", err);
			for (size_t k = 0; !ret && k < r->nr_samples; k++)
				ret = check_sample(r, &r->samples[k], s, k, err);
			break;
		case DPROF_SEC_DATA_SAMPLES:
			free(r->data_samples);
			r->data_samples = NULL;
			ret = parse_array(s, sizeof(struct dprof_data_agg),
					  (void **)&r->data_samples,
					  &r->nr_data_samples, "data samples",
					  err);
			for (size_t k = 0; !ret && k < r->nr_data_samples; k++)
				ret = check_data_sample(&r->data_samples[k], s,
							k, err);
			break;
		case DPROF_SEC_PERCPU:
			free(r->percpu_offsets);
			r->percpu_offsets = NULL;
			ret = parse_array(s, sizeof(uint64_t),
					  (void **)&r->percpu_offsets,
					  &r->nr_percpu_offsets,
					  "per-CPU offsets", err);
			if (!ret && r->nr_percpu_offsets > REC_MAX_CPUS)
				ret = fail(err, s->header_offset,
					   "per-CPU offsets section: %zu CPUs, more than %u",
					   r->nr_percpu_offsets, REC_MAX_CPUS);
			break;
		case DPROF_SEC_PLANS:
			free(r->plans);
			r->plans = NULL;
			ret = parse_array(s, sizeof(struct dprof_plan_item),
					  (void **)&r->plans, &r->nr_plans,
					  "plans", err);
			for (size_t k = 0; !ret && k < r->nr_plans; k++)
				ret = check_plan_item(r, &r->plans[k], s, k, err);
			break;
		case DPROF_SEC_OPS:
			free(r->ops);
			r->ops = NULL;
			ret = parse_array(s, sizeof(struct dprof_op_count),
					  (void **)&r->ops, &r->nr_ops, "ops",
					  err);
			for (size_t k = 0; !ret && k < r->nr_ops; k++)
				ret = check_op_count(r, k, s, err);
			break;
		case DPROF_SEC_IPMAP:
			free(r->ipmap);
			r->ipmap = NULL;
			ret = parse_array(s, sizeof(struct dprof_file_ipmap),
					  (void **)&r->ipmap, &r->nr_ipmap,
					  "ipmap", err);
			for (size_t k = 1; !ret && k < r->nr_ipmap; k++)
				if (r->ipmap[k].trap_ip <= r->ipmap[k - 1].trap_ip)
					ret = fail(err, s->header_offset,
						   "ipmap section: entry %zu is out of order",
						   k);
			break;
		case DPROF_SEC_ACCESS_KINDS:
			free(r->access_kinds);
			r->access_kinds = NULL;
			ret = parse_array(s, sizeof(struct dprof_file_access_kind),
					  (void **)&r->access_kinds,
					  &r->nr_access_kinds, "access kinds",
					  err);
			for (size_t k = 0; !ret && k < r->nr_access_kinds; k++) {
				/* A kind from a newer writer: not known here. */
				if (r->access_kinds[k].kind >= DPROF_NR_ACCESS_KINDS)
					r->access_kinds[k].kind = DPROF_ACCESS_UNKNOWN;
				if (k && r->access_kinds[k].trap_ip <=
					 r->access_kinds[k - 1].trap_ip)
					ret = fail(err, s->header_offset,
						   "access kinds section: entry %zu is out of order",
						   k);
			}
			break;
		case DPROF_SEC_BTF:
			r->btf = s->data;
			r->btf_len = s->length;
			break;
		case DPROF_SEC_EVENTS:
			ret = check_events(r, s, err);
			break;
		case DPROF_SEC_END:
			if (s->length < sizeof(r->end))
				return fail(err, s->header_offset,
					    "end section is %llu bytes, expected %zu",
					    (unsigned long long)s->length,
					    sizeof(r->end));
			memcpy(&r->end, s->data, sizeof(r->end));
			break;
		default:
			break;	/* unknown sections are skipped */
		}
		if (ret)
			return ret;
	}
	if (!r->nr_targets)
		return fail(err, 0, "no targets section");
	if (r->end.records != r->records)
		return fail(err, r->sections[r->nr_sections - 1].header_offset,
			    "end section counts %llu records, the file holds %llu",
			    (unsigned long long)r->end.records,
			    (unsigned long long)r->records);
	return 0;
}

static int parse(struct recording *r, const uint8_t *buf, size_t size,
		 bool mapped, struct rec_error *err)
{
	struct dprof_file_header hdr;

	memset(r, 0, sizeof(*r));
	r->buf = (uint8_t *)buf;
	r->size = size;
	r->mapped = mapped;
	if (size < sizeof(hdr))
		return fail(err, 0, "truncated: %zu bytes, shorter than a header",
			    size);
	memcpy(&hdr, buf, sizeof(hdr));
	if (hdr.magic == bswap_64(DPROF_FILE_MAGIC))
		return fail(err, 0,
			    "byte-swapped recording (written on a machine of the other endianness)");
	if (hdr.magic != DPROF_FILE_MAGIC)
		return fail(err, 0, "not a dprof recording (bad magic)");
	r->abi_version = hdr.abi_version;
	if (hdr.abi_version < DPROF_ABI_OLDEST ||
	    hdr.abi_version > DPROF_ABI_VERSION)
		return fail(err, 8,
			    "recording has ABI version %u, this dprof-view reads %u to %u%s",
			    hdr.abi_version, DPROF_ABI_OLDEST, DPROF_ABI_VERSION,
			    hdr.abi_version < DPROF_ABI_VERSION ?
			    " (re-record it, or read it with the dprof-view that wrote it)" :
			    " (a newer dprof-view reads it)");
	if (hdr.header_size != sizeof(hdr))
		return fail(err, 12, "bad header size %u", hdr.header_size);
	if (read_sections(r, err) || decode_sections(r, err)) {
		recording_free(r);	/* a failed parse holds nothing */
		return -1;
	}
	return 0;
}

int recording_parse(struct recording *r, const uint8_t *buf, size_t size,
		    struct rec_error *err)
{
	return parse(r, buf, size, false, err);
}

/* @path mapped read-only, or NULL (not a regular file, or empty). */
static uint8_t *map_file(const char *path, size_t *len)
{
	struct stat st;
	void *map;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0) {
		close(fd);
		return NULL;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return NULL;
	madvise(map, (size_t)st.st_size, MADV_SEQUENTIAL);
	*len = (size_t)st.st_size;
	return map;
}

/*
 * A regular file is mapped, not read: memory then grows with what the
 * analyses keep, not with the file (issue "Costs that repeat").  Pipes
 * and the like are read whole.
 */
int recording_load(struct recording *r, const char *path,
		   struct rec_error *err)
{
	size_t len = 0;
	uint8_t *buf = map_file(path, &len);
	bool mapped = buf != NULL;

	if (!buf)
		buf = (uint8_t *)read_whole_file(path, &len);
	if (!buf) {
		memset(r, 0, sizeof(*r));
		return fail(err, 0, "cannot read: %s", strerror(errno));
	}
	if (parse(r, buf, len, mapped, err)) {
		if (mapped)
			munmap(buf, len);
		else
			free(buf);
		return -1;
	}
	r->owns_buf = true;
	r->path = path;
	return 0;
}

#define TRACK_BASE	"\ntrack_one_in: "
#define TRACK_PER_CACHE	"\ntrack_one_in per cache"

unsigned int recording_track_one_in(const struct recording *r, size_t t)
{
	const char *p = r->status ? strstr(r->status, TRACK_BASE) : NULL;
	const char *name = t < r->nr_targets ? r->targets[t].name : NULL;
	size_t len = name ? strnlen(name, sizeof(r->targets[t].name)) : 0;
	const struct dprof_target_fact *f;
	unsigned long v;

	if (r->has_facts) {
		if (r->facts.flags & DPROF_FACTS_NO_HOOKS)
			return 1;	/* no object followed: nothing scaled */
		f = recording_target_fact(r, t);
		return 1U << (f ? f->track_shift : r->facts.track_base_shift);
	}
	/* Recordings before the facts: status's sentences. */
	if (!p)
		return 1;
	v = strtoul(p + strlen(TRACK_BASE), NULL, 10);
	p = strstr(r->status, TRACK_PER_CACHE);
	p = p ? strchr(p + 1, ':') : NULL;
	/* " NAME=N" tokens to the end of the line. */
	while (len && p && *p && *p != '\n') {
		const char *tok = p + 1, *eq;

		p = tok + strcspn(tok, " \n");
		eq = memchr(tok, '=', (size_t)(p - tok));
		if (eq && (size_t)(eq - tok) == len && !memcmp(tok, name, len)) {
			v = strtoul(eq + 1, NULL, 10);
			break;
		}
	}
	return v ? (unsigned int)v : 1;
}

unsigned int recording_track_one_in_max(const struct recording *r)
{
	unsigned int max = recording_track_one_in(r, SIZE_MAX), n;

	for (size_t t = 0; t < r->nr_targets; t++) {
		n = recording_track_one_in(r, t);
		if (n > max)
			max = n;
	}
	return max;
}

void recording_free(struct recording *r)
{
	for (size_t i = 0; i < r->nr_meta; i++) {
		free(r->meta_keys[i]);
		free(r->meta_values[i]);
	}
	free(r->meta_keys);
	free(r->meta_values);
	free(r->sections);
	free(r->targets);
	free(r->caches);
	free(r->access_kinds);
	free((void *)r->kallsyms);
	free((void *)r->status);
	free((void *)r->histories_text);
	free((void *)r->profile_text);
	free(r->samples);
	free(r->data_samples);
	free(r->percpu_offsets);
	free(r->plans);
	free(r->ops);
	free(r->target_facts);
	free(r->ipmap);
	if (r->owns_buf && r->mapped)
		munmap(r->buf, r->size);
	else if (r->owns_buf)
		free(r->buf);
	memset(r, 0, sizeof(*r));
}

/* The entry of @ip in an array sorted by a leading u64 trap_ip. */
static const void *find_trap_ip(const void *arr, size_t n, size_t size,
				uint64_t ip)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const void *e = (const char *)arr + mid * size;
		uint64_t at;

		memcpy(&at, e, sizeof(at));
		if (at == ip)
			return e;
		if (at < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

uint64_t ipmap_lookup(const struct recording *r, uint64_t trap_ip)
{
	const struct dprof_file_ipmap *m =
		find_trap_ip(r->ipmap, r->nr_ipmap, sizeof(*m), trap_ip);

	return m ? m->access_ip : 0;
}

enum dprof_access_kind access_kind_lookup(const struct recording *r,
					  uint64_t trap_ip)
{
	const struct dprof_file_access_kind *k =
		find_trap_ip(r->access_kinds, r->nr_access_kinds, sizeof(*k),
			     trap_ip);

	return k ? k->kind : DPROF_ACCESS_UNKNOWN;
}

const char *recording_meta(const struct recording *r, const char *key)
{
	for (size_t i = 0; i < r->nr_meta; i++)
		if (!strcmp(r->meta_keys[i], key))
			return r->meta_values[i];
	return NULL;
}

void rec_iter_init(struct rec_iter *it, const struct recording *r)
{
	it->r = r;
	it->section = 0;
	it->pos = 0;
	it->dropped = r->buf;
}

const struct dprof_rec_hdr *rec_iter_next(struct rec_iter *it)
{
	const struct recording *r = it->r;

	while (it->section < r->nr_sections) {
		const struct rec_section *s = &r->sections[it->section];
		const struct dprof_rec_hdr *hdr;

		if (s->kind != DPROF_SEC_EVENTS || it->pos >= s->length) {
			it->section++;
			it->pos = 0;
			continue;
		}
		/* Payloads start 8-aligned in an 8-aligned buffer. */
		hdr = (const struct dprof_rec_hdr *)(s->data + it->pos);
		drop_behind(r, &it->dropped, (const uint8_t *)hdr);
		it->pos += hdr->size;
		return hdr;
	}
	return NULL;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * pprof encoding of the data profile (see pprof.h).  Protocol buffers by
 * hand: a Profile is a few repeated messages of varints and strings, and
 * a library for that little would be a larger dependency than the code.
 * Field numbers are those of pprof's proto/profile.proto.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pprof.h"
#include "util.h"

/* Profile fields */
#define PROFILE_SAMPLE_TYPE	1
#define PROFILE_SAMPLE		2
#define PROFILE_MAPPING		3
#define PROFILE_LOCATION	4
#define PROFILE_FUNCTION	5
#define PROFILE_STRING_TABLE	6
#define PROFILE_DURATION_NANOS	10
#define PROFILE_PERIOD_TYPE	11
#define PROFILE_PERIOD		12
#define PROFILE_COMMENT		13
#define PROFILE_DEFAULT_SAMPLE_TYPE 14
/* ValueType */
#define VALUE_TYPE_TYPE		1
#define VALUE_TYPE_UNIT		2
/* Sample */
#define SAMPLE_LOCATION_ID	1
#define SAMPLE_VALUE		2
#define SAMPLE_LABEL		3
/* Label */
#define LABEL_KEY		1
#define LABEL_STR		2
#define LABEL_NUM		3
#define LABEL_NUM_UNIT		4
/* Mapping */
#define MAPPING_ID		1
#define MAPPING_MEMORY_START	2
#define MAPPING_MEMORY_LIMIT	3
#define MAPPING_FILENAME	5
#define MAPPING_HAS_FUNCTIONS	7
/* Location */
#define LOCATION_ID		1
#define LOCATION_MAPPING_ID	2
#define LOCATION_ADDRESS	3
#define LOCATION_LINE		4
/* Line */
#define LINE_FUNCTION_ID	1
#define LINE_LINE		2
/* Function */
#define FUNCTION_ID		1
#define FUNCTION_NAME		2
#define FUNCTION_SYSTEM_NAME	3
#define FUNCTION_FILENAME	4
#define FUNCTION_START_LINE	5

#define WIRE_VARINT	0
#define WIRE_BYTES	2

/* A symbol further than this below the ip is not the ip's function. */
#define KSYM_TRUST_BYTES (1u << 20)

static void pb_reserve(struct pb_buf *b, size_t more)
{
	if (b->len + more <= b->cap)
		return;
	b->cap = (b->len + more) * 2 + 64;
	b->data = xrealloc(b->data, b->cap);
}

static void pb_raw(struct pb_buf *b, const void *p, size_t n)
{
	if (!n)
		return;		/* an empty buffer's data may be NULL */
	pb_reserve(b, n);
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

static void pb_varint(struct pb_buf *b, uint64_t v)
{
	pb_reserve(b, 10);
	while (v >= 0x80) {
		b->data[b->len++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b->data[b->len++] = (uint8_t)v;
}

static void pb_key(struct pb_buf *b, unsigned int field, unsigned int wire)
{
	pb_varint(b, (uint64_t)field << 3 | wire);
}

/* A varint field; proto3 leaves zero out. */
static void pb_uint(struct pb_buf *b, unsigned int field, uint64_t v)
{
	if (!v)
		return;
	pb_key(b, field, WIRE_VARINT);
	pb_varint(b, v);
}

static void pb_bytes(struct pb_buf *b, unsigned int field, const void *p,
		     size_t n)
{
	pb_key(b, field, WIRE_BYTES);
	pb_varint(b, n);
	pb_raw(b, p, n);
}

/* A nested message: @sub's bytes, then @sub is emptied for reuse. */
static void pb_msg(struct pb_buf *b, unsigned int field, struct pb_buf *sub)
{
	pb_bytes(b, field, sub->data, sub->len);
	sub->len = 0;
}

/* A packed repeated varint field. */
static void pb_packed(struct pb_buf *b, unsigned int field,
		      const uint64_t *v, size_t n)
{
	struct pb_buf tmp = { 0 };

	for (size_t i = 0; i < n; i++)
		pb_varint(&tmp, v[i]);
	pb_bytes(b, field, tmp.data, tmp.len);
	pb_buf_free(&tmp);
}

void pb_buf_free(struct pb_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

/* u64 -> u64, open addressing; keys are stored plus one so 0 is free. */
struct u64map {
	uint64_t *keys, *vals;
	size_t cap, used;
};

static uint64_t mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return k;
}

static uint64_t *u64map_slot(struct u64map *m, uint64_t key, bool *found)
{
	size_t i;

	if ((m->used + 1) * 2 > m->cap) {
		struct u64map big = { 0 };

		big.cap = m->cap ? m->cap * 2 : 256;
		big.keys = xcalloc(big.cap, sizeof(*big.keys));
		big.vals = xcalloc(big.cap, sizeof(*big.vals));
		for (i = 0; i < m->cap; i++)
			if (m->keys[i]) {
				bool f;

				*u64map_slot(&big, m->keys[i] - 1, &f) = m->vals[i];
			}
		free(m->keys);
		free(m->vals);
		*m = big;
	}
	for (i = mix(key) & (m->cap - 1); m->keys[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key + 1) {
			*found = true;
			return &m->vals[i];
		}
	m->keys[i] = key + 1;
	m->used++;
	*found = false;
	return &m->vals[i];
}

static void u64map_free(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
}

/* What the encoder accumulates before the Profile is put together. */
struct enc {
	struct pb_buf samples, locations, functions, strings, tmp, line;
	struct u64map str_by_hash;	/* FNV-1a of a string -> index + 1 */
	char **strs;			/* for collisions */
	size_t nr_strs;
	struct u64map func_by_key;	/* name index << 32 | line -> id */
	struct u64map loc_by_ip;	/* ip -> location id */
	uint64_t nr_functions, nr_locations;
	uint64_t ip_min, ip_max;
};

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 0x100000001b3ULL;
	return h;
}

/*
 * The string table index of @s, added if new.  Hash collisions probe
 * with the next hash value, so equal strings always get one index.
 */
static uint64_t str_index(struct enc *e, const char *s)
{
	uint64_t h = fnv1a(s), *slot;
	bool found;

	for (;; h = mix(h + 1)) {
		slot = u64map_slot(&e->str_by_hash, h, &found);
		if (!found)
			break;
		if (!strcmp(e->strs[*slot - 1], s))
			return *slot - 1;
	}
	e->strs = xrealloc(e->strs, (e->nr_strs + 1) * sizeof(*e->strs));
	e->strs[e->nr_strs] = xstrdup(s);
	*slot = ++e->nr_strs;
	pb_bytes(&e->strings, PROFILE_STRING_TABLE, s, strlen(s));
	return e->nr_strs - 1;
}

/* The Function named @name in @file at @line, added once. */
static uint64_t function_id(struct enc *e, const char *name, const char *file,
			    uint32_t line)
{
	uint64_t n = str_index(e, name), f = str_index(e, file), *id;
	bool found;

	id = u64map_slot(&e->func_by_key, n << 32 | line, &found);
	if (found)
		return *id;
	*id = ++e->nr_functions;
	pb_uint(&e->tmp, FUNCTION_ID, *id);
	pb_uint(&e->tmp, FUNCTION_NAME, n);
	pb_uint(&e->tmp, FUNCTION_SYSTEM_NAME, n);
	pb_uint(&e->tmp, FUNCTION_FILENAME, f);
	pb_uint(&e->tmp, FUNCTION_START_LINE, line);
	pb_msg(&e->functions, PROFILE_FUNCTION, &e->tmp);
	return *id;
}

/* A Location of one line; @mapping 0 for the type and field frames. */
static uint64_t location(struct enc *e, uint64_t mapping, uint64_t address,
			 uint64_t function, uint32_t line)
{
	uint64_t id = ++e->nr_locations;

	pb_uint(&e->line, LINE_FUNCTION_ID, function);
	pb_uint(&e->line, LINE_LINE, line);
	pb_uint(&e->tmp, LOCATION_ID, id);
	pb_uint(&e->tmp, LOCATION_MAPPING_ID, mapping);
	pb_uint(&e->tmp, LOCATION_ADDRESS, address);
	pb_msg(&e->tmp, LOCATION_LINE, &e->line);
	pb_msg(&e->locations, PROFILE_LOCATION, &e->tmp);
	return id;
}

/* The location of kernel instruction @ip, named from kallsyms. */
static uint64_t ip_location(struct enc *e, const struct ksyms *syms,
			    uint64_t ip)
{
	const struct ksym *s = ksyms_find(syms, ip);
	uint64_t *id, fn;
	char name[64];
	bool found;

	id = u64map_slot(&e->loc_by_ip, ip, &found);
	if (found)
		return *id;
	if (s && ip - s->addr < KSYM_TRUST_BYTES) {
		fn = function_id(e, s->name, s->module ? s->module : "vmlinux",
				 0);
	} else {
		snprintf(name, sizeof(name), "0x%llx", (unsigned long long)ip);
		fn = function_id(e, name, "", 0);
	}
	*id = location(e, 1, ip, fn, 0);
	if (!e->ip_min || ip < e->ip_min)
		e->ip_min = ip;
	if (ip > e->ip_max)
		e->ip_max = ip;
	return *id;
}

static void value_type(struct enc *e, struct pb_buf *out, unsigned int field,
		       const char *type, const char *unit)
{
	pb_uint(&e->tmp, VALUE_TYPE_TYPE, str_index(e, type));
	pb_uint(&e->tmp, VALUE_TYPE_UNIT, str_index(e, unit));
	pb_msg(out, field, &e->tmp);
}

static void label_str(struct enc *e, struct pb_buf *sample, const char *key,
		      const char *value)
{
	pb_uint(&e->tmp, LABEL_KEY, str_index(e, key));
	pb_uint(&e->tmp, LABEL_STR, str_index(e, value));
	pb_msg(sample, SAMPLE_LABEL, &e->tmp);
}

static void label_num(struct enc *e, struct pb_buf *sample, const char *key,
		      uint64_t value, const char *unit)
{
	pb_uint(&e->tmp, LABEL_KEY, str_index(e, key));
	pb_uint(&e->tmp, LABEL_NUM, value);
	pb_uint(&e->tmp, LABEL_NUM_UNIT, str_index(e, unit));
	pb_msg(sample, SAMPLE_LABEL, &e->tmp);
}

/* "sk_buff" of "struct sk_buff", for the field frames' names. */
static const char *bare_struct(const char *s)
{
	return strncmp(s, "struct ", 7) ? s : s + 7;
}

static void encode_type(struct enc *e, const struct profile *p,
			const struct profile_type *t, const struct ksyms *syms)
{
	const char *file = t->struct_name ? t->struct_name : "";
	uint64_t type_loc, field_loc, stack[3], values[3];
	struct pb_buf sample = { 0 };
	char name[600];

	if (t->struct_name)
		snprintf(name, sizeof(name), "%s (%s)", t->cache,
			 t->struct_name);
	else
		snprintf(name, sizeof(name), "%s", t->cache);
	type_loc = location(e, 0, 0, function_id(e, name, file, 0), 0);
	for (size_t i = 0; i < t->nr_fields; i++) {
		const struct profile_field *f = &t->fields[i];

		if (f->name[0] == '+' || !t->struct_name)
			snprintf(name, sizeof(name), "%s%s", t->cache, f->name);
		else
			snprintf(name, sizeof(name), "%s.%s",
				 bare_struct(t->struct_name), f->name);
		field_loc = location(e, 0, 0,
				     function_id(e, name, file, f->offset),
				     f->offset);
		for (size_t k = 0; k < f->nr_ips; k++) {
			const struct profile_ip *ip = &f->ips[k];

			stack[0] = ip_location(e, syms, ip->ip);
			stack[1] = field_loc;
			stack[2] = type_loc;
			values[0] = ip->samples;
			values[1] = ip->misses;
			values[2] = ip->latency_sum;
			pb_packed(&sample, SAMPLE_LOCATION_ID, stack, 3);
			pb_packed(&sample, SAMPLE_VALUE, values,
				  p->misses_measured ? 3 : 1);
			label_str(e, &sample, "cache", t->cache);
			label_str(e, &sample, "field", f->name);
			label_num(e, &sample, "offset", f->offset, "bytes");
			pb_msg(&e->samples, PROFILE_SAMPLE, &sample);
		}
	}
	pb_buf_free(&sample);
}

void pprof_encode(const struct profile *p, const struct ksyms *syms,
		  const struct pprof_meta *meta, struct pb_buf *out)
{
	struct enc e = { 0 };
	uint64_t comment_idx = 0;

	memset(out, 0, sizeof(*out));
	str_index(&e, "");	/* index 0 is the empty string */
	value_type(&e, out, PROFILE_SAMPLE_TYPE, "samples", "count");
	if (p->misses_measured) {
		value_type(&e, out, PROFILE_SAMPLE_TYPE, "misses", "count");
		value_type(&e, out, PROFILE_SAMPLE_TYPE, "latency", "cycles");
	}
	for (size_t i = 0; i < p->nr_types; i++)
		if (!meta->target || !strcmp(meta->target, p->types[i].cache))
			encode_type(&e, p, &p->types[i], syms);
	if (meta->comment)
		comment_idx = str_index(&e, meta->comment);
	if (!p->misses_measured) {
		char why[160];

		snprintf(why, sizeof(why), "sampler %s: misses not measured, samples are sampled accesses",
			 p->sampler);
		pb_uint(out, PROFILE_COMMENT, str_index(&e, why));
	}
	pb_uint(out, PROFILE_COMMENT, comment_idx);
	pb_uint(out, PROFILE_DEFAULT_SAMPLE_TYPE,
		str_index(&e, p->misses_measured ? "misses" : "samples"));
	value_type(&e, out, PROFILE_PERIOD_TYPE, "samples", "count");
	pb_uint(out, PROFILE_PERIOD, 1);
	pb_uint(out, PROFILE_DURATION_NANOS, meta->duration_ns);
	if (e.ip_max) {
		pb_uint(&e.tmp, MAPPING_ID, 1);
		pb_uint(&e.tmp, MAPPING_MEMORY_START, e.ip_min);
		pb_uint(&e.tmp, MAPPING_MEMORY_LIMIT, e.ip_max + 1);
		pb_uint(&e.tmp, MAPPING_FILENAME,
			str_index(&e, "[kernel.kallsyms]"));
		pb_uint(&e.tmp, MAPPING_HAS_FUNCTIONS, 1);
		pb_msg(out, PROFILE_MAPPING, &e.tmp);
	}
	pb_raw(out, e.samples.data, e.samples.len);
	pb_raw(out, e.locations.data, e.locations.len);
	pb_raw(out, e.functions.data, e.functions.len);
	pb_raw(out, e.strings.data, e.strings.len);
	for (size_t i = 0; i < e.nr_strs; i++)
		free(e.strs[i]);
	free(e.strs);
	pb_buf_free(&e.samples);
	pb_buf_free(&e.locations);
	pb_buf_free(&e.functions);
	pb_buf_free(&e.strings);
	pb_buf_free(&e.tmp);
	pb_buf_free(&e.line);
	u64map_free(&e.str_by_hash);
	u64map_free(&e.func_by_key);
	u64map_free(&e.loc_by_ip);
}

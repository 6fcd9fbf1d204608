// SPDX-License-Identifier: GPL-2.0
/* The referee's hash table (table.h). */
#include <stdlib.h>
#include <string.h>
#include "table.h"

uint64_t table_hash(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

static uint64_t key_at(const unsigned char *slot)
{
	uint64_t k;

	memcpy(&k, slot, sizeof(k));
	return k;
}

/* Where @key is, or the empty slot where it would go. */
static unsigned char *probe(const struct table *t, uint64_t key)
{
	uint64_t i = table_hash(key + 1) & (t->nr - 1), k;

	for (;;) {
		unsigned char *s = t->slots + i * t->slot_size;

		k = key_at(s);
		if (!k || k == key + 1)
			return s;
		i = (i + 1) & (t->nr - 1);
	}
}

int table_init(struct table *t, size_t slot_size, uint64_t nr)
{
	t->slot_size = slot_size;
	t->nr = nr;
	t->used = 0;
	t->slots = calloc(nr, slot_size);
	return t->slots ? 0 : -1;
}

void table_free(struct table *t)
{
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

static int grow(struct table *t)
{
	struct table n;
	uint64_t i;

	if (table_init(&n, t->slot_size, t->nr * 2))
		return -1;
	for (i = 0; i < t->nr; i++) {
		unsigned char *s = t->slots + i * t->slot_size;

		if (key_at(s))
			memcpy(probe(&n, key_at(s) - 1), s, t->slot_size);
	}
	n.used = t->used;
	free(t->slots);
	*t = n;
	return 0;
}

void *table_get(struct table *t, uint64_t key)
{
	unsigned char *s;
	uint64_t k = key + 1;

	if ((t->used + 1) * 10 > t->nr * 7 && grow(t))
		return NULL;
	s = probe(t, key);
	if (!key_at(s)) {
		memset(s, 0, t->slot_size);
		memcpy(s, &k, sizeof(k));
		t->used++;
	}
	return s;
}

void *table_find(const struct table *t, uint64_t key)
{
	unsigned char *s;

	if (!t->nr)
		return NULL;
	s = probe(t, key);
	return key_at(s) ? s : NULL;
}

void *table_slot(const struct table *t, uint64_t i)
{
	unsigned char *s = t->slots + i * t->slot_size;

	return key_at(s) ? s : NULL;
}

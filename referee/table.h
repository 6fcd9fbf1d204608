/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The referee's one hash table: open addressing over fixed-size slots
 * whose first 8 bytes are the key + 1 (0 marks an empty slot), grown by
 * doubling at 70 % load, never shrunk, no deletion (callers empty a
 * slot's value instead).  Pointers into it hold until the next get that
 * adds a key.  Plain C, no QEMU.
 */
#ifndef REFEREE_TABLE_H
#define REFEREE_TABLE_H

#include <stddef.h>
#include <stdint.h>

struct table {
	unsigned char *slots;
	size_t slot_size;
	uint64_t nr, used;
};

uint64_t table_hash(uint64_t x);
/* An empty table of @slot_size-byte slots, @nr (a power of two) of them. */
int table_init(struct table *t, size_t slot_size, uint64_t nr);
void table_free(struct table *t);
/* @key's slot, zeroed and keyed when new; NULL without memory. */
void *table_get(struct table *t, uint64_t key);
/* @key's slot, or NULL. */
void *table_find(const struct table *t, uint64_t key);
/* Slot @i (0 <= i < nr), or NULL when empty: for walking the table. */
void *table_slot(const struct table *t, uint64_t i);

#endif

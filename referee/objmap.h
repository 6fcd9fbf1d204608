/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The referee's own record of live slab objects, from the allocator's
 * calls it follows (oracle.c): address range -> (cache, base).  Plain C,
 * no QEMU.  An object inserted over the range of one still recorded
 * replaces it: that one's free was missed.
 */
#ifndef REFEREE_OBJMAP_H
#define REFEREE_OBJMAP_H

#include <stdbool.h>
#include <stdint.h>

struct objmap;

struct objmap *objmap_new(void);
void objmap_free(struct objmap *m);
/* Records [base, base + size) of cache @cache; false without memory. */
bool objmap_insert(struct objmap *m, uint64_t base, uint32_t size,
		   uint32_t cache);
/* Forgets the object at @base; false if none starts there. */
bool objmap_remove(struct objmap *m, uint64_t base);
/* The object holding @addr: its cache and base; false if none. */
bool objmap_find(const struct objmap *m, uint64_t addr, uint32_t *cache,
		 uint64_t *base);
uint64_t objmap_live(const struct objmap *m);
uint64_t objmap_replaced(const struct objmap *m);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * calibrate.c: the offsets of the allocator's private structs, found at
 * load (or given as parameters), and what they answer on their own: which
 * cache owns an address.  Apart from dprof.h so that the files below the
 * resolver (own.c) can ask it without the rest.
 */
#ifndef _DPROF_CALIBRATE_H
#define _DPROF_CALIBRATE_H

#include <linux/types.h>
#include <linux/mm.h>

struct kmem_cache;

struct dprof_layout {
	int slab_cache;		/* struct slab:       slab_cache */
	int cache_size;		/* struct kmem_cache: size (stride) */
	int cache_name;		/* struct kmem_cache: name */
	int cache_list;		/* struct kmem_cache: list */
	int slab_counters;	/* struct slab: counters; -1 unknown */
	int cache_red_left_pad;	/* struct kmem_cache: red_left_pad; -1 unknown */
	bool overridden[6];	/* same order: set by a module parameter */
	bool no_red_zones;	/* kernel without SLUB debugging: none to find */
};

extern struct dprof_layout dprof_layout;

/* Calibrates, or takes the offsets given as parameters (calibrate.c). */
int dprof_layout_init(void);
void dprof_layout_exit(void);
extern struct kmem_cache *dprof_cache_cache;	/* the "kmem_cache" cache */
/* Walk every slab cache; stops when fn returns non-zero, which it returns. */
typedef int (*dprof_cache_fn)(struct kmem_cache *s, const char *name,
			      void *arg);
int dprof_walk_caches(dprof_cache_fn fn, void *arg);
unsigned int dprof_cache_stride(struct kmem_cache *s);

/*
 * dprof_cache_of() for a pointer the allocator API handed over (a
 * kmalloc() result, kfree()'s argument, a bulk array entry): a valid
 * object in the direct map, which kfree() itself passes to
 * virt_to_folio() unchecked.  virt_addr_valid() (a pfn_valid() walk) was
 * more than half of the non-target kfree hook's instructions (160 of
 * them under -icount; 66 without).  Inline: under target=all the kmalloc
 * and kfree hooks ask it of every call the gate stops (the low set).
 */
static inline struct kmem_cache *dprof_cache_of_object(const void *addr,
						       unsigned long *slab_base)
{
	struct folio *folio = virt_to_folio(addr);

	if (!folio_test_slab(folio))
		return NULL;
	if (slab_base)
		*slab_base = (unsigned long)folio_address(folio);
	return READ_ONCE(*(struct kmem_cache **)((char *)folio +
						 dprof_layout.slab_cache));
}

/*
 * The slab cache owning @addr and the start of its slab, or NULL when @addr
 * is not slab memory.  The returned pointer is for comparison only.
 * Inline, on the layout alone: the resolver (NMI, #DB), the live set and
 * the calibration all ask it, none of them above the others.
 */
static inline struct kmem_cache *dprof_cache_of(const void *addr,
						unsigned long *slab_base)
{
	if (!virt_addr_valid(addr))
		return NULL;
	return dprof_cache_of_object(addr, slab_base);
}

#endif /* _DPROF_CALIBRATE_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * Offsets of private fields of struct slab and struct kmem_cache, found by
 * self-calibration instead of hard-coded per version (they differ: e.g.
 * slab.slab_cache is 24 in 6.1 and 8 in 6.12) and without
 * kallsyms_lookup_name().
 *
 * Two private caches with constructors (so SLUB never merges them) are
 * created, one after the other, with known names and object sizes.  Then:
 *  - slab.slab_cache: the one word of an object's struct slab that holds
 *    the cache pointer;
 *  - kmem_cache.name: the one word that points at the name string, in both
 *    caches;
 *  - kmem_cache.list: the one list_head where the later cache's next is the
 *    earlier cache's list_head and the earlier one's prev points back
 *    (SLUB adds new caches at the head of slab_caches);
 *  - kmem_cache.size: the one u32 that, in both caches, is the distance
 *    between objects (all objects sit on multiples of it in their slab) and
 *    is followed by object_size (kmem_cache_size()).
 *  - slab.counters (optional, for the scan of objects older than the
 *    module): the one word of struct slab whose low 32 bits read as
 *    SLUB's inuse:16 objects:15 frozen:1 with objects = slab size / stride
 *    and 1 <= inuse <= objects, in both caches.
 *  - kmem_cache.red_left_pad (optional): slub_debug's left red zone puts
 *    every object that many bytes past its slot on the stride grid.  A
 *    third cache is made with red zones and 64-byte alignment; the field
 *    is the one u32 equal, in all three caches, to the shift measured on
 *    their objects.  SLUB sets red_left_pad = align when red zones are on,
 *    so the first cache is made with SLAB_NO_USER_FLAGS: a slub_debug=Z
 *    boot cannot give it red zones, and align (8 there) is told apart.
 * Every candidate must be unique; otherwise calibration fails and names the
 * module parameter that overrides the offset.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/uaccess.h>
#include <linux/string.h>
#include "uapi/dprof.h"
#include "calibrate.h"
#include "compat.h"

#define CALIB_OBJECTS	16
#define CALIB_SCAN	512	/* bytes of struct kmem_cache searched */
#define SLAB_SCAN	64	/* bytes of struct slab searched */
#define WALK_LIMIT	16384	/* caches visited at most when walking */

struct dprof_layout dprof_layout;

/*
 * The offsets by hand, where calibration cannot find them (the message
 * that it failed names the parameter): each -1 (calibrate) by default.
 */
static int slab_cache_offset = -1;
module_param(slab_cache_offset, int, 0444);
MODULE_PARM_DESC(slab_cache_offset,
		 "Offset of slab_cache in struct slab; -1 (default) calibrates");

static int cache_size_offset = -1;
module_param(cache_size_offset, int, 0444);
MODULE_PARM_DESC(cache_size_offset,
		 "Offset of size (object stride) in struct kmem_cache; -1 (default) calibrates");

static int cache_name_offset = -1;
module_param(cache_name_offset, int, 0444);
MODULE_PARM_DESC(cache_name_offset,
		 "Offset of name in struct kmem_cache; -1 (default) calibrates");

static int cache_list_offset = -1;
module_param(cache_list_offset, int, 0444);
MODULE_PARM_DESC(cache_list_offset,
		 "Offset of list in struct kmem_cache; -1 (default) calibrates");

static int slab_counters_offset = -1;
module_param(slab_counters_offset, int, 0444);
MODULE_PARM_DESC(slab_counters_offset,
		 "Offset of counters (inuse, objects, frozen) in struct slab, for the scan; -1 (default) calibrates");

static int red_left_pad_offset = -1;
module_param(red_left_pad_offset, int, 0444);
MODULE_PARM_DESC(red_left_pad_offset,
		 "Offset of red_left_pad (slub_debug's left red zone) in struct kmem_cache; -1 (default) calibrates");

/*
 * An offset given by hand is read from NMI (slab.*) or at every lookup
 * (kmem_cache.*): the words read there must lie within the bytes
 * calibration would search, struct slab's first 64 (one struct page)
 * and struct kmem_cache's first 512.
 */
static bool offset_ok(const char *name, int value, int align, int span,
		      int below)
{
	int most = round_down(below - span, align);

	if (value == -1 || (value >= 0 && value <= most && value % align == 0))
		return true;
	pr_err("%s=%d: must be -1 (calibrate) or a multiple of %d up to %d\n",
	       name, value, align, most);
	return false;
}

static const char *const field_param[] = {
	"slab_cache_offset", "cache_size_offset",
	"cache_name_offset", "cache_list_offset",
	"slab_counters_offset", "red_left_pad_offset",
};

/* A calibration cache kept alive while targets are looked up. */
struct calib_cache {
	struct kmem_cache *s;
	const char *name;
	unsigned int object_size;
	unsigned int align;
	slab_flags_t flags;
	unsigned int left_pad;	/* measured: objects' shift off the grid */
	void *objs[CALIB_OBJECTS];
};

#define CALIB_RZ_ALIGN	64

/*
 * a and b find the mandatory fields; b is made as every cache of this boot
 * (slub_debug= may give it red zones), a never gets any, rz always does
 * when the kernel has SLUB debugging.
 */
static struct calib_cache calib[3] = {
	{ .name = "dprof_calib_a", .object_size = 200,
	  .flags = DPROF_SLAB_NO_BOOT_DEBUG },
	{ .name = "dprof_calib_b", .object_size = 328 },
	{ .name = "dprof_calib_rz", .object_size = 136,
	  .align = CALIB_RZ_ALIGN, .flags = SLAB_RED_ZONE },
};

#define CALIB_RZ	2

/* The constructor exists to keep SLUB from merging these caches. */
static void calib_ctor(void *obj)
{
	memset(obj, 0, 8);
}

static void calib_destroy(void)
{
	int c, i;

	for (c = 0; c < ARRAY_SIZE(calib); c++) {
		if (!calib[c].s)
			continue;
		for (i = 0; i < CALIB_OBJECTS; i++) {
			if (calib[c].objs[i])
				kmem_cache_free(calib[c].s, calib[c].objs[i]);
			calib[c].objs[i] = NULL;
		}
		kmem_cache_destroy(calib[c].s);
		calib[c].s = NULL;
	}
}

static int calib_create(void)
{
	int c, i;

	for (c = 0; c < ARRAY_SIZE(calib); c++) {
		calib[c].s = kmem_cache_create(calib[c].name,
					       calib[c].object_size,
					       calib[c].align, calib[c].flags,
					       calib_ctor);
		if (!calib[c].s)
			goto err;
		for (i = 0; i < CALIB_OBJECTS; i++) {
			calib[c].objs[i] = kmem_cache_alloc(calib[c].s,
							    GFP_KERNEL);
			if (!calib[c].objs[i])
				goto err;
		}
	}
	return 0;
err:
	calib_destroy();
	return -ENOMEM;
}

/*
 * Calibration reads words of structures whose layout it does not know yet,
 * so every read is nofault (0 when it faults): a guess past the end of a
 * struct kmem_cache may land on a KFENCE guard page or an unmapped page
 * under debug_pagealloc, and plain loads there would oops at insmod.
 */
static unsigned long word_at(const void *base, int off)
{
	unsigned long v;

	if (copy_from_kernel_nofault(&v, (const char *)base + off, sizeof(v)))
		return 0;
	return v;
}

static unsigned int u32_at(const void *base, int off)
{
	u32 v;

	if (copy_from_kernel_nofault(&v, (const char *)base + off, sizeof(v)))
		return 0;
	return v;
}

/*
 * Bytes of struct kmem_cache searched: CALIB_SCAN at first; once the
 * offset of slab->slab_cache is known, no more than the object size of
 * the cache that holds the calibration caches' own struct kmem_cache
 * (the "kmem_cache" cache), so that no search reads into a neighbour.
 */
static int cache_scan = CALIB_SCAN;

/* Where dprof_walk_caches() starts once the calibration caches are gone. */
/*
 * The "kmem_cache" cache, whose objects are the struct kmem_cache of every
 * cache: the walk of slab_caches starts from it, and target.c sees a
 * cache die for good when one of its objects is freed.
 */
struct kmem_cache *dprof_cache_cache;

static void bound_cache_scan(void)
{
	struct kmem_cache *caches;

	cache_scan = CALIB_SCAN;
	if (dprof_layout.slab_cache < 0)
		return;
	caches = dprof_cache_of(calib[0].s, NULL);
	if (caches && kmem_cache_size(caches) >= 64)
		cache_scan = min_t(int, CALIB_SCAN,
				   round_down(kmem_cache_size(caches), 8));
}

/*
 * Copy a NUL-terminated kernel string that may not be one, a byte at a time
 * so that a string ending just before an unmapped page still reads.
 * (strncpy_from_kernel_nofault() is not exported.)  Returns its length, or
 * -1 when unreadable or longer than @len - 1.
 */
static int read_kernel_string(unsigned long ptr, char *buf, size_t len)
{
	size_t i;

	if (!ptr || !virt_addr_valid((void *)ptr))
		return -1;
	for (i = 0; i < len; i++) {
		if (copy_from_kernel_nofault(&buf[i], (void *)(ptr + i), 1))
			return -1;
		if (!buf[i])
			return i;
	}
	return -1;
}

static bool kernel_string_is(unsigned long ptr, const char *want)
{
	char buf[DPROF_NAME_LEN];

	return read_kernel_string(ptr, buf, sizeof(buf)) >= 0 &&
	       !strcmp(buf, want);
}

static int find_slab_cache(void)
{
	struct folio *folio = virt_to_folio(calib[0].objs[0]);
	int off, found = -1;

	for (off = 0; off < SLAB_SCAN; off += sizeof(long)) {
		if (word_at(folio, off) != (unsigned long)calib[0].s)
			continue;
		if (found >= 0)
			return -1;
		found = off;
	}
	/* Every object of the second cache must agree. */
	if (found >= 0 &&
	    word_at(virt_to_folio(calib[1].objs[0]), found) !=
	    (unsigned long)calib[1].s)
		return -1;
	return found;
}

/*
 * SLUB's sysfs kobject carries a second copy of the name, so two words may
 * point at equal strings; name is the one right before list (6.1 to 6.18).
 */
static int find_cache_name(void)
{
	int off, found = -1, matches = 0;

	for (off = 0; off < cache_scan; off += sizeof(long)) {
		if (!kernel_string_is(word_at(calib[0].s, off), calib[0].name) ||
		    !kernel_string_is(word_at(calib[1].s, off), calib[1].name))
			continue;
		matches++;
		if (found < 0 || off + (int)sizeof(long) == dprof_layout.cache_list)
			found = off;
	}
	if (matches > 1 && found + (int)sizeof(long) != dprof_layout.cache_list) {
		pr_info("calibration: %d words point at the cache name, none right before list (%d)\n",
			matches, dprof_layout.cache_list);
		return -1;
	}
	return found;
}

/*
 * Caches another CPU may create between our two calibration caches.  Other
 * lists may also lead from b to a (seen on 6.12: one at offset 360, four
 * hops); only in slab_caches is every node on the way a struct kmem_cache,
 * i.e. an object of the cache our two kmem_caches came from.
 */
#define LIST_HOPS	16

static bool reaches_through_caches(unsigned long from, unsigned long to,
				   int off, struct kmem_cache *caches)
{
	unsigned long node = from;
	int hops;

	for (hops = 0; hops < LIST_HOPS; hops++) {
		if (node == to)
			return true;
		if (!node || dprof_cache_of((void *)(node - off), NULL) != caches ||
		    copy_from_kernel_nofault(&node, (void *)node, sizeof(node)))
			return false;
	}
	return false;
}

static bool read_word(unsigned long addr, unsigned long *val)
{
	return !copy_from_kernel_nofault(val, (void *)addr, sizeof(*val));
}

/*
 * Is the list_head at @off of every kmem_cache the slab_caches list?  Walk
 * the whole ring from a: every link must be doubly consistent (next's
 * prev is the node), b must be on it, and exactly one node must not be a
 * kmem_cache: the static slab_caches head.  A chain of pointers that only
 * happens to lead from b to a fails this.
 */
static bool is_slab_caches(int off, struct kmem_cache *caches)
{
	unsigned long start = (unsigned long)calib[0].s + off;
	unsigned long b = (unsigned long)calib[1].s + off;
	unsigned long node = start, next, back;
	int steps, heads = 0;
	bool seen_b = false;

	for (steps = 0; steps < WALK_LIMIT; steps++) {
		if (!read_word(node, &next) || !read_word(next + sizeof(long), &back) ||
		    back != node)
			return false;
		if (next == start)
			return seen_b && heads == 1;
		seen_b |= next == b;
		if (dprof_cache_of((void *)(next - off), NULL) != caches &&
		    ++heads > 1)
			return false;
		node = next;
	}
	return false;
}

static int find_cache_list(void)
{
	unsigned long a = (unsigned long)calib[0].s;
	struct kmem_cache *caches;
	int off, found = -1;

	if (dprof_layout.slab_cache < 0)
		return -1;	/* needed to tell a kmem_cache */
	caches = dprof_cache_of(calib[0].s, NULL);
	if (!caches || caches != dprof_cache_of(calib[1].s, NULL))
		return -1;
	/*
	 * slab_caches gets new caches at its head: walking on from b (made
	 * second) reaches a, usually in one hop.
	 */
	for (off = 0; off + 16 <= cache_scan; off += sizeof(long)) {
		if (!reaches_through_caches(word_at(calib[1].s, off), a + off,
					    off, caches) ||
		    !is_slab_caches(off, caches))
			continue;
		if (found >= 0)
			return -1;
		found = off;
	}
	return found;
}

/*
 * Do all objects of @c sit at one shift (*@left_pad, a left red zone) from
 * the multiples of @stride in their slab, with room for the object?
 */
static bool stride_fits(struct calib_cache *c, unsigned int stride,
			unsigned int *left_pad)
{
	unsigned int pad = 0;
	int i;

	if (stride < c->object_size || stride > c->object_size + 512)
		return false;
	for (i = 0; i < CALIB_OBJECTS; i++) {
		struct folio *folio = virt_to_folio(c->objs[i]);
		unsigned long rel = (unsigned long)c->objs[i] -
				    (unsigned long)folio_address(folio);

		if (!i)
			pad = rel % stride;
		else if (rel % stride != pad)
			return false;
	}
	if (pad + c->object_size > stride)
		return false;
	*left_pad = pad;
	return true;
}

/*
 * The one u32 offset of struct kmem_cache (with @span bytes readable from
 * it) at which @fits holds for every calibration cache; -1 if none or more.
 */
static int find_unique_u32(int span,
			   bool (*fits)(struct calib_cache *c, int off))
{
	int off, found = -1, c;

	for (off = 0; off + span <= cache_scan; off += sizeof(u32)) {
		for (c = 0; c < ARRAY_SIZE(calib); c++)
			if (!fits(&calib[c], off))
				break;
		if (c < ARRAY_SIZE(calib))
			continue;
		if (found >= 0)
			return -1;
		found = off;
	}
	return found;
}

/* size: a stride the objects sit on, followed by object_size. */
static bool size_fits(struct calib_cache *c, int off)
{
	unsigned int pad;

	return stride_fits(c, u32_at(c->s, off), &pad) &&
	       u32_at(c->s, off + 4) == kmem_cache_size(c->s);
}

static int find_cache_size(void)
{
	return find_unique_u32(8, size_fits);
}

static bool counters_fit(struct calib_cache *c, int off)
{
	struct folio *folio = virt_to_folio(c->objs[0]);
	unsigned int stride = dprof_cache_stride(c->s);
	u32 v = u32_at(folio, off), objects = (v >> 16) & 0x7fff;
	u32 inuse = v & 0xffff;

	return stride && objects == folio_size(folio) / stride && inuse >= 1 &&
	       inuse <= objects;
}

static int find_slab_counters(void)
{
	int off, found = -1;

	if (dprof_layout.cache_size < 0)
		return -1;	/* needs the stride */
	for (off = 0; off < SLAB_SCAN; off += sizeof(long)) {
		if (off == dprof_layout.slab_cache ||
		    !counters_fit(&calib[0], off) || !counters_fit(&calib[1], off))
			continue;
		if (found >= 0)
			return -1;
		found = off;
	}
	return found;
}

/* Each calibration cache's shift off the grid of the stride found. */
static bool measure_left_pads(void)
{
	int c;

	for (c = 0; c < ARRAY_SIZE(calib); c++)
		if (!stride_fits(&calib[c], dprof_cache_stride(calib[c].s),
				 &calib[c].left_pad))
			return false;
	return true;
}

static bool red_left_pad_fits(struct calib_cache *c, int off)
{
	return u32_at(c->s, off) == c->left_pad;
}

/* Called once the mandatory fields, cache_size among them, are known. */
static int find_red_left_pad(void)
{
	if (!measure_left_pads())
		return -1;
	/* Kernel without SLUB debugging: SLAB_RED_ZONE was dropped. */
	dprof_layout.no_red_zones = !calib[CALIB_RZ].left_pad;
	if (dprof_layout.no_red_zones)
		return -1;
	return find_unique_u32(4, red_left_pad_fits);
}

static int layout_pick(int index, int override, int (*find)(void),
		       bool report)
{
	int off;

	if (override >= 0) {
		dprof_layout.overridden[index] = true;
		return override;
	}
	off = find();
	if (off < 0 && report)
		pr_err("cannot calibrate the offset for %s; set it with the module parameter %s= (see Documentation/parameters.rst)\n",
		       field_param[index], field_param[index]);
	return off;
}

static bool layout_complete(void)
{
	return dprof_layout.slab_cache >= 0 && dprof_layout.cache_size >= 0 &&
	       dprof_layout.cache_name >= 0 && dprof_layout.cache_list >= 0;
}

/*
 * Something else can still make a field ambiguous (two candidate offsets):
 * try again with fresh caches, and
 * only report the fields that still fail on the last attempt.
 */
#define CALIB_ATTEMPTS 5

int dprof_layout_init(void)
{
	int slab_cache = slab_cache_offset, cache_size = cache_size_offset;
	int cache_name = cache_name_offset, cache_list = cache_list_offset;
	int slab_counters = slab_counters_offset;
	int red_left_pad = red_left_pad_offset;
	int attempt, ret;

	/* Words read at each: size and object_size, list's next and prev. */
	if (!offset_ok("slab_cache_offset", slab_cache, 8, 8, 64) ||
	    !offset_ok("cache_size_offset", cache_size, 4, 8, 512) ||
	    !offset_ok("cache_name_offset", cache_name, 8, 8, 512) ||
	    !offset_ok("cache_list_offset", cache_list, 8, 16, 512) ||
	    !offset_ok("slab_counters_offset", slab_counters, 8, 8, 64) ||
	    !offset_ok("red_left_pad_offset", red_left_pad, 4, 4, 512))
		return -EINVAL;

	for (attempt = 1; attempt <= CALIB_ATTEMPTS; attempt++) {
		bool last = attempt == CALIB_ATTEMPTS;

		ret = calib_create();
		if (ret) {
			pr_err("cannot create calibration caches (%d)\n", ret);
			return ret;
		}
		dprof_layout.slab_cache = layout_pick(0, slab_cache,
						      find_slab_cache, last);
		bound_cache_scan();
		dprof_layout.cache_size = layout_pick(1, cache_size,
						      find_cache_size, last);
		dprof_layout.cache_list = layout_pick(3, cache_list,
						      find_cache_list, last);
		dprof_layout.cache_name = layout_pick(2, cache_name,
						      find_cache_name, last);
		if (layout_complete()) {
			/* Optional: without it, no scan at load. */
			dprof_layout.slab_counters =
				layout_pick(4, slab_counters,
					    find_slab_counters, false);
			/* Optional: without it, red-zoned objects are off-grid. */
			dprof_layout.cache_red_left_pad =
				layout_pick(5, red_left_pad,
					    find_red_left_pad, false);
			/*
			 * The walk starts from a listed cache: the calibration
			 * caches while they stay, then the "kmem_cache" cache
			 * (a boot cache, listed and never destroyed).
			 */
			dprof_cache_cache = dprof_cache_of(calib[0].s, NULL);
			return 0;
		}
		calib_destroy();
	}
	return -ENODEV;
}

void dprof_layout_exit(void)
{
	calib_destroy();
}

/* True when @ptr is the address of a struct kmem_cache: all live in slabs. */
static bool is_cache_object(unsigned long ptr)
{
	return ptr && virt_addr_valid((void *)ptr) &&
	       folio_test_slab(virt_to_folio((void *)ptr));
}

/*
 * Walk slab_caches starting from a calibration cache, or once they are
 * gone from the "kmem_cache" cache.  slab_mutex is not exported, so every
 * load goes through copy_from_kernel_nofault() and the walk is bounded: a
 * concurrent cache creation or destruction cannot make it fault or loop.
 * Used at load, by target=all's rescans and by kmem_cache_destroy()'s
 * return probe; it never sleeps.
 */
int dprof_walk_caches(dprof_cache_fn fn, void *arg)
{
	int list = dprof_layout.cache_list;
	struct kmem_cache *start = calib[0].s ? calib[0].s : dprof_cache_cache;
	unsigned long anchor, node, name_ptr;
	char name[DPROF_NAME_LEN];
	int visited, ret;

	if (!start)
		return -ENODEV;
	anchor = (unsigned long)start + list;
	node = word_at(start, list);
	for (visited = 0; node != anchor && visited < WALK_LIMIT; visited++) {
		unsigned long cache = node - list;

		/* slab_caches itself is in kernel data, not a slab: skip */
		if (is_cache_object(cache)) {
			if (copy_from_kernel_nofault(&name_ptr,
						     (void *)cache +
						     dprof_layout.cache_name,
						     sizeof(name_ptr)))
				return -EFAULT;
			if (read_kernel_string(name_ptr, name,
					       sizeof(name)) > 0) {
				ret = fn((struct kmem_cache *)cache, name, arg);
				if (ret)
					return ret;
			}
		}
		if (copy_from_kernel_nofault(&node, (void *)node, sizeof(node)))
			return -EFAULT;
	}
	return node == anchor ? 0 : -ELOOP;
}

unsigned int dprof_cache_stride(struct kmem_cache *s)
{
	return u32_at(s, dprof_layout.cache_size);
}

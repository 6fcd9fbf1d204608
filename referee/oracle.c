// SPDX-License-Identifier: GPL-2.0
/*
 * The referee (issue "A referee on real workloads"): a QEMU TCG plugin
 * that sees every data access of every vCPU of a guest running dprof's
 * workloads, runs it through a coherent cache model (coherence.c) and
 * types it by the slab object it falls in, which it learns by following
 * the allocator itself (objmap.c), so that its counts owe nothing to
 * dprof.ko.  Written as JSON at exit (Documentation/referee.rst).
 *
 * One lock orders every callback: the accesses come here in one total
 * order.  The guest runs multi-threaded TCG: under -accel tcg,thread=single
 * QEMU 10 bakes the vCPU index of the vCPU that translated a block into
 * its callbacks (accel/tcg/plugin-gen.c, gen_cpu_index(), "optimize when
 * we run with a single vcpu"), and blocks are shared, so every access of
 * shared code was charged to one vCPU (seen: all of dprof_atomics' on
 * CPU 0).  Multi-threaded, an access's callback runs right after it, in
 * its vCPU's thread, before that vCPU's next instruction: an access that
 * another vCPU's depends on (through a release and an acquire, a lock, an
 * atomic) is counted first.  Only accesses that truly race may be counted
 * in either order.  The guest boots with nokaslr, so that the symbols
 * hold.
 *
 * Following the allocator, from System.map:
 *  - allocations: every direct call (e8 rel32) to an allocation function
 *    marks the instruction after it, the return site; there rax is the
 *    object.  Its cache is read from its slab (vmemmap_base,
 *    page_offset_base, struct slab's slab_cache), its name and object
 *    size from struct kmem_cache (offsets from the kernel's BTF, given by
 *    scripts/referee.sh).  Bulk allocations: the array is taken at entry.
 *  - frees: the object argument at each free function's entry.
 *  - measuring: each entry of ksys_sync() (sync(1) in the guest) starts
 *    or stops it; the model starts cold at the first, so a line's first
 *    touch by a core after it counts as compulsory.  windows=N: the
 *    first N windows only (the guest's init syncs again at its end).
 * Accesses by instructions in an exclude= range (dprof.ko's text) are
 * not seen.  Nor are accesses to the profiler's own objects: those the
 * kernel allocated between the two markers of selftests/progs/referee_own.c
 * (run around insmod dprof.ko), on any vCPU.  dprof's breakpoints and
 * ticks are perf events, allocated while it loads, which the perf core
 * touches on every trap and tick, on dprof's behalf: counted, they were
 * 3 % of memcached's slab accesses and the referee's fifth type.
 */
#include <glib.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <qemu-plugin.h>
#include "coherence.h"
#include "insn.h"
#include "objmap.h"
#include "table.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MAX_VCPUS	COH_MAX_CORES
#define MAX_CACHES	4096
#define MAX_EXCLUDE	8
#define PENDING_DEPTH	16
#define MAX_WINDOWS	16
/* on_mem's udata: what the instruction is */
#define INSN_ATOMIC	1
#define INSN_STRING	2
/* The rest of a memory callback's udata: the instruction's address. */
#define INSN_FLAG_BITS	2
/* referee_own begin|end: nopl 0x44504f31(%rax), nopl 0x44504f30(%rax) */
#define MARKER_LEN	7
static const uint8_t own_begin[MARKER_LEN] = {
	0x0f, 0x1f, 0x80, 0x31, 0x4f, 0x50, 0x44
};
static const uint8_t own_end[MARKER_LEN] = {
	0x0f, 0x1f, 0x80, 0x30, 0x4f, 0x50, 0x44
};

enum hook {
	HOOK_NONE,
	HOOK_ALLOC,		/* return value is one object */
	HOOK_ALLOC_BULK,	/* kmem_cache_alloc_bulk(s, gfp, n, p) */
	HOOK_FREE_ARG0,		/* kfree(x) */
	HOOK_FREE_ARG1,		/* kmem_cache_free(s, x) */
	HOOK_FREE_BULK,		/* kmem_cache_free_bulk(s, n, p) */
	HOOK_TRIGGER,		/* ksys_sync(): measuring on or off */
	HOOK_CACHE_DESTROY,	/* kmem_cache_destroy(s): s forgotten */
};

static const struct {
	const char *name;
	enum hook hook;
} hook_names[] = {
	/* 6.1 */
	{ "kmem_cache_alloc", HOOK_ALLOC },
	{ "kmem_cache_alloc_lru", HOOK_ALLOC },
	{ "kmem_cache_alloc_node", HOOK_ALLOC },
	{ "kmalloc_trace", HOOK_ALLOC },
	{ "kmalloc_node_trace", HOOK_ALLOC },
	{ "__kmalloc", HOOK_ALLOC },
	{ "__kmalloc_node", HOOK_ALLOC },
	{ "__kmalloc_node_track_caller", HOOK_ALLOC },
	{ "krealloc", HOOK_ALLOC },
	{ "kmem_cache_alloc_bulk", HOOK_ALLOC_BULK },
	/* 6.12 (memory allocation profiling renamed them) */
	{ "kmem_cache_alloc_noprof", HOOK_ALLOC },
	{ "kmem_cache_alloc_lru_noprof", HOOK_ALLOC },
	{ "kmem_cache_alloc_node_noprof", HOOK_ALLOC },
	{ "__kmalloc_noprof", HOOK_ALLOC },
	{ "__kmalloc_node_noprof", HOOK_ALLOC },
	{ "__kmalloc_cache_noprof", HOOK_ALLOC },
	{ "__kmalloc_cache_node_noprof", HOOK_ALLOC },
	{ "__kmalloc_node_track_caller_noprof", HOOK_ALLOC },
	{ "krealloc_noprof", HOOK_ALLOC },
	{ "kmem_cache_alloc_bulk_noprof", HOOK_ALLOC_BULK },
	/*
	 * mempool_alloc() calls its pool's allocator through a pointer
	 * (mempool_alloc_slab(), a tail call to kmem_cache_alloc()), whose
	 * return site no direct call marks: the block layer's bios
	 * (bio-192, the sync's writeback) were untyped, 0 accesses where
	 * dprof's windows counted 1,138 samples and ranked them 5th.  Its
	 * own return holds the element (a slab object, or a preallocated
	 * one, typed by its page either way).
	 */
	{ "mempool_alloc", HOOK_ALLOC },
	{ "mempool_alloc_noprof", HOOK_ALLOC },
	{ "mempool_alloc_preallocated", HOOK_ALLOC },
	/* both */
	{ "kfree", HOOK_FREE_ARG0 },
	{ "kmem_cache_free", HOOK_FREE_ARG1 },
	{ "kmem_cache_free_bulk", HOOK_FREE_BULK },
	{ "ksys_sync", HOOK_TRIGGER },
	{ "kmem_cache_destroy", HOOK_CACHE_DESTROY },
};

struct cache_info {
	uint64_t ptr;
	uint32_t object_size;
	char name[64];
};

/* Per (cache, offset): what touched it and what missed. */
struct field_stats {
	uint64_t key;		/* the table's: cache << 32 | offset, + 1 */
	uint64_t kinds[3];	/* enum coh_kind */
	/*
	 * Stores that were the second half of a plain read-modify-write
	 * (add, or, inc... to memory without lock): its load and its store
	 * are both in kinds[] and both in the cache model, but the
	 * instruction is one access, as a data breakpoint or a sampled
	 * instruction counts it ("rmw" in the JSON).
	 */
	uint64_t rmw;
	/*
	 * Accesses (instructions, as in kinds[] less rmw) made with
	 * interrupts off (eflags.IF clear): those a timer tick can never
	 * stop before (dprof's sampler=operand), "irqs_off" in the JSON.
	 */
	uint64_t irqs_off;
	/*
	 * Accesses (instructions) the allocator made to the object before
	 * returning it (struct at_alloc), apart from the above: a data
	 * breakpoint armed at the return never sees them, a sampled
	 * instruction does; "at_alloc", "at_alloc_irqs_off" in the JSON.
	 */
	uint64_t at_alloc, at_alloc_irqs_off;
	uint64_t results[COH_NR_RESULTS];
};

/* Per (cache, offset, class, core, from core): sharing misses. */
struct pair_stats {
	uint64_t key;		/* the table's: packed, + 1 */
	uint64_t count;
};

struct pending {
	uint64_t rsp;		/* at entry: the return address's slot */
	uint64_t array;		/* bulk: the object array */
};

/*
 * An untyped access made inside an allocation function: the allocator's
 * own to the object it is about to return (its freelist pointer, the
 * zeroing of init_on_alloc or __GFP_ZERO), counted for the object apart
 * when the function returns it (the cache model saw it as it came).
 * 8,192 hold an 8 KiB memset at a slot each four times over, or a bulk
 * allocation of 32 zeroed 2 KiB objects.
 */
#define AT_ALLOC_MAX	8192

struct at_alloc {
	uint64_t vaddr;
	uint8_t size, kind, result, rmw, irqs_off;
	int8_t from_core;
};

struct vcpu {
	struct qemu_plugin_register *rax, *rdi, *rsi, *rdx, *rcx, *rsp;
	struct qemu_plugin_register *eflags;
	GByteArray *flags_buf;	/* eflags read into it, kept */
	uint64_t atomic_load;	/* vaddr of the atomic whose load was seen */
	/* The last plain load: its instruction's udata and its vaddr. */
	uintptr_t load_insn;
	uint64_t load_vaddr;
	/* A string instruction's last 8-byte slot loaded, stored; + 1. */
	uint64_t string_slot[2];
	struct pending pending[PENDING_DEPTH];
	unsigned int nr_pending;
	bool in_alloc;		/* since an allocation function's entry */
	struct at_alloc at_alloc[AT_ALLOC_MAX];
	unsigned int nr_at_alloc;
};

/*
 * Every callback below holds the order lock.  It spins rather than
 * sleeps: its sections are short (one access through the cache model),
 * and two vCPU threads that take it on every access made a GMutex one
 * futex call per contended access, which on a host where a system call
 * is dear (a nested guest) took half the host's time and slowed a UDP
 * run with dprof.ko loaded a hundredfold.  A waiter yields the host CPU
 * now and then, in case the holder's thread was descheduled.
 */
static int order_taken;

static void order_lock(void)
{
	unsigned int spins = 0;

	while (__atomic_exchange_n(&order_taken, 1, __ATOMIC_ACQUIRE)) {
		while (__atomic_load_n(&order_taken, __ATOMIC_RELAXED)) {
			if (++spins % 4096 == 0)
				sched_yield();
			else
				__builtin_ia32_pause();
		}
	}
}

static void order_unlock(void)
{
	__atomic_store_n(&order_taken, 0, __ATOMIC_RELEASE);
}

static struct {
	/* configuration */
	const char *map_path, *out_path;
	unsigned int kc_name, kc_objsize, slab_cache;
	struct coh_geometry geom;
	uint64_t exclude_lo[MAX_EXCLUDE], exclude_hi[MAX_EXCLUDE];
	unsigned int nr_exclude;
	unsigned int max_windows;	/* windows=N; 0: every one */
	uint64_t at_alloc_accesses;	/* charged at the allocation's return */
	/* from System.map */
	GHashTable *entry_hooks;	/* address -> enum hook */
	GHashTable *alloc_fns;		/* address -> enum hook */
	uint64_t page_offset_base_sym, vmemmap_base_sym;
	uint64_t page_offset_base, vmemmap_base;
	/* the kernel's data symbols, by address (types d, b, r) */
	uint64_t *sym_addr;
	char **sym_name;
	unsigned int nr_syms, cap_syms;
	/* learned as the guest runs */
	GHashTable *return_sites;	/* address -> enum hook */
	GHashTable *call_sites;		/* return address -> direct callee */
	uint64_t *text_addr;		/* the kernel's functions, sorted */
	unsigned int nr_text, cap_text;
	unsigned int tail_wrappers;	/* allocators found by their jumps */
	struct cache_info caches[MAX_CACHES];
	unsigned int nr_caches, caches_destroyed;
	GHashTable *cache_ids;		/* cache pointer -> id + 1 */
	struct objmap *objs;
	struct coh_model *model;
	struct vcpu vcpus[MAX_VCPUS];
	bool active;
	unsigned int triggers;
	bool own_open;			/* between the own markers */
	unsigned int own_markers;
	/* results */
	struct table fields;		/* of struct field_stats */
	struct table pairs;		/* of struct pair_stats */
	struct table transfers;		/* of struct pair_stats, by holder */
	uint64_t untyped_kinds[3], untyped_results[COH_NR_RESULTS];
	/*
	 * Untyped accesses inside a cache's slab pages, by cache: [0] in
	 * an allocation function (some charged to the object later), [1]
	 * elsewhere (a free object's freelist word, an object whose
	 * allocation was not seen).  Typing by the slab page counts both.
	 */
	uint64_t untyped_in_slab[MAX_CACHES][2];
	uint64_t allocs, allocs_untyped, frees, frees_unknown, bulk_lost;
	uint64_t accesses, split;
	uint64_t own_objects, own_accesses;	/* the profiler's, left out */
	uint64_t string_kept;	/* string instructions' accesses, per slot */
	struct timespec start;
	double active_s;
	uint64_t loaded_ns;		/* when QEMU loaded the plugin */
	double window_at[MAX_WINDOWS][2];	/* windows, s after loading */
	unsigned int nr_windows;
} o;

/* ---- guest state -------------------------------------------------------- */

/*
 * The host's monotonic clock, in ns: without -icount the guest's clock
 * is the host's, so times here are on the recording's time base.
 */
static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint64_t reg(struct qemu_plugin_register *r)
{
	g_autoptr(GByteArray) buf = g_byte_array_new();
	uint64_t v = 0;

	if (!r || qemu_plugin_read_register(r, buf) < 8)
		return 0;
	memcpy(&v, buf->data, 8);
	return v;
}

static bool read_guest(uint64_t addr, void *to, size_t len)
{
	g_autoptr(GByteArray) buf = g_byte_array_new();

	if (!qemu_plugin_read_memory_vaddr(addr, buf, len))
		return false;
	memcpy(to, buf->data, len);
	return true;
}

static uint64_t read_u64(uint64_t addr, bool *ok)
{
	uint64_t v = 0;

	*ok = read_guest(addr, &v, 8) && *ok;
	return v;
}

/* The id of the cache at @ptr, named on first sight; -1 if not one. */
static int cache_id(uint64_t ptr)
{
	gpointer v = g_hash_table_lookup(o.cache_ids, (gpointer)ptr);
	struct cache_info *c;
	uint64_t name_ptr;
	uint32_t objsize = 0;
	bool ok = true;
	unsigned int i;

	if (v)
		return GPOINTER_TO_INT(v) - 1;
	if (o.nr_caches == MAX_CACHES)
		return -1;
	c = &o.caches[o.nr_caches];
	name_ptr = read_u64(ptr + o.kc_name, &ok);
	ok = ok && read_guest(ptr + o.kc_objsize, &objsize, 4) &&
	     read_guest(name_ptr, c->name, sizeof(c->name) - 1);
	c->name[sizeof(c->name) - 1] = 0;
	for (i = 0; ok && c->name[i]; i++)
		if (c->name[i] < 0x20 || c->name[i] > 0x7e)
			ok = false;
	if (!ok || !i || !objsize || objsize > (1 << 24))
		return -1;	/* not a struct kmem_cache */
	c->ptr = ptr;
	c->object_size = objsize;
	g_hash_table_insert(o.cache_ids, (gpointer)ptr,
			    GINT_TO_POINTER(o.nr_caches + 1));
	return o.nr_caches++;
}

/* The cache of the slab holding @addr (a direct-map address); -1 if none. */
static int cache_of(uint64_t addr)
{
	uint64_t page, head, cache;
	bool ok = true;

	if (!o.page_offset_base) {
		o.page_offset_base = read_u64(o.page_offset_base_sym, &ok);
		o.vmemmap_base = read_u64(o.vmemmap_base_sym, &ok);
		if (!ok)
			o.page_offset_base = 0;
	}
	if (!o.page_offset_base || addr < o.page_offset_base)
		return -1;
	/* struct page is 64 bytes; a tail page points at its head + 1. */
	page = o.vmemmap_base + ((addr - o.page_offset_base) >> 12) * 64;
	head = read_u64(page + 8, &ok);
	if (ok && (head & 1))
		page = head - 1;
	cache = read_u64(page + o.slab_cache, &ok);
	if (!ok || cache < o.page_offset_base)
		return -1;
	return cache_id(cache);
}

static void *stats_slot(struct table *t, uint64_t key);

/* The accesses the allocator made to @obj before returning it. */
static void charge_at_alloc(unsigned int cpu, uint64_t obj, uint32_t size,
			    uint32_t id)
{
	struct vcpu *v = &o.vcpus[cpu % MAX_VCPUS];
	struct field_stats *f;
	unsigned int i;

	for (i = 0; i < v->nr_at_alloc; i++) {
		const struct at_alloc *a = &v->at_alloc[i];

		if (a->vaddr < obj || a->vaddr >= obj + size)
			continue;
		f = stats_slot(&o.fields, (uint64_t)id << 32 | (a->vaddr - obj));
		f->at_alloc += !a->rmw;
		f->at_alloc_irqs_off += !a->rmw && a->irqs_off;
		o.at_alloc_accesses += !a->rmw;
	}
}

/*
 * @charge: the allocator's accesses since its entry are charged to the
 * object (every object of a bulk allocation: kmem_cache_alloc_bulk
 * zeroes each under __GFP_ZERO or init_on_alloc, as the maple tree's
 * nodes are).
 */
static void note_alloc(unsigned int cpu, uint64_t obj, bool charge)
{
	uint64_t base;
	uint32_t cache;
	int id;

	if (!obj)
		return;
	o.allocs++;
	id = cache_of(obj);
	if (id < 0) {
		o.allocs_untyped++;	/* large kmalloc: pages, no slab */
		return;
	}
	/* A wrapper's return after its allocator's: the same object. */
	if (objmap_find(o.objs, obj, &cache, &base) && base == obj &&
	    cache == (uint32_t)id) {
		o.allocs--;
		return;
	}
	objmap_insert(o.objs, obj, o.caches[id].object_size, id, now_ns());
	if (o.own_open && objmap_set_own(o.objs, obj))
		o.own_objects++;
	else if (charge && o.active)
		charge_at_alloc(cpu, obj, o.caches[id].object_size,
				(uint32_t)id);
}

static void note_free(uint64_t obj)
{
	if (!obj)
		return;
	o.frees++;
	if (!objmap_remove(o.objs, obj, now_ns()))
		o.frees_unknown++;
}

/* ---- callbacks ---------------------------------------------------------- */

static void entry_locked(unsigned int cpu, void *udata)
{
	struct vcpu *v = &o.vcpus[cpu % MAX_VCPUS];
	enum hook h = (enum hook)(uintptr_t)udata;
	uint64_t n, p, i, x;
	bool ok = true;

	switch (h) {
	case HOOK_FREE_ARG0:
		note_free(reg(v->rdi));
		break;
	case HOOK_FREE_ARG1:
		note_free(reg(v->rsi));
		break;
	case HOOK_FREE_BULK:
		n = reg(v->rsi);
		p = reg(v->rdx);
		for (i = 0; i < n && i < 4096; i++) {
			x = read_u64(p + 8 * i, &ok);
			if (ok)
				note_free(x);
		}
		break;
	case HOOK_ALLOC_BULK:
		if (v->nr_pending == PENDING_DEPTH) {
			o.bulk_lost++;
			break;
		}
		v->pending[v->nr_pending].rsp = reg(v->rsp);
		v->pending[v->nr_pending].array = reg(v->rcx);
		v->nr_pending++;
		break;
	case HOOK_CACHE_DESTROY:
		/*
		 * A cache created later may get the same struct kmem_cache
		 * (seen on 6.12: a module's cache unloaded and another's
		 * created took its address, and its objects were counted
		 * under the first one's name): it is named anew on first
		 * sight.  Its objects were freed before the destroy.
		 */
		if (g_hash_table_remove(o.cache_ids, (gpointer)reg(v->rdi)))
			o.caches_destroyed++;
		break;
	case HOOK_TRIGGER: {
		struct timespec now;

		clock_gettime(CLOCK_MONOTONIC, &now);
		o.triggers++;
		if (!o.active && o.max_windows && o.nr_windows >= o.max_windows)
			break;	/* windows=N: done measuring */
		o.active = !o.active;
		if (o.nr_windows < MAX_WINDOWS) {
			double t = ((uint64_t)now.tv_sec * 1000000000u +
				    (uint64_t)now.tv_nsec - o.loaded_ns) / 1e9;

			o.window_at[o.nr_windows][!o.active] = t;
			o.nr_windows += !o.active;
		}
		objmap_window(o.objs, o.active,
			      (uint64_t)now.tv_sec * 1000000000u +
			      (uint64_t)now.tv_nsec);
		if (o.active)
			o.start = now;
		else
			o.active_s += (now.tv_sec - o.start.tv_sec) +
				      (now.tv_nsec - o.start.tv_nsec) / 1e9;
		break;
	}
	default:
		break;
	}
}

static void return_locked(unsigned int cpu, void *udata)
{
	struct vcpu *v = &o.vcpus[cpu % MAX_VCPUS];
	enum hook h = (enum hook)(uintptr_t)udata;
	uint64_t rsp, n, i, x;
	bool charge = v->in_alloc;
	bool ok = true;

	v->in_alloc = false;
	if (h == HOOK_ALLOC) {
		note_alloc(cpu, reg(v->rax), charge);
		return;
	}
	/* Bulk: the entry's slot was just popped (rsp is 8 above it). */
	rsp = reg(v->rsp);
	while (v->nr_pending && v->pending[v->nr_pending - 1].rsp < rsp - 8)
		v->nr_pending--;	/* their returns were not seen */
	if (!v->nr_pending || v->pending[v->nr_pending - 1].rsp != rsp - 8)
		return;
	v->nr_pending--;
	n = reg(v->rax);
	for (i = 0; i < n && i < 4096; i++) {
		x = read_u64(v->pending[v->nr_pending].array + 8 * i, &ok);
		if (ok)
			note_alloc(cpu, x, charge);
	}
}

/* A table's slot for @key; out of memory ends the run (as the model). */
static void *stats_slot(struct table *t, uint64_t key)
{
	void *s = table_get(t, key);

	if (!s) {
		fprintf(stderr, "referee: out of memory for the counts\n");
		abort();
	}
	return s;
}

/*
 * The kernel global holding @addr: its id (MAX_CACHES + its index) and
 * start; false outside the kernel image's data.  A symbol ends where the
 * next begins (kallsyms has no sizes).
 */
static bool global_of(uint64_t addr, uint32_t *id, uint64_t *base)
{
	unsigned int lo = 0, hi = o.nr_syms;

	if (!o.nr_syms || addr < o.sym_addr[0] ||
	    addr >= o.sym_addr[o.nr_syms - 1] + 4096)
		return false;
	while (hi - lo > 1) {
		unsigned int mid = (lo + hi) / 2;

		if (o.sym_addr[mid] <= addr)
			lo = mid;
		else
			hi = mid;
	}
	/*
	 * Beyond 64 KiB of its symbol an address is in a section's data
	 * (the BTF blob after linux_banner, which dprof-view record reads
	 * whole, notes), not in a variable: a field per byte of it made
	 * tables of 500 MB.
	 */
	if (addr - o.sym_addr[lo] >= 65536)
		return false;
	*id = MAX_CACHES + lo;
	*base = o.sym_addr[lo];
	return true;
}

/* eflags.IF of @cpu at the access (mem callbacks read the registers). */
static bool irqs_off(unsigned int cpu)
{
	struct vcpu *v = &o.vcpus[cpu % MAX_VCPUS];
	uint64_t flags = 0;

	if (!v->eflags || !v->flags_buf)
		return false;
	g_byte_array_set_size(v->flags_buf, 0);
	if (qemu_plugin_read_register(v->eflags, v->flags_buf) < 4)
		return false;
	memcpy(&flags, v->flags_buf->data,
	       MIN(v->flags_buf->len, sizeof(flags)));
	return !(flags & 0x200);
}

/* A typed access: the field's counts, its sharing pair, its transfer. */
static void count_typed(unsigned int cpu, uint32_t id, uint64_t off,
			enum coh_kind kind, bool rmw, enum coh_result result,
			int from_core, int modified_in, bool off_irqs)
{
	struct field_stats *f = stats_slot(&o.fields, (uint64_t)id << 32 | off);

	f->kinds[kind]++;
	f->rmw += rmw;
	f->irqs_off += !rmw && off_irqs;
	f->results[result]++;
	if (result == COH_TRUE_SHARING || result == COH_FALSE_SHARING)
		((struct pair_stats *)stats_slot(&o.pairs,
			(uint64_t)id << 40 | off << 16 |
			(uint64_t)result << 8 | (cpu & 15) << 4 |
			(from_core & 15)))->count++;
	if (modified_in >= 0)
		((struct pair_stats *)stats_slot(&o.transfers,
			(uint64_t)id << 40 | off << 16 | (cpu & 15) << 4 |
			(modified_in & 15)))->count++;
}

static void account(unsigned int cpu, uint64_t vaddr, uint64_t paddr,
		    unsigned int size, enum coh_kind kind, bool rmw)
{
	struct coh_outcome out = coh_access(o.model, cpu, paddr, size, kind);
	bool own = false;
	uint64_t base;
	uint32_t id;

	if (!objmap_touch(o.objs, vaddr, &id, &base, &own) &&
	    !global_of(vaddr, &id, &base)) {
		struct vcpu *v = &o.vcpus[cpu % MAX_VCPUS];

		if (v->in_alloc && v->nr_at_alloc < AT_ALLOC_MAX) {
			struct at_alloc *a = &v->at_alloc[v->nr_at_alloc++];

			a->vaddr = vaddr;
			a->size = (uint8_t)size;
			a->kind = (uint8_t)kind;
			a->result = (uint8_t)out.result;
			a->rmw = rmw;
			a->irqs_off = irqs_off(cpu);
			a->from_core = (int8_t)out.from_core;
		}
		o.untyped_kinds[kind]++;
		o.untyped_results[out.result]++;
		if (o.page_offset_base && vaddr >= o.page_offset_base &&
		    vaddr - o.page_offset_base < (1ULL << 46)) {
			int c = cache_of(vaddr);

			if (c >= 0)
				o.untyped_in_slab[c][!v->in_alloc]++;
		}
		return;
	}
	if (own) {
		/* The caches saw it (above); the counts leave it out. */
		o.own_accesses++;
		return;
	}
	count_typed(cpu, id, vaddr - base, kind, rmw, out.result,
		    out.from_core, out.modified_in, irqs_off(cpu));
}

/*
 * The physical address the caches see.  QEMU gives none for the atomic
 * helpers' accesses, so the direct map (where slab objects are) is
 * translated here; elsewhere QEMU's, or the virtual address marked.
 */
static uint64_t phys_of(qemu_plugin_meminfo_t info, uint64_t vaddr)
{
	struct qemu_plugin_hwaddr *hw;

	if (o.page_offset_base && vaddr >= o.page_offset_base &&
	    vaddr - o.page_offset_base < (1ULL << 46))
		return vaddr - o.page_offset_base;
	hw = qemu_plugin_get_hwaddr(info, vaddr);
	if (hw && !qemu_plugin_hwaddr_is_io(hw) &&
	    qemu_plugin_hwaddr_phys_addr(hw))
		return qemu_plugin_hwaddr_phys_addr(hw);
	return vaddr | (1ULL << 63);
}

static void mem_locked(unsigned int cpu, qemu_plugin_meminfo_t info,
		       uint64_t vaddr, void *udata)
{
	struct vcpu *v = &o.vcpus[cpu % MAX_VCPUS];
	bool store = qemu_plugin_mem_is_store(info);
	unsigned int size, first;
	enum coh_kind kind;
	uint64_t paddr;
	bool rmw = false;

	if (!o.active)
		return;
	if ((uintptr_t)udata & INSN_STRING) {
		/*
		 * A rep string instruction: TCG runs it an iteration (an
		 * element, a byte for movsb) at a time, each with its access.
		 * Counted as one access per 8-byte slot, over the whole slot:
		 * a CPU's fast-string microcode moves many bytes per
		 * operation, and dprof's watch sampler took one sample per
		 * slot per copy (kmalloc-8k's payloads under memcached),
		 * where byte by byte would make a copy weigh eight times a
		 * loop of 8-byte moves.
		 */
		uint64_t slot = vaddr / 8 + 1;

		if (v->string_slot[store] == slot)
			return;
		v->string_slot[store] = slot;
	} else {
		v->string_slot[0] = v->string_slot[1] = 0;
	}
	o.string_kept += !!((uintptr_t)udata & INSN_STRING);
	if ((uintptr_t)udata & INSN_ATOMIC) {
		/*
		 * An atomic read-modify-write comes as its load, then its
		 * store: one access, taken at the load (the line is taken
		 * exclusive then).
		 */
		if (store && v->atomic_load == vaddr) {
			v->atomic_load = 0;
			return;
		}
		v->atomic_load = store ? 0 : vaddr;
		kind = COH_ATOMIC;
	} else {
		kind = store ? COH_STORE : COH_LOAD;
		/*
		 * A store by the instruction whose load of the same address
		 * came just before: one read-modify-write.  The instruction's
		 * address is in udata, so a load and a store of two
		 * instructions (x = p->f; p->f = x + 1) stay two accesses.
		 */
		rmw = store && v->load_insn == (uintptr_t)udata &&
		      v->load_vaddr == vaddr;
		v->load_insn = store ? 0 : (uintptr_t)udata;
		v->load_vaddr = vaddr;
	}
	paddr = phys_of(info, vaddr);
	size = 1u << qemu_plugin_mem_size_shift(info);
	if ((uintptr_t)udata & INSN_STRING) {
		paddr -= vaddr & 7;
		vaddr &= ~7ULL;
		size = 8;
	}
	o.accesses++;
	first = COH_LINE - paddr % COH_LINE;
	if (size > first) {
		/* Crosses a line: two accesses, one per line. */
		o.split++;
		account(cpu, vaddr, paddr, first, kind, rmw);
		account(cpu, vaddr + first, paddr + first, size - first, kind,
			rmw);
		return;
	}
	account(cpu, vaddr, paddr, size, kind, rmw);
}

static void on_entry(unsigned int cpu, void *udata)
{
	order_lock();
	entry_locked(cpu, udata);
	order_unlock();
}

/* An allocation function's first instruction: its accesses are kept. */
static void on_alloc_entry(unsigned int cpu, void *udata)
{
	struct vcpu *v;

	order_lock();
	v = &o.vcpus[cpu % MAX_VCPUS];
	v->in_alloc = true;
	v->nr_at_alloc = 0;
	order_unlock();
}

static void on_return(unsigned int cpu, void *udata)
{
	order_lock();
	return_locked(cpu, udata);
	order_unlock();
}

/* An own marker: @udata is 1 for begin, 0 for end. */
static void on_own_marker(unsigned int cpu, void *udata)
{
	order_lock();
	o.own_open = udata != NULL;
	o.own_markers++;
	order_unlock();
}

static void on_mem(unsigned int cpu, qemu_plugin_meminfo_t info,
		   uint64_t vaddr, void *udata)
{
	if (!o.active)
		return;
	order_lock();
	mem_locked(cpu, info, vaddr, udata);
	order_unlock();
}

static void translate_locked(struct qemu_plugin_tb *tb, size_t n);

/* The start of the kernel function holding @pc; 0 if none. */
static uint64_t function_of(uint64_t pc)
{
	unsigned int lo = 0, hi = o.nr_text;

	if (!o.nr_text || pc < o.text_addr[0])
		return 0;
	while (hi - lo > 1) {
		unsigned int mid = (lo + hi) / 2;

		if (o.text_addr[mid] <= pc)
			lo = mid;
		else
			hi = mid;
	}
	return o.text_addr[lo];
}

/*
 * A tail call (jmp rel32 or rel8) to an allocation function makes the
 * function holding it one too: kvmalloc_node() ends in "jmp
 * __kmalloc_node", so its callers' return sites hold the object (seq_file
 * buffers, kmalloc-cg-4k, came out untyped without this; 26 such
 * wrappers in 6.1: kmalloc_array, mempool_kmalloc, bitmap_alloc, ...).
 * A wrapper is known once its jump is translated, which is the first
 * time it runs, before it first returns: late_return_site() then finds
 * the call sites translated earlier.
 */
static void note_tail_call(uint64_t pc, const uint8_t *b, size_t len)
{
	uint64_t target, fn;
	gpointer h;

	if (insn_direct(pc, b, len, &target) != INSN_JMP)
		return;
	h = g_hash_table_lookup(o.alloc_fns, (gpointer)target);
	if (GPOINTER_TO_INT(h) != HOOK_ALLOC)
		return;
	fn = function_of(pc);
	if (!fn || fn == target ||
	    g_hash_table_lookup(o.alloc_fns, (gpointer)fn))
		return;
	g_hash_table_insert(o.alloc_fns, (gpointer)fn, h);
	o.tail_wrappers++;
}

/* A direct call's return site whose callee became an allocator later. */
static gpointer late_return_site(uint64_t pc)
{
	gpointer target = g_hash_table_lookup(o.call_sites, (gpointer)pc);
	gpointer h;

	if (!target)
		return NULL;
	h = g_hash_table_lookup(o.alloc_fns, target);
	if (h)
		g_hash_table_insert(o.return_sites, (gpointer)pc, h);
	return h;
}

static bool excluded(uint64_t pc)
{
	unsigned int i;

	for (i = 0; i < o.nr_exclude; i++)
		if (pc >= o.exclude_lo[i] && pc < o.exclude_hi[i])
			return true;
	return false;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);

	order_lock();
	translate_locked(tb, n);
	order_unlock();
}

static void translate_locked(struct qemu_plugin_tb *tb, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t pc = qemu_plugin_insn_vaddr(insn);
		uint8_t bytes[16];
		size_t len = qemu_plugin_insn_data(insn, bytes, sizeof(bytes));
		uint64_t target;
		gpointer h;

		h = g_hash_table_lookup(o.entry_hooks, (gpointer)pc);
		if (h)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_entry,
				QEMU_PLUGIN_CB_R_REGS, h);
		/*
		 * The bulk allocator too: it zeroes each object it returns
		 * (the maple tree's nodes, 4,850 whole nodes in a memcached
		 * run went uncounted when only kmem_cache_alloc's were kept).
		 */
		if (GPOINTER_TO_INT(g_hash_table_lookup(o.alloc_fns,
				(gpointer)pc)) == HOOK_ALLOC ||
		    GPOINTER_TO_INT(g_hash_table_lookup(o.entry_hooks,
				(gpointer)pc)) == HOOK_ALLOC_BULK)
			qemu_plugin_register_vcpu_insn_exec_cb(insn,
				on_alloc_entry, QEMU_PLUGIN_CB_NO_REGS, NULL);
		h = g_hash_table_lookup(o.return_sites, (gpointer)pc);
		if (!h)
			h = late_return_site(pc);
		if (h)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_return,
				QEMU_PLUGIN_CB_R_REGS, h);
		/* A direct call to an allocation function: its return site. */
		if (insn_direct(pc, bytes, len, &target) == INSN_CALL) {
			h = g_hash_table_lookup(o.alloc_fns, (gpointer)target);
			if (h)
				g_hash_table_insert(o.return_sites,
						    (gpointer)(pc + 5), h);
			else
				g_hash_table_insert(o.call_sites,
						    (gpointer)(pc + 5),
						    (gpointer)target);
		}
		note_tail_call(pc, bytes, len);
		if (len == MARKER_LEN && (!memcmp(bytes, own_begin, len) ||
					  !memcmp(bytes, own_end, len)))
			qemu_plugin_register_vcpu_insn_exec_cb(insn,
				on_own_marker, QEMU_PLUGIN_CB_NO_REGS,
				(void *)(uintptr_t)!memcmp(bytes, own_begin,
							   len));
		if (excluded(pc))
			continue;
		qemu_plugin_register_vcpu_mem_cb(insn, on_mem,
			QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_MEM_RW,
			(void *)(uintptr_t)((pc << INSN_FLAG_BITS) |
					    (insn_atomic(bytes, len) ?
					     INSN_ATOMIC : 0) |
					    (insn_string(bytes, len) ?
					     INSN_STRING : 0)));
	}
}

static void on_vcpu_init(qemu_plugin_id_t id, unsigned int cpu)
{
	g_autoptr(GArray) regs = qemu_plugin_get_registers();
	struct vcpu *v = &o.vcpus[cpu % MAX_VCPUS];
	guint i;

	for (i = 0; regs && i < regs->len; i++) {
		qemu_plugin_reg_descriptor *d =
			&g_array_index(regs, qemu_plugin_reg_descriptor, i);

		if (!strcmp(d->name, "rax"))
			v->rax = d->handle;
		else if (!strcmp(d->name, "rdi"))
			v->rdi = d->handle;
		else if (!strcmp(d->name, "rsi"))
			v->rsi = d->handle;
		else if (!strcmp(d->name, "rdx"))
			v->rdx = d->handle;
		else if (!strcmp(d->name, "rcx"))
			v->rcx = d->handle;
		else if (!strcmp(d->name, "rsp"))
			v->rsp = d->handle;
		else if (!strcmp(d->name, "eflags"))
			v->eflags = d->handle;
	}
	if (!v->flags_buf)
		v->flags_buf = g_byte_array_new();
}

/* ---- output ------------------------------------------------------------- */

static void json_results(FILE *f, const uint64_t *r)
{
	unsigned int k;

	for (k = COH_L1_MISS; k < COH_NR_RESULTS; k++)
		fprintf(f, "%s\"%s\": %" PRIu64, k == COH_L1_MISS ? "" : ", ",
			coh_result_names[k], r[k]);
}

/* A type's name, kind and size: a slab cache's or a global's. */
static void type_of(unsigned int id, const char **name, const char **kind,
		    uint64_t *size)
{
	if (id < MAX_CACHES) {
		*name = o.caches[id].name;
		*kind = "slab";
		*size = o.caches[id].object_size;
		return;
	}
	id -= MAX_CACHES;
	*name = o.sym_name[id];
	*kind = "global";
	*size = id + 1 < o.nr_syms ? o.sym_addr[id + 1] - o.sym_addr[id] : 0;
}

/*
 * A table of struct pair_stats keyed by type, offset, (class,) core and
 * the other core: "sharing" (with the class) and "transfers".
 */
static void write_pairs(FILE *f, const struct table *t, bool with_class)
{
	const char *name, *kind;
	bool first = true;
	uint64_t size, i;

	for (i = 0; i < t->nr; i++) {
		const struct pair_stats *ps = table_slot(t, i);
		uint64_t k;

		if (!ps)
			continue;
		k = ps->key - 1;
		type_of(k >> 40, &name, &kind, &size);
		fprintf(f, "%s\n    {\"cache\": \"%s\", \"offset\": %" PRIu64,
			first ? "" : ",", name, (k >> 16) & 0xffffff);
		if (with_class)
			fprintf(f, ", \"class\": \"%s\"",
				coh_result_names[(k >> 8) & 0xff]);
		fprintf(f, ", \"cpu\": %" PRIu64 ", \"from\": %" PRIu64 ", \"count\": %" PRIu64 "}",
			(k >> 4) & 15, k & 15, ps->count);
		first = false;
	}
}

/*
 * Per slab cache, its objects live and the lines they touched, on
 * average over the windows measured (objmap.h): dprof's workingset's
 * quantities.
 */
static void write_occupancy(FILE *f)
{
	double obj_ns, line_ns, window_ns = o.active_s * 1e9;
	bool first = true;
	unsigned int i;

	for (i = 0; window_ns > 0 && i < o.nr_caches; i++) {
		if (!objmap_occupancy(o.objs, i, &obj_ns, &line_ns))
			continue;
		fprintf(f, "%s\n    {\"cache\": \"%s\", \"object_size\": %u, \"live_objects\": %.3f, \"touched_lines\": %.3f}",
			first ? "" : ",", o.caches[i].name,
			o.caches[i].object_size, obj_ns / window_ns,
			line_ns / window_ns);
		first = false;
	}
}

static void write_json(FILE *f)
{
	const char *name, *kind;
	uint64_t i, size;
	bool first;

	fprintf(f, "{\n  \"referee\": 1,\n  \"geometry\": {\"cores\": %u, \"l1_kb\": %u, \"l1_ways\": %u, \"l2_kb\": %u, \"l2_ways\": %u, \"llc_kb\": %u, \"llc_ways\": %u, \"line\": %d},\n",
		o.geom.cores, o.geom.l1_kb, o.geom.l1_ways, o.geom.l2_kb,
		o.geom.l2_ways, o.geom.llc_kb, o.geom.llc_ways, COH_LINE);
	fprintf(f, "  \"measured\": {\"triggers\": %u, \"seconds\": %.3f, \"accesses\": %" PRIu64 ", \"split_accesses\": %" PRIu64 ", \"string_accesses\": %" PRIu64 ", \"lines\": %" PRIu64 "},\n",
		o.triggers, o.active_s, o.accesses, o.split, o.string_kept,
		o.model ? coh_lines(o.model) : 0);
	fprintf(f, "  \"windows\": [");
	for (i = 0; i < o.nr_windows; i++)
		fprintf(f, "%s[%.3f, %.3f]", i ? ", " : "",
			o.window_at[i][0], o.window_at[i][1]);
	fprintf(f, "],\n");
	fprintf(f, "  \"objects\": {\"allocs\": %" PRIu64 ", \"allocs_not_slab\": %" PRIu64 ", \"frees\": %" PRIu64 ", \"frees_unknown\": %" PRIu64 ", \"replaced\": %" PRIu64 ", \"live\": %" PRIu64 ", \"bulk_lost\": %" PRIu64 ", \"tail_call_allocators\": %u, \"caches_destroyed\": %u, \"at_alloc_accesses\": %" PRIu64 "},\n",
		o.allocs, o.allocs_untyped, o.frees, o.frees_unknown,
		objmap_replaced(o.objs), objmap_live(o.objs), o.bulk_lost, o.tail_wrappers,
		o.caches_destroyed, o.at_alloc_accesses);
	fprintf(f, "  \"own\": {\"markers\": %u, \"objects\": %" PRIu64 ", \"accesses\": %" PRIu64 "},\n",
		o.own_markers, o.own_objects, o.own_accesses);
	fprintf(f, "  \"untyped\": {\"loads\": %" PRIu64 ", \"stores\": %" PRIu64 ", \"atomics\": %" PRIu64 ", ",
		o.untyped_kinds[COH_LOAD], o.untyped_kinds[COH_STORE],
		o.untyped_kinds[COH_ATOMIC]);
	json_results(f, o.untyped_results);
	fprintf(f, "},\n  \"untyped_in_slab\": [");
	first = true;
	for (i = 0; i < o.nr_caches; i++) {
		if (!o.untyped_in_slab[i][0] && !o.untyped_in_slab[i][1])
			continue;
		fprintf(f, "%s\n    {\"cache\": \"%s\", \"in_alloc\": %" PRIu64 ", \"other\": %" PRIu64 "}",
			first ? "" : ",", o.caches[i].name,
			o.untyped_in_slab[i][0], o.untyped_in_slab[i][1]);
		first = false;
	}
	fprintf(f, "],\n  \"fields\": [");
	first = true;
	for (i = 0; i < o.fields.nr; i++) {
		const struct field_stats *s = table_slot(&o.fields, i);

		if (!s)
			continue;
		type_of((s->key - 1) >> 32, &name, &kind, &size);
		fprintf(f, "%s\n    {\"cache\": \"%s\", \"kind\": \"%s\", \"object_size\": %" PRIu64 ", \"offset\": %" PRIu64 ", \"loads\": %" PRIu64 ", \"stores\": %" PRIu64 ", \"atomics\": %" PRIu64 ", \"rmw\": %" PRIu64 ", \"irqs_off\": %" PRIu64 ", \"at_alloc\": %" PRIu64 ", \"at_alloc_irqs_off\": %" PRIu64 ", ",
			first ? "" : ",", name, kind, size,
			(s->key - 1) & 0xffffffff,
			s->kinds[COH_LOAD], s->kinds[COH_STORE],
			s->kinds[COH_ATOMIC], s->rmw, s->irqs_off,
			s->at_alloc, s->at_alloc_irqs_off);
		json_results(f, s->results);
		fputc('}', f);
		first = false;
	}
	fprintf(f, "\n  ],\n  \"sharing\": [");
	write_pairs(f, &o.pairs, true);
	/* Misses served by another core's Modified copy (perf c2c's HITM). */
	fprintf(f, "\n  ],\n  \"transfers\": [");
	write_pairs(f, &o.transfers, false);
	fprintf(f, "\n  ],\n  \"occupancy\": [");
	write_occupancy(f);
	fprintf(f, "\n  ]\n}\n");
}

static void on_exit_plugin(qemu_plugin_id_t id, void *p)
{
	FILE *f;

	order_lock();
	f = fopen(o.out_path, "w");

	if (!f) {
		fprintf(stderr, "referee: cannot write %s\n", o.out_path);
		order_unlock();
		return;
	}
	write_json(f);
	fclose(f);
	order_unlock();
}

/* ---- set-up ------------------------------------------------------------- */

static bool parse_geometry(const char *v, unsigned int *kb, unsigned int *ways)
{
	return sscanf(v, "%u:%u", kb, ways) == 2;
}

static int by_address(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* kallsyms is sorted by address already; insertion sort keeps it so. */
static void sort_symbols(void)
{
	unsigned int i, j;

	for (i = 1; i < o.nr_syms; i++) {
		uint64_t a = o.sym_addr[i];
		char *n = o.sym_name[i];

		for (j = i; j > 0 && o.sym_addr[j - 1] > a; j--) {
			o.sym_addr[j] = o.sym_addr[j - 1];
			o.sym_name[j] = o.sym_name[j - 1];
		}
		o.sym_addr[j] = a;
		o.sym_name[j] = n;
	}
}

static int read_system_map(void)
{
	FILE *f = fopen(o.map_path, "r");
	char line[512], name[256], type;
	unsigned long long addr;
	unsigned int i, found = 0;

	if (!f) {
		fprintf(stderr, "referee: cannot open System.map '%s' (map=)\n",
			o.map_path);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		if (strchr("dDbBrR", type) && addr >= 0xffffffff80000000ULL &&
		    !strchr(name, '[')) {
			if (o.nr_syms == o.cap_syms) {
				o.cap_syms = o.cap_syms ? o.cap_syms * 2 : 4096;
				o.sym_addr = g_renew(uint64_t, o.sym_addr,
						     o.cap_syms);
				o.sym_name = g_renew(char *, o.sym_name,
						     o.cap_syms);
			}
			o.sym_addr[o.nr_syms] = addr;
			o.sym_name[o.nr_syms++] = g_strdup(name);
		}
		if ((type == 't' || type == 'T') &&
		    addr >= 0xffffffff80000000ULL && !strchr(name, '[')) {
			if (o.nr_text == o.cap_text) {
				o.cap_text = o.cap_text ? o.cap_text * 2 : 16384;
				o.text_addr = g_renew(uint64_t, o.text_addr,
						      o.cap_text);
			}
			o.text_addr[o.nr_text++] = addr;
		}
		if (!strcmp(name, "page_offset_base"))
			o.page_offset_base_sym = addr;
		else if (!strcmp(name, "vmemmap_base"))
			o.vmemmap_base_sym = addr;
		for (i = 0; i < G_N_ELEMENTS(hook_names); i++) {
			enum hook h = hook_names[i].hook;

			if (strcmp(name, hook_names[i].name) ||
			    (type != 'T' && type != 't'))
				continue;
			found++;
			if (h == HOOK_ALLOC || h == HOOK_ALLOC_BULK)
				g_hash_table_insert(o.alloc_fns, (gpointer)addr,
						    GINT_TO_POINTER(h));
			if (h != HOOK_ALLOC)
				g_hash_table_insert(o.entry_hooks,
						    (gpointer)addr,
						    GINT_TO_POINTER(h));
		}
	}
	fclose(f);
	sort_symbols();
	qsort(o.text_addr, o.nr_text, sizeof(*o.text_addr), by_address);
	if (!o.page_offset_base_sym || !o.vmemmap_base_sym || found < 5) {
		fprintf(stderr, "referee: %s lacks page_offset_base, vmemmap_base or the slab functions (found %u): not this kernel's System.map?\n",
			o.map_path, found);
		return -1;
	}
	return 0;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	char err[128];
	int i;

	o.loaded_ns = now_ns();
	o.geom = (struct coh_geometry){ 0, 32, 8, 1024, 16, 8192, 16 };
	o.out_path = "referee.json";
	o.kc_name = o.kc_objsize = o.slab_cache = UINT32_MAX;
	for (i = 0; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		const char *k = argv[i], *v = eq ? eq + 1 : "";
		unsigned long long lo, hi;
		bool ok = true;

		if (eq)
			*eq = 0;
		if (!strcmp(k, "map"))
			o.map_path = v;
		else if (!strcmp(k, "out"))
			o.out_path = v;
		else if (!strcmp(k, "kc_name"))
			o.kc_name = strtoul(v, NULL, 0);
		else if (!strcmp(k, "kc_objsize"))
			o.kc_objsize = strtoul(v, NULL, 0);
		else if (!strcmp(k, "slab_cache"))
			o.slab_cache = strtoul(v, NULL, 0);
		else if (!strcmp(k, "windows"))
			o.max_windows = strtoul(v, NULL, 0);
		else if (!strcmp(k, "l1"))
			ok = parse_geometry(v, &o.geom.l1_kb, &o.geom.l1_ways);
		else if (!strcmp(k, "l2"))
			ok = parse_geometry(v, &o.geom.l2_kb, &o.geom.l2_ways);
		else if (!strcmp(k, "llc"))
			ok = parse_geometry(v, &o.geom.llc_kb, &o.geom.llc_ways);
		else if (!strcmp(k, "exclude") && o.nr_exclude < MAX_EXCLUDE &&
			 sscanf(v, "%llx-%llx", &lo, &hi) == 2) {
			o.exclude_lo[o.nr_exclude] = lo;
			o.exclude_hi[o.nr_exclude++] = hi;
		} else
			ok = false;
		if (!ok) {
			fprintf(stderr, "referee: bad argument '%s%s%s' (map=, out=, kc_name=, kc_objsize=, slab_cache=, l1=KB:WAYS, l2=, llc=, exclude=LO-HI in hex, windows=N)\n",
				k, eq ? "=" : "", v);
			return -1;
		}
	}
	if (!o.map_path || o.kc_name == UINT32_MAX ||
	    o.kc_objsize == UINT32_MAX || o.slab_cache == UINT32_MAX) {
		fprintf(stderr, "referee: needs map=System.map and the struct offsets kc_name=, kc_objsize=, slab_cache= (scripts/referee.sh gives them)\n");
		return -1;
	}
	if (!info->system_emulation) {
		fprintf(stderr, "referee: a system emulator plugin\n");
		return -1;
	}
	o.geom.cores = info->system.max_vcpus;
	o.entry_hooks = g_hash_table_new(NULL, NULL);
	o.alloc_fns = g_hash_table_new(NULL, NULL);
	o.return_sites = g_hash_table_new(NULL, NULL);
	o.call_sites = g_hash_table_new(NULL, NULL);
	o.cache_ids = g_hash_table_new(NULL, NULL);
	if (read_system_map())
		return -1;
	o.model = coh_new(&o.geom, err);
	o.objs = objmap_new();
	if (!o.model || !o.objs ||
	    table_init(&o.fields, sizeof(struct field_stats), 4096) ||
	    table_init(&o.pairs, sizeof(struct pair_stats), 1024) ||
	    table_init(&o.transfers, sizeof(struct pair_stats), 1024)) {
		fprintf(stderr, "referee: cache model: %s\n",
			o.model ? "out of memory" : err);
		return -1;
	}
	qemu_plugin_register_vcpu_init_cb(id, on_vcpu_init);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_exit_plugin, NULL);
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * dprof ABI: the one definition of everything that crosses the
 * kernel/userspace boundary or lands in a recording file.
 *
 * Included by the module (module/) and by dprof-view (userspace/); never
 * copied.  Every record is little-endian, has fixed-size __u* fields,
 * explicit padding and a size asserted at compile time.  Readers skip
 * record kinds and file sections they do not know, using the size/length
 * each one carries.  Documentation/abi.rst describes every field once more
 * in prose.
 */
#ifndef _UAPI_DPROF_H
#define _UAPI_DPROF_H

#include <linux/types.h>

/*
 * Bumped on any incompatible change of a record or of the file format.
 * 2: histories watch up to four offsets (dprof_hist_begin.offset[4], a
 * two-bit watch index in dprof_hist_elem.tag).
 * 3: up to 255 targets (target=all), DPROF_REC_SLAB_LIVE records, the
 * TARGETS section written again at the end (caches created while
 * recording).  Readers take 2 and 3: a version-2 file is a version-3 file
 * without those.
 * 4: kernel variables as targets (DPROF_TARGET_VAR, watch_symbols=) and
 * their watches as histories ending with DPROF_HIST_WINDOW.  A version-3
 * file is a version-4 file without them.
 * 5: samples outside slab objects (struct dprof_data_agg, "data_samples",
 * DPROF_SEC_DATA_SAMPLES) with the per-CPU area offsets to name them
 * ("percpu_offsets", DPROF_SEC_PERCPU); sampler DPROF_SAMPLER_INJECT.  A
 * version-4 file is a version-5 file without them.
 * 6: target indexes of 16 bits (every cache of a machine can be a target,
 * DPROF_MAX_TARGETS 4095, DPROF_NO_TARGET 0xffff): struct dprof_rec_hdr
 * is kind, flags, size, cpu, target (u8, u8, u16, u16, u16), and
 * struct dprof_sample_agg's target is a __u16 before its cpu.  Readers
 * take version 6 only: an older file's headers are laid out otherwise.
 * 7: the WINDOW record carries its draw's weight rho (64 bytes).
 * 8: the SAMPLE record carries its object's base (40 bytes), and samples
 * of a kmalloc target whose object the live set holds are records even
 * without sample_records=1 (DPROF_SAMPLE_SITE_ONLY): the views split
 * kmalloc-N's samples by allocation site.  Readers take 6 and 7: their
 * 32-byte SAMPLE records have no base.
 * 9: a SAMPLE record may carry its call chain (DPROF_SAMPLE_CHAIN,
 * callchain=N): 40 bytes and 8 per frame.  A version-8 file is a
 * version-9 file without chains.
 */
/* The release of the module and of dprof-view, built from one tree. */
#define DPROF_VERSION		"0.1.0"

#define DPROF_ABI_VERSION	9
#define DPROF_ABI_OLDEST	6	/* oldest version readers accept */

/*
 * debugfs tree: /sys/kernel/debug/dprof/  (all files 0400, read() only)
 */
#define DPROF_DEBUGFS_DIR	"dprof"
#define DPROF_FILE_VERSION	"version"	/* "dprof <ver> abi <n>\n" */
#define DPROF_FILE_STATUS	"status"	/* human-readable state, costs */
#define DPROF_FILE_TARGETS	"targets"	/* one line per target, below */
#define DPROF_FILE_DROPPED	"dropped"	/* total records lost, decimal */
#define DPROF_FILE_EVENTS	"events"	/* binary record stream */
#define DPROF_FILE_HISTORIES	"histories"	/* history collection progress */
#define DPROF_FILE_PROFILE	"profile"	/* the data profile, text */
#define DPROF_FILE_SAMPLES	"samples"	/* aggregated samples, binary */
#define DPROF_FILE_DATA_SAMPLES	"data_samples"	/* outside slab, binary */
#define DPROF_FILE_PERCPU	"percpu_offsets"	/* __u64 per CPU id */
#define DPROF_FILE_PLANS	"plans"	/* struct dprof_plan_item[], binary */
#define DPROF_FILE_FACTS	"facts"	/* struct dprof_facts, then its targets */
#define DPROF_FILE_OPS		"ops"	/* struct dprof_op_count[], ops= */
/* written, 0200; sampler=inject only: "COUNT ADDR IP KIND [LATENCY]" lines */
#define DPROF_FILE_INJECT	"inject"

/*
 * "targets" lines, after a '#' comment header:
 *   <index> <cache name> <object_size> <stride> <flags>
 * object_size is kmem_cache_size(); stride is the distance between two
 * objects of one slab (object plus metadata); flags is a decimal mask of
 * DPROF_TARGET_*.
 */
/*
 * Cache names by habit (the DProf thesis, older kernels) -> slab cache
 * names, as { alias, cache } pairs: the module's target= and dprof-view's
 * cache arguments take both.  "size-N" and "kmalloc-N" with N in bytes
 * are also taken, as SLUB's "kmalloc-N" ("kmalloc-1k" for 1024).
 */
#define DPROF_TARGET_ALIASES {					\
	{ "skbuff", "skbuff_head_cache" },			\
	{ "skbuff_fclone", "skbuff_fclone_cache" },		\
	{ "tcp", "TCP" },					\
	{ "tcp6", "TCPv6" },					\
	{ "udp", "UDP" },					\
	{ "udp6", "UDPv6" },					\
	{ "tcp_request", "request_sock_TCP" },			\
}

#define DPROF_TARGET_KMALLOC	0x1	/* generic kmalloc-N cache */
#define DPROF_TARGET_DEAD	0x2	/* cache destroyed while profiled */
#define DPROF_TARGET_LATE	0x4	/* target=all: created after load */
#define DPROF_TARGET_VAR	0x8	/* a kernel variable (watch_symbols=) */

/*
 * Record headers carry the target index in 16 bits, 0xffff meaning none.
 * A target is never reused once its cache is destroyed (a record's index
 * names one cache for the whole recording), so target=all counts every
 * cache the machine had while dprof was loaded: at most 4095 (the rest
 * are counted in status, not profiled; a busybox guest has about 200,
 * a server with its drivers several hundred); caches named in target=
 * are at most 8.
 */
#define DPROF_MAX_TARGETS	4095
#define DPROF_NO_TARGET		0xffff
#define DPROF_NAME_LEN		64	/* cache name incl. NUL */

/*
 * Records of the "events" stream.  read() returns whole records only; each
 * begins with struct dprof_rec_hdr and is hdr.size bytes long (a multiple
 * of 8).  Records of one CPU are in time order; userspace merges CPUs by
 * time_ns.
 */
enum dprof_rec_kind {
	DPROF_REC_ALLOC	= 1,	/* struct dprof_obj_event */
	DPROF_REC_FREE	= 2,	/* struct dprof_obj_event */
	DPROF_REC_LOST	= 3,	/* struct dprof_lost_event */
	DPROF_REC_HIST_BEGIN = 4,	/* struct dprof_hist_begin */
	DPROF_REC_HIST_ELEM = 5,	/* struct dprof_hist_elem */
	DPROF_REC_HIST_END = 6,	/* struct dprof_hist_end */
	DPROF_REC_SAMPLE = 7,	/* struct dprof_sample_rec (sample_records=1) */
	DPROF_REC_SLAB_LIVE = 8,	/* struct dprof_slab_live (load-time scan) */
	DPROF_REC_WINDOW = 9,	/* struct dprof_window_rec, per sample window */
};

struct dprof_rec_hdr {
	__u8 kind;		/* enum dprof_rec_kind */
	__u8 flags;		/* kind-specific, DPROF_OBJ_* for objects */
	__u16 size;		/* whole record in bytes */
	__u16 cpu;		/* CPU that produced the record */
	__u16 target;		/* index into "targets", 0xffff: none */
};

/*
 * dprof_rec_hdr.flags of ALLOC/FREE records:
 * BULK       kmem_cache_{alloc,free}_bulk path
 * KMALLOC    kmalloc()/kfree() path
 * UNTRACKED  ALLOC: live-object set full, the resolver will not see it
 * NOT_LIVE   FREE: object was not in the live set (allocated before load,
 *            or untracked)
 * OFF_GRID   ALLOC: address not on the cache's stride grid (KFENCE, or
 *            red zones when kmem_cache.red_left_pad was not calibrated);
 *            interior addresses will not resolve
 */
#define DPROF_OBJ_BULK		0x01
#define DPROF_OBJ_KMALLOC	0x02
#define DPROF_OBJ_UNTRACKED	0x04
#define DPROF_OBJ_NOT_LIVE	0x08
#define DPROF_OBJ_OFF_GRID	0x10

/* Allocation or free of one target object: the address set (thesis 4.3). */
struct dprof_obj_event {
	struct dprof_rec_hdr hdr;
	__u64 time_ns;		/* CLOCK_MONOTONIC, ktime_get_mono_fast_ns() */
	__u64 addr;		/* object base address */
	__u64 call_site;	/* caller of the allocator / free function */
};

/*
 * Objects older than the module: the load-time scan found a slab of a
 * target whose every object was allocated, before and after it entered
 * the tracked ones.  `objects` counts those of its objects no ALLOC
 * record announced: the walk overlaps the workload, and objects the alloc
 * hook had already tracked are left out (with track_one_in > 1 untracked
 * ones cannot be told apart and stay in).  `tracked` of them entered the
 * live set (1 in track_one_in, by address hash).  Slabs with free objects
 * are not reported: their objects' liveness is unknown (debugfs "status"
 * counts them).  One object of such a slab that the CPUs' registers held
 * in two periods a second apart (byuse.c) comes as a record of its own:
 * objects = tracked = 1, addr the object, cpu the collector's.
 */
struct dprof_slab_live {
	struct dprof_rec_hdr hdr;	/* target; cpu: the scanning CPU */
	__u64 time_ns;		/* when liveness was established */
	__u64 addr;		/* first object of the slab */
	__u32 objects;		/* live, and older than the module (no ALLOC) */
	__u32 tracked;		/* of them entered the live set */
};

/*
 * Emitted on a CPU before its next record once its ring had no room: tells
 * where in the stream records were lost and how many.
 */
struct dprof_lost_event {
	struct dprof_rec_hdr hdr;
	__u64 time_ns;		/* when the loss was noticed */
	__u64 count;		/* records lost on hdr.cpu since the last one */
};

/*
 * Object access histories (thesis 5.3): every access to one or two watched
 * offsets of one object, from its allocation to its free.
 *
 * BEGIN is written by the allocating CPU when the watched object is
 * allocated, END by the freeing CPU when it is freed (or by the collector
 * on timeout/unload).  Elements come from the debug-register handler of the
 * CPU that made the access; they carry only the low 13 bits of the history
 * id (at most one history is open at a time, and ids advance by at most
 * the arming rate, so the open history is unambiguous).
 *
 * hdr.flags of BEGIN/END: DPROF_HIST_*.  RW_UNSURE: the breakpoints did
 * not tell reads from writes (one read/write breakpoint per offset, or
 * the write-only breakpoint not below its twin); the kind then comes from
 * the accessing instruction, decoded by "record" (DPROF_SEC_ACCESS_KINDS).
 */
#define DPROF_HIST_RW_UNSURE	0x01	/* BEGIN: breakpoints did not tell reads from writes */
/* END: a CPU came or went, or its registers were rewritten (watch.c) */
#define DPROF_HIST_CPUS_CHANGED	0x02
#define DPROF_HIST_TRUNCATED	0x04	/* END: elements dropped by the rate limit */

#define DPROF_HIST_NO_OFFSET	0xffff
#define DPROF_HIST_MAX_OFFSETS	4	/* one debug register each */

struct dprof_hist_begin {
	struct dprof_rec_hdr hdr;	/* cpu: allocating CPU */
	__u64 time_ns;		/* allocation, CLOCK_MONOTONIC */
	__u64 addr;		/* object base address (cache-set mapping) */
	__u64 call_site;	/* caller of the allocator */
	__u32 id;		/* history id, unique per load */
	__u32 plan_item;	/* index of the offset group in the cover plan */
	/* watched byte offsets, the first nr_offsets used; NO_OFFSET pads */
	__u16 offset[DPROF_HIST_MAX_OFFSETS];
	__u8 len;		/* bytes watched at each offset: 1, 2, 4, 8 */
	__u8 nr_offsets;	/* 1 to DPROF_HIST_MAX_OFFSETS */
	__u8 reserved[6];
};

/*
 * One sample window (sampler=watch), written when its registers are
 * disarmed: which offsets of which type it watched, for how long, and
 * the samples each offset took.  The windows are the independent units
 * of the profile's shares (dprof-view profile's intervals).
 */
#define DPROF_WINDOW_REC_OLD	0	/* a live object older than a window */
#define DPROF_WINDOW_REC_YOUNG	1	/* an object watched from its allocation */
#define DPROF_WINDOW_REC_INUSE	2	/* an old object drawn by its use (ABI 7) */
/* No record of this kind: a life is a history (facts' kind_part only). */
#define DPROF_WINDOW_REC_LIFE	3
#define DPROF_WINDOW_REC_KINDS	4

struct dprof_window_rec {
	struct dprof_rec_hdr hdr;	/* target; cpu: the collector's */
	__u64 time_ns;		/* disarmed, CLOCK_MONOTONIC */
	__u64 watched_ns;	/* open that long; 0: never opened */
	__u32 plan_item;	/* the offset group (struct dprof_plan_item) */
	__u8 kind;		/* DPROF_WINDOW_REC_OLD, _YOUNG or _INUSE */
	__u8 nr_offsets;	/* 1 to DPROF_HIST_MAX_OFFSETS */
	__u8 cut;		/* ended by the object's free */
	__u8 cpus_changed;	/* a CPU came or went: its time is not exposure */
	__u16 offset[DPROF_HIST_MAX_OFFSETS];	/* NO_OFFSET pads */
	__u32 samples[DPROF_HIST_MAX_OFFSETS];	/* taken at each offset */
	/*
	 * The draw's weight, relative to a uniform draw of the type's old
	 * objects, in 1/DPROF_WINDOW_RHO_ONE (ABI 7): an in-use window's
	 * object, drawn by its count n of its type's H, weighs H / (N n), N
	 * the type's old objects (design.rst, "Objects in use"); the other
	 * kinds are RHO_ONE.  Recordings of ABI 6 lack it (read as RHO_ONE).
	 */
	__u32 rho;
	/*
	 * The item draw's weight, 1 / (K p) in 1/DPROF_WINDOW_RHO_ONE, K the
	 * plan's items (at most 2: plan.c draws half the items by their
	 * samples so far).  The type's estimate uses it; per-offset rates
	 * (a mean over the windows that watched each offset) do not.
	 */
	__u32 item_rho;
};

#define DPROF_WINDOW_RHO_ONE	65536

/* END reasons */
#define DPROF_HIST_FREED	1	/* object freed: the history is complete */
#define DPROF_HIST_TIMEOUT	2	/* still live after history_timeout_ms */
#define DPROF_HIST_UNLOAD	3	/* module unloaded or target destroyed */
/* A variable (DPROF_TARGET_VAR) watched for sample_window_ms: complete */
#define DPROF_HIST_WINDOW	4

struct dprof_hist_end {
	struct dprof_rec_hdr hdr;	/* cpu: freeing CPU */
	__u64 time_ns;		/* free (or end), CLOCK_MONOTONIC */
	__u64 call_site;	/* caller of the free function; 0 if not freed */
	__u32 id;
	__u32 elements;		/* elements emitted (late handlers may add) */
	__u32 dropped;		/* hits dropped by the hit-rate limit */
	__u8 reason;		/* DPROF_HIST_FREED, _TIMEOUT, _UNLOAD, _WINDOW */
	__u8 reserved[3];
};

/*
 * One access to a watched offset: 16 bytes (the thesis used 32).  The ip
 * is the one the trap reports, i.e. of the instruction *after* the access
 * (x86 data breakpoints are traps); "dprof-view record" maps it to the
 * accessing instruction by decoding the kernel text (DPROF_SEC_IPMAP).
 * Kernel and module text lie in the top 2 GiB, so the low 32 bits of the
 * ip identify it: ip = 0xffffffff00000000 | ip_lo.  ip_lo 0: the ip was
 * outside that range.
 */
#define DPROF_ELEM_ID_MASK	0x1fff	/* tag: history id, low 13 bits */
#define DPROF_ELEM_WATCH_SHIFT	13	/* tag: index into BEGIN's offset[] */
#define DPROF_ELEM_WATCH_MASK	0x6000
#define DPROF_ELEM_WATCH(i)	((__u16)((i) << DPROF_ELEM_WATCH_SHIFT))
#define DPROF_ELEM_WRITE	0x8000	/* tag: a write breakpoint reported it */

struct dprof_hist_elem {
	__u8 kind;		/* DPROF_REC_HIST_ELEM, where the header's is */
	__u8 reserved;
	__u16 size;		/* 16 */
	__u16 cpu;		/* CPU that made the access */
	__u16 tag;		/* DPROF_ELEM_* */
	__u32 ip_lo;		/* low 32 bits of the trapping ip */
	__u32 time_ns;		/* since the allocation (< 4.3 s) */
};

/*
 * Access samples (thesis 5.1-5.2).  Where a sample came from: the level
 * of the memory hierarchy that served it, as decoded from IBS or PEBS.
 * The watch sampler (debug registers) has no such data: UNKNOWN.
 */
enum dprof_src {
	DPROF_SRC_UNKNOWN	= 0,	/* not measured (watch sampler) */
	DPROF_SRC_L1		= 1,	/* L1 data cache hit */
	DPROF_SRC_LFB		= 2,	/* line fill buffer: a miss in flight */
	DPROF_SRC_L2		= 3,
	DPROF_SRC_L3		= 4,	/* local L3, or a core sharing it */
	DPROF_SRC_PEER_CACHE	= 5,	/* another core's cache (HITM, other CCX) */
	DPROF_SRC_DRAM		= 6,	/* local memory */
	DPROF_SRC_REMOTE	= 7,	/* another node's cache or memory */
	DPROF_SRC_IO		= 8,	/* MMIO, uncached */
	DPROF_SRC_MISS		= 9,	/* missed L1, level not reported */
	DPROF_NR_SRC		= 10,
};

enum dprof_sampler {
	DPROF_SAMPLER_NONE	= 0,
	DPROF_SAMPLER_IBS	= 1,	/* AMD IBS op, through perf */
	DPROF_SAMPLER_PEBS	= 2,	/* Intel PEBS mem-loads/mem-stores */
	DPROF_SAMPLER_WATCH	= 3,	/* debug registers: no hit/miss data */
	/*
	 * No hardware: samples are written to debugfs "inject" (tests, and
	 * the cost of the sample path where no PMU exists).
	 */
	DPROF_SAMPLER_INJECT	= 4,
	/*
	 * No hardware: the memory operand of the instruction a timer
	 * interrupt stopped before, by time at interruptible points.
	 */
	DPROF_SAMPLER_OPERAND	= 5,
};

/*
 * One entry of a CPU's aggregation table, as the "samples" file returns
 * them (whole entries only): every sample with the same (target, offset,
 * ip, src) adds to one entry.  The watch sampler's ip is the trap ip (the
 * instruction after the access), mapped by the recording's IPMAP.
 */
#define DPROF_AGG_WATCH_IP	0x01	/* flags: ip is a trap ip */

struct dprof_sample_agg {
	__u64 ip;
	__u64 latency_sum;	/* cycles, over the misses */
	__u32 count;		/* samples */
	__u32 misses;		/* samples that missed L1 */
	__u32 loads;
	__u32 stores;
	__u16 offset;		/* byte offset in the object */
	__u16 target;
	__u16 cpu;		/* the table's CPU */
	__u8 src;		/* enum dprof_src */
	__u8 flags;		/* DPROF_AGG_* */
};

/*
 * One entry of a CPU's table of samples whose address is in no slab
 * object ("data_samples" file, whole entries): kernel image and module
 * data, per-CPU areas, vmalloc, page cache...  Keyed by (addr, ip, src).
 * The address is what dprof-view names, from the recorded kallsyms and
 * per-CPU offsets.  Task stacks and user memory are one bucket each:
 * addr 0 and a flag.
 */
#define DPROF_DATA_STACK	0x01	/* on the interrupted task's stack */
#define DPROF_DATA_USER		0x02	/* a user address (copy_*_user) */

struct dprof_data_agg {
	__u64 addr;		/* data address; 0 with DPROF_DATA_STACK/USER */
	__u64 ip;
	__u64 latency_sum;	/* cycles, over the misses */
	__u32 count;		/* samples */
	__u32 misses;		/* samples that missed L1 */
	__u32 loads;
	__u32 stores;
	__u16 cpu;		/* the table's CPU */
	__u8 src;		/* enum dprof_src */
	__u8 flags;		/* DPROF_DATA_* */
	__u32 reserved;
};

/*
 * One raw access sample (40 bytes; the thesis used 88), emitted besides
 * the aggregation when the module is loaded with sample_records=1 or
 * callchain=N (then every sample in a target, with its chain: CHAIN),
 * and for the split by allocation site whatever sample_records says: a
 * sample in a kmalloc target's object that the live set holds (LIVE).
 * hdr.flags: DPROF_SAMPLE_*.
 *
 * LIVE: the live set held the object at the sample, so the last ALLOC
 * record of (target, base) before time_ns is this object's allocation
 * and names its call site.  SITE_ONLY: written for that split alone
 * (sample_records=0): the other samples are not records, so these are
 * not the whole of the samples.
 */
#define DPROF_SAMPLE_LOAD	0x01
#define DPROF_SAMPLE_STORE	0x02
#define DPROF_SAMPLE_MISS	0x04	/* missed L1 */
#define DPROF_SAMPLE_TRAP_IP	0x08	/* ip is the trap ip (watch sampler) */
#define DPROF_SAMPLE_LIVE	0x10	/* the live set held the object */
#define DPROF_SAMPLE_SITE_ONLY	0x20	/* a record for the site split alone */
/*
 * CHAIN (ABI 9, callchain=N): the record goes on with the return
 * addresses of the interrupted kernel stack, innermost first, the ip
 * itself left out: hdr.size is 40 + 8 * frames, 1 to DPROF_CHAIN_MAX
 * frames.  With callchain=N every sample in a target is a record.
 */
#define DPROF_SAMPLE_CHAIN	0x40
#define DPROF_CHAIN_MAX		32

struct dprof_sample_rec {
	struct dprof_rec_hdr hdr;	/* cpu, target, flags */
	__u64 time_ns;		/* CLOCK_MONOTONIC */
	__u64 ip;
	__u16 offset;		/* byte offset in the object */
	__u16 latency;		/* miss latency, cycles; 0 unknown */
	__u8 src;		/* enum dprof_src */
	__u8 reserved[3];
	__u64 base;		/* the object's base; 0: not known (watch) */
	/* DPROF_SAMPLE_CHAIN: __u64 return addresses follow (hdr.size) */
};

/*
 * Recording file written by "dprof-view record": a header, then sections.
 * Each section is a struct dprof_section followed by `length` payload bytes
 * and zero padding to the next multiple of 8.  A file is complete when its
 * last section is DPROF_SEC_END.
 */
#define DPROF_FILE_MAGIC	0x454c494646525044ULL	/* "DPRFFILE" */

struct dprof_file_header {
	__u64 magic;		/* DPROF_FILE_MAGIC; byte-swapped: other endian */
	__u32 abi_version;	/* DPROF_ABI_VERSION of the writer */
	__u32 header_size;	/* sizeof(struct dprof_file_header) */
};

enum dprof_section_kind {
	DPROF_SEC_META		= 1,	/* text, "key=value\n" lines */
	DPROF_SEC_TARGETS	= 2,	/* struct dprof_file_target[] */
	DPROF_SEC_CACHES	= 3,	/* struct dprof_file_cache[] */
	DPROF_SEC_KALLSYMS	= 4,	/* /proc/kallsyms text at record time */
	DPROF_SEC_BTF		= 5,	/* /sys/kernel/btf/vmlinux blob */
	DPROF_SEC_EVENTS	= 6,	/* records of the events stream */
	DPROF_SEC_STATUS	= 7,	/* debugfs "status" text at the end */
	DPROF_SEC_END		= 8,	/* struct dprof_file_end */
	DPROF_SEC_IPMAP		= 9,	/* struct dprof_file_ipmap[] */
	DPROF_SEC_HISTORIES	= 10,	/* debugfs "histories" text at the end */
	DPROF_SEC_SAMPLES	= 11,	/* struct dprof_sample_agg[] at the end */
	DPROF_SEC_PROFILE	= 12,	/* debugfs "profile" text at the end */
	DPROF_SEC_ACCESS_KINDS	= 13,	/* struct dprof_file_access_kind[] */
	DPROF_SEC_DATA_SAMPLES	= 14,	/* struct dprof_data_agg[] at the end */
	DPROF_SEC_PERCPU	= 15,	/* __u64 per-CPU area offset per CPU id */
	DPROF_SEC_PLANS		= 16,	/* struct dprof_plan_item[] at the end */
	DPROF_SEC_FACTS		= 17,	/* debugfs "facts" at the end */
	DPROF_SEC_OPS		= 18,	/* struct dprof_op_count[] at the end */
};

struct dprof_section {
	__u32 kind;		/* enum dprof_section_kind */
	__u32 reserved;		/* zero */
	__u64 length;		/* payload bytes, padding excluded */
};

struct dprof_file_target {
	__u32 index;		/* the record header's target index */
	__u32 object_size;
	__u32 stride;
	__u32 flags;		/* DPROF_TARGET_* */
	char name[DPROF_NAME_LEN];
};

/* One CPU cache as sysfs describes it (cpu0/cache/index*). */
struct dprof_file_cache {
	__u32 level;
	__u32 type;		/* DPROF_CACHE_* */
	__u64 size;		/* bytes */
	__u32 line_size;
	__u32 ways;		/* 0: fully associative or unknown */
	__u32 sets;
	__u32 reserved;
};

/*
 * One group of a target's history cover plan ("plans", DPROF_SEC_PLANS):
 * the offsets one history watches together, and how many complete
 * histories watched them so far.  The plan of a target is every item
 * with its index; a target without a plan (none built yet, history=0)
 * has none.  Its offsets tell the views which slots were meant to be
 * watched, so that a slot with no history is shown, not left out.
 */
struct dprof_plan_item {
	__u16 target;
	__u8 nr_offsets;	/* 1 to DPROF_HIST_MAX_OFFSETS */
	__u8 len;		/* bytes per offset (history_len) */
	__u32 item;		/* index in the target's plan */
	__u16 offset[DPROF_HIST_MAX_OFFSETS];	/* DPROF_HIST_NO_OFFSET pads */
	__u32 complete;		/* complete histories of this item */
	__u32 reserved;		/* zero */
};

#define DPROF_CACHE_DATA	1
#define DPROF_CACHE_INSTRUCTION	2
#define DPROF_CACHE_UNIFIED	3

/*
 * Trapping ip (next instruction) -> ip of the instruction that made the
 * access, found by decoding the kernel text at record time.  access_ip 0:
 * the text could not be read or decoded there.
 */
struct dprof_file_ipmap {
	__u64 trap_ip;
	__u64 access_ip;
};

/*
 * How the instruction before a trap ip uses memory, decoded from its
 * opcode at record time (Intel SDM semantics, not the breakpoint's
 * report).  RMW: read-modify-write (any lock prefix, xchg, cmpxchg,
 * xadd, arithmetic on memory); it takes the line exclusive even when a
 * cmpxchg fails, so it counts as a write for coherence.  AMBIGUOUS: two
 * memory operands of different kinds (movs): which one trapped is not
 * known.  Readers treat kinds they do not know as UNKNOWN.
 */
enum dprof_access_kind {
	DPROF_ACCESS_UNKNOWN	= 0,	/* not decoded */
	DPROF_ACCESS_LOAD	= 1,
	DPROF_ACCESS_STORE	= 2,
	DPROF_ACCESS_RMW	= 3,
	DPROF_ACCESS_AMBIGUOUS	= 4,
	DPROF_NR_ACCESS_KINDS	= 5,
};

/* Trap ip -> kind of the accessing instruction, sorted by trap_ip. */
struct dprof_file_access_kind {
	__u64 trap_ip;
	__u8 kind;		/* enum dprof_access_kind */
	__u8 reserved[7];
};

/*
 * What the views need of the module's state, typed (debugfs "facts",
 * DPROF_SEC_FACTS): "status" and "profile" say the same in sentences for
 * people, and a change of their wording must not change an analysis.  A
 * reader takes the first `size` bytes as the header, then `nr_targets`
 * entries of `target_size` bytes each, and ignores fields past those it
 * knows (a newer writer's) or leaves them zero (an older one's).
 */
#define DPROF_FACTS_TARGET_ALL	0x1	/* loaded with target=all */
#define DPROF_FACTS_NO_HOOKS	0x2	/* no allocation hook: none followed */

struct dprof_facts {
	__u32 size;		/* sizeof(struct dprof_facts) of the writer */
	__u32 target_size;	/* sizeof(struct dprof_target_fact) of it */
	__u32 nr_targets;	/* entries after the header */
	__u32 flags;		/* DPROF_FACTS_* */
	__u32 sampler;		/* enum dprof_sampler */
	__u32 track_base_shift;	/* caches without a rule of their own: 1 in 2^N */
	__u64 samples;		/* access samples taken */
	__u64 in_targets;	/* of them, in target objects */
	__u64 other_slab;	/* other caches, or objects not established live */
	__u64 not_slab;		/* outside the slab allocator */
};

/*
 * The module's estimate of a type's share of the accesses (watch
 * sampler: from its sample windows; "profile"'s share column).
 */
enum dprof_share_kind {
	DPROF_SHARE_NONE	= 0,	/* none: IBS/PEBS, histories only, unseen */
	DPROF_SHARE_INTERVAL	= 1,	/* share, +- half at 95% */
	DPROF_SHARE_NO_ERROR	= 2,	/* share, its error unknown */
	DPROF_SHARE_BELOW	= 3,	/* no window saw an access: below half */
};

struct dprof_target_fact {
	__u32 target;		/* the record header's target index */
	__u8 share_kind;	/* enum dprof_share_kind */
	__u8 track_shift;	/* its objects followed 1 in 2^N */
	/*
	 * INTERVAL, NO_ERROR: the part of the type's accesses its kinds
	 * with windows but no sample could hold, 95% upper (the rule of
	 * three per kind), in 1/10000 of the estimate and it together; the
	 * share and kind_part leave it out (0 from older writers: none).
	 */
	__u16 unseen;
	__u32 share;		/* of the accesses of all types, in 1/10000 */
	__u32 half;		/* 95% half-width, or BELOW's bound, 1/10000 */
	__u64 windows;		/* sample windows opened on it, all kinds */
	/*
	 * Each kind's part of the type's estimate (INTERVAL, NO_ERROR), in
	 * 1/10000 of it, indexed by DPROF_WINDOW_REC_OLD, _YOUNG, _INUSE and
	 * _LIFE: the views weigh each kind's field shares by it (a by-site
	 * kmalloc cache's young objects are not its old ones).  Absent from
	 * writers whose entries are DPROF_TARGET_FACT_V1_SIZE bytes (zero).
	 */
	__u16 kind_part[DPROF_WINDOW_REC_KINDS];
};

/* The entry's size before kind_part: readers accept it. */
#define DPROF_TARGET_FACT_V1_SIZE	24

/*
 * Operations counted (ops=FUNC[,FUNC]: debugfs "ops", DPROF_SEC_OPS): how
 * often each named kernel function was entered since load, by a kprobe
 * at its entry, so that the views turn a path's samples into samples per
 * operation (dprof-view advise).  missed: entries the kprobe did not
 * count (kprobes' nmissed: the probe hit while another kprobe's handler
 * ran on that CPU).  At most DPROF_OPS_MAX functions.
 */
#define DPROF_OPS_MAX		8

struct dprof_op_count {
	char name[DPROF_NAME_LEN];	/* the function, NUL-terminated */
	__u64 count;			/* entries counted since load */
	__u64 missed;			/* entries not counted */
};

struct dprof_file_end {
	__u64 records;		/* records in all EVENTS sections */
	__u64 lost;		/* records the module reported lost */
	__u64 duration_ns;	/* wall time of the recording */
};

#ifdef __cplusplus
#define DPROF_STATIC_ASSERT static_assert
#else
#define DPROF_STATIC_ASSERT _Static_assert
#endif
DPROF_STATIC_ASSERT(sizeof(struct dprof_rec_hdr) == 8, "rec_hdr size");
DPROF_STATIC_ASSERT(sizeof(struct dprof_op_count) == 80, "op_count size");
DPROF_STATIC_ASSERT(sizeof(struct dprof_obj_event) == 32, "obj_event size");
DPROF_STATIC_ASSERT(sizeof(struct dprof_lost_event) == 24, "lost_event size");
DPROF_STATIC_ASSERT(sizeof(struct dprof_slab_live) == 32, "slab_live size");
DPROF_STATIC_ASSERT(sizeof(struct dprof_window_rec) == 64, "window record size");
DPROF_STATIC_ASSERT(sizeof(struct dprof_hist_begin) == 56, "hist_begin size");
DPROF_STATIC_ASSERT(sizeof(struct dprof_hist_end) == 40, "hist_end size");
DPROF_STATIC_ASSERT(sizeof(struct dprof_hist_elem) == 16, "hist_elem size");
DPROF_STATIC_ASSERT(sizeof(struct dprof_file_ipmap) == 16, "ipmap size");
DPROF_STATIC_ASSERT(sizeof(struct dprof_data_agg) == 48, "data_agg size");
DPROF_STATIC_ASSERT(sizeof(struct dprof_file_access_kind) == 16,
		    "access kind size");
DPROF_STATIC_ASSERT(sizeof(struct dprof_sample_agg) == 40, "sample_agg size");
DPROF_STATIC_ASSERT(sizeof(struct dprof_sample_rec) == 40, "sample_rec size");
DPROF_STATIC_ASSERT(sizeof(struct dprof_file_header) == 16, "file hdr size");
DPROF_STATIC_ASSERT(sizeof(struct dprof_section) == 16, "section size");
DPROF_STATIC_ASSERT(sizeof(struct dprof_file_target) == 80, "target size");
DPROF_STATIC_ASSERT(sizeof(struct dprof_file_cache) == 32, "cache size");
DPROF_STATIC_ASSERT(sizeof(struct dprof_facts) == 56, "facts size");
DPROF_STATIC_ASSERT(sizeof(struct dprof_target_fact) == 32, "target fact size");
DPROF_STATIC_ASSERT(sizeof(struct dprof_plan_item) == 24, "plan item size");
DPROF_STATIC_ASSERT(sizeof(struct dprof_file_end) == 24, "end size");

#endif /* _UAPI_DPROF_H */

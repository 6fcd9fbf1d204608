/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the sampler (sample.c) shares with its report (profile.c) and its
 * injection (inject.c): the per-CPU aggregation tables and counters, the
 * sampler's settings, and the path a sample takes.  Written by sample.c
 * and inject.c's samples only; profile.c reads them racily, as debugfs
 * readers always have.
 */
#ifndef DPROF_SAMPLE_H
#define DPROF_SAMPLE_H

#include <linux/percpu.h>
#include <linux/perf_event.h>
#include "uapi/dprof.h"
#include "decode.h"

struct seq_file;

#define DPROF_SAMPLER_AUTO	100	/* pick the best available */

/* The sampler= names, indexed by enum dprof_sampler (one table). */
extern const char *const dprof_sampler_names[DPROF_SAMPLER_OPERAND + 1];

/* test_perf= (sampler=inject only): a counter through the IBS/PEBS path */
enum dprof_test_perf {
	DPROF_TEST_PERF_OFF,
	DPROF_TEST_PERF_SOFTWARE,	/* cpu-clock on every CPU */
	DPROF_TEST_PERF_REFUSE,		/* a PMU type nobody registers */
};

struct dprof_sampler_ops;

struct dprof_sample_config {
	int sampler;		/* enum dprof_sampler or DPROF_SAMPLER_AUTO */
	/*
	 * The samplers there are (main.c's list), and auto's order: the
	 * first whose setup() succeeds is taken.
	 */
	const struct dprof_sampler_ops *const *samplers;
	unsigned int nr_samplers;
	const struct dprof_sampler_ops *const *auto_order;
	unsigned int nr_auto;
	enum dprof_test_perf test_perf;
	u64 period;		/* 0: the sampler's default */
	unsigned int table_entries;	/* per CPU, a power of two */
	bool records;		/* also emit every sample to the rings */
	/*
	 * No allocation hook: objects typed by the slab page alone, and
	 * auto falls back to operand, not watch (target=all's default).
	 */
	bool page_typing;
};

struct sample_state;

/* What a type's share in "profile" is of. */
enum dprof_share_basis {
	DPROF_SHARE_OF_MISSES,		/* sampled misses (IBS, PEBS, inject) */
	DPROF_SHARE_OF_ACCESSES,	/* accesses sampled by time (operand) */
	/* accesses, estimated from windows on drawn objects (watch) */
	DPROF_SHARE_OF_WINDOWS,
};

/*
 * One access sampler as the core sees it, as DAMON's core sees its
 * damon_operations: main.c lists them, sample.c picks one at load
 * (sampler=, or auto's order), and the core calls only through it.
 * Every hook but setup() may be NULL.
 */
struct dprof_sampler_ops {
	enum dprof_sampler id;		/* its sampler= name's index */
	/* auto: what is missing when setup() fails ("AMD IBS"); or NULL */
	const char *hardware;
	enum dprof_share_basis share_of;
	/*
	 * A sample is taken at the access, before it runs: an address in a
	 * slab object the live set does not hold is allocated all the same.
	 */
	bool at_access;
	/* "profile" prints the period with this unit ("" for counts); NULL: none */
	const char *period_unit;
	/* Instructions a sample may take (costs.c); 0: the hooks' table's. */
	unsigned int budget;
	/*
	 * At load, before the hooks: check @sc, set st->period and st->why,
	 * and for the hardware samplers open the counters (they sample from
	 * then on).  0, or -errno with st->why saying why in a sentence.
	 */
	int (*setup)(const struct dprof_sample_config *sc,
		     struct sample_state *st);
	/* Last at load, after the hooks and the histories. */
	int (*start)(void);
	/* First at unload, and on a failed load after start(); idempotent. */
	void (*stop)(void);
	/* At dprof_sample_exit(): what setup() took. */
	void (*release)(void);
	/* Its own lines under "profile"'s sampler line. */
	void (*show)(struct seq_file *m);
};

/* sampler=, period=, sample_table=, sample_records= into @sc, or -EINVAL. */
int dprof_sample_params(struct dprof_sample_config *sc);
int dprof_sample_init(const struct dprof_sample_config *sc);
void dprof_sample_exit(void);
/*
 * From the debug-register handler: one access to a target object, trapped
 * by a sample window (@window) or by a history watch.  The breakpoints
 * do not tell a read from a write: "record" decodes the kind from the
 * instruction at @ip.
 */
void dprof_sample_watch(int target, unsigned int offset, unsigned long ip,
			bool window);
/* The sampler in use (after dprof_sample_init()); ->id names it. */
const struct dprof_sampler_ops *dprof_sampler(void);
/* Its start(), last at load, and stop(), first at unload. */
int dprof_sampler_start(void);
void dprof_sampler_stop(void);
size_t dprof_sample_read(void *buf, size_t room, loff_t *pos);
size_t dprof_sample_read_data(void *buf, size_t room, loff_t *pos);

#define MAX_PROBE	32

struct agg_table {
	struct dprof_sample_agg *e;
	struct dprof_data_agg *data;	/* samples in no slab object */
	unsigned int mask;		/* of both tables */
	int busy;		/* a handler is inside: a nested one drops */
};

struct sample_counters {
	u64 samples;		/* every sample the handler saw */
	u64 in_target;
	u64 other_slab;		/* in a slab object of another cache */
	u64 not_slab;		/* stack, globals, page cache, ... */
	u64 stack;		/* of not_slab: the interrupted task's stack */
	u64 user;		/* of not_slab: user memory */
	u64 data_full;		/* of not_slab: data table full, not kept */
	u64 no_addr;		/* the hardware gave no data address */
	u64 misses;		/* all samples that missed L1 */
	u64 target_misses;
	u64 table_full;		/* dropped: no slot within MAX_PROBE */
	u64 nested;		/* dropped: handler re-entered */
	u64 from_windows;	/* watch: trapped in a sample window */
	u64 reader;		/* left out: in the events reader's process */
	/* records written for the site split alone (DPROF_SAMPLE_SITE_ONLY) */
	u64 site_records;
};

DECLARE_PER_CPU(struct agg_table, dprof_agg);
DECLARE_PER_CPU(struct sample_counters, dprof_scount);

/* The sampler in use, why, its period, table size and start time. */
struct sample_state {
	/* never NULL after init; ops->id is the sampler in use */
	const struct dprof_sampler_ops *ops;
	const char *why;	/* why auto picked what it did */
	u64 period;
	unsigned int table_entries;
	u64 start_ns;
};

extern struct sample_state dprof_sampling;

/*
 * One sample with a data address, resolved and added to this CPU's table
 * (NMI, or preemption off): true when it fell in a target.  A sample
 * whose interrupt or NMI stopped the events reader's own process (the
 * tgid dprof_sample_set_reader() gave) is left out and counted.  @regs:
 * the interrupted registers, whose stack callchain=N walks (NULL: none).
 */
bool dprof_sample_one(u64 addr, u64 ip, struct dprof_access *a,
		      struct pt_regs *regs);
/*
 * The process draining "events" (dprof-view record), from its open to
 * its release; 0: none.  Its reads of /proc/kallsyms, BTF and the rings
 * and its writes of the recording are the profiler's work, not the
 * workload's: on memcached under target=all, 38 % of the samples were
 * in the functions that format kallsyms (design.rst, "The reader's own
 * samples").
 */
void dprof_sample_set_reader(pid_t tgid);

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * Access samples (thesis 5.1-5.2), aggregated per CPU before anything is
 * stored (as DCPI does): every sample with the same (target, offset, ip,
 * data source) adds to one entry of its CPU's table.  The samplers sit
 * behind struct dprof_sampler_ops (sample.h), which main.c lists:
 *
 *  ibs, pebs  perf counters on the PMU, NMI (perfsample.c)
 *  operand    the memory operand of the instruction a timer interrupt
 *             stopped before, with the interrupted registers (operand.c)
 *  watch      debug registers: accesses trapped by short windows on random
 *             offsets of random live target objects, and by the history
 *             watches (collector.c arms both, taking turns), with offset,
 *             ip, CPU and read/write but no hit/miss or latency (window.c)
 *  inject     a test writes samples to debugfs "inject"; they run the
 *             IBS/PEBS path from resolution on (inject.c)
 *
 * sampler=auto takes the first of main.c's order that sets up.  Samples
 * in no slab object (globals, per-CPU data, vmalloc, stacks) go to a
 * second table per CPU keyed by (address, ip, source): dprof-view names
 * them by symbol from the recorded kallsyms and per-CPU offsets.
 *
 * The handlers run in NMI (ibs, pebs), hard interrupt (operand) or #DB
 * (watch) context: no allocation, lock or print; a full table or a
 * nested handler drops the sample and counts it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/perf_event.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/moduleparam.h>
#include <linux/preempt.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/sched/task_stack.h>
#include <linux/timex.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include "uapi/dprof.h"
#include "ring.h"
#include "stats.h"
#include "symbols.h"
#include "own.h"
#include "resolve.h"
#include "target.h"
#include "liveset.h"
#include "dprof_trace.h"
#include "decode.h"
#include "compat.h"
#include "chain.h"
#include "sample.h"

DEFINE_PER_CPU(struct agg_table, dprof_agg);
DEFINE_PER_CPU(struct sample_counters, dprof_scount);
struct sample_state dprof_sampling;
static bool emit_records;		/* sample_records=1 */
static pid_t reader_tgid;		/* dprof_sample_set_reader() */

const char *const dprof_sampler_names[DPROF_SAMPLER_OPERAND + 1] = {
	[DPROF_SAMPLER_NONE] = "off", [DPROF_SAMPLER_IBS] = "ibs",
	[DPROF_SAMPLER_PEBS] = "pebs", [DPROF_SAMPLER_WATCH] = "watch",
	[DPROF_SAMPLER_INJECT] = "inject", [DPROF_SAMPLER_OPERAND] = "operand",
};

/* ---- aggregation (NMI / #DB context) ----------------------------------- */

static u32 agg_hash(u16 target, u16 offset, u64 ip, u8 src)
{
	return hash_64(ip ^ ((u64)offset << 32) ^ ((u64)target << 48) ^
		       ((u64)src << 60), 32);
}

/* callchain=N: the frames of the sample being recorded (busy-guarded). */
struct chain_buf {
	u64 frame[DPROF_CHAIN_MAX];
};

static DEFINE_PER_CPU(struct chain_buf, chain_frames);

/*
 * The raw record of one sample, with its object's @base (0: unknown),
 * and with callchain=N the chain of the stack @regs interrupted.
 * SAMPLE_LIVE: the live set holds the object, so its last ALLOC record
 * names its allocation site.
 */
static void emit_record(u16 target, u16 offset, u64 ip, unsigned long base,
			const struct dprof_access *a, u8 agg_flags,
			u8 rec_flags, struct pt_regs *regs)
{
	u64 *frames = this_cpu_ptr(&chain_frames)->frame;
	unsigned int n = dprof_chain_take(regs, frames, dprof_chain_depth());
	struct dprof_sample_rec rec = {
		.hdr = {
			.kind = DPROF_REC_SAMPLE,
			.size = sizeof(rec) + n * sizeof(u64),
			.cpu = smp_processor_id(), .target = target,
			.flags = (a->load ? DPROF_SAMPLE_LOAD : 0) |
				 (a->store ? DPROF_SAMPLE_STORE : 0) |
				 (a->l1_miss ? DPROF_SAMPLE_MISS : 0) |
				 (agg_flags & DPROF_AGG_WATCH_IP ?
				  DPROF_SAMPLE_TRAP_IP : 0) |
				 (n ? DPROF_SAMPLE_CHAIN : 0) | rec_flags,
		},
		.time_ns = ktime_get_mono_fast_ns(),
		.ip = ip, .offset = offset, .latency = a->latency,
		.src = a->src, .base = base,
	};
	u8 *slot = dprof_ring_reserve(rec.hdr.size, DPROF_REC_SAMPLE);

	if (!slot)
		return;
	memcpy(slot + sizeof(rec.hdr), (u8 *)&rec + sizeof(rec.hdr),
	       sizeof(rec) - sizeof(rec.hdr));
	memcpy(slot + sizeof(rec), frames, n * sizeof(u64));
	dprof_ring_commit(slot, &rec.hdr);
}

/*
 * A kmalloc cache holds many types, told apart by allocation site: a
 * sample on an object the live set holds is a record whatever
 * sample_records says, so that dprof-view finds the object's ALLOC
 * record and its site (a few per second per CPU, at a sampler's rate).
 */
static u8 record_flags(u16 target, bool live)
{
	if (live && (READ_ONCE(dprof_targets[target].flags) &
		     DPROF_TARGET_KMALLOC))
		return DPROF_SAMPLE_LIVE |
		       (emit_records || dprof_chain_depth() ? 0 :
			DPROF_SAMPLE_SITE_ONLY);
	return 0;
}

static void agg_add(u16 target, u16 offset, u64 ip, unsigned long base,
		    bool live, const struct dprof_access *a, u8 flags,
		    struct pt_regs *regs)
{
	struct agg_table *t = this_cpu_ptr(&dprof_agg);
	struct sample_counters *c = this_cpu_ptr(&dprof_scount);
	u32 h = agg_hash(target, offset, ip, a->src);
	u8 rec_flags = record_flags(target, live);
	unsigned int i;

	trace_dprof_sample(target, offset, ip, a);
	/* With callchain=N every sample in a target is a record. */
	if (emit_records || rec_flags || dprof_chain_depth())
		emit_record(target, offset, ip, base, a, flags, rec_flags,
			    regs);
	c->site_records += !!(rec_flags & DPROF_SAMPLE_SITE_ONLY);
	for (i = 0; i < MAX_PROBE; i++) {
		struct dprof_sample_agg *e = &t->e[(h + i) & t->mask];

		if (!e->count) {
			e->ip = ip;
			e->offset = offset;
			e->target = target;
			e->src = a->src;
			e->cpu = smp_processor_id();
			e->flags = flags;
		} else if (e->ip != ip || e->offset != offset ||
			   e->target != target || e->src != a->src) {
			continue;
		}
		e->count++;
		e->loads += a->load;
		e->stores += a->store;
		if (a->l1_miss) {
			e->misses++;
			e->latency_sum += a->latency;
		}
		return;
	}
	c->table_full++;
}

/*
 * A sample in no slab object, by address.  Stacks and user memory would
 * fill the table with addresses nobody names: one bucket each.
 */
static void data_add(u64 addr, u64 ip, const struct dprof_access *a)
{
	struct agg_table *t = this_cpu_ptr(&dprof_agg);
	struct sample_counters *c = this_cpu_ptr(&dprof_scount);
	u8 flags = 0;
	u32 h;
	unsigned int i;

	if (addr < TASK_SIZE_MAX) {
		flags = DPROF_DATA_USER;
		c->user++;
	} else if (object_is_on_stack((void *)addr)) {
		flags = DPROF_DATA_STACK;
		c->stack++;
	}
	if (flags)
		addr = 0;
	h = hash_64(addr ^ (ip << 7) ^ ((u64)a->src << 60) ^
		    ((u64)flags << 56), 32);
	for (i = 0; i < MAX_PROBE; i++) {
		struct dprof_data_agg *e = &t->data[(h + i) & t->mask];

		if (!e->count) {
			e->addr = addr;
			e->ip = ip;
			e->src = a->src;
			e->flags = flags;
			e->cpu = smp_processor_id();
		} else if (e->addr != addr || e->ip != ip || e->src != a->src ||
			   e->flags != flags) {
			continue;
		}
		e->count++;
		e->loads += a->load;
		e->stores += a->store;
		if (a->l1_miss) {
			e->misses++;
			e->latency_sum += a->latency;
		}
		return;
	}
	c->data_full++;
}

void dprof_sample_watch(int target, unsigned int offset, unsigned long ip,
			bool window)
{
	struct sample_counters *c;
	/* Neither load nor store: record decodes the instruction at @ip. */
	struct dprof_access a = { .src = DPROF_SRC_UNKNOWN };

	if (dprof_sampling.ops->share_of != DPROF_SHARE_OF_WINDOWS)
		return;
	c = this_cpu_ptr(&dprof_scount);
	if (this_cpu_inc_return(dprof_agg.busy) > 1) {
		c->nested++;
		goto out;
	}
	c->samples++;
	c->in_target++;
	c->from_windows += window;
	agg_add(target, offset, ip, 0, false, &a, DPROF_AGG_WATCH_IP, NULL);
out:
	this_cpu_dec(dprof_agg.busy);
}

/*
 * No allocation hook runs (target=all at its defaults): every object on
 * a target's slab grid is taken as allocated, whatever the sampler.
 */
static bool page_typing;
/* The sampler's at_access, read by its handlers. */
static bool at_access;

/*
 * Whether @addr is in a target object.  An object the live set does not
 * hold is one under the operand sampler: the instruction sampled was
 * about to touch it, so it is allocated (or the allocator's, a rare
 * tick).  A hardware sample may come after the free, and is not typed
 * where the hooks can tell.  *@live: the live set holds the object (its
 * ALLOC record names its site).
 */
static bool sample_typed(unsigned long addr, struct dprof_resolved *r,
			 bool *slab, bool *live)
{
	int how = dprof_resolve_any(addr, r, slab);

	/*
	 * Held by the live set, not only taken as live: under sampled
	 * tracking an object the rule does not follow resolves too.
	 */
	*live = !how && dprof_track_maybe(r->target, r->base);
	return !how || (how == DPROF_RESOLVE_UNKNOWN &&
			(page_typing || at_access));
}

void dprof_sample_set_reader(pid_t tgid)
{
	WRITE_ONCE(reader_tgid, tgid);
}

/*
 * Whether this handler's interrupt (or NMI) stopped the reader's process
 * in task context: with its own entry's counts taken away, no hard
 * interrupt, NMI or softirq being served is left.  A softirq that runs
 * on the reader's interrupt exit is the kernel's work, kept.
 */
static bool stopped_reader(void)
{
	pid_t tgid = READ_ONCE(reader_tgid);
	unsigned int pc;

	if (!tgid || current->tgid != tgid)
		return false;
	pc = preempt_count() & (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_OFFSET);
	return pc == (in_nmi() ? NMI_OFFSET + HARDIRQ_OFFSET : HARDIRQ_OFFSET);
}

/*
 * One sample with a data address: resolved and added to its CPU's table.
 * NMI context (ibs, pebs), or process context with preemption off
 * (inject); true when it fell in a target.
 */
bool dprof_sample_one(u64 addr, u64 ip, struct dprof_access *a,
		      struct pt_regs *regs)
{
	struct sample_counters *c = this_cpu_ptr(&dprof_scount);
	struct dprof_resolved r;
	bool hit = false, slab, live = false;

	if (this_cpu_inc_return(dprof_agg.busy) > 1) {
		c->nested++;
		goto out;
	}
	if (stopped_reader()) {
		c->reader++;
		goto out;
	}
	c->samples++;
	a->addr_valid = addr != 0;
	c->misses += a->l1_miss;
	if (!a->addr_valid) {
		c->no_addr++;
	} else if (sample_typed(addr, &r, &slab, &live) ||
		   (!slab && !dprof_var_resolve(addr, &r))) {
		/* Watched variables (watch_symbols=) are never in slab. */
		c->in_target++;
		c->target_misses += a->l1_miss;
		agg_add(r.target, r.offset, ip, r.base, live, a, 0, regs);
		hit = true;
	} else if (slab) {
		c->other_slab++;
	} else {
		c->not_slab++;
		data_add(addr, ip, a);
	}
out:
	this_cpu_dec(dprof_agg.busy);
	return hit;
}

/* ---- set-up ------------------------------------------------------------ */

static int alloc_tables(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct agg_table *t = per_cpu_ptr(&dprof_agg, cpu);

		t->e = vzalloc_node(dprof_sampling.table_entries * sizeof(*t->e),
				    cpu_to_node(cpu));
		t->data = vzalloc_node(dprof_sampling.table_entries * sizeof(*t->data),
				       cpu_to_node(cpu));
		if (!t->e || !t->data)
			return -ENOMEM;
		t->mask = dprof_sampling.table_entries - 1;
		memset(per_cpu_ptr(&dprof_scount, cpu), 0, sizeof(struct sample_counters));
	}
	return 0;
}

static void free_tables(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		vfree(per_cpu(dprof_agg, cpu).e);
		vfree(per_cpu(dprof_agg, cpu).data);
		per_cpu(dprof_agg, cpu).e = NULL;
		per_cpu(dprof_agg, cpu).data = NULL;
	}
}

/* The sampler's parameters, checked before anything is set up. */
static char *sampler_name = "auto";
module_param_named(sampler, sampler_name, charp, 0444);
MODULE_PARM_DESC(sampler,
		 "Access sampler: auto (default: ibs, else pebs, else operand for target=all without history=1 or track_one_in=, else watch), ibs (AMD), pebs (Intel), watch (debug registers, no hit/miss data), operand (the memory operand at a timer interrupt, no hit/miss data), inject (tests: samples written to debugfs inject), off");

static unsigned long sample_period;
module_param_named(period, sample_period, ulong, 0444);
MODULE_PARM_DESC(period,
		 "Sampling period: ops between IBS samples, events between PEBS samples, ns of busy time between operand samples; 0 (default): 100000 for IBS, 10007 for PEBS, 1000000 for operand");

static unsigned int sample_table = 4096;
module_param(sample_table, uint, 0444);
MODULE_PARM_DESC(sample_table,
		 "Aggregated sample entries per CPU, a power of two (256..1048576, default 4096; 40 bytes each)");

static bool sample_records;
module_param(sample_records, bool, 0444);
MODULE_PARM_DESC(sample_records,
		 "Also write every access sample (40 bytes) to the rings, besides the per-CPU aggregation (default N; with N, the samples on a kmalloc cache's followed objects all the same, for the split by allocation site)");

int dprof_sample_params(struct dprof_sample_config *sc)
{
	int i;

	sc->sampler = -1;
	if (!strcmp(sampler_name, "auto"))
		sc->sampler = DPROF_SAMPLER_AUTO;
	for (i = 0; i < ARRAY_SIZE(dprof_sampler_names); i++)
		if (!strcmp(sampler_name, dprof_sampler_names[i]))
			sc->sampler = i;
	if (sc->sampler < 0) {
		pr_err("sampler=%s: must be auto, ibs, pebs, watch, operand, inject or off\n",
		       sampler_name);
		return -EINVAL;
	}
	if (sample_table < 256 || sample_table > 1048576 ||
	    !is_power_of_2(sample_table)) {
		pr_err("sample_table=%u: must be a power of two between 256 and 1048576\n",
		       sample_table);
		return -EINVAL;
	}
	sc->period = sample_period;
	sc->table_entries = sample_table;
	sc->records = sample_records;
	return 0;
}

const struct dprof_sampler_ops *dprof_sampler(void)
{
	return dprof_sampling.ops;
}

/* sampler=off: no sample is taken. */
static int off_setup(const struct dprof_sample_config *sc,
		     struct sample_state *st)
{
	return 0;
}

static const struct dprof_sampler_ops off_sampler = {
	.id = DPROF_SAMPLER_NONE,
	.setup = off_setup,
};

static void use(const struct dprof_sampler_ops *ops)
{
	dprof_sampling.ops = ops;
	at_access = ops->at_access;
}

/*
 * sampler=auto: the first of auto's order whose set-up succeeds; the
 * hardware passed over is named in its why ("no AMD IBS and no Intel
 * PEBS here: ...").  A sampler that is not hardware and fails has said
 * why (a bad period=, say): the load fails.
 */
static int pick_auto(const struct dprof_sample_config *sc)
{
	static char why[160];
	const struct dprof_sampler_ops *ops = NULL;
	size_t len = 0;
	unsigned int i;
	int ret = -ENODEV;

	for (i = 0; i < sc->nr_auto; i++) {
		ops = sc->auto_order[i];
		dprof_sampling.period = 0;
		dprof_sampling.why = NULL;
		ret = ops->setup(sc, &dprof_sampling);
		if (!ret || !ops->hardware)
			break;
		len += scnprintf(why + len, sizeof(why) - len, "%s%s",
				 len ? " and no " : "no ", ops->hardware);
	}
	if (ret)
		return ret;
	use(ops);
	if (len) {
		scnprintf(why + len, sizeof(why) - len, " here%s%s",
			  dprof_sampling.why ? ": " : "",
			  dprof_sampling.why ? dprof_sampling.why : "");
		dprof_sampling.why = why;
	}
	return 0;
}

int dprof_sample_init(const struct dprof_sample_config *sc)
{
	const struct dprof_sampler_ops *ops = &off_sampler;
	unsigned int i;
	int ret;

	dprof_sampling.table_entries = sc->table_entries;
	page_typing = sc->page_typing;
	emit_records = sc->records;
	dprof_sampling.start_ns = ktime_get_mono_fast_ns();
	use(&off_sampler);
	if (sc->sampler == DPROF_SAMPLER_NONE)
		return 0;
	ret = alloc_tables();
	if (ret)
		goto err;
	if (sc->sampler == DPROF_SAMPLER_AUTO) {
		ret = pick_auto(sc);
		if (ret)
			goto err;
		return 0;
	}
	for (i = 0; i < sc->nr_samplers; i++)
		if (sc->samplers[i]->id == sc->sampler)
			ops = sc->samplers[i];
	dprof_sampling.why = NULL;
	ret = ops->setup(sc, &dprof_sampling);
	if (ret) {
		/* The others say what was wrong with their parameters. */
		if (ops->hardware)
			pr_err("sampler=%s: %s (%d); use sampler=watch or sampler=auto\n",
			       dprof_sampler_names[sc->sampler],
			       dprof_sampling.why, ret);
		goto err;
	}
	use(ops);
	return 0;
err:
	use(&off_sampler);
	free_tables();
	return ret;
}

int dprof_sampler_start(void)
{
	return dprof_sampling.ops->start ? dprof_sampling.ops->start() : 0;
}

void dprof_sampler_stop(void)
{
	if (dprof_sampling.ops->stop)
		dprof_sampling.ops->stop();
}

void dprof_sample_exit(void)
{
	if (dprof_sampling.ops->release)
		dprof_sampling.ops->release();
	use(&off_sampler);
	free_tables();
}

/* ---- reading ----------------------------------------------------------- */

/*
 * Copy whole used entries of every CPU's table from position *pos on
 * (@data: the table of samples in no slab object); returns bytes.
 */
/*
 * The file position is a slot index over every CPU's table in turn:
 * CPU = pos / entries, kept 64-bit, so that a position past the last
 * CPU ends the file instead of wrapping onto CPU 0 (a 32-bit CPU number
 * aliased at 2^32 x entries).  Empty slots are skipped, up to a whole
 * table set per call (1 M entries x CPUs at most): the loop yields.
 */
static size_t read_entries(void *buf, size_t room, loff_t *pos, bool data)
{
	size_t size = data ? sizeof(struct dprof_data_agg) :
			     sizeof(struct dprof_sample_agg);
	u64 entries = dprof_sampling.table_entries;
	size_t done = 0;
	loff_t i = *pos;

	if (!entries || dprof_sampler()->id == DPROF_SAMPLER_NONE || i < 0)
		return 0;
	for (; room - done >= size; i++) {
		const struct agg_table *t;
		u64 cpu = div64_u64(i, entries);
		unsigned int k = i & (entries - 1);	/* a power of two */
		const void *e;
		u32 count;

		if (!(i & 0xffff))
			cond_resched();
		if (cpu >= nr_cpu_ids)
			break;
		if (!cpu_possible(cpu))
			continue;
		t = per_cpu_ptr(&dprof_agg, cpu);
		e = data ? (const void *)&t->data[k] : (const void *)&t->e[k];
		count = data ? READ_ONCE(t->data[k].count) :
			       READ_ONCE(t->e[k].count);
		if (!count)
			continue;
		memcpy(buf + done, e, size);
		done += size;
	}
	*pos = i;
	return done;
}

size_t dprof_sample_read(void *buf, size_t room, loff_t *pos)
{
	return read_entries(buf, room, pos, false);
}

size_t dprof_sample_read_data(void *buf, size_t room, loff_t *pos)
{
	return read_entries(buf, room, pos, true);
}


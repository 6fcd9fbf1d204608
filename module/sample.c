// SPDX-License-Identifier: GPL-2.0
/*
 * Access samples (thesis 5.1-5.2), aggregated per CPU before anything is
 * stored (as DCPI does): every sample with the same (target, offset, ip,
 * data source) adds to one entry of its CPU's table.  Samplers:
 *
 *  ibs    AMD IBS op through a perf kernel counter per CPU on the ibs_op PMU
 *  pebs   Intel PEBS mem-loads (with ldlat) and mem-stores, precise_ip
 *  watch  debug registers: accesses trapped by short windows on random
 *         offsets of random live target objects, and by the history
 *         watches (collector.c arms both, taking turns), with offset, ip,
 *         CPU and read/write but no hit/miss or latency
 *  inject no hardware: a test writes samples to debugfs "inject"; they run
 *         the IBS/PEBS path from resolution on (where no PMU exists: its
 *         tests and its cost)
 *
 * Samples in no slab object (globals, per-CPU data, vmalloc, stacks) go
 * to a second table per CPU keyed by (address, ip, source): dprof-view
 * names them by symbol from the recorded kallsyms and per-CPU offsets.
 *
 * Both hardware samplers use perf's generic data_src/weight/addr, which
 * the kernel fills from PEBS records and (since 6.1) from IBS; decode.h
 * maps them to dprof_src classes.  The handlers run in NMI (ibs, pebs) or
 * #DB (watch) context: no allocation, lock or print; a full table or a
 * nested handler drops the sample and counts it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/perf_event.h>
#include <linux/cpuhotplug.h>
#include <linux/cpu.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/math64.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/sched/task_stack.h>
#include <linux/timex.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <asm/processor.h>
#include "dprof.h"
#include "dprof_trace.h"
#include "decode.h"
#include "compat.h"

#define MAX_PROBE	32
#define IBS_SYSFS	"/sys/bus/event_source/devices/ibs_op/type"
#define PEBS_LOADS	"/sys/bus/event_source/devices/cpu/events/mem-loads"
#define PEBS_STORES	"/sys/bus/event_source/devices/cpu/events/mem-stores"

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
};

static DEFINE_PER_CPU(struct agg_table, agg);
static DEFINE_PER_CPU(struct sample_counters, scount);
struct sample_events {
	struct perf_event *ev[2];	/* loads (or IBS op), stores */
};

static DEFINE_PER_CPU(struct sample_events, perf_ev);
static enum dprof_sampler sampler;
static u64 period;
static unsigned int table_entries;
static u64 start_ns;
static int hotplug_state = -1;
static struct perf_event_attr attrs[2];	/* loads (or IBS op), stores */
static unsigned int nr_attrs;
static const char *sampler_why;		/* why auto picked what it did */
static bool emit_records;		/* sample_records=1 */

const char *const dprof_sampler_names[DPROF_SAMPLER_INJECT + 1] = {
	[DPROF_SAMPLER_NONE] = "off", [DPROF_SAMPLER_IBS] = "ibs",
	[DPROF_SAMPLER_PEBS] = "pebs", [DPROF_SAMPLER_WATCH] = "watch",
	[DPROF_SAMPLER_INJECT] = "inject",
};

/* ---- aggregation (NMI / #DB context) ----------------------------------- */

static u32 agg_hash(u16 target, u16 offset, u64 ip, u8 src)
{
	return hash_64(ip ^ ((u64)offset << 32) ^ ((u64)target << 48) ^
		       ((u64)src << 60), 32);
}

static void emit_record(u16 target, u16 offset, u64 ip,
			const struct dprof_access *a, u8 agg_flags)
{
	struct dprof_sample_rec rec = {
		.hdr = {
			.kind = DPROF_REC_SAMPLE, .size = sizeof(rec),
			.cpu = smp_processor_id(), .target = target,
			.flags = (a->load ? DPROF_SAMPLE_LOAD : 0) |
				 (a->store ? DPROF_SAMPLE_STORE : 0) |
				 (a->l1_miss ? DPROF_SAMPLE_MISS : 0) |
				 (agg_flags & DPROF_AGG_WATCH_IP ?
				  DPROF_SAMPLE_TRAP_IP : 0),
		},
		.time_ns = ktime_get_mono_fast_ns(),
		.ip = ip, .offset = offset, .latency = a->latency,
		.src = a->src,
	};

	dprof_ring_write(&rec, sizeof(rec));
}

static void agg_add(u16 target, u16 offset, u64 ip, const struct dprof_access *a,
		    u8 flags)
{
	struct agg_table *t = this_cpu_ptr(&agg);
	struct sample_counters *c = this_cpu_ptr(&scount);
	u32 h = agg_hash(target, offset, ip, a->src);
	unsigned int i;

	trace_dprof_sample(target, offset, ip, a);
	if (emit_records)
		emit_record(target, offset, ip, a, flags);

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
	struct agg_table *t = this_cpu_ptr(&agg);
	struct sample_counters *c = this_cpu_ptr(&scount);
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
			bool rw_known, bool write, bool window)
{
	struct sample_counters *c;
	struct dprof_access a = {
		.src = DPROF_SRC_UNKNOWN,
		.load = rw_known && !write, .store = rw_known && write,
	};

	if (sampler != DPROF_SAMPLER_WATCH)
		return;
	c = this_cpu_ptr(&scount);
	if (this_cpu_inc_return(agg.busy) > 1) {
		c->nested++;
		goto out;
	}
	c->samples++;
	c->in_target++;
	c->from_windows += window;
	agg_add(target, offset, ip, &a, DPROF_AGG_WATCH_IP);
out:
	this_cpu_dec(agg.busy);
}

/* Fields of a perf sample are valid only when their flag says so. */
static u64 sample_addr(const struct perf_sample_data *d)
{
	return d->sample_flags & PERF_SAMPLE_ADDR ? d->addr : 0;
}

static u64 sample_data_src(const struct perf_sample_data *d)
{
	return d->sample_flags & PERF_SAMPLE_DATA_SRC ? d->data_src.val : 0;
}

static u64 sample_weight(const struct perf_sample_data *d)
{
	return d->sample_flags & PERF_SAMPLE_WEIGHT_TYPE ? d->weight.full : 0;
}

/*
 * One sample with a data address: resolved and added to its CPU's table.
 * NMI context (ibs, pebs), or process context with preemption off
 * (inject); true when it fell in a target.
 */
static bool sample_one(u64 addr, u64 ip, struct dprof_access *a)
{
	struct sample_counters *c = this_cpu_ptr(&scount);
	struct dprof_resolved r;
	bool hit = false, slab;

	if (this_cpu_inc_return(agg.busy) > 1) {
		c->nested++;
		goto out;
	}
	c->samples++;
	a->addr_valid = addr != 0;
	c->misses += a->l1_miss;
	if (!a->addr_valid) {
		c->no_addr++;
	} else if (!dprof_resolve_slab(addr, &r, &slab) ||
		   (!slab && !dprof_var_resolve(addr, &r))) {
		/* Watched variables (watch_symbols=) are never in slab. */
		c->in_target++;
		c->target_misses += a->l1_miss;
		agg_add(r.target, r.offset, ip, a, 0);
		hit = true;
	} else if (slab) {
		c->other_slab++;
	} else {
		c->not_slab++;
		data_add(addr, ip, a);
	}
out:
	this_cpu_dec(agg.busy);
	return hit;
}

/*
 * perf overflow handler of the ibs and pebs counters (NMI; for
 * test_perf=software the cpu-clock hrtimer's interrupt).
 */
static void perf_sample_hit(struct perf_event *ev, struct perf_sample_data *data,
			    struct pt_regs *regs)
{
	struct dprof_access a;
	u64 start = get_cycles();
	bool hit;

	dprof_mem_src_decode(sample_data_src(data), &a);
	a.latency = min_t(u64, sample_weight(data), U16_MAX);
	hit = sample_one(sample_addr(data), instruction_pointer(regs), &a);
	dprof_cost_add(DPROF_HOOK_SAMPLE, hit, get_cycles() - start);
}

/*
 * sampler=inject: each line runs COUNT samples, in batches with
 * preemption off, as the NMI handler would; the CPU is the writer's
 * (taskset picks it).  Two forms:
 *
 *   COUNT ADDR IP KIND [LATENCY]
 *	through sample_one(), as after decoding.  KIND: load or store,
 *	"+miss" when it missed L1.
 *   perf COUNT ADDR IP DATA_SRC WEIGHT
 *	through the ibs/pebs overflow handler itself, perf_sample_hit(),
 *	with a perf_sample_data as the kernel's drivers fill it: DATA_SRC
 *	the perf_mem_data_src word (hex) that arch/x86/events/intel/ds.c
 *	builds from a PEBS record or amd/ibs.c from IbsOpData2/3, WEIGHT
 *	the load latency in cycles (PEBS-LL, IBS DcMissLat), ADDR 0 for a
 *	sample without a valid data address.
 */
#define INJECT_MAX_COUNT	1000000
#define INJECT_BATCH		256	/* samples per preemption-off stretch */

struct inject_sample {
	u64 addr, ip;
	struct dprof_access a;		/* the decoded form */
	bool perf;			/* through perf_sample_hit() */
	u64 data_src, weight;		/* its perf_sample_data */
};

/* As a PMU interrupt would: the handler times itself. */
static void inject_perf(const struct inject_sample *in)
{
	struct perf_sample_data data;
	struct pt_regs regs = {};

	perf_sample_data_init(&data, in->addr, 0);
	data.data_src.val = in->data_src;
	data.weight.full = in->weight;
	data.sample_flags |= PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT_TYPE;
	regs.ip = in->ip;
	perf_sample_hit(NULL, &data, &regs);
}

static void inject_one(const struct inject_sample *in)
{
	struct dprof_access a = in->a;
	u64 start;
	bool hit;

	if (in->perf) {
		inject_perf(in);
		return;
	}
	start = get_cycles();
	hit = sample_one(in->addr, in->ip, &a);
	dprof_cost_add(DPROF_HOOK_SAMPLE, hit, get_cycles() - start);
}

/* The decoded form "COUNT ADDR IP KIND [LATENCY]"; 0 or -EINVAL. */
static int inject_parse_decoded(const char *line, unsigned long *count,
				struct inject_sample *in)
{
	unsigned long lat = 0;
	char kind[16];
	int n = sscanf(line, "%lu %llx %llx %15s %lu", count, &in->addr,
		       &in->ip, kind, &lat);

	if (n < 4)
		return -EINVAL;
	in->a.src = DPROF_SRC_UNKNOWN;
	if (!strncmp(kind, "load", 4))
		in->a.load = true;
	else if (!strncmp(kind, "store", 5))
		in->a.store = true;
	else
		return -EINVAL;
	if (strstr(kind, "+miss")) {
		in->a.l1_miss = true;
		in->a.src = DPROF_SRC_MISS;
		in->a.latency = min_t(unsigned long, lat, U16_MAX);
	}
	return 0;
}

static int inject_line(char *line)
{
	struct inject_sample in = {};
	unsigned long count;

	if (!strncmp(line, "perf ", 5)) {
		in.perf = true;
		if (sscanf(line + 5, "%lu %llx %llx %llx %llu", &count,
			   &in.addr, &in.ip, &in.data_src, &in.weight) != 5)
			return -EINVAL;
	} else if (inject_parse_decoded(line, &count, &in)) {
		return -EINVAL;
	}
	if (!count || count > INJECT_MAX_COUNT)
		return -EINVAL;
	while (count) {
		unsigned long batch = min_t(unsigned long, count, INJECT_BATCH);

		count -= batch;
		preempt_disable();
		while (batch--)
			inject_one(&in);
		preempt_enable();
		cond_resched();
	}
	return 0;
}

ssize_t dprof_sample_inject(const char __user *ubuf, size_t len)
{
	char *text, *cur, *line;
	int ret = 0;

	if (sampler != DPROF_SAMPLER_INJECT) {
		pr_err_ratelimited("inject: the module was loaded with sampler=%s; samples are injected with sampler=inject only\n",
				   dprof_sampler_names[sampler]);
		return -EPERM;
	}
	if (len > PAGE_SIZE)
		return -E2BIG;
	text = memdup_user_nul(ubuf, len);
	if (IS_ERR(text))
		return PTR_ERR(text);
	cur = text;
	while (!ret && (line = strsep(&cur, "\n")))
		if (*line)
			ret = inject_line(line);
	kfree(text);
	if (ret)
		pr_err_ratelimited("inject: want lines \"COUNT ADDR IP load|store[+miss] [LATENCY]\" or \"perf COUNT ADDR IP DATA_SRC WEIGHT\" with COUNT 1..%u, hex ADDR, IP and DATA_SRC\n",
				   INJECT_MAX_COUNT);
	return ret ? ret : len;
}

/* ---- perf counters (process context) ----------------------------------- */

static void perf_release_cpu(unsigned int cpu)
{
	struct perf_event **ev = per_cpu_ptr(&perf_ev, cpu)->ev;
	int i;

	for (i = 0; i < 2; i++) {
		if (ev[i])
			perf_event_release_kernel(ev[i]);
		ev[i] = NULL;
	}
}

static int perf_create_cpu(unsigned int cpu)
{
	struct perf_event **ev = per_cpu_ptr(&perf_ev, cpu)->ev;
	unsigned int i;

	for (i = 0; i < nr_attrs; i++) {
		struct perf_event *e;

		e = perf_event_create_kernel_counter(&attrs[i], cpu, NULL,
						     perf_sample_hit, NULL);
		if (IS_ERR(e)) {
			perf_release_cpu(cpu);
			return PTR_ERR(e);
		}
		ev[i] = e;
	}
	return 0;
}

static int sample_cpu_online(unsigned int cpu)
{
	/* A CPU that cannot be sampled is reported, not fatal. */
	if (perf_create_cpu(cpu))
		pr_warn("cannot sample on CPU %u\n", cpu);
	return 0;
}

static int sample_cpu_offline(unsigned int cpu)
{
	perf_release_cpu(cpu);
	return 0;
}

/* A short sysfs file into @buf; -errno when absent. */
static int read_sysfs(const char *path, char *buf, size_t len)
{
	struct file *f = filp_open(path, O_RDONLY, 0);
	loff_t pos = 0;
	ssize_t n;

	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_read(f, buf, len - 1, &pos);
	filp_close(f, NULL);
	if (n < 0)
		return n;
	buf[n] = '\0';
	return 0;
}

/* "event=0xcd,umask=0x1,ldlat=3" -> config, config1 */
static int parse_event(const char *text, u64 *config, u64 *config1)
{
	char buf[128], *cur = buf, *tok;
	unsigned long long v;

	strscpy(buf, text, sizeof(buf));
	*config = 0;
	*config1 = 0;
	while ((tok = strsep(&cur, ",\n"))) {
		char *eq = strchr(tok, '=');

		if (!eq)
			continue;
		*eq++ = '\0';
		if (kstrtoull(eq, 0, &v))
			return -EINVAL;
		if (!strcmp(tok, "event"))
			*config |= v & 0xff;
		else if (!strcmp(tok, "umask"))
			*config |= (v & 0xff) << 8;
		else if (!strcmp(tok, "ldlat"))
			*config1 = v;
	}
	return *config ? 0 : -EINVAL;
}

static void attr_common(struct perf_event_attr *attr)
{
	attr->size = sizeof(*attr);
	attr->sample_period = period;
	attr->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR |
			    PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT;
	attr->pinned = 1;
	attr->exclude_user = 1;	/* kernel objects only */
}

static int setup_ibs(void)
{
	char buf[32];
	unsigned int type;
	int ret;

	if (!get_ibs_caps()) {
		sampler_why = "no AMD IBS on this CPU";
		return -ENODEV;
	}
	ret = read_sysfs(IBS_SYSFS, buf, sizeof(buf));
	if (ret || kstrtouint(strim(buf), 0, &type)) {
		sampler_why = "no ibs_op PMU in " IBS_SYSFS;
		return -ENODEV;
	}
	memset(attrs, 0, sizeof(attrs));
	attrs[0].type = type;
	attr_common(&attrs[0]);
	attrs[0].exclude_user = 0;	/* IBS has no exclude_* bits */
	nr_attrs = 1;
	return 0;
}

static int setup_pebs(void)
{
	char buf[128];
	u64 config, config1;

	if (boot_cpu_data.x86_vendor != X86_VENDOR_INTEL) {
		sampler_why = "not an Intel CPU";
		return -ENODEV;
	}
	if (read_sysfs(PEBS_LOADS, buf, sizeof(buf)) ||
	    parse_event(buf, &config, &config1)) {
		sampler_why = "no mem-loads event in " PEBS_LOADS;
		return -ENODEV;
	}
	memset(attrs, 0, sizeof(attrs));
	attrs[0].type = PERF_TYPE_RAW;
	attrs[0].config = config;
	attrs[0].config1 = config1 ? config1 : 30;	/* ldlat cycles */
	attr_common(&attrs[0]);
	attrs[0].precise_ip = 2;
	nr_attrs = 1;
	if (!read_sysfs(PEBS_STORES, buf, sizeof(buf)) &&
	    !parse_event(buf, &config, &config1)) {
		attrs[1] = attrs[0];
		attrs[1].config = config;
		attrs[1].config1 = 0;
		nr_attrs = 2;
	}
	return 0;
}

/*
 * test_perf= (sampler=inject): one counter per CPU through start_perf(),
 * the path of the IBS and PEBS counters, so that their creation, hotplug,
 * overflow handler and refusal run where neither PMU exists.  "refuse"
 * names a PMU type no kernel registers: perf_event_create_kernel_counter()
 * fails (-ENOENT) and takes the error path a refused IBS or PEBS counter
 * takes (another user holds it, or the PMU cannot count it: other errnos).
 */
#define DPROF_NO_SUCH_PMU	0x7ffffff0U

static void setup_test_counter(enum dprof_test_perf mode)
{
	memset(attrs, 0, sizeof(attrs));
	attrs[0].type = mode == DPROF_TEST_PERF_REFUSE ? DPROF_NO_SUCH_PMU :
			PERF_TYPE_SOFTWARE;
	attrs[0].config = PERF_COUNT_SW_CPU_CLOCK;
	attr_common(&attrs[0]);
	nr_attrs = 1;
}

/* Create the counters on every online CPU and follow hotplug. */
static int start_perf(void)
{
	unsigned int cpu;
	int ret;

	/* One trial counter first, so a refusal is one clear error. */
	cpus_read_lock();
	cpu = cpumask_first(cpu_online_mask);
	ret = perf_create_cpu(cpu);
	if (!ret)
		perf_release_cpu(cpu);
	cpus_read_unlock();
	if (ret) {
		sampler_why = "the PMU refused the counter";
		return ret;
	}
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "dprof/sample",
				sample_cpu_online, sample_cpu_offline);
	if (ret < 0)
		return ret;
	hotplug_state = ret;
	return 0;
}

/* ---- set-up ------------------------------------------------------------ */

static int alloc_tables(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct agg_table *t = per_cpu_ptr(&agg, cpu);

		t->e = vzalloc_node(table_entries * sizeof(*t->e),
				    cpu_to_node(cpu));
		t->data = vzalloc_node(table_entries * sizeof(*t->data),
				       cpu_to_node(cpu));
		if (!t->e || !t->data)
			return -ENOMEM;
		t->mask = table_entries - 1;
		memset(per_cpu_ptr(&scount, cpu), 0, sizeof(struct sample_counters));
	}
	return 0;
}

static void free_tables(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		vfree(per_cpu(agg, cpu).e);
		vfree(per_cpu(agg, cpu).data);
		per_cpu(agg, cpu).e = NULL;
		per_cpu(agg, cpu).data = NULL;
	}
}

static int try_hardware(enum dprof_sampler which)
{
	int ret = which == DPROF_SAMPLER_IBS ? setup_ibs() : setup_pebs();

	if (!ret)
		ret = start_perf();
	return ret;
}

enum dprof_sampler dprof_sample_which(void)
{
	return sampler;
}

int dprof_sample_init(const struct dprof_sample_config *sc)
{
	enum dprof_sampler want = sc->sampler;
	int ret;

	table_entries = sc->table_entries;
	emit_records = sc->records;
	start_ns = ktime_get_mono_fast_ns();
	sampler = DPROF_SAMPLER_NONE;
	if (want == DPROF_SAMPLER_NONE)
		return 0;
	ret = alloc_tables();
	if (ret)
		goto err;
	if (want == DPROF_SAMPLER_IBS || want == DPROF_SAMPLER_PEBS) {
		period = sc->period ? sc->period :
			 want == DPROF_SAMPLER_IBS ? 100000 : 10007;
		ret = try_hardware(want);
		if (ret) {
			pr_err("sampler=%s: %s (%d); use sampler=watch or sampler=auto\n",
			       dprof_sampler_names[want], sampler_why, ret);
			goto err;
		}
		sampler = want;
		return 0;
	}
	if (want == DPROF_SAMPLER_INJECT) {
		sampler_why = "no hardware: samples come from debugfs inject (a test)";
		if (sc->test_perf != DPROF_TEST_PERF_OFF) {
			period = sc->period ? sc->period : NSEC_PER_MSEC;
			setup_test_counter(sc->test_perf);
			ret = start_perf();
			if (ret) {
				pr_err("sampler=inject test_perf: %s (%d)\n",
				       sampler_why, ret);
				goto err;
			}
			sampler_why = "no hardware: debugfs inject and cpu-clock counters (a test)";
		}
		sampler = want;
		return 0;
	}
	if (want == DPROF_SAMPLER_AUTO) {
		period = sc->period ? sc->period : 100000;
		if (!try_hardware(DPROF_SAMPLER_IBS)) {
			sampler = DPROF_SAMPLER_IBS;
			return 0;
		}
		period = sc->period ? sc->period : 10007;
		if (!try_hardware(DPROF_SAMPLER_PEBS)) {
			sampler = DPROF_SAMPLER_PEBS;
			return 0;
		}
		sampler_why = "no AMD IBS and no Intel PEBS here";
	}
	/* watch: the collector (collector.c) opens the windows. */
	period = 0;
	sampler = DPROF_SAMPLER_WATCH;
	return 0;
err:
	free_tables();
	return ret;
}

void dprof_sample_exit(void)
{
	unsigned int cpu;

	if (hotplug_state >= 0)
		cpuhp_remove_state(hotplug_state);	/* releases counters */
	hotplug_state = -1;
	for_each_possible_cpu(cpu)
		perf_release_cpu(cpu);
	sampler = DPROF_SAMPLER_NONE;
	free_tables();
}

/* ---- reading ----------------------------------------------------------- */

/*
 * Copy whole used entries of every CPU's table from position *pos on
 * (@data: the table of samples in no slab object); returns bytes.
 */
static size_t read_entries(void *buf, size_t room, loff_t *pos, bool data)
{
	size_t size = data ? sizeof(struct dprof_data_agg) :
			     sizeof(struct dprof_sample_agg);
	size_t done = 0;
	loff_t i = *pos;
	unsigned int cpu;

	if (!table_entries || sampler == DPROF_SAMPLER_NONE)
		return 0;
	for (; room - done >= size; i++) {
		const struct agg_table *t;
		unsigned int k = i % table_entries;
		const void *e;
		u32 count;

		cpu = i / table_entries;
		if (cpu >= nr_cpu_ids)
			break;
		if (!cpu_possible(cpu))
			continue;
		t = per_cpu_ptr(&agg, cpu);
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

struct type_sum {
	/*
	 * lat_misses: the misses of entries whose instruction loads; the
	 * drivers give stores no latency, so the average is over these.
	 */
	u64 count, misses, latency, lat_misses;
	/* watch: per-window sums of each kind of window */
	struct dprof_window_sums win[DPROF_NR_WINDOW_KINDS];
	/* watch: estimated samples per second, and its relative variance */
	u64 weight;
	u64 relvar;			/* in 1/SHARE_ONE */
	bool relvar_unknown;		/* a kind with samples in 1 window */
	/* No window saw an access: the weight's 95% upper bound (3 / w). */
	u64 zero_bound;
	unsigned int target;
};

/* What every type's share is taken of. */
struct share_base {
	u64 all;		/* samples (watch) or misses (IBS/PEBS) */
	u64 weight;		/* watch: sum of the types' weights */
	u64 spread;		/* watch: sum of p^2 relvar, in 1/SHARE_ONE^2 */
	struct dprof_window_scale scale;	/* watch: the draws' scale */
};

struct offset_sum {
	u16 offset;
	u64 count, loads, stores, misses;
};

static int offset_cmp(const void *a, const void *b)
{
	const struct offset_sum *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

/*
 * Types by misses (hardware samplers) or by estimated share, then
 * samples (watch), most first.
 */
static int type_cmp(const void *a, const void *b)
{
	const struct type_sum *x = a, *y = b;
	u64 wx = sampler == DPROF_SAMPLER_WATCH ? x->weight : x->misses;
	u64 wy = sampler == DPROF_SAMPLER_WATCH ? y->weight : y->misses;

	if (wx == wy && sampler == DPROF_SAMPLER_WATCH) {
		wx = x->count;
		wy = y->count;
	}
	if (wx != wy)
		return wx < wy ? 1 : -1;
	return x->target < y->target ? -1 : x->target > y->target;
}

#define TOP_OFFSETS 10
#define TOP_TYPES_DETAILED 10	/* types whose offsets are listed */

static bool is_variable(unsigned int target)
{
	return READ_ONCE(dprof_targets[target].flags) & DPROF_TARGET_VAR;
}

/* Every type's totals, in one pass over the tables. */
static void sum_types(struct type_sum *types, unsigned int nr)
{
	unsigned int cpu, i;

	for (i = 0; i < nr; i++) {
		memset(&types[i], 0, sizeof(types[i]));
		types[i].target = i;
	}
	for_each_possible_cpu(cpu) {
		const struct agg_table *tab = per_cpu_ptr(&agg, cpu);

		for (i = 0; i < table_entries; i++) {
			const struct dprof_sample_agg *e = &tab->e[i];

			if (!READ_ONCE(e->count) || e->target >= nr)
				continue;
			types[e->target].count += e->count;
			types[e->target].misses += e->misses;
			types[e->target].latency += e->latency_sum;
			if (e->loads)
				types[e->target].lat_misses += e->misses;
		}
	}
	if (sampler == DPROF_SAMPLER_WATCH)
		for (i = 0; i < nr; i++)
			dprof_plan_window_sums(i, types[i].win);
}

/* Shares and variances in fixed point: 1 is SHARE_ONE. */
#define SHARE_SHIFT	20
#define SHARE_ONE	BIT_ULL(SHARE_SHIFT)
/* A relative variance of 16 is an interval wider than any share. */
#define RELVAR_MAX	(16 * SHARE_ONE)

/* a * b / c, saturated where the quotient might not fit (c > 0). */
static u64 mul_div(u64 a, u64 b, u64 c)
{
	if (fls64(a) + fls64(b) - fls64(c) >= 63)
		return U64_MAX >> 9;	/* still summable over all targets */
	return mul_u64_u64_div_u64(a, b, c);
}

/*
 * The watch sampler's share of type t in the accesses:
 *	p_t = A_t / sum_u A_u,	A_t = A_t,old + A_t,young
 * the type's estimated samples per second at ages of a window and more
 * and at younger ages, from the two kinds of window (dprof.h).  Each is
 *	A_t,k = r_t,k c_t,k K_k
 * r_t,k = s / w its samples per window (s samples in w windows of that
 * kind on t), c_t,k its draws, and K_k the kind's scale (struct
 * dprof_window_scale): old, c is the type's old objects summed over the
 * censuses and K one per census per window length (window.c stratifies
 * the old windows by type); young, c is the type's allocations drawn by
 * the any gate and K the target allocations per second per allocation
 * drawn.  Taking s_t / sum_u s_u instead would swing with how many
 * windows each type happened to get.
 *
 * The error, linearised: var(p_t) = p_t^2 ((1 - 2 p_t) R_t + S), where
 * S = sum_u p_u^2 R_u, R_u = var(A_u) / A_u^2, and per kind
 * R_u,k = (q / s^2 - 1 / w) + 1 / c, q the sum of the squared samples per
 * window (the windows are the independent draws, not the samples); the
 * draws' multinomial covariances cancel in the sum.  Old objects are
 * counted, not drawn: no 1 / c there.  The kinds are
 * independent: R_u = sum_k (A_u,k / A_u)^2 R_u,k.  The scales are taken
 * as exact (their counts are of every object, not of draws).
 */
#define WEIGHT_SHIFT	16	/* estimated samples per second, fixed point */

/* K_k as the fraction @num / @den of samples per second per draw. */
static void kind_scale(const struct dprof_window_scale *sc,
		       enum dprof_window_kind k, u64 *num, u64 *den)
{
	if (k == DPROF_WINDOW_OLD) {
		/* the mean over the censuses, per window_ms */
		*num = MSEC_PER_SEC;
		*den = sc->censuses * sc->window_ms;
	} else {
		/* (allocs / elapsed_ms) / alloc_draws, per second */
		*num = sc->allocs * MSEC_PER_SEC;
		*den = sc->elapsed_ms * sc->alloc_draws;
	}
}

/*
 * A_t,k in 1/2^WEIGHT_SHIFT samples per second, and R_t,k; where no
 * window of the kind saw an access, 0 and its 95% upper bound in @bound
 * (the rule of three: a sum of 0 over w windows bounds the mean by 3 / w).
 */
static u64 kind_weight(const struct dprof_window_sums *w,
		       const struct dprof_window_scale *sc,
		       enum dprof_window_kind k, u64 *relvar, u64 *bound)
{
	u64 num, den, rel, sub;

	*relvar = 0;
	*bound = 0;
	kind_scale(sc, k, &num, &den);
	if (!w->windows || !w->draws || !num || !den)
		return 0;
	if (!w->samples) {
		*bound = mul_div(mul_div(3ULL << WEIGHT_SHIFT, w->draws,
					 w->windows), num, den);
		return 0;
	}
	/* q / s^2 <= max y / s: (q / s) / s, q / s in fixed point first */
	rel = div64_u64(mul_div(w->samples_sq, SHARE_ONE, w->samples),
			w->samples);
	if (k == DPROF_WINDOW_YOUNG)
		rel += div64_u64(SHARE_ONE, w->draws);
	sub = div64_u64(SHARE_ONE, w->windows);
	*relvar = min_t(u64, rel > sub ? rel - sub : 0, RELVAR_MAX);
	return mul_div(mul_div(w->samples << WEIGHT_SHIFT, w->draws,
			       w->windows), num, den);
}

static void window_weight(struct type_sum *t,
			  const struct dprof_window_scale *sc)
{
	u64 a[DPROF_NR_WINDOW_KINDS], rv[DPROF_NR_WINDOW_KINDS], f, bound;
	unsigned int k;

	t->weight = 0;
	t->relvar = 0;
	t->relvar_unknown = false;
	t->zero_bound = 0;
	for (k = 0; k < DPROF_NR_WINDOW_KINDS; k++) {
		a[k] = kind_weight(&t->win[k], sc, k, &rv[k], &bound);
		t->weight += a[k];
		t->zero_bound += bound;
		/* One window with samples: their spread is unknown. */
		if (a[k] && t->win[k].windows < 2)
			t->relvar_unknown = true;
	}
	if (!t->weight)
		return;
	for (k = 0; k < DPROF_NR_WINDOW_KINDS; k++) {
		/* (A_k / A)^2 R_k: f^2 <= 2^40, R_k <= 2^24 */
		f = mul_div(a[k], SHARE_ONE, t->weight);
		t->relvar += ((f * f) >> SHARE_SHIFT) * rv[k] >> SHARE_SHIFT;
	}
	t->relvar = min_t(u64, t->relvar, RELVAR_MAX);
}

/* p in 1/SHARE_ONE (at most SHARE_ONE). */
static u64 window_share(const struct type_sum *t, const struct share_base *b)
{
	return b->weight ? min_t(u64, mul_div(t->weight, SHARE_ONE, b->weight),
				 SHARE_ONE) : 0;
}

/* The weights of every type and what their shares are taken of. */
static void window_base(struct type_sum *types, unsigned int nr,
			struct share_base *b)
{
	unsigned int i;
	u64 p;

	unsigned int cpu;

	dprof_window_scale(&b->scale);
	for_each_possible_cpu(cpu) {
		const struct dprof_cpu_stats *st = per_cpu_ptr(&dprof_stats,
							       cpu);

		b->scale.allocs += READ_ONCE(st->allocs) +
				   READ_ONCE(st->not_tracked);
	}
	b->scale.elapsed_ms = div_u64(ktime_get_mono_fast_ns() - start_ns,
				      NSEC_PER_MSEC);
	for (i = 0; i < nr; i++) {
		window_weight(&types[i], &b->scale);
		b->weight += types[i].weight;
	}
	for (i = 0; i < nr; i++) {
		p = window_share(&types[i], b);
		/* p^2 in 1/SHARE_ONE, times relvar <= 2^24: at most 2^44 */
		b->spread += (p * p >> SHARE_SHIFT) * types[i].relvar;
	}
}

/* Half-width of the 95% interval of the share, in 1/10000. */
static u64 window_half95(const struct type_sum *t, const struct share_base *b)
{
	u64 p = window_share(t, b);
	s64 v = (s64)b->spread +
		((s64)SHARE_ONE - 2 * (s64)p) * (s64)t->relvar;

	if (v <= 0)
		return 0;
	/* sqrt(v) is sqrt(V) in 1/SHARE_ONE: p sqrt(v) <= 2^46 */
	return (19600 * p * int_sqrt64(v)) >> (2 * SHARE_SHIFT);
}

/*
 * IBS/PEBS: the binomial half-width of the share p = s_t / s of
 * independent samples, 1.96 sqrt(p (1 - p) / s), in 1/10000.
 */
static u64 binomial_half95(u64 s_t, u64 s)
{
	u64 p;

	if (!s || s_t > s)
		return 0;
	p = div64_u64(s_t << 10, s);
	return div64_u64(19600 * int_sqrt64(p * (1024 - p) * s), 1024 * s);
}

/*
 * The share with its 95% interval, both as percentages with two decimals:
 * one would round a 3% share's 0.2-point interval by a quarter.
 */
static void print_share(struct seq_file *m, const struct type_sum *t,
			const struct share_base *b)
{
	bool hw = sampler != DPROF_SAMPLER_WATCH;
	unsigned int pm, half;	/* in 1/10000 */
	char buf[48];

	if (hw) {
		pm = b->all ? div64_u64(10000 * t->misses, b->all) : 0;
		half = min_t(u64, binomial_half95(t->misses, b->all), 10000);
	} else if (!b->weight) {
		/* No window took a sample: only the histories' counts. */
		pm = b->all ? div64_u64(10000 * t->count, b->all) : 0;
		snprintf(buf, sizeof(buf), "%u.%02u+-?%%", pm / 100, pm % 100);
		goto out;
	} else if (!t->win[DPROF_WINDOW_OLD].windows &&
		   !t->win[DPROF_WINDOW_YOUNG].windows) {
		/* Samples from histories only: no draw weighs them. */
		snprintf(buf, sizeof(buf), "-");
		goto out;
	} else if (!t->weight && t->zero_bound) {
		/* No window saw an access: below the bound's share. */
		pm = div64_u64(10000 * t->zero_bound,
			       b->weight + t->zero_bound);
		snprintf(buf, sizeof(buf), "<%u.%02u%%", pm / 100, pm % 100);
		goto out;
	} else if (t->relvar_unknown) {
		pm = (10000 * window_share(t, b)) >> SHARE_SHIFT;
		snprintf(buf, sizeof(buf), "%u.%02u+-?%%", pm / 100, pm % 100);
		goto out;
	} else {
		pm = (10000 * window_share(t, b)) >> SHARE_SHIFT;
		half = min_t(u64, window_half95(t, b), 10000);
	}
	snprintf(buf, sizeof(buf), "%u.%02u+-%u.%02u%%", pm / 100, pm % 100,
		 half / 100, half % 100);
out:
	seq_printf(m, " %15s", buf);
}

static void show_target(struct seq_file *m, const struct type_sum *s,
			const struct share_base *base, bool detail,
			struct offset_sum *offs,
			unsigned int max_offs)
{
	unsigned int t = s->target, cpu, i, n = 0;
	u64 moved, histories;
	bool hw = sampler != DPROF_SAMPLER_WATCH;
	/* One read/write breakpoint per offset counts neither. */
	bool rw = hw || dprof_watch_tells_writes();
	const char *bounce;

	dprof_target_moves(t, &moved, &histories);
	bounce = moved ? "yes" : histories ? "no" : "?";
	seq_printf(m, "%-24s %10llu", dprof_targets[t].name, s->count);
	if (!hw && is_variable(t)) {
		seq_putc(m, '\n');	/* no share: see dprof_sample_show() */
		goto offsets;
	}
	print_share(m, s, base);
	if (hw)
		seq_printf(m, " %10llu %9llu %9llu  %s\n", s->misses,
			   s->lat_misses ?
			   div64_u64(s->latency, s->lat_misses) : 0,
			   READ_ONCE(dprof_targets[t].older), bounce);
	else
		seq_printf(m, " %10s %9llu %9llu  %-6s %6llu %6llu %6llu\n",
			   "est.", s->win[DPROF_WINDOW_OLD].windows +
			   s->win[DPROF_WINDOW_YOUNG].windows,
			   READ_ONCE(dprof_targets[t].older), bounce,
			   base->scale.censuses ?
			   div64_u64(s->win[DPROF_WINDOW_OLD].draws,
				     base->scale.censuses) : 0,
			   s->win[DPROF_WINDOW_YOUNG].windows,
			   s->win[DPROF_WINDOW_YOUNG].draws);
	if (histories)
		seq_printf(m, "  bounce: %llu of %llu watched objects were used or freed on another CPU than the allocating one\n",
			   moved, histories);
offsets:
	if (!detail || !s->count)
		return;
	for_each_possible_cpu(cpu) {
		const struct agg_table *tab = per_cpu_ptr(&agg, cpu);

		for (i = 0; i < table_entries; i++) {
			const struct dprof_sample_agg *e = &tab->e[i];
			unsigned int k;

			if (!READ_ONCE(e->count) || e->target != t)
				continue;
			for (k = 0; k < n && offs[k].offset != e->offset; k++)
				;
			if (k == n) {
				if (n == max_offs)
					continue;
				memset(&offs[n], 0, sizeof(offs[n]));
				offs[n++].offset = e->offset;
			}
			offs[k].count += e->count;
			offs[k].loads += e->loads;
			offs[k].stores += e->stores;
			offs[k].misses += e->misses;
		}
	}
	sort(offs, n, sizeof(*offs), offset_cmp, NULL);
	if (n)
		seq_printf(m, "  %8s %10s %6s %8s %8s %8s\n", "offset", "samples",
			   "share", "loads", "stores", hw ? "misses" : "");
	for (i = 0; i < n && i < TOP_OFFSETS; i++)
		if (hw)
			seq_printf(m, "  %8u %10llu %5llu%% %8llu %8llu %8llu\n",
				   offs[i].offset, offs[i].count,
				   div64_u64(100 * offs[i].count, s->count),
				   offs[i].loads, offs[i].stores,
				   offs[i].misses);
		else if (rw)
			seq_printf(m, "  %8u %10llu %5llu%% %8llu %8llu\n",
				   offs[i].offset, offs[i].count,
				   div64_u64(100 * offs[i].count, s->count),
				   offs[i].loads, offs[i].stores);
		else
			seq_printf(m, "  %8u %10llu %5llu%% %8s %8s\n",
				   offs[i].offset, offs[i].count,
				   div64_u64(100 * offs[i].count, s->count),
				   "-", "-");
}

static void counters_sum(struct sample_counters *sum)
{
	unsigned int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct sample_counters *c = per_cpu_ptr(&scount, cpu);

		sum->samples += READ_ONCE(c->samples);
		sum->in_target += READ_ONCE(c->in_target);
		sum->other_slab += READ_ONCE(c->other_slab);
		sum->not_slab += READ_ONCE(c->not_slab);
		sum->stack += READ_ONCE(c->stack);
		sum->user += READ_ONCE(c->user);
		sum->data_full += READ_ONCE(c->data_full);
		sum->no_addr += READ_ONCE(c->no_addr);
		sum->misses += READ_ONCE(c->misses);
		sum->target_misses += READ_ONCE(c->target_misses);
		sum->table_full += READ_ONCE(c->table_full);
		sum->nested += READ_ONCE(c->nested);
		sum->from_windows += READ_ONCE(c->from_windows);
	}
}

/* A CPU whose counter could not be made (or re-made) shows none. */
static void samples_per_cpu(struct seq_file *m)
{
	unsigned int cpu;

	seq_puts(m, "samples per CPU:");
	for_each_possible_cpu(cpu)
		seq_printf(m, " %u:%llu%s", cpu,
			   READ_ONCE(per_cpu_ptr(&scount, cpu)->samples),
			   cpu_online(cpu) ? "" : "(offline)");
	seq_putc(m, '\n');
}

void dprof_sample_show(struct seq_file *m, bool brief)
{
	struct sample_counters c;
	u64 elapsed = ktime_get_mono_fast_ns() - start_ns;
	struct share_base base = {};
	struct offset_sum *offs;
	struct type_sum *types = NULL;
	unsigned int t, nr, seen = 0, nr_vars = 0;
	bool hw = sampler != DPROF_SAMPLER_WATCH;

	counters_sum(&c);
	seq_printf(m, "sampler: %s", dprof_sampler_names[sampler]);
	if (sampler == DPROF_SAMPLER_WATCH)
		seq_printf(m, " (debug registers%s%s): samples are accesses; misses are not measured, estimate them from the histories (dprof-view)%s\n",
			   sampler_why ? "; " : "", sampler_why ? sampler_why : "",
			   dprof_watch_tells_writes() ? "" :
			   "; loads and stores are not told apart here (one read/write breakpoint per offset): dprof-view record decodes them from the instructions");
	else if (sampler == DPROF_SAMPLER_NONE ||
		 sampler == DPROF_SAMPLER_INJECT)
		seq_printf(m, "%s%s\n", sampler_why ? ": " : "",
			   sampler_why ? sampler_why : "");
	else
		seq_printf(m, ", period %llu\n", period);
	seq_printf(m, "duration_s: %llu.%03llu  cpus: %u  table: %u entries per CPU (%zu bytes each)\n",
		   elapsed / NSEC_PER_SEC, (elapsed % NSEC_PER_SEC) / NSEC_PER_MSEC,
		   num_online_cpus(), table_entries,
		   sizeof(struct dprof_sample_agg));
	seq_printf(m, "samples: %llu, in targets %llu, other slab caches or objects not established live %llu, not slab %llu, no address %llu\n",
		   c.samples, c.in_target, c.other_slab, c.not_slab, c.no_addr);
	samples_per_cpu(m);
	if (sampler == DPROF_SAMPLER_WATCH)
		seq_printf(m, "watch samples: %llu from sample windows on live objects, %llu from history watches\n",
			   c.from_windows, c.in_target - c.from_windows);
	if (c.not_slab)
		seq_printf(m, "not slab: %llu on task stacks, %llu in user memory, %llu by address (globals, per-CPU, vmalloc, ...: dprof-view report names them)\n",
			   c.stack, c.user,
			   c.not_slab - c.stack - c.user - c.data_full);
	if (sampler != DPROF_SAMPLER_WATCH && sampler != DPROF_SAMPLER_NONE)
		seq_printf(m, "misses: %llu sampled, %llu in targets\n",
			   c.misses, c.target_misses);
	seq_printf(m, "dropped: %llu (table full), %llu (nested handler), %llu (not-slab table full)\n",
		   c.table_full, c.nested, c.data_full);
	if (brief || sampler == DPROF_SAMPLER_NONE)
		return;
	nr = READ_ONCE(dprof_nr_targets);
	offs = kvcalloc(4096, sizeof(*offs), GFP_KERNEL);
	types = kvcalloc(max(nr, 1U), sizeof(*types), GFP_KERNEL);
	if (!offs || !types)
		goto out;
	sum_types(types, nr);
	if (!hw)
		window_base(types, nr, &base);
	sort(types, nr, sizeof(*types), type_cmp, NULL);
	for (t = 0; t < nr; t++) {
		if (!hw && is_variable(types[t].target)) {
			nr_vars++;
			continue;
		}
		base.all += hw ? types[t].misses : types[t].count;
		seen += !!types[t].count;
	}
	if (hw)
		seq_printf(m, "\n%u of %u types sampled; share: of the misses in all types, +- its 95%% interval (binomial); older: objects live before load (scan)\n",
			   seen, nr);
	else
		seq_printf(m, "\n%u of %u types sampled; share: of the accesses in all types, estimated from two kinds of window: on objects older than a window, by type, the samples per window times the type's old objects, and on objects picked at allocation, watched from there, the samples per window times the allocations drawn; +- its 95%% interval (the windows and draws are the independent draws, not the samples; - with no window; <P%% when no window on the type saw an access, P its 95%% upper bound; +-? when one window is all a kind has, or no window sampled anything: then of the history samples); windows: sample windows opened on the type, both kinds; older: objects live before load (scan); old: its live objects older than a window (mean over time of the censuses); young: windows picked at allocation; picked: its allocations drawn (in proportion to its allocation rate)\n",
			   seen, nr);
	seq_printf(m, "%-24s %10s %15s %10s %9s %9s  %s%s\n", "type", "samples",
		   "share+-95%", "misses", hw ? "avg_lat" : "windows", "older",
		   "bounce", hw ? "" : "    old  young picked");
	for (t = 0; t < nr; t++) {
		/* target=all: only the types something was seen in. */
		if ((dprof_target_all && !types[t].count) ||
		    (!hw && is_variable(types[t].target)))
			continue;
		show_target(m, &types[t], &base, t < TOP_TYPES_DETAILED, offs,
			    4096);
	}
	if (!nr_vars)
		goto out;
	/*
	 * The watch sampler draws objects at random; variables are watched
	 * in turns instead, so their samples are not on the same scale.
	 */
	seq_puts(m, "\nvariables (watch_symbols=): watched in turns, not drawn at random, so without a share; dprof-view classify tells their sharing\n");
	seq_printf(m, "%-24s %10s\n", "variable", "samples");
	for (t = 0; t < nr; t++)
		if (is_variable(types[t].target))
			show_target(m, &types[t], &base, true, offs, 4096);
out:
	kvfree(types);
	kvfree(offs);
}

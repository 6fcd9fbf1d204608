// SPDX-License-Identifier: GPL-2.0
/*
 * The hardware samplers (thesis 5.1): AMD IBS op through a perf kernel
 * counter per CPU on the ibs_op PMU, Intel PEBS mem-loads (with ldlat)
 * and mem-stores with precise_ip.  Both use perf's generic
 * data_src/weight/addr, which the kernel fills from PEBS records and
 * (since 6.1) from IBS; decode.h maps them to dprof_src classes.  The
 * attributes come from pmu.c; the handler runs in NMI context and hands
 * each sample to sample.c's path.  test_perf= (inject.c) runs the same
 * counters on cpu-clock where neither PMU exists.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/perf_event.h>
#include <linux/timex.h>
#include "uapi/dprof.h"
#include "decode.h"
#include "own.h"
#include "stats.h"
#include "chain.h"
#include "sample.h"
#include "perfsample.h"

struct sample_events {
	struct perf_event *ev[2];	/* loads (or IBS op), stores */
};

static DEFINE_PER_CPU(struct sample_events, perf_ev);
static int hotplug_state = -1;
static struct dprof_pmu_attrs pmu;	/* the counters' settings */

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
 * perf overflow handler of the ibs and pebs counters (NMI; for
 * test_perf=software the cpu-clock hrtimer's interrupt).
 */
void dprof_sample_perf_hit(struct perf_event *ev, struct perf_sample_data *data,
			   struct pt_regs *regs)
{
	struct dprof_access a;
	u64 start = get_cycles();
	bool hit;

	dprof_mem_src_decode(sample_data_src(data), &a);
	a.latency = min_t(u64, sample_weight(data), U16_MAX);
	hit = dprof_sample_one(sample_addr(data), instruction_pointer(regs), &a,
			       regs);
	/* A call chain's walk is charged to its own hook. */
	dprof_cost_add(DPROF_HOOK_SAMPLE, hit,
		       get_cycles() - start - dprof_chain_cycles());
}

/* ---- the counters (process context) ------------------------------------ */

static void perf_release_cpu(unsigned int cpu)
{
	struct perf_event **ev = per_cpu_ptr(&perf_ev, cpu)->ev;
	int i;

	for (i = 0; i < 2; i++) {
		if (ev[i])
			dprof_own_release(ev[i]);
		ev[i] = NULL;
	}
}

static int perf_create_cpu(unsigned int cpu)
{
	struct perf_event **ev = per_cpu_ptr(&perf_ev, cpu)->ev;
	unsigned int i;

	for (i = 0; i < pmu.nr; i++) {
		struct perf_event *e;

		e = dprof_own_counter(&pmu.attr[i], cpu, dprof_sample_perf_hit,
				      NULL);
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

int dprof_perf_open(const struct dprof_pmu_attrs *a, const char **why)
{
	unsigned int cpu;
	int ret;

	pmu = *a;
	/* One trial counter first, so a refusal is one clear error. */
	cpus_read_lock();
	cpu = cpumask_first(cpu_online_mask);
	ret = perf_create_cpu(cpu);
	if (!ret)
		perf_release_cpu(cpu);
	cpus_read_unlock();
	if (ret) {
		*why = "the PMU refused the counter";
		return ret;
	}
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "dprof/sample",
				sample_cpu_online, sample_cpu_offline);
	if (ret < 0)
		return ret;
	hotplug_state = ret;
	return 0;
}

void dprof_perf_close(void)
{
	unsigned int cpu;

	if (hotplug_state >= 0)
		cpuhp_remove_state(hotplug_state);	/* releases counters */
	hotplug_state = -1;
	for_each_possible_cpu(cpu)
		perf_release_cpu(cpu);
}

/* ---- the samplers ------------------------------------------------------ */

static int hardware_setup(const struct dprof_sample_config *sc,
			  struct sample_state *st, u64 default_period,
			  int (*attrs)(struct dprof_pmu_attrs *a, u64 period,
				       const char **why))
{
	struct dprof_pmu_attrs a;
	int ret;

	st->period = sc->period ? sc->period : default_period;
	ret = attrs(&a, st->period, &st->why);
	return ret ? ret : dprof_perf_open(&a, &st->why);
}

static int ibs_setup(const struct dprof_sample_config *sc,
		     struct sample_state *st)
{
	return hardware_setup(sc, st, 100000, dprof_pmu_ibs);
}

static int pebs_setup(const struct dprof_sample_config *sc,
		      struct sample_state *st)
{
	return hardware_setup(sc, st, 10007, dprof_pmu_pebs);
}

const struct dprof_sampler_ops dprof_ibs_sampler = {
	.id = DPROF_SAMPLER_IBS,
	.hardware = "AMD IBS",
	.share_of = DPROF_SHARE_OF_MISSES,
	.period_unit = "",
	.setup = ibs_setup,
	.release = dprof_perf_close,
};

const struct dprof_sampler_ops dprof_pebs_sampler = {
	.id = DPROF_SAMPLER_PEBS,
	.hardware = "Intel PEBS",
	.share_of = DPROF_SHARE_OF_MISSES,
	.period_unit = "",
	.setup = pebs_setup,
	.release = dprof_perf_close,
};

// SPDX-License-Identifier: GPL-2.0
/*
 * sampler=inject: samples written to debugfs "inject" run the IBS/PEBS
 * path where no PMU exists (its tests, and its cost), through the same
 * functions the hardware's handler uses (sample.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timex.h>
#include <linux/uaccess.h>
#include "uapi/dprof.h"
#include "stats.h"
#include "sample.h"
#include "perfsample.h"
#include "inject.h"

/*
 * sampler=inject: each line runs COUNT samples, in batches with
 * preemption off, as the NMI handler would; the CPU is the writer's
 * (taskset picks it).  Two forms:
 *
 *   COUNT ADDR IP KIND [LATENCY]
 *	through dprof_sample_one(), as after decoding.  KIND: load or store,
 *	"+miss" when it missed L1.
 *   perf COUNT ADDR IP DATA_SRC WEIGHT
 *	through the ibs/pebs overflow handler itself, dprof_sample_perf_hit(),
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
	bool perf;			/* through dprof_sample_perf_hit() */
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
	dprof_sample_perf_hit(NULL, &data, &regs);
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
	hit = dprof_sample_one(in->addr, in->ip, &a, NULL);
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

	if (dprof_sampler()->id != DPROF_SAMPLER_INJECT) {
		pr_err_ratelimited("inject: the module was loaded with sampler=%s; samples are injected with sampler=inject only\n",
				   dprof_sampler_names[dprof_sampler()->id]);
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

/*
 * Set-up: with test_perf=, a cpu-clock counter per CPU (or one no PMU
 * takes) through the IBS and PEBS counters' path (perfsample.c).
 */
static int inject_setup(const struct dprof_sample_config *sc,
			struct sample_state *st)
{
	struct dprof_pmu_attrs a;
	int ret;

	st->why = "no hardware: samples come from debugfs inject (a test)";
	if (sc->test_perf == DPROF_TEST_PERF_OFF)
		return 0;
	st->period = sc->period ? sc->period : NSEC_PER_MSEC;
	dprof_pmu_test(&a, st->period,
		       sc->test_perf == DPROF_TEST_PERF_REFUSE);
	ret = dprof_perf_open(&a, &st->why);
	if (ret) {
		pr_err("sampler=inject test_perf: %s (%d)\n", st->why, ret);
		return ret;
	}
	st->why = "no hardware: debugfs inject and cpu-clock counters (a test)";
	return 0;
}

const struct dprof_sampler_ops dprof_inject_sampler = {
	.id = DPROF_SAMPLER_INJECT,
	.share_of = DPROF_SHARE_OF_MISSES,
	.setup = inject_setup,
	.release = dprof_perf_close,
};

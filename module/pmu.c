// SPDX-License-Identifier: GPL-2.0
/*
 * The hardware samplers' perf attributes (process context, at load): AMD
 * IBS op through the ibs_op PMU's dynamic type, Intel PEBS through the
 * core PMU's mem-loads (with its load-latency threshold) and mem-stores
 * events, so that no model's event codes live here.  Both ask for perf's
 * generic address, data source and weight (decode.h maps them).
 *
 * The type and the events are what sysfs describes
 * (/sys/bus/event_source/devices/ibs_op/type, .../cpu/events/mem-loads
 * and mem-stores); the module opens no file, so userspace gives them as
 * parameters (dprof-view load reads them).  Without them the hardware
 * samplers are not used, and status says why.
 */
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/kernel.h>
#include <asm/processor.h>
#include "compat.h"
#include "pmu.h"

static unsigned int pmu_ibs_type;
module_param(pmu_ibs_type, uint, 0444);
MODULE_PARM_DESC(pmu_ibs_type,
		 "AMD IBS: the perf type of the ibs_op PMU, /sys/bus/event_source/devices/ibs_op/type (dprof-view load gives it; default 0: none given)");

static char *pmu_pebs_loads;
module_param(pmu_pebs_loads, charp, 0444);
MODULE_PARM_DESC(pmu_pebs_loads,
		 "Intel PEBS: the mem-loads event as /sys/bus/event_source/devices/cpu/events/mem-loads says it, e.g. event=0xcd,umask=0x1,ldlat=3 (dprof-view load gives it)");

static char *pmu_pebs_stores;
module_param(pmu_pebs_stores, charp, 0444);
MODULE_PARM_DESC(pmu_pebs_stores,
		 "Intel PEBS: the mem-stores event, likewise (optional: loads alone without it)");

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

static void attr_common(struct perf_event_attr *attr, u64 period)
{
	attr->size = sizeof(*attr);
	attr->sample_period = period;
	attr->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR |
			    PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT;
	attr->pinned = 1;
	attr->exclude_user = 1;	/* kernel objects only */
}

int dprof_pmu_ibs(struct dprof_pmu_attrs *a, u64 period, const char **why)
{
	if (!get_ibs_caps()) {
		*why = "no AMD IBS on this CPU";
		return -ENODEV;
	}
	if (!pmu_ibs_type) {
		*why = "IBS is there, but no pmu_ibs_type= (dprof-view load gives it)";
		return -ENODEV;
	}
	memset(a, 0, sizeof(*a));
	a->attr[0].type = pmu_ibs_type;
	attr_common(&a->attr[0], period);
	a->attr[0].exclude_user = 0;	/* IBS has no exclude_* bits */
	a->nr = 1;
	return 0;
}

int dprof_pmu_pebs(struct dprof_pmu_attrs *a, u64 period, const char **why)
{
	u64 config, config1;

	if (boot_cpu_data.x86_vendor != X86_VENDOR_INTEL) {
		*why = "not an Intel CPU";
		return -ENODEV;
	}
	if (!pmu_pebs_loads || !*pmu_pebs_loads) {
		*why = "no pmu_pebs_loads= (dprof-view load gives it)";
		return -ENODEV;
	}
	if (parse_event(pmu_pebs_loads, &config, &config1)) {
		*why = "pmu_pebs_loads= is not an event=,umask=[,ldlat=] list";
		return -EINVAL;
	}
	memset(a, 0, sizeof(*a));
	a->attr[0].type = PERF_TYPE_RAW;
	a->attr[0].config = config;
	a->attr[0].config1 = config1 ? config1 : 30;	/* ldlat cycles */
	attr_common(&a->attr[0], period);
	a->attr[0].precise_ip = 2;
	a->nr = 1;
	if (pmu_pebs_stores && *pmu_pebs_stores) {
		if (parse_event(pmu_pebs_stores, &config, &config1)) {
			*why = "pmu_pebs_stores= is not an event=,umask= list";
			return -EINVAL;
		}
		a->attr[1] = a->attr[0];
		a->attr[1].config = config;
		a->attr[1].config1 = 0;
		a->nr = 2;
	}
	return 0;
}

/*
 * test_perf= (sampler=inject): one counter per CPU through sample.c's
 * start_perf(), the path of the IBS and PEBS counters, so that their
 * creation, hotplug, overflow handler and refusal run where neither PMU
 * exists.  "refuse" names a PMU type no kernel registers:
 * perf_event_create_kernel_counter() fails (-ENOENT) and takes the error
 * path a refused IBS or PEBS counter takes (another user holds it, or
 * the PMU cannot count it: other errnos).
 */
#define DPROF_NO_SUCH_PMU	0x7ffffff0U

void dprof_pmu_test(struct dprof_pmu_attrs *a, u64 period, bool refuse)
{
	memset(a, 0, sizeof(*a));
	a->attr[0].type = refuse ? DPROF_NO_SUCH_PMU : PERF_TYPE_SOFTWARE;
	a->attr[0].config = PERF_COUNT_SW_CPU_CLOCK;
	attr_common(&a->attr[0], period);
	a->nr = 1;
}

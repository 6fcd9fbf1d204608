// SPDX-License-Identifier: GPL-2.0
/*
 * dprof: data-type cache-miss profiler.  The user's module parameters
 * (the tests' are in testparams.c) and the init/exit ladder; every
 * subsystem is set up in the order below and torn down in exact reverse.
 * The hooks come after everything they write to; the history collector
 * comes after the hooks, so that no breakpoint is armed while their
 * tracepoints and kprobes are patched in or out.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/cpumask.h>
#include <linux/moduleparam.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/vmstat.h>
#include "uapi/dprof.h"
#include "calibrate.h"
#include "target.h"
#include "allocount.h"
#include "liveset.h"
#include "ring.h"
#include "slab.h"
#include "stats.h"
#include "sample.h"
#include "scan.h"
#include "debugfs.h"
#include "symbols.h"
#include "own.h"
#include "compat.h"
#include "testparams.h"
#include "watch_config.h"
#include "collector.h"

static char *target;
module_param(target, charp, 0444);
MODULE_PARM_DESC(target,
		 "Slab caches to profile, comma-separated (names from /proc/slabinfo; aliases: skbuff, tcp, udp, size-N (every cache kmalloc() of N bytes uses: kmalloc-N, kmalloc-cg-N, kmem_buckets and random kmalloc caches of that size), kmalloc-N; at most 8), or all: every cache, those created later included. Required.");

static unsigned int ring_kb = 2048;
module_param(ring_kb, uint, 0444);
MODULE_PARM_DESC(ring_kb,
		 "Output ring size per CPU in KiB (64..1048576, default 2048)");

static unsigned int max_objects;
module_param(max_objects, uint, 0444);
MODULE_PARM_DESC(max_objects,
		 "Live target objects tracked for address resolution (256..16777216; default 0: 65536, 1048576 with target=all); 16 bytes of table each");

static unsigned int track_one_in;
module_param(track_one_in, uint, 0444);
MODULE_PARM_DESC(track_one_in,
		 "Track 1 object in N (a power of two, by address hash; 1: all, the exact address set); 0 (default): adaptive, from 1 (named caches) or the slab size at load (target=all), halved whenever max_objects fills or the tracked allocations pass track_max_rate");

static unsigned int track_max_rate = 2048;
module_param(track_max_rate, uint, 0444);
MODULE_PARM_DESC(track_max_rate,
		 "With track_one_in=0: tracked allocations per second per online CPU at most (64..1000000, default 2048); above it, track_one_in doubles");

static bool scan = true;
module_param(scan, bool, 0444);
MODULE_PARM_DESC(scan,
		 "Find the live objects allocated before load (a kthread walks memory once; progress in status) (default Y)");

static bool history = true;
module_param(history, bool, 0444);
MODULE_PARM_DESC(history,
		 "Collect object access histories with debug registers (default Y)");

static char *history_mode = "set";
module_param(history_mode, charp, 0444);
MODULE_PARM_DESC(history_mode,
		 "set: each history watches two offsets, a round covers every offset once (default); pairs: a round covers every pair of offsets");

static char *history_offsets;
module_param(history_offsets, charp, 0444);
MODULE_PARM_DESC(history_offsets,
		 "Byte offsets to watch, comma-separated, multiples of history_len (default: every offset of the object)");

static unsigned int history_len = 8;
module_param(history_len, uint, 0444);
MODULE_PARM_DESC(history_len, "Bytes watched at each offset: 1, 2, 4 or 8 (default 8)");

static bool history_split_rw;
module_param(history_split_rw, bool, 0444);
MODULE_PARM_DESC(history_split_rw,
		 "Y: two debug registers per offset (write-only + read/write), two offsets per history, the breakpoints tell writes; N: one read/write register per offset, four offsets per history, record decodes the kind from the instruction (default N)");

static unsigned int history_max_arms = 100;
module_param(history_max_arms, uint, 0444);
MODULE_PARM_DESC(history_max_arms,
		 "Objects armed per second at most (1..10000, default 100)");

static unsigned int history_max_hits = 20000;
module_param(history_max_hits, uint, 0444);
MODULE_PARM_DESC(history_max_hits,
		 "History elements recorded per second at most, the rest counted as dropped (100..10000000, default 20000)");

/*
 * 20,000 a second: some 2 % of one CPU where a trap costs 1 us (a
 * hardware #DB with dprof's handler), 1.3 % of the guest under -icount
 * (about 640 instructions a trap, make bench-insns -w memcached); the
 * memcached case traps 3,800-12,000 a second on average, so the default
 * bounds the worst case (every CPU hammering a watched field) and holds
 * memcached back only in its bursts.
 */
static unsigned int watch_max_traps = 20000;
module_param(watch_max_traps, uint, 0444);
MODULE_PARM_DESC(watch_max_traps,
		 "Debug-register traps per second, all CPUs, that sample windows and histories may cost on average: after one that trapped T times, the next waits until T/watch_max_traps seconds after its start (0 or 100..10000000, default 20000; 0: no bound)");

static unsigned int history_timeout_ms = 1000;
module_param(history_timeout_ms, uint, 0444);
MODULE_PARM_DESC(history_timeout_ms,
		 "End a history whose object lives longer than this (10..4000, default 1000)");

static unsigned int history_wait_ms = 500;
module_param(history_wait_ms, uint, 0444);
MODULE_PARM_DESC(history_wait_ms,
		 "Give up on an armed address not reallocated within this time (10..60000, default 500)");

static bool window_lives = true;
module_param(window_lives, bool, 0444);
MODULE_PARM_DESC(window_lives,
		 "watch sampler with histories picked on every CPU: Y: each history is a life, the type's accesses below history_timeout_ms are estimated from its lives and the old windows start at the timeout; N: from young windows, the old ones starting at sample_window_ms (default Y)");

static bool history_pick = true;
module_param(history_pick, bool, 0444);
MODULE_PARM_DESC(history_pick,
		 "Y: the object a history watches is the next allocation of its type, armed in the allocation hook, the debug registers kept and retargeted (needs history_split_rw=N); with target=all the type is drawn by allocation rate. N: the collector reserves an object and waits for its address to be reused (default Y)");

static char *pick_types = "rate";
module_param(pick_types, charp, 0444);
MODULE_PARM_DESC(pick_types,
		 "target=all: how the type of a young window or a life (a history) is drawn: rate, in proportion to its allocations over the last quarter second, every one counted by cache; sqrt, to their square root (rare types get more windows); gate, the type of the first allocation after an instant, whatever its cache (it under-draws types allocated right after another, Apache's TCP sockets). With rate and sqrt a type drawn that allocates under 100 times a second gives its turn to the gate, whose type comes soon (default rate)");

static char *history_cpus;
module_param(history_cpus, charp, 0444);
MODULE_PARM_DESC(history_cpus,
		 "history_pick=Y: only allocations on these CPUs start a history (a cpulist such as 0 or 0-3,8; default: every CPU), e.g. the CPUs of the server whose objects matter");

static unsigned int sample_window_ms = 20;
module_param(sample_window_ms, uint, 0444);
MODULE_PARM_DESC(sample_window_ms,
		 "watch sampler: how long one window watches the offsets of a random live object, and one watch of a watch_symbols= variable lasts (default 20 ms)");

static char *watch_symbols;
module_param(watch_symbols, charp, 0444);
MODULE_PARM_DESC(watch_symbols,
		 "Kernel variables to watch with the debug registers, comma-separated symbols of /proc/kallsyms ([module:]name[/SIZE]: the module when the name is ambiguous, the size in bytes when kallsyms has none; at most 8): each is watched sample_window_ms at a time, taking turns with the other watches, so dprof-view classify tells its sharing");

static char *sampler = "auto";
module_param(sampler, charp, 0444);
MODULE_PARM_DESC(sampler,
		 "Access sampler: auto (best available, default), ibs (AMD), pebs (Intel), watch (debug registers, no hit/miss data), inject (tests: samples written to debugfs inject), off");

static unsigned long period;
module_param(period, ulong, 0444);
MODULE_PARM_DESC(period,
		 "Sampling period: ops between IBS samples, events between PEBS samples; 0 (default): 100000 for IBS, 10007 for PEBS");

static unsigned int sample_table = 4096;
module_param(sample_table, uint, 0444);
MODULE_PARM_DESC(sample_table,
		 "Aggregated sample entries per CPU, a power of two (256..1048576, default 4096; 40 bytes each)");

static bool cost_parts;
module_param(cost_parts, bool, 0444);
MODULE_PARM_DESC(cost_parts,
		 "Measure where a target's alloc and free hooks spend their instructions, part by part (status; costs a few get_cycles() per target call; default N)");

static bool sample_records;
module_param(sample_records, bool, 0444);
MODULE_PARM_DESC(sample_records,
		 "Also write every access sample (32 bytes) to the rings, besides the per-CPU aggregation (default N)");

static bool range_ok(const char *name, unsigned int value, unsigned int lo,
		     unsigned int hi)
{
	if (value >= lo && value <= hi)
		return true;
	pr_err("%s=%u: must be between %u and %u\n", name, value, lo, hi);
	return false;
}

static int history_params(struct dprof_history_config *hc)
{
	hc->enabled = history;
	hc->len = history_len;
	hc->split_rw = history_split_rw;
	hc->max_arms = history_max_arms;
	hc->max_hits = history_max_hits;
	hc->max_traps = watch_max_traps;
	hc->timeout_ms = history_timeout_ms;
	hc->wait_ms = history_wait_ms;
	hc->offsets = history_offsets;
	if (!strcmp(history_mode, "set")) {
		hc->pairs = false;
	} else if (!strcmp(history_mode, "pairs")) {
		hc->pairs = true;
	} else {
		pr_err("history_mode=%s: must be set or pairs\n", history_mode);
		return -EINVAL;
	}
	if (history_len != 1 && history_len != 2 && history_len != 4 &&
	    history_len != 8) {
		pr_err("history_len=%u: must be 1, 2, 4 or 8\n", history_len);
		return -EINVAL;
	}
	if (!range_ok("history_max_arms", history_max_arms, 1, 10000) ||
	    !range_ok("history_max_hits", history_max_hits, 100, 10000000) ||
	    (watch_max_traps &&
	     !range_ok("watch_max_traps", watch_max_traps, 100, 10000000)) ||
	    !range_ok("history_timeout_ms", history_timeout_ms, 10, 4000) ||
	    !range_ok("history_wait_ms", history_wait_ms, 10, 60000) ||
	    !range_ok("sample_window_ms", sample_window_ms, 1, 1000))
		return -EINVAL;
	hc->window_ms = sample_window_ms;
	hc->pick = history_pick;
	if (!strcmp(pick_types, "rate")) {
		hc->pick_types = DPROF_DRAW_RATE;
	} else if (!strcmp(pick_types, "sqrt")) {
		hc->pick_types = DPROF_DRAW_SQRT;
	} else if (!strcmp(pick_types, "gate")) {
		hc->pick_types = DPROF_DRAW_GATE;
	} else {
		pr_err("pick_types=%s: must be rate, sqrt or gate\n", pick_types);
		return -EINVAL;
	}
	cpumask_setall(&hc->pick_cpus);
	if (history_cpus && *history_cpus &&
	    (cpulist_parse(history_cpus, &hc->pick_cpus) ||
	     !cpumask_intersects(&hc->pick_cpus, cpu_possible_mask))) {
		pr_err("history_cpus=%s: not a list of this machine's CPUs (e.g. 0 or 0-3,8)\n",
		       history_cpus);
		return -EINVAL;
	}
	/* Lives stand for every allocation only if any CPU's may start one. */
	hc->lives = window_lives && history && history_pick &&
		    !(history_cpus && *history_cpus);
	return 0;
}

static int sample_params(struct dprof_sample_config *sc)
{
	int i;

	sc->sampler = -1;
	if (!strcmp(sampler, "auto"))
		sc->sampler = DPROF_SAMPLER_AUTO;
	for (i = 0; i < ARRAY_SIZE(dprof_sampler_names); i++)
		if (!strcmp(sampler, dprof_sampler_names[i]))
			sc->sampler = i;
	if (sc->sampler < 0) {
		pr_err("sampler=%s: must be auto, ibs, pebs, watch, inject or off\n",
		       sampler);
		return -EINVAL;
	}
	if (sample_table < 256 || sample_table > 1048576 ||
	    !is_power_of_2(sample_table)) {
		pr_err("sample_table=%u: must be a power of two between 256 and 1048576\n",
		       sample_table);
		return -EINVAL;
	}
	sc->period = period;
	sc->table_entries = sample_table;
	sc->records = sample_records;
	return 0;
}

static int check_params(void)
{
	if (ring_kb < 64 || ring_kb > 1048576) {
		pr_err("ring_kb=%u: must be between 64 and 1048576\n", ring_kb);
		return -EINVAL;
	}
	if (track_one_in && !is_power_of_2(track_one_in)) {
		pr_err("track_one_in=%u: must be 0 (auto) or a power of two\n",
		       track_one_in);
		return -EINVAL;
	}
	if (track_max_rate < 64 || track_max_rate > 1000000) {
		pr_err("track_max_rate=%u: must be between 64 and 1000000\n",
		       track_max_rate);
		return -EINVAL;
	}
	if (max_objects && (max_objects < 256 || max_objects > 16777216)) {
		pr_err("max_objects=%u: must be between 256 and 16777216\n",
		       max_objects);
		return -EINVAL;
	}
	return 0;
}

/* Objects in slabs now, roughly: slab memory over a typical 64-byte stride. */
static unsigned long slab_objects_estimate(void)
{
	unsigned long pages =
		global_node_page_state_pages(NR_SLAB_RECLAIMABLE_B) +
		global_node_page_state_pages(NR_SLAB_UNRECLAIMABLE_B);

	return pages * (PAGE_SIZE / 64);
}

static int __init dprof_setup(void)
{
	struct dprof_history_config hc;
	struct dprof_sample_config sc;
	struct dprof_test_config tc;
	unsigned int objects;
	int ret;

	ret = check_params();
	if (!ret)
		ret = history_params(&hc);
	if (!ret)
		ret = sample_params(&sc);
	if (!ret)
		ret = dprof_test_params(&tc, sc.sampler);
	if (ret)
		return ret;
	hc.test_reserve_delay_ms = tc.reserve_delay_ms;
	sc.test_perf = tc.perf;
	dprof_stats_init(cost_parts);
	ret = dprof_layout_init();
	if (ret)
		return ret;
	/*
	 * test_fail_nth=: where each step of init ends, in allocation points
	 * (test-init-failures.sh fails the first, last and some points
	 * between of every step).  The points up to calibration's end do not
	 * depend on the targets: a sweep of a second configuration may start
	 * after them.
	 */
	dprof_test_fail_nth_note("calibration");
	/* Destroys are followed before any cache is looked for (target.c). */
	ret = dprof_slab_destroy_init();
	dprof_test_fail_nth_note("destroy hooks");
	if (ret) {
		dprof_layout_exit();
		return ret;
	}
	ret = dprof_target_init(target);
	dprof_test_fail_nth_note("targets");
	/*
	 * The calibration caches anchor the walk of slab_caches: target=all
	 * walks it again for caches created later, others are done with it.
	 */
	if (ret || !dprof_target_all)
		dprof_layout_exit();
	if (ret) {
		dprof_slab_destroy_exit();
		return ret;
	}
	ret = dprof_symbols_init(watch_symbols);
	dprof_test_fail_nth_note("symbols");
	if (ret)
		goto err_target;
	objects = max_objects ? max_objects :
		  dprof_target_all ? 1048576 : 65536;
	ret = dprof_liveset_init(objects, track_one_in,
				 dprof_target_all ? slab_objects_estimate() : 0,
				 track_max_rate);
	dprof_test_fail_nth_note("live set");
	if (ret)
		goto err_target;
	ret = dprof_own_init();
	dprof_test_fail_nth_note("own objects");
	if (ret)
		goto err_liveset;
	ret = dprof_ring_init((unsigned long)ring_kb << 10);
	dprof_test_fail_nth_note("rings");
	if (ret)
		goto err_own;
	ret = dprof_sample_init(&sc);
	dprof_test_fail_nth_note("sampler");
	if (ret)
		goto err_ring;
	ret = dprof_scan_init(scan, tc.scan_delay_ms);
	dprof_test_fail_nth_note("scan");
	if (ret)
		goto err_sample;
	ret = dprof_slab_init();
	dprof_test_fail_nth_note("slab hooks");
	if (ret)
		goto err_scan;
	/* With the hooks in, no free can slip past the scan or the rescan. */
	dprof_scan_start();
	dprof_target_start();
	dprof_liveset_start();
	/*
	 * Last in, first out: no debug register is armed while the hooks'
	 * tracepoints and kprobes are patched into the kernel text (a QEMU
	 * TCG guest crashed on an int3 of a tracepoint being patched while
	 * breakpoints were armed).  The hooks only compare against the
	 * history state, which is idle before this and after its exit.
	 * target=all ranks types: histories need named caches.
	 */
	hc.windows = dprof_sample_which() == DPROF_SAMPLER_WATCH;
	hc.lives = hc.lives && hc.windows;
	hc.variables = dprof_nr_variables() > 0;
	ret = dprof_history_init(&hc);
	dprof_test_fail_nth_note("histories");
	if (ret)
		goto err_slab;
	/*
	 * The files last and gone first: a reader never reaches a table that
	 * is not set up yet, or that a failing load has freed.
	 */
	ret = dprof_debugfs_init();
	if (ret)
		goto err_history;
	pr_info("profiling %u cache(s)%s, first %s\n", dprof_nr_targets,
		dprof_target_all ? " (target=all)" : "", dprof_targets[0].name);
	return 0;

err_history:
	dprof_liveset_stop();
	dprof_history_exit();
err_slab:
	dprof_liveset_stop();
	dprof_target_stop();
	dprof_scan_exit();
	dprof_slab_exit();
	dprof_history_sync();
	goto err_sample;
err_scan:
	dprof_scan_exit();
err_sample:
	dprof_sample_exit();
err_ring:
	dprof_ring_exit();
err_own:
	dprof_own_exit();
err_liveset:
	dprof_liveset_exit();
err_target:
	dprof_symbols_exit();
	dprof_target_exit();
	dprof_slab_destroy_exit();
	dprof_layout_exit();
	return ret;
}

static int __init dprof_init(void)
{
	return dprof_test_fail_nth_run(dprof_setup);
}

static void __exit dprof_exit(void)
{
	dprof_debugfs_exit();
	/* A rate sweep ends windows: done before the history state goes. */
	dprof_liveset_stop();
	dprof_history_exit();
	/* Both write to the live set and the rings: stop them first. */
	dprof_target_stop();
	dprof_scan_exit();
	dprof_slab_exit();
	dprof_history_sync();
	dprof_sample_exit();
	dprof_ring_exit();
	dprof_own_exit();
	dprof_liveset_exit();
	dprof_symbols_exit();
	dprof_target_exit();
	dprof_slab_destroy_exit();
	dprof_layout_exit();
}

module_init(dprof_init);
module_exit(dprof_exit);
MODULE_LICENSE("GPL");
MODULE_AUTHOR("dprof developers");
MODULE_DESCRIPTION("Data-type cache-miss profiler: slab hooks, address resolution, object access histories, per-CPU rings");
MODULE_VERSION(DPROF_VERSION);

// SPDX-License-Identifier: GPL-2.0
/*
 * dprof: data-type cache-miss profiler.  The init/exit ladder: every
 * subsystem is set up in the order below and torn down in exact reverse.
 * Each module parameter lives with the code it configures (the tests'
 * in testparams.c, the calibration's in calibrate.c); those with a range
 * or a form are checked first, before anything is set up.
 * The hooks come after everything they write to; the history collector
 * comes after the hooks, so that no breakpoint is armed while their
 * tracepoints and kprobes are patched in or out.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include "uapi/dprof.h"
#include "calibrate.h"
#include "target.h"
#include "liveset.h"
#include "trackrate.h"
#include "ring.h"
#include "slab.h"
#include "stats.h"
#include "sample.h"
#include "operand.h"
#include "chain.h"
#include "opcount.h"
#include "perfsample.h"
#include "inject.h"
#include "watch.h"
#include "scan.h"
#include "debugfs.h"
#include "symbols.h"
#include "own.h"
#include "compat.h"
#include "testparams.h"
#include "watch_config.h"
#include "collector.h"
#include "byuse.h"

/*
 * The samplers, for sampler=NAME; auto takes the first of its order that
 * sets up: the hardware's, then operand where no allocation hook is
 * armed (target=all at its defaults), else watch, which needs them.
 */
static const struct dprof_sampler_ops *const samplers[] = {
	&dprof_ibs_sampler, &dprof_pebs_sampler, &dprof_operand_sampler,
	&dprof_watch_sampler, &dprof_inject_sampler,
};

static const struct dprof_sampler_ops *const auto_with_hooks[] = {
	&dprof_ibs_sampler, &dprof_pebs_sampler, &dprof_watch_sampler,
};

static const struct dprof_sampler_ops *const auto_without_hooks[] = {
	&dprof_ibs_sampler, &dprof_pebs_sampler, &dprof_operand_sampler,
};

static int __init dprof_setup(void)
{
	struct dprof_history_config hc;
	struct dprof_sample_config sc;
	struct dprof_test_config tc;
	bool hooks;
	int ret;

	/* Every parameter with a range or a form is checked before set-up. */
	ret = dprof_liveset_params();
	if (!ret)
		ret = dprof_track_params();
	if (!ret)
		ret = dprof_track_rate_params();
	if (!ret)
		ret = dprof_history_params(&hc);
	if (!ret)
		ret = dprof_sample_params(&sc);
	if (!ret)
		ret = dprof_chain_params();
	if (!ret)
		ret = dprof_ops_params();
	if (!ret)
		ret = dprof_test_params(&tc, sc.sampler);
	if (ret)
		return ret;
	sc.test_perf = tc.perf;
	hc.no_inuse = tc.no_inuse;
	dprof_stats_init();
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
	ret = dprof_target_init();
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
	/*
	 * target=all under sampler=operand or auto types its samples by the
	 * slab page alone (design.rst, "Typing by the slab page"): no
	 * allocation hook, live set, scan or history, unless history=1 or
	 * track_one_in= asks for them; auto then takes operand where neither
	 * IBS nor PEBS is (the watch sampler needs the hooks).
	 */
	hooks = !dprof_target_all || (hc.asked && hc.enabled) ||
		dprof_track_asked() ||
		(sc.sampler != DPROF_SAMPLER_OPERAND &&
		 sc.sampler != DPROF_SAMPLER_AUTO);
	if (!hooks)
		hc.enabled = false;
	sc.page_typing = !hooks;
	sc.samplers = samplers;
	sc.nr_samplers = ARRAY_SIZE(samplers);
	sc.auto_order = hooks ? auto_with_hooks : auto_without_hooks;
	sc.nr_auto = hooks ? ARRAY_SIZE(auto_with_hooks) :
			     ARRAY_SIZE(auto_without_hooks);
	/* Kprobes, like the slab hooks', go in before any breakpoint. */
	ret = dprof_ops_init();
	dprof_test_fail_nth_note("operation counts");
	if (ret)
		goto err_target;
	ret = dprof_symbols_init(hc.len);
	dprof_test_fail_nth_note("symbols");
	if (ret)
		goto err_target;
	ret = dprof_liveset_init(hooks);
	dprof_test_fail_nth_note("live set");
	if (ret)
		goto err_target;
	dprof_track_rules_init();
	ret = dprof_own_init();
	dprof_test_fail_nth_note("own objects");
	if (ret)
		goto err_liveset;
	ret = dprof_ring_init();
	dprof_test_fail_nth_note("rings");
	if (ret)
		goto err_own;
	ret = dprof_sample_init(&sc);
	dprof_test_fail_nth_note("sampler");
	if (ret)
		goto err_ring;
	ret = dprof_scan_init(tc.scan_delay_ms, hooks);
	dprof_test_fail_nth_note("scan");
	if (ret)
		goto err_sample;
	ret = hooks ? dprof_slab_init() : 0;
	dprof_test_fail_nth_note("slab hooks");
	if (ret)
		goto err_scan;
	/* With the hooks in, no free can slip past the scan or the rescan. */
	dprof_scan_start();
	dprof_target_start();
	if (hooks)
		dprof_track_rate_start();
	/*
	 * Last in, first out: no debug register is armed while the hooks'
	 * tracepoints and kprobes are patched into the kernel text (a QEMU
	 * TCG guest crashed on an int3 of a tracepoint being patched while
	 * breakpoints were armed).  The hooks only compare against the
	 * history state, which is idle before this and after its exit.
	 * target=all ranks types: histories need named caches.
	 */
	hc.windows = dprof_sampler()->share_of == DPROF_SHARE_OF_WINDOWS;
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
	ret = dprof_sampler_start();
	if (ret)
		goto err_history;
	ret = dprof_debugfs_init();
	if (ret)
		goto err_sampler;
	pr_info("profiling %u cache(s)%s, first %s\n", dprof_nr_targets,
		dprof_target_all ? " (target=all)" : "", dprof_targets[0].name);
	return 0;

err_sampler:
	dprof_sampler_stop();
err_history:
	dprof_track_rate_stop();
	dprof_history_exit();
err_slab:
	dprof_track_rate_stop();
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
	dprof_byuse_teardown();
	dprof_liveset_exit();
err_target:
	dprof_symbols_exit();
	dprof_ops_exit();
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
	dprof_sampler_stop();
	/*
	 * The scan of older objects first: it may have seconds to go on a
	 * large host, and stops at its next batch (the hooks stay in until
	 * after it, so no free slips past an entry it made).
	 */
	dprof_scan_exit();
	/* A rate sweep ends windows: done before the history state goes. */
	dprof_track_rate_stop();
	dprof_history_exit();
	/* It writes to the live set and the rings: stop it first. */
	dprof_target_stop();
	dprof_slab_exit();
	dprof_history_sync();
	dprof_sample_exit();
	dprof_ring_exit();
	dprof_own_exit();
	dprof_byuse_teardown();
	dprof_liveset_exit();
	dprof_symbols_exit();
	dprof_ops_exit();
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

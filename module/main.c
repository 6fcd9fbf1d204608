// SPDX-License-Identifier: GPL-2.0
/*
 * dprof: data-type cache-miss profiler.  Module parameters and the
 * init/exit ladder; every subsystem is set up in the order below and torn
 * down in exact reverse.  The hooks come last so that everything they use
 * exists before the first one fires.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include "dprof.h"

static char *target;
module_param(target, charp, 0444);
MODULE_PARM_DESC(target,
		 "Slab caches to profile, comma-separated (names from /proc/slabinfo; aliases: skbuff, tcp, udp, size-N, kmalloc-N). Required.");

static unsigned int ring_kb = 2048;
module_param(ring_kb, uint, 0444);
MODULE_PARM_DESC(ring_kb,
		 "Output ring size per CPU in KiB (64..1048576, default 2048)");

static unsigned int max_objects = 65536;
module_param(max_objects, uint, 0444);
MODULE_PARM_DESC(max_objects,
		 "Live target objects tracked for address resolution (256..16777216, default 65536)");

bool dprof_enabled = true;
module_param_named(enable, dprof_enabled, bool, 0644);
MODULE_PARM_DESC(enable,
		 "Record allocations and frees (runtime: /sys/module/dprof/parameters/enable, default Y)");

static int slab_cache_offset = -1;
module_param(slab_cache_offset, int, 0444);
MODULE_PARM_DESC(slab_cache_offset,
		 "Offset of slab_cache in struct slab; -1 (default) calibrates");

static int cache_size_offset = -1;
module_param(cache_size_offset, int, 0444);
MODULE_PARM_DESC(cache_size_offset,
		 "Offset of size (object stride) in struct kmem_cache; -1 (default) calibrates");

static int cache_name_offset = -1;
module_param(cache_name_offset, int, 0444);
MODULE_PARM_DESC(cache_name_offset,
		 "Offset of name in struct kmem_cache; -1 (default) calibrates");

static int cache_list_offset = -1;
module_param(cache_list_offset, int, 0444);
MODULE_PARM_DESC(cache_list_offset,
		 "Offset of list in struct kmem_cache; -1 (default) calibrates");

static bool offset_ok(const char *name, int value, int align)
{
	if (value == -1 || (value >= 0 && value < 4096 && value % align == 0))
		return true;
	pr_err("%s=%d: must be -1 (calibrate) or a multiple of %d below 4096\n",
	       name, value, align);
	return false;
}

static int check_params(void)
{
	if (ring_kb < 64 || ring_kb > 1048576) {
		pr_err("ring_kb=%u: must be between 64 and 1048576\n", ring_kb);
		return -EINVAL;
	}
	if (max_objects < 256 || max_objects > 16777216) {
		pr_err("max_objects=%u: must be between 256 and 16777216\n",
		       max_objects);
		return -EINVAL;
	}
	if (!offset_ok("slab_cache_offset", slab_cache_offset, 8) ||
	    !offset_ok("cache_size_offset", cache_size_offset, 4) ||
	    !offset_ok("cache_name_offset", cache_name_offset, 8) ||
	    !offset_ok("cache_list_offset", cache_list_offset, 8))
		return -EINVAL;
	return 0;
}

static int __init dprof_init(void)
{
	int ret;

	ret = check_params();
	if (ret)
		return ret;
	dprof_stats_init();
	ret = dprof_layout_init(slab_cache_offset, cache_size_offset,
				cache_name_offset, cache_list_offset);
	if (ret)
		return ret;
	ret = dprof_target_init(target);
	/* The calibration caches were only needed to find the targets. */
	dprof_layout_exit();
	if (ret)
		return ret;
	ret = dprof_liveset_init(max_objects);
	if (ret)
		goto err_target;
	ret = dprof_ring_init((unsigned long)ring_kb << 10);
	if (ret)
		goto err_liveset;
	ret = dprof_debugfs_init();
	if (ret)
		goto err_ring;
	ret = dprof_slab_init();
	if (ret)
		goto err_debugfs;
	pr_info("profiling %u cache(s), first %s\n", dprof_nr_targets,
		dprof_targets[0].name);
	return 0;

err_debugfs:
	dprof_debugfs_exit();
err_ring:
	dprof_ring_exit();
err_liveset:
	dprof_liveset_exit();
err_target:
	dprof_target_exit();
	return ret;
}

static void __exit dprof_exit(void)
{
	dprof_slab_exit();
	dprof_debugfs_exit();
	dprof_ring_exit();
	dprof_liveset_exit();
	dprof_target_exit();
}

module_init(dprof_init);
module_exit(dprof_exit);
MODULE_LICENSE("GPL");
MODULE_AUTHOR("dprof developers");
MODULE_DESCRIPTION("Data-type cache-miss profiler: slab hooks, address resolution, per-CPU rings");
MODULE_VERSION(DPROF_VERSION);

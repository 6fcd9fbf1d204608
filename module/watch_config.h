/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The debug registers' configuration (collector.c fills it from the module
 * parameters, watch.c keeps it as dprof_watch_cfg), with what it decides
 * for the sample windows.  Data only: no file of its own.
 */
#ifndef _DPROF_WATCH_CONFIG_H
#define _DPROF_WATCH_CONFIG_H

#include <linux/types.h>
#include <linux/cpumask.h>
#include <linux/jiffies.h>

struct dprof_history_config {
	bool enabled;		/* histories */
	bool asked;		/* history= given at load */
	bool windows;		/* sample windows for the watch sampler */
	bool variables;		/* watches on watch_symbols= variables */
	unsigned int window_ms;	/* length of one sample window */
	bool pairs;		/* every pair of members, else a history set */
	unsigned int len;	/* bytes per watched offset: 1, 2, 4, 8 */
	unsigned int max_arms;	/* objects armed per second */
	unsigned int max_hits;	/* elements recorded per second */
	unsigned int max_traps;	/* #DB per second on average; 0: no bound */
	unsigned int timeout_ms;	/* longest life followed */
	unsigned int wait_ms;	/* wait for the armed address to be reused */
	const char *offsets;	/* members to cover, NULL: every offset */
	/* target=all: how a type is drawn (enum dprof_draw_rule, allocount.h) */
	unsigned int pick_types;
	struct cpumask pick_cpus;	/* where a pick may be claimed */
	/*
	 * Lives (design.rst, "Lives"): the histories, picked at allocation
	 * on every CPU, are the windows of ages below timeout_ms, and the
	 * old strata start there; else young windows below window_ms.
	 */
	bool lives;
	bool no_inuse;		/* tests: no in-use tick (test_inuse=N) */
};

/* The age where the old strata begin, in jiffies (lives or windows). */
static inline unsigned long dprof_old_age(const struct dprof_history_config *c)
{
	return msecs_to_jiffies(c->lives ? c->timeout_ms : c->window_ms);
}

#endif /* _DPROF_WATCH_CONFIG_H */

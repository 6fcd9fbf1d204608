/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A type's accesses split by the hot path that made them (issue "Advice
 * for long-lived objects"): each sample in the type that carries its
 * call chain (callchain=N, DPROF_SAMPLE_CHAIN) is charged to a path, and
 * per byte offset, path and function the samples and the stores among
 * them are counted.  Plain analysis: the symbols come from the caller.
 *
 * A path is named by rules (--path tx=tcp_sendmsg,...): the innermost
 * frame, the sampled ip first, whose function a rule lists names it, so
 * that receive processing nested in a transmit (a loopback's softirq
 * run on local_bh_enable()) is receive.  A chain no rule names is
 * "other".  Without rules, a path is named by the function just inside
 * the innermost kernel entry on its chain (the syscall's __x64_sys_*,
 * the softirq's action, the kthread's or work item's function): the
 * FASTPATH_MAX_PATHS busiest such names with FASTPATH_HOT_SHARE of the
 * chained samples or more are the hot paths, the rest "other".
 */
#ifndef DPROF_FASTPATH_H
#define DPROF_FASTPATH_H

#include <stddef.h>
#include <stdint.h>
#include "ksyms.h"
#include "recfile.h"

#define FASTPATH_MAX_PATHS	8
#define FASTPATH_HOT_SHARE	0.10

/* One --path rule: NAME and the functions that begin it. */
struct fastpath_rule {
	const char *name;
	const char **funcs;
	size_t nfuncs;
};

/* Samples at one (offset, path, leaf function). */
struct fastpath_hit {
	uint16_t offset;
	uint16_t path;		/* index into names; npaths: other */
	const char *func;	/* the sampled ip's function, or "?" */
	uint64_t samples, stores;
};

struct fastpath {
	char *names[FASTPATH_MAX_PATHS];	/* the hot paths */
	size_t npaths;
	/* samples per path, [npaths] the other paths' */
	uint64_t path_samples[FASTPATH_MAX_PATHS + 1];
	uint64_t chained;	/* the target's samples with a chain */
	uint64_t unchained;	/* its sample records without one */
	uint64_t no_entry;	/* by entry: chains with no kernel entry (too deep) */
	struct fastpath_hit *hits;	/* by offset, path, samples */
	size_t nhits;
	/*
	 * A path's operations (ops=): the calls of the first of its rule's
	 * functions the recording counted (by entry: of the path's own
	 * function); ops_func NULL where none was counted.
	 */
	uint64_t ops[FASTPATH_MAX_PATHS];
	char *ops_func[FASTPATH_MAX_PATHS];
};

/*
 * Parses "NAME=FUNC[,FUNC...]" into @rule (its strings point into a copy
 * the rule owns: fastpath_rule_free()).  0, or -1 with a reason in @err.
 */
int fastpath_rule_parse(struct fastpath_rule *rule, const char *arg,
			char *err, size_t errlen);
void fastpath_rule_free(struct fastpath_rule *rule);

/*
 * The split of target @target's chained samples in @r, paths named by
 * @rules (@nrules, 0: by entry) and @syms.  Never fails: no chained
 * sample gives chained 0.
 */
void fastpath_build(struct fastpath *fp, const struct recording *r,
		    int target, const struct ksyms *syms,
		    const struct fastpath_rule *rules, size_t nrules);
void fastpath_free(struct fastpath *fp);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * profile.c: the profile file, and the figures the facts take from it.
 */
#ifndef _DPROF_PROFILE_H
#define _DPROF_PROFILE_H

#include <linux/types.h>

struct seq_file;
void dprof_sample_show(struct seq_file *m, bool brief);
/* profile.c: the sample counts and each target's share, for the facts. */
struct dprof_facts;
struct dprof_target_fact;
int dprof_profile_facts(struct dprof_facts *f, struct dprof_target_fact *tf,
			unsigned int nr);

#endif /* _DPROF_PROFILE_H */

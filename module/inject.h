/* SPDX-License-Identifier: GPL-2.0 */
/* inject.c: sampler=inject, samples written to debugfs "inject" (tests). */
#ifndef DPROF_INJECT_H
#define DPROF_INJECT_H

#include <linux/types.h>

struct dprof_sampler_ops;

extern const struct dprof_sampler_ops dprof_inject_sampler;

/* Run the samples of @len bytes of text; -EPERM under another sampler. */
ssize_t dprof_sample_inject(const char __user *ubuf, size_t len);

#endif

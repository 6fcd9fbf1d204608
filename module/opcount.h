/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Operations counted (opcount.c, ops=FUNC[,FUNC]): calls of named kernel
 * functions, by a kprobe at each one's entry, for the views' samples per
 * operation.
 */
#ifndef DPROF_OPCOUNT_H
#define DPROF_OPCOUNT_H

#include <linux/types.h>

struct seq_file;

/* ops=: at most DPROF_OPS_MAX distinct names; -EINVAL, said, otherwise. */
int dprof_ops_params(void);
/* A kprobe on each function; a function that cannot be probed is said. */
int dprof_ops_init(void);
/* Every probe out (also after a failed init). */
void dprof_ops_exit(void);
/* debugfs "ops": whole struct dprof_op_count entries from *@pos on. */
size_t dprof_ops_read(void *buf, size_t room, loff_t *pos);
/* status: one line with each function's count, none without ops=. */
void dprof_ops_show(struct seq_file *m);

#endif

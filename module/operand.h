/* SPDX-License-Identifier: GPL-2.0 */
/* operand.c: the operand sampler (sampler=operand). */
#ifndef _DPROF_OPERAND_H
#define _DPROF_OPERAND_H

#include <linux/types.h>

struct seq_file;

/* With sampler=operand, its tick; 0 and nothing under another sampler. */
int dprof_operand_init(void);
/* No tick writes the sample tables after it; idempotent. */
void dprof_operand_stop(void);
void dprof_operand_show(struct seq_file *m);

#endif /* _DPROF_OPERAND_H */

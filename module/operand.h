/* SPDX-License-Identifier: GPL-2.0 */
/* operand.c: the operand sampler (sampler=operand). */
#ifndef _DPROF_OPERAND_H
#define _DPROF_OPERAND_H

struct dprof_sampler_ops;

extern const struct dprof_sampler_ops dprof_operand_sampler;

#endif /* _DPROF_OPERAND_H */

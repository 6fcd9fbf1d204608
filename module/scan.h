/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scan.c: objects older than the module.
 */
#ifndef _DPROF_SCAN_H
#define _DPROF_SCAN_H

#include <linux/types.h>

struct seq_file;
/* scan= (scan.c) turns it off; @test_delay_ms: test_scan_delay_ms=. */
/* @hooks: false, no allocation hook runs, so no scan either. */
int dprof_scan_init(unsigned int test_delay_ms, bool hooks);
void dprof_scan_start(void);
void dprof_scan_exit(void);
void dprof_scan_show(struct seq_file *m);

#endif /* _DPROF_SCAN_H */

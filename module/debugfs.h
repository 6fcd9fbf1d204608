/* SPDX-License-Identifier: GPL-2.0 */
/*
 * debugfs.c: the files.
 */
#ifndef _DPROF_DEBUGFS_H
#define _DPROF_DEBUGFS_H

int dprof_debugfs_init(void);
void dprof_debugfs_exit(void);

#endif /* _DPROF_DEBUGFS_H */

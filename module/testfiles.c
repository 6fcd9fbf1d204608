// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs files for tests only (the DPROF_TESTS build, testparams.h):
 *   test_liveset  every live entry of the set of live objects, one a line:
 *                 "<address in hex> <target index>", so that a test can
 *                 check it against what a workload holds (no duplicate,
 *                 no free object).  Read-only, opened on the terms of
 *                 dprof's other files (debugfs.c: what perf asks).
 */
#include <linux/capability.h>
#include <linux/debugfs.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include "liveset.h"
#include "testparams.h"

static void liveset_line(unsigned long base, unsigned long age, int target,
			 void *arg)
{
	seq_printf(arg, "%lx %d\n", base, target);
}

static int test_liveset_show(struct seq_file *m, void *v)
{
	dprof_liveset_for_each(liveset_line, m);
	return 0;
}

static int test_liveset_open(struct inode *inode, struct file *file)
{
	if (!perfmon_capable())
		return -EPERM;
	if (security_locked_down(LOCKDOWN_PERF))
		return -EPERM;
	return single_open(file, test_liveset_show, NULL);
}

static const struct file_operations test_liveset_fops = {
	.owner = THIS_MODULE,
	.open = test_liveset_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

void dprof_test_files(struct dentry *dir)
{
	debugfs_create_file("test_liveset", 0400, dir, NULL,
			    &test_liveset_fops);
}

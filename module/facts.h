/* SPDX-License-Identifier: GPL-2.0 */
/*
 * facts.c: the debugfs "facts" file.
 */
#ifndef _DPROF_FACTS_H
#define _DPROF_FACTS_H

#include <linux/types.h>

/* facts.c: debugfs "facts", the views' figures, typed (uapi); kvfree() it. */
void *dprof_facts_build(size_t *len);

#endif /* _DPROF_FACTS_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A layout given for the what-if (dprof-view advise --layout FILE): the
 * JSON advise --json writes (its "members", each "member" with its
 * "new_offset", and "size_after"), edited by a person or kept from an
 * earlier run.  Read with json-c; analyse/advise.c applies it.
 */
#ifndef DPROF_GIVENLAYOUT_H
#define DPROF_GIVENLAYOUT_H

#include <stddef.h>
#include <stdint.h>

struct given_layout {
	char **names;		/* "member" of each entry */
	uint32_t *offs;		/* its "new_offset" */
	size_t n;
	uint32_t size;		/* "size_after" */
};

/* 0, or -1 with one line in @err naming the file and what is wrong. */
int given_layout_load(struct given_layout *g, const char *path, char *err,
		      size_t errlen);
void given_layout_free(struct given_layout *g);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A struct's cache-line groups as the kernel marks them:
 * __cacheline_group_begin(NAME) and __cacheline_group_end(NAME)
 * (include/linux/cache.h, 6.8 on) are zero-length members named
 * __cacheline_group_begin__NAME and __cacheline_group_end__NAME, which
 * BTF and DWARF keep.  The networking maintainers group the members a
 * fast path touches (tcp_sock, sock, net_device, netns_ipv4) and check
 * each member's place with CACHELINE_ASSERT_GROUP_MEMBER().  Found in a
 * flattened layout (layout.h), so nested structs' groups (struct sock's
 * inside tcp_sock) come with their path.
 */
#ifndef DPROF_CACHEGROUPS_H
#define DPROF_CACHEGROUPS_H

#include <stddef.h>
#include <stdint.h>
#include "layout.h"

#define CACHE_GROUP_BEGIN	"__cacheline_group_begin__"
#define CACHE_GROUP_END		"__cacheline_group_end__"

struct cache_group {
	char *name;		/* "tcp_sock_write_rx", or "sk.sock_read_rx" nested */
	uint32_t begin, end;	/* its bytes, [begin, end) */
	size_t members;		/* leaf fields of some size inside */
	uint32_t lines;		/* lines of @line_size the bytes span */
	uint32_t fewest;	/* the fewest lines its bytes could take */
};

struct cache_groups {
	struct cache_group *g;	/* by begin */
	size_t n;
};

/*
 * The groups of @l, their lines of @line_size bytes.  0, or -1 with one
 * line in @err: a group begun and never ended, or ended before it began.
 * A struct without markers has none (n 0).
 */
int cache_groups_find(const struct layout *l, uint32_t line_size,
		      struct cache_groups *out, char *err, size_t errlen);
void cache_groups_free(struct cache_groups *g);

#endif

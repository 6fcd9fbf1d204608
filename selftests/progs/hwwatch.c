// SPDX-License-Identifier: GPL-2.0
/*
 * hwwatch [-n WRITES]: a debugger's hardware watchpoint, as gdb's "watch"
 * or "perf stat -e mem:ADDR:w" makes one: a perf breakpoint (write, 8
 * bytes) on a variable of this process, then WRITES writes to it.  Prints
 * "traps T of W writes".  Exits 0 when every write trapped once, 3 when
 * the kernel had no debug register for it (ENOSPC: another user holds
 * them all), 1 otherwise.
 */
#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile uint64_t watched __attribute__((aligned(8)));

int main(int argc, char **argv)
{
	struct perf_event_attr attr;
	long writes = 1000, i;
	uint64_t traps = 0;
	int fd, c;

	while ((c = getopt(argc, argv, "n:")) != -1) {
		if (c != 'n') {
			fprintf(stderr, "usage: hwwatch [-n WRITES]\n");
			return 2;
		}
		writes = atol(optarg);
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_BREAKPOINT;
	attr.bp_type = HW_BREAKPOINT_W;
	attr.bp_addr = (uintptr_t)&watched;
	attr.bp_len = HW_BREAKPOINT_LEN_8;
	attr.exclude_kernel = 1;
	attr.disabled = 1;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0) {
		printf("hwwatch: perf_event_open: %s\n", strerror(errno));
		return errno == ENOSPC ? 3 : 1;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (i = 0; i < writes; i++)
		watched = i;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &traps, sizeof(traps)) != sizeof(traps)) {
		perror("hwwatch: read");
		return 1;
	}
	printf("traps %llu of %ld writes\n", (unsigned long long)traps, writes);
	return traps == (uint64_t)writes ? 0 : 1;
}

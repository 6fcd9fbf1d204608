// SPDX-License-Identifier: GPL-2.0
/*
 * referee_own begin|end: execute the referee's own-object marker once
 * (referee/oracle.c).  Every slab object the kernel allocates between
 * begin and end, on any CPU, is the profiler's own: the referee leaves
 * its accesses out.  The guest scripts of the referee run it around
 * insmod dprof.ko, whose perf events (breakpoints, ticks) the perf core
 * touches on dprof's behalf.  Without the plugin the marker is a nop.
 */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "begin")) {
		__asm__ volatile(".byte 0x0f, 0x1f, 0x80\n\t.long 0x44504f31");
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "end")) {
		__asm__ volatile(".byte 0x0f, 0x1f, 0x80\n\t.long 0x44504f30");
		return 0;
	}
	fprintf(stderr, "usage: referee_own begin|end (the referee's own-object markers)\n");
	return 2;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * insns_mark on|off: execute the insncount plugin's marker once
 * (referee/insncount.c).  With the plugin's scope=all, a marker on any
 * vCPU starts or stops the count of every vCPU, so that a shell script
 * can count what a whole load costs the machine, servers, softirqs and
 * dprof included (make bench-insns -w memcached).  Without the plugin
 * the marker is a nop.
 */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "on")) {
		__asm__ volatile(".byte 0x0f, 0x1f, 0x80\n\t.long 0x44505231");
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "off")) {
		__asm__ volatile(".byte 0x0f, 0x1f, 0x80\n\t.long 0x44505230");
		return 0;
	}
	fprintf(stderr, "usage: insns_mark on|off (the insncount plugin's markers)\n");
	return 2;
}

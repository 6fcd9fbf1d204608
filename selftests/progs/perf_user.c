// SPDX-License-Identifier: GPL-2.0
/*
 * perf_user -n EVENTS -d SECONDS: a program that is a perf user, so that
 * the perf_event cache holds objects that are not dprof's.  It opens
 * EVENTS task-clock counters on itself, each overflowing every 100 us (no
 * ring buffer: the overflow is counted and dropped, but the perf core's
 * hrtimer and the context switches touch every event all along), then
 * alternates 1 ms of spinning with a short sleep for SECONDS.  Prints how
 * many events it opened; exits 1 if it could open none.
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct perf_event_attr attr;
	int n = 4, opened = 0, i, c;
	double secs = 3, end;
	volatile unsigned long spin = 0;

	while ((c = getopt(argc, argv, "n:d:")) != -1) {
		if (c == 'n')
			n = atoi(optarg);
		else if (c == 'd')
			secs = atof(optarg);
		else {
			fprintf(stderr, "usage: perf_user [-n EVENTS] [-d SECONDS]\n");
			return 2;
		}
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.sample_period = 100000;	/* ns of task clock */
	for (i = 0; i < n; i++)
		if (syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0) >= 0)
			opened++;
		else
			perror("perf_event_open");
	printf("%d events opened\n", opened);
	fflush(stdout);
	if (!opened)
		return 1;
	end = now() + secs;
	while (now() < end) {
		double t = now() + 0.001;

		while (now() < t)
			spin++;
		usleep(200);
	}
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * modload: load a module with finit_module(2) once and report the errno,
 * so tests can check the exact error (busybox insmod hides it and retries
 * with init_module, running the module's init twice).
 *   modload FILE [PARAMS...]   exit 0 on success, else the errno value
 *   modload -f N FILE [PARAMS...]
 *       the same, with the N-th fault-injection point this thread passes
 *       during the load made to fail (/proc/thread-self/fail-nth: slab
 *       and page allocations under failslab and fail_page_alloc); prints
 *       "fail-nth N: injected" or "fail-nth N: not reached" (the load
 *       has fewer points than N) first.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

/* Arms fail-nth for this thread; the open descriptor, or -1. */
static int fail_nth_arm(const char *nth)
{
	int fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "modload: /proc/thread-self/fail-nth: %s (a kernel with CONFIG_FAULT_INJECTION_DEBUG_FS is needed)\n",
			strerror(errno));
		return -1;
	}
	if (write(fd, nth, strlen(nth)) < 0) {
		fprintf(stderr, "modload: fail-nth %s: %s\n", nth,
			strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* 0 once the fault was injected, else what was left of the count. */
static long fail_nth_left(int fd)
{
	char buf[32] = "";
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	/* Disarm in any case: nothing after the load may fail. */
	if (write(fd, "0", 1) < 0)
		perror("modload: disarming fail-nth");
	return n > 0 ? strtol(buf, NULL, 10) : -1;
}

int main(int argc, char **argv)
{
	char params[4096] = "";
	const char *nth = NULL;
	size_t len = 0;
	int fd, nth_fd = -1, first = 1;

	if (argc > 3 && !strcmp(argv[1], "-f")) {
		nth = argv[2];
		first = 3;
	}
	if (argc < first + 1 || (nth && atoi(nth) < 1)) {
		fprintf(stderr, "usage: modload [-f N] FILE [PARAMS...]\n");
		return 2;
	}
	for (int i = first + 1; i < argc; i++) {
		int n = snprintf(params + len, sizeof(params) - len, "%s%s",
				 i > first + 1 ? " " : "", argv[i]);

		if (n < 0 || (size_t)n >= sizeof(params) - len) {
			fprintf(stderr, "modload: parameters too long\n");
			return 2;
		}
		len += n;
	}
	fd = open(argv[first], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "modload: %s: %s\n", argv[first],
			strerror(errno));
		return 2;
	}
	if (nth) {
		nth_fd = fail_nth_arm(nth);
		if (nth_fd < 0)
			return 2;
	}
	long ret = syscall(SYS_finit_module, fd, params, 0);
	int err = errno;

	if (nth)
		printf("fail-nth %s: %s\n", nth,
		       fail_nth_left(nth_fd) == 0 ? "injected" : "not reached");
	if (ret) {
		printf("modload: %s: %s (errno %d)\n", argv[first],
		       strerror(err), err);
		return err;
	}
	return 0;
}

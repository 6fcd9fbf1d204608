// SPDX-License-Identifier: GPL-2.0
/*
 * opencaps: open files for reading without CAP_SYS_ADMIN and CAP_PERFMON,
 * as a root process that dropped them would, and print each file's errno
 * (0 when it opened).  Still uid 0, so file modes allow every open: what
 * refuses one is the capability check of the file's own open().
 *   opencaps FILE...   prints "FILE ERRNO" per file; exit 1 if the
 *                      capabilities could not be dropped
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/capability.h>

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif

static void clear(struct __user_cap_data_struct *d, int cap)
{
	d[cap / 32].effective &= ~(1u << (cap % 32));
	d[cap / 32].permitted &= ~(1u << (cap % 32));
}

int main(int argc, char **argv)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data)) {
		fprintf(stderr, "opencaps: capget: %s\n", strerror(errno));
		return 1;
	}
	clear(data, CAP_SYS_ADMIN);
	clear(data, CAP_PERFMON);
	if (syscall(SYS_capset, &hdr, data)) {
		fprintf(stderr, "opencaps: capset: %s\n", strerror(errno));
		return 1;
	}
	for (int i = 1; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY);

		printf("%s %d\n", argv[i], fd < 0 ? errno : 0);
		if (fd >= 0)
			close(fd);
	}
	return 0;
}

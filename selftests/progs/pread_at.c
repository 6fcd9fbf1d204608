// SPDX-License-Identifier: GPL-2.0
/*
 * pread_at FILE OFFSET SIZE: one pread(2) of SIZE bytes at OFFSET (a
 * 64-bit decimal), printing how many bytes came back, or the error.
 * For positions a shell's dd cannot reach (dprof's table files count
 * table slots, not bytes).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long long off;
	size_t size;
	ssize_t n;
	char *buf;
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: pread_at FILE OFFSET SIZE\n");
		return 2;
	}
	off = strtoll(argv[2], NULL, 10);
	size = strtoul(argv[3], NULL, 10);
	buf = malloc(size ? size : 1);
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || !buf) {
		fprintf(stderr, "pread_at: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	n = pread(fd, buf, size, off);
	if (n < 0) {
		fprintf(stderr, "pread_at: %s at %lld: %s\n", argv[1], off,
			strerror(errno));
		return 1;
	}
	printf("%zd\n", n);
	close(fd);
	free(buf);
	return 0;
}

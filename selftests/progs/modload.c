// SPDX-License-Identifier: GPL-2.0
/*
 * modload: load a module with finit_module(2) once and report the errno,
 * so tests can check the exact error (busybox insmod hides it and retries
 * with init_module, running the module's init twice).
 *   modload FILE [PARAMS...]   exit 0 on success, else the errno value
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	char params[4096] = "";
	size_t len = 0;
	int fd;

	if (argc < 2) {
		fprintf(stderr, "usage: modload FILE [PARAMS...]\n");
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		int n = snprintf(params + len, sizeof(params) - len, "%s%s",
				 i > 2 ? " " : "", argv[i]);

		if (n < 0 || (size_t)n >= sizeof(params) - len) {
			fprintf(stderr, "modload: parameters too long\n");
			return 2;
		}
		len += n;
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "modload: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	if (syscall(SYS_finit_module, fd, params, 0)) {
		int err = errno;

		printf("modload: %s: %s (errno %d)\n", argv[1], strerror(err),
		       err);
		return err;
	}
	return 0;
}

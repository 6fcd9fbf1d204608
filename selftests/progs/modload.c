// SPDX-License-Identifier: GPL-2.0
/*
 * modload: load a module with finit_module(2) once and report the errno,
 * so tests can check the exact error (busybox insmod hides it and retries
 * with init_module, running the module's init twice).
 *   modload FILE [PARAMS...]   exit 0 on success, else the errno value
 * dprof.ko in a guest booted with the word dprof_icount (vm.sh under
 * DPROF_ICOUNT=1) also gets test_exact_counts=1, as modprobe adds a
 * module's options from the command line: instructions are counted
 * exactly there, and status judges the handlers' budgets.  An explicit
 * test_exact_counts= among PARAMS wins.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <libgen.h>
#include <unistd.h>
#include <sys/syscall.h>

/* Whether /proc/cmdline holds @word as a whole word. */
static int cmdline_has(const char *word)
{
	char line[4096], *tok, *save;
	FILE *f = fopen("/proc/cmdline", "r");
	int found = 0;

	if (!f)
		return 0;
	if (fgets(line, sizeof(line), f))
		for (tok = strtok_r(line, " \n", &save); tok && !found;
		     tok = strtok_r(NULL, " \n", &save))
			found = !strcmp(tok, word);
	fclose(f);
	return found;
}

static int is_dprof(const char *path)
{
	char copy[4096];

	snprintf(copy, sizeof(copy), "%s", path);
	return !strcmp(basename(copy), "dprof.ko");
}

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
	if (is_dprof(argv[1]) && !strstr(params, "test_exact_counts=") &&
	    cmdline_has("dprof_icount") &&
	    len + 24 < sizeof(params))
		len += snprintf(params + len, sizeof(params) - len, "%s%s",
				len ? " " : "", "test_exact_counts=1");
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

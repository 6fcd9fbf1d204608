// SPDX-License-Identifier: GPL-2.0
/* dprof.ko loaded and unloaded on a user's behalf (loader.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "builtin.h"
#include "loader.h"
#include "util.h"

/* A file of /proc or /sys, or NULL when it is not there. */
static char *read_system_file(const char *env, const char *def,
			      const char *rel)
{
	char path[512];
	size_t len;

	return read_whole_file(sys_path(path, sizeof(path), env, def, rel),
			       &len);
}

/* The kernel log's end now: the load's own lines come after it. */
static int kmsg_open_at_end(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/* Records "prio,seq,time,flags;text": the ones whose text is dprof's. */
static void kmsg_print_dprof(int fd)
{
	char rec[2048];
	ssize_t n;

	if (fd < 0)
		return;
	while ((n = read(fd, rec, sizeof(rec) - 1)) > 0 || (n < 0 && errno == EPIPE)) {
		char *text;

		if (n <= 0)
			continue;	/* EPIPE: records overwritten, go on */
		rec[n] = '\0';
		text = strchr(rec, ';');
		if (!text || strncmp(++text, "dprof: ", 7))
			continue;
		text[strcspn(text, "\n")] = '\0';
		fprintf(stderr, "  %s\n", text_printable(text));
	}
	close(fd);
}

/* finit_module(2) of @file: 0, an errno, or -1 after a line. */
static int insmod(const char *file, const char *params, const char *cmd)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0) {
		errmsg("%s: %s: %s", cmd, file, strerror(errno));
		return -1;
	}
	ret = syscall(SYS_finit_module, fd, params, 0);
	if (ret)
		ret = errno;
	close(fd);
	return ret;
}

/* modprobe dprof PARAMS: its status, or -1 when it could not run. */
static int modprobe(const struct mod_params *p)
{
	char *argv[MODPARAMS_MAX + 4];
	size_t n = 0;
	int status;
	pid_t pid;

	argv[n++] = "modprobe";
	argv[n++] = "dprof";
	for (size_t i = 0; i < p->nr; i++)
		argv[n++] = p->word[i];
	argv[n] = NULL;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		execvp("modprobe", argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

int loader_complete(struct mod_params *p, const char *cmd)
{
	char err[512], *kallsyms = NULL, *ibs, *loads, *stores;
	struct pmu_facts facts;
	int ret;

	if (modparams_get(p, "watch_symbols"))
		kallsyms = read_system_file("DPROF_PROCFS", "/proc", "kallsyms");
	ret = modparams_resolve_symbols(p, kallsyms, err, sizeof(err));
	free(kallsyms);
	if (ret) {
		errmsg("%s: %s", cmd, err);
		return EXIT_USAGE;
	}
	ibs = read_system_file("DPROF_SYSFS", "/sys",
			       "bus/event_source/devices/ibs_op/type");
	loads = read_system_file("DPROF_SYSFS", "/sys",
				 "bus/event_source/devices/cpu/events/mem-loads");
	stores = read_system_file("DPROF_SYSFS", "/sys",
				  "bus/event_source/devices/cpu/events/mem-stores");
	facts = (struct pmu_facts){ ibs, loads, stores };
	modparams_add_pmu(p, &facts);
	free(ibs);
	free(loads);
	free(stores);
	return 0;
}

bool loader_loaded(void)
{
	struct stat st;

	return !stat("/sys/module/dprof", &st);
}

int loader_load(const char *module, const struct mod_params *p,
		const char *cmd)
{
	char *params = modparams_join(p);
	int kmsg = kmsg_open_at_end();
	int ret = module ? insmod(module, params, cmd) : modprobe(p);

	free(params);
	if (!ret) {
		if (kmsg >= 0)
			close(kmsg);
		return 0;
	}
	if (module && ret > 0)
		errmsg("%s: %s refused to load: %s (errno %d); the module says:", cmd, module,
		       strerror(ret), ret);
	else
		errmsg("%s: %s failed%s; the module says:", cmd,
		       module ? module : "modprobe dprof",
		       ret < 0 ? " to run" : "");
	kmsg_print_dprof(kmsg);
	return EXIT_FAIL;
}

int loader_unload(const char *cmd)
{
	const struct timespec pause = { 0, 100000000L };

	/* A reader of dprof's files that just closed them may hold it. */
	for (int i = 0; i < 50; i++) {
		if (!syscall(SYS_delete_module, "dprof", O_NONBLOCK))
			return 0;
		if (errno != EAGAIN && errno != EBUSY)
			break;
		nanosleep(&pause, NULL);
	}
	errmsg("%s: rmmod dprof: %s; unload it by hand", cmd, strerror(errno));
	return EXIT_FAIL;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * dprof-view load: load dprof.ko with the parameters given, completed
 * with what the module does not read itself (it opens no file):
 * watch_symbols= names get their addresses from /proc/kallsyms, and the
 * hardware samplers' PMU type and events come from sysfs (modparams.h).
 * The module checks what it is given.  A failed load prints the module's
 * own lines from the kernel log.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "builtin.h"
#include "modparams.h"
#include "options.h"
#include "util.h"

struct load_opts {
	struct view_args a;
	const char *module;	/* --module FILE: insmod it */
	bool dry_run;
};

static const struct opt load_own[] = {
	{ 'm', "module", "FILE", 0,
	  "load FILE (finit_module, as insmod) instead of\n"
	  "modprobe dprof (the DKMS or Debian package's)" },
	{ 'n', "dry-run", NULL, 0, "print the parameters, load nothing" },
	OPT_END,
};

static int load_option(void *ctx, int key, const char *arg)
{
	struct load_opts *o = ctx;

	if (key == 'm')
		o->module = arg;
	else if (key == 'n')
		o->dry_run = true;
	else
		return EXIT_USAGE;
	return 0;
}

static const struct command_opts load_cmd = {
	.cmd = "load",
	.synopsis =
	"usage: dprof-view load [--module FILE] [-n] PARAM=VALUE...\n"
	"\n"
	"Loads dprof.ko with these module parameters (modinfo dprof lists them),\n"
	"first filling in what the module does not read itself:\n"
	"  watch_symbols=NAME,...  each [module:]NAME[/SIZE] gets its address from\n"
	"                          /proc/kallsyms (NAME@0xADDRESS); a function, a\n"
	"                          per-CPU variable or an unknown name is refused\n"
	"  pmu_ibs_type=           the ibs_op PMU's type, where sysfs has one\n"
	"  pmu_pebs_loads=, pmu_pebs_stores=\n"
	"                          the core PMU's mem-loads and mem-stores events\n"
	"A parameter given stays as given.  When the load fails, the module's\n"
	"lines of the kernel log say why.  DPROF_PROCFS and DPROF_SYSFS move\n"
	"/proc and /sys (tests).\n",
	.sets = OPTS_NO_INPUT | OPTS_NO_OUTPUT,
	.own = load_own,
	.handle = load_option,
};

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

static int insmod(const char *file, const char *params)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0) {
		errmsg("load: %s: %s", file, strerror(errno));
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

static int complete_params(int argc, char **argv, int first,
			   struct mod_params *p)
{
	char err[512], *kallsyms = NULL, *ibs, *loads, *stores;
	struct pmu_facts facts;
	int ret = 0;

	for (int i = first; i < argc && !ret; i++)
		ret = modparams_add(p, argv[i], err, sizeof(err));
	if (ret) {
		errmsg("load: %s", err);
		return EXIT_USAGE;
	}
	if (modparams_get(p, "watch_symbols"))
		kallsyms = read_system_file("DPROF_PROCFS", "/proc", "kallsyms");
	ret = modparams_resolve_symbols(p, kallsyms, err, sizeof(err));
	free(kallsyms);
	if (ret) {
		errmsg("load: %s", err);
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

int cmd_load(int argc, char **argv)
{
	struct mod_params p = { .nr = 0 };
	struct load_opts o;
	struct stat st;
	char *params;
	int first, ret, kmsg;

	memset(&o, 0, sizeof(o));
	ret = opts_parse(&load_cmd, &o, argc, argv, &o.a, &first);
	if (ret)
		return ret;
	ret = complete_params(argc, argv, first, &p);
	if (ret)
		goto out;
	params = modparams_join(&p);
	if (o.dry_run) {
		printf("%s\n", params);
		free(params);
		goto out;
	}
	if (!stat("/sys/module/dprof", &st)) {
		errmsg("load: dprof is loaded already; rmmod dprof first");
		free(params);
		ret = EXIT_FAIL;
		goto out;
	}
	kmsg = kmsg_open_at_end();
	ret = o.module ? insmod(o.module, params) : modprobe(&p);
	if (ret) {
		if (o.module && ret > 0)
			errmsg("load: %s: %s (errno %d); the module says:",
			       o.module, strerror(ret), ret);
		else
			errmsg("load: %s failed%s; the module says:",
			       o.module ? o.module : "modprobe dprof",
			       ret < 0 ? " to run" : "");
		kmsg_print_dprof(kmsg);
		ret = EXIT_FAIL;
	} else {
		if (kmsg >= 0)
			close(kmsg);
		printf("loaded %s: %s\n", o.module ? o.module : "dprof", params);
	}
	free(params);
out:
	modparams_free(&p);
	type_map_free(&o.a.map);
	return ret;
}

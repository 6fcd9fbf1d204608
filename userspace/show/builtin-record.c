// SPDX-License-Identifier: GPL-2.0
/*
 * dprof-view record: drain the module's per-CPU rings into a
 * self-describing recording (format in module/uapi/dprof.h).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include "accessip.h"
#include "builtin.h"
#include "classify.h"
#include "histories.h"
#include "ksyms.h"
#include "recfile.h"
#include "sysinfo.h"
#include "options.h"
#include "loader.h"
#include "modparams.h"
#include "util.h"
#include "view.h"

#define DRAIN_CHUNK	(1 << 20)
#define POLL_INTERVAL_NS 20000000L	/* 20 ms between empty reads */
#define PROGRESS_INTERVAL 0.5		/* seconds between progress lines */
#define COMMAND_GRACE_S 5		/* SIGTERM to SIGKILL, the workload */

enum progress_mode { PROGRESS_AUTO, PROGRESS_ON, PROGRESS_OFF };

#define RECORD_MAX_LOAD 32	/* -e and -p options, each */

struct record_opts {
	const char *output;
	double duration;	/* seconds, 0: until interrupted */
	const char *label;
	const char *work;	/* a number, or @FILE read at the end */
	const char *load;
	enum progress_mode progress;	/* auto: when stderr is a terminal */
	char **command;		/* run this, record until it exits */
	unsigned long until_covered;	/* --until covered=N; 0: no goal */
	bool until_decided;		/* --until decided[=TYPE] */
	const char *decided_type;	/* TYPE, or NULL: every target */
	/* -e CACHE, -p PARAM=VALUE, --module FILE: load dprof.ko first */
	const char *events[RECORD_MAX_LOAD], *params[RECORD_MAX_LOAD];
	size_t nr_events, nr_params;
	const char *module;
};

/* With a goal and no -d, recording stops after this many seconds. */
#define UNTIL_DEFAULT_CAP 600.0
#define PLAN_CHECK_INTERVAL 0.5	/* seconds between reads of "plans" */
/*
 * --until decided classifies the recording so far: at first after this
 * many seconds, then never spending more than a fifth of the time on it.
 */
#define DECIDE_CHECK_INTERVAL 1.0
#define DECIDE_CHECK_SHARE 5.0

/* How far the goal is (--until covered=N, or decided). */
struct goal_state {
	double last_check;
	size_t groups, groups_met;	/* plan items, and those with N */
	uint32_t fewest;		/* complete histories of the poorest */
	/* decided: the labels of the type(s), fields' and lines' */
	size_t decided, undecided;
	double check_every;		/* seconds; grows with a check's cost */
	int decided_target;		/* target index, -1: all */
	bool snapshot_failed;		/* said once */
	bool met;
	const char *ended_by;	/* "goal", "workload", "time cap", "signal" */
};

struct record_state {
	struct record_opts opts;
	char debugfs[512];
	struct rec_writer out;
	int events_fd;
	uint8_t *chunk;
	uint64_t records, bytes;
	uint64_t histories;	/* HIST_END records: histories ended */
	uint64_t lost_at_start;
	bool progress;		/* print the one-line progress */
	double last_progress;	/* when it was last printed */
	char *kallsyms;		/* the captured text, for the ipmap */
	uint64_t *trap_ips;	/* from history elements, to be mapped */
	size_t nr_trap_ips, cap_trap_ips;
	pid_t child;
	int child_status;
	bool child_told;	/* dprof-view sent it SIGTERM: its status is ours */
	unsigned int nr_targets;	/* in the first targets section */
	uint32_t target_flags[DPROF_MAX_TARGETS];	/* there */
	struct goal_state goal;
};

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static bool is_number(const char *s)
{
	char *end;

	strtod(s, &end);
	return end != s && !*end;
}

enum {
	OPT_WORK = OPT_LONG, OPT_LOAD, OPT_PROGRESS, OPT_NO_PROGRESS,
	OPT_UNTIL, OPT_MODULE,
};

static const struct opt record_own[] = {
	{ 'e', "event", "CACHE", 0,
	  "load dprof.ko with target=CACHE first (repeatable:\n"
	  "the caches together; all: every cache) and unload\n"
	  "it at the end, as perf record -e" },
	{ 'p', "param", "NAME=VALUE", 0,
	  "another module parameter for that load (repeatable;\n"
	  "modinfo dprof lists them)" },
	{ OPT_MODULE, "module", "FILE", 0,
	  "load FILE (as insmod) instead of modprobe dprof" },
	{ 'o', "output", "FILE", 0,
	  "recording to write (default " VIEW_DEFAULT_RECORDING ")" },
	{ 'd', "duration", "TIME", 0, "stop after TIME (e.g. 10, 2.5s, 500ms)" },
	{ 'l', "label", "TEXT", 0, "free-form label stored in the file" },
	{ OPT_WORK, "work", "N|@FILE", 0,
	  "work the workload did (requests, packets...), for\n"
	  "diff --weighted; @FILE: read the number from FILE\n"
	  "when recording ends (the workload writes it)" },
	{ OPT_LOAD, "load", "L", 0,
	  "the offered load (clients, rate...), for\n"
	  "diff --saturation" },
	{ OPT_PROGRESS, "progress", NULL, 0,
	  "one line of progress on stderr, rewritten twice\n"
	  "a second (elapsed, records, drops, histories);\n"
	  "default: when stderr is a terminal" },
	{ OPT_NO_PROGRESS, "no-progress", NULL, 0, "no progress line" },
	{ OPT_UNTIL, "until", "GOAL", 0,
	  "covered=N: stop once every group of offsets of\n"
	  "every history plan has N complete histories (the\n"
	  "module's \"plans\"); decided[=TYPE]: once every\n"
	  "field and line label classify gives TYPE (default:\n"
	  "every type with a plan) is decided, none undecided\n"
	  "(a share on the threshold never decides: set -d).\n"
	  "Or at -d (default 600 s), or when COMMAND exits,\n"
	  "whichever comes first; the goal met sends COMMAND\n"
	  "SIGTERM.  The end says which it was" },
	OPT_END,
};

static int record_option(void *ctx, int key, const char *arg)
{
	struct record_opts *o = ctx;

	switch (key) {
	case 'e':
	case 'p':
		if ((key == 'e' ? o->nr_events : o->nr_params) == RECORD_MAX_LOAD) {
			errmsg("record: at most %d -%c", RECORD_MAX_LOAD, key);
			return EXIT_USAGE;
		}
		if (key == 'e')
			o->events[o->nr_events++] = arg;
		else
			o->params[o->nr_params++] = arg;
		return 0;
	case OPT_MODULE:
		o->module = arg;
		return 0;
	case 'd':
		if (!parse_duration(arg, &o->duration) || o->duration <= 0) {
			errmsg("record: bad duration '%s' (e.g. 10, 2.5s, 500ms)",
			       arg);
			return EXIT_USAGE;
		}
		return 0;
	case 'l':
		if (strchr(arg, '\n')) {
			errmsg("record: the label must be one line");
			return EXIT_USAGE;
		}
		o->label = arg;
		return 0;
	case OPT_WORK:
		if (arg[0] != '@' && !is_number(arg)) {
			errmsg("record: --work %s: expected a number or @FILE",
			       arg);
			return EXIT_USAGE;
		}
		o->work = arg;
		return 0;
	case OPT_LOAD:
		if (!is_number(arg)) {
			errmsg("record: --load %s: expected a number", arg);
			return EXIT_USAGE;
		}
		o->load = arg;
		return 0;
	case OPT_PROGRESS:
		o->progress = PROGRESS_ON;
		return 0;
	case OPT_NO_PROGRESS:
		o->progress = PROGRESS_OFF;
		return 0;
	case OPT_UNTIL: {
		char *end;

		if (o->until_covered || o->until_decided) {
			errmsg("record: --until %s: one goal at a time", arg);
			return EXIT_USAGE;
		}
		if (!strcmp(arg, "decided") || !strncmp(arg, "decided=", 8)) {
			o->until_decided = true;
			o->decided_type = arg[7] ? arg + 8 : NULL;
			if (o->decided_type && !*o->decided_type) {
				errmsg("record: --until decided=: name the type (or say decided for every type)");
				return EXIT_USAGE;
			}
			return 0;
		}
		if (strncmp(arg, "covered=", 8) || !isdigit((unsigned char)arg[8]) ||
		    (o->until_covered = strtoul(arg + 8, &end, 10), *end) ||
		    !o->until_covered || o->until_covered > 1000000) {
			errmsg("record: --until %s: expected covered=N (N from 1 to 1000000 complete histories per group of offsets), decided or decided=TYPE",
			       arg);
			return EXIT_USAGE;
		}
		return 0;
	}
	default:
		return EXIT_USAGE;
	}
}

static const struct command_opts record_cmd = {
	.cmd = "record",
	.synopsis =
	"usage: dprof-view record [-e CACHE]... [-p NAME=VALUE]... [--module FILE]\n"
	"                         [-o FILE] [-d DURATION] [-l LABEL] [--work N|@FILE]\n"
	"                         [--load L] [--until covered=N|decided[=TYPE]]\n"
	"                         [-- COMMAND [ARGS...]]\n"
	"\n"
	"Drain dprof.ko's rings into a recording until DURATION passes, COMMAND\n"
	"exits, the --until goal is met, or SIGINT/SIGTERM arrives.  The file also\n"
	"holds the kernel release, CPU caches, targets, /proc/kallsyms, the\n"
	"kernel's BTF and the history plans (which offsets were to be watched).\n"
	"With -e (and -p, --module) record loads dprof.ko itself, says with which\n"
	"parameters, and unloads it at the end; without them it records from the\n"
	"module already loaded (insmod dprof.ko target=...).\n",
	.epilogue =
	"Environment: DPROF_DEBUGFS (default /sys/kernel/debug/dprof), DPROF_SYSFS,\n"
	"DPROF_PROCFS redirect where the module and system files are read.\n",
	.sets = OPTS_NO_INPUT | OPTS_COMMAND,
	.own = record_own,
	.handle = record_option,
};

static int parse_record_opts(int argc, char **argv, struct record_opts *o)
{
	struct view_args a;
	int first, ret;

	ret = opts_parse(&record_cmd, o, argc, argv, &a, &first);
	if (ret)
		return ret;
	o->output = a.view.output ? a.view.output : VIEW_DEFAULT_RECORDING;
	if (first < argc)
		o->command = &argv[first];
	/* A goal that is never met (a type without histories) ends anyway. */
	if ((o->until_covered || o->until_decided) && o->duration <= 0)
		o->duration = UNTIL_DEFAULT_CAP;
	return 0;
}

static char *debugfs_file(struct record_state *st, const char *name)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/%s", st->debugfs, name);
	return read_whole_file(path, NULL);
}

static int check_module(struct record_state *st)
{
	char *version = debugfs_file(st, DPROF_FILE_VERSION);
	int abi = -1;

	if (!version) {
		errmsg("record: cannot read %s/%s (%s): load the module (insmod dprof.ko target=...) and mount debugfs",
		       st->debugfs, DPROF_FILE_VERSION, strerror(errno));
		return EXIT_FAIL;
	}
	if (sscanf(version, "dprof %*s abi %d", &abi) != 1 ||
	    abi != DPROF_ABI_VERSION) {
		errmsg("record: module speaks ABI %d, this dprof-view %d: use matching versions",
		       abi, DPROF_ABI_VERSION);
		free(version);
		return EXIT_FAIL;
	}
	free(version);
	return 0;
}

static uint64_t read_dropped(struct record_state *st)
{
	char *text = debugfs_file(st, DPROF_FILE_DROPPED);
	uint64_t v = text ? strtoull(text, NULL, 10) : 0;

	free(text);
	return v;
}

static void meta_add(char **meta, size_t *len, const char *key,
		     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void meta_add(char **meta, size_t *len, const char *key,
		     const char *fmt, ...)
{
	char value[512];
	size_t need;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	for (char *p = value; *p; p++)
		if (*p == '\n')
			*p = ' ';
	need = strlen(key) + strlen(value) + 2;
	*meta = xrealloc(*meta, *len + need + 1);
	*len += sprintf(*meta + *len, "%s=%s\n", key, value);
}

/*
 * Without root (or with kptr_restrict) every address reads as zero.  Per-CPU
 * symbols are at zero anyway, so look for any non-zero one.
 */
static bool kallsyms_has_addresses(const char *text)
{
	for (const char *line = text; *line;) {
		const char *eol = strchr(line, '\n');

		if (strspn(line, "0") < 16)
			return true;
		if (!eol)
			break;
		line = eol + 1;
	}
	return false;
}

/*
 * Store a system file as a section; warn with @consequence when it cannot
 * be read.  Returns the text (caller frees) or NULL.
 */
static char *capture_file(struct record_state *st, uint32_t kind,
			  const char *env, const char *def, const char *rel,
			  const char *consequence)
{
	char path[512];
	size_t len;
	char *text = read_whole_file(sys_path(path, sizeof(path), env, def,
					      rel), &len);

	if (!text) {
		fprintf(stderr, "%s: record: warning: cannot read %s (%s); %s\n",
			prog_name, path, strerror(errno), consequence);
		return NULL;
	}
	rec_write_section(&st->out, kind, text, len);
	return text;
}

/* The module's targets now into @targets; their number, or -1. */
static int read_targets(struct record_state *st,
			struct dprof_file_target *targets)
{
	char *text = debugfs_file(st, DPROF_FILE_TARGETS);
	int nr_targets, bad_line = 0;

	if (!text) {
		errmsg("record: cannot read %s/targets: %s", st->debugfs,
		       strerror(errno));
		return -1;
	}
	nr_targets = parse_targets(text, targets, DPROF_MAX_TARGETS, &bad_line);
	free(text);
	if (nr_targets <= 0) {
		errmsg("record: %s/targets: malformed at line %d", st->debugfs,
		       bad_line);
		return -1;
	}
	return nr_targets;
}

static int write_header_sections(struct record_state *st)
{
	static struct dprof_file_target targets[DPROF_MAX_TARGETS];	/* 320 KiB */
	struct dprof_file_cache caches[16];
	struct utsname uts;
	char *meta = NULL, *text, path[512], stamp[64];
	size_t meta_len = 0, len;
	int nr_targets;
	time_t now = time(NULL);

	nr_targets = read_targets(st, targets);
	if (nr_targets < 0)
		return EXIT_FAIL;
	st->nr_targets = nr_targets;
	for (int i = 0; i < nr_targets; i++)
		st->target_flags[i] = targets[i].flags;
	st->goal.decided_target = -1;
	if (st->opts.decided_type) {
		struct recording loaded = {
			.path = "dprof.ko", .targets = targets,
			.nr_targets = (size_t)nr_targets,
		};
		const char *name = st->opts.decided_type;

		/* Target indexes are never reused: the snapshots keep it. */
		st->goal.decided_target = view_target(&loaded,
						      "record --until decided",
						      &name);
		if (st->goal.decided_target < 0)
			return EXIT_USAGE;
		st->opts.decided_type = name;
	}

	uname(&uts);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	text = read_whole_file(sys_path(path, sizeof(path), "DPROF_PROCFS",
					"/proc", "sys/kernel/osrelease"), NULL);
	meta_add(&meta, &meta_len, "kernel", "%s",
		 text ? strtok(text, "\n") : uts.release);
	free(text);
	meta_add(&meta, &meta_len, "machine", "%s", uts.machine);
	meta_add(&meta, &meta_len, "hostname", "%s", uts.nodename);
	meta_add(&meta, &meta_len, "cpus_online", "%ld",
		 sysconf(_SC_NPROCESSORS_ONLN));
	meta_add(&meta, &meta_len, "recorded_at", "%s", stamp);
	meta_add(&meta, &meta_len, "dropped_at_start", "%llu",
		 (unsigned long long)st->lost_at_start);
	if (st->opts.label)
		meta_add(&meta, &meta_len, "label", "%s", st->opts.label);
	if (st->opts.command)
		meta_add(&meta, &meta_len, "command", "%s", st->opts.command[0]);

	len = sysinfo_caches(caches, 16);
	if (!len)
		fprintf(stderr, "%s: record: warning: no CPU cache description in sysfs; cache geometry will be missing\n",
			prog_name);
	rec_write_section(&st->out, DPROF_SEC_META, meta, meta_len);
	rec_write_section(&st->out, DPROF_SEC_TARGETS, targets,
			  nr_targets * sizeof(targets[0]));
	rec_write_section(&st->out, DPROF_SEC_CACHES, caches,
			  len * sizeof(caches[0]));
	free(meta);

	text = capture_file(st, DPROF_SEC_KALLSYMS, "DPROF_PROCFS", "/proc",
			    "kallsyms", "addresses will not be symbolised");
	if (text && !kallsyms_has_addresses(text))
		fprintf(stderr, "%s: record: warning: kallsyms shows zero addresses (not root, or kptr_restrict); symbols will be missing\n",
			prog_name);
	st->kallsyms = text;
	free(capture_file(st, DPROF_SEC_BTF, "DPROF_SYSFS", "/sys",
			  "kernel/btf/vmlinux",
			  "the kernel has no BTF; field names will be missing"));
	return st->out.failed ? EXIT_FAIL : 0;
}

static void note_trap_ip(struct record_state *st, uint32_t ip_lo)
{
	uint64_t ip = 0xffffffff00000000ull | ip_lo;

	/* Consecutive hits often share the ip: skip the obvious repeats. */
	if (!ip_lo || (st->nr_trap_ips && st->trap_ips[st->nr_trap_ips - 1] == ip))
		return;
	if (st->nr_trap_ips == st->cap_trap_ips) {
		st->cap_trap_ips = st->cap_trap_ips ? 2 * st->cap_trap_ips : 1024;
		st->trap_ips = xrealloc(st->trap_ips, st->cap_trap_ips *
					sizeof(*st->trap_ips));
	}
	st->trap_ips[st->nr_trap_ips++] = ip;
}

/* Counts records, and notes the ips of history elements. */
static uint64_t scan_records(struct record_state *st, const uint8_t *buf,
			     size_t len)
{
	uint64_t n = 0;
	size_t pos = 0;

	while (pos + sizeof(struct dprof_rec_hdr) <= len) {
		const struct dprof_rec_hdr *hdr = (const void *)(buf + pos);

		if (hdr->size < sizeof(*hdr))
			break;
		if (hdr->kind == DPROF_REC_HIST_ELEM &&
		    hdr->size == sizeof(struct dprof_hist_elem))
			note_trap_ip(st, ((const struct dprof_hist_elem *)
					  hdr)->ip_lo);
		else if (hdr->kind == DPROF_REC_HIST_END)
			st->histories++;
		pos += hdr->size;
		n++;
	}
	return n;
}

static int u64_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/*
 * History elements carry the ip after the access; map each to the
 * accessing instruction, and to the kind of access it makes, while this
 * machine's kernel text is at hand.
 */
static void write_ipmap(struct record_state *st, struct rec_writer *w,
			bool quiet)
{
	struct dprof_file_access_kind *kinds;
	struct dprof_file_ipmap *map;
	struct ksyms syms;
	char kcore[512];
	size_t n = 0;
	long mapped;

	if (!st->nr_trap_ips)
		return;
	qsort(st->trap_ips, st->nr_trap_ips, sizeof(uint64_t), u64_cmp);
	for (size_t i = 0; i < st->nr_trap_ips; i++)
		if (!n || st->trap_ips[i] != st->trap_ips[n - 1])
			st->trap_ips[n++] = st->trap_ips[i];
	st->nr_trap_ips = n;	/* a snapshot's map is made again later */
	map = xcalloc(n, sizeof(*map));
	kinds = xcalloc(n, sizeof(*kinds));
	ksyms_load(&syms, st->kallsyms);
	sys_path(kcore, sizeof(kcore), "DPROF_PROCFS", "/proc", "kcore");
	mapped = access_ip_map(kcore, &syms, st->trap_ips, n, map, kinds);
	if (quiet)
		;	/* the end's map says it */
	else if (mapped < 0)
		fprintf(stderr, "%s: record: warning: cannot read kernel text from %s (%s); history ips will be those after each access\n",
			prog_name, kcore, strerror(errno));
	else if ((size_t)mapped < n)
		fprintf(stderr, "%s: record: warning: %zu of %zu history ips could not be decoded; those stay the ip after the access\n",
			prog_name, n - (size_t)mapped, n);
	rec_write_section(w, DPROF_SEC_IPMAP, map, n * sizeof(*map));
	rec_write_section(w, DPROF_SEC_ACCESS_KINDS, kinds,
			  n * sizeof(*kinds));
	ksyms_free(&syms);
	free(kinds);
	free(map);
}

/* Read what the rings hold now; returns bytes read or -1. */
static ssize_t drain_once(struct record_state *st)
{
	ssize_t total = 0;

	for (;;) {
		ssize_t n = read(st->events_fd, st->chunk, DRAIN_CHUNK);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			errmsg("record: reading %s/events: %s", st->debugfs,
			       strerror(errno));
			return -1;
		}
		if (n == 0)
			return total;
		if (rec_write_section(&st->out, DPROF_SEC_EVENTS, st->chunk,
				      n)) {
			errmsg("record: writing %s: %s", st->opts.output,
			       strerror(errno));
			return -1;
		}
		st->records += scan_records(st, st->chunk, n);
		st->bytes += n;
		total += n;
	}
}

static int start_command(struct record_state *st)
{
	st->child = fork();
	if (st->child < 0) {
		errmsg("record: fork: %s", strerror(errno));
		return EXIT_FAIL;
	}
	if (st->child == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execvp(st->opts.command[0], st->opts.command);
		errmsg("record: cannot run '%s': %s", st->opts.command[0],
		       strerror(errno));
		_exit(127);
	}
	return 0;
}

static uint8_t *read_table(struct record_state *st, const char *name,
			   size_t entry, size_t *len);

/* The plans now: how many groups have --until's N complete histories. */
static void check_goal(struct record_state *st)
{
	struct goal_state *g = &st->goal;
	size_t len;
	uint8_t *buf = read_table(st, DPROF_FILE_PLANS,
				  sizeof(struct dprof_plan_item), &len);

	g->groups = len / sizeof(struct dprof_plan_item);
	g->groups_met = 0;
	g->fewest = UINT32_MAX;
	for (size_t i = 0; i < g->groups; i++) {
		const struct dprof_plan_item *e = (const void *)(buf + i *
					sizeof(struct dprof_plan_item));

		g->groups_met += e->complete >= st->opts.until_covered;
		if (e->complete < g->fewest)
			g->fewest = e->complete;
	}
	if (!g->groups)
		g->fewest = 0;
	g->met = g->groups && g->groups_met == g->groups;
	free(buf);
}

static void write_plans(struct record_state *st, struct rec_writer *w);

/*
 * --until decided: the labels classify would give now.  The file as
 * written so far is read back, and what an analysis needs of the end (the
 * targets and plans now, the ip map, an end section) is appended in
 * memory; then the recording is classified as the view does it.
 */
static void check_decided(struct record_state *st)
{
	static struct dprof_file_target targets[DPROF_MAX_TARGETS];
	struct goal_state *g = &st->goal;
	struct dprof_file_end end = { .records = st->records };
	struct rec_writer mem = { .offset = 0 };
	struct recording r;
	struct history_set hs;
	struct classify c;
	struct rec_error err;
	char *file, *buf = NULL;
	size_t file_len = 0, size = 0;
	int nr_targets;

	fflush(st->out.file);
	file = read_whole_file(st->opts.output, &file_len);
	mem.file = file ? open_memstream(&buf, &size) : NULL;
	if (!mem.file) {
		if (!g->snapshot_failed)
			fprintf(stderr, "%s: record: warning: cannot read back %s to classify it (%s); --until decided can only end by time, signal or workload\n",
				prog_name, st->opts.output, strerror(errno));
		g->snapshot_failed = true;
		free(file);
		return;
	}
	if (fwrite(file, file_len, 1, mem.file) != 1)
		mem.failed = true;
	free(file);
	nr_targets = read_targets(st, targets);
	if (nr_targets > 0)
		rec_write_section(&mem, DPROF_SEC_TARGETS, targets,
				  (size_t)nr_targets * sizeof(targets[0]));
	write_plans(st, &mem);
	write_ipmap(st, &mem, true);
	rec_write_section(&mem, DPROF_SEC_END, &end, sizeof(end));
	if (fclose(mem.file) || mem.failed ||
	    recording_parse(&r, (const uint8_t *)buf, size, &err)) {
		if (!g->snapshot_failed)
			fprintf(stderr, "%s: record: warning: the recording so far does not read back (%s); --until decided can only end by time, signal or workload\n",
				prog_name, mem.failed ? "out of memory" : err.msg);
		g->snapshot_failed = true;
		free(buf);
		return;
	}
	histories_build(&hs, &r);
	classify_build(&c, &hs);
	classify_cover(&c, r.plans, r.nr_plans);
	classify_count_labels(&c, g->decided_target, &g->decided,
			      &g->undecided);
	g->met = g->decided && !g->undecided;
	classify_free(&c);
	histories_free(&hs);
	recording_free(&r);
	free(buf);
}

/*
 * The workload after the recording: it was told to end (goal, time cap)
 * or it ended the recording; one that ignores SIGTERM gets SIGKILL after
 * COMMAND_GRACE_S, and a line says so, rather than a silent wait.
 */
static void reap_command(struct record_state *st)
{
	const struct timespec pause = { 0, POLL_INTERVAL_NS };
	double until = now_seconds() + COMMAND_GRACE_S;

	while (waitpid(st->child, &st->child_status, WNOHANG) == 0) {
		if (now_seconds() < until) {
			nanosleep(&pause, NULL);
			continue;
		}
		fprintf(stderr, "%s: record: warning: '%s' still runs %d s after the recording ended: sent SIGKILL\n",
			prog_name, st->opts.command[0], COMMAND_GRACE_S);
		kill(st->child, SIGKILL);
		waitpid(st->child, &st->child_status, 0);
		break;
	}
	st->child = 0;
}

static bool should_stop(struct record_state *st, double start)
{
	struct goal_state *g = &st->goal;
	double now = now_seconds();

	if (stop_requested) {
		g->ended_by = "signal";
		/* As perf record does: a workload still running is ended too. */
		if (st->child > 0) {
			kill(st->child, SIGTERM);
			st->child_told = true;
		}
		return true;
	}
	if (st->opts.duration > 0 && now - start >= st->opts.duration) {
		g->ended_by = "time cap";
		/* As perf stat's --timeout: the workload ends with the recording. */
		if (st->child > 0) {
			fprintf(stderr, "[ dprof-view record: %.1f s passed (-d); '%s' still runs: sent SIGTERM ]\n",
				st->opts.duration, st->opts.command[0]);
			kill(st->child, SIGTERM);
			st->child_told = true;
		}
		return true;
	}
	if (st->child > 0 &&
	    waitpid(st->child, &st->child_status, WNOHANG) == st->child) {
		st->child = 0;
		g->ended_by = "workload";
		return true;
	}
	if (st->opts.until_decided && now - g->last_check >= g->check_every) {
		check_decided(st);
		g->last_check = now_seconds();
		/* Checks grow with the recording: keep them to a fifth. */
		g->check_every = DECIDE_CHECK_SHARE * (g->last_check - now);
		if (g->check_every < DECIDE_CHECK_INTERVAL)
			g->check_every = DECIDE_CHECK_INTERVAL;
	} else if (st->opts.until_covered &&
		   now - g->last_check >= PLAN_CHECK_INTERVAL) {
		g->last_check = now;
		check_goal(st);
	}
	if ((st->opts.until_covered || st->opts.until_decided) && g->met) {
		g->ended_by = "goal";
		/* The workload has done what was asked of it. */
		if (st->child > 0) {
			kill(st->child, SIGTERM);
			st->child_told = true;
		}
		return true;
	}
	return false;
}

/* One line on how --until's goal went, and the same in the META section. */
static void report_goal(struct record_state *st, double elapsed)
{
	struct goal_state *g = &st->goal;
	unsigned long n = st->opts.until_covered;
	const char *type = st->opts.decided_type;

	if (st->opts.until_decided && g->met)
		fprintf(stderr, "[ dprof-view record: goal decided%s%s met in %.1f s: all %zu field and line labels of %s are decided%s ]\n",
			type ? "=" : "", type ?: "", elapsed, g->decided,
			type ?: "the types with a plan",
			g->ended_by && strcmp(g->ended_by, "goal") ?
			" (at the end)" : "");
	else if (st->opts.until_decided)
		fprintf(stderr, "%s: record: warning: the %s ended the recording before goal decided%s%s: %zu of %zu field and line labels decided%s\n",
			prog_name, g->ended_by ? g->ended_by : "end",
			type ? "=" : "", type ?: "", g->decided,
			g->decided + g->undecided,
			g->decided + g->undecided ? "; classify says what would decide the others" :
			" (no history plan: history=0, or no object of the type was watched yet)");
	if (!n)
		return;
	if (g->met)
		fprintf(stderr, "[ dprof-view record: goal covered=%lu met in %.1f s: every one of %zu groups of offsets has %lu complete histories or more%s ]\n",
			n, elapsed, g->groups, n,
			g->ended_by && strcmp(g->ended_by, "goal") ?
			" (at the end)" : "");
	else
		fprintf(stderr, "%s: record: warning: the %s ended the recording before goal covered=%lu: %zu of %zu groups of offsets have %lu complete histories, the poorest %u%s\n",
			prog_name, g->ended_by ? g->ended_by : "end", n,
			g->groups_met, g->groups, n, g->fewest,
			g->groups ? "" : " (no history plan: history=0, or no type was watched yet)");
}

/*
 * "\r[ recording 3.5 s: 12345 records (1.2 MiB), dropped 0, histories 5 ]",
 * rewritten in place; the drops are the module's since load.
 */
static void show_progress(struct record_state *st, double start, bool last)
{
	double now = now_seconds();

	if (!st->progress ||
	    (!last && now - st->last_progress < PROGRESS_INTERVAL))
		return;
	st->last_progress = now;
	fprintf(stderr, "\r[ recording %.1f s: %llu records (%.1f MiB), dropped %llu, histories %llu",
		now - start, (unsigned long long)st->records,
		st->bytes / 1048576.0, (unsigned long long)read_dropped(st),
		(unsigned long long)st->histories);
	if (st->opts.until_covered)
		fprintf(stderr, ", groups with %lu: %zu/%zu",
			st->opts.until_covered, st->goal.groups_met,
			st->goal.groups);
	if (st->opts.until_decided)
		fprintf(stderr, ", labels decided: %zu/%zu", st->goal.decided,
			st->goal.decided + st->goal.undecided);
	fprintf(stderr, " ]%s", last ? "\n" : "");
	fflush(stderr);
}

static int record_loop(struct record_state *st, double *elapsed)
{
	const struct timespec pause = { 0, POLL_INTERVAL_NS };
	double start = now_seconds();

	st->progress = st->opts.progress == PROGRESS_ON ||
		       (st->opts.progress == PROGRESS_AUTO && isatty(STDERR_FILENO));
	/* A goal's first check comes one interval in, not at once. */
	st->goal.last_check = start;
	st->goal.check_every = DECIDE_CHECK_INTERVAL;
	while (!should_stop(st, start)) {
		ssize_t n = drain_once(st);

		if (n < 0)
			return EXIT_FAIL;
		show_progress(st, start, false);
		if (n == 0)
			nanosleep(&pause, NULL);
	}
	/* Whatever the hooks produced up to now. */
	if (drain_once(st) < 0)
		return EXIT_FAIL;
	show_progress(st, start, true);
	*elapsed = now_seconds() - start;
	return 0;
}

/*
 * A binary debugfs table of @entry-byte entries, whole ones only, into a
 * buffer (NULL and *len 0 when the module has no such file).  Every read
 * offers 64 KiB, so that an entry always fits.
 */
static uint8_t *read_table(struct record_state *st, const char *name,
			   size_t entry, size_t *len)
{
	char path[600];
	uint8_t *buf = NULL;
	size_t cap = 0;
	ssize_t n;
	int fd;

	*len = 0;
	snprintf(path, sizeof(path), "%s/%s", st->debugfs, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;	/* a module without samplers */
	for (;;) {
		if (cap - *len < 65536) {
			cap = cap ? cap * 2 : 1 << 20;
			buf = xrealloc(buf, cap);
		}
		n = read(fd, buf + *len, 65536);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		*len += n;
	}
	if (n < 0)
		fprintf(stderr, "%s: record: warning: reading %s: %s; its table is incomplete\n",
			prog_name, path, strerror(errno));
	close(fd);
	*len -= *len % entry;
	return buf;
}

/*
 * The module's aggregated samples, in slab objects and outside them,
 * with the per-CPU offsets that name the latter; the trap ips of the
 * watch sampler join the ip map.
 */
static void write_samples(struct record_state *st)
{
	size_t len;
	uint8_t *buf = read_table(st, DPROF_FILE_SAMPLES,
				  sizeof(struct dprof_sample_agg), &len);

	for (size_t off = 0; off < len; off += sizeof(struct dprof_sample_agg)) {
		const struct dprof_sample_agg *e = (const void *)(buf + off);

		if ((e->flags & DPROF_AGG_WATCH_IP) && e->ip >> 32 == 0xffffffff)
			note_trap_ip(st, (uint32_t)e->ip);
	}
	if (buf)
		rec_write_section(&st->out, DPROF_SEC_SAMPLES, buf, len);
	free(buf);
	buf = read_table(st, DPROF_FILE_DATA_SAMPLES,
			 sizeof(struct dprof_data_agg), &len);
	if (len)
		rec_write_section(&st->out, DPROF_SEC_DATA_SAMPLES, buf, len);
	free(buf);
	buf = read_table(st, DPROF_FILE_PERCPU, sizeof(uint64_t), &len);
	if (len)
		rec_write_section(&st->out, DPROF_SEC_PERCPU, buf, len);
	free(buf);
}

/* The plans, so that views show the slots no history watched. */
static void write_plans(struct record_state *st, struct rec_writer *w)
{
	size_t len;
	uint8_t *buf = read_table(st, DPROF_FILE_PLANS,
				  sizeof(struct dprof_plan_item), &len);

	if (len)
		rec_write_section(w, DPROF_SEC_PLANS, buf, len);
	free(buf);
}

/*
 * The work and load the run was given or reported, in a second META
 * section: a workload knows its work only when it has finished.
 */
static int write_work_meta(struct record_state *st)
{
	char meta[512], *text = NULL;
	const char *work = st->opts.work;
	int len = 0;

	if (work && work[0] == '@') {
		text = read_whole_file(work + 1, NULL);
		if (!text || !is_number(strtok(text, " \t\n") ?: "")) {
			errmsg("record: --work %s: %s holds no number (%s); the recording has no work figure",
			       work, work + 1, text ? "malformed" : strerror(errno));
			free(text);
			return EXIT_FAIL;
		}
		work = text;
	}
	if (work)
		len += snprintf(meta + len, sizeof(meta) - len, "work=%s\n", work);
	if (st->opts.until_covered)
		len += snprintf(meta + len, sizeof(meta) - len,
				"until=covered=%lu\nuntil_met=%d\nended_by=%s\n",
				st->opts.until_covered, st->goal.met,
				st->goal.ended_by ? st->goal.ended_by : "end");
	else if (st->opts.until_decided)
		len += snprintf(meta + len, sizeof(meta) - len,
				"until=decided%s%s\nuntil_met=%d\nended_by=%s\nuntil_labels=%zu of %zu decided\n",
				st->opts.decided_type ? "=" : "",
				st->opts.decided_type ?: "", st->goal.met,
				st->goal.ended_by ? st->goal.ended_by : "end",
				st->goal.decided,
				st->goal.decided + st->goal.undecided);
	else if (st->goal.ended_by)
		len += snprintf(meta + len, sizeof(meta) - len,
				"ended_by=%s\n", st->goal.ended_by);
	if (st->opts.load)
		len += snprintf(meta + len, sizeof(meta) - len, "load=%s\n",
				st->opts.load);
	if (len)
		rec_write_section(&st->out, DPROF_SEC_META, meta, (uint64_t)len);
	free(text);
	return 0;
}

/* Whether the targets now differ from the first targets section. */
static bool targets_changed(const struct record_state *st,
			    const struct dprof_file_target *targets,
			    int nr_targets)
{
	if (nr_targets != (int)st->nr_targets)
		return nr_targets > (int)st->nr_targets;
	for (int i = 0; i < nr_targets; i++)
		if (targets[i].flags != st->target_flags[i])
			return true;
	return false;
}

/*
 * ops=: the functions' calls at the end, beside the samples they divide
 * (a module without the file, or loaded without ops=, has none).
 */
static void write_ops(struct record_state *st)
{
	char path[600];
	size_t len = 0;
	char *ops;

	snprintf(path, sizeof(path), "%s/%s", st->debugfs, DPROF_FILE_OPS);
	ops = read_whole_file(path, &len);
	if (ops && len && len % sizeof(struct dprof_op_count) == 0)
		rec_write_section(&st->out, DPROF_SEC_OPS, ops, len);
	else if (ops && len)
		errmsg("record: %s is %zu bytes, not whole entries of %zu: operations not recorded",
		       path, len, sizeof(struct dprof_op_count));
	free(ops);
}

static int finish(struct record_state *st, double elapsed)
{
	static struct dprof_file_target targets[DPROF_MAX_TARGETS];
	int nr_targets;
	struct dprof_file_end end = {
		.records = st->records,
		.lost = read_dropped(st),
		.duration_ns = (uint64_t)(elapsed * 1e9),
	};
	char *status = debugfs_file(st, DPROF_FILE_STATUS);
	char *histories = debugfs_file(st, DPROF_FILE_HISTORIES);
	char *profile = debugfs_file(st, DPROF_FILE_PROFILE);
	char path[600];
	size_t facts_len = 0;
	char *facts;
	int work_failed;

	/* The state the recording ends in, before its tail is written. */
	if (st->opts.until_decided && !st->goal.met)
		check_decided(st);
	if (status)
		rec_write_section(&st->out, DPROF_SEC_STATUS, status,
				  strlen(status));
	if (histories)
		rec_write_section(&st->out, DPROF_SEC_HISTORIES, histories,
				  strlen(histories));
	if (profile)
		rec_write_section(&st->out, DPROF_SEC_PROFILE, profile,
				  strlen(profile));
	free(status);
	free(histories);
	free(profile);
	/* The figures the views read, typed (the texts are for people). */
	snprintf(path, sizeof(path), "%s/%s", st->debugfs, DPROF_FILE_FACTS);
	facts = read_whole_file(path, &facts_len);
	if (facts && facts_len)
		rec_write_section(&st->out, DPROF_SEC_FACTS, facts, facts_len);
	else
		errmsg("record: cannot read %s (%s): the views will read the module's figures from its texts",
		       path, facts ? "empty" : strerror(errno));
	free(facts);
	write_ops(st);
	/*
	 * target=all adds the caches created while recording, and a cache
	 * destroyed while recording is flagged so: the last targets section
	 * (a superset, indexes never reused) is the one read.
	 */
	nr_targets = read_targets(st, targets);
	if (targets_changed(st, targets, nr_targets))
		rec_write_section(&st->out, DPROF_SEC_TARGETS, targets,
				  (size_t)nr_targets * sizeof(targets[0]));
	write_samples(st);
	write_plans(st, &st->out);
	write_ipmap(st, &st->out, false);
	if (st->opts.until_covered)
		check_goal(st);	/* the state the recording ends in */
	work_failed = write_work_meta(st);
	rec_write_section(&st->out, DPROF_SEC_END, &end, sizeof(end));
	if (rec_writer_close(&st->out)) {
		errmsg("record: writing %s failed: %s", st->opts.output,
		       strerror(errno));
		return EXIT_FAIL;
	}
	fprintf(stderr,
		"[ dprof-view record: %llu records (%.1f KiB) in %.2f s written to %s; module dropped %llu since load ]\n",
		(unsigned long long)st->records, st->bytes / 1024.0, elapsed,
		st->opts.output, (unsigned long long)end.lost);
	report_goal(st, elapsed);
	return work_failed;
}

/* Drain into the recording, the workload run, until the end. */
static int record_run(struct record_state *st)
{
	struct sigaction sa = { .sa_handler = on_signal };
	char path[600];
	double elapsed = 0;
	int ret;

	sys_path(st->debugfs, sizeof(st->debugfs), "DPROF_DEBUGFS",
		 "/sys/kernel/debug/dprof", NULL);
	ret = check_module(st);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/%s", st->debugfs, DPROF_FILE_EVENTS);
	st->events_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (st->events_fd < 0) {
		errmsg("record: cannot open %s: %s%s", path, strerror(errno),
		       errno == EBUSY ? " (another reader is draining it)" : "");
		return EXIT_FAIL;
	}
	st->lost_at_start = read_dropped(st);
	if (rec_writer_open(&st->out, st->opts.output)) {
		errmsg("record: cannot write %s: %s", st->opts.output,
		       strerror(errno));
		close(st->events_fd);
		return EXIT_FAIL;
	}
	st->chunk = xmalloc(DRAIN_CHUNK);
	ret = write_header_sections(st);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (!ret && st->opts.command)
		ret = start_command(st);
	if (!ret)
		ret = record_loop(st, &elapsed);
	if (st->child > 0)
		reap_command(st);
	if (!ret)
		ret = finish(st, elapsed);
	else
		rec_writer_close(&st->out);
	close(st->events_fd);
	free(st->chunk);
	free(st->kallsyms);
	free(st->trap_ips);
	if (!ret && st->opts.command && !st->child_told &&
	    WIFEXITED(st->child_status) && WEXITSTATUS(st->child_status)) {
		errmsg("record: '%s' exited with status %d",
		       st->opts.command[0], WEXITSTATUS(st->child_status));
		return EXIT_FAIL;
	}
	return ret;
}

/*
 * -e, -p, --module: dprof.ko loaded with target= the -e caches and the
 * -p parameters, completed as dprof-view load completes them.
 */
static int load_for_record(const struct record_opts *o)
{
	struct mod_params p = { .nr = 0 };
	char err[512], word[1024], *params;
	size_t len = 0;
	int ret = 0;

	if (loader_loaded()) {
		errmsg("record: dprof is loaded already, and -e, -p or --module load it; rmmod dprof, or record without them");
		return EXIT_FAIL;
	}
	if (o->nr_events) {
		len = (size_t)snprintf(word, sizeof(word), "target=");
		for (size_t i = 0; i < o->nr_events && len < sizeof(word); i++)
			len += (size_t)snprintf(word + len, sizeof(word) - len,
						"%s%s", i ? "," : "",
						o->events[i]);
		if (len >= sizeof(word) || modparams_add(&p, word, err,
							 sizeof(err))) {
			errmsg("record: -e: %s", len >= sizeof(word) ?
			       "the caches' names are too long" : err);
			ret = EXIT_USAGE;
		}
	}
	for (size_t i = 0; i < o->nr_params && !ret; i++)
		if (modparams_add(&p, o->params[i], err, sizeof(err))) {
			errmsg("record: -p %s: %s", o->params[i], err);
			ret = EXIT_USAGE;
		}
	if (!ret && !modparams_get(&p, "target")) {
		errmsg("record: -p or --module without a target: name the caches with -e CACHE (or -e all)");
		ret = EXIT_USAGE;
	}
	if (!ret)
		ret = loader_complete(&p, "record");
	if (!ret)
		ret = loader_load(o->module, &p, "record");
	if (!ret) {
		params = modparams_join(&p);
		fprintf(stderr, "[ dprof-view record: loaded %s: %s ]\n",
			o->module ? o->module : "dprof (modprobe)", params);
		free(params);
	}
	modparams_free(&p);
	return ret;
}

int cmd_record(int argc, char **argv)
{
	struct record_state st = { .events_fd = -1 };
	bool load = false;
	int ret;

	ret = parse_record_opts(argc, argv, &st.opts);
	if (ret)
		return ret;
	load = st.opts.nr_events || st.opts.nr_params || st.opts.module;
	if (load) {
		ret = load_for_record(&st.opts);
		if (ret)
			return ret;
	}
	ret = record_run(&st);
	if (load) {
		if (loader_unload("record"))
			ret = ret ? ret : EXIT_FAIL;
		else
			fprintf(stderr, "[ dprof-view record: unloaded dprof ]\n");
	}
	return ret;
}

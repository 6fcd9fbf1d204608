// SPDX-License-Identifier: GPL-2.0
/* Option tables to getopt_long and to --help (see options.h). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "options.h"
#include "util.h"
#include "view.h"

#define HELP_COLUMN 26		/* where help text starts */

static const struct opt input_set[] = {
	{ 'i', "input", "FILE", 0,
	  "what to read (default ./" VIEW_DEFAULT_RECORDING ", as record writes it)" },
	{ 'o', "output", "FILE", 0, "write there instead of stdout" },
	{ 'h', "help", NULL, 0, "this text" },
	OPT_END,
};

static const struct opt json_set[] = {
	{ 'j', "json", NULL, 0, "JSON instead of text" },
	OPT_END,
};

static const struct opt script_set[] = {
	{ 's', "script", NULL, 0, "one line per row, for scripts" },
	OPT_END,
};

static const struct opt wide_set[] = {
	{ 'v', "wide", NULL, 0,
	  "every column and note (the default fits 160 columns)" },
	OPT_END,
};

static const struct opt target_set[] = {
	{ 't', "target", "CACHE", 0, "only this cache" },
	OPT_END,
};

static const struct opt types_set[] = {
	{ 'T', "type", "CACHE=STRUCT", 0,
	  "name CACHE's objects as struct STRUCT (adds to the\n"
	  "built-in table: skbuff_head_cache = sk_buff, TCP =\n"
	  "tcp_sock, filp = file, ...)" },
	{ 'D', "debug", "FILE", 0,
	  "DWARF (a .ko, or a vmlinux with debug info) for\n"
	  "structs the recording's BTF lacks (module structs);\n"
	  "repeatable" },
	{ 'D', "vmlinux", "FILE", 0, "the same as --debug FILE" },
	{ 'D', "module-dir", "DIR", 0,
	  "every module (.ko, .ko.xz, ...) below DIR, as --debug" },
	OPT_END,
};

/* The sets @c takes, in the order help lists them (own options first). */
static size_t sets_of(const struct command_opts *c, const struct opt **sets)
{
	size_t n = 0;

	if (c->sets & OPTS_TARGET)
		sets[n++] = target_set;
	if (c->sets & OPTS_TYPES)
		sets[n++] = types_set;
	if (c->sets & OPTS_SCRIPT)
		sets[n++] = script_set;
	if (c->sets & OPTS_JSON)
		sets[n++] = json_set;
	if (c->sets & OPTS_WIDE)
		sets[n++] = wide_set;
	sets[n++] = input_set;
	return n;
}

/* Whether @o is an option of @c's: -o and -i may be left out. */
static bool offered(const struct command_opts *c, const struct opt *o)
{
	return !(o->key == 'o' && (c->sets & OPTS_NO_OUTPUT)) &&
	       !(o->key == 'i' && (c->sets & OPTS_NO_INPUT));
}

static const struct opt *own_option(const struct command_opts *c, int key,
				    const char *name)
{
	for (const struct opt *o = c->own; o && o->name; o++)
		if (o->key == key && !strcmp(o->name, name))
			return o;
	return NULL;
}

/* @alias: another name of the option before it, shown without its letter. */
static void help_line(FILE *out, const struct opt *o, bool alias)
{
	char head[64];
	const char *h = o->help ? o->help : "";
	int n;

	if (o->key < OPT_LONG && !alias)
		n = snprintf(head, sizeof(head), "  -%c, --%s", o->key, o->name);
	else
		n = snprintf(head, sizeof(head), "      --%s", o->name);
	if (o->arg)
		snprintf(head + n, sizeof(head) - n, o->optional ? "[=%s]" : " %s",
			 o->arg);
	fputs(head, out);
	if (strlen(head) + 1 >= HELP_COLUMN)
		fprintf(out, "\n%*s", HELP_COLUMN, "");
	else
		fprintf(out, "%*s", (int)(HELP_COLUMN - strlen(head)), "");
	for (; *h; h++) {
		fputc(*h, out);
		if (*h == '\n')
			fprintf(out, "%*s", HELP_COLUMN, "");
	}
	fputc('\n', out);
}

void opts_help(const struct command_opts *c, FILE *out)
{
	const struct opt *sets[8];
	size_t n = sets_of(c, sets);

	fputs(c->synopsis, out);
	fputc('\n', out);
	for (const struct opt *o = c->own; o && o->name; o++)
		help_line(out, o, o != c->own && o[-1].key == o->key);
	for (size_t s = 0; s < n; s++)
		for (const struct opt *o = sets[s]; o->name; o++)
			if (offered(c, o) && !own_option(c, o->key, o->name))
				help_line(out, o, o != sets[s] &&
					  o[-1].key == o->key);
	if (c->epilogue) {
		fputc('\n', out);
		fputs(c->epilogue, out);
	}
	if (c->more_help) {
		fputc('\n', out);
		c->more_help(out);
	}
}

/* getopt_long's tables from the command's options and its sets. */
static void build_getopt(const struct command_opts *c, struct option **lo,
			 char *shorts, size_t len)
{
	const struct opt *sets[8];
	size_t n = sets_of(c, sets), count = 0, k = 0, used = 0;

	for (const struct opt *o = c->own; o && o->name; o++)
		count++;
	for (size_t s = 0; s < n; s++)
		for (const struct opt *o = sets[s]; o->name; o++)
			count++;
	*lo = xcalloc(count + 1, sizeof(**lo));
	if (c->sets & OPTS_COMMAND)
		shorts[used++] = '+';	/* the command's own options stay its */
	shorts[used++] = ':';	/* a missing argument is reported as ':' */
	for (size_t s = 0; s <= n; s++) {
		const struct opt *list = s ? sets[s - 1] : c->own;

		for (const struct opt *o = list; o && o->name; o++) {
			bool seen = false;

			if (!offered(c, o))
				continue;
			for (size_t i = 0; i < k; i++)
				seen |= !strcmp((*lo)[i].name, o->name);
			if (seen)
				continue;	/* an own option's help only */
			(*lo)[k].name = o->name;
			(*lo)[k].has_arg = !o->arg ? no_argument :
					   o->optional ? optional_argument :
					   required_argument;
			(*lo)[k++].val = o->key;
			if (o->key >= OPT_LONG || memchr(shorts, o->key, used) ||
			    used + 4 >= len)
				continue;
			shorts[used++] = (char)o->key;
			if (o->arg)
				shorts[used++] = ':';
			if (o->arg && o->optional)
				shorts[used++] = ':';
		}
	}
	shorts[used] = '\0';
}

/* A common option; 1 when @key is none of @c's sets'. */
static int common_option(const struct command_opts *c, struct view_args *a,
			 int key, const char *arg)
{
	switch (key) {
	case 'i':
		a->view.input = arg;
		return 0;
	case 'o':
		a->view.output = arg;
		return 0;
	case 'h':
		opts_help(c, stdout);
		exit(EXIT_OK);
	case 'j':
		if (!(c->sets & OPTS_JSON))
			return 1;
		a->view.json = 1;
		return 0;
	case 's':
		if (!(c->sets & OPTS_SCRIPT))
			return 1;
		a->view.script = 1;
		return 0;
	case 'v':
		if (!(c->sets & OPTS_WIDE))
			return 1;
		a->view.wide = 1;
		return 0;
	case 't':
		if (!(c->sets & OPTS_TARGET))
			return 1;
		a->target = arg;
		return 0;
	case 'T':
		if (!(c->sets & OPTS_TYPES))
			return 1;
		if (type_map_add(&a->map, arg)) {
			errmsg("%s: --type %s: expected CACHE=STRUCT", c->cmd,
			       arg);
			return EXIT_USAGE;
		}
		return 0;
	case 'D':
		if (!(c->sets & OPTS_TYPES))
			return 1;
		type_map_add_debug(&a->map, arg);
		return 0;
	default:
		return 1;
	}
}

int opts_parse(const struct command_opts *c, void *ctx, int argc,
	       char **argv, struct view_args *a, int *operand)
{
	struct option *lo;
	char shorts[128];
	int key, ret = 0;
	bool show_help = false;

	memset(a, 0, sizeof(*a));
	build_getopt(c, &lo, shorts, sizeof(shorts));
	optind = 0;	/* 0: glibc re-reads the optstring's "+" too */
	opterr = 0;	/* one line of ours instead of getopt's */
	while (!ret && (key = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		if (key == '?' || key == ':') {
			const char *what = argv[optind - 1];

			if (key == ':')
				errmsg("%s: %s needs an argument", c->cmd, what);
			else
				errmsg("%s: unknown option %s", c->cmd, what);
			ret = EXIT_USAGE;
			show_help = true;
			break;
		}
		ret = common_option(c, a, key, optarg);
		if (ret == 1)
			ret = c->handle ? c->handle(ctx, key, optarg) :
			      EXIT_USAGE;
	}
	free(lo);
	if (!ret && a->view.json && a->view.script) {
		errmsg("%s: --json and --script exclude each other", c->cmd);
		ret = EXIT_USAGE;
	}
	if (ret) {
		if (show_help) {
			fputc('\n', stderr);
			opts_help(c, stderr);
		}
		return ret;
	}
	*operand = optind;
	return 0;
}

int opts_count(const char *cmd, const char *name, const char *arg, long min,
	       long *n)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (end == arg || *end || v < min) {
		errmsg("%s: --%s %s: expected a whole number of at least %ld",
		       cmd, name, arg, min);
		return EXIT_USAGE;
	}
	*n = v;
	return 0;
}

int opts_parse_view(const struct command_opts *c, void *ctx, int argc,
		    char **argv, struct view_args *a)
{
	int first, ret = opts_parse(c, ctx, argc, argv, a, &first);

	if (!ret)
		ret = view_input(&a->view, argc - first, argv + first, c->cmd);
	return ret;
}

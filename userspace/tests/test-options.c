// SPDX-License-Identifier: GPL-2.0
/*
 * opts_parse(): common sets and a command's own options from one table;
 * aliases, optional arguments, operands, and the errors a user makes.
 */
#include <stdlib.h>
#include "harness.h"
#include "options.h"
#include "util.h"

struct test_ctx {
	int flag;
	const char *opt_arg;
	int opt_seen;
};

enum { OPT_MAYBE = OPT_LONG };

static const struct opt test_own[] = {
	{ 'x', "flag", NULL, 0, "a flag" },
	{ OPT_MAYBE, "maybe", "V", 1, "an optional argument" },
	{ 's', "script", NULL, 0, "own help for a common option" },
	OPT_END,
};

static int test_option(void *ctx, int key, const char *arg)
{
	struct test_ctx *t = ctx;

	if (key == 'x') {
		t->flag++;
	} else if (key == OPT_MAYBE) {
		t->opt_seen++;
		t->opt_arg = arg;
	} else {
		return EXIT_USAGE;
	}
	return 0;
}

static int run(unsigned int sets, struct test_ctx *t, struct view_args *a,
	       int *first, int argc, const char **argv)
{
	struct command_opts c = {
		.cmd = "test", .synopsis = "usage: test\n", .sets = sets,
		.own = test_own, .handle = test_option,
	};

	memset(t, 0, sizeof(*t));
	return opts_parse(&c, t, argc, (char **)argv, a, first);
}

static void test_options(void)
{
	const unsigned int all = OPTS_JSON | OPTS_SCRIPT | OPTS_TARGET |
				 OPTS_TYPES;
	const char *ok[] = { "test", "-x", "--flag", "-t", "skbuff", "-s",
			     "--maybe", "--maybe=7", "-T", "a=b", "--vmlinux",
			     "/v", "-o", "out", "rec", NULL };
	const char *both[] = { "test", "-j", "-s", NULL };
	const char *unknown[] = { "test", "--nope", NULL };
	const char *missing[] = { "test", "-t", NULL };
	const char *no_set[] = { "test", "-j", NULL };
	const char *no_out[] = { "test", "-o", "x", NULL };
	const char *cmd[] = { "test", "-x", "run", "-x", NULL };
	struct view_args a;
	struct test_ctx t;
	int first = 0;

	CHECK_EQ_U64(run(all, &t, &a, &first, 15, ok), 0);
	CHECK_EQ_U64(t.flag, 2);
	CHECK_EQ_U64(t.opt_seen, 2);
	CHECK(t.opt_arg && !strcmp(t.opt_arg, "7"));
	CHECK(a.target && !strcmp(a.target, "skbuff"));
	CHECK_EQ_U64(a.view.script, 1);
	CHECK(a.view.output && !strcmp(a.view.output, "out"));
	CHECK_EQ_U64(a.map.nr_debug, 1);
	CHECK_EQ_U64(first, 14);
	type_map_free(&a.map);

	CHECK_EQ_U64(run(all, &t, &a, &first, 3, both), EXIT_USAGE);
	CHECK_EQ_U64(run(all, &t, &a, &first, 2, unknown), EXIT_USAGE);
	CHECK_EQ_U64(run(all, &t, &a, &first, 2, missing), EXIT_USAGE);
	/* An option of a set the command does not take is unknown. */
	CHECK_EQ_U64(run(OPTS_SCRIPT, &t, &a, &first, 2, no_set), EXIT_USAGE);
	CHECK_EQ_U64(run(OPTS_NO_OUTPUT, &t, &a, &first, 3, no_out),
		     EXIT_USAGE);
	/* A command's arguments are its own after the first operand. */
	CHECK_EQ_U64(run(OPTS_COMMAND, &t, &a, &first, 4, cmd), 0);
	CHECK_EQ_U64(t.flag, 1);
	CHECK_EQ_U64(first, 2);
}

const struct unit_test options_tests[] = {
	{ "options: sets, own options, aliases, errors", test_options },
	{ NULL, NULL },
};

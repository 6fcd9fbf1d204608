// SPDX-License-Identifier: GPL-2.0
/*
 * The parameters dprof-view load gives dprof.ko: names resolved from a
 * kallsyms text shaped like the 6.1 guest's (per-CPU symbols as offsets,
 * jiffies and jiffies_64 at one address, a module's bss with its name in
 * brackets, a name in two modules), and the PMU facts of sysfs.
 */
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "modparams.h"

static const char kallsyms[] =
	"0000000000000000 A fixed_percpu_data\n"
	"0000000000031c40 A runqueues\n"
	"ffffffff81001000 T vfs_read\n"
	"ffffffffb6e079c0 D jiffies_64\n"
	"ffffffffb6e079c0 D jiffies\n"
	"ffffffffb6e079c8 d next_variable\n"
	"ffffffffc0456440 b dprof_sharing_global\t[dprof_sharing]\n"
	"ffffffffc0456480 b twice\t[mod_a]\n"
	"ffffffffc0457480 b twice\t[mod_b]\n";

static int resolve(const char *spec, char *out, size_t len, char *err)
{
	struct mod_params p = { .nr = 0 };
	char word[256];
	int ret;

	snprintf(word, sizeof(word), "watch_symbols=%s", spec);
	CHECK(!modparams_add(&p, "target=skbuff", err, 256));
	CHECK(!modparams_add(&p, word, err, 256));
	ret = modparams_resolve_symbols(&p, kallsyms, err, 256);
	snprintf(out, len, "%s", ret ? "" : modparams_get(&p, "watch_symbols"));
	CHECK(!strcmp(modparams_get(&p, "target"), "skbuff"));
	modparams_free(&p);
	return ret;
}

static void test_symbols_resolved(void)
{
	char out[512], err[256];

	CHECK(!resolve("jiffies", out, sizeof(out), err));
	CHECK(!strcmp(out, "jiffies@0xffffffffb6e079c0"));
	CHECK(!resolve("dprof_sharing:dprof_sharing_global/128", out,
		       sizeof(out), err));
	CHECK(!strcmp(out, "dprof_sharing:dprof_sharing_global@0xffffffffc0456440/128"));
	CHECK(!resolve("next_variable,mod_b:twice", out, sizeof(out), err));
	CHECK(!strcmp(out, "next_variable@0xffffffffb6e079c8,mod_b:twice@0xffffffffc0457480"));
	/* Given with its address: kept as it is, the module checks it. */
	CHECK(!resolve("x@0x1234", out, sizeof(out), err));
	CHECK(!strcmp(out, "x@0x1234"));
}

static void test_symbols_refused(void)
{
	char out[512], err[256];

	CHECK(resolve("no_such", out, sizeof(out), err));
	CHECK_STR_CONTAINS(err, "watch_symbols=no_such: no such symbol");
	CHECK(resolve("vfs_read", out, sizeof(out), err));
	CHECK_STR_CONTAINS(err, "type 'T', not a variable");
	CHECK(resolve("runqueues", out, sizeof(out), err));
	CHECK_STR_CONTAINS(err, "a per-CPU variable");
	CHECK(resolve("twice", out, sizeof(out), err));
	CHECK_STR_CONTAINS(err, "2 symbols have this name; give the module as module:twice");
	CHECK(resolve("jiffies,,next_variable", out, sizeof(out), err));
	CHECK_STR_CONTAINS(err, "an empty name");
}

static void test_symbols_hidden(void)
{
	struct mod_params p = { .nr = 0 };
	char err[256];

	CHECK(!modparams_add(&p, "watch_symbols=jiffies", err, sizeof(err)));
	CHECK(modparams_resolve_symbols(&p, "0000000000000000 D jiffies\n",
					err, sizeof(err)));
	CHECK_STR_CONTAINS(err, "kptr_restrict");
	CHECK(modparams_resolve_symbols(&p, NULL, err, sizeof(err)));
	CHECK_STR_CONTAINS(err, "could not be read");
	modparams_free(&p);
}

static void test_params_and_pmu(void)
{
	struct mod_params p = { .nr = 0 };
	struct pmu_facts f = { "11\n", "event=0xcd,umask=0x1,ldlat=3\n", NULL };
	char err[256], *s;

	CHECK(modparams_add(&p, "bad name=1", err, sizeof(err)));
	CHECK(modparams_add(&p, "=1", err, sizeof(err)));
	CHECK(!modparams_add(&p, "sampler=auto", err, sizeof(err)));
	CHECK(!modparams_add(&p, "pmu_ibs_type=12", err, sizeof(err)));
	CHECK(!modparams_add(&p, "scan", err, sizeof(err)));
	CHECK(!strcmp(modparams_get(&p, "scan"), "Y"));
	modparams_add_pmu(&p, &f);
	s = modparams_join(&p);
	/* Given stays given; what sysfs says is added, its newline cut. */
	CHECK(!strcmp(s, "sampler=auto pmu_ibs_type=12 scan pmu_pebs_loads=event=0xcd,umask=0x1,ldlat=3"));
	free(s);
	CHECK(!modparams_add(&p, "sampler=watch", err, sizeof(err)));
	CHECK(!strcmp(modparams_get(&p, "sampler"), "watch"));
	modparams_free(&p);
}

const struct unit_test modparams_tests[] = {
	{ "modparams_symbols_resolved", test_symbols_resolved },
	{ "modparams_symbols_refused", test_symbols_refused },
	{ "modparams_symbols_hidden", test_symbols_hidden },
	{ "modparams_and_pmu", test_params_and_pmu },
	{ NULL, NULL },
};

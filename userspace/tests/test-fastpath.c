// SPDX-License-Identifier: GPL-2.0
/*
 * A long-lived type's samples split by hot path from their call chains,
 * and advise by hot path.  Chains as the module writes them
 * (DPROF_SAMPLE_CHAIN: return addresses after the 40 bytes, innermost
 * first), symbols from a kallsyms of made-up addresses: a send
 * (__x64_sys_sendto -> tcp_sendmsg -> tcp_write_xmit) and a receive run
 * inside it on local_bh_enable() (-> __do_softirq -> net_rx_action ->
 * tcp_v4_rcv -> tcp_ack), as on loopback.  The rules tx=tcp_sendmsg,
 * rx=tcp_v4_rcv put the nested receive on rx (the innermost wins); by
 * entry it is net_rx_action's (the innermost kernel entry).
 */
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "fixture.h"
#include "advise.h"
#include "fastpath.h"
#include "advise-header.h"

static const char kallsyms[] =
	"ffffffff81001000 T do_syscall_64\n"
	"ffffffff81002000 T __x64_sys_sendto\n"
	"ffffffff81003000 T tcp_sendmsg\n"
	"ffffffff81004000 T tcp_write_xmit\n"
	"ffffffff81005000 T __do_softirq\n"
	"ffffffff81006000 T net_rx_action\n"
	"ffffffff81007000 T tcp_v4_rcv\n"
	"ffffffff81008000 T tcp_ack\n"
	"ffffffff81009000 T _etext\n";

#define F(k) (0xffffffff81000000ull + (k) * 0x1000 + 0x10)

static const uint64_t send_chain[] = { F(3), F(2), F(1) };
static const uint64_t recv_chain[] = {
	F(7), F(6), F(5), F(4), F(3), F(2), F(1),
};

static void chained(struct fixture *f, uint16_t off, bool store, uint64_t ip,
		    const uint64_t *chain, size_t n)
{
	uint8_t buf[sizeof(struct dprof_sample_rec) + 8 * DPROF_CHAIN_MAX];
	struct dprof_sample_rec s = {
		.hdr = { .kind = DPROF_REC_SAMPLE,
			 .size = sizeof(s) + n * sizeof(uint64_t),
			 .flags = (store ? DPROF_SAMPLE_STORE :
				   DPROF_SAMPLE_LOAD) | DPROF_SAMPLE_CHAIN },
		.time_ns = 10, .ip = ip, .offset = off,
		.src = DPROF_SRC_UNKNOWN,
	};

	memcpy(buf, &s, sizeof(s));
	memcpy(buf + sizeof(s), chain, n * sizeof(uint64_t));
	fixture_raw(f, buf, s.hdr.size);
}

/*
 * tx reads a (64) and writes w (192); rx reads r (0) and a; both write
 * l (128); the target's objects are 200 bytes (fixture.c).
 */
static void record_with(struct fixture *f, struct recording *r,
			const struct dprof_op_count *ops, size_t nops)
{
	struct rec_error err;
	struct fixture_section sec[2] = {
		{ DPROF_SEC_KALLSYMS, kallsyms, sizeof(kallsyms) - 1 },
		{ DPROF_SEC_OPS, ops, nops * sizeof(*ops) },
	};

	fixture_begin(f, 1);
	/* 80 loads: the 95 % interval of 0 stores in 80 is under 5 %. */
	for (int i = 0; i < 80; i++) {
		chained(f, 64, false, F(4), send_chain, 3);
		chained(f, 192, true, F(4), send_chain, 3);
		chained(f, 128, true, F(4), send_chain, 3);
		chained(f, 0, false, F(8), recv_chain, 7);
		chained(f, 64, false, F(8), recv_chain, 7);
		chained(f, 128, true, F(8), recv_chain, 7);
	}
	/* One load of w on rx: under --min-samples 3, no use. */
	chained(f, 192, false, F(8), recv_chain, 7);
	/* u: 9 loads and a store on tx, a share whose interval straddles 5 %. */
	for (int i = 0; i < 9; i++)
		chained(f, 8, false, F(4), send_chain, 3);
	chained(f, 8, true, F(4), send_chain, 3);
	fixture_end_sections(f, sec, nops ? 2 : 1);
	CHECK(recording_parse(r, f->buf, f->len, &err) == 0);
}

static void record(struct fixture *f, struct recording *r)
{
	record_with(f, r, NULL, 0);
}

static void demo_layout(struct layout *l)
{
	size_t cap = 0;

	memset(l, 0, sizeof(*l));
	layout_add_field(l, &cap, "r", 1, 0, 8, 0, 0, 0);
	layout_add_field(l, &cap, "u", 1, 8, 8, 0, 0, 0);
	layout_add_field(l, &cap, "cold1", 1, 16, 48, 8, 0, 0);
	layout_add_field(l, &cap, "a", 1, 64, 8, 0, 0, 0);
	layout_add_field(l, &cap, "cold2", 1, 72, 56, 8, 0, 0);
	layout_add_field(l, &cap, "l", 1, 128, 8, 0, 0, 0);
	layout_add_field(l, &cap, "cold3", 1, 136, 56, 8, 0, 0);
	layout_add_field(l, &cap, "w", 1, 192, 8, 0, 0, 0);
	layout_add_field(l, &cap, "cold4", 1, 200, 184, 8, 0, 0);
	layout_finish(l, "struct", "demo", 384);
}

static const struct advise_unit *unit(const struct advise *a, const char *n)
{
	for (size_t i = 0; i < a->nu; i++)
		if (!strcmp(a->u[i].name, n))
			return &a->u[i];
	return NULL;
}

static void test_paths_by_rule(void)
{
	struct fastpath_rule rules[2];
	const struct advise_unit *u;
	struct fastpath fp;
	struct recording r;
	struct fixture f;
	struct ksyms syms;
	struct layout l;
	struct advise a;
	unsigned int before, after;
	char err[256];

	record(&f, &r);
	ksyms_load(&syms, r.kallsyms);
	CHECK(!fastpath_rule_parse(&rules[0], "tx=tcp_sendmsg", err, sizeof(err)));
	CHECK(!fastpath_rule_parse(&rules[1], "rx=tcp_v4_rcv,tcp_rcv_established",
				   err, sizeof(err)));
	CHECK_EQ_U64(rules[1].nfuncs, 2);
	fastpath_build(&fp, &r, 0, &syms, rules, 2);
	CHECK_EQ_U64(fp.chained, 491);
	CHECK_EQ_U64(fp.npaths, 2);
	CHECK(!strcmp(fp.names[0], "tx") && !strcmp(fp.names[1], "rx"));
	CHECK_EQ_U64(fp.path_samples[0], 250);
	CHECK_EQ_U64(fp.path_samples[1], 241);
	CHECK_EQ_U64(fp.path_samples[2], 0);

	demo_layout(&l);
	CHECK(!advise_build_paths(&a, &l, &fp, 64, 3, NULL, err, sizeof(err)));
	u = unit(&a, "r");
	CHECK(u && u->access[0] == ADVISE_ACC_NONE && u->access[1] == ADVISE_ACC_READ);
	u = unit(&a, "a");
	CHECK(u && u->access[0] == ADVISE_ACC_READ && u->access[1] == ADVISE_ACC_READ);
	u = unit(&a, "l");
	CHECK(u && u->access[0] == ADVISE_ACC_WRITE && u->access[1] == ADVISE_ACC_WRITE);
	u = unit(&a, "w");	/* 1 rx sample: under --min-samples */
	CHECK(u && u->access[0] == ADVISE_ACC_WRITE && u->access[1] == ADVISE_ACC_NONE);
	CHECK(u && !strcmp(u->path_funcs[0], "tcp_write_xmit"));
	u = unit(&a, "u");	/* 1 store in 10: Wilson [1.8 %, 40 %] */
	CHECK(u && u->access[0] == ADVISE_ACC_WRITE_UNSURE);
	CHECK(unit(&a, "cold1")->path_group == -1);
	/* read_txrx {a}, read_rx {r}, write_tx {w, u}, write_txrx {l} */
	CHECK_EQ_U64(a.ngroups, 4);
	CHECK(!strcmp(a.group_names[0], "demo_read_txrx"));
	CHECK(!strcmp(a.group_names[1], "demo_read_rx"));
	CHECK(!strcmp(a.group_names[2], "demo_write_tx"));
	CHECK(!strcmp(a.group_names[3], "demo_write_txrx"));
	CHECK(unit(&a, "a")->path_group == 0 && unit(&a, "u")->path_group == 2);
	/* Five hot units of 8 bytes: one line, the struct's size kept. */
	CHECK_EQ_U64(a.new_size, 384);
	advise_path_lines(&a, 0, 64, &before, &after);	/* tx: a, l, w, u */
	CHECK_EQ_U64(before, 4);
	CHECK_EQ_U64(after, 1);
	advise_path_lines(&a, 1, 64, &before, &after);	/* rx: r, a, l */
	CHECK_EQ_U64(before, 3);
	CHECK_EQ_U64(after, 1);
	advise_free(&a);
	layout_free(&l);
	fastpath_free(&fp);
	fastpath_rule_free(&rules[0]);
	fastpath_rule_free(&rules[1]);
	ksyms_free(&syms);
	recording_free(&r);
	fixture_free(&f);
}

static void test_paths_by_entry(void)
{
	struct fastpath fp;
	struct recording r;
	struct fixture f;
	struct ksyms syms;

	record(&f, &r);
	ksyms_load(&syms, r.kallsyms);
	fastpath_build(&fp, &r, 0, &syms, NULL, 0);
	CHECK_EQ_U64(fp.npaths, 2);
	CHECK(!strcmp(fp.names[0], "__x64_sys_sendto"));
	CHECK(!strcmp(fp.names[1], "net_rx_action"));
	CHECK_EQ_U64(fp.path_samples[0], 250);
	CHECK_EQ_U64(fp.no_entry, 0);
	fastpath_free(&fp);
	ksyms_free(&syms);
	recording_free(&r);
	fixture_free(&f);
}

/* The fixture recorded and split by rules, with demo_layout()'s struct. */
struct demo_run {
	struct fixture f;
	struct recording r;
	struct ksyms syms;
	struct fastpath_rule rules[2];
	size_t nrules;
	struct fastpath fp;
	struct layout l;
};

static void demo_begin(struct demo_run *d, const char *tx, const char *rx)
{
	char err[256];

	record(&d->f, &d->r);
	ksyms_load(&d->syms, d->r.kallsyms);
	d->nrules = 0;
	CHECK(!fastpath_rule_parse(&d->rules[d->nrules++], tx, err,
				   sizeof(err)));
	if (rx)
		CHECK(!fastpath_rule_parse(&d->rules[d->nrules++], rx, err,
					   sizeof(err)));
	fastpath_build(&d->fp, &d->r, 0, &d->syms, d->rules, d->nrules);
	demo_layout(&d->l);
}

static void demo_end(struct demo_run *d)
{
	layout_free(&d->l);
	fastpath_free(&d->fp);
	for (size_t i = 0; i < d->nrules; i++)
		fastpath_rule_free(&d->rules[i]);
	ksyms_free(&d->syms);
	recording_free(&d->r);
	fixture_free(&d->f);
}

/*
 * The lines' intervals: with every unit well above --min-samples the
 * bootstrap gives the count itself; with --min-samples 10, u's 10
 * samples fall under it in about half the draws, and tx's line 0 (u is
 * the only tx member there) with it: today [3, 4].
 */
static void test_lines_interval(void)
{
	unsigned int b[2], f[2];
	struct demo_run d;
	struct advise a;
	char err[256];

	demo_begin(&d, "tx=tcp_sendmsg", "rx=tcp_v4_rcv");
	CHECK(!advise_build_paths(&a, &d.l, &d.fp, 64, 3, NULL, err, sizeof(err)));
	advise_path_lines_interval(&a, 0, 64, NULL, b, f);
	CHECK(b[0] == 4 && b[1] == 4 && f[0] == 1 && f[1] == 1);
	advise_free(&a);
	CHECK(!advise_build_paths(&a, &d.l, &d.fp, 64, 10, NULL, err, sizeof(err)));
	advise_path_lines_interval(&a, 0, 64, NULL, b, f);
	CHECK_EQ_U64(b[0], 3);
	CHECK_EQ_U64(b[1], 4);
	advise_free(&a);
	demo_end(&d);
}

/*
 * Another build replayed field by field: a, l and w moved to the first
 * line, r to the third, u gone (its 10 tx samples left out).  With the
 * tx rule alone the receive chains, nested in tcp_sendmsg, are tx too:
 * tx touches r, u, a, l and w, 4 lines today, 2 there.
 */
static void test_field_map(void)
{
	struct demo_run d;
	struct layout other;
	struct advise a;
	unsigned int before, after, bi[2], ai[2];
	uint64_t gone_samples;
	size_t gone_fields, cap = 0;
	const char *gone_names[ADVISE_GONE_NAMES];
	int64_t *map;
	char err[256];

	demo_begin(&d, "tx=tcp_sendmsg", NULL);
	memset(&other, 0, sizeof(other));
	layout_add_field(&other, &cap, "a", 1, 0, 8, 0, 0, 0);
	layout_add_field(&other, &cap, "l", 1, 8, 8, 0, 0, 0);
	layout_add_field(&other, &cap, "w", 1, 16, 8, 0, 0, 0);
	layout_add_field(&other, &cap, "cold1", 1, 24, 104, 8, 0, 0);
	layout_add_field(&other, &cap, "r", 1, 128, 8, 0, 0, 0);
	layout_finish(&other, "struct", "demo", 384);
	CHECK(!advise_build_paths(&a, &d.l, &d.fp, 64, 3, NULL, err, sizeof(err)));
	map = advise_field_map(&a, &d.l, &other, &gone_samples, &gone_fields,
			       gone_names);
	CHECK_EQ_U64(gone_fields, 1);
	CHECK(gone_names[0] && !strcmp(gone_names[0], "u") && !gone_names[1]);
	CHECK_EQ_U64(gone_samples, 10);
	for (size_t i = 0; i < d.fp.nhits; i++) {
		uint16_t off = d.fp.hits[i].offset;

		if (off == 64)
			CHECK(map[i] == 0);
		else if (off == 192)
			CHECK(map[i] == 16);
		else if (off == 0)
			CHECK(map[i] == 128);
		else if (off == 8)
			CHECK(map[i] == -1);
	}
	advise_path_lines_mapped(&a, 0, 64, map, &before, &after);
	CHECK_EQ_U64(before, 4);
	CHECK_EQ_U64(after, 2);
	advise_path_lines_interval(&a, 0, 64, map, bi, ai);
	CHECK(bi[0] == 4 && bi[1] == 4 && ai[0] == 2 && ai[1] == 2);
	free(map);
	advise_free(&a);
	layout_free(&other);
	demo_end(&d);
}

/* demo_layout()'s struct as a header writes it: comments, #if, a union. */
static const char demo_header[] =
	"#include <linux/types.h>\n"
	"\n"
	"struct demo {\n"
	"\tu64\tr;\t/* read on receive */\n"
	"\tu64\tu;\n"
	"\t/* cold data,\n"
	"\t * two lines of comment\n"
	"\t */\n"
	"\tchar\tcold1[48];\n"
	"\tu64\ta;\t/* read on both,\n"
	"\t\t\t * a comment that runs on */\n"
	"#ifdef CONFIG_DEMO\n"
	"\tchar\tcold2[56];\n"
	"#endif\n"
	"\tu64\tl;\n"
	"\tchar\tcold3[56];\n"
	"\tu64\tw;\n"
	"\tunion {\n"
	"\t\tchar\tcold4[184];\n"
	"\t};\n"
	"};\n";

/* @old with unified diff @patch applied; NULL where it does not apply. */
static char *apply(const char *old, const char *patch)
{
	const char *o = old, *p = strstr(patch, "\n@@");
	size_t cap = strlen(old) + strlen(patch) + 1, n = 0, at = 1;
	char *out = calloc(cap, 1);

	while (p && *++p == '@') {
		unsigned long start;

		if (sscanf(p, "@@ -%lu", &start) != 1)
			break;
		for (; at < start; at++) {	/* unchanged lines */
			size_t len = strcspn(o, "\n") + 1;

			memcpy(out + n, o, len);
			n += len, o += len;
		}
		for (p = strchr(p, '\n') + 1; *p == ' ' || *p == '-' ||
		     *p == '+'; p = strchr(p, '\n') + 1) {
			size_t len = strcspn(p + 1, "\n") + 1;

			if (*p != '+' && strncmp(o, p + 1, len)) {
				free(out);
				return NULL;	/* the old text differs */
			}
			if (*p != '-')
				memcpy(out + n, p + 1, len), n += len;
			if (*p != '+')
				o += len, at++;
		}
		p--;
	}
	strcpy(out + n, o);
	return out;
}

/*
 * The proposal as a patch of its header: it applies, the declarations
 * follow the groups (read_txrx a, read_rx r, write_tx w and u,
 * write_txrx l) between markers, each keeps its comments, the #ifdef
 * block moves whole, and no line is lost or made up.
 */
static void test_header_patch(void)
{
	struct demo_run d;
	struct advise a;
	char err[256], *patch, *new, **sets;
	const char *pa, *pr, *pw, *pl, *pc2;

	demo_begin(&d, "tx=tcp_sendmsg", "rx=tcp_v4_rcv");
	sets = advise_header_sets(demo_header, "demo.h", "demo", err,
				  sizeof(err));
	CHECK(sets && !sets[0]);	/* one member a declaration */
	free(sets);
	/* Two members in one declaration, or an #if block with #else, move
	 * together; an #if block of two declarations alone is parted. */
	sets = advise_header_sets("struct demo {\n\tu64 r, u;\n#ifdef A\n"
				  "\tu64 a;\n\tu64 l;\n#else\n#define B 1\n#endif\n"
				  "#ifdef C\n\tu64 w;\n\tchar cold1[48];\n#endif\n};\n",
				  "demo.h", "demo", err, sizeof(err));
	CHECK(sets && sets[0] && !strcmp(sets[0], "r,u"));
	CHECK(sets && sets[0] && sets[1] && !strcmp(sets[1], "a,l") && !sets[2]);
	for (size_t i = 0; sets && sets[i]; i++)
		free(sets[i]);
	free(sets);
	CHECK(!advise_build_paths(&a, &d.l, &d.fp, 64, 3, NULL, err, sizeof(err)));
	patch = advise_header_patch(&a, demo_header, "demo.h", "demo", err,
				    sizeof(err));
	CHECK(patch && !strncmp(patch, "--- a/demo.h\n+++ b/demo.h\n@@", 28));
	new = patch ? apply(demo_header, patch) : NULL;
	CHECK(new != NULL);
	if (new) {
		pa = strstr(new, "\tu64\ta;\t/* read on both,\n\t\t\t * a comment that runs on */\n");
		pr = strstr(new, "\tu64\tr;\t/* read on receive */\n");
		pw = strstr(new, "\tu64\tw;\n");
		pl = strstr(new, "\tu64\tl;\n");
		pc2 = strstr(new, "#ifdef CONFIG_DEMO\n\tchar\tcold2[56];\n#endif\n");
		CHECK(pa && pr && pw && pl && pc2);
		CHECK(pa < pr && pr < pw && pw < pl);
		CHECK(strstr(new, "\t__cacheline_group_begin(demo_read_txrx);\n\tu64\ta;") != NULL);
		CHECK(strstr(new, "\t__cacheline_group_end(demo_write_txrx);\n") != NULL);
		CHECK(strstr(new, "\t/* cold data,\n\t * two lines of comment\n\t */\n\tchar\tcold1[48];\n") != NULL);
		CHECK(strstr(new, "\tunion {\n\t\tchar\tcold4[184];\n\t};\n") != NULL);
		/* Every line kept: the old length and the markers' eight lines. */
		{
			size_t lines_old = 0, lines_new = 0;

			for (const char *c = demo_header; *c; c++)
				lines_old += *c == '\n';
			for (const char *c = new; *c; c++)
				lines_new += *c == '\n';
			CHECK_EQ_U64(lines_new, lines_old + 2 * 4);
		}
	}
	free(new);
	free(patch);
	CHECK(!advise_header_patch(&a, demo_header, "demo.h", "nosuch", err,
				   sizeof(err)));
	CHECK(strstr(err, "no line \"struct nosuch {\"") != NULL);
	advise_free(&a);
	demo_end(&d);
}

/*
 * ops=: a path's operations are the calls of the first function of its
 * rule the recording counted; by entry, of the path's own function.
 */
static void test_ops_per_path(void)
{
	static const struct dprof_op_count ops[] = {
		{ .name = "tcp_rcv_established", .count = 5000 },
		{ .name = "tcp_v4_rcv", .count = 1000, .missed = 2 },
		{ .name = "__x64_sys_sendto", .count = 400 },
	};
	struct fastpath_rule rules[2];
	struct fastpath fp;
	struct recording r;
	struct fixture f;
	struct ksyms syms;
	char err[256];

	record_with(&f, &r, ops, 3);
	CHECK_EQ_U64(r.nr_ops, 3);
	ksyms_load(&syms, r.kallsyms);
	CHECK(!fastpath_rule_parse(&rules[0], "tx=tcp_sendmsg", err, sizeof(err)));
	CHECK(!fastpath_rule_parse(&rules[1], "rx=tcp_v4_rcv,tcp_rcv_established",
				   err, sizeof(err)));
	fastpath_build(&fp, &r, 0, &syms, rules, 2);
	CHECK(!fp.ops_func[0] && !fp.ops[0]);	/* tcp_sendmsg: not counted */
	CHECK(fp.ops_func[1] && !strcmp(fp.ops_func[1], "tcp_v4_rcv"));
	CHECK_EQ_U64(fp.ops[1], 1000);
	fastpath_free(&fp);
	fastpath_build(&fp, &r, 0, &syms, NULL, 0);
	CHECK(fp.ops_func[0] && !strcmp(fp.ops_func[0], "__x64_sys_sendto"));
	CHECK_EQ_U64(fp.ops[0], 400);
	CHECK(!fp.ops_func[1]);	/* net_rx_action: not counted */
	fastpath_free(&fp);
	fastpath_rule_free(&rules[0]);
	fastpath_rule_free(&rules[1]);
	ksyms_free(&syms);
	recording_free(&r);
	fixture_free(&f);
}

/* A function counted twice, or with no name, is a damaged recording. */
static void test_ops_refused(void)
{
	static const struct dprof_op_count twice[] = {
		{ .name = "tcp_v4_rcv", .count = 1 },
		{ .name = "tcp_v4_rcv", .count = 2 },
	};
	struct dprof_op_count unnamed = { .count = 1 };
	struct fixture_section sec = { DPROF_SEC_OPS, twice, sizeof(twice) };
	struct rec_error err;
	struct recording r;
	struct fixture f;

	fixture_begin(&f, 1);
	fixture_end_sections(&f, &sec, 1);
	CHECK(recording_parse(&r, f.buf, f.len, &err) != 0);
	CHECK(strstr(err.msg, "tcp_v4_rcv counted twice") != NULL);
	fixture_free(&f);
	memset(unnamed.name, 'x', sizeof(unnamed.name));
	sec = (struct fixture_section){ DPROF_SEC_OPS, &unnamed, sizeof(unnamed) };
	fixture_begin(&f, 1);
	fixture_end_sections(&f, &sec, 1);
	CHECK(recording_parse(&r, f.buf, f.len, &err) != 0);
	CHECK(strstr(err.msg, "no function name") != NULL);
	fixture_free(&f);
}

static void test_rule_errors(void)
{
	static const char *const bad[] = { "tx", "=tcp_sendmsg", "tx=", "tx=a,,b" };
	struct fastpath_rule rule;
	char err[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(fastpath_rule_parse(&rule, bad[i], err, sizeof(err)) == -1);
	CHECK(strstr(err, "empty function name"));
}

/* A chain longer than DPROF_CHAIN_MAX is a malformed record. */
static void test_chain_too_long(void)
{
	uint64_t chain[DPROF_CHAIN_MAX + 1] = { 0 };
	uint8_t buf[sizeof(struct dprof_sample_rec) + sizeof(chain)];
	struct dprof_sample_rec s = {
		.hdr = { .kind = DPROF_REC_SAMPLE, .size = sizeof(buf),
			 .flags = DPROF_SAMPLE_LOAD | DPROF_SAMPLE_CHAIN },
	};
	struct recording r;
	struct rec_error err;
	struct fixture f;

	memcpy(buf, &s, sizeof(s));
	memcpy(buf + sizeof(s), chain, sizeof(chain));
	fixture_begin(&f, 1);
	fixture_raw(&f, buf, sizeof(buf));
	fixture_end(&f);
	CHECK(recording_parse(&r, f.buf, f.len, &err) == -1);
	fixture_free(&f);
}

const struct unit_test fastpath_tests[] = {
	{ "fast path: by rule, innermost wins; uses, groups, lines", test_paths_by_rule },
	{ "fast path: by kernel entry", test_paths_by_entry },
	{ "fast path: a path's operations (ops=)", test_ops_per_path },
	{ "fast path: the lines' intervals", test_lines_interval },
	{ "fast path: another build replayed field by field", test_field_map },
	{ "fast path: the proposal as a patch of its header", test_header_patch },
	{ "fast path: a damaged ops section is refused", test_ops_refused },
	{ "fast path: --path errors", test_rule_errors },
	{ "fast path: a chain too long is refused", test_chain_too_long },
	{ NULL, NULL },
};

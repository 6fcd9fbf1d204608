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
static void record(struct fixture *f, struct recording *r)
{
	struct rec_error err;
	struct fixture_section sec = {
		DPROF_SEC_KALLSYMS, kallsyms, sizeof(kallsyms) - 1,
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
	fixture_end_sections(f, &sec, 1);
	CHECK(recording_parse(r, f->buf, f->len, &err) == 0);
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
	{ "fast path: --path errors", test_rule_errors },
	{ "fast path: a chain too long is refused", test_chain_too_long },
	{ NULL, NULL },
};

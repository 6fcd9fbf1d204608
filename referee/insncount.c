// SPDX-License-Identifier: GPL-2.0
/*
 * insncount: a QEMU plugin that counts the guest instructions each
 * translated block executes while a vCPU is between two marker
 * instructions, so that a hook's instructions per call are read from the
 * guest itself, per function, without any timing (make bench-insns,
 * scripts/bench-insns.sh).  dprof's own cost figures time the hooks with
 * get_cycles(), which under -icount counts instructions of the whole
 * body but cannot say which ones; this says which.
 *
 * Markers (what the guest executes, a long nop QEMU decodes as a nop):
 *   nopl 0x44505231(%rax)   bytes 0f 1f 80 31 52 50 44   counting on
 *   nopl 0x44505230(%rax)   bytes 0f 1f 80 30 52 50 44   counting off
 * per vCPU: the vCPU that executes "on" is counted until it executes
 * "off" (dprof_workload's churn does, around its loop).  With scope=all,
 * a marker on any vCPU turns every vCPU's count on or off, user space
 * included (selftests/progs/insns_mark.c: what a whole load costs the
 * machine).  Run the guest multi-threaded (no -icount): single-threaded
 * TCG gives plugins the wrong vCPU index (oracle.c); scope=all needs no
 * index.
 *
 * Arguments: out=FILE (required), scope=vcpu (default) or scope=all;
 * the table written at exit:
 *   # insncount: MARKED_INSNS instructions in BLOCKS blocks
 *   VADDR N_INSNS EXECUTIONS        one line per block executed while on
 * Blocks are keyed by address and length: QEMU may translate the same
 * address again with another length (an I/O instruction ends a block).
 */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MAX_VCPUS	256
#define MARKER_LEN	7

struct block {
	uint64_t vaddr;
	uint64_t n_insns;
	uint64_t executions;	/* while the executing vCPU was on */
};

static const uint8_t marker_on[MARKER_LEN] = {
	0x0f, 0x1f, 0x80, 0x31, 0x52, 0x50, 0x44
};
static const uint8_t marker_off[MARKER_LEN] = {
	0x0f, 0x1f, 0x80, 0x30, 0x52, 0x50, 0x44
};

static GHashTable *blocks;	/* "vaddr/n" -> struct block */
static GMutex lock;		/* translation runs on several threads */
static char *out_path;
static int on[MAX_VCPUS];	/* written by its own vCPU only */
static int scope_all;		/* scope=all: one switch for every vCPU */
static int all_on;
static uint64_t toggles;

static void block_exec(unsigned int vcpu, void *udata)
{
	struct block *b = udata;

	if (scope_all ? __atomic_load_n(&all_on, __ATOMIC_RELAXED) :
	    vcpu < MAX_VCPUS && on[vcpu])
		__atomic_fetch_add(&b->executions, 1, __ATOMIC_RELAXED);
}

static void marker_exec(unsigned int vcpu, void *udata)
{
	if (scope_all)
		__atomic_store_n(&all_on, udata != NULL, __ATOMIC_RELAXED);
	else if (vcpu < MAX_VCPUS)
		on[vcpu] = udata != NULL;
	__atomic_fetch_add(&toggles, 1, __ATOMIC_RELAXED);
}

static struct block *block_of(uint64_t vaddr, uint64_t n)
{
	char key[48];
	struct block *b;

	snprintf(key, sizeof(key), "%" PRIx64 "/%" PRIu64, vaddr, n);
	g_mutex_lock(&lock);
	b = g_hash_table_lookup(blocks, key);
	if (!b) {
		b = g_new0(struct block, 1);
		b->vaddr = vaddr;
		b->n_insns = n;
		g_hash_table_insert(blocks, g_strdup(key), b);
	}
	g_mutex_unlock(&lock);
	return b;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	struct block *b = block_of(qemu_plugin_tb_vaddr(tb), n);

	qemu_plugin_register_vcpu_tb_exec_cb(tb, block_exec,
					     QEMU_PLUGIN_CB_NO_REGS, b);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint8_t bytes[MARKER_LEN];

		if (qemu_plugin_insn_size(insn) != MARKER_LEN ||
		    qemu_plugin_insn_data(insn, bytes, sizeof(bytes)) !=
		    MARKER_LEN)
			continue;
		if (!memcmp(bytes, marker_on, MARKER_LEN))
			qemu_plugin_register_vcpu_insn_exec_cb(
				insn, marker_exec, QEMU_PLUGIN_CB_NO_REGS,
				(void *)1);
		else if (!memcmp(bytes, marker_off, MARKER_LEN))
			qemu_plugin_register_vcpu_insn_exec_cb(
				insn, marker_exec, QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
}

static void write_table(qemu_plugin_id_t id, void *p)
{
	GHashTableIter it;
	gpointer key, value;
	uint64_t total = 0, nr = 0;
	FILE *f = fopen(out_path, "w");

	if (!f) {
		fprintf(stderr, "insncount: cannot write %s\n", out_path);
		return;
	}
	g_hash_table_iter_init(&it, blocks);
	while (g_hash_table_iter_next(&it, &key, &value)) {
		struct block *b = value;

		if (!b->executions)
			continue;
		total += b->executions * b->n_insns;
		nr++;
	}
	fprintf(f, "# insncount: %" PRIu64 " instructions in %" PRIu64
		" blocks, %" PRIu64 " markers executed\n", total, nr, toggles);
	g_hash_table_iter_init(&it, blocks);
	while (g_hash_table_iter_next(&it, &key, &value)) {
		struct block *b = value;

		if (b->executions)
			fprintf(f, "%" PRIx64 " %" PRIu64 " %" PRIu64 "\n",
				b->vaddr, b->n_insns, b->executions);
	}
	fclose(f);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			out_path = g_strdup(argv[i] + 4);
		} else if (!strcmp(argv[i], "scope=all")) {
			scope_all = 1;
		} else if (!strcmp(argv[i], "scope=vcpu")) {
			scope_all = 0;
		} else {
			fprintf(stderr, "insncount: unknown argument %s (out=FILE, scope=vcpu|all)\n",
				argv[i]);
			return -1;
		}
	}
	if (!out_path) {
		fprintf(stderr, "insncount: out=FILE is required\n");
		return -1;
	}
	blocks = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, write_table, NULL);
	return 0;
}

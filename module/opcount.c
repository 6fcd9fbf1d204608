// SPDX-License-Identifier: GPL-2.0
/*
 * Operations counted (ops=FUNC[,FUNC]).  A sampler says how often a path
 * was caught touching a member, not how often the path ran: dprof-view
 * advise divides a path's samples by its operations (a segment sent, a
 * request received) to print them per operation, comparable between two
 * recordings of different lengths or loads.  A kprobe at each named
 * function's entry counts its calls on the CPU that makes them; the
 * handler takes no lock and allocates nothing (it runs wherever the
 * function runs, softirq included), and the counts are summed in process
 * context for debugfs "ops" and status.
 *
 * The probes go in before any debug register is armed and come out after
 * the histories have stopped (main.c), as the slab hooks' kprobes do.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/kprobes.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include "uapi/dprof.h"
#include "stats.h"
#include "opcount.h"

static char *ops;
module_param(ops, charp, 0444);
MODULE_PARM_DESC(ops,
		 "Kernel functions whose calls are counted, comma-separated, at most 8 (default: none): the operations dprof-view advise divides each path's samples by (debugfs \"ops\")");

struct op_probe {
	struct kprobe kp;
	unsigned int index;
	char name[DPROF_NAME_LEN];
};

struct op_hits {
	u64 n[DPROF_OPS_MAX];
};

static struct op_probe op_probes[DPROF_OPS_MAX];
static unsigned int nr_ops;	/* parsed names */
static unsigned int nr_registered;
static DEFINE_PER_CPU(struct op_hits, op_hits);

static bool valid_name(const char *s, size_t len)
{
	size_t i;

	if (!len || len >= DPROF_NAME_LEN)
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum(s[i]) && s[i] != '_' && s[i] != '.')
			return false;
	return true;
}

int dprof_ops_params(void)
{
	const char *s = ops;
	unsigned int i;

	nr_ops = 0;
	if (!s || !*s)
		return 0;
	while (*s) {
		size_t len = strcspn(s, ",");

		if (nr_ops == DPROF_OPS_MAX) {
			pr_err("ops=: at most %d functions\n", DPROF_OPS_MAX);
			return -EINVAL;
		}
		if (!valid_name(s, len)) {
			pr_err("ops=: '%.*s' is not a function name (letters, digits, '_' and '.', under %d characters)\n",
			       (int)min_t(size_t, len, DPROF_NAME_LEN), s,
			       DPROF_NAME_LEN);
			return -EINVAL;
		}
		memcpy(op_probes[nr_ops].name, s, len);
		op_probes[nr_ops].name[len] = '\0';
		for (i = 0; i < nr_ops; i++)
			if (!strcmp(op_probes[i].name, op_probes[nr_ops].name)) {
				pr_err("ops=: %s named twice\n",
				       op_probes[i].name);
				return -EINVAL;
			}
		nr_ops++;
		s += len;
		if (*s == ',' && !*++s) {
			pr_err("ops=: a comma with no name after it\n");
			return -EINVAL;
		}
	}
	return 0;
}

static int op_entered(struct kprobe *kp, struct pt_regs *regs)
{
	struct op_probe *op = container_of(kp, struct op_probe, kp);
	u64 start;
	bool timed = dprof_cost_enter(DPROF_HOOK_OPS, &start);

	this_cpu_inc(op_hits.n[op->index]);
	dprof_cost_leave(DPROF_HOOK_OPS, timed, true, start);
	return 0;
}

int dprof_ops_init(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < nr_ops; i++) {
		struct op_probe *op = &op_probes[i];

		memset(&op->kp, 0, sizeof(op->kp));
		op->index = i;
		op->kp.symbol_name = op->name;
		op->kp.pre_handler = op_entered;
		ret = register_kprobe(&op->kp);
		if (ret) {
			pr_err("ops=%s: cannot probe it (%d): not a kernel function, inlined, or on the kprobe blacklist (debugfs kprobes/blacklist)\n",
			       op->name, ret);
			dprof_ops_exit();
			return ret;
		}
		nr_registered = i + 1;
	}
	return 0;
}

void dprof_ops_exit(void)
{
	while (nr_registered)
		unregister_kprobe(&op_probes[--nr_registered].kp);
}

static void op_count(unsigned int i, struct dprof_op_count *c)
{
	int cpu;

	memset(c, 0, sizeof(*c));
	strscpy(c->name, op_probes[i].name, sizeof(c->name));
	for_each_possible_cpu(cpu)
		c->count += per_cpu(op_hits, cpu).n[i];
	c->missed = op_probes[i].kp.nmissed;
}

size_t dprof_ops_read(void *buf, size_t room, loff_t *pos)
{
	struct dprof_op_count *out = buf;
	size_t done = 0;

	if (*pos < 0)
		return 0;
	for (; *pos < nr_registered && room - done >= sizeof(*out); (*pos)++) {
		op_count(*pos, out++);
		done += sizeof(*out);
	}
	return done;
}

void dprof_ops_show(struct seq_file *m)
{
	struct dprof_op_count c;
	unsigned int i;

	if (!nr_registered)
		return;
	seq_puts(m, "operations counted since load (ops=):");
	for (i = 0; i < nr_registered; i++) {
		op_count(i, &c);
		seq_printf(m, " %s %llu", c.name, c.count);
		if (c.missed)
			seq_printf(m, " (%llu missed)", c.missed);
	}
	seq_putc(m, '\n');
}

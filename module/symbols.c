// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel variables as targets (watch_symbols=[module:]name@ADDRESS[/SIZE]).
 *
 * A global is one object that never moves: dprof makes it a target
 * (DPROF_TARGET_VAR) with the variable's address and size, so that
 *  - IBS/PEBS samples whose address falls inside it resolve to it
 *    (dprof_var_resolve(), from NMI: a read-only array, no locks);
 *  - the collector (collector.c) watches its offsets with the debug
 *    registers for sample_window_ms at a time, as a history that begins
 *    when the watch opens and ends with DPROF_HIST_WINDOW: dprof-view
 *    classify replays it like an object's and tells true from false
 *    sharing on a global, which is what a VM user without IBS/PEBS has.
 *
 * The module opens no file: userspace gives each name with its address
 * (dprof-view load reads /proc/kallsyms; kallsyms_lookup_name() is not
 * exported).  The module checks what it is given:
 *  - sprint_symbol() must name the address "name+0x0/0xSIZE [module]":
 *    the start of that symbol; the size is kallsyms' (to the next symbol,
 *    alignment padding included) unless given as /SIZE, and the last
 *    symbol of a module's data gets a wrapped one, which must be given;
 *  - the address must be aligned to history_len (perf refuses a
 *    breakpoint that is not, and the CPU would watch the aligned bytes);
 *  - every address a watch of it may write into a debug register must be
 *    one perf itself accepts (hw_breakpoint_arch_parse(): not the CPU
 *    entry area, the GDT, the TSS, cpu_tlbstate, cpu_dr7 nor
 *    __per_cpu_offset, whose breakpoints loop a CPU in #DB).  dprof
 *    writes the registers itself (watch.c), past those checks, so it runs
 *    them here: a disabled breakpoint is made on the variable and moved
 *    through it with modify_user_hw_breakpoint(), which parses each.
 * A variable of a module is dropped (DPROF_TARGET_DEAD) when that module
 * starts going away; the collector then ends any watch on it.  dprof
 * never dereferences a variable: breakpoints and address compares only.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hw_breakpoint.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "uapi/dprof.h"
#include "target.h"
#include "symbols.h"
#include "resolve.h"

#define VAR_MAX_SIZE	32768	/* offsets are u16; keep plans small */

struct variable {
	char module[MODULE_NAME_LEN];	/* "" for vmlinux */
	char want_module[MODULE_NAME_LEN];	/* module: prefix given */
	char name[KSYM_NAME_LEN];
	unsigned long addr;		/* @ADDRESS */
	unsigned int size;
	unsigned int given_size;	/* name/SIZE; 0: kallsyms' size */
	int target;
};

static struct variable vars[DPROF_MAX_VARIABLES];
static unsigned int nr_vars;		/* published: read from NMI */
static unsigned int next_var;
static bool notifier_on;

/*
 * sprint_symbol() must give back "name+0x0/0xSIZE [module]": the module
 * and the size (kallsyms') are taken from it.
 */
static int check_symbol(struct variable *v)
{
	char buf[KSYM_SYMBOL_LEN], *p, *mod, *size_text;
	unsigned long size;
	size_t n = strlen(v->name);

	if (v->addr < TASK_SIZE_MAX) {
		pr_err("watch_symbols=%s: a per-CPU variable (its symbol is an offset); per-CPU variables cannot be watched\n",
		       v->name);
		return -EINVAL;
	}
	/* Another name at +0x0 is an alias (jiffies and jiffies_64). */
	sprint_symbol(buf, v->addr);
	p = buf + n;
	if (strncmp(buf, v->name, n) || strncmp(p, "+0x0/", 5))
		p = NULL;
	else
		p += 5;
	size_text = p ? strsep(&p, " ") : NULL;
	if (!size_text || kstrtoul(size_text, 16, &size)) {
		pr_err("watch_symbols=%s@0x%lx: the kernel names that address '%s', not the start of %s\n",
		       v->name, v->addr, buf, v->name);
		return -EINVAL;
	}
	mod = p && *p == '[' ? p + 1 : NULL;
	if (mod)
		mod[strcspn(mod, "]")] = '\0';
	if (*v->want_module && (!mod || strcmp(mod, v->want_module))) {
		pr_err("watch_symbols=%s:%s: that address is %s's, not the module's\n",
		       v->want_module, v->name, mod ? mod : "the kernel image");
		return -EINVAL;
	}
	strscpy(v->module, mod ? mod : "", sizeof(v->module));
	if (v->given_size) {
		size = v->given_size;
	} else if (!size || size > VAR_MAX_SIZE) {
		/* The last symbol of a module's data gets a wrapped size. */
		pr_err("watch_symbols=%s: kallsyms gives it %ld bytes; give the size as %s@ADDRESS/SIZE (at most %u)\n",
		       v->name, (long)size, v->name, VAR_MAX_SIZE);
		return -EINVAL;
	}
	v->size = size;
	return 0;
}

static void no_trap(struct perf_event *bp, struct perf_sample_data *data,
		    struct pt_regs *regs)
{
}

/*
 * Every @len-byte slot of the variable, as perf checks a breakpoint on
 * it: 0, or -errno with the one line that says which and why.
 */
static int check_with_perf(const struct variable *v, unsigned int len)
{
	struct perf_event_attr attr;
	struct perf_event *bp;
	unsigned int off;
	int ret = 0;

	if (v->addr & (len - 1)) {
		pr_err("watch_symbols=%s: at 0x%lx, not aligned to history_len=%u: load with history_len=%lu\n",
		       v->name, v->addr, len, v->addr & -v->addr);
		return -EINVAL;
	}
	hw_breakpoint_init(&attr);
	attr.bp_addr = v->addr;
	attr.bp_len = len;
	attr.bp_type = HW_BREAKPOINT_RW;
	attr.disabled = 1;	/* checked, never armed */
	bp = perf_event_create_kernel_counter(&attr, raw_smp_processor_id(),
					      NULL, no_trap, NULL);
	if (IS_ERR(bp)) {
		ret = PTR_ERR(bp);
		off = 0;
		goto out;
	}
	for (off = len; off < v->size && !ret; off += len) {
		attr.bp_addr = v->addr + off;
		ret = modify_user_hw_breakpoint(bp, &attr);
	}
	off -= len;
	perf_event_release_kernel(bp);
out:
	if (ret == -ENOSPC)
		pr_err("watch_symbols=%s: no debug register free to check it with (gdb, perf or ptrace hold them all)\n",
		       v->name);
	else if (ret)
		pr_err("watch_symbols=%s: perf refuses a breakpoint at +%u (0x%lx, %d): the CPU's entry code uses that memory, a breakpoint there would loop in #DB\n",
		       v->name, off, v->addr + off, ret);
	return ret;
}

static int module_going(struct notifier_block *nb, unsigned long state,
			void *data)
{
	struct module *mod = data;
	unsigned int i;

	if (state != MODULE_STATE_GOING)
		return NOTIFY_DONE;
	for (i = 0; i < nr_vars; i++)
		if (*vars[i].module && !strcmp(vars[i].module, mod->name))
			dprof_target_var_gone(vars[i].target);
	return NOTIFY_DONE;
}

static struct notifier_block module_nb = { .notifier_call = module_going };

static int parse_spec(const char *spec)
{
	char *copy, *cursor, *tok, *colon, *slash, *at;
	int ret = 0;

	copy = kstrdup(spec, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	cursor = strim(copy);
	while ((tok = strsep(&cursor, ",")) && !ret) {
		struct variable *v = &vars[nr_vars];

		tok = strim(tok);
		if (!*tok) {
			pr_err("watch_symbols=: empty name in the list\n");
			ret = -EINVAL;
		} else if (nr_vars == DPROF_MAX_VARIABLES) {
			pr_err("watch_symbols=: at most %d variables\n",
			       DPROF_MAX_VARIABLES);
			ret = -EINVAL;
		} else {
			memset(v, 0, sizeof(*v));
			colon = strchr(tok, ':');
			if (colon) {
				*colon = '\0';
				strscpy(v->want_module, tok,
					sizeof(v->want_module));
				tok = colon + 1;
			}
			slash = strchr(tok, '/');
			if (slash) {
				*slash++ = '\0';
				if (kstrtouint(slash, 0, &v->given_size) ||
				    !v->given_size ||
				    v->given_size > VAR_MAX_SIZE) {
					pr_err("watch_symbols=%s/%s: the size must be 1 to %u bytes\n",
					       tok, slash, VAR_MAX_SIZE);
					ret = -EINVAL;
					break;
				}
			}
			at = strchr(tok, '@');
			if (at)
				*at++ = '\0';
			if (!at || kstrtoul(at, 0, &v->addr) || !v->addr) {
				pr_err("watch_symbols=%s: no address: give %s@ADDRESS from /proc/kallsyms (dprof-view load does that for names)\n",
				       tok, tok);
				ret = -EINVAL;
				break;
			}
			strscpy(v->name, tok, sizeof(v->name));
			v->target = -1;
			nr_vars++;
		}
	}
	kfree(copy);
	return ret;
}

static char *watch_symbols;
module_param(watch_symbols, charp, 0444);
MODULE_PARM_DESC(watch_symbols,
		 "Kernel variables to watch with the debug registers, comma-separated, as [module:]name@ADDRESS[/SIZE] (the address from /proc/kallsyms, which dprof-view load fills in; the size when kallsyms has none; at most 8): each is watched sample_window_ms at a time, so dprof-view classify tells its sharing");

int dprof_symbols_init(unsigned int len)
{
	const char *spec = watch_symbols;
	unsigned int i, n;
	int ret;

	if (!spec || !*spec)
		return 0;
	ret = parse_spec(spec);
	for (i = 0; i < nr_vars && !ret; i++) {
		ret = check_symbol(&vars[i]);
		if (!ret)
			ret = check_with_perf(&vars[i], len);
	}
	n = nr_vars;
	/* Not published to the NMI path until the targets exist. */
	nr_vars = 0;
	for (i = 0; i < n && !ret; i++) {
		ret = dprof_target_add_variable(vars[i].name, vars[i].addr,
						vars[i].size);
		if (ret >= 0) {
			vars[i].target = ret;
			ret = 0;
		}
	}
	if (ret)
		return ret;
	ret = register_module_notifier(&module_nb);
	if (ret)
		return ret;
	notifier_on = true;
	/* The array before its length: dprof_var_resolve() runs from NMI. */
	smp_store_release(&nr_vars, n);
	for (i = 0; i < n; i++)
		pr_info("watch_symbols: %s%s%s, %u bytes\n", vars[i].name,
			*vars[i].module ? " in " : "", vars[i].module,
			vars[i].size);
	return 0;
}

void dprof_symbols_exit(void)
{
	WRITE_ONCE(nr_vars, 0);
	if (notifier_on)
		unregister_module_notifier(&module_nb);
	notifier_on = false;
}

unsigned int dprof_nr_variables(void)
{
	return READ_ONCE(nr_vars);
}

/* Any context: a plain scan of at most DPROF_MAX_VARIABLES ranges. */
int dprof_var_resolve(unsigned long addr, struct dprof_resolved *r)
{
	/* Paired with the release in dprof_symbols_init(). */
	unsigned int i, n = smp_load_acquire(&nr_vars);

	for (i = 0; i < n; i++) {
		const struct variable *v = &vars[i];

		if (addr - v->addr < v->size &&
		    !(READ_ONCE(dprof_targets[v->target].flags) &
		      DPROF_TARGET_DEAD)) {
			r->target = v->target;
			r->base = v->addr;
			r->offset = addr - v->addr;
			return 0;
		}
	}
	return -ENOENT;
}

/* Collector: the next live variable's target, round robin; -1 if none. */
int dprof_var_next(void)
{
	unsigned int i, n = READ_ONCE(nr_vars);

	for (i = 0; i < n; i++) {
		const struct variable *v = &vars[(next_var + i) % n];

		if (!(READ_ONCE(dprof_targets[v->target].flags) &
		      DPROF_TARGET_DEAD)) {
			next_var = (next_var + i + 1) % n;
			return v->target;
		}
	}
	return -1;
}

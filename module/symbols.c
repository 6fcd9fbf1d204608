// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel variables as targets (watch_symbols=[module:]name[/SIZE],...).
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
 * Names are resolved at load from /proc/kallsyms, read with insmod's own
 * credentials (kallsyms_lookup_name() is not exported, and calling it
 * through a kprobe'd address would defeat IBT).  That file has no
 * read_iter, so kernel_read() refuses it: it is read through its read()
 * into a buffer mapped in insmod's address space, then copied in.  Each
 * name is checked back with
 * sprint_symbol(): the address must be the symbol's start, and the size
 * is kallsyms' (to the next symbol, so alignment padding included) unless
 * given as name/SIZE; the last symbol of a module's data gets a wrapped
 * size from kallsyms, and then the size must be given.  A
 * variable of a module is dropped (DPROF_TARGET_DEAD) when that module
 * starts going away; the collector then ends any watch on it.  dprof
 * never dereferences a variable: breakpoints and address compares only.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/kallsyms.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include "uapi/dprof.h"
#include "target.h"
#include "symbols.h"
#include "resolve.h"

#define KALLSYMS_CHUNK	(64 * 1024)
#define VAR_MAX_SIZE	32768	/* offsets are u16; keep plans small */

struct variable {
	char module[MODULE_NAME_LEN];	/* "" for vmlinux */
	char want_module[MODULE_NAME_LEN];	/* module: prefix given */
	char name[KSYM_NAME_LEN];
	unsigned long addr;
	unsigned int size;
	unsigned int given_size;	/* name/SIZE; 0: kallsyms' size */
	unsigned int matches;		/* lines of /proc/kallsyms that match */
	char type;			/* kallsyms type letter */
	int target;
};

static struct variable vars[DPROF_MAX_VARIABLES];
static unsigned int nr_vars;		/* published: read from NMI */
static unsigned int next_var;
static bool notifier_on;

/* One "addr type name [module]" line of /proc/kallsyms. */
static void match_line(char *line)
{
	char *type, *name, *mod, *end;
	unsigned long addr;
	unsigned int i;

	type = strchr(line, ' ');
	if (!type)
		return;
	*type++ = '\0';
	name = strchr(type, ' ');
	if (!name)
		return;
	*name++ = '\0';
	mod = strchr(name, '\t');
	if (mod) {
		*mod++ = '\0';
		if (*mod == '[')
			mod++;
		end = strchr(mod, ']');
		if (end)
			*end = '\0';
	}
	for (i = 0; i < nr_vars; i++) {
		struct variable *v = &vars[i];

		if (strcmp(v->name, name))
			continue;
		if (*v->want_module && (!mod || strcmp(v->want_module, mod)))
			continue;
		if (kstrtoul(line, 16, &addr))
			continue;
		if (!v->matches++) {
			v->addr = addr;
			v->type = *type;
			strscpy(v->module, mod ? mod : "", sizeof(v->module));
		}
	}
}

/* Every requested name against /proc/kallsyms, in insmod's context. */
static int read_kallsyms(void)
{
	struct file *f = filp_open("/proc/kallsyms", O_RDONLY, 0);
	unsigned long ubuf;
	size_t have = 0;
	loff_t pos = 0;
	char *buf, *line, *nl;
	ssize_t n;
	int ret = 0;

	if (IS_ERR(f)) {
		pr_err("watch_symbols: cannot open /proc/kallsyms (%ld); the kernel needs CONFIG_KALLSYMS\n",
		       PTR_ERR(f));
		return PTR_ERR(f);
	}
	if (!f->f_op->read || !current->mm) {
		pr_err("watch_symbols: /proc/kallsyms cannot be read from here\n");
		filp_close(f, NULL);
		return -EINVAL;
	}
	buf = kvmalloc(KALLSYMS_CHUNK + 1, GFP_KERNEL);
	ubuf = vm_mmap(NULL, 0, KALLSYMS_CHUNK, PROT_READ | PROT_WRITE,
		       MAP_ANONYMOUS | MAP_PRIVATE, 0);
	if (!buf || IS_ERR_VALUE(ubuf)) {
		if (!IS_ERR_VALUE(ubuf))
			vm_munmap(ubuf, KALLSYMS_CHUNK);
		kvfree(buf);
		filp_close(f, NULL);
		return -ENOMEM;
	}
	for (;;) {
		n = f->f_op->read(f, (char __user *)ubuf,
				  KALLSYMS_CHUNK - have, &pos);
		if (n > 0 && copy_from_user(buf + have, (char __user *)ubuf, n))
			n = -EFAULT;
		if (n < 0) {
			ret = n;
			pr_err("watch_symbols: reading /proc/kallsyms failed (%d)\n",
			       ret);
			break;
		}
		have += n;
		buf[have] = '\0';
		line = buf;
		while ((nl = strchr(line, '\n'))) {
			*nl = '\0';
			match_line(line);
			line = nl + 1;
		}
		/* Keep the partial last line for the next read. */
		have = buf + have - line;
		memmove(buf, line, have);
		if (!n || have == KALLSYMS_CHUNK)
			break;
		cond_resched();
	}
	vm_munmap(ubuf, KALLSYMS_CHUNK);
	kvfree(buf);
	filp_close(f, NULL);
	return ret;
}

/* sprint_symbol() must give back "name+0x0/0xSIZE [module]". */
static int check_variable(struct variable *v)
{
	char buf[KSYM_SYMBOL_LEN], *p;
	unsigned long size;

	if (!v->matches) {
		pr_err("watch_symbols=%s%s%s: no such symbol in /proc/kallsyms\n",
		       v->want_module, *v->want_module ? ":" : "", v->name);
		return -ENOENT;
	}
	if (v->matches > 1) {
		pr_err("watch_symbols=%s: %u symbols have this name; give the module as module:%s\n",
		       v->name, v->matches, v->name);
		return -EINVAL;
	}
	if (!v->addr) {
		pr_err("watch_symbols=%s: /proc/kallsyms shows its address as 0 (kernel.kptr_restrict=2, or no CAP_SYSLOG); load dprof as root with kptr_restrict at most 1\n",
		       v->name);
		return -EPERM;
	}
	if (v->addr < TASK_SIZE_MAX) {
		pr_err("watch_symbols=%s: a per-CPU variable (its symbol is an offset); per-CPU variables cannot be watched yet\n",
		       v->name);
		return -EINVAL;
	}
	if (!strchr("dDbBrR", v->type)) {
		pr_err("watch_symbols=%s: a symbol of type '%c', not a variable (data, bss or rodata)\n",
		       v->name, v->type);
		return -EINVAL;
	}
	/* Another name at +0x0 is an alias (jiffies and jiffies_64). */
	sprint_symbol(buf, v->addr);
	p = strstr(buf, "+0x0/");
	if (p)
		p += 5;
	if (!p || kstrtoul(strsep(&p, " "), 16, &size)) {
		pr_err("watch_symbols=%s: the kernel names its address '%s'; not the start of a variable\n",
		       v->name, buf);
		return -EINVAL;
	}
	if (v->given_size) {
		size = v->given_size;
	} else if (!size || size > VAR_MAX_SIZE) {
		/* The last symbol of a module's data gets a wrapped size. */
		pr_err("watch_symbols=%s: kallsyms gives it %ld bytes; give the size as %s/SIZE (at most %u)\n",
		       v->name, (long)size, v->name, VAR_MAX_SIZE);
		return -EINVAL;
	}
	v->size = size;
	return 0;
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
	char *copy, *cursor, *tok, *colon, *slash;
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
		 "Kernel variables to watch with the debug registers, comma-separated symbols of /proc/kallsyms ([module:]name[/SIZE]: the module when the name is ambiguous, the size in bytes when kallsyms has none; at most 8): each is watched sample_window_ms at a time, taking turns with the other watches, so dprof-view classify tells its sharing");

int dprof_symbols_init(void)
{
	const char *spec = watch_symbols;
	unsigned int i, n;
	int ret;

	if (!spec || !*spec)
		return 0;
	ret = parse_spec(spec);
	if (!ret)
		ret = read_kallsyms();
	for (i = 0; i < nr_vars && !ret; i++)
		ret = check_variable(&vars[i]);
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

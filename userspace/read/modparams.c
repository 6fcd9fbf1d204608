// SPDX-License-Identifier: GPL-2.0
/* The parameters dprof.ko is loaded with (modparams.h). */
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "modparams.h"
#include "util.h"

/*
 * Per-CPU symbols are offsets into the per-CPU area on x86_64: below
 * the kernel's lowest address by far (datasyms.h).
 */
#define KERNEL_MIN_ADDR	0xffff800000000000ull

static void say(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

static size_t name_len(const char *word)
{
	return strcspn(word, "=");
}

int modparams_add(struct mod_params *p, const char *word, char *err,
		  size_t errlen)
{
	size_t n = name_len(word), i;

	if (!n || strchr(word, ' ') || strchr(word, '\t') ||
	    strchr(word, '\n')) {
		say(err, errlen, "'%s' is not a module parameter (name=value, no spaces)",
		    word);
		return -1;
	}
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)word[i]) && word[i] != '_') {
			say(err, errlen, "'%.*s' is not a parameter name",
			    (int)n, word);
			return -1;
		}
	for (i = 0; i < p->nr; i++)
		if (name_len(p->word[i]) == n && !strncmp(p->word[i], word, n)) {
			free(p->word[i]);
			p->word[i] = xstrdup(word);
			return 0;
		}
	if (p->nr == MODPARAMS_MAX) {
		say(err, errlen, "more than %d parameters", MODPARAMS_MAX);
		return -1;
	}
	p->word[p->nr++] = xstrdup(word);
	return 0;
}

const char *modparams_get(const struct mod_params *p, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = p->nr; i-- > 0;)
		if (name_len(p->word[i]) == n && !strncmp(p->word[i], name, n))
			return p->word[i][n] ? p->word[i] + n + 1 : "Y";
	return NULL;
}

/* One symbol wanted: module (or "" for any), name. */
struct wanted {
	char module[64];
	char name[128];
	uint64_t addr;
	char type;
	unsigned int matches;
};

/* Every line of @kallsyms against @w: "addr type name[\t[module]]". */
static void match_kallsyms(const char *kallsyms, struct wanted *w)
{
	const char *line = kallsyms;

	while (line && *line) {
		const char *end = strchr(line, '\n');
		char buf[512], type, name[256], mod[128] = "";
		unsigned long long addr;
		size_t len = end ? (size_t)(end - line) : strlen(line);

		if (len < sizeof(buf)) {
			memcpy(buf, line, len);
			buf[len] = '\0';
			if (sscanf(buf, "%llx %c %255s [%127[^]]]", &addr, &type,
				   name, mod) >= 3 &&
			    !strcmp(name, w->name) &&
			    (!*w->module || !strcmp(mod, w->module))) {
				if (!w->matches++) {
					w->addr = addr;
					w->type = type;
				}
			}
			mod[0] = '\0';
		}
		line = end ? end + 1 : NULL;
	}
}

/* One spec of watch_symbols=, resolved into @out. */
static int resolve_one(const char *spec, const char *kallsyms, char *out,
		       size_t outlen, char *err, size_t errlen)
{
	struct wanted w = { .matches = 0 };
	const char *colon = strchr(spec, ':'), *name = colon ? colon + 1 : spec;
	const char *slash = strchr(name, '/');
	size_t n = slash ? (size_t)(slash - name) : strlen(name);

	if (strchr(name, '@')) {		/* already NAME@ADDRESS */
		snprintf(out, outlen, "%s", spec);
		return 0;
	}
	if (colon)
		snprintf(w.module, sizeof(w.module), "%.*s",
			 (int)(colon - spec), spec);
	if (!n || n >= sizeof(w.name)) {
		say(err, errlen, "watch_symbols=%s: not a symbol name", spec);
		return -1;
	}
	snprintf(w.name, sizeof(w.name), "%.*s", (int)n, name);
	match_kallsyms(kallsyms, &w);
	if (!w.matches) {
		say(err, errlen, "watch_symbols=%s: no such symbol in /proc/kallsyms", spec);
		return -1;
	}
	if (w.matches > 1) {
		say(err, errlen, "watch_symbols=%s: %u symbols have this name; give the module as module:%s",
		    spec, w.matches, w.name);
		return -1;
	}
	if (!w.addr) {
		say(err, errlen, "watch_symbols=%s: /proc/kallsyms shows its address as 0 (kernel.kptr_restrict=2, or no CAP_SYSLOG); load as root with kptr_restrict at most 1",
		    spec);
		return -1;
	}
	if (w.addr < KERNEL_MIN_ADDR) {
		say(err, errlen, "watch_symbols=%s: a per-CPU variable (its symbol is an offset); per-CPU variables cannot be watched",
		    spec);
		return -1;
	}
	if (!strchr("dDbBrR", w.type)) {
		say(err, errlen, "watch_symbols=%s: a symbol of type '%c', not a variable (data, bss or rodata)",
		    spec, w.type);
		return -1;
	}
	snprintf(out, outlen, "%s%s%s@0x%" PRIx64 "%s", w.module,
		 *w.module ? ":" : "", w.name, w.addr, slash ? slash : "");
	return 0;
}

int modparams_resolve_symbols(struct mod_params *p, const char *kallsyms,
			      char *err, size_t errlen)
{
	const char *list = modparams_get(p, "watch_symbols");
	char out[2048] = "watch_symbols=", one[512], *copy, *cur, *tok;
	size_t used = strlen(out);
	int ret = 0;

	if (!list || !*list)
		return 0;
	copy = xstrdup(list);
	cur = copy;
	while ((tok = strsep(&cur, ",")) && !ret) {
		if (!*tok) {
			say(err, errlen, "watch_symbols=: an empty name in the list");
			ret = -1;
		} else if (!kallsyms) {
			say(err, errlen, "watch_symbols=%s: /proc/kallsyms could not be read", tok);
			ret = -1;
		} else if (!(ret = resolve_one(tok, kallsyms, one, sizeof(one),
					       err, errlen))) {
			int k = snprintf(out + used, sizeof(out) - used, "%s%s",
					 used > strlen("watch_symbols=") ? "," : "",
					 one);

			if (k < 0 || (size_t)k >= sizeof(out) - used) {
				say(err, errlen, "watch_symbols=: the list is too long");
				ret = -1;
			} else {
				used += k;
			}
		}
	}
	free(copy);
	if (!ret)
		ret = modparams_add(p, out, err, errlen);
	return ret;
}

/* A sysfs value on one line, its newline cut: in a static buffer. */
static const char *one_line(const char *text, char *buf, size_t len)
{
	snprintf(buf, len, "%.*s", (int)strcspn(text, "\n"), text);
	return buf;
}

static void add_unless_given(struct mod_params *p, const char *name,
			     const char *value)
{
	char word[256], err[128];

	if (!value || !*value || modparams_get(p, name))
		return;
	snprintf(word, sizeof(word), "%s=%s", name, value);
	modparams_add(p, word, err, sizeof(err));
}

void modparams_add_pmu(struct mod_params *p, const struct pmu_facts *f)
{
	char buf[200];

	if (f->ibs_op_type)
		add_unless_given(p, "pmu_ibs_type",
				 one_line(f->ibs_op_type, buf, sizeof(buf)));
	if (f->mem_loads)
		add_unless_given(p, "pmu_pebs_loads",
				 one_line(f->mem_loads, buf, sizeof(buf)));
	if (f->mem_stores)
		add_unless_given(p, "pmu_pebs_stores",
				 one_line(f->mem_stores, buf, sizeof(buf)));
}

char *modparams_join(const struct mod_params *p)
{
	size_t len = 1;
	char *s;

	for (size_t i = 0; i < p->nr; i++)
		len += strlen(p->word[i]) + 1;
	s = xmalloc(len);
	s[0] = '\0';
	for (size_t i = 0; i < p->nr; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, p->word[i]);
	}
	return s;
}

void modparams_free(struct mod_params *p)
{
	for (size_t i = 0; i < p->nr; i++)
		free(p->word[i]);
	p->nr = 0;
}

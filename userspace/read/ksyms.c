// SPDX-License-Identifier: GPL-2.0
/* kallsyms snapshot parsing and address lookup. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ksyms.h"
#include "util.h"

#define KSYM_MAX_DISTANCE (1u << 20)

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Text symbols only: type t/T (functions), w/W are weak, often text. */
static int is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

void ksyms_load(struct ksyms *k, const char *text)
{
	size_t cap = 0;
	char *line, *save = NULL;

	memset(k, 0, sizeof(*k));
	if (!text)
		return;
	k->names = text_printable(xstrdup(text));
	for (line = strtok_r(k->names, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *end, *type, *name, *mod;
		uint64_t addr = strtoull(line, &end, 16);

		if (end == line || *end != ' ')
			continue;
		type = end + 1;
		if (!is_text(*type) || type[1] != ' ' || !addr)
			continue;
		name = type + 2;
		mod = strchr(name, '\t');
		if (mod) {
			*mod++ = '\0';
			if (*mod == '[') {
				char *close = strchr(++mod, ']');

				if (close)
					*close = '\0';
			}
		}
		if (k->nr == cap) {
			cap = cap ? cap * 2 : 4096;
			k->syms = xrealloc(k->syms, cap * sizeof(*k->syms));
		}
		k->syms[k->nr].addr = addr;
		k->syms[k->nr].name = name;
		k->syms[k->nr].module = mod;
		k->nr++;
	}
	if (k->nr)
		qsort(k->syms, k->nr, sizeof(*k->syms), ksym_cmp);
}

void ksyms_free(struct ksyms *k)
{
	free(k->syms);
	free(k->names);
	memset(k, 0, sizeof(*k));
}

const struct ksym *ksyms_find(const struct ksyms *k, uint64_t addr)
{
	size_t lo = 0, hi = k->nr;

	/* Last symbol with sym.addr <= addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr - k->syms[lo - 1].addr > KSYM_MAX_DISTANCE)
		return NULL;
	return &k->syms[lo - 1];
}

const char *ksyms_format(const struct ksyms *k, uint64_t addr, char *buf,
			 size_t len)
{
	const struct ksym *s = ksyms_find(k, addr);

	if (!s)
		snprintf(buf, len, "0x%llx", (unsigned long long)addr);
	else if (s->module)
		snprintf(buf, len, "%s+0x%llx [%s]", s->name,
			 (unsigned long long)(addr - s->addr), s->module);
	else
		snprintf(buf, len, "%s+0x%llx", s->name,
			 (unsigned long long)(addr - s->addr));
	return buf;
}

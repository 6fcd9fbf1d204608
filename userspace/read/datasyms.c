// SPDX-License-Identifier: GPL-2.0
/*
 * Naming data addresses (see datasyms.h).  Every kallsyms symbol bounds
 * the one before it, text and section markers included; only data
 * symbols become names, one per address (a global preferred over a
 * local, a variable over a marker).
 */
#include <stdlib.h>
#include <string.h>
#include "datasyms.h"
#include "util.h"

/*
 * Per-CPU symbols are offsets from 0 (vmlinux 'A', a module's 'a'), far
 * below any kernel address with 4- or 5-level paging.
 */
#define PERCPU_SYMBOL_LIMIT (1ull << 32)
#define LAST_MAX 4096	/* size of a last symbol, which nothing bounds */

/* Section and area markers: bounds, never the name of a variable. */
static int is_marker(const char *name)
{
	static const char *const exact[] = {
		"_sdata", "_edata", "__bss_start", "__bss_stop", "_end",
		"_etext", "_stext", "_text", "__init_begin", "__init_end",
		"__start_rodata", "__end_rodata", "__brk_base", "__brk_limit",
		"__end_of_kernel_reserve", "__per_cpu_start", "__per_cpu_end",
	};

	if (!strncmp(name, "__start_", 8) || !strncmp(name, "__stop_", 7))
		return 1;
	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (!strcmp(name, exact[i]))
			return 1;
	return 0;
}

static int is_data_type(char t)
{
	return strchr("dDbBrRvVaA", t) != NULL;
}

/* Lower is better: the name shown when several share an address. */
static int rank(const struct data_sym *s)
{
	if (!is_data_type(s->type) || is_marker(s->name))
		return 2;
	return s->type >= 'a' && s->type <= 'z';	/* local after global */
}

static int by_addr(const void *a, const void *b)
{
	const struct data_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (rank(x) != rank(y))
		return rank(x) - rank(y);
	return strcmp(x->name, y->name);	/* the same on every run */
}

/*
 * From symbols sorted by address: one per address, sized to the next
 * address; only the data symbols are kept.  @last_max: the size of the
 * last one, which nothing bounds.
 */
static size_t keep_data(struct data_sym *s, size_t n, uint64_t last_max)
{
	size_t out = 0;

	for (size_t i = 0; i < n; i++) {
		size_t next = i + 1;

		if (i && s[i].addr == s[i - 1].addr)
			continue;	/* an alias, ranked after the first */
		while (next < n && s[next].addr == s[i].addr)
			next++;
		if (rank(&s[i]) == 2)
			continue;
		s[i].size = next < n ? s[next].addr - s[i].addr : last_max;
		if (s[i].size > DATASYM_MAX_SIZE)
			s[i].size = DATASYM_MAX_SIZE;
		s[out++] = s[i];
	}
	return out;
}

static void push(struct data_sym **arr, size_t *n, size_t *cap,
		 const struct data_sym *s)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 4096;
		*arr = xrealloc(*arr, *cap * sizeof(**arr));
	}
	(*arr)[(*n)++] = *s;
}

void data_syms_load(struct data_syms *d, const char *kallsyms,
		    const uint64_t *offsets, size_t nr_cpus)
{
	size_t cap_image = 0, cap_percpu = 0;
	uint64_t percpu_end = 0;
	char *line, *save = NULL;
	int any_address = 0;

	memset(d, 0, sizeof(*d));
	d->cpu_offsets = offsets;
	d->nr_cpus = offsets ? nr_cpus : 0;
	if (!kallsyms)
		return;
	d->names = text_printable(xstrdup(kallsyms));
	for (line = strtok_r(d->names, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct data_sym s = { 0 };
		char *end, *mod;

		s.addr = strtoull(line, &end, 16);
		if (end == line || end[0] != ' ' || !end[1] || end[2] != ' ')
			continue;
		s.type = end[1];
		s.name = end + 3;
		mod = strchr(end + 3, '\t');
		if (mod) {
			*mod++ = '\0';
			if (*mod == '[') {
				char *close = strchr(++mod, ']');

				if (close)
					*close = '\0';
				s.module = mod;
			}
		}
		any_address |= s.addr != 0;
		if (!strcmp(s.name, "__per_cpu_end") && !s.module)
			percpu_end = s.addr;
		if (s.addr >= PERCPU_SYMBOL_LIMIT)
			push(&d->image, &d->nr_image, &cap_image, &s);
		else if (is_data_type(s.type))
			push(&d->percpu, &d->nr_percpu, &cap_percpu, &s);
	}
	if (!any_address) {	/* kptr_restrict: every address reads 0 */
		d->nr_image = 0;
		d->nr_percpu = 0;
		return;
	}
	qsort(d->image, d->nr_image, sizeof(*d->image), by_addr);
	d->nr_image = keep_data(d->image, d->nr_image, LAST_MAX);
	qsort(d->percpu, d->nr_percpu, sizeof(*d->percpu), by_addr);
	/* __per_cpu_end bounds vmlinux's last per-CPU variable. */
	if (percpu_end) {
		struct data_sym end = {
			.addr = percpu_end, .name = "__per_cpu_end", .type = 'A',
		};

		push(&d->percpu, &d->nr_percpu, &cap_percpu, &end);
		qsort(d->percpu, d->nr_percpu, sizeof(*d->percpu), by_addr);
	}
	d->nr_percpu = keep_data(d->percpu, d->nr_percpu, LAST_MAX);
}

void data_syms_free(struct data_syms *d)
{
	free(d->image);
	free(d->percpu);
	free(d->names);
	memset(d, 0, sizeof(*d));
}

/* The symbol whose [addr, addr + size) holds @a, or NULL. */
static const struct data_sym *find(const struct data_sym *s, size_t n,
				   uint64_t a)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || a - s[lo - 1].addr >= s[lo - 1].size)
		return NULL;
	return &s[lo - 1];
}

void data_syms_place(const struct data_syms *d, const struct dprof_data_agg *e,
		     struct data_place *out)
{
	const struct data_sym *s;

	memset(out, 0, sizeof(*out));
	out->cpu = -1;
	if (e->flags & DPROF_DATA_STACK) {
		out->region = DATA_STACK;
		return;
	}
	if (e->flags & DPROF_DATA_USER) {
		out->region = DATA_USER;
		return;
	}
	s = find(d->image, d->nr_image, e->addr);
	if (s) {
		out->region = s->module ? DATA_MODULE : DATA_IMAGE;
		out->sym = s;
		out->offset = e->addr - s->addr;
		return;
	}
	for (size_t c = 0; c < d->nr_cpus; c++) {
		uint64_t off = e->addr - d->cpu_offsets[c];

		if (!d->cpu_offsets[c] || e->addr < d->cpu_offsets[c] ||
		    off >= PERCPU_SYMBOL_LIMIT)
			continue;
		s = find(d->percpu, d->nr_percpu, off);
		if (s) {
			out->region = DATA_PERCPU;
			out->sym = s;
			out->offset = off - s->addr;
			out->cpu = (int)c;
			return;
		}
	}
	out->region = DATA_UNNAMED;
}

const char *data_region_name(enum data_region r)
{
	static const char *const names[DATA_NR_REGIONS] = {
		[DATA_IMAGE] = "image", [DATA_MODULE] = "module",
		[DATA_PERCPU] = "percpu", [DATA_STACK] = "stack",
		[DATA_USER] = "user", [DATA_UNNAMED] = "unnamed",
	};

	return r < DATA_NR_REGIONS ? names[r] : "?";
}

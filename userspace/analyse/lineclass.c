// SPDX-License-Identifier: GPL-2.0
/* Line classes of combined traces (see lineclass.h). */
#include <stdlib.h>
#include <string.h>
#include "classify.h"
#include "lineclass.h"
#include "util.h"

static struct lineclass_line *line_of(struct lineclass_trace *lt,
				      uint16_t line)
{
	for (size_t i = 0; i < lt->nr_lines; i++)
		if (lt->lines[i].line == line)
			return &lt->lines[i];
	lt->lines = xrealloc(lt->lines, (lt->nr_lines + 1) *
				       sizeof(*lt->lines));
	memset(&lt->lines[lt->nr_lines], 0, sizeof(*lt->lines));
	lt->lines[lt->nr_lines].line = line;
	return &lt->lines[lt->nr_lines++];
}

static int by_line(const void *a, const void *b)
{
	const struct lineclass_line *x = a, *y = b;

	return x->line < y->line ? -1 : x->line > y->line;
}

/* The trace as a history of one life on CPUs 0 and 1, and its classes. */
static void classify_trace(struct lineclass_trace *lt)
{
	const struct combined_trace *t = lt->t;
	struct history h;
	uint8_t *class = xcalloc(t->nr_steps + 1, 1);
	const struct hist_elem **writer = xcalloc(t->nr_steps + 1,
						  sizeof(*writer));
	uint16_t cpu = 0;

	memset(&h, 0, sizeof(h));
	h.target = t->target;
	h.elems = xcalloc(t->nr_steps + 1, sizeof(*h.elems));
	h.nr_elems = t->nr_steps;
	for (size_t i = 0; i < t->nr_steps; i++) {
		const struct combined_step *s = &t->steps[i];
		struct hist_elem *e = &h.elems[i];

		/*
		 * The side the step's own paths put it on; else the change
		 * against the step before, where a path saw both.
		 */
		if (s->side >= 0)
			cpu = (uint16_t)s->side;
		else if (s->cpu == COMBINED_CPU_CHANGE)
			cpu ^= 1;
		else if (s->cpu == COMBINED_CPU_UNKNOWN)
			lt->unknown_cpu++;
		e->cpu = cpu;
		e->offset = s->offset;
		e->ip = s->ip;
		e->write = s->write;
		e->rw_known = true;
		e->time_ns = (uint32_t)s->time_mean_ns;
	}
	classify_history(&h, class, writer);
	for (size_t k = 0; k < t->nr_offsets; k++)
		line_of(lt, t->offsets[k] / CLASSIFY_LINE)->fields++;
	for (size_t i = 0; i < t->nr_steps; i++) {
		struct lineclass_line *l = line_of(lt, h.elems[i].offset /
						   CLASSIFY_LINE);

		l->accesses++;
		switch (class[i]) {
		case CLASS_HIT: l->hits++; break;
		case CLASS_TRUE_SHARING: l->true_sharing++; break;
		case CLASS_FALSE_SHARING: l->false_sharing++; break;
		case CLASS_TRANSFER: l->transfers++; break;
		default: l->first_touch++; break;
		}
	}
	qsort(lt->lines, lt->nr_lines, sizeof(*lt->lines), by_line);
	lt->exact = t->pairs_watched == t->pairs && !t->by_time &&
		    !lt->unknown_cpu;
	free(h.elems);
	free(writer);
	free(class);
}

void lineclass_build(struct lineclass_set *ls, const struct combined_set *cs)
{
	memset(ls, 0, sizeof(*ls));
	ls->t = xcalloc(cs->n + 1, sizeof(*ls->t));
	ls->n = cs->n;
	for (size_t i = 0; i < cs->n; i++) {
		ls->t[i].t = &cs->c[i];
		classify_trace(&ls->t[i]);
	}
}

void lineclass_free(struct lineclass_set *ls)
{
	for (size_t i = 0; i < ls->n; i++)
		free(ls->t[i].lines);
	free(ls->t);
	memset(ls, 0, sizeof(*ls));
}

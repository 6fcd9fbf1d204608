// SPDX-License-Identifier: GPL-2.0
/* A measured layout proposal and its what-if (see advise.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diffstat.h"
#include "advise.h"
#include "util.h"

static uint16_t moved(const struct advise *a, uint16_t off);

const char *advise_role_name(enum advise_role r)
{
	static const char *const names[ADVISE_NR_ROLES] = {
		[ADVISE_WRITE_A] = "written-by-allocator",
		[ADVISE_READ] = "read-mostly",
		[ADVISE_WRITE_B] = "written-by-others",
		[ADVISE_WRITE_BOTH] = "written-by-both",
		[ADVISE_UNDECIDED] = "undecided",
		[ADVISE_COLD] = "cold",
		[ADVISE_UNWATCHED] = "unwatched",
	};

	return r < ADVISE_NR_ROLES ? names[r] : "?";
}

/* The top-level member a leaf belongs to: its path up to '.' or '['. */
static size_t top_len(const char *path)
{
	return strcspn(path, ".[");
}

static uint32_t lowbit(uint32_t x)
{
	return x & -x;
}

/* The natural alignment of @n bytes: a power of two up to 8. */
static uint32_t natural(uint32_t n)
{
	uint32_t a = n ? lowbit(n) : 1;

	return a > 8 ? 8 : a;
}

static void add_name(struct advise_unit *u, const char *path)
{
	size_t n = top_len(path), have = u->name ? strlen(u->name) : 0;
	const char *p = u->name;

	/* Already listed? */
	while (p && *p) {
		size_t k = strcspn(p, ",");

		if (k == n && !strncmp(p, path, n))
			return;
		p += k;
		while (*p == ',' || *p == ' ')
			p++;
	}
	u->name = xrealloc(u->name, have + n + 3);
	if (have) {
		memcpy(u->name + have, ", ", 2);
		have += 2;
	}
	memcpy(u->name + have, path, n);
	u->name[have + n] = 0;
}

/* A top-level member's bytes, over its leaves. */
struct span {
	uint32_t lo, hi;	/* [lo, hi) */
	size_t first;		/* its first leaf */
	uint32_t align;
	bool bitfield, marker;
};

static int by_lo(const void *x, const void *y)
{
	const struct span *p = x, *q = y;

	if (p->lo != q->lo)
		return p->lo < q->lo ? -1 : 1;
	return p->first < q->first ? -1 : p->first > q->first;
}

/*
 * Leaves -> units.  Each top-level member (a leaf's path up to '.' or
 * '[') spans its leaves' bytes; spans that overlap (an anonymous union's
 * members, a struct_group() and its named twin) or that continue a run
 * of bitfields make one unit.  A zero-sized leaf (a marker such as
 * sk_buff's __pkt_type_offset[0]) goes with the unit that starts where
 * it is; one at the struct's end is the flexible array.
 */
static void build_units(struct advise *a, const struct layout *l)
{
	struct span *sp = xcalloc(l->nr_fields + 1, sizeof(*sp));
	size_t ns = 0, cap = 0;
	const char *pending = NULL;	/* a marker's name */
	bool run = false;		/* the last unit is bitfields */

	for (size_t i = 0; i < l->nr_fields; i++) {
		const struct layout_field *f = &l->fields[i];
		size_t n = top_len(f->path), k;
		uint32_t al = f->align ? f->align :
			      natural(f->elem_size ? f->elem_size : f->size);

		for (k = 0; k < ns; k++) {
			const char *p = l->fields[sp[k].first].path;

			if (n && top_len(p) == n && !strncmp(p, f->path, n))
				break;
		}
		if (k == ns) {
			sp[ns++] = (struct span){
				.lo = f->offset, .hi = f->offset + f->size,
				.first = i, .align = 1,
				.bitfield = f->bit_size, .marker = !f->size,
			};
		}
		if (f->offset < sp[k].lo)
			sp[k].lo = f->offset;
		if (f->offset + f->size > sp[k].hi)
			sp[k].hi = f->offset + f->size;
		sp[k].marker &= !f->size;
		sp[k].bitfield |= f->bit_size;
		if (!f->bit_size && f->size && al > sp[k].align)
			sp[k].align = al;
	}
	qsort(sp, ns, sizeof(*sp), by_lo);
	for (size_t k = 0; k < ns; k++) {
		const struct layout_field *f = &l->fields[sp[k].first];
		struct advise_unit *u = a->nu ? &a->u[a->nu - 1] : NULL;
		uint32_t end = u ? u->old_off + u->size : 0;
		bool flex = sp[k].marker && sp[k].lo >= l->size;
		bool join;

		/* A cache-line group's markers are no member (cachegroups.h). */
		if (sp[k].marker && !strncmp(f->path, "__cacheline_group_", 18))
			continue;

		if (sp[k].marker && !flex) {
			if (u && sp[k].lo < end)
				add_name(u, f->path);
			else if (!pending)
				pending = f->path;
			continue;
		}
		join = u && !u->flex && !flex &&
		       (sp[k].lo < end ||
			(sp[k].bitfield && run && sp[k].lo <= end));
		if (!join) {
			if (a->nu == cap) {
				cap = cap ? 2 * cap : 32;
				a->u = xrealloc(a->u, cap * sizeof(*a->u));
			}
			u = &a->u[a->nu++];
			memset(u, 0, sizeof(*u));
			u->old_off = sp[k].lo;
			u->align = 1;
			u->flex = flex;
			run = sp[k].bitfield;
		}
		if (pending) {
			add_name(u, pending);
			pending = NULL;
		}
		add_name(u, f->path);
		if (sp[k].hi > u->old_off + u->size)
			u->size = sp[k].hi - u->old_off;
		if (sp[k].align > u->align)
			u->align = sp[k].align;
		if (flex)
			u->align = natural(f->elem_size);
	}
	free(sp);
	for (size_t i = 0; i < a->nu; i++) {
		struct advise_unit *u = &a->u[i];
		uint32_t next = i + 1 < a->nu ? a->u[i + 1].old_off : l->size;

		if (u->flex)
			continue;
		if (u->align == 1 && u->size > 1)	/* bitfields */
			u->align = natural(u->size);
		/* The compiler placed it there: no stricter than that. */
		if (u->old_off && lowbit(u->old_off) < u->align)
			u->align = lowbit(u->old_off);
		/* A nested struct's tail padding is its own. */
		while (u->size % u->align && u->old_off + u->size < next)
			u->size++;
	}
}

/* Per watched offset: accesses and writes per side, over histories. */
struct slot_sum {
	uint16_t offset;
	uint64_t histories;
	uint64_t acc, wa, wb, ra, rb;
	/* per history: sums of squares and products, for the intervals */
	double acc2, wa2, wb2, wa_acc, wb_acc;
};

static struct slot_sum *slot_of(struct slot_sum **s, size_t *n,
				uint16_t offset)
{
	for (size_t i = 0; i < *n; i++)
		if ((*s)[i].offset == offset)
			return &(*s)[i];
	*s = xrealloc(*s, (*n + 1) * sizeof(**s));
	memset(&(*s)[*n], 0, sizeof(**s));
	(*s)[*n].offset = offset;
	return &(*s)[(*n)++];
}

/*
 * A side's write share W = X / Y of a unit, X its writes and Y its
 * accesses per life, each a sum over the unit's slots of a mean over the
 * histories that watched the slot.  The histories are the units: per
 * slot, the variance of the mean of d = w - W acc (the ratio of sums,
 * linearised), summed over the slots as independent (different
 * histories watch different slots; a group's slots share theirs, which
 * this ignores), over Y^2.  Never below a Poisson floor of the writes
 * (plus one), as winshare's: histories that agree exactly claim no
 * error otherwise.  Half-width at 95%, Student's t on the fewest
 * histories behind a slot.
 */
struct side_sum {
	double x, y, var, floor;
	uint64_t fewest;
};

static void side_add(struct side_sum *ss, const struct slot_sum *s,
		     uint64_t w, double w2, double w_acc, double share)
{
	double n = (double)s->histories;
	double sd = (double)w - share * (double)s->acc;
	double sdd = w2 - 2 * share * w_acc + share * share * s->acc2;

	if (n >= 2)
		ss->var += (sdd - sd * sd / n) / (n - 1) / n;
	ss->floor += ((double)w + 1) / (n * n);
	if (!ss->fewest || s->histories < ss->fewest)
		ss->fewest = s->histories;
}

/* Student's t for @n units (n - 1 degrees of freedom); -1 below 2. */
static double t975_df(uint64_t n)
{
	return n < 2 ? -1 : stat_t975((double)(n - 1));
}

static double side_half(const struct side_sum *ss, double y)
{
	double t = t975_df(ss->fewest), v;

	if (t < 0 || y <= 0)
		return -1;
	v = ss->var > ss->floor ? ss->var : ss->floor;
	return t * sqrt(v) / y;
}

/* Whether a side writes: 1 yes, 0 no, -1 its interval straddles. */
static int side_writes(double share, double half)
{
	if (half < 0)
		return share >= ADVISE_WRITE_SHARE;	/* no interval: as before */
	if (share - half >= ADVISE_WRITE_SHARE)
		return 1;
	if (share + half < ADVISE_WRITE_SHARE)
		return 0;
	return -1;
}

static void measure(struct advise *a, const struct history_set *hs,
		    int target)
{
	struct slot_sum *s = NULL;
	size_t ns = 0;
	uint32_t slot_len = 8;

	for (size_t i = 0; i < hs->n; i++) {
		const struct history *h = &hs->h[i];

		if (h->target != target || !classify_usable(h))
			continue;
		a->histories++;
		if (h->len)
			slot_len = h->len;
		for (int w = 0; w < h->nr_offsets; w++) {
			struct slot_sum *x = slot_of(&s, &ns, h->offset[w]);

			uint64_t acc = 0, wa = 0, wb = 0;

			x->histories++;
			for (size_t k = 0; k < h->nr_elems; k++) {
				const struct hist_elem *e = &h->elems[k];

				if (e->offset != h->offset[w])
					continue;
				acc++;
				if (e->write && e->cpu == h->alloc_cpu)
					wa++;
				else if (e->write)
					wb++;
				else if (e->cpu == h->alloc_cpu)
					x->ra++;
				else
					x->rb++;
			}
			x->acc += acc;
			x->wa += wa;
			x->wb += wb;
			x->acc2 += (double)acc * acc;
			x->wa2 += (double)wa * wa;
			x->wb2 += (double)wb * wb;
			x->wa_acc += (double)wa * acc;
			x->wb_acc += (double)wb * acc;
		}
	}
	for (size_t i = 0; i < a->nu; i++) {
		struct advise_unit *u = &a->u[i];
		struct side_sum sa = { 0 }, sb = { 0 };
		bool watched = false;
		int wa, wb;

		for (size_t k = 0; k < ns; k++) {
			double hn = (double)s[k].histories;

			/* A slot over several units counts for each. */
			if (s[k].offset + slot_len <= u->old_off ||
			    s[k].offset >= u->old_off + (u->size ? u->size : 1))
				continue;
			watched = true;
			u->accesses += (double)s[k].acc / hn;
			u->writes_a += (double)s[k].wa / hn;
			u->writes_b += (double)s[k].wb / hn;
			u->reads_a += (double)s[k].ra / hn;
			u->reads_b += (double)s[k].rb / hn;
			if (!u->histories || s[k].histories < u->histories)
				u->histories = s[k].histories;
		}
		u->share_a = u->accesses > 0 ? u->writes_a / u->accesses : 0;
		u->share_b = u->accesses > 0 ? u->writes_b / u->accesses : 0;
		for (size_t k = 0; k < ns; k++) {
			if (s[k].offset + slot_len <= u->old_off ||
			    s[k].offset >= u->old_off + (u->size ? u->size : 1))
				continue;
			side_add(&sa, &s[k], s[k].wa, s[k].wa2, s[k].wa_acc,
				 u->share_a);
			side_add(&sb, &s[k], s[k].wb, s[k].wb2, s[k].wb_acc,
				 u->share_b);
		}
		u->half_a = side_half(&sa, u->accesses);
		u->half_b = side_half(&sb, u->accesses);
		wa = side_writes(u->share_a, u->half_a);
		wb = side_writes(u->share_b, u->half_b);
		if (!watched)
			u->role = ADVISE_UNWATCHED;
		else if (u->accesses < 0.01)
			u->role = ADVISE_COLD;
		else if (wa < 0 || wb < 0)
			u->role = ADVISE_UNDECIDED;
		else if (wa && wb)
			u->role = ADVISE_WRITE_BOTH;
		else if (wa)
			u->role = ADVISE_WRITE_A;
		else if (wb)
			u->role = ADVISE_WRITE_B;
		else
			u->role = ADVISE_READ;
	}
	free(s);
}

/* Packing state: the units placed so far, and the pinned ranges. */
struct packer {
	struct advise *a;
	uint32_t cursor;
	size_t placed;
};

static uint32_t align_up(uint32_t x, uint32_t a)
{
	return (x + a - 1) / a * a;
}

/* The first aligned offset from @from where @u fits between pins. */
static uint32_t fit(const struct advise *a, const struct advise_unit *u,
		    uint32_t from)
{
	uint32_t off = align_up(from, u->align);
	bool moved = true;

	while (moved) {
		moved = false;
		for (size_t i = 0; i < a->nu; i++) {
			const struct advise_unit *p = &a->u[i];

			if (!p->pinned || p == u)
				continue;
			if (off < p->old_off + p->size &&
			    p->old_off < off + u->size) {
				off = align_up(p->old_off + p->size, u->align);
				moved = true;
			}
		}
	}
	return off;
}

static void place(struct packer *pk, size_t i)
{
	struct advise_unit *u = &pk->a->u[i];

	u->new_off = fit(pk->a, u, pk->cursor);
	pk->cursor = u->new_off + u->size;
	pk->a->order[pk->placed++] = i;
}

/* Whether a unit is still to place as a filler (cold, movable). */
static bool filler(const struct advise_unit *u, const bool *done)
{
	return !*done && !u->pinned && !u->flex && u->group < 0;
}

static const char *const group_names[ADVISE_NR_STRATEGIES][ADVISE_MAX_GROUPS] = {
	[ADVISE_TODAY] = { "today" },
	[ADVISE_BY_WRITER] = { "written-by-allocator", "read-mostly",
			       "written-by-others", "written-by-both" },
	[ADVISE_BY_TOUCH] = { "touched-by-allocator", "touched-by-both",
			      "touched-by-others" },
};

const char *advise_group_name(enum advise_strategy st, int g)
{
	return g < 0 ? "cold" : group_names[st][g];
}

const char *advise_strategy_name(enum advise_strategy st)
{
	return st == ADVISE_TODAY ? "today" :
	       st == ADVISE_BY_WRITER ? "by-writer" :
	       st == ADVISE_BY_PATH ? "by-path" : "by-touch";
}

/* Group @g's name in @a's strategy ("cold" for -1). */
static const char *advise_group_label(const struct advise *a, int g)
{
	if (a->strategy == ADVISE_BY_PATH)
		return g < 0 || g >= a->ngroups ? "cold" : a->group_names[g];
	return advise_group_name(a->strategy, g);
}

/*
 * The groups of a strategy; -1 for a filler.  By writer: the roles.  By
 * touch: who accesses the unit at all (a handed-off object's consumer
 * reads what its producer wrote: the fields it touches together should
 * cost it as few lines as possible).
 */
static int group_of(const struct advise_unit *u, enum advise_strategy st)
{
	bool a, b;

	if (st == ADVISE_BY_PATH)
		return u->path_group;
	if (u->role >= ADVISE_COLD || st == ADVISE_TODAY)
		return -1;
	/* Undecided: a line of its own side, as written by both. */
	if (st == ADVISE_BY_WRITER)
		return u->role == ADVISE_UNDECIDED ? (int)ADVISE_WRITE_BOTH :
						    (int)u->role;
	a = u->writes_a + u->reads_a >= ADVISE_WRITE_SHARE * u->accesses;
	b = u->writes_b + u->reads_b >= ADVISE_WRITE_SHARE * u->accesses;
	return a && b ? 1 : a ? 0 : 2;
}

static int by_heat(const void *x, const void *y, void *ctx)
{
	const struct advise *a = ctx;
	const struct advise_unit *p = &a->u[*(const size_t *)x];
	const struct advise_unit *q = &a->u[*(const size_t *)y];

	if (p->accesses != q->accesses)
		return p->accesses < q->accesses ? 1 : -1;
	return p->old_off < q->old_off ? -1 : p->old_off > q->old_off;
}

static int by_align_heat(const void *x, const void *y, void *ctx)
{
	const struct advise *a = ctx;
	const struct advise_unit *p = &a->u[*(const size_t *)x];
	const struct advise_unit *q = &a->u[*(const size_t *)y];

	if (p->align != q->align)
		return p->align < q->align ? 1 : -1;
	return by_heat(x, y, ctx);
}

/*
 * Move off the line where group @was ended before group @next starts:
 * cold units first (one may run into the next line, whose bytes it then
 * shares with @next harmlessly), the smallest that reaches the line's
 * end, else the largest; padding only when none is left.
 */
static void close_line(struct packer *pk, bool *done, int was, int next)
{
	struct advise *a = pk->a;
	uint32_t end;

	if (!(pk->cursor % a->line))
		return;
	end = (pk->cursor / a->line + 1) * a->line;
	while (pk->cursor < end) {
		size_t reach = a->nu, big = a->nu;

		for (size_t i = 0; i < a->nu; i++) {
			const struct advise_unit *u = &a->u[i];
			uint32_t to;

			if (!filler(u, &done[i]))
				continue;
			to = fit(a, u, pk->cursor) + u->size;
			if (to >= end &&
			    (reach == a->nu || u->size < a->u[reach].size))
				reach = i;
			if (big == a->nu || u->size > a->u[big].size)
				big = i;
		}
		if (big == a->nu)
			break;
		done[reach < a->nu ? reach : big] = true;
		place(pk, reach < a->nu ? reach : big);
	}
	if (pk->cursor < end) {
		a->pads = xrealloc(a->pads, (a->npads + 1) * sizeof(*a->pads));
		a->pads[a->npads++] = (struct advise_pad){
			.off = pk->cursor, .size = end - pk->cursor,
			.before = was < 0 && a->strategy == ADVISE_BY_PATH ?
				  "the members before" :
				  advise_group_label(a, was),
			.after = advise_group_label(a, next),
		};
		pk->cursor = end;
	}
}

/* Lines holding the writes of two sides (or of both with one), at @new. */
static size_t mixed_lines(const struct advise *a, bool new)
{
	uint32_t size = new ? a->new_size : a->old_size;
	size_t n = 0;

	for (uint32_t line = 0; line * a->line < size; line++) {
		unsigned int sides = 0;

		for (size_t i = 0; i < a->nu; i++) {
			const struct advise_unit *u = &a->u[i];
			uint32_t off = new ? u->new_off : u->old_off;

			if (!u->size || (new && u->gone) ||
			    off >= (line + 1) * a->line ||
			    off + u->size <= line * a->line)
				continue;
			if (u->role == ADVISE_WRITE_A)
				sides |= 1;
			else if (u->role == ADVISE_WRITE_B)
				sides |= 2;
			else if (u->role == ADVISE_WRITE_BOTH ||
				 u->role == ADVISE_UNDECIDED)
				sides |= 4;
		}
		n += sides != 0 && (sides & (sides - 1));
	}
	return n;
}

/*
 * A filler that fits whole between the cursor and @until (the next
 * unit's aligned offset), placed there; false when none does.
 */
static bool fill_hole(struct packer *pk, bool *done, uint32_t until)
{
	struct advise *a = pk->a;

	for (size_t j = 0; pk->cursor < until && j < a->nu; j++) {
		const struct advise_unit *u = &a->u[j];

		if (filler(u, &done[j]) &&
		    fit(a, u, pk->cursor) + u->size <= until) {
			done[j] = true;
			place(pk, j);
			return true;
		}
	}
	return false;
}

/*
 * Whether the units @v (@n, in order) placed from the cursor would span
 * more lines than placed from the next line's start.
 */
static bool wasted_line(const struct packer *pk, const size_t *v, size_t n)
{
	const struct advise *a = pk->a;
	uint32_t next = (pk->cursor / a->line + 1) * a->line;
	uint32_t lines[2];

	if (!(pk->cursor % a->line))
		return false;
	for (int k = 0; k < 2; k++) {
		uint32_t at = k ? next : pk->cursor, first = 0, end = at;

		for (size_t i = 0; i < n; i++) {
			uint32_t off = fit(a, &a->u[v[i]], end);

			if (!i)
				first = off;
			end = off + a->u[v[i]].size;
		}
		lines[k] = (end - 1) / a->line - first / a->line + 1;
	}
	return lines[0] > lines[1];
}

/* Lay the units out by strategy @st: offsets, order, padding, size. */
static void pack(struct advise *a, enum advise_strategy st)
{
	struct packer pk = { .a = a };
	bool *done = xcalloc(a->nu + 1, sizeof(*done));
	size_t *hotv = xcalloc(a->nu + 1, sizeof(*hotv)), nh;
	uint32_t max_align = 1;
	int ng = st == ADVISE_BY_PATH ? a->ngroups :
		 st == ADVISE_BY_WRITER ? 4 : 3;
	int last = -1;

	a->strategy = st;
	a->npads = 0;
	if (st == ADVISE_TODAY) {
		for (size_t i = 0; i < a->nu; i++) {
			a->u[i].group = -1;
			a->u[i].new_off = a->u[i].old_off;
			a->order[i] = i;
		}
		a->new_size = a->old_size;
		free(hotv);
		free(done);
		return;
	}
	for (size_t i = 0; i < a->nu; i++) {
		a->u[i].group = group_of(&a->u[i], st);
		if (a->u[i].align > max_align)
			max_align = a->u[i].align;
		if (a->u[i].pinned) {
			a->u[i].new_off = a->u[i].old_off;
			done[i] = true;
		}
	}
	/* Pinned units hold their places; their order entries come last. */
	for (int g = 0; g < ng; g++) {
		int next = -1;

		nh = 0;
		for (size_t i = 0; i < a->nu; i++)
			if (!done[i] && !a->u[i].flex && a->u[i].group == g)
				hotv[nh++] = i;
		if (!nh)
			continue;
		/*
		 * By path, a group is a line or three: the widest alignment
		 * first leaves no hole inside it.
		 */
		qsort_r(hotv, nh, sizeof(*hotv),
			st == ADVISE_BY_PATH ? by_align_heat : by_heat, a);
		/* By path: groups run on, a line closed only to save one. */
		if (st == ADVISE_BY_PATH) {
			/*
			 * Judged from where the group's first unit would go;
			 * the line is closed from the cursor itself, so that
			 * a filler may take the bytes before that unit's
			 * alignment (the compiler packs it there).
			 */
			struct packer probe = pk;

			probe.cursor = fit(a, &a->u[hotv[0]], pk.cursor);
			if (wasted_line(&probe, hotv, nh))
				close_line(&pk, done, last, g);
			last = g;
		}
		for (size_t k = 0; k < nh; k++) {
			done[hotv[k]] = true;
			place(&pk, hotv[k]);
		}
		for (int q = g + 1; q < ng && next < 0; q++)
			for (size_t i = 0; i < a->nu && next < 0; i++)
				if (!done[i] && !a->u[i].flex &&
				    a->u[i].group == q)
					next = q;
		if (next >= 0 && st != ADVISE_BY_PATH)
			close_line(&pk, done, g, next);
	}
	for (size_t i = 0; i < a->nu; i++)
		if (filler(&a->u[i], &done[i])) {
			/* By path: a later filler that fits the hole first. */
			while (st == ADVISE_BY_PATH &&
			       fill_hole(&pk, done, fit(a, &a->u[i], pk.cursor)))
				;
			done[i] = true;
			place(&pk, i);
		}
	for (size_t i = 0; i < a->nu; i++)
		if (a->u[i].flex) {
			a->u[i].new_off = align_up(pk.cursor, a->u[i].align);
			pk.cursor = a->u[i].new_off;
			a->order[pk.placed++] = i;
		}
	for (size_t i = 0; i < a->nu; i++)
		if (a->u[i].pinned) {
			a->order[pk.placed++] = i;
			if (a->u[i].new_off + a->u[i].size > pk.cursor)
				pk.cursor = a->u[i].new_off + a->u[i].size;
		}
	a->new_size = align_up(pk.cursor, max_align);
	if (a->new_size < a->old_size && a->old_size % a->line == 0 &&
	    a->new_size > a->old_size - a->line)
		a->new_size = a->old_size;	/* same lines: keep the size */
	free(hotv);
	free(done);
}

static void replay(struct advise_totals *t, struct advise_totals *per_unit,
		   uint64_t *gone, const struct advise *a,
		   const struct history_set *hs, int target, bool moved_too,
		   uint32_t line);

/* Estimated misses of a layout: what the strategies are judged by. */
static uint64_t misses(const struct advise_totals *t)
{
	return t->true_sharing + t->false_sharing + t->transfers;
}

/* Whether layout @c is better than @b (advise.h: the order of tests). */
static bool better(const struct advise_candidate *c,
		   const struct advise_candidate *b)
{
	uint64_t mc = misses(&c->totals), mb = misses(&b->totals);

	if (c->totals.false_sharing != b->totals.false_sharing)
		return c->totals.false_sharing < b->totals.false_sharing;
	if (mc != mb)
		return mc < mb;
	if (c->totals.lines_per_life != b->totals.lines_per_life)
		return c->totals.lines_per_life < b->totals.lines_per_life;
	if (c->size != b->size)
		return c->size < b->size;
	return c->mixed_lines < b->mixed_lines;
}

/* Every layout, replayed; the best is the proposal (today's on ties). */
static void choose(struct advise *a, const struct history_set *hs,
		   int target)
{
	enum advise_strategy best = ADVISE_TODAY;

	for (enum advise_strategy st = 0; st < ADVISE_NR_STRATEGIES; st++) {
		struct advise_candidate *c = &a->cand[st];

		pack(a, st);
		replay(&c->totals, NULL, NULL, a, hs, target, st != ADVISE_TODAY,
		       a->line == 128 ? 128 : 64);
		c->mixed_lines = mixed_lines(a, true);
		c->size = a->new_size;
		if (st != ADVISE_TODAY && better(c, &a->cand[best]))
			best = st;
	}
	pack(a, best);
}

/* --pin: the units holding each member named keep their offsets. */
static int pin_units(struct advise *a, const struct layout *l,
		     const char *const *pins, char *err, size_t errlen)
{
	for (size_t p = 0; pins && pins[p]; p++) {
		bool found = false;

		for (size_t i = 0; i < a->nu; i++) {
			const char *n = a->u[i].name;
			size_t k = strlen(pins[p]);

			while (n && *n) {
				if (!strncmp(n, pins[p], k) &&
				    (n[k] == 0 || n[k] == ','))
					found = a->u[i].pinned = true;
				n += strcspn(n, ",");
				while (*n == ',' || *n == ' ')
					n++;
			}
		}
		if (!found) {
			snprintf(err, errlen, "--pin %s: no member of %s has that name (dprof-view layout lists them)",
				 pins[p], l->name);
			return -1;
		}
	}
	return 0;
}

int advise_build(struct advise *a, const struct layout *l,
		 const struct history_set *hs, int target, uint32_t line,
		 const char *const *pins, char *err, size_t errlen)
{
	memset(a, 0, sizeof(*a));
	a->line = line ? line : ADVISE_LINE;
	a->old_size = l->size;
	build_units(a, l);
	if (pin_units(a, l, pins, err, errlen)) {
		advise_free(a);
		return -1;
	}
	measure(a, hs, target);
	if (!a->histories) {
		snprintf(err, errlen, "no complete history of %s: record with history=1 (the default) until some objects were freed, or with --until covered=N",
			 l->name);
		advise_free(a);
		return -1;
	}
	a->order = xcalloc(a->nu + 1, sizeof(*a->order));
	choose(a, hs, target);
	a->same_order = a->new_size == a->old_size;
	for (size_t i = 0; i < a->nu && a->same_order; i++)
		a->same_order = a->u[i].new_off == a->u[i].old_off;
	a->mixed_lines_before = mixed_lines(a, false);
	a->mixed_lines_after = mixed_lines(a, true);
	return 0;
}

/* The first member name of @s ("a, b" -> "a"): its length. */
static size_t first_name_len(const char *s)
{
	return strcspn(s, ",");
}

static int by_new_off(const void *x, const void *y, void *ctx)
{
	const struct advise *a = ctx;
	const struct advise_unit *p = &a->u[*(const size_t *)x];
	const struct advise_unit *q = &a->u[*(const size_t *)y];

	return p->new_off < q->new_off ? -1 : p->new_off > q->new_off;
}

/*
 * The given layout's checks and totals, once each unit has its new_off
 * or is gone: no overlap, the size, the order, the mixed lines.
 */
static int finish_given(struct advise *a, uint32_t size, const char *what,
			char *err, size_t errlen)
{
	size_t *v, prev = SIZE_MAX;
	uint32_t end = 0;

	a->nr_gone = 0;
	for (size_t i = 0; i < a->nu; i++) {
		const struct advise_unit *u = &a->u[i];

		a->nr_gone += u->gone;
		if (!u->gone && u->new_off + u->size > end)
			end = u->new_off + u->size;
	}
	if (a->nr_gone == a->nu) {
		snprintf(err, errlen, "%s has none of the members of today's struct: not a layout of the same struct",
			 what);
		return -1;
	}
	v = xcalloc(a->nu + 1, sizeof(*v));
	for (size_t i = 0; i < a->nu; i++)
		v[i] = i;
	qsort_r(v, a->nu, sizeof(*v), by_new_off, a);
	for (size_t i = 0; i < a->nu; i++) {
		const struct advise_unit *p, *q = &a->u[v[i]];

		if (q->gone || !q->size)
			continue;
		p = prev == SIZE_MAX ? NULL : &a->u[prev];
		prev = v[i];
		if (p && p->new_off + p->size > q->new_off) {
			snprintf(err, errlen, "in %s, %s (at %u, %u bytes) overlaps %s (at %u)",
				 what, p->name, p->new_off, p->size, q->name,
				 q->new_off);
			free(v);
			return -1;
		}
	}
	for (size_t i = 0; i < a->nu; i++)
		a->order[i] = v[i];
	free(v);
	a->new_size = size > end ? size : end;
	a->npads = 0;
	a->given = what;
	a->same_order = a->new_size == a->old_size && !a->nr_gone;
	for (size_t i = 0; i < a->nu && a->same_order; i++)
		a->same_order = a->u[i].new_off == a->u[i].old_off;
	a->mixed_lines_after = mixed_lines(a, true);
	return 0;
}

int advise_use_offsets(struct advise *a, const char *const *names,
		       const uint32_t *offs, size_t n, uint32_t size,
		       const char *what, char *err, size_t errlen)
{
	for (size_t i = 0; i < a->nu; i++) {
		struct advise_unit *u = &a->u[i];
		size_t k = first_name_len(u->name), j;

		for (j = 0; j < n; j++)
			if (first_name_len(names[j]) == k &&
			    !strncmp(names[j], u->name, k))
				break;
		u->gone = j == n;
		u->new_off = u->gone ? u->old_off : offs[j];
	}
	return finish_given(a, size, what, err, errlen);
}

/* A top-level member of another build: its bytes there. */
struct other_member {
	const char *name;	/* into the layout's path, top_len() long */
	size_t len;
	uint32_t lo, hi;
};

/* The other build's bytes of the unit's members; false if one lacks. */
static bool unit_span(const struct advise_unit *u,
		      const struct other_member *m, size_t n, uint32_t *lo,
		      uint32_t *hi)
{
	const char *p = u->name;

	*lo = UINT32_MAX;
	*hi = 0;
	while (*p) {
		size_t k = first_name_len(p), j;

		for (j = 0; j < n; j++)
			if (m[j].len == k && !strncmp(m[j].name, p, k))
				break;
		if (j == n)
			return false;
		if (m[j].lo < *lo)
			*lo = m[j].lo;
		if (m[j].hi > *hi)
			*hi = m[j].hi;
		p += k;
		while (*p == ',' || *p == ' ')
			p++;
	}
	return true;
}

int advise_use_layout(struct advise *a, const struct layout *l,
		      const char *what, char *err, size_t errlen)
{
	struct other_member *m = xcalloc(l->nr_fields + 1, sizeof(*m));
	size_t n = 0;
	int ret;

	for (size_t i = 0; i < l->nr_fields; i++) {
		const struct layout_field *f = &l->fields[i];
		size_t k = top_len(f->path), j;

		for (j = 0; j < n; j++)
			if (m[j].len == k && !strncmp(m[j].name, f->path, k))
				break;
		if (j == n) {
			m[n].name = f->path;
			m[n].len = k;
			m[n].lo = f->offset;
			m[n++].hi = f->offset + f->size;
			continue;
		}
		if (f->offset < m[j].lo)
			m[j].lo = f->offset;
		if (f->offset + f->size > m[j].hi)
			m[j].hi = f->offset + f->size;
	}
	/*
	 * A unit keeps its bytes only when all its members are there and
	 * span as many bytes: else its type changed (6.12's struct file
	 * holds a pointer where 6.1's held struct fown_struct) and offsets
	 * inside it do not map: it is gone, like a member dropped.
	 */
	for (size_t i = 0; i < a->nu; i++) {
		struct advise_unit *u = &a->u[i];
		uint32_t lo, hi;

		u->gone = !unit_span(u, m, n, &lo, &hi) || hi - lo != u->size;
		u->new_off = u->gone ? u->old_off : lo;
	}
	ret = finish_given(a, l->size, what, err, errlen);
	free(m);
	return ret;
}

void advise_free(struct advise *a)
{
	for (size_t i = 0; i < a->nu; i++) {
		free(a->u[i].name);
		for (size_t p = 0; p < FASTPATH_MAX_PATHS; p++)
			free(a->u[i].path_funcs[p]);
	}
	for (int g = 0; g < a->ngroups; g++)
		free(a->group_names[g]);
	free(a->u);
	free(a->order);
	free(a->pads);
	memset(a, 0, sizeof(*a));
}

const struct advise_unit *advise_unit_at(const struct advise *a, uint32_t off)
{
	for (size_t i = 0; i < a->nu; i++)
		if (off >= a->u[i].old_off &&
		    off < a->u[i].old_off + a->u[i].size)
			return &a->u[i];
	return NULL;
}

/* @off moved to the proposal; unchanged outside every unit. */
static uint16_t moved(const struct advise *a, uint16_t off)
{
	const struct advise_unit *u = advise_unit_at(a, off);

	return u ? (uint16_t)(u->new_off + (off - u->old_off)) : off;
}

static void totals(struct advise_totals *t, const struct classify *c,
		   const struct history_set *hs, int target)
{
	struct slot_sum *sl = NULL;	/* acc: lives that touched it */
	size_t ns = 0;

	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < c->n; i++) {
		const struct classify_field *f = &c->f[i];

		if (f->target != target)
			continue;
		t->accesses += f->accesses;
		t->true_sharing += f->true_sharing;
		t->false_sharing += f->false_sharing;
		t->transfers += f->transfers;
	}
	/*
	 * Per watched slot, the share of the lives watching it that touched
	 * it; a line is touched with the largest share of its slots (as
	 * workingset counts lines): comparable between layouts, where
	 * counting the lines each history saw is not (a set-mode history
	 * watches four slots adjacent today, spread by a new layout).
	 */
	for (size_t i = 0; i < hs->n; i++) {
		const struct history *h = &hs->h[i];

		if (h->target != target || !classify_usable(h))
			continue;
		for (int w = 0; w < h->nr_offsets; w++) {
			size_t k;
			bool hit = false;

			for (k = 0; k < ns && sl[k].offset != h->offset[w]; k++)
				;
			if (k == ns) {
				sl = xrealloc(sl, (ns + 1) * sizeof(*sl));
				memset(&sl[ns], 0, sizeof(*sl));
				sl[ns++].offset = h->offset[w];
			}
			for (size_t e = 0; e < h->nr_elems && !hit; e++)
				hit = h->elems[e].offset == h->offset[w];
			sl[k].histories++;
			sl[k].acc += hit;
		}
	}
	for (size_t k = 0; k < ns; k++) {
		double p = (double)sl[k].acc / (double)sl[k].histories;
		bool top = true;

		/* Each line counted once, by its most touched slot. */
		for (size_t j = 0; j < ns && top; j++) {
			double q = (double)sl[j].acc / (double)sl[j].histories;

			if (j != k && sl[j].offset / CLASSIFY_LINE ==
			    sl[k].offset / CLASSIFY_LINE &&
			    (q > p || (q == p && j < k)))
				top = false;
		}
		if (top)
			t->lines_per_life += p;
	}
	free(sl);
}

/*
 * An offset as classify (64-byte lines) must see it to replay lines of
 * @line bytes: for 128, each pair of lines folded into one, the bytes
 * halved within it (8-byte slots stay apart, 4 bytes apart), and the
 * object's address halved so that the pairs fall where the address puts
 * them (a line pair of adjacent-line prefetch is 128-byte aligned).
 */
static uint16_t fold(uint16_t off, uint32_t line)
{
	return line == 128 ? (uint16_t)(off / 128 * 64 + off % 128 / 2) : off;
}

/*
 * @target's histories classified at today's offsets, or (@moved_too) at
 * the layout's: each element and watched offset moved with its unit;
 * at @line-byte lines (64, or 128).
 */
/* The unit whose new offsets hold @off, or NULL. */
static const struct advise_unit *unit_at_new(const struct advise *a,
					     uint32_t off)
{
	for (size_t i = 0; i < a->nu; i++)
		if (!a->u[i].gone && off >= a->u[i].new_off &&
		    off < a->u[i].new_off + a->u[i].size)
			return &a->u[i];
	return NULL;
}

/* Each replayed slot's counts added to the unit holding it (@per_unit). */
static void unit_totals(struct advise_totals *per_unit, const struct advise *a,
			const struct classify *c, int target, bool moved_too)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct classify_field *f = &c->f[i];
		const struct advise_unit *u;
		struct advise_totals *t;

		if (f->target != target)
			continue;
		u = moved_too ? unit_at_new(a, f->offset) :
				advise_unit_at(a, f->offset);
		if (!u)
			continue;
		t = &per_unit[u - a->u];
		t->accesses += f->accesses;
		t->true_sharing += f->true_sharing;
		t->false_sharing += f->false_sharing;
		t->transfers += f->transfers;
	}
}

static void replay(struct advise_totals *t, struct advise_totals *per_unit,
		   uint64_t *gone, const struct advise *a,
		   const struct history_set *hs, int target, bool moved_too,
		   uint32_t line)
{
	struct history_set m = { 0 };
	struct classify c;

	m.h = xcalloc(hs->n + 1, sizeof(*m.h));
	for (size_t i = 0; i < hs->n; i++) {
		const struct history *h = &hs->h[i];
		struct history *x;

		if (h->target != target)
			continue;
		x = &m.h[m.n++];
		*x = *h;
		x->elems = xcalloc(h->nr_elems + 1, sizeof(*x->elems));
		x->cap = h->nr_elems;
		x->nr_elems = 0;
		for (size_t k = 0; k < h->nr_elems; k++) {
			uint16_t o = h->elems[k].offset;
			const struct advise_unit *u;

			/* A unit the given layout lacks: out of both. */
			if (a->nr_gone && (u = advise_unit_at(a, o)) &&
			    u->gone) {
				if (gone && classify_usable(h))
					(*gone)++;
				continue;
			}
			x->elems[x->nr_elems] = h->elems[k];
			x->elems[x->nr_elems++].offset =
				fold(moved_too ? moved(a, o) : o, line);
		}
		for (int k = 0; k < h->nr_offsets; k++)
			x->offset[k] = fold(moved_too ? moved(a, h->offset[k]) :
					    h->offset[k], line);
		if (line == 128)
			x->addr = h->addr / 2;
	}
	classify_build(&c, &m);
	totals(t, &c, &m, target);
	if (per_unit)
		unit_totals(per_unit, a, &c, target, moved_too);
	classify_free(&c);
	for (size_t i = 0; i < m.n; i++)
		free(m.h[i].elems);
	free(m.h);
}

/* Whether some complete history watched both offsets. */
static bool watched_together(const struct history_set *hs, int target,
			     uint16_t x, uint16_t y)
{
	for (size_t i = 0; i < hs->n; i++) {
		const struct history *h = &hs->h[i];
		bool bx = false, by = false;

		if (h->target != target || !classify_usable(h))
			continue;
		for (int w = 0; w < h->nr_offsets; w++) {
			bx |= h->offset[w] == x;
			by |= h->offset[w] == y;
		}
		if (bx && by)
			return true;
	}
	return false;
}

void advise_whatif(struct advise_whatif *w, const struct advise *a,
		   const struct history_set *hs, int target)
{
	uint16_t *slots = NULL;
	size_t ns = 0;

	memset(w, 0, sizeof(*w));
	w->unit_before = xcalloc(a->nu + 1, sizeof(*w->unit_before));
	w->unit_after = xcalloc(a->nu + 1, sizeof(*w->unit_after));
	for (int k = 0; k < 2; k++) {
		replay(&w->before[k], k ? NULL : w->unit_before,
		       k ? NULL : &w->gone_accesses, a, hs, target, false,
		       k ? 128 : 64);
		replay(&w->after[k], k ? NULL : w->unit_after, NULL, a, hs,
		       target, true, k ? 128 : 64);
	}
	for (size_t i = 0; i < hs->n; i++) {
		const struct history *h = &hs->h[i];

		if (h->target != target || !classify_usable(h))
			continue;
		for (int k = 0; k < h->nr_offsets; k++) {
			bool have = false;

			for (size_t x = 0; x < ns && !have; x++)
				have = slots[x] == h->offset[k];
			if (!have) {
				slots = xrealloc(slots, (ns + 1) * sizeof(*slots));
				slots[ns++] = h->offset[k];
			}
		}
	}
	/* Slots brought onto one line that no history saw together. */
	for (size_t x = 0; x < ns; x++)
		for (size_t y = x + 1; y < ns; y++) {
			if (moved(a, slots[x]) / a->line !=
			    moved(a, slots[y]) / a->line)
				continue;
			w->line_pairs++;
			w->unseen_pairs += !watched_together(hs, target,
							     slots[x], slots[y]);
		}
	free(slots);
}

void advise_whatif_free(struct advise_whatif *w)
{
	free(w->unit_before);
	free(w->unit_after);
	w->unit_before = w->unit_after = NULL;
}

void advise_lines_touched(const struct advise *a, const uint16_t *offs,
			  size_t n, uint32_t line, unsigned int *before,
			  unsigned int *after)
{
	*before = *after = 0;
	for (size_t i = 0; i < n; i++) {
		bool seen_b = false, seen_a = false;

		for (size_t k = 0; k < i; k++) {
			seen_b |= offs[k] / line == offs[i] / line;
			seen_a |= moved(a, offs[k]) / line ==
				  moved(a, offs[i]) / line;
		}
		*before += !seen_b;
		*after += !seen_a;
	}
}

/* ---- by hot path (advise_build_paths()) -------------------------------- */

const char *advise_access_name(enum advise_access acc)
{
	static const char *const names[] = {
		[ADVISE_ACC_NONE] = "-",
		[ADVISE_ACC_READ] = "read_mostly",
		[ADVISE_ACC_READ_UNSURE] = "read_mostly?",
		[ADVISE_ACC_WRITE_UNSURE] = "read_write?",
		[ADVISE_ACC_WRITE] = "read_write",
	};

	return acc <= ADVISE_ACC_WRITE ? names[acc] : "?";
}

/* A path's use of a unit: its store share against ADVISE_WRITE_SHARE. */
static enum advise_access access_of(uint64_t n, uint64_t stores,
				    uint64_t min_samples)
{
	double lo, hi;

	if (!n || n < min_samples)
		return ADVISE_ACC_NONE;
	diff_wilson((double)stores, (double)n, &lo, &hi);
	if (lo >= ADVISE_WRITE_SHARE)
		return ADVISE_ACC_WRITE;
	if (hi < ADVISE_WRITE_SHARE)
		return ADVISE_ACC_READ;
	return (double)stores >= ADVISE_WRITE_SHARE * (double)n ?
	       ADVISE_ACC_WRITE_UNSURE : ADVISE_ACC_READ_UNSURE;
}

struct func_count {
	const char *func;
	uint64_t samples;
};

static int by_count(const void *x, const void *y)
{
	const struct func_count *p = x, *q = y;

	if (p->samples != q->samples)
		return p->samples > q->samples ? -1 : 1;
	return strcmp(p->func, q->func);
}

#define ADVISE_PATH_FUNCS 3

/* Unit @u's functions on path @p: the busiest ADVISE_PATH_FUNCS. */
static char *path_funcs(const struct advise *a, const struct advise_unit *u,
			size_t p)
{
	const struct fastpath *fp = a->fp;
	struct func_count *fc = xcalloc(fp->nhits + 1, sizeof(*fc));
	size_t nf = 0, len = 0;
	char *out;

	for (size_t i = 0; i < fp->nhits; i++) {
		const struct fastpath_hit *h = &fp->hits[i];
		size_t k;

		if (h->path != p || advise_unit_at(a, h->offset) != u)
			continue;
		for (k = 0; k < nf && strcmp(fc[k].func, h->func); k++)
			;
		if (k == nf)
			fc[nf++].func = h->func;
		fc[k].samples += h->samples;
	}
	qsort(fc, nf, sizeof(*fc), by_count);
	if (nf > ADVISE_PATH_FUNCS)
		nf = ADVISE_PATH_FUNCS;
	for (size_t k = 0; k < nf; k++)
		len += strlen(fc[k].func) + 2;
	out = xcalloc(len + 1, 1);
	for (size_t k = 0; k < nf; k++) {
		if (k)
			strcat(out, ", ");
		strcat(out, fc[k].func);
	}
	free(fc);
	return out;
}

/* The hot paths using a unit, as a bit mask; *@written: one writes it. */
static unsigned int path_mask(const struct advise *a,
			      const struct advise_unit *u, bool *written)
{
	unsigned int mask = 0;

	*written = false;
	for (size_t p = 0; p < a->fp->npaths; p++) {
		if (u->access[p] == ADVISE_ACC_NONE)
			continue;
		mask |= 1u << p;
		*written |= u->access[p] >= ADVISE_ACC_WRITE_UNSURE;
	}
	return mask;
}

/* Path sets in the order of their sorted members: {0} {0,1} {0,1,2} {0,2} {1}... */
static int mask_cmp(unsigned int x, unsigned int y)
{
	while (x && y) {
		unsigned int bx = x & -x, by = y & -y;

		if (bx != by)
			return bx < by ? -1 : 1;
		x &= ~bx;
		y &= ~by;
	}
	return x ? 1 : y ? -1 : 0;
}

static int key_cmp(unsigned int x, unsigned int y)
{
	/* Bit 31: written.  Read groups first. */
	if ((x ^ y) & (1u << 31))
		return x & (1u << 31) ? 1 : -1;
	return mask_cmp(x & ~(1u << 31), y & ~(1u << 31));
}

static void name_group(struct advise *a, int g, const char *type,
		       unsigned int key)
{
	const char *bare = strncmp(type, "struct ", 7) ? type : type + 7;
	size_t len = strlen(bare) + 8;
	char *n;

	for (size_t p = 0; p < a->fp->npaths; p++)
		if (key & (1u << p))
			len += strlen(a->fp->names[p]);
	n = xcalloc(len + 1, 1);
	snprintf(n, len + 1, "%s_%s_", bare,
		 key & (1u << 31) ? "write" : "read");
	for (size_t p = 0; p < a->fp->npaths; p++)
		if (key & (1u << p))
			strcat(n, a->fp->names[p]);
	a->group_names[g] = n;
}

/* Units -> groups: one per key (written, path set) present. */
static void path_groups(struct advise *a, const char *type)
{
	unsigned int keys[ADVISE_MAX_PATH_GROUPS];
	int nk = 0;

	for (size_t i = 0; i < a->nu; i++) {
		struct advise_unit *u = &a->u[i];
		bool w;
		unsigned int key = path_mask(a, u, &w);
		int k;

		u->path_group = -1;
		if (!key || u->pinned || u->flex)
			continue;
		key |= w ? 1u << 31 : 0;
		for (k = 0; k < nk && keys[k] != key; k++)
			;
		if (k == nk && nk < ADVISE_MAX_PATH_GROUPS)
			keys[nk++] = key;
	}
	for (int i = 1; i < nk; i++)
		for (int k = i; k && key_cmp(keys[k], keys[k - 1]) < 0; k--) {
			unsigned int t = keys[k];

			keys[k] = keys[k - 1];
			keys[k - 1] = t;
		}
	for (int k = 0; k < nk; k++)
		name_group(a, k, type, keys[k]);
	a->ngroups = nk;
	for (size_t i = 0; i < a->nu; i++) {
		struct advise_unit *u = &a->u[i];
		bool w;
		unsigned int key = path_mask(a, u, &w) | (w ? 1u << 31 : 0);

		if (u->pinned || u->flex || !(key & ~(1u << 31)))
			continue;
		for (int k = 0; k < nk; k++)
			if (keys[k] == key)
				u->path_group = k;
	}
}

/*
 * A first member that is a struct of its own: its leaves' paths go on
 * from its name ("inet_conn.icsk_inet...").
 */
static void pin_base(struct advise *a, const struct layout *l)
{
	struct advise_unit *u = a->nu ? &a->u[0] : NULL;
	size_t n;

	if (!u || u->old_off || strchr(u->name, ','))
		return;
	n = strlen(u->name);
	for (size_t i = 0; i < l->nr_fields; i++)
		if (!strncmp(l->fields[i].path, u->name, n) &&
		    l->fields[i].path[n] == '.')
			u->pinned = true;
}

/* Has one of @u's names in @set ("a,b,c")? */
static bool unit_in_set(const struct advise_unit *u, const char *set)
{
	for (const char *p = u->name; p && *p;) {
		size_t k = strcspn(p, ",");

		for (const char *q = set; *q;) {
			size_t m = strcspn(q, ",");

			if (m == k && !strncmp(p, q, k))
				return true;
			q += m;
			while (*q == ',' || *q == ' ')
				q++;
		}
		p += k;
		while (*p == ',' || *p == ' ')
			p++;
	}
	return false;
}

/*
 * Units that one declaration of the header declares, or one #if block
 * holds, move as one (advise --header): consecutive units with a name
 * in one of @sets become a unit spanning them, the bytes between them
 * included.
 */
static void join_units(struct advise *a, const char *const *sets)
{
	for (; sets && *sets; sets++) {
		size_t i = 0, j;

		while (i < a->nu && !unit_in_set(&a->u[i], *sets))
			i++;
		for (j = i; j + 1 < a->nu && unit_in_set(&a->u[j + 1], *sets);)
			j++;
		if (i >= a->nu || j == i)
			continue;
		for (size_t k = i + 1; k <= j; k++) {
			struct advise_unit *u = &a->u[i], *v = &a->u[k];
			size_t n = strlen(u->name) + strlen(v->name) + 3;

			u->name = xrealloc(u->name, n);
			strcat(strcat(u->name, ", "), v->name);
			u->size = v->old_off + v->size - u->old_off;
			u->align = v->align > u->align ? v->align : u->align;
			u->pinned |= v->pinned;
			u->flex |= v->flex;
			free(v->name);
		}
		memmove(&a->u[i + 1], &a->u[j + 1],
			(a->nu - j - 1) * sizeof(*a->u));
		a->nu -= j - i;
	}
}

int advise_build_paths(struct advise *a, const struct layout *l,
		       const struct fastpath *fp, uint32_t line,
		       uint64_t min_samples, const char *const *pins,
		       char *err, size_t errlen)
{
	return advise_build_paths_joined(a, l, fp, line, min_samples, pins,
					 NULL, err, errlen);
}

int advise_build_paths_joined(struct advise *a, const struct layout *l,
			      const struct fastpath *fp, uint32_t line,
			      uint64_t min_samples, const char *const *pins,
			      const char *const *together, char *err,
			      size_t errlen)
{
	memset(a, 0, sizeof(*a));
	a->line = line ? line : ADVISE_LINE;
	a->old_size = l->size;
	a->fp = fp;
	a->min_samples = min_samples;
	if (!fp->chained) {
		snprintf(err, errlen, "no sample of %s carries a call chain: record with callchain=16 (insmod dprof.ko ... callchain=16)",
			 l->name);
		return -1;
	}
	if (!fp->npaths) {
		snprintf(err, errlen, "no path has %.0f%% of %s's %llu chained samples: name the paths with --path NAME=FUNCTION",
			 100 * FASTPATH_HOT_SHARE, l->name,
			 (unsigned long long)fp->chained);
		return -1;
	}
	build_units(a, l);
	join_units(a, together);
	if (pin_units(a, l, pins, err, errlen)) {
		advise_free(a);
		return -1;
	}
	pin_base(a, l);
	for (size_t i = 0; i < fp->nhits; i++) {
		const struct fastpath_hit *h = &fp->hits[i];
		struct advise_unit *u = (struct advise_unit *)advise_unit_at(a, h->offset);

		if (!u)
			continue;
		u->path_samples[h->path] += h->samples;
		u->path_stores[h->path] += h->stores;
	}
	for (size_t i = 0; i < a->nu; i++) {
		struct advise_unit *u = &a->u[i];

		for (size_t p = 0; p < fp->npaths; p++) {
			u->access[p] = access_of(u->path_samples[p],
						 u->path_stores[p],
						 min_samples);
			u->accesses += (double)u->path_samples[p];
			if (u->path_samples[p])
				u->path_funcs[p] = path_funcs(a, u, p);
		}
		u->role = ADVISE_COLD;
	}
	path_groups(a, l->name);
	a->order = xcalloc(a->nu + 1, sizeof(*a->order));
	pack(a, ADVISE_BY_PATH);
	a->same_order = a->new_size == a->old_size;
	for (size_t i = 0; i < a->nu && a->same_order; i++)
		a->same_order = a->u[i].new_off == a->u[i].old_off;
	return 0;
}

/* A Poisson draw of mean @mean: Knuth's product under 30, else normal. */
static uint64_t poisson_draw(struct diff_rng *rng, double mean)
{
	double limit, prod = 1, x;
	uint64_t k = 0;

	if (mean >= 30) {
		x = floor(mean + sqrt(mean) * diff_rng_normal(rng) + 0.5);
		return x > 0 ? (uint64_t)x : 0;
	}
	limit = exp(-mean);
	for (;;) {
		prod *= (double)(diff_rng_next(rng) >> 11) / 9007199254740992.0;
		if (prod <= limit)
			return k;
		k++;
	}
}

static int uint_cmp(const void *x, const void *y)
{
	unsigned int a = *(const unsigned int *)x, b = *(const unsigned int *)y;

	return (a > b) - (a < b);
}

/*
 * Where hit @i's byte lies in the layout counted: @map's offset (-1:
 * the layout lacks its field), else the proposal's.
 */
static int64_t hit_offset(const struct advise *a, const int64_t *map,
			  size_t i)
{
	const struct fastpath_hit *h = &a->fp->hits[i];

	if (map)
		return map[i];
	if (advise_unit_at(a, h->offset)->gone)
		return -1;
	return moved(a, h->offset);
}

/*
 * Lines of path @p today and in the layout counted, with @draw samples
 * per hit (the hits' own, or a bootstrap's): a unit counts where its
 * samples on @p reach min_samples.  @usum, @old and @new are scratch.
 */
static void lines_drawn(const struct advise *a, size_t p, uint32_t line,
			const uint64_t *draw, const int64_t *map,
			uint64_t *usum, bool *old, bool *new, size_t nl,
			unsigned int *before, unsigned int *after)
{
	*before = *after = 0;
	memset(usum, 0, a->nu * sizeof(*usum));
	memset(old, 0, nl);
	memset(new, 0, nl);
	for (size_t i = 0; i < a->fp->nhits; i++) {
		const struct advise_unit *u =
			advise_unit_at(a, a->fp->hits[i].offset);

		if (u && a->fp->hits[i].path == p)
			usum[u - a->u] += draw[i];
	}
	for (size_t i = 0; i < a->fp->nhits; i++) {
		const struct fastpath_hit *h = &a->fp->hits[i];
		const struct advise_unit *u = advise_unit_at(a, h->offset);
		size_t lo = h->offset / line;
		int64_t to;

		if (h->path != p || !u || !draw[i] ||
		    usum[u - a->u] < a->min_samples)
			continue;
		*before += !old[lo];
		old[lo] = true;
		to = hit_offset(a, map, i);
		if (to >= 0 && (size_t)to / line < nl) {
			*after += !new[to / line];
			new[to / line] = true;
		}
	}
}

/* The lines' scratch: bytes of the larger layout, and a map's reach. */
static size_t lines_scratch(const struct advise *a, const int64_t *map)
{
	uint32_t size = a->old_size > a->new_size ? a->old_size : a->new_size;

	for (size_t i = 0; map && i < a->fp->nhits; i++)
		if (map[i] >= size)
			size = (uint32_t)map[i] + 1;
	return size / 16 + 2;	/* lines of 16 bytes or more */
}

void advise_path_lines_interval(const struct advise *a, size_t p,
				uint32_t line, const int64_t *map,
				unsigned int before[2], unsigned int after[2])
{
	size_t nl = lines_scratch(a, map), lo, hi;
	struct diff_rng rng = { .s = 0x9e3779b97f4a7c15ull ^ (p + 1) ^
				     ((uint64_t)line << 32) };
	unsigned int *b = xcalloc(ADVISE_LINE_REPS, sizeof(*b));
	unsigned int *f = xcalloc(ADVISE_LINE_REPS, sizeof(*f));
	uint64_t *draw = xcalloc(a->fp->nhits + 1, sizeof(*draw));
	uint64_t *usum = xcalloc(a->nu + 1, sizeof(*usum));
	bool *old = xcalloc(nl, 1), *new = xcalloc(nl, 1);

	for (unsigned int r = 0; r < ADVISE_LINE_REPS; r++) {
		for (size_t i = 0; i < a->fp->nhits; i++)
			draw[i] = a->fp->hits[i].path == p ?
				  poisson_draw(&rng,
					       (double)a->fp->hits[i].samples) :
				  0;
		lines_drawn(a, p, line, draw, map, usum, old, new, nl, &b[r],
			    &f[r]);
	}
	qsort(b, ADVISE_LINE_REPS, sizeof(*b), uint_cmp);
	qsort(f, ADVISE_LINE_REPS, sizeof(*f), uint_cmp);
	lo = (size_t)(0.025 * ADVISE_LINE_REPS);
	hi = (size_t)ceil(0.975 * ADVISE_LINE_REPS) - 1;
	before[0] = b[lo];
	before[1] = b[hi];
	after[0] = f[lo];
	after[1] = f[hi];
	free(b);
	free(f);
	free(draw);
	free(usum);
	free(old);
	free(new);
}

void advise_path_lines_mapped(const struct advise *a, size_t p,
			      uint32_t line, const int64_t *map,
			      unsigned int *before, unsigned int *after)
{
	size_t nl = lines_scratch(a, map);
	uint64_t *draw = xcalloc(a->fp->nhits + 1, sizeof(*draw));
	uint64_t *usum = xcalloc(a->nu + 1, sizeof(*usum));
	bool *old = xcalloc(nl, 1), *new = xcalloc(nl, 1);

	for (size_t i = 0; i < a->fp->nhits; i++)
		draw[i] = a->fp->hits[i].samples;
	lines_drawn(a, p, line, draw, map, usum, old, new, nl, before, after);
	free(draw);
	free(usum);
	free(old);
	free(new);
}

void advise_path_lines(const struct advise *a, size_t p, uint32_t line,
		       unsigned int *before, unsigned int *after)
{
	advise_path_lines_mapped(a, p, line, NULL, before, after);
}

/* The innermost field of @l holding byte @off (the smallest), or NULL. */
static const struct layout_field *leaf_at(const struct layout *l,
					  uint32_t off)
{
	const struct layout_field *best = NULL;

	for (size_t i = 0; i < l->nr_fields; i++) {
		const struct layout_field *f = &l->fields[i];

		if (f->offset > off)
			break;
		if (off < f->offset + f->size && (!best || f->size < best->size))
			best = f;
	}
	return best;
}

int64_t *advise_field_map(const struct advise *a, const struct layout *old,
			  const struct layout *other, uint64_t *gone_samples,
			  size_t *gone_fields,
			  const char *gone_names[ADVISE_GONE_NAMES])
{
	int64_t *map = xcalloc(a->fp->nhits + 1, sizeof(*map));
	const char **gone = xcalloc(a->fp->nhits + 1, sizeof(*gone));

	*gone_samples = 0;
	*gone_fields = 0;
	for (size_t i = 0; i < a->fp->nhits; i++) {
		const struct fastpath_hit *h = &a->fp->hits[i];
		const struct layout_field *f = leaf_at(old, h->offset), *g = NULL;
		uint32_t into;

		/* Outside the struct's units (a larger object): not counted. */
		if (!advise_unit_at(a, h->offset)) {
			map[i] = -1;
			continue;
		}
		for (size_t k = 0; f && k < other->nr_fields && !g; k++)
			if (!strcmp(other->fields[k].path, f->path))
				g = &other->fields[k];
		if (!g) {
			const char *name = f ? f->path : "padding";
			size_t n;

			map[i] = -1;
			*gone_samples += h->samples;
			for (n = 0; n < *gone_fields && strcmp(gone[n], name);)
				n++;
			if (n == *gone_fields)
				gone[(*gone_fields)++] = name;
			continue;
		}
		into = h->offset - f->offset;
		map[i] = g->offset + (into < g->size ? into : g->size - 1);
	}
	for (size_t n = 0; n < ADVISE_GONE_NAMES; n++)
		gone_names[n] = n < *gone_fields ? gone[n] : NULL;
	free(gone);
	return map;
}

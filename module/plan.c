// SPDX-License-Identifier: GPL-2.0
/*
 * The cover plans of the histories and sample windows (see plan.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/gcd.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "uapi/dprof.h"
#include "target.h"
#include "plan.h"

static struct hist_plan plans[DPROF_MAX_TARGETS];
/*
 * Per target, plan or not: its live objects older than a window summed
 * over the censuses, and its allocations drawn by the any gate (window.c).
 */
static u64 plan_draws[DPROF_NR_WINDOW_KINDS][DPROF_MAX_TARGETS];
/* What those are out of (struct dprof_window_scale). */
static u64 censuses;
static u64 inuse_windows;
/* Hints on types whose plan was not built yet (dprof_plan_hint()). */
static u64 hints_unplanned;
/* target=all: plans are built when a window first lands on a type. */
static s8 plan_state[DPROF_MAX_TARGETS];	/* 0 none, 1 built, -1 failed */

static struct {
	unsigned int len;
	const char *offsets;
	bool pairs;
	unsigned int group;
	unsigned int window_ms;
	bool lives;
} plan_spec;

void dprof_plans_init(unsigned int len, const char *offsets, bool pairs,
		      unsigned int group, unsigned int window_ms, bool lives)
{
	plan_spec.window_ms = window_ms;
	plan_spec.lives = lives;
	plan_spec.len = len;
	plan_spec.offsets = offsets;
	plan_spec.pairs = pairs;
	plan_spec.group = group;
}

struct hist_plan *dprof_plan(unsigned int t)
{
	return &plans[t];
}

bool dprof_plan_built(unsigned int t)
{
	/* Pairs with dprof_plan_ensure()'s release: the plan is whole. */
	return smp_load_acquire(&plan_state[t]) > 0;
}

static void plan_free(struct hist_plan *p)
{
	kvfree(p->members);
	kvfree(p->items);
	kvfree(p->done);
	kvfree(p->exposure_ns);
	kvfree(p->item_samples);
	kvfree(p->item_windows);
	kvfree(p->item_hints);
	memset(p, 0, sizeof(*p));
}

static int plan_members(struct hist_plan *p, const struct dprof_target *t)
{
	unsigned int n = 0, off, max = t->object_size / plan_spec.len;
	char *spec, *cur, *tok;
	int ret = 0;

	p->members = kvcalloc(max ? max : 1, sizeof(u16), GFP_KERNEL);
	if (!p->members)
		return -ENOMEM;
	if (!plan_spec.offsets || !*plan_spec.offsets ||
	    (t->flags & DPROF_TARGET_VAR)) {
		for (off = 0; off + plan_spec.len <= t->object_size && n < max;
		     off += plan_spec.len)
			p->members[n++] = off;
		p->nr_members = n;
		return 0;
	}
	spec = kstrdup(plan_spec.offsets, GFP_KERNEL);
	if (!spec)
		return -ENOMEM;
	cur = spec;
	while ((tok = strsep(&cur, ",")) && !ret) {
		if (kstrtouint(tok, 0, &off) || off % plan_spec.len ||
		    off + plan_spec.len > t->object_size || n >= max) {
			pr_err("history_offsets: '%s' is not a multiple of %u inside %s (%u bytes)\n",
			       tok, plan_spec.len, t->name, t->object_size);
			ret = -EINVAL;
			break;
		}
		p->members[n++] = off;
	}
	kfree(spec);
	p->nr_members = n;
	return ret;
}

/*
 * Pairs mode names every pair of members, so it is bounded: 512 offsets
 * make 130,816 pairs, covered by some 22,000 groups of four.
 */
#define PLAN_MAX_PAIR_MEMBERS	512

static void plan_add_item(struct hist_plan *p, const u16 *members,
			  const unsigned int *idx, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < DPROF_HIST_MAX_OFFSETS; i++)
		p->items[p->nr_items][i] = i < n ? members[idx[i]] :
					   DPROF_HIST_NO_OFFSET;
	p->item_slots += n;
	p->nr_items++;
}

/* Pairs (i, j) of members not yet watched together, i < j. */
static bool pair_covered(const unsigned long *covered, unsigned int n,
			 unsigned int i, unsigned int j)
{
	return i == j || test_bit(min(i, j) * n + max(i, j), covered);
}

/*
 * Groups of @g members that together watch every pair of members: start
 * each group from the first pair not yet covered, then add the member
 * that covers the most new pairs with the group, while one does.  Greedy,
 * so not minimal, but with g = 4 it needs about n^2/10 groups where
 * every pair alone needs n^2/2.
 */
static void plan_cover_pairs(struct hist_plan *p, unsigned int g,
			     unsigned long *covered)
{
	unsigned int n = p->nr_members, i = 0, j = 1, k, m, len;
	unsigned int idx[DPROF_HIST_MAX_OFFSETS];

	while (i + 1 < n) {
		if (j >= n) {
			i++;
			j = i + 1;
			continue;
		}
		if (pair_covered(covered, n, i, j)) {
			j++;
			continue;
		}
		idx[0] = i;
		idx[1] = j;
		for (len = 2; len < g; len++) {
			unsigned int best = n, best_new = 0;

			for (k = 0; k < n; k++) {
				unsigned int fresh = 0;

				for (m = 0; m < len; m++) {
					if (idx[m] == k) {
						fresh = 0;
						break;
					}
					fresh += !pair_covered(covered, n,
							       idx[m], k);
				}
				if (fresh > best_new) {
					best_new = fresh;
					best = k;
				}
			}
			if (best == n)
				break;
			idx[len] = best;
		}
		for (k = 0; k < len; k++)
			for (m = k + 1; m < len; m++)
				__set_bit(min(idx[k], idx[m]) * n +
					  max(idx[k], idx[m]), covered);
		plan_add_item(p, p->members, idx, len);
		cond_resched();
	}
}

/*
 * Set mode: members g by g, so a round watches each once.  Pairs mode:
 * groups of g that watch every pair of members together at least once
 * (for the data flow's order and the sharing classification).
 */
static int plan_build(struct hist_plan *p, const struct dprof_target *t)
{
	unsigned int i, k, n, g = plan_spec.group;
	unsigned int idx[DPROF_HIST_MAX_OFFSETS];
	unsigned long *covered;
	size_t max_items;
	int ret = plan_members(p, t);

	if (ret)
		return ret;
	n = p->nr_members;
	if (!n) {
		pr_err("%s: no offset to watch\n", t->name);
		return -EINVAL;
	}
	if (plan_spec.pairs && g > 1 && n > PLAN_MAX_PAIR_MEMBERS) {
		pr_err("history_mode=pairs: %s has %u offsets to pair, at most %u; name them with history_offsets= or use history_mode=set\n",
		       t->name, n, PLAN_MAX_PAIR_MEMBERS);
		return -EINVAL;
	}
	/* Each group covers at least one new pair: at most every pair. */
	max_items = plan_spec.pairs && g > 1 && n > 1 ? (size_t)n * (n - 1) / 2 :
		    DIV_ROUND_UP(n, g);
	p->items = kvcalloc(max_items, sizeof(*p->items), GFP_KERNEL);
	p->done = kvcalloc(max_items, sizeof(u32), GFP_KERNEL);
	p->exposure_ns = kvcalloc(max_items, sizeof(u64), GFP_KERNEL);
	p->item_samples = kvcalloc(max_items, sizeof(u64), GFP_KERNEL);
	p->item_windows = kvcalloc(max_items, sizeof(u32), GFP_KERNEL);
	p->item_hints = kvcalloc(max_items, sizeof(u32), GFP_KERNEL);
	if (!p->items || !p->done || !p->exposure_ns || !p->item_samples ||
	    !p->item_windows || !p->item_hints)
		return -ENOMEM;
	p->nr_items = 0;
	p->item_slots = 0;
	if (plan_spec.pairs && g > 1 && n > 1) {
		covered = bitmap_zalloc((size_t)n * n, GFP_KERNEL);
		if (!covered)
			return -ENOMEM;
		plan_cover_pairs(p, g, covered);
		bitmap_free(covered);
		return 0;
	}
	for (i = 0; i < n; i += g) {
		for (k = 0; k < g && i + k < n; k++)
			idx[k] = i + k;
		plan_add_item(p, p->members, idx, k);
	}
	return 0;
}

/*
 * The step of the rotations over @k items: about k / phi^2, the golden
 * section, so that each new item falls in the largest stretch not yet
 * watched, and coprime with @k, so that a round visits every item once.
 */
static unsigned int plan_stride(unsigned int k)
{
	unsigned int s = max_t(unsigned int, div_u64((u64)k * 381966, 1000000),
			       1);

	while (k > 1 && gcd(s, k) != 1)
		s++;
	return s;
}

/* The plan of @t, built on first use (process context). */
int dprof_plan_ensure(unsigned int t)
{
	int ret;

	if (plan_state[t])
		return plan_state[t] > 0 ? 0 : -EINVAL;
	ret = plan_build(&plans[t], &dprof_targets[t]);
	if (ret) {
		plan_free(&plans[t]);
		plan_state[t] = -1;
		return ret;
	}
	/*
	 * The rotations start at a random item.  From item 0 a type with
	 * fewer lives or windows in a run than items had them all on its
	 * first items, which are its header and most often its hottest:
	 * on memcached every run's lives of kmalloc-2k (64 items) watched
	 * items 0, 1, 2 (36, 18 and 4 to 10 samples), and its share read
	 * 2.5-6.5 % for the referee's 1.5 %; kmalloc-4k's lives read 6.8
	 * times its rate.  From a random start each window and life is on
	 * any item with chance 1/K, as the estimates take it.  And they
	 * step across the object, not along it: eight lives of a
	 * kmalloc-8k buffer on eight neighbouring items saw 8 samples each
	 * in one run, where the packet was, and 0 each in the next, past
	 * its end, and the type went unranked (the referee: 5.7 %).
	 */
	plans[t].stride = plan_stride(plans[t].nr_items);
	plans[t].cursor = get_random_u32_below(plans[t].nr_items);
	plans[t].wcursor = get_random_u32_below(plans[t].nr_items);
	/* Readers of "plans" and "histories" see a whole plan (acquire). */
	smp_store_release(&plan_state[t], 1);
	return 0;
}

/*
 * The items of every built plan from position *pos on, as struct
 * dprof_plan_item (debugfs "plans").  The position is target << 32 |
 * item.  Plans are never freed while the module's files exist; done
 * counts are read racily (a count one history behind is fine).
 */
size_t dprof_plan_read(void *buf, size_t room, loff_t *pos)
{
	u64 t = (u64)*pos >> 32, i = (u32)*pos;
	size_t done = 0;

	if (*pos < 0)
		return 0;
	for (; t < dprof_nr_targets; t++, i = 0) {
		const struct hist_plan *p = dprof_plan(t);

		if (!dprof_plan_built(t))
			continue;
		for (; i < p->nr_items; i++) {
			struct dprof_plan_item e = {
				.target = t, .item = i,
				.len = plan_spec.len,
				.complete = READ_ONCE(p->done[i]),
			};
			unsigned int k;

			if (room - done < sizeof(e))
				goto out;
			if (!(i & 0xfff))
				cond_resched();
			for (k = 0; k < DPROF_HIST_MAX_OFFSETS; k++) {
				e.offset[k] = p->items[i][k];
				e.nr_offsets += e.offset[k] != DPROF_HIST_NO_OFFSET;
			}
			memcpy(buf + done, &e, sizeof(e));
			done += sizeof(e);
		}
	}
out:
	*pos = (loff_t)(t << 32 | i);
	return done;
}

void dprof_plans_free(void)
{
	unsigned int i;

	for (i = 0; i < DPROF_MAX_TARGETS; i++) {
		plan_free(&plans[i]);
		plan_state[i] = 0;
		plan_draws[DPROF_WINDOW_OLD][i] = 0;
		plan_draws[DPROF_WINDOW_YOUNG][i] = 0;
		plan_draws[DPROF_WINDOW_INUSE][i] = 0;
	}
	censuses = 0;
	inuse_windows = 0;
	hints_unplanned = 0;
}

unsigned int dprof_plan_next(struct hist_plan *p)
{
	unsigned int i, best = p->cursor % p->nr_items;

	for (i = 0; i < p->nr_items; i++) {
		unsigned int k = (p->cursor + i) % p->nr_items;

		if (p->done[k] < p->done[best])
			best = k;
	}
	p->cursor = best + p->stride;
	return best;
}

/*
 * An item's weight: its samples per window so far, plus one sample (so
 * that an item never watched, or never hit, keeps a chance), in 1/16,
 * and never 0: an item with no sample in 16 windows weighed 0, and a
 * plan whose items all did so divided by a total of 0 (an oops in CI,
 * test-all-types on 6.12).
 */
static u64 item_weight(const struct hist_plan *p, unsigned int i)
{
	return max_t(u64, div64_u64((p->item_samples[i] + 1) * 16,
				    (u64)p->item_windows[i] + 1), 1);
}

/* An item drawn with chance weight(p, i) / @total. */
static unsigned int draw_item(const struct hist_plan *p, u64 total,
			      u64 (*weight)(const struct hist_plan *p,
					    unsigned int i))
{
	u64 u = get_random_u64() % total, w;
	unsigned int i;

	for (i = 0; i < p->nr_items - 1; i++) {
		w = weight(p, i);
		if (u < w)
			break;
		u -= w;
	}
	return i;
}

static u64 item_hint(const struct hist_plan *p, unsigned int i)
{
	return p->item_hints[i];
}

/*
 * A type's accesses often sit in a few of its items (task_struct's
 * scheduler fields among 262; a buffer's header among 128), and a
 * window watches one: drawn in turn, most windows on a large object see
 * nothing and the few that hit swing its estimate by tens of points.  So
 * half the windows go to the item watched least long (the rotation,
 * which keeps every item's field shares measured; taken as a uniform
 * draw, 1/K), the other half to one drawn by what is known of the items:
 * their samples per window so far (w_i of W), and, once the in-use tick
 * has seen instructions about to touch the type (h_i of H, inuse.c),
 * those hints for half of that half, since the samples alone know
 * nothing before windows hit (task_struct's 88 in-use windows a run on
 * 262 items).  So p_i = 1/(2K) + w_i/(4W) + h_i/(4H) (without hints
 * 1/(2K) + w_i/(2W)), and the window's samples count rho_item = 1/(K
 * p_i) times, at most 2 (Horvitz-Thompson over the items, the chances
 * known at the draw): the weights only move windows, never the estimate's
 * mean.  In history_mode=pairs the items overlap: the rotation alone, rho
 * 1.
 */
unsigned int dprof_plan_next_window(struct hist_plan *p, u32 *rho)
{
	unsigned int i, best = p->wcursor % p->nr_items;
	u64 w_total = 0, h_total = p->hint_total, k = p->nr_items;
	u64 num, den;

	for (i = 0; i < p->nr_items; i++) {
		unsigned int j = (p->wcursor + i) % p->nr_items;

		if (p->exposure_ns[j] < p->exposure_ns[best])
			best = j;
	}
	p->wcursor = best + p->stride;
	*rho = DPROF_WINDOW_RHO_ONE;
	if (plan_spec.pairs || p->nr_items < 2)
		return best;
	for (i = 0; i < p->nr_items; i++)
		w_total += item_weight(p, i);
	switch (get_random_u32_below(4)) {
	case 0:
	case 1:
		break;
	case 2:
		if (h_total) {
			best = draw_item(p, h_total, item_hint);
			break;
		}
		fallthrough;
	default:
		best = draw_item(p, w_total, item_weight);
		break;
	}
	if (h_total) {
		/* 1 / (K p_i) = 4WH / (2WH + K w_i H + K h_i W) */
		num = 4 * w_total * h_total;
		den = 2 * w_total * h_total + k * item_weight(p, best) * h_total +
		      k * p->item_hints[best] * w_total;
	} else {
		/* 1 / (K p_i) = 2W / (W + K w_i) */
		num = 2 * w_total;
		den = w_total + k * item_weight(p, best);
	}
	*rho = mul_u64_u64_div_u64(num, DPROF_WINDOW_RHO_ONE, den);
	return best;
}

/*
 * The item holding @offset: in set mode without history_offsets= the
 * members are every len-th byte, item i the members g i to g i + g - 1;
 * else a search.  -1 for none (pairs mode: the items overlap).
 */
static int plan_item_of(const struct hist_plan *p, unsigned int offset)
{
	unsigned int len = plan_spec.len, g = plan_spec.group, i;

	if (plan_spec.pairs || !g)
		return -1;
	if (p->nr_members && p->members[0] == 0 &&
	    p->members[p->nr_members - 1] == (p->nr_members - 1) * len) {
		i = offset / len;
		return i < p->nr_members ? i / g : -1;
	}
	for (i = 0; i < p->nr_members; i++)
		if (offset >= p->members[i] && offset < p->members[i] + len)
			return i / g;
	return -1;
}

/*
 * Hints halve when they pass this, so the products above stay within 64
 * bits and the hints follow a workload that changes.
 */
#define PLAN_HINTS_MAX		BIT(20)

void dprof_plan_hint(unsigned int t, unsigned int offset)
{
	struct hist_plan *p;
	unsigned int i;
	int item;

	if (t >= DPROF_MAX_TARGETS || !dprof_plan_built(t)) {
		hints_unplanned++;
		return;
	}
	p = &plans[t];
	item = plan_item_of(p, offset);
	if (item < 0 || item >= p->nr_items)
		return;
	p->item_hints[item]++;
	p->hint_total++;
	if (p->hint_total < PLAN_HINTS_MAX)
		return;
	p->hint_total = 0;
	for (i = 0; i < p->nr_items; i++) {
		p->item_hints[i] /= 2;
		p->hint_total += p->item_hints[i];
	}
}

u64 dprof_plan_hints_unplanned(void)
{
	return READ_ONCE(hints_unplanned);
}

void dprof_plan_count_item(struct hist_plan *p, unsigned int item,
			   u64 samples)
{
	if (item >= p->nr_items)
		return;
	p->item_samples[item] += samples;
	p->item_windows[item]++;
}

void dprof_plan_count_census(unsigned int t, u64 cold, u64 old)
{
	WRITE_ONCE(plan_draws[DPROF_WINDOW_OLD][t],
		   plan_draws[DPROF_WINDOW_OLD][t] + cold);
	WRITE_ONCE(plan_draws[DPROF_WINDOW_INUSE][t],
		   plan_draws[DPROF_WINDOW_INUSE][t] + old);
}

void dprof_plan_count_census_done(u64 weight)
{
	WRITE_ONCE(censuses, censuses + weight);
}

void dprof_plan_count_alloc_draw(unsigned int t)
{
	WRITE_ONCE(plan_draws[DPROF_WINDOW_YOUNG][t],
		   plan_draws[DPROF_WINDOW_YOUNG][t] + 1);
}

void dprof_plan_count_window(unsigned int t, enum dprof_window_kind kind,
			     u64 y)
{
	struct dprof_window_sums *w = &plans[t].win[kind];
	u64 h = y >> 8, sq;

	WRITE_ONCE(w->windows, w->windows + 1);
	if (kind == DPROF_WINDOW_INUSE)
		WRITE_ONCE(inuse_windows, inuse_windows + 1);

	/*
	 * y is in 1/2^16 samples: its square in 1/2^16 squared, or it
	 * spills; saturated where even that would (an in-use draw of
	 * weight 10^7 and 10^5 samples).
	 */
	if (h > U32_MAX || check_add_overflow(w->samples_sq, h * h, &sq))
		sq = U64_MAX >> 1;
	WRITE_ONCE(w->samples, w->samples + y);
	WRITE_ONCE(w->samples_sq, sq);
	if (y)
		WRITE_ONCE(w->sampled, w->sampled + 1);
}

/* Lives before a type's spread counts: fewer say little of it. */
#define PLAN_SPREAD_MIN_LIVES	4

bool dprof_plan_life_spread(unsigned int t, u64 *spread)
{
	const struct hist_plan *p = &plans[t];
	u64 n, sq;

	*spread = 0;
	if (t >= DPROF_MAX_TARGETS || !dprof_plan_built(t) || !p->item_slots)
		return false;
	/* One of the two counts, the one the draw's turns go to. */
	n = READ_ONCE(p->win[DPROF_WINDOW_LIFE].windows) +
	    READ_ONCE(p->win[DPROF_WINDOW_YOUNG].windows);
	sq = READ_ONCE(p->win[DPROF_WINDOW_LIFE].samples_sq) +
	     READ_ONCE(p->win[DPROF_WINDOW_YOUNG].samples_sq);
	if (n < PLAN_SPREAD_MIN_LIVES)
		return false;
	/* samples_sq is of y / 2^8: its root is in 1/2^8 samples. */
	*spread = int_sqrt64(div64_u64(sq, n)) *
		  div_u64((u64)p->nr_items * p->nr_members, p->item_slots);
	return true;
}

void dprof_plan_window_sums(unsigned int target,
			    struct dprof_window_sums sums[DPROF_NR_WINDOW_KINDS],
			    u64 allocs)
{
	unsigned int k;

	memset(sums, 0, sizeof(*sums) * DPROF_NR_WINDOW_KINDS);
	for (k = 0; k < DPROF_NR_WINDOW_KINDS; k++) {
		sums[k].draws = READ_ONCE(plan_draws[k][target]);
		if (!dprof_plan_built(target))
			continue;
		sums[k].allocs = allocs;
		sums[k].windows = READ_ONCE(plans[target].win[k].windows);
		sums[k].samples = READ_ONCE(plans[target].win[k].samples);
		sums[k].samples_sq = READ_ONCE(plans[target].win[k].samples_sq);
		sums[k].sampled = READ_ONCE(plans[target].win[k].sampled);
		sums[k].cover_num = (u64)plans[target].nr_items *
				    plans[target].nr_members;
		sums[k].cover_den = plans[target].item_slots;
		if (sums[k].cover_den) {
			u64 g = gcd(sums[k].cover_num, sums[k].cover_den);

			sums[k].cover_num /= g;
			sums[k].cover_den /= g;
		}
	}
}

/* The allocation count and the clock come from the caller (profile.c). */
void dprof_plan_window_scale(struct dprof_window_scale *scale)
{
	memset(scale, 0, sizeof(*scale));
	scale->window_ms = plan_spec.window_ms;
	scale->lives = plan_spec.lives;
	scale->censuses = READ_ONCE(censuses);
	scale->inuse_windows = READ_ONCE(inuse_windows);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Sample windows, the watch sampler's samples (sampler=watch, or auto
 * without IBS/PEBS).  Every trapped access in a window is an access
 * sample.  Two kinds, which sample disjoint accesses (dprof.h, enum
 * dprof_window_kind; design.rst, "Objects chosen at allocation"):
 *
 * - Young: the next allocation of a type named by the any gate (types
 *   drawn by allocation rate), watched from its allocation for
 *   sample_window_ms or until its free.  The hook that claims it arms
 *   the registers (history.c, dprof_history_picked()), so objects that
 *   live microseconds are reached:
 *     IDLE -> ARMING -> WAITING (collector: the type, its gate open)
 *     WAITING -> CLAIMING -> SAMPLING (allocation hook)
 *     SAMPLING -> ENDED (collector after sample_window_ms, or free hook)
 * - Old: a live object older than sample_window_ms, of the next type in
 *   rotation, one of those a census of the live set kept (below), watched
 *   at the offsets of its type's plan watched least long so far, for
 *   sample_window_ms:
 *     IDLE -> ARMING (collector: the object and its offsets)
 *     ARMING -> SAMPLING -> ENDED (collector, after sample_window_ms)
 *     ARMING or SAMPLING -> ENDED (free hook: the object died)
 *   The free hook checks the window after the object left the live set,
 *   and the collector checks the live set after publishing the window:
 *   one of the two always sees the other, so no window outlives its
 *   object unnoticed.
 */
#include <linux/cpu.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include "uapi/dprof.h"
#include "watch.h"
#include "plan.h"
#include "inuse.h"
#include "own.h"
#include "resolve.h"
#include "dprof_trace.h"
#include "target.h"
#include "liveset.h"
#include "ring.h"
#include "sample.h"
#include "watch_config.h"
#include "census.h"

/*
 * Old windows are stratified by type.  A census of the live set, every
 * CENSUS_MS (every CENSUS_RETRY_MS while turns find nothing), walked in a
 * work while the turns go on (census.c), counts each
 * type's objects older than a window and keeps a uniform reservoir of
 * CENSUS_KEEP of them; a turn takes the next type in
 * rotation and one of its kept objects (one found dead or reused is
 * dropped and another drawn; a type with none left passes its turn on).
 * A type's share then rests on its
 * own samples per window times its old objects (profile.c): a type with a
 * handful of objects in use (a server's sockets) is reached as often as
 * one with a hundred thousand idle ones, which uniform draws from the
 * whole set never did.  Recent use steers the rotation: a type whose
 * window saw no access, or whose object died first, sits out twice as
 * many rotations as before (up to 64); one access brings it back.
 *
 * The objects in use (inuse.c: where the CPUs' registers pointed lately)
 * are a stratum of their own.  Rotation turns draw among the kept
 * objects not in use, and the census counts the type's old objects not
 * in use as the scale of those (DPROF_WINDOW_OLD).  Every other turn
 * takes its type from the objects in use instead, drawn by their counts,
 * and one of the type's U objects in use, uniformly (DPROF_WINDOW_INUSE):
 * its samples are weighed by rho = U / (N pi), N the type's old objects
 * and pi its chance of the type draw then, in 1/DPROF_WINDOW_RHO_ONE, so
 * that the sum over such windows over the in-use windows of all types
 * (not the type's own), times N, is the stratum's accesses: a type is
 * drawn while it is busy, and the mean over its own windows read bursty
 * types high (vm_area_struct at 20 % +- 37 from two windows in
 * memcslap's start-up, for the referee's 1.1 %; estimate.c, design.rst
 * "Objects in use").  (Drawn by their counts n of the type's H and
 * weighed H / (N n), the rare object seen once weighed so much that the
 * typical estimate of dprof_rank_hot's 16 busy objects was 2 to 3 times
 * low: the counts of 100 ticks a second say little about which of a
 * type's busy objects is busiest.)  The two strata add (profile.c): a type whose
 * accesses sit in a few busy objects is measured on them, one whose
 * objects are all alike keeps its uniform draws, and the windows go
 * where the CPUs work (design.rst, "Objects in use").
 */
static void window_missed(struct hist_plan *p)
{
	p->window_backoff = clamp(p->window_backoff * 2, 1U, 64U);
	p->window_skip = p->window_backoff;
}

/*
 * Per-offset samples of the window about to be armed: the last window's
 * were all counted (its registers are disarmed everywhere) before this.
 */
static void window_reset_slots(struct watch *w)
{
	unsigned int k;

	for (k = 0; k < NR_WATCH_OFFSETS; k++)
		atomic_set(&w->slot_hits[k], 0);
}

/* One record per window, for the profile's intervals (uapi/dprof.h). */
static void window_emit(const struct watch *w)
{
	struct dprof_window_rec e;
	unsigned int k;

	memset(&e, 0, sizeof(e));
	e.hdr.kind = DPROF_REC_WINDOW;
	e.hdr.size = sizeof(e);
	e.hdr.cpu = raw_smp_processor_id();
	e.hdr.target = w->target;
	e.time_ns = watch_now_ns();
	e.watched_ns = w->watched_ns;
	e.plan_item = w->plan_item;
	e.kind = w->young ? DPROF_WINDOW_REC_YOUNG : w->in_use ?
		 DPROF_WINDOW_REC_INUSE : DPROF_WINDOW_REC_OLD;
	e.nr_offsets = w->nr_offsets;
	e.cut = w->cut;
	e.cpus_changed = w->cpus_changed;
	e.rho = w->rho;
	e.item_rho = w->rho_item;
	for (k = 0; k < DPROF_HIST_MAX_OFFSETS; k++) {
		e.offset[k] = k < w->nr_offsets ? w->offset[k] :
			      DPROF_HIST_NO_OFFSET;
		e.samples[k] = k < NR_WATCH_OFFSETS ?
			       atomic_read(&w->slot_hits[k]) : 0;
	}
	/* A full ring counts the loss, as for every record. */
	dprof_ring_write(&e, sizeof(e));
}

/* A sweep of the live set dropped @base: for its window, as a free. */
static void window_sweep_dropped(unsigned long base)
{
	dprof_window_free(base);
}

/* Before any window: the live set tells the windows what a sweep drops. */
void dprof_window_init(void)
{
	dprof_census_init();
	dprof_liveset_on_sweep_drop(window_sweep_dropped);
}

/* After the collector stopped: it alone queues the census's walks. */
void dprof_window_exit(void)
{
	dprof_liveset_on_sweep_drop(NULL);
	dprof_census_exit();
}

/*
 * One of type @t's kept objects not in use, resolved in @r; false if
 * the type has none left alive (a kept object in use stays kept: it is
 * the other stratum's now, maybe not later).
 */
static bool window_draw_cold(struct census *c, unsigned int t,
			     struct dprof_resolved *r)
{
	unsigned int j, tries = 0;
	unsigned long base;

	/* seen[] counts the kept objects not found dead yet. */
	while (c->seen[t] && tries++ < 2 * CENSUS_KEEP) {
		j = get_random_u32_below(c->seen[t]);
		base = c->keep[t][j];
		if (dprof_inuse_count(base))
			continue;
		/* Still live, still old, still this type (not a reuse). */
		if (dprof_liveset_age(base) >= c->min_age &&
		    !dprof_resolve(base, r) && r->base == base &&
		    r->target == t)
			return true;
		dprof_watch_stats.windows_young_drawn++;
		c->keep[t][j] = c->keep[t][--c->seen[t]];
	}
	return false;
}

/*
 * One of type @t's U objects in use, drawn uniformly, resolved in @r,
 * and its weight rho = U / (N pi) in @rho, pi the type's @chance of the
 * draw (1/2^32); false if none.
 */
static bool window_draw_in_use(struct census *c, unsigned int t,
			       struct dprof_resolved *r, u32 chance, u32 *rho)
{
	unsigned int u = dprof_inuse_objects(t);
	unsigned long base;
	u64 den;

	if (!u)
		return false;
	base = dprof_inuse_pick(t, get_random_u32_below(u));
	if (!base || dprof_resolve(base, r) || r->base != base ||
	    r->target != t)
		return false;
	/*
	 * U / N, then over pi: at least 1/RHO_ONE (one object in use
	 * among 65,536 and more), at most 65,535 (a type drawn once in
	 * 65,535 with all its objects in use).
	 */
	if (check_mul_overflow((u64)max_t(u32, c->old[t], 1),
			       (u64)max_t(u32, chance, 1), &den))
		den = U64_MAX;
	*rho = clamp_t(u64, mul_u64_u64_div_u64((u64)u << 32,
						DPROF_WINDOW_RHO_ONE, den),
		       1, U32_MAX);
	return true;
}

/*
 * The next turn's object, resolved in @r, weighed by @rho, with in
 * @in_use which stratum it is of: every other turn a type drawn by its
 * objects in use and one of them, the others the next type in the
 * rotation and one of its kept objects not in use; false if none (no
 * old object, or every type sitting out).
 */
static bool window_draw(struct dprof_resolved *r, u32 *rho, bool *in_use)
{
	struct census *c = &dprof_census;
	unsigned int i, nr = READ_ONCE(dprof_nr_targets);
	u32 chance;
	bool sitting = false;
	int used;

	if (!dprof_census_take() || !nr)
		return false;
	c->by_use = !c->by_use;
	used = c->by_use ? dprof_inuse_pick_type(&chance) : -1;
	if (used >= 0 && used < nr &&
	    !(READ_ONCE(dprof_targets[used].flags) &
	      (DPROF_TARGET_DEAD | DPROF_TARGET_VAR)) &&
	    window_draw_in_use(c, used, r, chance, rho)) {
		c->turns_by_use++;
		*in_use = true;
		return true;
	}
	*in_use = false;
	*rho = DPROF_WINDOW_RHO_ONE;
	for (i = 0; i < nr; i++) {
		unsigned int t = (c->cursor + i) % nr;
		struct hist_plan *p = dprof_plan(t);

		if (!c->seen[t])
			continue;
		if (dprof_plan_built(t) && p->window_skip) {
			p->window_skip--;
			dprof_watch_stats.windows_skipped++;
			sitting = true;
			continue;
		}
		c->cursor = t + 1;
		if (window_draw_cold(c, t, r))
			return true;
	}
	/*
	 * Every kept object dead, or none: a census soon.  Types sitting out
	 * are not news a census could change: no census every 100 ms for
	 * them.
	 */
	if (!sitting)
		c->stale = true;
	return false;
}

/* Opens a sample window; false if it did not take the registers. */
bool dprof_window_arm(void)
{
	struct watch_stats *s = &dprof_watch_stats;
	struct watch *w = &dprof_watch;
	struct dprof_resolved r;
	struct hist_plan *p;
	unsigned long base;
	unsigned int item;
	int ret;
	u32 id, rho, rho_item;
	bool in_use;

	if (!window_draw(&r, &rho, &in_use) || dprof_plan_ensure(r.target) ||
	    !dprof_plan(r.target)->nr_items) {
		s->windows_no_object++;
		return false;
	}
	base = r.base;
	p = dprof_plan(r.target);
	item = dprof_plan_next_window(p, &rho_item);
	id = dprof_watch_next_id();
	dprof_watch_publish(id, WATCH_WINDOW, r.target, base, item,
			    p->items[item]);
	w->rho = rho;
	w->rho_item = rho_item;
	w->in_use = in_use;
	window_reset_slots(w);
	/* Publish the window before checking that the object still lives. */
	smp_mb();
	if (!dprof_liveset_contains(base)) {
		s->windows_missed++;
		window_missed(p);
		w->addr = 0;
		atomic_long_set_release(&w->word, make_word(id, W_IDLE));
		return false;
	}
	cpus_read_lock();
	ret = dprof_watch_arm(id);
	cpus_read_unlock();
	if (ret)
		return true;	/* the turn was taken */
	p->windows++;
	/* Before SAMPLING: no hit of this window goes uncounted. */
	w->hits_at_open = atomic64_read(&dprof_watch_hits.window);
	w->counting = true;
	w->open_ns = watch_now_ns();
	w->deadline_ns = w->open_ns +
			 (u64)dprof_watch_cfg.window_ms * NSEC_PER_MSEC;
	if (atomic_long_cmpxchg(&w->word, make_word(id, W_ARMING),
				make_word(id, W_SAMPLING)) !=
	    make_word(id, W_ARMING)) {
		/* Freed while arming: ENDED, the next step disarms. */
		s->windows_missed++;
		window_missed(p);
		w->open_ns = 0;
	}
	return true;
}

/*
 * A young window's turn: the type the any gate named (or the gate opened,
 * and false), its gate opened for the plan's offsets watched least long.
 */
bool dprof_window_pick_next(void)
{
	struct watch *w = &dprof_watch;
	struct hist_plan *p;
	unsigned int item;
	int target;
	u32 id, rho_item;

	target = dprof_pick_take_name();
	if (target < 0)
		return false;
	dprof_plan_count_alloc_draw(target);
	if (READ_ONCE(dprof_targets[target].flags) &
	    (DPROF_TARGET_DEAD | DPROF_TARGET_VAR) ||
	    dprof_plan_ensure(target) || !dprof_plan(target)->nr_items)
		return false;
	p = dprof_plan(target);
	item = dprof_plan_next_window(p, &rho_item);
	id = dprof_watch_next_id();
	dprof_watch_publish(id, WATCH_WINDOW, target, 0, item,
			    p->items[item]);
	window_reset_slots(w);
	w->young = true;
	w->in_use = false;
	w->rho = DPROF_WINDOW_RHO_ONE;
	w->rho_item = rho_item;
	w->deadline_ns = watch_now_ns() +
			 (u64)dprof_watch_cfg.wait_ms * NSEC_PER_MSEC;
	atomic_long_set_release(&w->word, make_word(id, W_WAITING));
	dprof_pick_open(target);
	return true;
}

/*
 * The allocation hook claimed a young window's object (CLAIMING) and
 * armed this CPU: the window opens now, and ends sample_window_ms later.
 */
void dprof_window_claimed(unsigned long word, unsigned long base)
{
	struct watch *w = &dprof_watch;

	w->hits_at_open = atomic64_read(&dprof_watch_hits.window);
	w->counting = true;
	w->open_ns = watch_now_ns();
	w->deadline_ns = w->open_ns +
			 (u64)dprof_watch_cfg.window_ms * NSEC_PER_MSEC;
	atomic_long_set_release(&w->word,
				make_word(word_id(word), W_SAMPLING));
}

/* A window ended (@cut: by the free of its object): credit its exposure. */
void dprof_window_ended(bool cut)
{
	struct watch *w = &dprof_watch;
	struct hist_plan *p = dprof_plan(w->target);
	u64 end = cut ? READ_ONCE(w->cut_ns) : watch_now_ns();

	w->watched_ns = 0;
	w->cut = cut;
	if (!w->open_ns)
		return;		/* never opened: counted as missed */
	if (cut)
		dprof_watch_stats.windows_cut++;
	else
		dprof_watch_stats.windows_full++;
	if (!w->cpus_changed && w->plan_item < p->nr_items &&
	    end > w->open_ns)
		p->exposure_ns[w->plan_item] += end - w->open_ns;
	if (end > w->open_ns)
		w->watched_ns = end - w->open_ns;
	w->open_ns = 0;
}

void dprof_window_disarmed(void)
{
	struct watch *w = &dprof_watch;
	struct hist_plan *p = dprof_plan(w->target);
	u64 window_ns = (u64)dprof_watch_cfg.window_ms * NSEC_PER_MSEC;
	u64 y, weighed;

	if (!w->window || !w->counting)
		return;
	/* Disarmed everywhere: no hit of this window is still to come. */
	y = atomic64_read(&dprof_watch_hits.window) - w->hits_at_open;
	if (w->young) {
		/* Old windows count when they open (dprof_window_arm()). */
		p->windows++;
		dprof_watch_stats.windows_young++;
	} else if (y) {
		p->window_backoff = 0;
	} else if (!w->in_use) {
		window_missed(p);	/* sits out more rotations */
	}
	dprof_plan_count_item(p, w->plan_item, y);
	/*
	 * In 1/DPROF_WINDOW_RHO_ONE samples, weighed by the object's draw
	 * and the item's (rho_item <= 2 RHO_ONE).
	 */
	weighed = mul_u64_u32_shr(y * w->rho, w->rho_item, 16);
	/*
	 * An old or in-use window stands for window_ms of its object's time
	 * (the scale, estimate.c), but the collector ends it at its first
	 * tick past the deadline and then disarms it: on memcached they
	 * watched 26 to 34 ms for 20, and task_struct, measured by them,
	 * read 1.9 times its rate against skbuff_head_cache's lives (the
	 * referee, 13 runs).  Its samples are taken per window_ms.  A window
	 * cut by its object's free watched all of it, and a young one is a
	 * life: their counts stand.
	 */
	if (!w->young && !w->cut && w->watched_ns > window_ns)
		weighed = mul_u64_u64_div_u64(weighed, window_ns,
					      w->watched_ns);
	dprof_plan_count_window(w->target, w->young ? DPROF_WINDOW_YOUNG :
				w->in_use ? DPROF_WINDOW_INUSE :
				DPROF_WINDOW_OLD, weighed);
	window_emit(w);
	w->counting = false;
	trace_dprof_window(w->target, w->addr, w->offset, w->nr_offsets,
			   w->watched_ns, y, w->cut);
}

/*
 * After the object left the live set (the barrier of its removal orders
 * that before these loads): end a sample window on it.  The free hook
 * checks the address before the call and this loads it again after the
 * state: the collector sets it before it publishes the state.
 */
void dprof_window_freed(unsigned long base)
{
	struct watch *w = &dprof_watch;
	unsigned long word = atomic_long_read_acquire(&w->word);
	unsigned int state = word_state(word);

	if ((state != W_ARMING && state != W_SAMPLING) ||
	    !READ_ONCE(w->window) || base != READ_ONCE(w->addr))
		return;
	WRITE_ONCE(w->cut_ns, watch_now_ns());
	if (atomic_long_cmpxchg(&w->word, word,
				make_word(word_id(word), W_ENDED)) == word)
		dprof_watch_kick();
}

/*
 * #DB: an access to the window's object is a sample if the object still
 * lives; true if it was taken.
 */
bool dprof_window_hit(unsigned int w, struct pt_regs *regs)
{
	struct watch *wa = &dprof_watch;

	/*
	 * A young window's object lives while SAMPLING (its free ends it
	 * first); an old one's, while in the live set (freed and reused by
	 * the same cache is still this type).
	 */
	if (!READ_ONCE(wa->young) &&
	    !dprof_liveset_contains(READ_ONCE(wa->addr))) {
		atomic64_inc(&dprof_watch_hits.outside_life);
		return false;
	}
	dprof_sample_watch(wa->target, wa->offset[w], regs->ip, true);
	atomic64_inc(&dprof_watch_hits.window);
	atomic_inc(&wa->slot_hits[w]);
	return true;
}

void dprof_window_show(struct seq_file *m)
{
	const struct watch_stats *c = &dprof_watch_stats;

	seq_printf(m, "sample windows: %llu full, %llu cut short by a free, %llu missed (freed first), %llu found no live object; %llu samples; sample_window_ms=%u%s\n",
		   c->windows_full, c->windows_cut, c->windows_missed,
		   c->windows_no_object,
		   (u64)atomic64_read(&dprof_watch_hits.window),
		   dprof_watch_cfg.window_ms,
		   dprof_watch_cfg.enabled ? ", turns with histories" : "");
	seq_printf(m, "  turns skipped after misses: %llu\n", c->windows_skipped);
	seq_printf(m, "  young (picked at allocation): %llu windows, %llu gates no allocation took in history_wait_ms\n",
		   c->windows_young, c->windows_unclaimed);
	seq_printf(m, "  old (by type from a census of the live set every %u ms): %llu kept objects freed or young again at their turn; %u censuses, %u early\n",
		   CENSUS_MS, c->windows_young_drawn, dprof_census.taken,
		   dprof_census.retaken);
	seq_printf(m, "  in use (old objects the CPUs' registers held lately, drawn by their use): %llu windows\n",
		   dprof_census.turns_by_use);
	dprof_inuse_show(m);
}

/*
 * The watch sampler as the core sees it: its windows open from the
 * collector's turns (history.c and collector.c start them with the
 * histories), and their shares are estimated from the windows.
 */
static int watch_setup(const struct dprof_sample_config *sc,
		       struct sample_state *st)
{
	st->period = 0;
	return 0;
}

const struct dprof_sampler_ops dprof_watch_sampler = {
	.id = DPROF_SAMPLER_WATCH,
	.share_of = DPROF_SHARE_OF_WINDOWS,
	.setup = watch_setup,
};

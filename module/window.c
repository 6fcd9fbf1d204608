// SPDX-License-Identifier: GPL-2.0
/*
 * Sample windows, the watch sampler's samples (sampler=watch, or auto
 * without IBS/PEBS): a live target object chosen at random from the live
 * set, watched at the offsets of its type's plan watched least long so
 * far, for sample_window_ms.  Every trapped access while it lives is an
 * access sample.  They use the watch's registers and states:
 *   IDLE -> ARMING (collector: the object and its offsets)
 *   ARMING -> SAMPLING -> ENDED (collector, after sample_window_ms)
 *   ARMING or SAMPLING -> ENDED (free hook: the object died)
 * The free hook checks the window after the object left the live set, and
 * the collector checks the live set after publishing the window: one of
 * the two always sees the other, so no window outlives its object
 * unnoticed.
 */
#include <linux/cpu.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include "watch.h"
#include "plan.h"
#include "dprof_trace.h"

static void window_missed(struct hist_plan *p)
{
	p->window_backoff = clamp(p->window_backoff * 2, 1U, 64U);
	p->window_skip = p->window_backoff;
}

/*
 * Draws the turn's objects, counts their types and returns the window's
 * object, resolved, in @r; false if none resolved to a live target.
 */
static bool window_draw(struct dprof_resolved *r)
{
	unsigned long bases[DPROF_WINDOW_DRAWS];
	unsigned int n, i, pick;
	bool found = false;

	n = dprof_liveset_pick(bases, DPROF_WINDOW_DRAWS);
	if (!n)
		return false;
	/* Any position: a sparse set's reservoir does not shuffle them. */
	pick = get_random_u32_below(n);
	for (i = 0; i < n; i++) {
		struct dprof_resolved o;

		if (dprof_resolve(bases[i], &o) || o.base != bases[i] ||
		    (READ_ONCE(dprof_targets[o.target].flags) &
		     DPROF_TARGET_DEAD))
			continue;
		dprof_plan_count_draw(o.target);
		if (i == pick) {
			*r = o;
			found = true;
		}
	}
	return found;
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
	u32 id;

	if (!window_draw(&r) || dprof_plan_ensure(r.target) ||
	    !dprof_plan(r.target)->nr_items) {
		s->windows_no_object++;
		return false;
	}
	base = r.base;
	p = dprof_plan(r.target);
	/*
	 * Objects that die before the registers are armed (skbuffs live
	 * microseconds, an arm takes milliseconds) would make every window
	 * an arm for nothing: after each miss, skip twice as many turns
	 * (up to 64) for this type; an opened window resets it.
	 */
	if (p->window_skip) {
		p->window_skip--;
		s->windows_skipped++;
		return false;
	}
	item = dprof_plan_next_window(p);
	id = dprof_watch_next_id();
	dprof_watch_publish(id, WATCH_WINDOW, r.target, base, item,
			    p->items[item]);
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
	} else {
		p->window_backoff = 0;
	}
	return true;
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
	u64 y;

	if (!w->window || !w->counting)
		return;
	/* Disarmed everywhere: no hit of this window is still to come. */
	y = atomic64_read(&dprof_watch_hits.window) - w->hits_at_open;
	WRITE_ONCE(p->window_samples, p->window_samples + y);
	WRITE_ONCE(p->window_samples_sq, p->window_samples_sq + y * y);
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
bool dprof_window_hit(unsigned int w, bool write_bp, struct pt_regs *regs)
{
	struct watch *wa = &dprof_watch;

	/* Freed and reused by the same cache is still this type. */
	if (!dprof_liveset_contains(READ_ONCE(wa->addr))) {
		atomic64_inc(&dprof_watch_hits.outside_life);
		return false;
	}
	dprof_sample_watch(wa->target, wa->offset[w], regs->ip,
			   dprof_watch_bps_per_offset > 1, write_bp, true);
	atomic64_inc(&dprof_watch_hits.window);
	return true;
}

void dprof_window_show(struct seq_file *m)
{
	const struct watch_stats *c = &dprof_watch_stats;

	seq_printf(m, "sample windows: %llu full, %llu cut short by a free, %llu missed (freed before armed), %llu found no live object, %llu turns skipped after misses; %llu samples; sample_window_ms=%u%s\n",
		   c->windows_full, c->windows_cut, c->windows_missed,
		   c->windows_no_object, c->windows_skipped,
		   (u64)atomic64_read(&dprof_watch_hits.window),
		   dprof_watch_cfg.window_ms,
		   dprof_watch_cfg.enabled ?
		   ", taking turns with histories" : "");
}

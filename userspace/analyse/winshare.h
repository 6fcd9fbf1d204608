/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Field shares from the sample windows (sampler=watch), with intervals.
 * Each window watched a group of offsets of one object for a while and
 * counted the samples each offset took (DPROF_REC_WINDOW).  An offset's
 * rate is its samples per window that watched it, r_o = H_o / W_o, so
 * that offsets watched more often weigh no more; per window, not per second: a young window is one life
 * (to its free, or window_ms), and a trap's cost lengthens a life that
 * has many watched accesses without adding to its count.  A field's
 * share of its type is the sum of its offsets' rates over the type's,
 * S = r_F / R, R the watched offsets' rates times the plan's offsets
 * over the watched (the unwatched taken at the watched ones' mean rate,
 * as the module's type estimate takes them; 1 where all were watched).
 * An old window's object may have been drawn by its use
 * (dprof.ko's "objects in use"): its samples count rho times, rho the
 * draw's weight against a uniform draw, so the shares are of the type's
 * objects, not of the ones the draws favoured.
 * The windows are the independent units: S's variance is the linearised
 * one of a ratio of sums, sum_i IF_i^2 N / (N - 1) over the type's N
 * windows, with IF_i window i's influence on S.  Windows whose CPUs
 * changed, or that never opened, are left out.
 *
 * Strata.  The module estimates a type's accesses as a sum over kinds of
 * window (old objects not in use, old objects in use, young ones or
 * lives), each weighed by its own scale, and the recording's facts give
 * each kind's part of the type (struct dprof_target_fact.kind_part).
 * The kinds see different objects: a by-site kmalloc cache's young
 * objects are one call site's, its old ones others' (on memcached,
 * kmalloc-192's 413 young windows were all memcslap's iovecs, its 7
 * in-use windows something else).  Pooling the windows would weigh each
 * kind by how many windows it had; with parts, a field's share is the
 * kinds' own shares weighed by their parts, S = sum_k w_k S_k, and its
 * variance sum_k w_k^2 var(S_k), the kinds being independent draws.  The
 * lives' units are the histories that watched an object from its
 * allocation to its free or history_timeout_ms, the ages the lives
 * stand for (design.rst, "By kind of window").  Without
 * them (none given, fewer than two) the young windows stand in: the
 * same objects, picked by the same gate, but each cut at
 * sample_window_ms, so that an object living longer has its late
 * accesses left out (UDP skbuffs under the referee live 20-60 ms: the
 * group of head, data and users read 62 accesses a window for 82 a
 * life).  A kind that never watched the field is left
 * out and the others' parts renormalised; a kind with one unit, or so
 * few samples that its linearised variance passes 1/4, takes 1/4, the
 * most a share in [0, 1] can vary.  Without parts (recordings
 * before them, IBS/PEBS) the windows are pooled as one stratum.  Plain
 * analysis.
 */
#ifndef DPROF_WINSHARE_H
#define DPROF_WINSHARE_H

#include <stddef.h>
#include <stdint.h>
#include "recfile.h"

struct winshare_window {
	uint16_t offset[DPROF_HIST_MAX_OFFSETS];	/* NO_OFFSET pads */
	/* samples per offset, times the draw's weight rho (WINDOW record) */
	double h[DPROF_HIST_MAX_OFFSETS];
};

struct winshare_slot {
	uint16_t offset;
	uint64_t samples;	/* as counted, unweighed: how much it rests on */
	double h;		/* weighed samples, over its windows */
	double h_var;		/* their Poisson variance: sum rho^2 samples */
	uint64_t windows;	/* that watched it: W_o */
};

/* One kind's windows (or lives): its units and its rates. */
struct winshare_stratum {
	struct winshare_window *w;
	size_t nw;
	struct winshare_slot *s;	/* by offset */
	size_t ns;
	double rate;		/* R: samples per window, summed over offsets */
	/*
	 * The plan's offsets over those this kind's windows watched (1
	 * when all were, or without plans): the unwatched are taken at the
	 * watched ones' mean rate, as the module's type estimate takes them.
	 */
	double unwatched_scale;
};

struct winshare_target {
	/* Every unit's offsets and samples, all strata (for listing). */
	struct winshare_slot *s;
	size_t ns;
	/* By DPROF_WINDOW_REC_* kind; pooled: all in stratum 0. */
	struct winshare_stratum k[DPROF_WINDOW_REC_KINDS];
	double part[DPROF_WINDOW_REC_KINDS];	/* w_k, summing to 1 */
	/*
	 * The part of the type its kinds with windows but no sample could
	 * hold, 95% upper (dprof_target_fact.unseen), 0..1: the parts
	 * above leave it out.
	 */
	double unseen;
	bool stratified;	/* by the module's parts; else pooled */
	bool lives_from_histories;	/* the lives' units: histories */
	bool windowed;		/* a window of it was used */
};

struct winshare {
	struct winshare_target *t;	/* by recording target */
	size_t nr_targets;
	uint64_t windows, left_out;	/* used; CPUs changed or never open */
	size_t stratified;	/* types weighed by the module's parts */
	/*
	 * Histories used as lives' units: a stratified type's lives, or
	 * the only units of a type with neither parts nor windows.
	 */
	size_t lives;
};

/*
 * One field's estimate.  share +- half is over the kinds that saw the
 * type's accesses; a part u of the type they did not see (the unseen
 * kinds' bound) may be used anywhere, so the field's share of the whole
 * type lies in [lo, hi] = [(1 - u)(share - half), (1 - u)(share + half)
 * + u], clipped to [0, 1]: the interval the views print and the referee
 * judges.  With u = 0 it is share +- half.
 */
struct winshare_est {
	double share;		/* of the type's rate, 0..1 */
	double half;		/* 95% half-width; < 0 unknown (< 2 windows) */
	double lo, hi;		/* the 95% interval with u; half < 0: none */
	double unseen;		/* u, the type's */
	uint64_t windows;	/* that watched the field */
};

struct history_set;
/* @hs: the recording's histories, the lives' units; NULL: young windows. */
void winshare_build(struct winshare *ws, const struct recording *r,
		    const struct history_set *hs);
void winshare_free(struct winshare *ws);
/*
 * The share of the offsets of @target in [@lo, @hi) (@hi == @lo: the
 * one offset @lo); false when no window watched them.
 */
bool winshare_field(const struct winshare *ws, unsigned int target,
		    uint32_t lo, uint32_t hi, struct winshare_est *e);

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * Writes the fuzzer's seed corpus: small valid recordings that reach every
 * reader (events, histories, samples, a profile text, a tiny BTF).
 *
 *   fuzz-seeds DIR
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "fixture.h"
#include "util.h"


static int write_seed(const char *dir, const char *name, struct fixture *f)
{
	char path[4096];
	FILE *out;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	out = fopen(path, "wb");
	if (!out || fwrite(f->buf, 1, f->len, out) != f->len || fclose(out)) {
		fprintf(stderr, "fuzz-seeds: cannot write %s: %s\n", path,
			strerror(errno));
		return 1;
	}
	fixture_free(f);
	return 0;
}

static void history(struct fixture *f)
{
	struct dprof_hist_begin b = {
		.hdr = { .kind = DPROF_REC_HIST_BEGIN, .size = sizeof(b) },
		.time_ns = 1000, .addr = 0xffff888000001000ull,
		.call_site = 0xffffffff81000010ull, .id = 7,
		.offset = { 0, 8 }, .len = 8, .nr_offsets = 2,
	};
	struct dprof_hist_elem e = {
		.kind = DPROF_REC_HIST_ELEM, .size = sizeof(e), .cpu = 1,
		.tag = 7 | DPROF_ELEM_WRITE, .ip_lo = 0x81000100, .time_ns = 50,
	};
	struct dprof_hist_end x = {
		.hdr = { .kind = DPROF_REC_HIST_END, .size = sizeof(x), .cpu = 1 },
		.time_ns = 2000, .id = 7, .reason = DPROF_HIST_FREED,
		.elements = 1,
	};

	fixture_raw(f, &b, sizeof(b));
	fixture_raw(f, &e, sizeof(e));
	fixture_raw(f, &x, sizeof(x));
}

int main(int argc, char **argv)
{
	struct dprof_sample_agg s[2] = {
		{ .ip = 0xffffffff81000100ull, .count = 5, .loads = 3,
		  .stores = 2, .offset = 8, .target = 0,
		  .flags = DPROF_AGG_WATCH_IP },
		{ .ip = 0xffffffff81000200ull, .count = 2, .misses = 1,
		  .latency_sum = 300, .loads = 2, .offset = 200, .target = 0 },
	};
	struct btf *btf = btf__new_empty();
	const void *raw;
	struct fixture f;
	uint32_t raw_len;
	int u64, st, bad = 0;

	prog_name = "fuzz-seeds";
	if (argc != 2) {
		fprintf(stderr, "usage: fuzz-seeds DIR\n");
		return 2;
	}
	fixture_begin(&f, 2);
	fixture_event(&f, DPROF_REC_ALLOC, 0, 0, 100, 0xffff888000001000ull);
	fixture_event(&f, DPROF_REC_FREE, 1, 0, 900, 0xffff888000001000ull);
	fixture_event(&f, DPROF_REC_ALLOC, 1, 1, 950, 0xffff888000002000ull);
	fixture_end(&f);
	bad |= write_seed(argv[1], "events.dprof", &f);

	fixture_begin(&f, 1);
	history(&f);
	fixture_end(&f);
	bad |= write_seed(argv[1], "histories.dprof", &f);

	/* A kmalloc target's samples on followed objects: split by site. */
	fixture_begin_flags(&f, 1, DPROF_TARGET_KMALLOC);
	fixture_event(&f, DPROF_REC_ALLOC, 0, 0, 100, 0xffff888000001000ull);
	fixture_event(&f, DPROF_REC_ALLOC, 0, 0, 110, 0xffff888000002000ull);
	for (int i = 0; i < 3; i++) {
		struct dprof_sample_rec sr = {
			.hdr = { .kind = DPROF_REC_SAMPLE, .size = sizeof(sr),
				 .flags = DPROF_SAMPLE_LOAD | DPROF_SAMPLE_LIVE |
					  DPROF_SAMPLE_SITE_ONLY },
			.time_ns = 200 + i, .ip = 0xffffffff81000100ull,
			.offset = 8, .base = i ? 0xffff888000001000ull :
						 0xffff888000002000ull,
		};

		fixture_raw(&f, &sr, sizeof(sr));
	}
	fixture_event(&f, DPROF_REC_FREE, 0, 0, 900, 0xffff888000001000ull);
	fixture_end(&f);
	bad |= write_seed(argv[1], "sites.dprof", &f);

	/* Samples with call chains (callchain=N): advise by hot path. */
	fixture_begin(&f, 1);
	for (int i = 0; i < 3; i++) {
		uint8_t rec[sizeof(struct dprof_sample_rec) + 3 * 8];
		const uint64_t chain[3] = {
			0xffffffff81000200ull, 0xffffffff81000300ull,
			0xffffffff81000400ull,
		};
		struct dprof_sample_rec sr = {
			.hdr = { .kind = DPROF_REC_SAMPLE,
				 .size = sizeof(sr) + (i + 1) * 8,
				 .flags = DPROF_SAMPLE_STORE | DPROF_SAMPLE_CHAIN },
			.time_ns = 200 + i, .ip = 0xffffffff81000100ull,
			.offset = 8 * i,
		};

		memcpy(rec, &sr, sizeof(sr));
		memcpy(rec + sizeof(sr), chain, (i + 1) * 8);
		fixture_raw(&f, rec, sr.hdr.size);
	}
	{
		/* ops=: the paths' operations counted. */
		static const struct dprof_op_count ops[] = {
			{ .name = "tcp_sendmsg", .count = 1000 },
			{ .name = "tcp_v4_rcv", .count = 990, .missed = 1 },
		};

		fixture_end_with(&f, DPROF_SEC_OPS, ops, sizeof(ops));
	}
	bad |= write_seed(argv[1], "chains.dprof", &f);

	fixture_begin(&f, 1);
	fixture_end_with(&f, DPROF_SEC_SAMPLES, s, sizeof(s));
	bad |= write_seed(argv[1], "samples.dprof", &f);

	{
		struct dprof_plan_item plan = {
			.target = 0, .nr_offsets = 2, .len = 8,
			.offset = { 0, 8, DPROF_HIST_NO_OFFSET,
				    DPROF_HIST_NO_OFFSET },
			.complete = 1,
		};

		struct dprof_window_rec w = {
			.hdr = { .kind = DPROF_REC_WINDOW, .size = sizeof(w) },
			.rho = DPROF_WINDOW_RHO_ONE,
			.time_ns = 3000, .watched_ns = 20000000,
			.nr_offsets = 2,
			.offset = { 0, 8, DPROF_HIST_NO_OFFSET,
				    DPROF_HIST_NO_OFFSET },
			.samples = { 3, 1 },
		};

		fixture_begin(&f, 1);
		history(&f);
		fixture_raw(&f, &w, sizeof(w));
		fixture_raw(&f, &w, sizeof(w));
		fixture_end_with(&f, DPROF_SEC_PLANS, &plan, sizeof(plan));
		bad |= write_seed(argv[1], "plans.dprof", &f);
	}

	/* The typed facts (a header and one target), which report reads. */
	{
		struct {
			struct dprof_facts head;
			struct dprof_target_fact t;
		} facts = {
			.head = { .size = sizeof(struct dprof_facts),
				  .target_size = sizeof(struct dprof_target_fact),
				  .nr_targets = 1, .sampler = DPROF_SAMPLER_WATCH,
				  .samples = 4, .in_targets = 4 },
			.t = { .target = 0, .share_kind = DPROF_SHARE_INTERVAL,
			       .share = 10000, .half = 100, .windows = 2 },
		};

		fixture_begin(&f, 1);
		history(&f);
		fixture_end_with(&f, DPROF_SEC_FACTS, &facts, sizeof(facts));
		bad |= write_seed(argv[1], "facts.dprof", &f);
	}

	/*
	 * The geometries the reader accepts, at both ends (ws_geometry_ok):
	 * the working set and the cache simulation run on each.
	 */
	for (int i = 0; i < 2; i++) {
		struct dprof_file_cache c = i ?
			(struct dprof_file_cache){ .level = 1,
				.type = DPROF_CACHE_DATA, .line_size = 16,
				.ways = 1, .sets = 1, .size = 16 } :
			(struct dprof_file_cache){ .level = 3,
				.type = DPROF_CACHE_UNIFIED, .line_size = 64,
				.ways = 1024, .sets = 16384,
				.size = 1024u * 16384 * 64 };

		fixture_begin(&f, 2);
		fixture_event(&f, DPROF_REC_ALLOC, 0, 0, 100,
			      0xffff888000001000ull);
		history(&f);
		fixture_event(&f, DPROF_REC_FREE, 1, 0, 2100,
			      0xffff888000001000ull);
		fixture_end_with(&f, DPROF_SEC_CACHES, &c, sizeof(c));
		bad |= write_seed(argv[1], i ? "geometry-smallest.dprof" :
				  "geometry-largest.dprof", &f);
	}

	/* BTF naming cache0's objects: struct cache0 { u64 a[26]; }. */
	u64 = btf__add_int(btf, "unsigned long long", 8, 0);
	st = btf__add_struct(btf, "cache0", 208);
	btf__add_field(btf, "a", btf__add_array(btf, u64, u64, 26), 0, 0);
	raw = btf__raw_data(btf, &raw_len);
	if (st < 0 || !raw) {
		fprintf(stderr, "fuzz-seeds: cannot build BTF\n");
		return 1;
	}
	fixture_begin(&f, 1);
	fixture_end_with(&f, DPROF_SEC_BTF, raw, raw_len);
	bad |= write_seed(argv[1], "btf.dprof", &f);
	btf__free(btf);
	return bad;
}

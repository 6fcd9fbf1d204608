// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: a recording file, as dprof-view reads it.  The parser
 * must refuse what is malformed, and whatever it accepts every analysis
 * must walk without a read out of bounds (ASan/UBSan build): address set,
 * histories, path traces, miss classification, data flow, working set
 * and the data profile (BTF included, parsed by
 * libbpf), the pprof and trace exports and the heat map.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "cachesim.h"
#include "classify.h"
#include "combine.h"
#include "diffbuckets.h"
#include "flow.h"
#include "heatmap.h"
#include "histories.h"
#include "objects.h"
#include "paths.h"
#include "perfetto.h"
#include "pprof.h"
#include "fastpath.h"
#include "profile.h"
#include "rawsamples.h"
#include "recfile.h"
#include "report.h"
#include "winshare.h"
#include "workingset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct recording r;
	struct rec_error err;
	struct obj_summary objs;
	struct history_set hs;
	struct path_set ps;
	struct classify c;
	struct ksyms syms;
	struct flow fl;
	struct workingset ws;
	struct ws_geometry geo = {
		.level = 1, .size = 32 << 10, .ways = 8, .line = 64, .sets = 64,
	};
	struct profile p;
	struct dprof_sample_agg *agg = NULL;
	struct combined_set cs;
	struct cachesim sim;
	struct obj_trace trace;
	struct layout **layouts;
	struct pb_buf pb;
	FILE *sink;
	uint8_t *copy;

	/* A private copy: the reader may keep pointers into its buffer. */
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (recording_parse(&r, copy, size, &err) == 0) {
		raw_samples_aggregate(&r, &agg);
		histories_build(&hs, &r);
		if (!objects_summarize(&r, &objs)) {
			/*
			 * Any geometry the reader accepts (ws_geometry_ok(),
			 * up to WS_MAX_LINES lines), else the default above.
			 */
			ws_geometry_from(&r, 0, &geo);
			workingset_build(&ws, &r, &hs, &objs, &geo);
			workingset_free(&ws);
			objects_free(&objs);
		}
		paths_build(&ps, &r, &hs);
		combine_build(&cs, &ps);
		if (!objects_summarize(&r, &objs)) {
			struct sim_template *t;

			ws_geometry_from(&r, 0, &geo);
			t = calloc(r.nr_targets + 1, sizeof(*t));
			if (t) {
				sim_templates_build(t, &r, &hs);
				/* Bounded so that one input stays fast. */
				cachesim_run(&sim, t, r.nr_targets, &objs,
					     &geo, 20000);
				cachesim_free(&sim);
				sim_templates_free(t, r.nr_targets);
				free(t);
			}
			objects_free(&objs);
		}
		combine_free(&cs);
		paths_free(&ps);
		classify_build(&c, &hs);
		classify_free(&c);
		ksyms_load(&syms, r.kallsyms);
		for (size_t t = 0; t < r.nr_targets && t < 4; t++) {
			struct fastpath fp;

			flow_build(&fl, &hs, (int)t, &syms);
			flow_free(&fl);
			/* The samples' call chains, by kernel entry. */
			fastpath_build(&fp, &r, (int)t, &syms, NULL, 0);
			fastpath_free(&fp);
		}
		trace_build(&hs, -1, &trace);
		layouts = calloc(r.nr_targets + 1, sizeof(*layouts));
		sink = fopen("/dev/null", "w");
		if (layouts && sink)
			trace_write(sink, &trace, &r, layouts, &syms);
		if (sink)
			fclose(sink);
		free(layouts);
		trace_free(&trace);
		histories_free(&hs);
		profile_build(&r, NULL, &p);
		pprof_encode(&p, &syms, &(struct pprof_meta){ 0 }, &pb);
		pb_buf_free(&pb);
		for (size_t t = 0; t < p.nr_types && t < 4; t++) {
			struct heat_type heat;

			heat_build(&p, &p.types[t], NULL, NULL, 0, &heat);
			heat_free(&heat);
		}
		ksyms_free(&syms);
		profile_free(&p);
		{
			struct report rep;
			struct winshare w;
			struct winshare_est e;

			report_build(&r, NULL, &rep);
			report_free(&rep);
			winshare_build(&w, &r, NULL);
			for (size_t t = 0; t < r.nr_targets && t < 4; t++)
				winshare_field(&w, (unsigned int)t, 0, 64, &e);
			winshare_free(&w);
		}
		/* The differential profile's buckets, one of each source. */
		for (int m = 0; m < DIFF_M_MAX; m++) {
			struct diff_table t;
			char why[256];
			int by = m == DIFF_M_HISTORIES ? DIFF_BY_PATH :
				 m == DIFF_M_WS_LINES ? DIFF_BY_SET :
				 m == DIFF_M_SAMPLES ? DIFF_BY_FUNCTION :
				 DIFF_BY_TYPE;

			if (m == DIFF_M_WS_BYTES || m == DIFF_M_LIVE_OBJECTS)
				continue;	/* as live-bytes */
			if (!diff_buckets_build(&t, &r, by, m, NULL, &geo, why,
						sizeof(why)))
				diff_table_free(&t);
		}
		recording_free(&r);
		free(agg);
	}
	free(copy);
	return 0;
}

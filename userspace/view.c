// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include "util.h"
#include "view.h"

int view_open(const struct view_opts *o, struct recording *r, FILE **out,
	      const char *cmd)
{
	struct rec_error err;

	if (recording_load(r, o->input, &err)) {
		errmsg("%s: %s: byte %llu: %s", cmd, o->input,
		       (unsigned long long)err.offset, err.msg);
		return EXIT_USAGE;
	}
	*out = stdout;
	if (o->output) {
		*out = fopen(o->output, "w");
		if (!*out) {
			errmsg("%s: cannot write %s: %s", cmd, o->output,
			       strerror(errno));
			recording_free(r);
			return EXIT_FAIL;
		}
	}
	return 0;
}

int view_close(FILE *out, const struct view_opts *o)
{
	if (out != stdout) {
		if (fclose(out)) {
			errmsg("cannot write %s: %s", o->output,
			       strerror(errno));
			return EXIT_FAIL;
		}
	} else if (fflush(stdout)) {
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * heat_build(): a 128-byte object with fields a (0-7), a union of b and c
 * (8-15, 8-11), a hole (16-63) and d (64-71), the rest past the struct.
 * One watch row of 8 bytes at 16 covers only the hole; one at 64 covers
 * d; an IBS-style row at 8 (size 4) falls in the union.  The expected
 * boxes and weights follow from those definitions; labels from the
 * fields' classification, a line's hand-off on the line.
 */
#include <stdlib.h>
#include "harness.h"
#include "heatmap.h"

static void test_heat_boxes(void)
{
	struct layout_field lf[4] = {
		{ .offset = 0, .size = 8, .path = "a" },
		{ .offset = 8, .size = 8, .path = "u.b" },
		{ .offset = 8, .size = 4, .path = "u.c" },
		{ .offset = 64, .size = 8, .path = "d" },
	};
	struct layout l = { .name = "struct t", .size = 72, .fields = lf,
			    .nr_fields = 4, .max_field_size = 8 };
	struct profile_field rows[3] = {
		{ .offset = 8, .size = 4, .samples = 10, .name = "u.b|u.c" },
		{ .offset = 16, .size = 8, .samples = 6, .name = "(padding)" },
		{ .offset = 64, .size = 8, .samples = 30, .name = "d" },
	};
	struct profile_type t = { .cache = "t", .object_size = 128,
				  .fields = rows, .nr_fields = 3,
				  .samples = 46 };
	struct profile p = { .types = &t, .nr_types = 1, .samples = 46 };
	struct classify_field cf = { .target = 2, .offset = 64, .len = 8,
				     .accesses = 40, .false_sharing = 20,
				     .label = CLASSIFY_FALSE_SHARING };
	struct classify c = { .f = &cf, .n = 1 };
	struct heat_type h;

	heat_build(&p, &t, &l, &c, 2, &h);
	CHECK_EQ_U64(h.nr_boxes, 5);
	if (h.nr_boxes == 5) {
		const struct heat_box *b = h.boxes;

		CHECK(b[0].offset == 0 && b[0].size == 8 && !b[0].padding &&
		      b[0].weight == 0);
		CHECK(b[1].offset == 8 && b[1].size == 8 && b[1].weight == 10);
		CHECK_STR_CONTAINS(b[1].name, "u.b +1 more");
		CHECK_STR_CONTAINS(b[1].names, "u.b, u.c");
		/* The hole: a row over holes only keeps its weight there. */
		CHECK(b[2].offset == 16 && b[2].size == 48 && b[2].padding &&
		      b[2].weight == 6);
		CHECK(b[3].offset == 64 && b[3].weight == 30 &&
		      b[3].label == CLASSIFY_FALSE_SHARING &&
		      b[3].accesses == 40);
		CHECK(b[4].offset == 72 && b[4].size == 56 && b[4].padding);
		CHECK_STR_CONTAINS(b[4].name, "past the struct");
		CHECK(h.max == 30 && h.total == 46 && h.labelled == 1);
	}
	heat_free(&h);

	/*
	 * Line 0 handed off (classify -L): the line carries the label, its
	 * boxes keep their fields' own (none here), line 1 has none.
	 */
	{
		struct classify_line cl = { .target = 2, .line = 0,
					    .label = CLASSIFY_HANDOFF };

		c.l = &cl;
		c.nl = 1;
		heat_build(&p, &t, &l, &c, 2, &h);
		CHECK_EQ_U64(h.nr_lines, 2);
		if (h.nr_lines == 2)
			CHECK(h.line_label[0] == CLASSIFY_HANDOFF &&
			      h.line_label[1] == CLASSIFY_NEITHER);
		CHECK(h.nr_boxes == 5 && h.boxes[1].label != CLASSIFY_HANDOFF &&
		      h.labelled == 1);
		heat_free(&h);
		c.l = NULL;
		c.nl = 0;
	}

	/* Another target's labels do not apply; no layout: boxes are rows. */
	heat_build(&p, &t, NULL, &c, 1, &h);
	CHECK_EQ_U64(h.labelled, 0);
	/* holes 0-7, 12-15, 24-63 and the tail 72-127 around the 3 rows */
	CHECK_EQ_U64(h.nr_boxes, 7);
	heat_free(&h);
}

const struct unit_test heatmap_tests[] = {
	{ "heatmap: boxes, unions, holes, slot weights, labels", test_heat_boxes },
	{ NULL, NULL },
};

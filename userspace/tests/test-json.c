// SPDX-License-Identifier: GPL-2.0
/* The JSON writer: nesting, commas, escaping, non-finite numbers. */
#include <stdlib.h>
#include <math.h>
#include "harness.h"
#include "json.h"

static void test_document(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	struct json j;

	json_init(&j, out);
	json_object_begin(&j, NULL);
	json_string(&j, "name", "a\"b\\c\n\x01");
	json_array_begin(&j, "list");
	json_uint(&j, NULL, 1);
	json_int(&j, NULL, -2);
	json_array_end(&j);
	json_array_begin(&j, "empty");
	json_array_end(&j);
	json_double(&j, "nan", NAN);
	json_bool(&j, "yes", true);
	json_object_end(&j);
	json_finish(&j);
	fclose(out);
	CHECK(!strcmp(text,
		      "{\n"
		      "  \"name\": \"a\\\"b\\\\c\\n\\u0001\",\n"
		      "  \"list\": [\n"
		      "    1,\n"
		      "    -2\n"
		      "  ],\n"
		      "  \"empty\": [],\n"
		      "  \"nan\": null,\n"
		      "  \"yes\": true\n"
		      "}\n"));
	if (text && test_checks_failed)
		fprintf(stderr, "%s", text);
	free(text);
}

const struct unit_test json_tests[] = {
	{ "json: document shape and escaping", test_document },
	{ NULL, NULL },
};

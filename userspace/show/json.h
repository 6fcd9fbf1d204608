/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small streaming JSON writer: every view's --json goes through it so
 * that quoting and commas are right in one place.
 */
#ifndef DPROF_JSON_H
#define DPROF_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

struct json {
	FILE *out;
	int depth;
	bool need_comma[JSON_MAX_DEPTH];
	bool after_key;
};

void json_init(struct json *j, FILE *out);
void json_object_begin(struct json *j, const char *key);
void json_object_end(struct json *j);
void json_array_begin(struct json *j, const char *key);
void json_array_end(struct json *j);
/* key is NULL inside arrays. */
void json_string(struct json *j, const char *key, const char *value);
void json_uint(struct json *j, const char *key, uint64_t value);
void json_int(struct json *j, const char *key, int64_t value);
void json_double(struct json *j, const char *key, double value);
/* Nanoseconds as exact microseconds: 1234567 -> 1234.567. */
void json_ns_as_us(struct json *j, const char *key, uint64_t ns);
void json_bool(struct json *j, const char *key, bool value);
void json_null(struct json *j, const char *key);
/* Ends the document with a newline. */
void json_finish(struct json *j);

#endif

// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include "json.h"

void json_init(struct json *j, FILE *out)
{
	j->out = out;
	j->depth = 0;
	j->need_comma[0] = false;
	j->after_key = false;
}

static void put_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = *s;

		switch (c) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		default:
			if (c < 0x20)
				fprintf(out, "\\u%04x", c);
			else
				fputc(c, out);
		}
	}
	fputc('"', out);
}

/* Comma, indentation and key before a value. */
static void lead(struct json *j, const char *key)
{
	if (j->need_comma[j->depth])
		fputc(',', j->out);
	if (j->depth > 0) {
		fputc('\n', j->out);
		for (int i = 0; i < j->depth; i++)
			fputs("  ", j->out);
	}
	if (key) {
		put_string(j->out, key);
		fputs(": ", j->out);
	}
	j->need_comma[j->depth] = true;
}

static void open_container(struct json *j, const char *key, char c)
{
	lead(j, key);
	fputc(c, j->out);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->need_comma[j->depth] = false;
}

static void close_container(struct json *j, char c)
{
	bool had_items = j->need_comma[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (had_items) {
		fputc('\n', j->out);
		for (int i = 0; i < j->depth; i++)
			fputs("  ", j->out);
	}
	fputc(c, j->out);
}

void json_object_begin(struct json *j, const char *key)
{
	open_container(j, key, '{');
}

void json_object_end(struct json *j)
{
	close_container(j, '}');
}

void json_array_begin(struct json *j, const char *key)
{
	open_container(j, key, '[');
}

void json_array_end(struct json *j)
{
	close_container(j, ']');
}

void json_string(struct json *j, const char *key, const char *value)
{
	lead(j, key);
	put_string(j->out, value ? value : "");
}

void json_uint(struct json *j, const char *key, uint64_t value)
{
	lead(j, key);
	fprintf(j->out, "%llu", (unsigned long long)value);
}

void json_int(struct json *j, const char *key, int64_t value)
{
	lead(j, key);
	fprintf(j->out, "%lld", (long long)value);
}

void json_double(struct json *j, const char *key, double value)
{
	lead(j, key);
	if (isfinite(value))
		fprintf(j->out, "%.6g", value);
	else
		fputs("null", j->out);	/* JSON has no NaN or infinity */
}

void json_ns_as_us(struct json *j, const char *key, uint64_t ns)
{
	lead(j, key);
	fprintf(j->out, "%llu.%03llu", (unsigned long long)(ns / 1000),
		(unsigned long long)(ns % 1000));
}

void json_bool(struct json *j, const char *key, bool value)
{
	lead(j, key);
	fputs(value ? "true" : "false", j->out);
}

void json_null(struct json *j, const char *key)
{
	lead(j, key);
	fputs("null", j->out);
}

void json_finish(struct json *j)
{
	fputc('\n', j->out);
}

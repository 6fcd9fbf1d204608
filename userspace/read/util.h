/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers shared by dprof-view's files. */
#ifndef DPROF_UTIL_H
#define DPROF_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdbool.h>

/* Exit statuses, as in every dprof-view command. */
#define EXIT_OK		0
#define EXIT_FAIL	1	/* the operation failed */
#define EXIT_USAGE	2	/* bad usage or bad input */

extern const char *prog_name;

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);

/*
 * Names read from a recording (kallsyms, BTF) reach the terminal: every
 * byte outside printable ASCII, other than the newlines and tabs that
 * separate them, becomes '?', so that no escape sequence or carriage
 * return from a crafted file can rewrite what is shown.  In place;
 * returns @s.  text_is_printable() says whether there was none.
 */
char *text_printable(char *s);
bool text_is_printable(const char *s);

/* One-line message on stderr, prefixed with the program name. */
void errmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Read a whole file (regular or not: debugfs, procfs, sysfs report size 0)
 * into a NUL-terminated buffer.  Returns NULL with errno set on failure.
 */
char *read_whole_file(const char *path, size_t *len);

/* Path of a system file, with the prefix from an environment variable. */
const char *sys_path(char *buf, size_t len, const char *env, const char *def,
		     const char *rel);

/* Parse a duration like "5", "2.5s", "300ms"; false when malformed. */
bool parse_duration(const char *s, double *seconds);

double now_seconds(void);
void format_bytes(char *buf, size_t len, uint64_t bytes);

#endif

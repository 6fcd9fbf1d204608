// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "util.h"

const char *prog_name = "dprof-view";

static void *check_alloc(void *p)
{
	if (!p) {
		errmsg("out of memory");
		exit(EXIT_FAIL);
	}
	return p;
}

void *xmalloc(size_t size)
{
	return check_alloc(malloc(size ? size : 1));
}

void *xcalloc(size_t n, size_t size)
{
	return check_alloc(calloc(n ? n : 1, size ? size : 1));
}

void *xrealloc(void *p, size_t size)
{
	return check_alloc(realloc(p, size ? size : 1));
}

char *xstrdup(const char *s)
{
	return check_alloc(strdup(s));
}

static bool byte_printable(unsigned char c)
{
	return (c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t';
}

char *text_printable(char *s)
{
	for (char *p = s; *p; p++)
		if (!byte_printable((unsigned char)*p))
			*p = '?';
	return s;
}

bool text_is_printable(const char *s)
{
	for (; *s; s++)
		if (!byte_printable((unsigned char)*s))
			return false;
	return true;
}

void errmsg(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

char *read_whole_file(const char *path, size_t *len)
{
	size_t cap = 65536, used = 0;
	char *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	buf = xmalloc(cap);
	for (;;) {
		ssize_t n;

		if (used + 1 >= cap) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		n = read(fd, buf + used, cap - used - 1);
		if (n < 0) {
			int saved = errno;

			if (saved == EINTR)
				continue;
			free(buf);
			close(fd);
			errno = saved;
			return NULL;
		}
		if (n == 0)
			break;
		used += n;
	}
	close(fd);
	buf[used] = '\0';
	if (len)
		*len = used;
	return buf;
}

const char *sys_path(char *buf, size_t len, const char *env, const char *def,
		     const char *rel)
{
	const char *root = getenv(env);

	snprintf(buf, len, "%s%s%s", root && *root ? root : def,
		 rel && *rel ? "/" : "", rel ? rel : "");
	return buf;
}

bool parse_duration(const char *s, double *seconds)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v < 0)
		return false;
	if (!strcmp(end, "") || !strcmp(end, "s"))
		*seconds = v;
	else if (!strcmp(end, "ms"))
		*seconds = v / 1000;
	else if (!strcmp(end, "m"))
		*seconds = v * 60;
	else
		return false;
	return true;
}

double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void format_bytes(char *buf, size_t len, uint64_t bytes)
{
	if (bytes >= (1ULL << 30) && bytes % (1ULL << 30) == 0)
		snprintf(buf, len, "%llu GiB", (unsigned long long)(bytes >> 30));
	else if (bytes >= (1ULL << 20) && bytes % (1ULL << 20) == 0)
		snprintf(buf, len, "%llu MiB", (unsigned long long)(bytes >> 20));
	else if (bytes >= 1024 && bytes % 1024 == 0)
		snprintf(buf, len, "%llu KiB", (unsigned long long)(bytes >> 10));
	else
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
}

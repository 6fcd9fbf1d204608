// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sysinfo.h"
#include "util.h"

unsigned long long parse_cache_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (end == s)
		return 0;
	switch (toupper((unsigned char)*end)) {
	case 'K': v <<= 10; end++; break;
	case 'M': v <<= 20; end++; break;
	case 'G': v <<= 30; end++; break;
	default: break;
	}
	while (isspace((unsigned char)*end))
		end++;
	return *end ? 0 : v;
}

static char *cache_attr(int index, const char *attr)
{
	char rel[128], path[512];

	snprintf(rel, sizeof(rel), "devices/system/cpu/cpu0/cache/index%d/%s",
		 index, attr);
	sys_path(path, sizeof(path), "DPROF_SYSFS", "/sys", rel);
	return read_whole_file(path, NULL);
}

static unsigned int cache_uint(int index, const char *attr)
{
	char *text = cache_attr(index, attr);
	unsigned int v = text ? (unsigned int)strtoul(text, NULL, 10) : 0;

	free(text);
	return v;
}

size_t sysinfo_caches(struct dprof_file_cache *out, size_t max)
{
	size_t n = 0;

	for (int index = 0; index < 16 && n < max; index++) {
		char *type = cache_attr(index, "type");
		char *size = cache_attr(index, "size");
		struct dprof_file_cache *c = &out[n];

		if (!type || !size) {
			free(type);
			free(size);
			continue;
		}
		memset(c, 0, sizeof(*c));
		c->level = cache_uint(index, "level");
		c->type = !strncmp(type, "Data", 4) ? DPROF_CACHE_DATA :
			  !strncmp(type, "Instruction", 11) ?
			  DPROF_CACHE_INSTRUCTION : DPROF_CACHE_UNIFIED;
		c->size = parse_cache_size(size);
		c->line_size = cache_uint(index, "coherency_line_size");
		c->ways = cache_uint(index, "ways_of_associativity");
		c->sets = cache_uint(index, "number_of_sets");
		free(type);
		free(size);
		if (c->size)
			n++;
	}
	return n;
}

int parse_targets(const char *text, struct dprof_file_target *out,
		  size_t max, int *bad_line)
{
	const char *p = text;
	int n = 0, line = 0;

	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char buf[256], name[DPROF_NAME_LEN];
		unsigned int index, object_size, stride, flags;
		char extra;

		line++;
		if (len && *p != '#') {
			if (len >= sizeof(buf) || (size_t)n >= max)
				goto bad;
			memcpy(buf, p, len);
			buf[len] = '\0';
			if (sscanf(buf, "%u %63s %u %u %u %c", &index, name,
				   &object_size, &stride, &flags, &extra) != 5 ||
			    index != (unsigned int)n || stride < object_size)
				goto bad;
			memset(&out[n], 0, sizeof(out[n]));
			out[n].index = index;
			out[n].object_size = object_size;
			out[n].stride = stride;
			out[n].flags = flags;
			strcpy(out[n].name, name);
			n++;
		}
		p += len + (eol ? 1 : 0);
	}
	return n;
bad:
	*bad_line = line;
	return -1;
}

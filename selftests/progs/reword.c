// SPDX-License-Identifier: GPL-2.0
/*
 * reword IN OUT [--drop-facts]: a copy of a dprof recording whose texts
 * of the module (the "status", "histories" and "profile" sections) have
 * every letter rotated by 13, so that no sentence reads as the module
 * wrote it, numbers and layout kept.  The views read their figures from
 * the typed facts section, so their --json output must not change
 * (selftests/test-facts.sh); --drop-facts leaves that section out too,
 * which shows what a view would lose reading sentences.  Sections are
 * struct dprof_section headers followed by their payloads, padded to 8
 * bytes (module/uapi/dprof.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "uapi/dprof.h"

static void rot13(uint8_t *p, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		if (p[i] >= 'a' && p[i] <= 'z')
			p[i] = 'a' + (p[i] - 'a' + 13) % 26;
		else if (p[i] >= 'A' && p[i] <= 'Z')
			p[i] = 'A' + (p[i] - 'A' + 13) % 26;
	}
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET)) {
		perror(path);
		exit(1);
	}
	buf = malloc(n ? n : 1);
	if (!buf || fread(buf, 1, n, f) != (size_t)n) {
		fprintf(stderr, "reword: cannot read %s\n", path);
		exit(1);
	}
	fclose(f);
	*len = n;
	return buf;
}

int main(int argc, char **argv)
{
	struct dprof_file_header hdr;
	int drop_facts = argc == 4 && !strcmp(argv[3], "--drop-facts");
	size_t len, pos, reworded = 0;
	uint8_t *buf;
	FILE *out;

	if (argc != 3 && !drop_facts) {
		fprintf(stderr, "usage: reword IN OUT [--drop-facts]\n");
		return 2;
	}
	buf = slurp(argv[1], &len);
	if (len < sizeof(hdr)) {
		fprintf(stderr, "reword: %s: no recording header\n", argv[1]);
		return 1;
	}
	memcpy(&hdr, buf, sizeof(hdr));
	if (hdr.magic != DPROF_FILE_MAGIC || hdr.header_size < sizeof(hdr) ||
	    hdr.header_size > len) {
		fprintf(stderr, "reword: %s: not a dprof recording of this byte order\n",
			argv[1]);
		return 1;
	}
	out = fopen(argv[2], "wb");
	if (!out) {
		perror(argv[2]);
		return 1;
	}
	fwrite(buf, 1, hdr.header_size, out);
	for (pos = hdr.header_size; pos + sizeof(struct dprof_section) <= len;) {
		struct dprof_section s;
		uint64_t padded;

		memcpy(&s, buf + pos, sizeof(s));
		padded = (s.length + 7) & ~7ULL;
		if (s.length > len || padded > len - pos - sizeof(s)) {
			fprintf(stderr, "reword: %s: section at %zu runs past the end\n",
				argv[1], pos);
			return 1;
		}
		if (s.kind == DPROF_SEC_STATUS || s.kind == DPROF_SEC_HISTORIES ||
		    s.kind == DPROF_SEC_PROFILE) {
			rot13(buf + pos + sizeof(s), s.length);
			reworded++;
		}
		if (!(drop_facts && s.kind == DPROF_SEC_FACTS))
			fwrite(buf + pos, 1, sizeof(s) + padded, out);
		pos += sizeof(s) + padded;
	}
	if (fclose(out)) {
		perror(argv[2]);
		return 1;
	}
	printf("reword: %zu texts reworded%s\n", reworded,
	       drop_facts ? ", the facts left out" : "");
	return 0;
}

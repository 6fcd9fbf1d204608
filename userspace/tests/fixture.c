// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fixture.h"
#include "util.h"

static void put(struct fixture *f, const void *p, size_t n)
{
	if (f->len + n > f->cap) {
		f->cap = (f->len + n) * 2;
		f->buf = xrealloc(f->buf, f->cap);
	}
	memcpy(f->buf + f->len, p, n);
	f->len += n;
}

static void section(struct fixture *f, uint32_t kind, const void *p,
		    uint64_t n)
{
	struct dprof_section s = { .kind = kind, .length = n };
	static const uint8_t pad[8];

	put(f, &s, sizeof(s));
	put(f, p, n);
	put(f, pad, (8 - (n & 7)) & 7);
}

/* The events section's length is patched by fixture_end(). */
void fixture_begin(struct fixture *f, unsigned int nr_targets)
{
	fixture_begin_flags(f, nr_targets, 0);
}

void fixture_begin_flags(struct fixture *f, unsigned int nr_targets,
			 uint32_t flags)
{
	struct dprof_file_header h = {
		.magic = DPROF_FILE_MAGIC,
		.abi_version = DPROF_ABI_VERSION,
		.header_size = sizeof(h),
	};
	struct dprof_file_target t[4];
	struct dprof_section ev = { .kind = DPROF_SEC_EVENTS };
	static const char meta[] = "kernel=6.1.0-test\ncpus_online=2\n";

	memset(f, 0, sizeof(*f));
	memset(t, 0, sizeof(t));
	put(f, &h, sizeof(h));
	section(f, DPROF_SEC_META, meta, sizeof(meta) - 1);
	for (unsigned int i = 0; i < nr_targets && i < 4; i++) {
		t[i].index = i;
		t[i].object_size = 200 + i;
		t[i].stride = 256;
		t[i].flags = flags;
		snprintf(t[i].name, sizeof(t[i].name), "cache%u", i);
	}
	section(f, DPROF_SEC_TARGETS, t, nr_targets * sizeof(t[0]));
	put(f, &ev, sizeof(ev));
	f->events_offset = f->len;
}

void fixture_event(struct fixture *f, uint16_t kind, uint16_t cpu,
		   uint16_t target, uint64_t time_ns, uint64_t addr)
{
	struct dprof_obj_event e = {
		.hdr = { .kind = kind, .size = sizeof(e), .cpu = cpu,
			 .target = target },
		.time_ns = time_ns,
		.addr = addr,
		.call_site = 0xffffffff81000000ULL,
	};

	put(f, &e, sizeof(e));
	f->records++;
}

void fixture_raw(struct fixture *f, const void *rec, size_t size)
{
	put(f, rec, size);
	f->records++;
}

void fixture_end(struct fixture *f)
{
	struct dprof_section *ev = (void *)(f->buf + f->events_offset -
					    sizeof(*ev));
	struct dprof_file_end end = { .records = f->records,
				      .duration_ns = 1000000000 };

	ev->length = f->len - f->events_offset;
	section(f, DPROF_SEC_END, &end, sizeof(end));
}

void fixture_end_sections(struct fixture *f, const struct fixture_section *s,
			  size_t n)
{
	struct dprof_section *ev = (void *)(f->buf + f->events_offset -
					    sizeof(*ev));
	struct dprof_file_end end = { .records = f->records,
				      .duration_ns = 1000000000 };

	ev->length = f->len - f->events_offset;
	for (size_t i = 0; i < n; i++)
		section(f, s[i].kind, s[i].data, s[i].len);
	section(f, DPROF_SEC_END, &end, sizeof(end));
}

void fixture_end_with(struct fixture *f, uint32_t kind, const void *data,
		      uint64_t len)
{
	struct fixture_section s = { kind, data, len };

	fixture_end_sections(f, &s, 1);
}

void fixture_free(struct fixture *f)
{
	free(f->buf);
	memset(f, 0, sizeof(*f));
}

void fixture_facts(struct fixture_section *sec,
		   uint8_t buf[FIXTURE_FACTS_SIZE],
		   const struct dprof_target_fact *tf)
{
	struct dprof_facts head = {
		.size = sizeof(head), .target_size = sizeof(*tf),
		.nr_targets = 1, .sampler = DPROF_SAMPLER_WATCH,
	};

	memcpy(buf, &head, sizeof(head));
	memcpy(buf + sizeof(head), tf, sizeof(*tf));
	sec->kind = DPROF_SEC_FACTS;
	sec->data = buf;
	sec->len = FIXTURE_FACTS_SIZE;
}

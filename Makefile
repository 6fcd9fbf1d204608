# dprof: top-level driver.  Kbuild holds the kernel build lines; this file
# drives everything else.  `make help` lists the targets.
SHELL := /bin/bash
TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
BUILD := $(TOP)/build

# Kernel for module builds: the running kernel's build tree when present,
# else the newest installed Debian 6.1 headers.
KERNEL ?= 6.1
KVER ?= $(shell if [ -d /lib/modules/$$(uname -r)/build ]; then uname -r; \
	else $(TOP)/scripts/kernel.sh $(KERNEL) 2>/dev/null; fi)
KDIR ?= /lib/modules/$(KVER)/build
MODDIR := $(BUILD)/mod-$(KVER)

CC ?= cc
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat-security -Werror
# dprof-view in three folders, each using only those before it: read/
# (the recording, kallsyms, struct layouts, instruction decoding),
# analyse/ (the views as data), show/ (the commands, options, output
# formats).
VIEW_DIRS := $(addprefix $(TOP)/userspace/,read analyse show)
VIEW_INC := $(addprefix -I,$(VIEW_DIRS))
# module/ only for uapi/dprof.h, searched after userspace's own folders:
# the module's headers (profile.h, ...) must not stand in for theirs.
VIEW_CFLAGS := $(CFLAGS) $(WARN) -std=gnu11 -D_GNU_SOURCE -idirafter $(TOP)/module \
	$(VIEW_INC)
VIEW_LIBS := -lbpf -ldw -lelf -lcapstone -ljson-c -lz -lm

VIEW_SRCS := $(foreach d,$(VIEW_DIRS),$(wildcard $(d)/*.c))
VIEW_LIB_SRCS := $(filter-out $(TOP)/userspace/show/dprof-view.c \
	$(wildcard $(TOP)/userspace/show/builtin-*.c),$(VIEW_SRCS))
VIEW_HDRS := $(foreach d,$(VIEW_DIRS),$(wildcard $(d)/*.h)) \
	$(TOP)/module/uapi/dprof.h $(TOP)/module/trackrule.h
PROGS := $(patsubst $(TOP)/selftests/progs/%.c,$(BUILD)/selftests/%,\
	$(wildcard $(TOP)/selftests/progs/*.c))
UNIT_SRCS := $(wildcard $(TOP)/userspace/tests/*.c)
FUZZ_SECONDS ?= 30
FUZZ_CORPUS := $(BUILD)/fuzz-corpus

.PHONY: all module view progs guest-files check unit-test build-test fuzz bench-view referee referee-test check-referee check-advise \
	check-debug vm-test demo demo-diff bench bench-parts bench-insns case-memcached case-apache case-referee case-nic check-layers vm-run vm-shell debian-rootfs deps deb lint install clean help

all: module view

help:
	@echo "make            build dprof.ko (KDIR=$(KDIR)) and dprof-view"
	@echo "make demo       set up everything, boot a guest, profile skbuffs"
	@echo "make demo-diff  a TCP server at its peak and drop-off, diffed"
	@echo "make check      set up everything and run every test"
	@echo "make check-debug the guest selftests on a KASAN/lockdep/KFENCE/fault-injection kernel [TESTS=...]"
	@echo "make vm-run SCRIPT=f [KERNEL=6.12] [ROOT=debian]   run a script in the guest"
	@echo "make vm-shell [KERNEL=6.12] [ROOT=debian]          interactive guest shell"
	@echo "make case-memcached the thesis' memcached case in the Debian guest (tables, flow, overhead)"
	@echo "make case-apache    the thesis' Apache case: concurrency sweep, accept queue, diff peak/drop-off"
	@echo "make case-referee   memcached judged by the referee (dprof against every access of the run)"
	@echo "make case-nic       the thesis' memcached finding on a multi-queue NIC (igb): the hand-off, XPS the fix"
	@echo "make check-advise   advise's layout for dprof_sharing built, profiled and refereed"
	@echo "make debian-rootfs  the Debian guest's image (memcached, Apache), cached in build/debian"
	@echo "make bench      dprof's costs in instructions (one guest under -icount), then the analyses'"
	@echo "make fuzz       libFuzzer on the recording reader (FUZZ_SECONDS=30)"
	@echo "make bench-parts the handlers' instructions per call and per part alone (minutes)"
	@echo "make bench-insns each function's instructions per allocate+free (QEMU plugin)"
	@echo "make bench-view dprof-view's analyses on a synthetic recording (also in bench)"
	@echo "make lint       checkpatch --strict on module/"
	@echo "make check-layers the module's include and use graphs: cycles, or its layers"
	@echo "make referee    the referee, a QEMU plugin (build/referee.so); make check-referee proves it"
	@echo "make deb        dprof-dkms and dprof-view .deb packages in build/deb/"
	@echo "make install    install dprof-view and the module (DESTDIR, PREFIX)"

module: $(MODDIR)/dprof.ko

$(MODDIR)/dprof.ko: $(TOP)/Kbuild $(wildcard $(TOP)/module/*.[ch] \
		$(TOP)/module/uapi/*.h $(TOP)/selftests/modules/* \
		$(wildcard $(KDIR)/Module.symvers))
	@$(TOP)/scripts/build-module.sh $(KDIR) $(MODDIR)

view: $(BUILD)/dprof-view

$(BUILD)/dprof-view: $(VIEW_SRCS) $(VIEW_HDRS)
	@mkdir -p $(BUILD)
	$(CC) $(VIEW_CFLAGS) -o $@ $(VIEW_SRCS) $(VIEW_LIBS)

progs: $(PROGS)

$(BUILD)/selftests/%: $(TOP)/selftests/progs/%.c
	@mkdir -p $(BUILD)/selftests
	$(CC) $(CFLAGS) $(WARN) -I$(TOP)/module -static -o $@ $< -lpthread

guest-files: module view progs

# --- tests -------------------------------------------------------------
check: deps
	@$(TOP)/scripts/check.sh

# The selftests on a kernel with KASAN, lockdep, KFENCE, SLUB_DEBUG_ON,
# kmemleak and fault injection (built on first use, ~45 min), and the
# sweep of failed allocations at load.  Apart from make check.
check-debug: deps
	@$(TOP)/scripts/check-debug.sh $(TESTS)

unit-test: $(BUILD)/unit-tests
	$(BUILD)/unit-tests

# The module headers the tests compile as userspace code.
$(BUILD)/unit-tests: $(UNIT_SRCS) $(VIEW_LIB_SRCS) $(VIEW_HDRS) \
		$(TOP)/module/decode.h $(TOP)/module/memop.h
	@mkdir -p $(BUILD)
	$(CC) $(VIEW_CFLAGS) -I$(TOP)/userspace/tests -fsanitize=address,undefined \
		-fno-sanitize-recover=all -o $@ $(UNIT_SRCS) $(VIEW_LIB_SRCS) \
		$(VIEW_LIBS) -lm

# libFuzzer on the recording reader and every analysis behind it, for a
# bounded time (FUZZ_SECONDS); crashes, and inputs that take over 10 s
# (a hang would otherwise hold CI for libFuzzer's default 20 minutes),
# are written to build/fuzz-crash-*.
# Inputs that once crashed it live in userspace/fuzz/regressions/ and are
# always part of the corpus.
fuzz: $(BUILD)/fuzz-recording $(BUILD)/fuzz-seeds
	@rm -rf $(FUZZ_CORPUS) && mkdir -p $(FUZZ_CORPUS)
	$(BUILD)/fuzz-seeds $(FUZZ_CORPUS)
	@cp $(TOP)/userspace/fuzz/regressions/* $(FUZZ_CORPUS)/
	@if $(BUILD)/fuzz-recording -max_total_time=$(FUZZ_SECONDS) \
		-max_len=65536 -timeout=10 -print_final_stats=1 \
		-artifact_prefix=$(BUILD)/fuzz-crash- $(FUZZ_CORPUS) \
		>$(BUILD)/fuzz.log 2>&1; then \
		grep -E "^Done|exec_per_sec|new_units_added" $(BUILD)/fuzz.log; \
	else \
		tail -n 30 $(BUILD)/fuzz.log; \
		echo "fuzz: the reader crashed; input in $(BUILD)/fuzz-crash-*"; \
		exit 1; \
	fi

$(BUILD)/fuzz-recording: $(TOP)/userspace/fuzz/fuzz-recording.c $(VIEW_LIB_SRCS) $(VIEW_HDRS)
	@mkdir -p $(BUILD)
	clang -g -O1 $(WARN) -std=gnu11 -D_GNU_SOURCE -idirafter $(TOP)/module \
		$(VIEW_INC) -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all -o $@ $< $(VIEW_LIB_SRCS) $(VIEW_LIBS)

$(BUILD)/fuzz-seeds: $(TOP)/userspace/fuzz/fuzz-seeds.c $(TOP)/userspace/tests/fixture.c $(VIEW_LIB_SRCS) $(VIEW_HDRS)
	@mkdir -p $(BUILD)
	$(CC) $(VIEW_CFLAGS) -I$(TOP)/userspace/tests -o $@ $< \
		$(TOP)/userspace/tests/fixture.c $(VIEW_LIB_SRCS) $(VIEW_LIBS)

# dprof-view's analyses timed on a synthetic recording (one core).
# The referee (referee/, Documentation/referee.rst): a QEMU plugin.
referee:
	@$(TOP)/scripts/referee.sh build

REFEREE_C = $(TOP)/referee/coherence.c $(TOP)/referee/objmap.c $(TOP)/referee/table.c \
	$(TOP)/referee/insn.c

referee-test: $(BUILD)/test-referee
	@$(BUILD)/test-referee

$(BUILD)/test-referee: $(TOP)/referee/test-referee.c $(REFEREE_C) $(wildcard $(TOP)/referee/*.h)
	@mkdir -p $(BUILD)
	$(CC) -O2 -g -Wall -Wextra -fsanitize=address,undefined -o $@ $(TOP)/referee/test-referee.c $(REFEREE_C)

check-referee: deps
	@$(TOP)/scripts/check-referee.sh -k $(KERNEL)

bench-view: $(BUILD)/bench-view
	$(BUILD)/bench-view

$(BUILD)/bench-view: $(TOP)/userspace/bench/bench-view.c $(TOP)/userspace/tests/fixture.c $(VIEW_LIB_SRCS) $(VIEW_HDRS)
	@mkdir -p $(BUILD)
	$(CC) $(VIEW_CFLAGS) -O2 -I$(TOP)/userspace/tests -o $@ $< \
		$(TOP)/userspace/tests/fixture.c $(VIEW_LIB_SRCS) $(VIEW_LIBS)

# Warning-free builds against both reference kernels' headers.
# Both builds: the tests' (knobs and test modules) and the packages'.
build-test:
	@for k in 6.1 6.12; do \
		v=$$($(TOP)/scripts/kernel.sh $$k) || exit 1; \
		$(TOP)/scripts/build-module.sh /lib/modules/$$v/build \
			$(BUILD)/mod-$$v || exit 1; \
		$(TOP)/scripts/build-module.sh /lib/modules/$$v/build \
			$(BUILD)/mod-$$v-release release || exit 1; \
		echo "ok: dprof.ko builds warning-free against $$v, with the tests' knobs and without"; \
	done

vm-test:
	$(TOP)/scripts/vm.sh -k $(KERNEL) $(TOP)/selftests/run.sh

# Costs in instructions: one guest under -icount (bench-all-guest.sh),
# then the analyses timed, counted by callgrind, and scaled 1x/4x/16x.
# The thesis' memcached case in the Debian guest (Table 6.1, flow, overhead).
case-memcached: deps
	$(TOP)/scripts/case-memcached.sh -k $(KERNEL)

case-nic: deps
	$(TOP)/scripts/case-nic.sh -k $(KERNEL)

check-layers: module
	python3 $(TOP)/scripts/check-layers.py

case-apache: deps
	$(TOP)/scripts/case-apache.sh -k $(KERNEL)

# advise's proposal for dprof_sharing built, profiled and refereed.
check-advise: deps
	@$(TOP)/scripts/check-advise-loop.sh -k $(KERNEL)

case-referee: deps
	$(TOP)/scripts/case-referee.sh -k $(KERNEL)

# The handlers' and parts' instructions alone (a few minutes).
bench-parts: deps
	DPROF_ICOUNT=1 $(TOP)/scripts/vm.sh -k $(KERNEL) -t 1200 \
		$(TOP)/scripts/guest/bench-all-guest.sh parts

# Each function's instructions per allocate+free, counted by a QEMU plugin.
bench-insns: deps
	$(TOP)/scripts/bench-insns.sh -k $(KERNEL)

bench: deps $(BUILD)/bench-view
	DPROF_ICOUNT=1 $(TOP)/scripts/vm.sh -k $(KERNEL) -t 5400 \
		$(TOP)/scripts/guest/bench-all-guest.sh $(BENCH_ARGS)
	$(BUILD)/bench-view
	$(TOP)/scripts/bench-instructions.sh $(BUILD)/bench-view
	$(TOP)/scripts/bench-scale.sh $(BUILD)/bench-view

# --- demo and guest access --------------------------------------------
demo: deps
	@$(TOP)/scripts/demo.sh

# Peak vs drop-off of a TCP server, and the differential profiles.
demo-diff: deps
	@$(TOP)/scripts/demo-diff.sh

# ROOT=debian: the script runs in the Debian userland (scripts/vm.sh -r).
ROOT ?= busybox

vm-run:
	@test -n "$(SCRIPT)" || { echo "usage: make vm-run SCRIPT=file [KERNEL=6.12] [ROOT=debian]" >&2; exit 2; }
	$(TOP)/scripts/vm.sh -k $(KERNEL) -r $(ROOT) $(SCRIPT)

vm-shell:
	$(TOP)/scripts/vm.sh -k $(KERNEL) -r $(ROOT) -i

debian-rootfs: deps
	@$(TOP)/scripts/debian-rootfs.sh

deps:
	@$(TOP)/scripts/install-deps.sh

# dprof-dkms and dprof-view Debian packages, in build/deb/.
deb: deps
	@$(TOP)/scripts/make-deb.sh

lint:
	@$(TOP)/scripts/lint.sh

# --- install -------------------------------------------------------------
PREFIX ?= /usr/local
# The module as the packages build it: without the tests' knobs.
install: view
	@$(TOP)/scripts/build-module.sh $(KDIR) $(MODDIR)-release release
	install -D -m 755 $(BUILD)/dprof-view $(DESTDIR)$(PREFIX)/bin/dprof-view
	install -D -m 644 $(MODDIR)-release/dprof.ko \
		$(DESTDIR)/lib/modules/$(KVER)/extra/dprof.ko
	install -D -m 644 $(TOP)/Documentation/dprof-view.1 \
		$(DESTDIR)$(PREFIX)/share/man/man1/dprof-view.1

clean:
	rm -rf $(BUILD)

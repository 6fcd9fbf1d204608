#!/bin/sh
# make check: every test dprof has, in order of cost.
#  1. userspace unit tests (ASan/UBSan), then libFuzzer on the recording
#     reader and the analyses behind it for 30 s
#  2. dprof.ko and the test modules build warning-free against Debian 6.1
#     and 6.12 headers
#  3. checkpatch --strict on the kernel code; the module's include and use
#     graphs without a cycle (scripts/check-layers.py); field names from
#     BTF against pahole for structs of both reference kernels
#  4. the selftests in a QEMU TCG guest, on 6.1 and on 6.12 (booted with
#     slab_nomerge, for clean per-cache data), then on each again with slab
#     merging for the test of a merged alias's destroy, and under -icount
#     for the watch sampler's shares (guest time counts instructions, not
#     the emulator's trap delivery: selftests/test-all-types.sh says why)
#  5. dprof-view export's files from the guest (test-exports.sh) read by
#     pprof and by speedscope in headless Chromium (check-exports.sh)
#  6. the Debian packages: built, lintian, installed, DKMS's module for
#     6.1 and 6.12 loaded in a guest of each (check-deb.sh)
#  7. real Debian applications (memcached, Apache) in the Debian guest, whose
#     userland is built from Debian's packages (scripts/debian-rootfs.sh)
#  8. the referee (a QEMU plugin, referee/): its cache model on sequences
#     whose classes follow from the definitions, then its classes on
#     dprof_sharing's workloads (scripts/check-referee.sh)
#  9. dprof-view advise's layout applied and measured: dprof_sharing
#     rebuilt from the proposal, judged by dprof and the referee
#     (scripts/check-advise-loop.sh)
# Ends with one "N passed, N failed" line over all of them.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
passed=0 failed=0
step() {
	name=$1
	shift
	echo "=== $name"
	if "$@"; then
		passed=$((passed + 1))
		echo "=== $name: ok"
	else
		failed=$((failed + 1))
		echo "=== $name: FAILED"
	fi
}

start=$(date +%s)
step "unit tests" make -s unit-test
step "fuzzing the recording reader (30 s)" make -s fuzz FUZZ_SECONDS=30
step "module builds (6.1, 6.12)" make -s build-test
step "checkpatch --strict" scripts/lint.sh
step "module layers: no cycle, no file over 700 lines" python3 scripts/check-layers.py
step "field names vs pahole (6.1, 6.12)" scripts/check-layout.sh
# A suite takes 9-13 min of wall time under TCG, test-workingset-truth
# alone 4-7.5 min (the guest's dprof-view reads millions of lives).
step "guest selftests on 6.1" scripts/vm.sh -k 6.1 -t 1200 selftests/run.sh
step "guest selftests on 6.12" scripts/vm.sh -k 6.12 -t 1200 selftests/run.sh
step "exports read by pprof and speedscope" scripts/check-exports.sh
step "Debian packages: lintian, DKMS for 6.1 and 6.12, loaded in guests" scripts/check-deb.sh
for k in 6.1 6.12; do
	step "guest selftest with slab merging on $k" env DPROF_APPEND=slab_merge \
		scripts/vm.sh -k $k -t 600 selftests/run.sh test-cache-alias.sh test-alias-race.sh
done
# The Debian guest: its image built on first use (about 20 s), then the
# real servers' cases, about 100 s a kernel.
for k in 6.1 6.12; do
	step "Debian guest (memcached, Apache) on $k" \
		scripts/vm.sh -k $k -r debian -t 600 selftests/run.sh \
		debian/test-memcached-skbuff.sh debian/test-memcached-all.sh \
		debian/test-apache.sh
done
for k in 6.1 6.12; do
	step "guest selftest under -icount on $k" env DPROF_ICOUNT=1 \
		scripts/vm.sh -k $k -t 600 selftests/run.sh test-all-types.sh
done
step "referee: cache model and object map" make -s referee-test
step "referee: classes on dprof_sharing, sk_buff hand-offs (6.1)" scripts/check-referee.sh -k 6.1
# advise's proposal applied by a program and measured (about a minute each)
for k in 6.1 6.12; do
	step "advise: the layout loop closed on $k (dprof and the referee)" \
		scripts/check-advise-loop.sh -k $k
done
echo "make check took $(($(date +%s) - start)) s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

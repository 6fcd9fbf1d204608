#!/bin/sh
# make check-debug: every guest selftest on a kernel built with the
# checkers (KASAN, lockdep, DEBUG_ATOMIC_SLEEP, KFENCE, SLUB_DEBUG_ON,
# kmemleak, fault injection; scripts/debug-kernel.sh), including the sweep
# that fails each allocation of a load in turn (test-init-failures.sh).
# The first run builds the kernel (about 45 minutes on two cores, cached
# under build/debug-kernel/ by configuration); the guest run is apart
# from make check, which must stay under 30 minutes.  Any KASAN, KFENCE,
# lockdep or kmemleak report fails the run (scripts/guest/guest-init.sh checks
# the kernel log after the tests; test-init-failures.sh after each load).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
scripts/install-deps.sh --debug
start=$(date +%s)
scripts/debug-kernel.sh >/dev/null
built=$(date +%s)
echo "=== debug kernel ready after $((built - start)) s"
rc=0
scripts/vm.sh -k debug -t 9000 selftests/run.sh "$@" || rc=$?
echo "check-debug: guest selftests took $(($(date +%s) - built)) s, exit $rc"
exit "$rc"

#!/bin/sh
# Run every selftest in the guest and report TAP; exit 1 when any failed.
# A test exits 0 (pass), 4 (skip, reason on its last line) or other (fail).
cd /selftests || exit 1
# Arguments name tests to run (default: all); "-x TEST" leaves TEST out
# of them (make check runs some tests on one boot only).
skip_list=" "
named=""
while [ $# -gt 0 ]; do
	case $1 in
	-x)
		[ $# -ge 2 ] || { echo "run.sh: -x needs a test's name" >&2; exit 2; }
		[ -f "$2" ] || { echo "run.sh: -x $2: no such test" >&2; exit 2; }
		skip_list="$skip_list$2 "
		shift 2
		;;
	*)
		named="$named $1"
		shift
		;;
	esac
done
tests=""
for t in ${named:-$(ls test-*.sh)}; do
	case $skip_list in
	*" $t "*) ;;
	*) tests="$tests $t" ;;
	esac
done
set -- $tests
echo "TAP version 13"
echo "1..$#"
n=0 passed=0 failed=0 skipped=0
for t in $tests; do
	n=$((n + 1))
	name=$(echo "$t" | tr / -)	# debian/test-x.sh: the Debian guest's
	log=/tmp/$name.log
	start=$(date +%s)
	# A folder of its own, emptied after: /tmp is a tmpfs in the guest's
	# RAM, and recordings left by earlier tests once filled it.
	TMPDIR=$(mktemp -d "/tmp/$name.XXXXXX")
	export TMPDIR
	sh "./$t" >"$log" 2>&1
	rc=$?
	rm -rf "$TMPDIR"
	secs=$(($(date +%s) - start))
	case $rc in
	0)
		echo "ok $n $t # ${secs}s"
		passed=$((passed + 1))
		;;
	4)
		echo "ok $n $t # SKIP $(tail -n 1 "$log")"
		skipped=$((skipped + 1))
		;;
	*)
		echo "not ok $n $t # exit $rc"
		failed=$((failed + 1))
		;;
	esac
	sed 's/^/# /' "$log"
	# A failed test must not leave modules behind for the next one.
	[ -d /sys/module/dprof ] && rmmod dprof 2>/dev/null
	[ -d /sys/module/dprof_workload ] && rmmod dprof_workload 2>/dev/null
	[ -d /sys/module/dprof_sharing ] && rmmod dprof_sharing 2>/dev/null
	[ -d /sys/module/dprof_caches ] && rmmod dprof_caches 2>/dev/null
done
echo "# kernel $(uname -r)"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]

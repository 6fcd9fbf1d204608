#!/bin/sh
# The thesis' Apache case (§6.2), inside the Debian guest (make
# case-apache, scripts/case-apache.sh): Debian's apache2 (mpm_event, its
# default page of 10.7 KB) pinned to CPU 0, Debian's ab on CPU 1, over
# loopback.  What the thesis found: past its peak, Apache's throughput
# dropped off because the accept queue was long, so a TCP socket waited
# in it long enough for its lines to leave the caches; a shorter queue
# (admission control) gave 16%.  TCG simulates no cache, so that cause
# cannot appear here.  What can: the sweep of ab's concurrency finds the
# guest's own drop-off, and dprof's diff between the peak and the
# drop-off says which types live longer and hold more memory there.
#
# Three modes:
# - sweep N ROUNDS LEVELS (under -icount, where guest time counts
#   instructions: requests per second are instructions per request):
#   ab -n N at each concurrency of LEVELS, ROUNDS times, with the accept
#   queue's overflows (TcpExtListenOverflows); the peak is the best
#   median, the drop-off the first level after it below 80% of it.  Then
#   the queue's length at the drop-off: Apache's default ListenBacklog
#   (511), the thesis' fix (a short queue, 32) and a long one (4096,
#   net.core.somaxconn raised to match).  Writes levels: "PEAK DROP".
# - overhead N ROUNDS PEAK TARGETS (-icount): at the peak, none,
#   target=all's hooks alone (sampler=off history=0: where the
#   instructions go), target=all and target=TARGETS, ROUNDS rounds each.
# - profile N PEAK DROP TARGETS (multi-threaded TCG): target=all
#   sampler=watch at the drop-off (the thesis' Table 6.5: the report's top types), then
#   target=TARGETS twice at the peak and twice at the drop-off, and
#   dprof-view diff between the two sides (Table 6.4's question: what
#   grew).
#   case-apache-guest.sh sweep N ROUNDS "LEVELS"
#   case-apache-guest.sh overhead N ROUNDS PEAK TARGETS
#   case-apache-guest.sh profile N PEAK DROP TARGETS
mode=${1:?usage: case-apache-guest.sh sweep|overhead|profile N ...}
n=${2:-4000}
out=/host/case-apache
mkdir -p $out
work=$(mktemp -d)
. /etc/apache2/envvars
mkdir -p /run/lock "$APACHE_RUN_DIR" "$APACHE_LOG_DIR" "$APACHE_LOCK_DIR"
# ab holds one descriptor per connection.
ulimit -n 65536

say() { echo "== $*"; }
# die MESSAGE: fail the run.  Loops whose output goes through tee run in a
# subshell, where exit ends only the subshell: the mark makes
# failed_inside end the script after such a loop.
die() {
	echo "case-apache: $*" >&2
	touch $work/failed
	exit 1
}
failed_inside() { [ ! -e $work/failed ] || exit 1; }
overflows() { nstat -az TcpExtListenOverflows | awk '$1 == "TcpExtListenOverflows" { print $2 }'; }
apache_stop() {
	apache2 -k stop 2>/dev/null
	i=0
	while pgrep -x apache2 >/dev/null && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
}
# apache_start [BACKLOG]: pinned to CPU 0 (its children inherit it).
apache_start() {
	apache_stop
	rm -f /etc/apache2/conf-enabled/zz-backlog.conf
	[ -z "${1:-}" ] || echo "ListenBacklog $1" >/etc/apache2/conf-enabled/zz-backlog.conf
	taskset -c 0 apache2 -k start 2>/dev/null ||
		die "apache2 would not start"
	i=0
	until ab -q -n 1 -c 1 http://127.0.0.1/ >/dev/null 2>&1; do
		[ $i -lt 200 ] || die "apache2 does not answer"
		sleep 0.1
		i=$((i + 1))
	done
}
# dprof_load PARAMS...: load dprof.ko, then wait for its load-time scan
# of older objects, as a user would (exits on a failed load).
dprof_load() {
	modload /lib/modules/dprof/dprof.ko "$@" ||
		die "dprof.ko $* would not load"
	i=0
	while ! grep -q "^scan: done\|^scan: off" /sys/kernel/debug/dprof/status &&
		[ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}
# ab_run C: "REQ_PER_S FAILED OVERFLOWS" of one ab -n $n -c C on CPU 1.
ab_run() {
	o0=$(overflows)
	taskset -c 1 ab -q -n "$n" -c "$1" http://127.0.0.1/ >$work/ab.txt 2>&1 ||
		die "ab -c $1 failed: $(tail -n 2 $work/ab.txt)"
	awk -v o=$(($(overflows) - o0)) '$1 == "Requests" && $3 == "second:" { r = $4 }
		$1 == "Failed" { f = $3 } END { print r, f, o }' $work/ab.txt
}
# median: of the numbers on stdin; "MEDIAN MIN MAX"
median() {
	sort -n | awk '{ v[++k] = $1 } END { print v[int((k + 1) / 2)], v[1], v[k] }'
}
# rounds NAME C R: R runs at concurrency C; a row to $work/rows
rounds() {
	: >$work/one
	r=1
	while [ $r -le "$3" ]; do
		ab_run "$2" >>$work/one
		r=$((r + 1))
	done
	set -- "$1" "$2" $(cut -d' ' -f1 $work/one | median) \
		$(awk '{ f += $2; o += $3 } END { print f + 0, o + 0 }' $work/one)
	printf "%-14s %6s %10.0f %10.0f %10.0f %8s %10s\n" "$@" | tee -a $work/rows
}
header() {
	printf "%-14s %6s %10s %10s %10s %8s %10s\n" "$1" clients "req/s med" min max failed overflows
}

say "setup: $(nproc) vCPUs, kernel $(uname -r); apache2 $(apache2 -v | awk -F'[ /]' '/version/ { print $4 }') (mpm_event) on CPU 0, ab on CPU 1, loopback; $n requests of the default page per ab run"
case $mode in
sweep)
	rounds_n=${3:-2}
	levels=${4:-"1 16 256 1024"}
	apache_start
	say "sweep: ab -n $n at each concurrency, $rounds_n rounds; guest time under -icount, so req/s is instructions per request; overflows: connections the full accept queue refused (their SYN is sent again after 1 s)"
	: >$work/rows
	header "" | tee $out/sweep.txt
	for c in $levels; do
		rounds "" "$c" "$rounds_n"
	done | tee -a $out/sweep.txt
	failed_inside
	# The peak: the best median; the drop-off: the first level after it
	# under 80% of the peak.
	set -- $(awk '{ c[NR] = $1; r[NR] = $2 } END {
		p = 1; for (i = 2; i <= NR; i++) if (r[i] > r[p]) p = i
		d = 0; for (i = p + 1; i <= NR; i++) if (r[i] < 0.8 * r[p]) { d = i; break }
		print c[p], (d ? c[d] : "none"), r[p], (d ? r[d] : 0) }' $work/rows)
	peak=$1 drop=$2
	if [ "$drop" = none ]; then
		say "no drop-off within the levels swept: the throughput stays within 80% of the peak ($3 req/s at $peak clients); the profile compares the peak with the highest level"
		drop=$(echo $levels | awk '{ print $NF }')
	else
		say "peak at $peak clients ($3 req/s); drop-off at $drop clients ($4 req/s, $(awk -v a=$4 -v b=$3 'BEGIN { printf "%.0f%%", 100 * (a - b) / b }'))"
	fi
	echo "$peak $drop" >$out/levels
	say "the accept queue's length at the drop-off ($drop clients): Apache's default ListenBacklog 511, the thesis' fix (32), a long queue (4096, somaxconn 4096 as set)"
	echo 4096 >/proc/sys/net/core/somaxconn
	header "ListenBacklog" | tee $out/fix.txt
	for b in 511 32 4096; do
		apache_start $b
		rounds "$b" "$drop" "$rounds_n"
	done | tee -a $out/fix.txt
	failed_inside
	;;
overhead)
	rounds_n=${3:-3}
	peak=${4:?overhead needs the peak level}
	targets=${5:?overhead needs the targets}
	apache_start
	say "overhead at the peak ($peak clients), $rounds_n rounds each: req/s in guest time under -icount"
	header run | tee $out/overhead.txt
	: >$work/rows
	for cfg in none hooks all "$targets"; do
		case $cfg in
		none) ;;
		hooks) dprof_load target=all sampler=off history=0 ;;
		*) dprof_load target="$cfg" ;;
		esac
		rounds "$cfg" "$peak" "$rounds_n"
		[ "$cfg" = none ] || rmmod dprof
	done | tee -a $out/overhead.txt
	failed_inside
	awk 'NR == 1 { base = $3 } { printf "%-40s %+.1f%%\n", $1, 100 * ($3 - base) / base }' \
		$work/rows | tee -a $out/overhead.txt
	base=$(awk 'NR == 1 { print $3 }' $work/rows)
	# The thesis' Table 6.7: per type, how long a history set takes
	# (one round of the plan: every group of offsets watched once) and
	# what collecting costs.
	say "history collection per type at the peak (the thesis' Table 6.7): target=TYPE sampler=off, $rounds_n rounds of ab; a set is one round of the plan (every group of offsets watched once), in guest seconds"
	printf "%-22s %6s %6s %10s %8s %10s %10s %9s\n" type bytes groups histories rounds "s per set" "req/s med" overhead |
		tee $out/collection.txt
	for t in $(echo "$targets" | tr , ' '); do
		dprof_load target="$t" sampler=off
		t0=$(/bin/date +%s%N)
		: >$work/rows
		rounds "$t" "$peak" "$rounds_n" >/dev/null
		t1=$(/bin/date +%s%N)
		h=$(grep -F "] $t:" /sys/kernel/debug/dprof/histories | head -n 1)
		rmmod dprof
		size=$(awk -v t="$t" '$1 == t { print $4 }' /proc/slabinfo)
		echo "$h" | awk -v t="$t" -v size="${size:-?}" -v ns=$((t1 - t0)) \
			-v rps="$(awk '{ print $3 }' $work/rows)" -v base="$base" '{
			g = 0; c = 0; r = 0
			for (i = 1; i <= NF; i++) {
				if ($(i + 1) == "groups" && !g) g = $i
				if ($i == "histories" && $(i - 1) == "complete") c = $(i + 1)
				if ($i == "complete" && $(i - 1) == "rounds") { r = $(i + 1); sub(/,$/, "", r) }
			}
			per = r > 0 ? sprintf("%.2f", ns / 1e9 / r) : c > 0 && g > 0 ? sprintf("~%.1f", ns / 1e9 * g / c) : "-"
			printf "%-22s %6s %6s %10s %8s %10s %10.0f %+8.1f%%\n", t, size, g, c, r, per, rps, 100 * (rps - base) / base
		}' | tee -a $out/collection.txt
	done
	echo "s per set: guest time of the runs over the rounds completed; ~: projected from the histories per group when no round completed" |
		tee -a $out/collection.txt
	# The thesis' Figure 6-2 for the watch sampler: the overhead against
	# the rate of sample windows, set by their length (history=0: the
	# windows alone).
	say "overhead against the window rate (the thesis' Figure 6-2): target=all sampler=watch history=0, sample_window_ms 5, 20 (default), 80"
	printf "%-18s %12s %10s %9s\n" sample_window_ms "windows/s" "req/s med" overhead | tee $out/window-rate.txt
	for ms in 5 20 80; do
		dprof_load target=all sampler=watch history=0 sample_window_ms=$ms
		w0=$(awk '/^sample windows:/ { print $3 + $5; exit }' /sys/kernel/debug/dprof/histories)
		t0=$(/bin/date +%s%N)
		: >$work/rows
		rounds "$ms" "$peak" "$rounds_n" >/dev/null
		t1=$(/bin/date +%s%N)
		w1=$(awk '/^sample windows:/ { print $3 + $5; exit }' /sys/kernel/debug/dprof/histories)
		rmmod dprof
		awk -v ms=$ms -v w=$((w1 - w0)) -v ns=$((t1 - t0)) -v base="$base" '{
			printf "%-18s %12.1f %10.0f %+8.1f%%\n", ms, w * 1e9 / ns, $3, 100 * ($3 - base) / base }' \
			$work/rows | tee -a $out/window-rate.txt
	done
	;;
profile)
	peak=${3:?profile needs the peak level}
	drop=${4:?profile needs the drop-off level}
	targets=${5:?profile needs the targets}
	rm -f $out/*.dprof $out/report-*.txt $out/diff-*.txt
	apache_start
	# The watch sampler: the operand sampler, target=all's default, is
	# biased under multi-threaded TCG (design.rst, "The operand sampler").
	say "whole kernel at the drop-off ($drop clients): target=all sampler=watch"
	dprof_load target=all sampler=watch
	dprof-view record --no-progress -o $work/all.dprof --load "$drop" -- \
		taskset -c 1 ab -q -n "$n" -c "$drop" http://127.0.0.1/ >/dev/null ||
		die "record failed"
	rmmod dprof
	dprof-view report -n 12 $work/all.dprof | tee $out/report-all.txt
	say "target=$targets: two recordings at the peak ($peak clients), two at the drop-off ($drop)"
	dprof_load target="$targets"
	for side in peak:$peak dropoff:$drop; do
		name=${side%%:*} c=${side#*:}
		for i in 1 2; do
			o0=$(overflows)
			dprof-view record --no-progress -o $out/$name-$i.dprof \
				-l "$name, $c clients" --load "$c" --work "$n" -- \
				taskset -c 1 ab -q -n "$n" -c "$c" http://127.0.0.1/ >/dev/null ||
				die "record failed"
			echo "$name-$i: $c clients, $(($(overflows) - o0)) accept-queue overflows"
		done
	done
	rmmod dprof
	A=$out/peak-1.dprof,$out/peak-2.dprof
	B=$out/dropoff-1.dprof,$out/dropoff-2.dprof
	for m in lifetime live-bytes ws-bytes samples; do
		say "dprof-view diff -m $m peak dropoff"
		dprof-view diff -m "$m" -n 8 "$A" "$B" | tee $out/diff-$m.txt
	done
	dprof-view report $out/dropoff-1.dprof | tee $out/report-dropoff.txt
	dprof-view workingset --no-sim $out/dropoff-1.dprof | tee $out/workingset-dropoff.txt
	dprof-view workingset --no-sim $out/peak-1.dprof | tee $out/workingset-peak.txt
	# The thesis' Figure 6-3: how many unique paths the histories found
	# as more were collected (paths flatten when collecting more would
	# find few new ones).  Histories alone (sampler=off), twice the
	# requests, at the peak.
	say "unique paths against histories collected (the thesis' Figure 6-3): target=$targets sampler=off, ab -n $((2 * n)) at the peak"
	dprof_load target="$targets" sampler=off
	dprof-view record --no-progress -o $work/paths.dprof -- \
		taskset -c 1 ab -q -n $((2 * n)) -c "$peak" http://127.0.0.1/ >/dev/null ||
		die "record failed"
	rmmod dprof
	printf "%-22s %10s %8s\n" type histories paths | tee $out/paths-growth.txt
	for t in $(echo "$targets" | tr , ' '); do
		dprof-view paths -n 0 -t "$t" $work/paths.dprof 2>/dev/null |
			awk -v t="$t" '$1 == "coverage:" && $3 == "paths" {
				for (i = 5; i < NF; i++) { split($i, hp, ":"); printf "%-22s %10d %8d\n", t, hp[1], hp[2] } }'
	done | tee -a $out/paths-growth.txt
	failed_inside
	;;
*)
	echo "case-apache-guest.sh: unknown mode '$mode'" >&2
	exit 2
	;;
esac
apache_stop
exit 0

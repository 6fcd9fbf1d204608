#!/bin/sh
# Histories on every cache at a useful rate (issue "The same answer
# twice", item 4): struct file under kshare's file workload (two threads
# on CPUs 0 and 1 read() one shared descriptor of a tmpfs file in turns,
# CPU 0 opens and closes a file every 20 reads).
#
# The collector opens a gate that the next allocation of a struct file,
# on any CPU, claims in the allocation hook, and arms there (design.rst,
# "Objects chosen at allocation").  Goal: at least 5 complete histories
# per second of workload, on 6.1 and 6.12.
. ./functions.sh
trap cleanup_modules EXIT
log_canary
dd if=/dev/zero of="$TMP/kshare-file" bs=1k count=64 2>/dev/null
SECONDS_RUN=4

uptime_ms() {
	awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime
}

# rate: complete histories per second of a SECONDS_RUN run, in tenths
rate() {
	load_mod dprof target=filp sampler=off
	start=$(uptime_ms)
	while [ $(( $(uptime_ms) - start )) -lt $((SECONDS_RUN * 1000)) ]; do
		kshare file 20 20 "$TMP/kshare-file" >/dev/null || fail "kshare failed"
	done
	ms=$(( $(uptime_ms) - start ))
	n=$(plan_count histories)
	grep -E "complete histories|ends:" "$DPROF_DIR/histories" >&2
	unload_mod dprof
	echo $(( n * 10000 / ms ))
}

new=$(rate)
echo "complete histories per second on filp: $((new / 10)).$((new % 10))"
[ "$new" -ge 50 ] || fail "fewer than 5 complete histories per second"
dmesg_since_canary | grep -E "BUG|WARNING|general protection" &&
	fail "the kernel reported an error"
echo "ok: histories on filp at $((new / 10)).$((new % 10))/s"
exit 0

#!/bin/sh
# In the guest, for scripts/advise-kernel.sh (issue "From diagnosis to
# fix", item 4): recordings of the real kernel objects the selftests
# exercise, each type's whole plan watched (history_mode=set, the
# default) until it went round ROUNDS times (more histories, narrower
# roles), for dprof-view advise:
#   filp  (struct file)      kshare file: two CPUs read one file in turns
#   UDP   (struct udp_sock)  kshare udp: CPU 0 sends, CPU 1 receives
#   TCP   (struct tcp_sock)  tcp_load: a server and clients over loopback
#   skbuff_head_cache        udp_flood from CPU 0 to CPU 1
# Writes /host/NAME.dprof for each.
cd /selftests && . ./functions.sh
trap cleanup_modules EXIT
dd if=/dev/zero of="$TMP/kf" bs=1k count=64 2>/dev/null
rec() {	# NAME TARGET ROUNDS EXTRA_PARAMS COMMAND...
	name=$1 target=$2 rounds=$3 extra=$4
	shift 4
	# shellcheck disable=SC2086
	load_mod dprof target="$target" sampler=off $extra
	RECORD_TASKSET=2 record_rounds "/host/$name.dprof" "$rounds" 200 "$*" ||
		fail "recording $name failed"
	echo "$name: $(grep -E 'rounds complete' "$DPROF_DIR/histories" | tail -n 1)"
	unload_mod dprof
}
rec file filp 12 "history_cpus=0 history_wait_ms=50" kshare file 200 20 "$TMP/kf"
rec udp UDP 8 "history_cpus=0 history_wait_ms=50" kshare udp 50 20
rec tcp TCP 4 "" tcp_load -d 2 -c 4
rec skbuff skbuff_head_cache 12 "" udp_flood -s 0 -r 1 -d 1 -l 256
exit 0

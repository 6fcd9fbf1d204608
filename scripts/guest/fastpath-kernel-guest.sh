#!/bin/sh
# Guest half of scripts/fastpath-kernel.sh: a socket type in the steady
# state of request/response over 16 long-lived loopback connections
# (tcp_rr), its samples with call chains: every 200 us of busy time
# for 50 s (some 10,000 samples in tcp_sock).
#   fastpath-kernel-guest.sh tcp|udp
# Writes /host/PROTO-rr.dprof and tcp_rr's line.
cd /selftests && . ./functions.sh
cd /host || exit 1
proto=$1
case $proto in
tcp) cache=TCP flag= ops=tcp_sendmsg,tcp_v4_rcv,tcp_recvmsg ;;
udp) cache=UDP flag=-u ops=udp_sendmsg,__udp4_lib_rcv,udp_recvmsg ;;
*) fail "expected tcp or udp, not '$proto'" ;;
esac
# shellcheck disable=SC2086
tcp_rr $flag -d 70 -c 16 >rr.txt 2>&1 &
rr=$!
sleep 2
# The connections are made: every socket lives through the recording.
# ops=: each path's entry counted, for advise's samples per operation.
load_mod dprof target=$cache sampler=operand period=200000 callchain=32 history=0 \
	ops=$ops
dprof-view record -o "/host/$proto-rr.dprof" -d 50 >record.log 2>&1 ||
	fail "record: $(cat record.log)"
grep -E "^(sampler|call chains|samples):" "$DPROF_DIR/profile"
grep -E "perf:sample|sample:callchain|kprobe:ops|^operations" "$DPROF_DIR/status"
unload_mod dprof
wait $rr
cat rr.txt

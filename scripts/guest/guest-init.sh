#!/bin/sh
# /init of the dprof test guest (busybox).  Mounts what dprof needs, loads
# the 9p modules, mounts the host's share at /host and runs /host/run.sh
# there (or a shell with dprof.mode=shell), then checks the kernel for
# oopses and warnings and powers off.  The exit status goes to
# /host/.exit_status and to the console as "DPROF-EXIT: <n>".
export PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin
export LD_LIBRARY_PATH=/usr/lib/dprof
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs tmpfs /tmp
ip link set lo up
while read -r mod; do
	insmod "/lib/modules/boot/$mod" || echo "init: cannot load $mod"
done </lib/modules/boot/order
mkdir -p /host
if ! mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 host /host; then
	echo "init: cannot mount the host share"
	echo "DPROF-EXIT: 125"
	poweroff -f
fi

taint_before=$(cat /proc/sys/kernel/tainted)
rc=0
case "$(cat /proc/cmdline)" in
*dprof.mode=shell*)
	echo "dprof guest shell: module in /lib/modules/dprof, dprof-view on PATH, host share at /host; 'poweroff -f' to leave"
	cd /host && setsid cttyhack sh
	;;
*)
	cd /host && sh ./run.sh
	rc=$?
	;;
esac

# Bit 7: the kernel oopsed (D); bit 9: a WARN fired (W).
taint=$(cat /proc/sys/kernel/tainted)
bad=$(( (taint & ~taint_before) & ((1 << 7) | (1 << 9)) ))
# "RIP: 0010:" is a kernel-mode register dump (an oops, a stall); the
# stack dumps of a failed allocation show only the user's "RIP: 0033:".
if [ "$bad" -ne 0 ] || dmesg | grep -qE "BUG:|Oops|general protection|WARNING:|RIP: 0010:"; then
	echo "init: the kernel reported a problem (taint $taint):"
	dmesg | grep -E -A20 "BUG:|Oops|general protection|WARNING:" | head -60
	[ "$rc" -eq 0 ] && rc=124
fi
sync
echo "$rc" >/host/.exit_status
echo "DPROF-EXIT: $rc"
cd /
umount /host
poweroff -f

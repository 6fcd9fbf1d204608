#!/bin/sh
# /init of the dprof test guest (busybox).  Mounts what dprof needs, loads
# the 9p modules, mounts the host's share at /host and runs /host/run.sh
# there (or a shell with dprof.mode=shell), then checks the kernel for
# oopses and warnings and powers off.  With dprof.root=debian (vm.sh -r
# debian) the script runs in the Debian userland on the virtio disk
# instead: its root mounted at /debian, dprof's modules, dprof-view and
# the test programs copied in, /proc, /sys, /dev and /host bound there.  The exit status goes to
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
# vm.sh -n: each NIC's driver, when its device is there (PCI ids: the
# 82576 8086:10c9, virtio-net 1af4:1000, the 82574 8086:10d3).
for nic in igb:0x8086:0x10c9 virtio_net:0x1af4:0x1000 e1000e:0x8086:0x10d3; do
	drv=${nic%%:*} ids=${nic#*:}
	for dev in /sys/bus/pci/devices/*; do
		[ "$(cat "$dev/vendor"):$(cat "$dev/device")" = "$ids" ] || continue
		while read -r mod; do
			insmod "/lib/modules/boot/$mod" || echo "init: cannot load $mod"
		done <"/lib/modules/boot/order-$drv"
		break
	done
done
mkdir -p /host
if ! mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 host /host; then
	echo "init: cannot mount the host share"
	echo "DPROF-EXIT: 125"
	poweroff -f
fi

# The Debian root: the disk is attached with snapshot=on, so what the
# guest writes there is gone at power-off.
enter=""
case "$(cat /proc/cmdline)" in
*dprof.root=debian*)
	mkdir -p /debian
	# virtio_blk probes the disk asynchronously.
	i=0
	while [ ! -b /dev/vda ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if ! mount -t ext4 /dev/vda /debian; then
		echo "init: cannot mount the Debian root (/dev/vda)"
		echo 125 >/host/.exit_status
		echo "DPROF-EXIT: 125"
		poweroff -f
	fi
	for d in proc sys dev host tmp; do
		mkdir -p "/debian/$d"
		mount --bind "/$d" "/debian/$d"
	done
	mount -t debugfs debugfs /debian/sys/kernel/debug 2>/dev/null
	mount -t tmpfs tmpfs /debian/run
	mkdir -p /debian/lib/modules/dprof /debian/usr/local/bin /debian/selftests
	cp /lib/modules/dprof/*.ko /debian/lib/modules/dprof/
	cp /usr/bin/dprof-view /debian/usr/local/bin/ 2>/dev/null
	for p in /usr/bin/*; do
		[ -L "$p" ] || cp "$p" /debian/usr/local/bin/ 2>/dev/null
	done
	cp -r /selftests/. /debian/selftests/
	enter="chroot /debian env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=linux"
	;;
esac

taint_before=$(cat /proc/sys/kernel/tainted)
rc=0
case "$(cat /proc/cmdline)" in
*dprof.mode=shell*)
	echo "dprof guest shell: module in /lib/modules/dprof, dprof-view on PATH, host share at /host; 'poweroff -f' to leave"
	# $enter is empty or a command line, split on purpose.
	# shellcheck disable=SC2086
	cd /host && setsid cttyhack $enter sh
	;;
*)
	# The firmware's last words and the kernel's (quiet) boot may end
	# without a newline: vm.sh shows the console from the line after
	# this marker on (scripts/console-filter.sh), so the script's first
	# line is never taken for firmware chatter.
	echo
	echo "DPROF-CONSOLE-BEGIN"
	# shellcheck disable=SC2086
	cd /host && $enter sh -c 'cd /host && exec sh ./run.sh'
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
[ -n "$enter" ] && umount -l /debian/host
umount /host
poweroff -f

#!/bin/sh
# The guest's console as vm.sh shows it keeps every line the guest's
# script prints, its first line included (scripts/console-filter.sh).
#
#   scripts/test-vm-console.sh [-k KERNEL] [-n BOOTS]
#
# 1. The filter on consoles whose shape is known: the firmware's last
#    line glued to what follows it (seen: "Booting from ROM.." with no
#    newline, then the kernel's quiet boot, then the script's first
#    line), script lines that look like firmware chatter or are empty,
#    and a guest that never reached its script (a panic must show).
# 2. BOOTS guests (default 20, two at a time on shares of their own)
#    each run a script whose whole output is one line, a token of its
#    own: vm.sh's first line of output must be that token, every time.
# 3. One guest runs the selftests' runner on one test: its output must
#    start with the TAP header.
# 4. A boot that stalls (RCU's report of a vCPU whose timer never fires)
#    or whose QEMU aborts before the script begins is booted again, with
#    a QEMU of the test's own on PATH.
# Prints "N passed, N failed"; exits 1 when any check failed.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
kernel=6.1
boots=20
while getopts "k:n:" opt; do
	case $opt in
	k) kernel=$OPTARG ;;
	n) boots=$OPTARG ;;
	*) sed -n '4p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
filter=$top/scripts/console-filter.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/dprof-console-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
check() {	# check NAME EXPECTED ACTUAL
	if [ "$2" = "$3" ]; then
		passed=$((passed + 1))
		echo "ok: $1"
	else
		failed=$((failed + 1))
		echo "FAIL: $1: expected '$2', got '$(echo "$3" | head -c 300)'"
	fi
}
esc=$(printf '\033')

# 1. The filter alone.
printf '%sc%s[?7l%s[2J%s[0mSeaBIOS (version 1.16.3)\r\n\r\n' "$esc" "$esc" "$esc" "$esc" >"$work/glued"
printf 'iPXE (http://ipxe.org) 00:03.0 CA00\r\nPress Ctrl-B to configure iPXE\r\n' >>"$work/glued"
printf 'Booting from ROM..%sc%s[?7l%s[2J\r\nDPROF-CONSOLE-BEGIN\r\nRECORDED\r\nDPROF-EXIT: 0\r\n' \
	"$esc" "$esc" "$esc" >>"$work/glued"
check "the script's only line follows the firmware's" "RECORDED" "$("$filter" <"$work/glued")"

printf 'Booting from ROM..%sc%s[?7l%s[2JDPROF-CONSOLE-BEGIN\r\nfirst\r\n' "$esc" "$esc" "$esc" >"$work/glued2"
check "the marker glued to the firmware's last line" "first" "$("$filter" <"$work/glued2")"

printf 'SeaBIOS\r\n\r\nDPROF-CONSOLE-BEGIN\r\nBooting from ROM is a line of mine\r\n\r\nSeaBIOS too\r\nDPROF-EXIT: 3\r\n' >"$work/lookalike"
check "script lines that look like firmware chatter, and empty ones, pass" \
	"Booting from ROM is a line of mine

SeaBIOS too" "$("$filter" <"$work/lookalike")"

printf 'SeaBIOS\r\nBooting from ROM..\r\n[    1.0] Kernel panic - not syncing: VFS\r\n' >"$work/panic"
check "a guest that never ran its script still shows the panic" \
	"[    1.0] Kernel panic - not syncing: VFS" "$("$filter" <"$work/panic")"

# 2. Guests whose script prints one line.
run_guest() {	# run_guest INDEX: boot one guest on a share of its own
	share=$work/share-$1
	mkdir -p "$share"
	printf 'echo ONLY-LINE-%s\n' "$1" >"$work/one-$1.sh"
	"$top/scripts/vm.sh" -k "$kernel" -s "$share" -t 300 "$work/one-$1.sh" \
		>"$work/out-$1" 2>"$work/err-$1"
	echo $? >"$work/rc-$1"
}
# Build the guest's files once, so that two guests never build at once.
make -s -C "$top" KERNEL="$kernel" guest-files >/dev/null || { echo "FAIL: make guest-files"; exit 1; }
i=1
while [ "$i" -le "$boots" ]; do
	run_guest "$i" &
	[ $((i + 1)) -le "$boots" ] && run_guest $((i + 1)) &
	wait
	i=$((i + 2))
done
seen=0
i=1
while [ "$i" -le "$boots" ]; do
	first=$(head -n 1 "$work/out-$i")
	if [ "$(cat "$work/rc-$i")" = 0 ] && [ "$first" = "ONLY-LINE-$i" ]; then
		seen=$((seen + 1))
	else
		echo "# boot $i: status $(cat "$work/rc-$i"), output:"
		sed 's/^/#   /' "$work/out-$i" | head -n 5
	fi
	i=$((i + 1))
done
check "a one-line script's line is vm.sh's first line, in every boot" \
	"$boots of $boots" "$seen of $boots"

# 3. The selftests' TAP header.
mkdir -p "$work/share-tap"
printf 'sh /selftests/run.sh test-unload-busy.sh\n' >"$work/tap.sh"
"$top/scripts/vm.sh" -k "$kernel" -s "$work/share-tap" -t 300 "$work/tap.sh" \
	>"$work/out-tap" 2>"$work/err-tap"
check "the selftests' output starts with the TAP header" "TAP version 13" \
	"$(head -n 1 "$work/out-tap")"

# 4. A boot that stalls or aborts before the script begins is booted
#    again (vm.sh), with a QEMU of our own on PATH that does each once:
#    the kernel's RCU stall report, then hanging, must be cut short and
#    followed by a second boot that runs the script.
fake=$work/fakebin
mkdir -p "$fake"
cat >"$fake/qemu-system-x86_64" <<'FAKE'
#!/bin/sh
n=$(($(cat "$FAKE_COUNT" 2>/dev/null || echo 0) + 1))
echo "$n" >"$FAKE_COUNT"
if [ "$n" = 1 ]; then
	case $FAKE_FAULT in
	stall)
		printf '[   27.4] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:\r\n'
		printf '[   27.4] rcu: \tPossible timer handling issue on cpu=2 timer-softirq=0\r\n'
		while :; do sleep 1; done ;;
	abort)
		printf 'qemu-system-x86_64: ../system/physmem.c:1: iotlb_to_section: Assertion failed.\r\n'
		exit 134 ;;
	esac
fi
printf 'SeaBIOS\r\n\r\nDPROF-CONSOLE-BEGIN\r\nSCRIPT-RAN\r\nDPROF-EXIT: 0\r\n'
FAKE
chmod +x "$fake/qemu-system-x86_64"
for fault in stall abort; do
	rm -f "$work/count-$fault"
	mkdir -p "$work/share-$fault"
	start=$(date +%s)
	PATH=$fake:$PATH FAKE_COUNT=$work/count-$fault FAKE_FAULT=$fault \
		"$top/scripts/vm.sh" -k "$kernel" -s "$work/share-$fault" -t 60 "$work/tap.sh" \
		>"$work/out-$fault" 2>"$work/err-$fault"
	rc=$?
	# status, the script ran once, two boots, the retry said once, and
	# the first boot's fault still shown
	check "a boot that meets '$fault' before the script is booted again, and said" \
		"0 1 2 1 1" \
		"$rc $(grep -c "^SCRIPT-RAN" "$work/out-$fault") $(cat "$work/count-$fault") $(grep -c "booting again" "$work/err-$fault") $(grep -c "detected stalls\|Assertion" "$work/out-$fault")"
	[ $(($(date +%s) - start)) -lt 30 ] ||
		check "the '$fault' boot cut short, not waited out" "under 30 s" "$(($(date +%s) - start)) s"
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

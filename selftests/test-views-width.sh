#!/bin/sh
# Every view's default text fits a 160-column terminal (issue "A profiler
# a kernel engineer picks up"): on the demo's recording (skbuff histories
# during UDP from CPU 0 to CPU 1, as scripts/guest/demo-guest.sh records
# it) and on target=all at its defaults, every line of every view, and
# of the module's profile, histories and status files as cat shows them.
# -v/--wide may be wider; --json and --script are not text for a person.
# A note, a line that names the command, appears at most once.
. ./functions.sh
trap cleanup_modules EXIT
out=$TMP/width.dprof

# The lines over 160 columns of @2's output, named by @1; none expected.
check_width() {
	local what=$1
	shift
	"$@" >"$TMP/view.txt" 2>&1 || fail "$what failed: $(head -n 3 "$TMP/view.txt")"
	wide=$(awk 'length > 160 { n++; if (!w) w = NR ": " length " columns: " substr($0, 1, 200) }
		END { if (n) print n " lines, first " w }' "$TMP/view.txt")
	[ -z "$wide" ] || { echo "wide: $what: $wide"; bad=$((bad + 1)); }
	# A note (a line naming the command, on stderr) is said once.
	again=$(grep '^dprof-view' "$TMP/view.txt" | sort | uniq -d | head -n 1)
	[ -z "$again" ] || { echo "note said twice: $what: $again"; bad=$((bad + 1)); }
	checked=$((checked + 1))
}
checked=0 bad=0

load_mod dprof target=skbuff
dprof-view record --no-progress -o "$out" -- udp_flood -s 0 -r 1 -d 3 -l 256 \
	>"$TMP/udp.log" 2>&1 || fail "record failed: $(cat "$TMP/udp.log")"
for f in profile histories status; do
	check_width "debugfs $f" cat "$DPROF_DIR/$f"
	awk 'length > 160' "$DPROF_DIR/$f"
done
unload_mod dprof
for v in info objects histories profile classify "classify --combined" \
	workingset paths "paths --combined" report diff; do
	case $v in
	diff) check_width "dprof-view diff" dprof-view diff "$out" "$out" ;;
	*) check_width "dprof-view $v" dprof-view $v "$out" ;;
	esac
done
check_width "dprof-view advise" dprof-view advise "$out" skbuff_head_cache
check_width "dprof-view flow" dprof-view flow "$out" skbuff_head_cache
check_width "dprof-view profile -t" dprof-view profile -t skbuff_head_cache "$out"

load_mod dprof target=all
dprof-view record --no-progress -d 3 -o "$TMP/all.dprof" -- \
	udp_flood -s 0 -r 1 -d 2 >"$TMP/udp.log" 2>&1 ||
	fail "record of target=all failed: $(cat "$TMP/udp.log")"
for f in profile status; do
	check_width "debugfs $f (target=all)" cat "$DPROF_DIR/$f"
	awk 'length > 160' "$DPROF_DIR/$f"
done
unload_mod dprof
for v in report profile; do
	check_width "dprof-view $v (target=all)" dprof-view $v "$TMP/all.dprof"
done
[ "$bad" -eq 0 ] || fail "$bad of $checked outputs print lines over 160 columns or a note twice (above)"
echo "ok: $checked outputs, no line over 160 columns, no note twice"

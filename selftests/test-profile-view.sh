#!/bin/sh
# dprof-view profile on a real recording: UDP over loopback with
# target=skbuff.  Checks that the view names skbuff_head_cache's struct
# from the recorded BTF, that its per-type total equals the sample count
# the module itself printed (the kernel's profile text and the binary
# tables are separate paths), that every row's field name is what
# "dprof-view layout" gives that offset (scripts/check-layout.sh checks
# layout against pahole), that a kmalloc cache is named by the function
# allocating most of it, and that bad input is refused with status 2.
. ./functions.sh
trap cleanup_modules EXIT
out=$TMP/profile.dprof

seconds=3 histories=
if kasan_kernel; then
	seconds=10 histories=history=0
fi
load_mod dprof target=skbuff,kmalloc-512 $histories
dprof-view record -o "$out" -- udp_flood -s 0 -r 1 -d $seconds >/dev/null ||
	fail "record failed"
skip_if_windows_too_slow skbuff_head_cache
unload_mod dprof
dprof-view profile "$out" >"$TMP/profile.txt" || fail "profile failed"
cat "$TMP/profile.txt"
grep -q "^skbuff_head_cache  *struct sk_buff  *[1-9]" "$TMP/profile.txt" ||
	fail "no skbuff_head_cache line naming struct sk_buff with samples"
view_total=$(awk '$1 == "skbuff_head_cache" && $2 == "struct" { print $4; exit }' \
	"$TMP/profile.txt")
kernel_total=$(dprof-view profile --kernel "$out" |
	awk '$1 == "skbuff_head_cache" { print $2; exit }')
expect_eq "skbuff samples, view vs module" "$view_total" "$kernel_total"
if grep -q "^sampler: watch" "$TMP/profile.txt"; then
	awk '$1 == "skbuff_head_cache" && $2 == "struct" && $5 == "est." { ok = 1 }
		END { exit !ok }' "$TMP/profile.txt" ||
		fail "watch-mode misses are not labelled est."
fi

# Every row: OFFSET SIZE NAME ...; the name must be what layout says
# for the bytes [OFFSET, OFFSET + SIZE) (one name for an 8-byte slot).
dprof-view layout --bytes "$out" sk_buff >"$TMP/bytes" || fail "layout failed"
rows=$(awk '/^skbuff_head_cache: struct sk_buff/ { on = 1; next }
	/^$/ { on = 0 } on && $1 ~ /^[0-9]+$/ { print $1, $2, $3 }' "$TMP/profile.txt")
[ -n "$rows" ] || fail "no field rows for skbuff_head_cache"
echo "$rows" | while read -r off size name; do
	awk -v o="$off" -v n="$size" -v want="$name" '
		$1 >= o && $1 < o + n && $2 != "(padding)" {
			k = split($2, a, "|"); for (i = 1; i <= k; i++) seen[a[i]] = 1 }
		END {
			k = split(want, w, "|")
			for (i = 1; i <= k; i++) {
				x = w[i]; sub(/\[.*/, "", x)
				if (x ~ /^\+[0-9]+ more$/ || x ~ /^\+/) continue
				found = 0
				for (s in seen) { y = s; sub(/\[.*/, "", y); if (y == x) found = 1 }
				if (!found) { print "offset " o ": " x " is not in those bytes"; exit 1 }
			}
		}' "$TMP/bytes" || fail "row at offset $off names a field layout does not put there"
done || exit 1
echo "ok: every row's field is where the layout puts it"

# kmalloc-512: named by its top allocation site, a kernel function, when
# anything was allocated from it (skb heads on 6.1; 6.12 has its own
# cache for small heads, so there it may be anything, or nothing).
if grep -q "^  allocated by:" "$TMP/profile.txt"; then
	grep -Eq "^kmalloc-512 +by [A-Za-z_][A-Za-z0-9_.]* [0-9]+%" "$TMP/profile.txt" ||
		fail "kmalloc-512 is not named by an allocating function"
	grep -E "^kmalloc-512 |^  allocated by:" "$TMP/profile.txt"
	echo "ok: kmalloc-512 named by its allocation site"
fi

dprof-view profile -t nosuch "$out" >/dev/null 2>&1
expect_eq "unknown cache exit status" $? 2
head -c 5000 "$out" >"$TMP/short.dprof"
dprof-view profile "$TMP/short.dprof" >/dev/null 2>"$TMP/err"
expect_eq "truncated recording exit status" $? 2
cat "$TMP/err"
exit 0

#!/bin/sh
# dprof-view record -e CACHE: one command loads dprof.ko with target=
# the -e caches (and -p's parameters), records, and unloads it, saying
# what it loaded, as perf record -e does; --module FILE loads that file
# as insmod would (modprobe needs the packaged module: check-deb.sh).
# Bad input is refused in one line with the status of its kind: the
# module loaded already (1), a cache no kernel has (1, with the
# module's own kernel-log line, and nothing left loaded), -p without a
# target (2).  A loaded module is never left behind.
. ./functions.sh
trap cleanup_modules EXIT
ko=$MODDIR/dprof.ko
out=$TMP/load.dprof

dprof-view record --no-progress -e skbuff -p history=0 --module "$ko" -o "$out" -- \
	udp_flood -s 0 -r 1 -d 1 >"$TMP/udp.log" 2>"$TMP/err" ||
	fail "record -e skbuff --module failed: $(cat "$TMP/err")"
cat "$TMP/err"
grep -q "^\[ dprof-view record: loaded $ko: .*target=skbuff" "$TMP/err" ||
	fail "record did not say what it loaded"
grep -q "history=0" "$TMP/err" || fail "record did not load -p history=0"
grep -q "^\[ dprof-view record: unloaded dprof \]" "$TMP/err" ||
	fail "record did not say it unloaded dprof"
[ ! -d /sys/module/dprof ] || fail "dprof.ko left loaded after record -e"
dprof-view info "$out" | grep -q "skbuff_head_cache" ||
	fail "the recording holds no skbuff_head_cache target: $(dprof-view info "$out" | head -n 20)"
echo "ok: record -e skbuff loaded, recorded skbuff_head_cache, unloaded"

load_mod dprof target=skbuff
dprof-view record -e skbuff --module "$ko" -d 1 -o "$out" 2>"$TMP/err"
expect_eq "record -e with dprof loaded: exit status" $? 1
grep -q "dprof is loaded already" "$TMP/err" || fail "no clear message: $(cat "$TMP/err")"
unload_mod dprof

dprof-view record -e no_such_cache --module "$ko" -d 1 -o "$out" 2>"$TMP/err"
expect_eq "record -e no_such_cache: exit status" $? 1
cat "$TMP/err"
grep -q "no_such_cache" "$TMP/err" || fail "the refusal does not name the cache: $(cat "$TMP/err")"
[ ! -d /sys/module/dprof ] || fail "dprof.ko loaded after a refused target"

dprof-view record -p history=0 --module "$ko" -d 1 -o "$out" 2>"$TMP/err"
expect_eq "record -p without -e: exit status" $? 2
grep -q "without a target" "$TMP/err" || fail "no clear message: $(cat "$TMP/err")"
echo "ok: a loaded module, an unknown cache and a missing target refused in one line each"

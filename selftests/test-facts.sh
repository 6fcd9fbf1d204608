#!/bin/sh
# The views read no sentence of the module's (issue "Review"): what they
# need of its state (the sampler, target=all, the sample counts, each
# type's window estimate and how sparsely its objects were followed)
# travels typed in the recording's facts section (debugfs "facts",
# uapi/dprof.h), and "status", "histories" and "profile" stay for
# people.  A recording under target=all with the watch sampler, made
# while udp_flood runs, is copied with every letter of those three
# texts rotated by 13 (selftests/progs/reword.c): report, workingset and
# profile must print the same JSON for both.  The same copy without the
# facts section must print different JSON, or the comparison could not
# fail: the report then finds no window shares and no target=all in the
# sentences it can no longer read.
. ./functions.sh
trap cleanup_modules EXIT
rec=$TMP/facts.dprof

load_mod dprof target=all sampler=watch
i=0
while ! grep -q "^scan: done\|^scan: off" "$DPROF_DIR/status" && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
dprof-view record --no-progress -o "$rec" -- udp_flood -s 0 -r 1 -d 4 >/dev/null ||
	fail "record/udp_flood failed"
unload_mod dprof
reword "$rec" "$TMP/reworded.dprof" || fail "reword failed"
reword "$rec" "$TMP/nofacts.dprof" --drop-facts || fail "reword --drop-facts failed"
# The texts really are reworded: the module's first sentence is gone.
dprof-view info "$TMP/reworded.dprof" >"$TMP/info.txt" 2>&1
grep -q "dprof" "$TMP/info.txt" || fail "info shows nothing of the reworded recording"

views() {	# views REC OUT
	{
		dprof-view report --json "$1" &&
			dprof-view workingset --json --no-sim "$1" &&
			dprof-view profile --json "$1"
	} >"$2" 2>&1
}
views "$rec" "$TMP/a.json" || fail "the views failed on the recording: $(tail -n 3 "$TMP/a.json")"
views "$TMP/reworded.dprof" "$TMP/b.json" ||
	fail "the views failed on the reworded copy: $(tail -n 3 "$TMP/b.json")"
views "$TMP/nofacts.dprof" "$TMP/c.json"
grep -q '"target_all": true' "$TMP/a.json" ||
	fail "the report does not say target=all: $(head -c 400 "$TMP/a.json")"
grep -q '"sampler": *"watch"' "$TMP/a.json" ||
	fail "the report does not name the watch sampler: $(head -c 400 "$TMP/a.json")"
grep -q '"share_err95": *[0-9]' "$TMP/a.json" ||
	fail "the report has no window share with an interval: the test would compare nothing"
cmp -s "$TMP/a.json" "$TMP/b.json" ||
	fail "rewording the module's texts changed the views' JSON: $(diff "$TMP/a.json" "$TMP/b.json" | head -n 8)"
cmp -s "$TMP/a.json" "$TMP/c.json" &&
	fail "without the facts the reworded copy gives the same JSON: the comparison cannot fail"
echo "ok: report, workingset and profile JSON unchanged by rewording ($(wc -c <"$TMP/a.json") bytes); without the facts they change"
exit 0

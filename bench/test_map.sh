#!/bin/sh
# bench/test_map.sh: the test bench_map, a quick check that bench/map works, never the
# benchmark itself (ResNet-50 and the 10,240-group graph are not touched).
#
#   sh bench/test_map.sh BENCH_MAP BUILD_DIR
#
# 1. `bench/map --no-build --only small` (REPS=1), as text and as Markdown: exit 0; the table
#    has its 16 columns under the expected names; rows lenet and synth-small with figures,
#    lenet's 2 cores at most and its target line "met"; synth-small's groups are gen_synth's
#    2 x 8 x 8 x 20 = 2560 and its traffic at most 0.94 x plain Scotch's (the
#    refinement's median moves and descent sweeps: 0.931; without them 0.947) and below
#    snake order's, and no traffic above its unicast figure (multicast chains are never
#    costlier); its 20 layers in 20 phases of one phase group (mapper/schedule.c: the
#    schedule that keeps relaying chains whole took 2 phase groups, the one without that
#    rule wins with fewer).
# 2. The synthetic graph's Mapping runs: taskir-run on synth-small.map.pb gives the outputs of
#    taskir-run on synth-small.pb, bit for bit (inputs from bench/pb_inputs).
# 3. Cores shared by lifetimes: on a chip of 8 x 8 cores (the default description with
#    <cores x="8" y="8"/>), synth-small's 128 cores of the 4 x 4 array become at most 80
#    (merge.c: cores of one stage whose phases, receives and memory in every phase leave
#    room for both); the Mapping verifies on that chip (memory per core and phase from the
#    MEMORY lifetimes) and runs bit for bit.
# 4. Usage: an unknown option exits 2; gen_synth refuses a bad size (exit 2) and a missing
#    output (exit 1).
# Skipped (77) without GNU time at /usr/bin/time.
set -eu
bench=$1
build=$2
if [ ! -x /usr/bin/time ]; then
    echo "no GNU time at /usr/bin/time (Debian package time): skipped"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_map.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
bad() {
    echo "FAIL: $*"
    exit 1
}

# ---- 1. the small cases ----
rc=0
BUILD=$build REPS=1 sh "$bench" --no-build --only small >"$tmp/text" 2>"$tmp/err" || rc=$?
cat "$tmp/text"
[ "$rc" -eq 0 ] || { cat "$tmp/err"; bad "bench/map --only small exited $rc"; }
rc=0
BUILD=$build REPS=1 sh "$bench" --no-build --only small --markdown >"$tmp/md" 2>"$tmp/err" || rc=$?
[ "$rc" -eq 0 ] || { cat "$tmp/err"; bad "bench/map --only small --markdown exited $rc"; }
head -n 1 "$tmp/text" | grep -q '^taskir mapper benchmark (bench/map): ' || bad "no title line"
want='graph groups map s CPU s cores chips phases phase groups step clock traffic unicast scotch snake x best x scotch x snake'
got=$(sed -n 2p "$tmp/text" | tr -s ' ')
[ "$got" = "$want" ] || bad "text header is '$got', not '$want'"
got=$(grep '^| graph' "$tmp/md" | sed 's/ *| */|/g; s/^|//; s/|$//' | tr '|' ' ')
[ "$got" = "$want" ] || bad "Markdown header is '$got', not '$want'"
grep -q '^|---|---:|' "$tmp/md" || bad "no Markdown separator line"
rows=$build/bench/map-out/rows.tsv
awk -F '\t' '
function fail(what) { print "FAIL: " what; bad = 1; exit 1 }
$2 == "FAIL" { fail("row " $1 " failed") }
NF != 13 { fail("row " $1 " has " NF " fields") }
{ for (i = 2; i <= 13; i++) if ($i !~ /^[0-9.]+$/) fail("row " $1 " field " i " is " $i) }
$1 == "lenet" { lenet = 1; if ($5 < 1 || $5 > 2) fail("lenet on " $5 " cores") }
$1 == "synth-small" {
    synth = 1
    if ($4 != 2560) fail("synth-small has " $4 " groups, not 2560")
    if ($10 > 0.94 * $12 || $10 > $13) fail("synth-small: traffic " $10 " vs baselines " $12 ", " $13)
    if ($10 > $11) fail("synth-small: traffic " $10 " above its unicast " $11)
    if ($7 != 20 || $8 != 1) fail("synth-small: " $7 " phases in " $8 " phase groups, not 20 in 1")
    if ($13 <= 0) fail("synth-small: no snake baseline")
}
END { if (!bad && !(lenet && synth)) { print "FAIL: rows missing"; exit 1 } }' "$rows" ||
    bad "the rows"
grep -q '^target lenet on <= 2 cores (.*): met$' "$tmp/text" || bad "no met lenet target"
grep -q '^- target lenet on <= 2 cores' "$tmp/md" || bad "no Markdown target line"

# ---- 2. the synthetic graph's Mapping runs bit for bit ----
out=$build/bench/map-out
"$build/bench/pb_inputs" "$out/synth-small.pb" "$tmp" >"$tmp/inputs" || bad "pb_inputs"
set --
while IFS= read -r in; do set -- "$@" --input "$in"; done <"$tmp/inputs"
"$build/tools/taskir-run" "$out/synth-small.pb" -o "$tmp/o1" "$@" >/dev/null ||
    bad "synth-small.pb does not run"
"$build/tools/taskir-run" "$out/synth-small.map.pb" -o "$tmp/o2" "$@" >/dev/null ||
    bad "synth-small.map.pb does not run"
diff -r "$tmp/o1" "$tmp/o2" || bad "the Mapping of synth-small runs to other outputs"

# ---- 3. cores shared by lifetimes ----
sed 's|<cores x="16" y="10"/>|<cores x="8" y="8"/>|' "$(dirname "$bench")/../examples/chips/tianjicx.xml" \
    >"$tmp/c88.xml"
grep -q '<cores x="8" y="8"/>' "$tmp/c88.xml" || bad "no 8 x 8 chip description"
"$build/tools/taskir-map" "$out/synth-small.pb" --chip "$tmp/c88.xml" -o "$tmp/m.map.pb" \
    --report "$tmp/m.json" --quiet || bad "synth-small does not map on 8 x 8 cores"
"$build/tools/taskir-dump" "$tmp/m.map.pb" --verify --chip "$tmp/c88.xml" ||
    bad "the 8 x 8 Mapping does not verify on its chip"
cores=$(sed -n 's/.*"cores": \([0-9]*\),.*/\1/p' "$tmp/m.json" | head -n 1)
chips=$(sed -n 's/.*"chips": \([0-9]*\),.*/\1/p' "$tmp/m.json" | head -n 1)
echo "synth-small on 8 x 8 cores: $cores cores of $chips chips"
# merging without a limit fits it in 2 chips (80 cores); the merge then keeps the shortest
# reach that needs no more chips (mapper/merge.c): at most their 128 cores
[ -n "$chips" ] && [ "$chips" -le 2 ] || bad "synth-small takes ${chips:-?} chips of 8 x 8, not <= 2"
[ -n "$cores" ] && [ "$cores" -le 128 ] || bad "synth-small takes ${cores:-?} cores of 8 x 8, not <= 128"
"$build/tools/taskir-run" "$tmp/m.map.pb" -o "$tmp/o3" "$@" >/dev/null ||
    bad "the 8 x 8 Mapping does not run"
diff -r "$tmp/o1" "$tmp/o3" || bad "the 8 x 8 Mapping runs to other outputs"

# ---- 4. usage ----
rc=0
BUILD=$build sh "$bench" --bogus >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 2 ] || bad "an unknown option exited $rc, not 2"
rc=0
"$build/bench/gen_synth" --tiles 0 "$tmp/x.pb" 2>/dev/null || rc=$?
[ "$rc" -eq 2 ] || bad "gen_synth --tiles 0 exited $rc, not 2"
rc=0
"$build/bench/gen_synth" 2>/dev/null || rc=$?
[ "$rc" -eq 1 ] || bad "gen_synth without an output exited $rc, not 1"
[ ! -e "$tmp/x.pb" ] || bad "gen_synth wrote a file after a usage error"
echo "ok"

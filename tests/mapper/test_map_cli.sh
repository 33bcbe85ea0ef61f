#!/bin/sh
# tests/mapper/test_map_cli.sh: taskir-map's command line (docs/mapper.md, docs/cli.md): help
# and version, usage errors with their rule ids (exit 1), a graph that does not load (exit 2),
# the outputs written all or none, standard output, seeds, efforts, --no-passes and the
# progress line.
#
#   sh test_map_cli.sh MAP DUMP LENET.pb BAD.pb
set -eu
map=$1 dump=$2 lenet=$3 bad=$4
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_map_cli.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "FAIL: $*"
    exit 1
}
# expect CODE RULE ARGS...: taskir-map ARGS exits CODE, its stderr names [RULE] (RULE '-': any)
expect() {
    code=$1 rule=$2
    shift 2
    rc=0
    "$map" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null || rc=$?
    [ "$rc" = "$code" ] || { cat "$tmp/err"; fail "taskir-map $* exits $rc, not $code"; }
    [ "$rule" = - ] || grep -q "\[$rule\]" "$tmp/err" ||
        { cat "$tmp/err"; fail "taskir-map $* does not say [$rule]"; }
    echo "ok: taskir-map $* -> $code $rule"
}
expect 0 - --help
grep -q '^usage: taskir-map IN.pb' "$tmp/out" || fail "--help prints no usage"
expect 0 - --version
grep -q '^taskir-map ' "$tmp/out" || fail "--version prints no version"
expect 1 usage.args
expect 1 usage.option "$lenet" --frobnicate -o "$tmp/a.map.pb"
expect 1 usage.args "$lenet" "$lenet" -o "$tmp/a.map.pb"
expect 1 usage.value "$lenet" --effort 4 -o "$tmp/a.map.pb"
expect 1 usage.value "$lenet" --effort -1 -o "$tmp/a.map.pb"
expect 1 usage.value "$lenet" --seed x -o "$tmp/a.map.pb"
expect 1 usage.value "$lenet" --svg "$tmp/c.svg" --svg-colour red -o "$tmp/a.map.pb"
expect 1 usage.args "$lenet" --svg-colour clocks -o "$tmp/a.map.pb"
expect 1 usage.repeated "$lenet" --seed 1 --seed 2 -o "$tmp/a.map.pb"
expect 1 usage.repeated "$lenet" -o "$tmp/a.map.pb" -o "$tmp/b.map.pb"
expect 1 usage.output "$lenet" -o "$tmp/a.map.pb" --report "$tmp/a.map.pb"
expect 1 usage.output "$lenet" -o "$lenet"
expect 1 usage.output "$lenet" -o "$tmp"
[ -z "$(ls "$tmp" | grep -v '^out$\|^err$')" ] || fail "a usage error left a file"
# a graph that does not verify: exit 2, no file
expect 2 - "$bad" -o "$tmp/a.map.pb" --report "$tmp/r.json" --svg "$tmp/c.svg"
[ ! -e "$tmp/a.map.pb" ] && [ ! -e "$tmp/r.json" ] && [ ! -e "$tmp/c.svg" ] ||
    fail "a failed run left a file"
# a missing chip description: exit 3 (I/O), no file
expect 3 io.read "$lenet" --chip "$tmp/nope.xml" -o "$tmp/a.map.pb"
[ ! -e "$tmp/a.map.pb" ] || fail "a failed run left a file"
# standard output: the same bytes as -o
expect 0 - "$lenet" -o "$tmp/a.map.pb"
"$map" "$lenet" >"$tmp/stdout.map.pb"
cmp "$tmp/a.map.pb" "$tmp/stdout.map.pb" || fail "standard output differs from -o"
# every seed and effort gives a Mapping that verifies; one seed always the same bytes
for seed in 1 2 77; do
    for effort in 0 3; do
        expect 0 - "$lenet" --seed "$seed" --effort "$effort" -o "$tmp/s.map.pb"
        "$dump" "$tmp/s.map.pb" --verify >/dev/null || fail "seed $seed effort $effort"
    done
done
expect 0 - "$lenet" --seed 77 --effort 3 -o "$tmp/t.map.pb"
cmp "$tmp/s.map.pb" "$tmp/t.map.pb" || fail "seed 77 gives two Mappings"
# --no-passes maps the graph as it is: no groups in the Mapping's graph
expect 0 - "$lenet" --no-passes -o "$tmp/np.map.pb"
"$dump" "$tmp/np.map.pb" --verify >/dev/null || fail "--no-passes"
"$dump" "$tmp/np.map.pb" --format json | grep -q '"groups": \[\]' ||
    fail "--no-passes grouped the graph"
expect 0 - "$lenet" -o "$tmp/p.map.pb"
"$dump" "$tmp/p.map.pb" --format json | grep -q '"groups": \[\]' &&
    fail "the default passes did not run"
# the progress line, on a terminal only (script(1) gives one), not with --quiet
if command -v script >/dev/null 2>&1; then
    TASKIR_PROGRESS_AFTER=0 script -qec "'$map' '$lenet' -o '$tmp/tty.map.pb'" /dev/null \
        >"$tmp/tty" 2>&1 || fail "taskir-map on a terminal"
    grep -q 'taskir-map: block 0 of' "$tmp/tty" || fail "no progress line on a terminal"
    TASKIR_PROGRESS_AFTER=0 script -qec "'$map' '$lenet' --quiet -o '$tmp/tty.map.pb'" /dev/null \
        >"$tmp/tty" 2>&1 || fail "taskir-map --quiet on a terminal"
    grep -q 'taskir-map: block' "$tmp/tty" && fail "a progress line with --quiet"
    TASKIR_PROGRESS_AFTER=0 "$map" "$lenet" -o "$tmp/pipe.map.pb" 2>"$tmp/err" || fail "pipe"
    # (the warnings of the chip-exactness rewrites aside: docs/exactness.md)
    ! grep -v ': warning: ' "$tmp/err" >/dev/null || fail "a progress line on a pipe"
    echo "ok: progress line"
else
    echo "skipped: the progress line (no script(1))"
fi
echo "all ok"

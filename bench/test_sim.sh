#!/bin/sh
# bench/test_sim.sh: the `cli` test bench_sim, a quick check that bench/sim works on a build
# dir (--no-build, REPS=1): exit 0, the convolution, vector-matrix and fan-in lines, and one line per
# example TaskGraph, the Mapping example (lenet.map.pb, not a graph) left out.
#
#   sh bench/test_sim.sh BENCH_SIM BUILD_DIR
set -eu
sim=$1
build=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_sim.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
bad() {
    echo "FAIL: $*"
    exit 1
}
rc=0
BUILD=$build REPS=1 THREADS=2 sh "$sim" --no-build >"$tmp/out" 2>"$tmp/err" || rc=$?
cat "$tmp/out" "$tmp/err"
[ "$rc" -eq 0 ] || bad "bench/sim --no-build exited $rc"
grep -q '^conv3x3 56x56x64->64  threads=1 .* GMAC/s$' "$tmp/out" || bad "no convolution line"
grep -q '^cvm 4096->4096        threads=2 .* GMAC/s$' "$tmp/out" || bad "no CVM line"
grep -q '^fan-in 40000 edges    plan best .* ms  verify best .* ms$' "$tmp/out" ||
    bad "no fan-in line"
for ex in lenet.pb tianjic_style.pb; do
    grep -Eq "^example .*/examples/$ex +best .* ms end to end$" "$tmp/out" || bad "no line for $ex"
done
! grep -q 'map\.pb' "$tmp/out" || bad "the Mapping example was benchmarked as a graph"
rc=0
BUILD=$build sh "$sim" --bogus >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 1 ] || bad "an unknown option exited $rc, not 1"
echo "ok"

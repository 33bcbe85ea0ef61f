#!/bin/sh
# tests/cli/test_run_xml.sh: taskir-run does not link libxml2, ICU or libstdc++ (its ELF
# dynamic section names none of them: they cost every run's start, tools/xmlmod.h); it opens
# its XML readers' module when it needs one, so a CINN program and --chip-exact still run,
# with the outputs of taskir-compile's graph for the CINN program; without the module beside
# it, a graph runs as before and --chip-exact is a runtime error (exit 3) [io.module].
#
#   sh test_run_xml.sh RUN COMPILE PROG.xml INPUT.npy
set -eu
run=$1 compile=$2 prog=$3 input=$4
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_run_xml.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "FAIL: $*"
    exit 1
}
command -v readelf >/dev/null || { echo "no readelf (Debian: binutils): skipped"; exit 77; }
readelf -d "$run" >"$tmp/dynamic" || fail "readelf -d $run"
grep -q 'NEEDED' "$tmp/dynamic" || fail "no NEEDED entries in $run's dynamic section"
if grep -E 'NEEDED.*(libxml2|libicu|libstdc\+\+)' "$tmp/dynamic"; then
    fail "taskir-run links the libraries above"
fi

# the module, beside taskir-run in the build tree: a CINN program and --chip-exact
"$run" "$prog" --input "x=$input" -o "$tmp/model" || fail "taskir-run PROG.xml"
"$compile" "$prog" -o "$tmp/prog.pb" || fail "taskir-compile PROG.xml"
"$run" "$tmp/prog.pb" --input "x=$input" -o "$tmp/graph" || fail "taskir-run PROG.pb"
diff -r "$tmp/model" "$tmp/graph" || fail "PROG.xml and PROG.pb give other outputs"
"$run" "$tmp/prog.pb" --input "x=$input" -o "$tmp/chip" --chip-exact ||
    fail "taskir-run --chip-exact"

# without the module (nor meson test's LD_LIBRARY_PATH, which names the build's tools/)
mkdir "$tmp/alone"
cp "$run" "$tmp/alone/taskir-run"
alone() {
    env -u LD_LIBRARY_PATH "$tmp/alone/taskir-run" "$@"
}
alone "$tmp/prog.pb" --input "x=$input" -o "$tmp/alone/out" ||
    fail "taskir-run without the module, no XML needed"
diff -r "$tmp/graph" "$tmp/alone/out" || fail "other outputs without the module"
rc=0
alone "$tmp/prog.pb" --input "x=$input" -o "$tmp/alone/chip" --chip-exact \
    2>"$tmp/err" || rc=$?
cat "$tmp/err"
[ "$rc" -eq 3 ] || fail "--chip-exact without the module exited $rc, not 3"
grep -q 'libtaskir-xml.so.*\[io.module\]$' "$tmp/err" || fail "no [io.module] message"
[ ! -e "$tmp/alone/chip" ] || fail "a failed run left $tmp/alone/chip"
echo "ok: taskir-run links no XML library and opens its XML readers when needed"

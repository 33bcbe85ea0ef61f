#!/bin/sh
# tests/asm/emit_example.sh: one example through the whole chain (docs/backend.md, "The code
# generator"): compiled when it is a model, mapped by taskir-map on the default chip, its
# programs written by taskir-emit, and run: `taskir-run DIR` must give `taskir-run MAP.pb`'s
# outputs byte for byte. What the chain refuses is reported, not failed: taskir-map exiting
# 2 (the chip cannot run the graph), taskir-emit exiting 2 naming an emit.* rule and writing
# nothing (what the code generator does not write yet, docs/backend.md "Not yet"). Any other
# exit status, a refusal without its rule, or outputs that differ fail.
#
#   sh emit_example.sh MAP EMIT RUN COMPILE MODEL INPUT|- [COMPILE-ARGS...]
set -u
map=$1 emit=$2 run=$3 compile=$4 model=$5 input=$6
shift 6
tmp=$(mktemp -d "${TMPDIR:-/tmp}/emit_example.XXXXXX") || exit 3
trap 'rm -rf "$tmp"' EXIT
bad() {
    echo "FAIL: $*"
    exit 1
}
case $model in
*.pb) cp "$model" "$tmp/g.pb" ;;
*) "$compile" "$model" "$@" -o "$tmp/g.pb" || bad "$model does not compile" ;;
esac
rc=0
"$map" "$tmp/g.pb" -o "$tmp/g.map.pb" --quiet 2>"$tmp/err" || rc=$?
if [ "$rc" = 2 ]; then
    echo "ok: $model: the chip cannot run it ($(sed -n 's/.*\[\(.*\)\]$/\1/p' "$tmp/err" | head -1))"
    exit 0
fi
[ "$rc" = 0 ] || { cat "$tmp/err"; bad "taskir-map exits $rc"; }
rc=0
"$emit" "$tmp/g.map.pb" -o "$tmp/prog" 2>"$tmp/err" || rc=$?
cat "$tmp/err"
case $rc in
0) ;;
2)
    grep -q '\[emit\.[a-z.]*\]$' "$tmp/err" || bad "taskir-emit exits 2 without an emit.* rule"
    [ ! -e "$tmp/prog" ] || bad "a refused Mapping left $tmp/prog"
    echo "ok: $model: not written yet [$(sed -n 's/.*\[\(emit\.[a-z.]*\)\]$/\1/p' "$tmp/err" | head -1)]"
    exit 0
    ;;
*) bad "taskir-emit exits $rc" ;;
esac
[ -f "$tmp/prog/program.pb" ] || bad "no program.pb"
if [ "$input" = - ]; then
    echo "ok: $model: emitted (no input to run)"
    exit 0
fi
"$run" "$tmp/g.map.pb" --input "0=$input" -o "$tmp/o1" >/dev/null || bad "the mapping does not run"
"$run" "$tmp/prog" --input "0=$input" -o "$tmp/o2" >/dev/null || bad "the programs do not run"
diff -r "$tmp/o1" "$tmp/o2" || bad "the programs of $model run to other outputs than its graph"
echo "ok: $model: the programs give the graph's outputs byte for byte"

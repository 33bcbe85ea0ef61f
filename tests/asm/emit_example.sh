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
if ! "$run" "$tmp/prog" --input "0=$input" -o "$tmp/o2" >/dev/null 2>"$tmp/err"; then
    cat "$tmp/err"
    grep -q '\[prog.input.shape\]' "$tmp/err" || bad "the programs do not run"
    # a batch of samples, which the executor does not take: the first sample alone
    python3 - "$input" "$tmp/one.npy" <<'PY' || bad "cannot cut the first sample"
import ast, struct, sys
raw = open(sys.argv[1], 'rb').read()
hl = struct.unpack('<H', raw[8:10])[0] if raw[6] == 1 else struct.unpack('<I', raw[8:12])[0]
start = 10 + hl if raw[6] == 1 else 12 + hl
hdr = ast.literal_eval(raw[start - hl:start].decode('latin1'))
shape = hdr['shape']
size = int(hdr['descr'][2:])
n = 1
for d in shape[1:]:
    n *= d
h = "{'descr': '%s', 'fortran_order': False, 'shape': (%s,), }" % (hdr['descr'], ', '.join(map(str, shape[1:])))
h += ' ' * (63 - (10 + len(h)) % 64) + '\n'
open(sys.argv[2], 'wb').write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) + h.encode() + raw[start:start + n * size])
PY
    input=$tmp/one.npy
    "$run" "$tmp/prog" --input "0=$input" -o "$tmp/o2" >/dev/null || bad "the programs do not run on one sample"
    echo "(a batch: the first sample)"
fi
"$run" "$tmp/g.map.pb" --input "0=$input" -o "$tmp/o1" >/dev/null || bad "the mapping does not run"
diff -r "$tmp/o1" "$tmp/o2" || bad "the programs of $model run to other outputs than its graph"
echo "ok: $model: the programs give the graph's outputs byte for byte"

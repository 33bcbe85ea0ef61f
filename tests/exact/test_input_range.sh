#!/bin/sh
# tests/exact/test_input_range.sh: a model input's declared range (docs/exactness.md, "Input
# ranges"; docs/formats.md, "Model tensors") through the tools. A CVM model negating an input
# of precision 32: taskir-compile declares -(2^31 - 1) .. 2^31 - 1 on the INPUT (taskir-dump
# shows it), so the negation never wraps and taskir-map maps it (without the range it was
# map.exact.overflow); taskir-run refuses -2^31 on the graph [sim.input.range] (exit 2) and
# negates the ends of the range, the Mapping under --chip-exact too. A model whose input has
# precision 4 declares -7 .. 7, and bench/pb_inputs draws inside it.
#
#   sh test_input_range.sh COMPILE DUMP MAP RUN PB_INPUTS PYTHON
set -eu
compile=$1 dump=$2 map=$3 run=$4 pb_inputs=$5 py=$6
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_input_range.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "FAIL: $*"
    exit 1
}
# model P OP: a CVM model of one input of shape (1, 4) and precision P, and one operator
model() {
    cat <<JSON
{"nodes": [{"op": "null", "name": "data", "inputs": []},
 {"op": "cvm_op", "name": "y", "inputs": [[0, 0, 0]],
  "attrs": {"func_name": "$2", "num_inputs": "1", "num_outputs": "1", "flatten_data": "0"}}],
 "arg_nodes": [0], "heads": [[1, 0, 0]], "node_row_ptr": [0, 1, 2],
 "attrs": {"dltype": ["list_str", ["int32", "int32"]],
  "shape": ["list_shape", [[1, 4], [1, 4]]], "precision": ["list_int", [$1, $1]],
  "storage_id": ["list_int", [0, 1]], "op_attrs": ["list_str", ["{}", "{}"]]},
 "version": "cvm_1.0.0"}
JSON
}
# npy PATH V...: an int32 .npy of shape (1, 4)
npy() {
    "$py" - "$@" <<'PY'
import struct, sys
h = "{'descr': '<i4', 'fortran_order': False, 'shape': (1, 4), }"
h += " " * (128 - 10 - len(h) - 1) + "\n"
v = [int(x) for x in sys.argv[2:]]
open(sys.argv[1], "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode()
                              + struct.pack("<4i", *v))
PY
}
model 32 negative >"$tmp/neg.json"
"$compile" "$tmp/neg.json" -o "$tmp/neg.pb" || fail "taskir-compile"
"$dump" "$tmp/neg.pb" | grep -q 'model (1, 4) INT_32 range -2147483647 .. 2147483647$' ||
    fail "taskir-dump does not show the declared range"
echo "ok: an input of precision 32 admits -(2^31 - 1) .. 2^31 - 1"
"$map" "$tmp/neg.pb" -o "$tmp/neg.map.pb" --quiet || fail "taskir-map refuses the negation"
echo "ok: taskir-map maps its negation"
npy "$tmp/bad.npy" 0 -2147483648 1 2
rc=0
"$run" "$tmp/neg.pb" --input "data=$tmp/bad.npy" -o "$tmp/bad" 2>"$tmp/err" || rc=$?
cat "$tmp/err"
[ "$rc" = 2 ] || fail "taskir-run exits $rc on -2^31, not 2"
grep -q 'value -2147483648 at flat index 1 is outside the model.s range \[-2147483647, 2147483647\] \[sim.input.range\]$' "$tmp/err" ||
    fail "no sim.input.range"
[ ! -e "$tmp/bad" ] || fail "a refused run left its output"
echo "ok: taskir-run refuses -2^31"
npy "$tmp/ends.npy" 2147483647 -2147483647 0 -5
"$run" "$tmp/neg.pb" --input "data=$tmp/ends.npy" -o "$tmp/graph" >/dev/null || fail "taskir-run"
"$run" "$tmp/neg.map.pb" --chip-exact --input "data=$tmp/ends.npy" -o "$tmp/chip" >/dev/null ||
    fail "taskir-run --chip-exact"
npy "$tmp/want.npy" -2147483647 2147483647 0 5
cmp "$tmp/graph/output0.npy" "$tmp/want.npy" || fail "the graph's values"
cmp "$tmp/chip/output0.npy" "$tmp/want.npy" || fail "the chip's values"
echo "ok: the graph and the chip negate the range's ends alike"
model 4 relu >"$tmp/p4.json"
"$compile" "$tmp/p4.json" -o "$tmp/p4.pb" || fail "taskir-compile (precision 4)"
"$dump" "$tmp/p4.pb" | grep -q 'range -7 .. 7$' || fail "precision 4 does not declare -7 .. 7"
mkdir "$tmp/in"
"$pb_inputs" "$tmp/p4.pb" "$tmp/in" >/dev/null || fail "pb_inputs"
"$py" - "$tmp/in/input0.npy" <<'PY' || fail "pb_inputs draws outside -7 .. 7"
import struct, sys
data = open(sys.argv[1], "rb").read()
n = struct.unpack("<H", data[8:10])[0]
v = struct.unpack("<%di" % ((len(data) - 10 - n) // 4), data[10 + n:])
assert all(-7 <= x <= 7 for x in v), v
PY
echo "ok: bench/pb_inputs draws inside the declared range"

#!/bin/sh
# test_onnx_cli.sh COMPILE RUN EXAMPLES_DIR: taskir-compile and taskir-run on the example ONNX
# models as a user runs them. For each model, `taskir-run MODEL.onnx` (the reference
# interpreter) and `taskir-run` on the compiled TaskGraph (the simulator) must write
# byte-identical output files; --format onnx must work on a path without the extension; an
# unsupported operator must be a logic error (exit 2) naming the node.
set -eu
compile=$1 run=$2 ex=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for m in qnet shiftnet relu8; do
    "$compile" "$ex/$m.onnx" -o "$tmp/$m.pb"
    "$run" "$ex/$m.onnx" --input "x=$ex/$m.input.npy" -o "$tmp/$m.model"
    "$run" "$tmp/$m.pb" --input "x=$ex/$m.input.npy" -o "$tmp/$m.graph"
    cmp "$tmp/$m.model/output0.npy" "$tmp/$m.graph/output0.npy"
    cp "$ex/$m.onnx" "$tmp/$m.model.bin"
    "$compile" --format onnx "$tmp/$m.model.bin" -o "$tmp/$m.2.pb"
    cmp "$tmp/$m.pb" "$tmp/$m.2.pb"
    "$run" --format onnx "$tmp/$m.model.bin" --input "x=$ex/$m.input.npy" -o "$tmp/$m.model2"
    cmp "$tmp/$m.model/output0.npy" "$tmp/$m.model2/output0.npy"
done
# an int8 output keeps the ONNX shape and type (as onnxruntime writes it) on both paths
for d in model graph; do
    head -c 128 "$tmp/relu8.$d/output0.npy" | grep -q "'descr': '|i1', 'fortran_order': False, 'shape': (1, 4, 5, 5)" ||
        { echo "relu8 $d: not int8 (1, 4, 5, 5)"; head -c 128 "$tmp/relu8.$d/output0.npy"; exit 1; }
done
# a bad input name is a logic error
set +e
"$run" "$ex/qnet.onnx" --input "nope=$ex/qnet.input.npy" -o "$tmp/bad" 2>"$tmp/err"
rc=$?
set -e
[ "$rc" = 2 ] || { echo "unknown input: exit $rc, want 2"; cat "$tmp/err"; exit 1; }
grep -q 'onnx.input.unknown' "$tmp/err"
# --params does not apply
set +e
"$compile" "$ex/qnet.onnx" --params x -o "$tmp/x.pb" 2>"$tmp/err"
rc=$?
set -e
[ "$rc" = 1 ] || { echo "--params: exit $rc, want 1"; exit 1; }
echo ok

#!/bin/sh
# tests/cli/test_format.sh: taskir-compile and taskir-run find the format by content, then by
# suffix ignoring case (frontend/format/format.h): an ONNX model named without ".onnx", a CINN
# program named CNN.XML and a CVM model whose name ends in ".onnx" compile to the bytes their
# usual names give, and run to the same outputs.
#
#   sh test_format.sh COMPILE RUN QNET.onnx QNET.input.npy CINN.xml CINN.input.npy CVM_DIR
set -eu
compile=$1 run=$2 onnx=$3 onnx_in=$4 cinn=$5 cinn_in=$6 cvm=$7
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_format.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
bad() {
    echo "FAIL: $*"
    exit 1
}
# same SRC NAME INPUT [ARGS...]: SRC compiled and run under its own name and as $tmp/NAME
same() {
    src=$1 name=$2 input=$3
    shift 3
    cp "$src" "$tmp/$name"
    "$compile" "$src" "$@" -o "$tmp/usual.pb" || bad "$src does not compile"
    "$compile" "$tmp/$name" "$@" -o "$tmp/renamed.pb" || bad "$name does not compile"
    cmp "$tmp/usual.pb" "$tmp/renamed.pb" || bad "$name compiles to other bytes than $src"
    rm -rf "$tmp/o1" "$tmp/o2"
    "$run" "$src" "$@" --input "0=$input" -o "$tmp/o1" >/dev/null || bad "$src does not run"
    "$run" "$tmp/$name" "$@" --input "0=$input" -o "$tmp/o2" >/dev/null ||
        bad "$name does not run"
    diff -r "$tmp/o1" "$tmp/o2" || bad "$name runs to other outputs than $src"
    echo "ok: $name"
}
same "$onnx" qnet "$onnx_in"
same "$onnx" QNET.ONNX "$onnx_in"
same "$cinn" CNN.XML "$cinn_in"
same "$cvm/lenet.json" lenet.onnx "$cvm/lenet.input.npy" --params "$cvm/lenet.params"

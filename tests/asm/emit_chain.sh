#!/bin/sh
# The chain Mapping -> taskir-emit -> taskir-run DIR against taskir-run on the Mapping (the
# TaskGraph simulator): the same output files, byte for byte, for the hand-built Mappings of
# the code generator's tests (emit_fixture.h: a one-core convolution of 3 channels into 40
# with padding, requantized by a Soma shift; a Soma result sent to another core, part of it
# pooled there; a constant scale P83, a window sum P02 and two requantizations on one core in
# two phases; a 20 -> 40 vector-matrix product P04) and the documentation's demo (tests/asm/emit_demo.map.txtpb: convolution,
# requantization, transfer, pooling). Inputs: fixed pseudo-random int8 values.
#   emit_chain.sh TASKIR_EMIT TASKIR_RUN FIXTURE_WRITE PROTOC PROTO_DIR DEMO.map.txtpb
set -u
emit=$1 run=$2 fixw=$3 protoc=$4 protodir=$5 demo=$6
tmp=$(mktemp -d) || exit 3
trap 'rm -rf "$tmp"' EXIT
"$fixw" "$tmp" || exit 3
"$protoc" --encode=taskir.Mapping --proto_path="$protodir" mapping.proto < "$demo" \
  > "$tmp/demo.map.pb" || exit 3
# npy PATH SEED DIMS...: an int8 .npy of that shape, values from a fixed LCG
npy() {
  python3 - "$@" <<'PY' || exit 3
import struct, sys
path, seed, dims = sys.argv[1], int(sys.argv[2]), [int(a) for a in sys.argv[3:]]
n = 1
for d in dims:
    n *= d
vals, x = [], seed
for _ in range(n):
    x = (x * 1103515245 + 12345) % 2**31
    vals.append((x >> 16) % 256)
h = "{'descr': '|i1', 'fortran_order': False, 'shape': (%s,), }" % ", ".join(map(str, dims))
h += ' ' * (63 - (10 + len(h)) % 64) + '\n'
open(path, 'wb').write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) + h.encode() + bytes(vals))
PY
}
npy "$tmp/conv.npy" 1 6 6 3
npy "$tmp/transfer.npy" 2 4 4 16
npy "$tmp/demo.npy" 3 6 6 1
npy "$tmp/mix.npy" 4 4 4 8
npy "$tmp/fc.npy" 5 20
fail=0
for case in conv:data transfer:x demo:image mix:x fc:v; do
  m=${case%%:*} name=${case#*:}
  if ! "$emit" "$tmp/$m.map.pb" -o "$tmp/$m.prog"; then
    echo "FAIL $m: taskir-emit"; fail=1; continue
  fi
  "$run" "$tmp/$m.map.pb" --input "$name=$tmp/$m.npy" -o "$tmp/$m.graph" || { echo "FAIL $m: taskir-run MAP"; fail=1; continue; }
  "$run" "$tmp/$m.prog" --input "$name=$tmp/$m.npy" -o "$tmp/$m.programs" || { echo "FAIL $m: taskir-run DIR"; fail=1; continue; }
  if cmp -s "$tmp/$m.graph/output0.npy" "$tmp/$m.programs/output0.npy"; then
    echo "ok   $m: the programs give the TaskGraph's output0.npy byte for byte"
  else
    echo "FAIL $m: the programs' output differs from the TaskGraph's"
    "$run" "$tmp/$m.map.pb" --input "$name=$tmp/$m.npy" | head -5
    "$run" "$tmp/$m.prog" --input "$name=$tmp/$m.npy" | head -5
    fail=1
  fi
done
exit $fail

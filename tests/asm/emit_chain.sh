#!/bin/sh
# The chain Mapping -> taskir-emit -> taskir-run DIR against taskir-run on the Mapping (the
# TaskGraph simulator): the same output files, byte for byte, for the hand-built Mappings of
# the code generator's tests (emit_fixture.h: a one-core convolution of 3 channels into 40
# with padding, requantized by a Soma shift; a Soma result sent to another core, part of it
# pooled there) and the documentation's demo (tests/asm/emit_demo.map.txtpb: convolution,
# requantization, transfer, pooling). Inputs: fixed pseudo-random int8 values.
#   emit_chain.sh TASKIR_EMIT TASKIR_RUN FIXTURE_WRITE PROTOC PROTO_DIR DEMO.map.txtpb
set -u
emit=$1 run=$2 fixw=$3 protoc=$4 protodir=$5 demo=$6
tmp=$(mktemp -d) || exit 3
trap 'rm -rf "$tmp"' EXIT
"$fixw" "$tmp" || exit 3
"$protoc" --encode=taskir.Mapping --proto_path="$protodir" mapping.proto < "$demo" \
  > "$tmp/demo.map.pb" || exit 3
# npy PATH N0 N1 N2 SEED: an int8 .npy of that shape, values from a fixed LCG
npy() {
  python3 - "$@" <<'PY' || exit 3
import struct, sys
path, dims, seed = sys.argv[1], [int(a) for a in sys.argv[2:5]], int(sys.argv[5])
n = dims[0] * dims[1] * dims[2]
vals, x = [], seed
for _ in range(n):
    x = (x * 1103515245 + 12345) % 2**31
    vals.append((x >> 16) % 256)
h = "{'descr': '|i1', 'fortran_order': False, 'shape': (%d, %d, %d), }" % tuple(dims)
h += ' ' * (63 - (10 + len(h)) % 64) + '\n'
open(path, 'wb').write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) + h.encode() + bytes(vals))
PY
}
npy "$tmp/conv.npy" 6 6 3 1
npy "$tmp/transfer.npy" 4 4 16 2
npy "$tmp/demo.npy" 6 6 1 3
fail=0
for case in conv:data transfer:x demo:image; do
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

#!/bin/sh
# The Assembly IR schema (proto/program.proto) on the wire.
#   wire.sh PROTOC PROTO_DIR SAMPLE.txtpb
# 1. Field numbers and enum values: small messages encoded by protoc give the bytes worked out
#    by hand from the existing tools' numbers (docs/formats.md, "Assembly IR").
# 2. Round trip: the sample program encodes, decodes and re-encodes to the same bytes, and its
#    decoded text encodes to the same bytes as the original text.
set -u
protoc=$1 dir=$2 sample=$3
tmp=$(mktemp -d) || exit 3
trap 'rm -rf "$tmp"' EXIT
fail=0

# check MESSAGE TEXT HEX: protoc --encode of TEXT as taskir.asm.MESSAGE must be HEX.
check() {
  got=$(printf '%s\n' "$2" | "$protoc" --proto_path="$dir" --encode="taskir.asm.$1" program.proto \
        | od -An -tx1 | tr -d ' \n')
  if [ "$got" != "$3" ]; then
    echo "FAIL $1 { $2 }: got $got, want $3"
    fail=1
  else
    echo "ok   $1 { $2 } = $3"
  fi
}
# dx 5: -1 is a 10-byte varint; destination_const 10; enable 11.
check RouterHead 'dx: -1 destination_const: 5 enable: true' 28ffffffffffffffffff0150055801
# Receive_number 16 (tag 0x80 0x01); Soma_in_en 26 (tag 0xd0 0x01); router_head_mode 4 MULTI_USE=1.
check P09 'router_head_mode: MULTI_USE Receive_number: 3 Soma_in_en: true' 2001800103d00101
check P09 'packet_size_mode: SINGLE_NEURON out_memory: MEM3' 28003001
# socket_size 24 (tag 0xc0 0x01); io_type 1 OUTPUT_DATA=2; storage_order 16 X_Y_F=1; align 17 ALIGN_32=3.
check DynamicBlock 'io_type: OUTPUT_DATA socket_size: 2' 0802c00102
check DynamicBlock 'storage_order: X_Y_F align_number: ALIGN_32' 800101880103
# precision 4 (IR enum, INT_32=4); start_addr 9 = 16384 (varint 80 80 01); phases 13.
check StaticBlock 'precision: INT_32 start_addr: 16384 phases: 2' 2004488080016802
# pic 1, p41 5, o_base_addr 20; P41 pad_right 20, dilate_x 15.
check AxonPrim 'pic: 65 p41 { dilate_x: 1 pad_right: 2 } o_base_addr: 7' 08412a057801a00102a00107
# SomaPrim px5 2 (PX5 bit_shift_num 18, compare_init 17); P26 out_ciso_sel 18.
check SomaPrim 'pic: 5 px5 { compare_init: -128 bit_shift_num: 2 }' 0805120f880180ffffffffffffffff01900102
check P26 'out_ciso_sel: 1 reset_o_addr: true' 900101a80101
# Config: behavior_config 1 > step_config 2 > phase_group_config 4 (phase_mode 2 ADAPTED_CLOCK=2).
check Config 'behavior_config { step_config { phase_group_config { phase_mode: ADAPTED_CLOCK } } }' 0a06120422021002

"$protoc" --proto_path="$dir" --encode=taskir.asm.Config program.proto < "$sample" > "$tmp/a.pb" || exit 3
"$protoc" --proto_path="$dir" --decode=taskir.asm.Config program.proto < "$tmp/a.pb" > "$tmp/a.txt" || exit 3
"$protoc" --proto_path="$dir" --encode=taskir.asm.Config program.proto < "$tmp/a.txt" > "$tmp/b.pb" || exit 3
if cmp -s "$tmp/a.pb" "$tmp/b.pb" && [ -s "$tmp/a.pb" ]; then
  echo "ok   round trip of $(basename "$sample") ($(wc -c < "$tmp/a.pb") bytes)"
else
  echo "FAIL round trip of $sample"
  fail=1
fi
exit $fail

#!/bin/sh
# The protobuf text writer of program.txt (backend/asm_text_write.c) prints what protoc
# --decode prints, byte for byte, for the sample program set and for a message with every
# kind of value (negative ints, enums, bools, repeated fields, escaped strings).
#   text_write.sh PROTOC PROTO_DIR SAMPLE.txtpb ASM_TEXT_OF
set -u
protoc=$1 dir=$2 sample=$3 tool=$4
tmp=$(mktemp -d) || exit 3
trap 'rm -rf "$tmp"' EXIT
fail=0
cp "$sample" "$tmp/1.txtpb"
cat > "$tmp/2.txtpb" <<'TXT'
behavior_config { sim_clock: -7 step_config { chip_x: 1 phase_group_config {
  phase_mode: FIXED_CLOCK core_config { core_x: 2 static_prim_list {
  router { p09 { Send_en: false router_head_mode: MULTI_USE router_heads { dx: -3 dy: 127 }
  router_heads { enable: true } } send_block: "a\"b\\c\n\001z\303\251" } } } } } }
data_config { static_blocks { id: "w.0" phases: 1 phases: 2 phases: -1 start_addr: 16384 }
  dynamic_blocks { io_type: OUTPUT_DATA shape { nx: 3 ny: 4 } storage_order: NO_ORDER } }
test_config { random_seed: -9223372036854775808 test_case_name: "" }
TXT
for i in 1 2; do
  "$protoc" --proto_path="$dir" --encode=taskir.asm.Config program.proto < "$tmp/$i.txtpb" > "$tmp/$i.pb" || exit 3
  "$protoc" --proto_path="$dir" --decode=taskir.asm.Config program.proto < "$tmp/$i.pb" > "$tmp/$i.want" || exit 3
  "$tool" "$tmp/$i.pb" > "$tmp/$i.got" || { echo "FAIL $i: asm_text_of exited $?"; fail=1; continue; }
  if cmp -s "$tmp/$i.want" "$tmp/$i.got"; then
    echo "ok   sample $i: $(wc -l < "$tmp/$i.got") lines as protoc --decode prints them"
  else
    echo "FAIL sample $i differs from protoc --decode:"; diff "$tmp/$i.want" "$tmp/$i.got" | head -20
    fail=1
  fi
done
exit $fail

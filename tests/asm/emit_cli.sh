#!/bin/sh
# taskir-emit's command line (docs/backend.md, "The code generator"; docs/cli.md): the program
# set it writes (program.pb or program.txt, data/ID.bin little-endian, sockets.json), the text
# form equal to protoc --decode of the binary one, replacing an earlier set, the usage errors
# and their rule ids, a logic error leaving nothing behind, never writing into a FIFO or a
# directory of other files.
#   emit_cli.sh TASKIR_EMIT FIXTURE_WRITE PROTOC PROTO_DIR
set -u
emit=$1 fixw=$2 protoc=$3 protodir=$4
tmp=$(mktemp -d) || exit 3
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
# expect RC DESCRIPTION CMD...: the command exits RC
expect() {
  want=$1 what=$2; shift 2
  "$@" > "$tmp/out" 2> "$tmp/err"; rc=$?
  if [ "$rc" -eq "$want" ]; then ok "$what (exit $rc)"; else bad "$what: exit $rc, want $want"; cat "$tmp/err"; fi
}
"$fixw" "$tmp" || exit 3

# 1. The binary set.
expect 0 "conv.map.pb -o set" "$emit" "$tmp/conv.map.pb" -o "$tmp/set"
[ -f "$tmp/set/program.pb" ] && [ -f "$tmp/set/sockets.json" ] && ok "program.pb and sockets.json" || bad "files missing"
# The weights of block 2 on core (0,0): 432 words; word 0 holds -100 -93 -86 -79 (9c a3 aa b1).
w=$tmp/set/data/b2.0.0.0.0.bin
[ "$(wc -c < "$w")" -eq 1728 ] && ok "weights image 432 words" || bad "weights image size $(wc -c < "$w")"
[ "$(od -An -tx1 -N4 "$w" | tr -d ' ')" = "9ca3aab1" ] && ok "weights word 0 little-endian" || bad "weights word 0: $(od -An -tx1 -N4 "$w")"
[ "$(ls "$tmp/set/data" | wc -l)" -eq 2 ] && ok "two static blocks" || bad "data/: $(ls "$tmp/set/data")"
grep -q '"name": "data"' "$tmp/set/sockets.json" && grep -q '"io": "output"' "$tmp/set/sockets.json" \
  && ok "sockets.json names the sockets" || bad "sockets.json: $(cat "$tmp/set/sockets.json")"

# 2. The text form: what protoc --decode prints of program.pb, byte for byte.
expect 0 "--format text" "$emit" "$tmp/conv.map.pb" -o "$tmp/text" --format text
"$protoc" --proto_path="$protodir" --decode=taskir.asm.Config program.proto \
  < "$tmp/set/program.pb" > "$tmp/decoded.txt" || exit 3
cmp -s "$tmp/decoded.txt" "$tmp/text/program.txt" && ok "program.txt = protoc --decode of program.pb" \
  || { bad "program.txt differs from protoc --decode"; diff "$tmp/decoded.txt" "$tmp/text/program.txt" | head; }
cmp -s "$tmp/set/data/b2.0.0.0.0.bin" "$tmp/text/data/b2.0.0.0.0.bin" && ok "same data in both forms" || bad "data differs"

# 3. Deterministic, and an earlier set is replaced (program.pb goes when program.txt comes).
expect 0 "again" "$emit" "$tmp/conv.map.pb" -o "$tmp/set2"
cmp -s "$tmp/set/program.pb" "$tmp/set2/program.pb" && ok "byte-identical runs" || bad "two runs differ"
expect 0 "text over a binary set" "$emit" "$tmp/conv.map.pb" -o "$tmp/set2" --format text
[ ! -e "$tmp/set2/program.pb" ] && [ -f "$tmp/set2/program.txt" ] && ok "the earlier program.pb is gone" || bad "old files left: $(ls "$tmp/set2")"
expect 0 "another mapping over a set" "$emit" "$tmp/transfer.map.pb" -o "$tmp/set2"
[ ! -e "$tmp/set2/data/b2.0.0.0.0.bin" ] && ok "the earlier data files are gone" || bad "old data left"
ls -d "$tmp"/set2.* 2>/dev/null && bad "temporary directories left" || ok "no temporary directory left"

# 4. A logic error: nothing written.
expect 2 "an odd shift" "$emit" "$tmp/conv_odd.map.pb" -o "$tmp/odd"
grep -q '\[emit.shift\]' "$tmp/err" && ok "emit.shift named" || bad "no emit.shift: $(cat "$tmp/err")"
[ ! -e "$tmp/odd" ] && ok "no directory after a failure" || bad "a failed run left $tmp/odd"
expect 2 "an odd shift over a set" "$emit" "$tmp/conv_odd.map.pb" -o "$tmp/set"
cmp -s "$tmp/set/program.pb" "$tmp/set2/program.pb" 2>/dev/null; [ -f "$tmp/set/program.pb" ] \
  && ok "a failed run leaves the earlier set" || bad "the earlier set is damaged"

# 5. Usage errors (exit 1), each naming its rule.
expect 1 "no -o" "$emit" "$tmp/conv.map.pb"
grep -q '\[usage.output\]' "$tmp/err" || bad "no -o: rule"
expect 1 "-o -" "$emit" "$tmp/conv.map.pb" -o -
echo keep > "$tmp/file"
expect 1 "-o a file" "$emit" "$tmp/conv.map.pb" -o "$tmp/file"
[ "$(cat "$tmp/file")" = keep ] && ok "the file is untouched" || bad "the file was changed"
mkdir "$tmp/mine" && echo mine > "$tmp/mine/notes.txt"
expect 1 "-o a directory of other files" "$emit" "$tmp/conv.map.pb" -o "$tmp/mine"
[ "$(cat "$tmp/mine/notes.txt")" = mine ] && ok "other files untouched" || bad "other files changed"
mkfifo "$tmp/fifo"
expect 1 "-o a FIFO" "$emit" "$tmp/conv.map.pb" -o "$tmp/fifo"
[ -p "$tmp/fifo" ] && ok "the FIFO is left as it is" || bad "the FIFO was replaced"
expect 1 "--format bad" "$emit" "$tmp/conv.map.pb" -o "$tmp/x" --format json
grep -q '\[usage.format\]' "$tmp/err" || bad "--format: rule"
expect 1 "an unknown option" "$emit" "$tmp/conv.map.pb" -o "$tmp/x" --frobnicate
expect 1 "-o twice" "$emit" "$tmp/conv.map.pb" -o "$tmp/x" -o "$tmp/y"
expect 1 "no input" "$emit" -o "$tmp/x"
expect 0 "--help" "$emit" --help
grep -q 'usage: taskir-emit' "$tmp/out" || bad "--help prints the usage"
expect 0 "--version" "$emit" --version

# 6. Runtime errors (exit 3): a missing input.
expect 3 "a missing input" "$emit" "$tmp/nosuch.map.pb" -o "$tmp/x"
[ ! -e "$tmp/x" ] && ok "nothing written" || bad "$tmp/x written"
exit $fail

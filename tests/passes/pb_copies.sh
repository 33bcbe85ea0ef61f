#!/bin/sh
# bench/pb_copies on LeNet cut by hand (docs/passes.md, "What the output bytes are"): a row
# band's copy of the weights shows as a "y" copy, the r slice that two row bands share and
# replicate copies as "copy:y", and the rows (data and messages) add up to the file.
#   pb_copies.sh TASKIR_OPT PB_COPIES LENET.pb
set -eu
opt=$1 copies=$2 lenet=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; cat "$tmp/out"; exit 1; }

# conv1 (4 x 1 x 5 x 5 weights, 100 values; its bias 4) cut into two row bands: one copy each
"$opt" "$lenet" -o "$tmp/y.pb" --passes split --split conv1:y=2 --no-fit
"$copies" "$tmp/y.pb" > "$tmp/out"
grep -Eq '^SW +y +1 +100 ' "$tmp/out" || fail "conv1's row band copy not found"
grep -Eq '^SB +y +1 +4 ' "$tmp/out" || fail "conv1's bias copy not found"
size=$(wc -c < "$tmp/y.pb")
sum=$(awk '$1 == "messages" { s += $4 } $1 != "type" && NF == 6 { s += $5 } END { print s }' "$tmp/out")
[ "$sum" = "$size" ] || fail "the rows sum to $sum bytes, the file has $size"

# conv2 (8 x 4 x 3 x 3, 288 values) cut into two row bands, each into two r pieces: the
# bands share each r slice (144 values), replicate copies both for the second band
"$opt" "$lenet" -o "$tmp/yr.pb" --passes split,fuse,replicate --split conv2:y=2,r=2 --no-fit
"$copies" "$tmp/yr.pb" --top 1 > "$tmp/out"
grep -Eq '^SW +copy:y +2 +288 ' "$tmp/out" || fail "the shared r slices' copies not found"
grep -Eq '^conv2 +3 ' "$tmp/out" || fail "the layer table does not name conv2"

# usage
if "$copies" > "$tmp/out" 2>&1; then fail "no argument accepted"; fi
echo "pb_copies: ok"

#!/bin/sh
# tests/exact/test_exact_cli.sh: chip exactness through the tools (docs/exactness.md) on
# overflow.txtpb, whose CVS multiplies INT_8 values by 2^30: `taskir-run --chip-exact`
# saturates where `taskir-run` wraps (3 -> 2^31 - 1 against -2^30, -3 -> -2^31 against 2^30,
# 1 -> 2^30 both); taskir-map exits 2 naming the block [map.exact.overflow] and writes no
# file; --chip-exact is refused for a model (usage, exit 1).
#
#   sh test_exact_cli.sh RUN MAP PYTHON OVERFLOW.pb MODEL.json
set -eu
run=$1 map=$2 py=$3 pb=$4 model=$5
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_exact_cli.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "FAIL: $*"
    exit 1
}
"$py" - "$tmp/x.npy" <<'PY'
import struct, sys
header = "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }"
header += " " * (128 - 10 - len(header) - 1) + "\n"
with open(sys.argv[1], "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    f.write(struct.pack("<3i", 3, -3, 1))
PY
"$run" "$pb" --input "0=$tmp/x.npy" -o "$tmp/graph" || fail "taskir-run"
"$run" "$pb" --input "0=$tmp/x.npy" -o "$tmp/chip" --chip-exact || fail "taskir-run --chip-exact"
"$py" - "$tmp/graph/output0.npy" "$tmp/chip/output0.npy" <<'PY' || fail "the values"
import struct, sys
def values(path):
    data = open(path, "rb").read()
    n = struct.unpack("<H", data[8:10])[0]
    return list(struct.unpack("<3i", data[10 + n:]))
g, c = values(sys.argv[1]), values(sys.argv[2])
print("graph", g, "chip", c)
assert g == [-2**30, 2**30, 2**30], g
assert c == [2**31 - 1, -2**31, 2**30], c
PY
echo "ok: --chip-exact saturates where the TaskGraph wraps"
rc=0
"$map" "$pb" -o "$tmp/m.map.pb" 2>"$tmp/err" || rc=$?
cat "$tmp/err"
[ "$rc" = 2 ] || fail "taskir-map exits $rc, not 2"
grep -q "block 3 (CVS 'big'): .*\[map.exact.overflow\]" "$tmp/err" || fail "no map.exact.overflow"
[ ! -e "$tmp/m.map.pb" ] || fail "a failed taskir-map wrote its output"
echo "ok: taskir-map refuses the overflow"
rc=0
"$run" "$model" --chip-exact --input "data=$tmp/x.npy" 2>"$tmp/err" >/dev/null || rc=$?
[ "$rc" = 1 ] && grep -q 'usage.args' "$tmp/err" || fail "--chip-exact on a model exits $rc"
echo "ok: --chip-exact is for TaskGraphs"

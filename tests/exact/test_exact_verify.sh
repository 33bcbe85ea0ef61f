#!/bin/sh
# tests/exact/test_exact_verify.sh: `taskir-dump --verify` of a Mapping checks the
# chip-exactness rules (docs/exactness.md, docs/rules.md map.exact.*) as taskir-map does: one
# Mapping per rule (bad_map.py: a graph whose only fault is the chip's arithmetic, every
# block on one core) exits 2 naming the rule and block; the same Mapping with a block the
# chip computes as the graph does verifies.
#
#   sh test_exact_verify.sh DUMP PROTOC PYTHON BAD_MAP.py PROTO_DIR
set -eu
dump=$1 protoc=$2 py=$3 gen=$4 proto=$5
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_exact_verify.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "FAIL: $*"
    exit 1
}
encode() { # RULE -> $tmp/RULE.map.pb
    "$py" "$gen" "$1" >"$tmp/$1.txtpb" || fail "bad_map.py $1"
    "$protoc" --encode=taskir.Mapping "--proto_path=$proto" mapping.proto \
        <"$tmp/$1.txtpb" >"$tmp/$1.map.pb" || fail "protoc $1"
}
for rule in map.exact.overflow map.exact.prec map.exact.shift32 map.exact.oddshift \
    map.exact.clip; do
    encode "$rule"
    rc=0
    "$dump" "$tmp/$rule.map.pb" --verify 2>"$tmp/err" || rc=$?
    cat "$tmp/err"
    [ "$rc" = 2 ] || fail "$rule: taskir-dump --verify exits $rc, not 2"
    grep -q "): .*\[$rule\]\$" "$tmp/err" || fail "no finding [$rule] naming a block"
    if [ "$rule" = map.exact.prec ]; then
        grep -q "block 2 (SI 'x/in')" "$tmp/err" || fail "$rule names another block"
    else
        grep -q "block 3 " "$tmp/err" || fail "$rule names another block"
    fi
    # the same findings in the JSON report
    rc=0
    "$dump" "$tmp/$rule.map.pb" --verify --format json >"$tmp/r.json" || rc=$?
    [ "$rc" = 2 ] || fail "$rule: --format json exits $rc"
    grep -q "\"rule\": \"$rule\"" "$tmp/r.json" || fail "$rule: not in the JSON findings"
done
encode ok
"$dump" "$tmp/ok.map.pb" --verify || fail "the chip-exact Mapping does not verify"
echo "ok: taskir-dump --verify checks every map.exact rule on a Mapping"

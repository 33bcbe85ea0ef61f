#!/bin/sh
# tests/asm/emit_refuse.sh: a TaskGraph written by hand (protobuf text) that taskir-emit must
# refuse: mapped by taskir-map, then taskir-emit exits 2 with a message ending in [RULE] that
# holds each WORD, and writes nothing (docs/backend.md, "Not yet").
#
#   sh emit_refuse.sh PROTOC PROTO_DIR TASKIR_MAP TASKIR_EMIT GRAPH.txtpb RULE [WORD...]
set -u
protoc=$1 protodir=$2 map=$3 emit=$4 graph=$5 rule=$6
shift 6
tmp=$(mktemp -d "${TMPDIR:-/tmp}/emit_refuse.XXXXXX") || exit 3
trap 'rm -rf "$tmp"' EXIT
bad() {
    echo "FAIL $*"
    exit 1
}
"$protoc" --encode=taskir.TaskGraph --proto_path="$protodir" taskgraph.proto \
    <"$graph" >"$tmp/g.pb" || bad "protoc cannot encode $graph"
"$map" "$tmp/g.pb" -o "$tmp/g.map.pb" --quiet || bad "taskir-map fails"
rc=0
"$emit" "$tmp/g.map.pb" -o "$tmp/prog" 2>"$tmp/err" || rc=$?
cat "$tmp/err"
[ "$rc" = 2 ] || bad "taskir-emit exits $rc, not 2"
grep -q "\[$rule\]\$" "$tmp/err" || bad "the refusal does not name [$rule]"
[ ! -e "$tmp/prog" ] || bad "the refusal left a program set"
for w in "$@"; do
    grep -qF -- "$w" "$tmp/err" || bad "the refusal does not say '$w'"
done
echo "ok   refused [$rule]"

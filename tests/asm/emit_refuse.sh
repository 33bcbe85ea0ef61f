#!/bin/sh
# tests/asm/emit_refuse.sh: what taskir-emit refuses, on variants of a TaskGraph written by
# hand: each SED expression turns GRAPH.txtpb into a graph that taskir-map maps and
# taskir-emit must refuse with exit 2, a message ending in [RULE] and no DIR left behind
# (docs/backend.md "Not yet"; the unchanged graph is run bit for bit by an emit_lay test).
#
#   sh emit_refuse.sh PROTOC PROTO_DIR MAP EMIT GRAPH.txtpb RULE SED...
set -u
protoc=$1 proto=$2 map=$3 emit=$4 graph=$5 rule=$6
shift 6
tmp=$(mktemp -d "${TMPDIR:-/tmp}/emit_refuse.XXXXXX") || exit 3
trap 'rm -rf "$tmp"' EXIT
fails=0
for expr in "$@"; do
    sed "$expr" "$graph" >"$tmp/g.txtpb"
    if cmp -s "$graph" "$tmp/g.txtpb"; then
        echo "FAIL '$expr' changes nothing"
        fails=$((fails + 1))
        continue
    fi
    "$protoc" --encode=taskir.TaskGraph --proto_path="$proto" taskgraph.proto \
        <"$tmp/g.txtpb" >"$tmp/g.pb" || exit 1
    "$map" "$tmp/g.pb" -o "$tmp/g.map.pb" --quiet || { echo "FAIL '$expr': taskir-map fails"; exit 1; }
    rc=0
    rm -rf "$tmp/prog"
    "$emit" "$tmp/g.map.pb" -o "$tmp/prog" 2>"$tmp/err" || rc=$?
    if [ "$rc" = 2 ] && grep -q "\[$rule\]\$" "$tmp/err" && [ ! -e "$tmp/prog" ]; then
        echo "ok   '$expr': $(cat "$tmp/err")"
    else
        echo "FAIL '$expr': taskir-emit exits $rc, not 2 with [$rule] and nothing written:"
        cat "$tmp/err"
        fails=$((fails + 1))
    fi
done
[ "$fails" = 0 ]

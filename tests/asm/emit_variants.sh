#!/bin/sh
# tests/asm/emit_variants.sh: variants of a TaskGraph written by hand that taskir-emit must
# refuse: each SED expression turns GRAPH.txtpb into a variant, which tests/asm/emit_refuse.sh
# maps and hands to taskir-emit, which must exit 2 naming [RULE] and write nothing (the
# unchanged graph is run bit for bit by an emit_lay test).
#
#   sh emit_variants.sh PROTOC PROTO_DIR TASKIR_MAP TASKIR_EMIT GRAPH.txtpb RULE SED...
set -u
protoc=$1 protodir=$2 map=$3 emit=$4 graph=$5 rule=$6
shift 6
here=$(dirname "$0")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/emit_variants.XXXXXX") || exit 3
trap 'rm -rf "$tmp"' EXIT
fails=0
for expr in "$@"; do
    sed "$expr" "$graph" >"$tmp/g.txtpb"
    echo "variant '$expr':"
    if cmp -s "$graph" "$tmp/g.txtpb"; then
        echo "FAIL the expression changes nothing"
        fails=$((fails + 1))
    elif ! sh "$here/emit_refuse.sh" "$protoc" "$protodir" "$map" "$emit" "$tmp/g.txtpb" \
        "$rule"; then
        fails=$((fails + 1))
    fi
done
[ "$fails" = 0 ]

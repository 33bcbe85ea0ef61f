#!/bin/sh
# tests/doc/test_wire_doc.sh: test_wire_doc.py passes on the source tree, and fails on a copy
# of docs/wire.md with a wrong field number, a wrong enum value or a missing row.
#
#   sh test_wire_doc.sh PYTHON TEST_WIRE_DOC.PY SRCDIR
set -u
py=$1
check=$2
src=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_wire_doc.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
"$py" "$check" "$src" || fails=$((fails + 1))
mkdir -p "$tmp/docs"
cp -r "$src/proto" "$tmp/proto"
# bad SED_SCRIPT PATTERN: docs/wire.md edited by SED_SCRIPT must fail, printing PATTERN.
bad() {
    sed "$1" "$src/docs/wire.md" >"$tmp/docs/wire.md"
    if cmp -s "$src/docs/wire.md" "$tmp/docs/wire.md"; then
        echo "FAIL: '$1' changed nothing in docs/wire.md"
        fails=$((fails + 1))
        return
    fi
    "$py" "$check" "$tmp" >"$tmp/out" 2>&1
    if [ $? -ne 1 ] || ! grep -qF -- "$2" "$tmp/out"; then
        echo "FAIL: '$1' was not reported as '$2':"
        cat "$tmp/out"
        fails=$((fails + 1))
    else
        echo "ok: '$1' reported"
    fi
}
bad 's/| 4 | `test_config` |/| 5 | `test_config` |/' "('TaskGraph', 5, 'test_config', 'TestConfig') is not in"
bad 's/INPUT 50,/INPUT 52,/' "('TaskBlockType', 'INPUT', 52) is not in"
bad '/`socket_id`/d' "('TaskBlock', 13, 'socket_id', 'int32') of proto/*.proto is missing"
[ "$fails" -eq 0 ]

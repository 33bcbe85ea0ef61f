#!/bin/sh
# tests/doc/test_doctest.sh: the doc-test runner on fixture documents (tests/doc/fixtures):
# ok.md passes (every kind of block and directive), each fail_*.md fails with its message.
#
#   sh test_doctest.sh PYTHON DOCTEST.PY FIXTURES BUILD_DIR
set -u
py=$1
runner=$2
fx=$3
build=$4
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_doctest.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
# expect DOC STATUS PATTERN...: the runner on DOC exits STATUS and prints every PATTERN.
expect() {
    doc=$1
    want=$2
    shift 2
    "$py" "$runner" --srcdir "$fx" --builddir "$build" "$doc" >"$tmp/out" 2>&1
    rc=$?
    if [ "$rc" -ne "$want" ]; then
        echo "FAIL: $doc: exit $rc, expected $want"
        cat "$tmp/out"
        fails=$((fails + 1))
        return
    fi
    for pat in "$@"; do
        if ! grep -qF -- "$pat" "$tmp/out"; then
            echo "FAIL: $doc: no '$pat' in the output:"
            cat "$tmp/out"
            fails=$((fails + 1))
        fi
    done
    echo "ok: $doc"
}
expect ok.md 0 'ok   ok.md:11: sh block' 'ok   ok.md:19: sh block (exit 2, as documented)' \
    'skip ok.md:38: sh block: the condition `false` fails' \
    'skip ok.md:43: sh block: shows a command that must not run' \
    'ok   ok.md:29: python block' 'ok   ok.md:33: sh block' \
    'ok   ok.md:48: json block' 'ok   ok.md:52: xml block' 'ok   ok.md:60: c block'
expect fail_cmd.md 1 'FAIL fail_cmd.md:3: sh block: exit 1, expected 0'
expect fail_exit.md 1 'FAIL fail_exit.md:2: sh block: exit 0, expected 2'
expect fail_lang.md 1 "a 'bash' block"
expect fail_directive.md 1 "fail_directive.md:1: unknown directive 'doctest: sikp'" \
    "fail_directive.md:6: 'doctest: skip' needs a reason" \
    'fail_directive.md:11: a doctest directive not followed by a code block'
expect fail_c.md 1 'FAIL fail_c.md:1: c block' 'undeclared (first use' \
    'FAIL fail_c.md:5: xml block' '[cinn.precision]'
expect missing.md 1 'FAIL missing.md: no such document'
[ "$fails" -eq 0 ] || exit 1

#!/bin/sh
# tests/doc/test_doctest.sh: the doc-test runner on fixture documents (tests/doc/fixtures):
# ok.md passes (every kind of block and directive), each fail_*.md fails with its message
# (fail_link.md: Markdown links that leave the repository or name nothing; fail_sources.md:
# `seeds/` or `shared/` named outside the Sources section, the optional interop data aside);
# --list and --check-list find the documents.
#
#   sh test_doctest.sh PYTHON DOCTEST.PY FIXTURES BUILD_DIR [RUNNER_OPTION ...]
#
# RUNNER_OPTIONs (--cc, --cflag=...) are passed on to every run on a fixture.
set -u
py=$1
runner=$2
fx=$3
build=$4
shift 4
opts=$*
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_doctest.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
# expect DOC STATUS PATTERN...: the runner on DOC exits STATUS and prints every PATTERN.
expect() {
    doc=$1
    want=$2
    shift 2
    # shellcheck disable=SC2086
    "$py" "$runner" --srcdir "$fx" --builddir "$build" $opts "$doc" >"$tmp/out" 2>&1
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
expect fail_link.md 1 "FAIL fail_link.md:4: the link '../../shared/DESIGN.md' leaves the repository" \
    "FAIL fail_link.md:4: the link 'nowhere.md' names nothing"
expect fail_sources.md 1 "FAIL fail_sources.md:3: 'seeds/002' names a document outside" \
    "FAIL fail_sources.md:3: '../../shared/DESIGN.md' names a document outside" \
    "FAIL fail_sources.md:7: 'shared/CHIP.md' names" "FAIL fail_sources.md:20: 'seeds/000' names" \
    "FAIL fail_sources.md:20: 'TASKIR-WIRE.md' names"
if grep -qE "fail_sources.md:(4|12|16):|seeds/x" "$tmp/out"; then
    echo "FAIL: fail_sources.md: the interop data or the Sources section was refused:"
    cat "$tmp/out"
    fails=$((fails + 1))
fi
# --list finds every document under the conventions' places; --check-list names a new one
mkdir -p "$tmp/src/docs/sub" "$tmp/src/examples" "$tmp/src/tests"
touch "$tmp/src/README.md" "$tmp/src/docs/a.md" "$tmp/src/docs/sub/b.md" \
    "$tmp/src/examples/README.md" "$tmp/src/tests/not-a-doc.md"
got=$("$py" "$runner" --srcdir "$tmp/src" --list | tr '\n' ' ')
if [ "$got" != "README.md docs/a.md docs/sub/b.md examples/README.md " ]; then
    echo "FAIL: --list gave '$got'"
    fails=$((fails + 1))
fi
"$py" "$runner" --srcdir "$tmp/src" --check-list README.md docs/a.md examples/README.md \
    >"$tmp/out" 2>&1
if [ $? -ne 1 ] || ! grep -qF "new: ['docs/sub/b.md']" "$tmp/out"; then
    echo "FAIL: --check-list did not report the new document:"
    cat "$tmp/out"
    fails=$((fails + 1))
fi
[ "$fails" -eq 0 ] || exit 1

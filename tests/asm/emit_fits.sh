#!/bin/sh
# tests/asm/emit_fits.sh: named graphs of a diff test (tests/diff/difftest.c writes each
# lowered graph with DIFF_SAVE=DIR, in its DIFF_QUICK size) that taskir-map maps and that
# taskir-emit must not refuse naming RULE: each may run or stop at a later rule
# (docs/backend.md "Not yet"), but a refusal [RULE] fails, as does a graph the test does
# not write or taskir-map refuses. For a rule the graphs got past, before they run through
# the whole chain (chain_exact.txt). For emit.alloc, a refusal of one area larger than the
# banks it may use on its own ("needs N words ... against the K words", N > K: a copy over
# the receive area, another fix's) is not one of the words live in a phase and passes.
# RULE:TEXT fails only a refusal naming RULE whose message holds TEXT (one way of refusing
# under a rule that names several: emit.route:no receive base). With STRICT=1 in the
# environment an area over its banks alone fails too.
#
#   sh emit_fits.sh DIFFTEST MAP EMIT RULE[:TEXT] GRAPH...
set -u
difftest=$1 map=$2 emit=$3 rule=${4%%:*} text=
case $4 in *:*) text=${4#*:} ;; esac
shift 4
tmp=$(mktemp -d "${TMPDIR:-/tmp}/emit_fits.XXXXXX") || exit 3
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/g"
DIFF_SAVE=$tmp/g DIFF_QUICK=1 "$difftest" >"$tmp/difftest.log" 2>&1 || {
    tail -n 20 "$tmp/difftest.log"
    echo "FAIL: $difftest fails"
    exit 1
}
failed=0
for name in "$@"; do
    g=$tmp/g/$name.pb
    if [ ! -f "$g" ]; then
        echo "FAIL: $name: $(basename "$difftest") wrote no such graph"
        failed=1
        continue
    fi
    if ! "$map" "$g" -o "$tmp/m.map.pb" --quiet 2>"$tmp/err"; then
        cat "$tmp/err"
        echo "FAIL: $name: taskir-map refuses it"
        failed=1
        continue
    fi
    rm -rf "$tmp/prog"
    rc=0
    "$emit" "$tmp/m.map.pb" -o "$tmp/prog" 2>"$tmp/err" || rc=$?
    alone=$(sed -n 's/.* needs \([0-9]*\) words .* against the \([0-9]*\) words .*/\1 \2/p' \
        "$tmp/err" | head -1)
    if [ "$rule" = emit.alloc ] && [ -z "${STRICT:-}" ] && [ -n "$alone" ] &&
        [ "${alone% *}" -gt "${alone#* }" ]; then
        echo "ok: $name: one area over its banks alone (${alone% *} words of ${alone#* })"
    elif grep -q "\[$rule\]\$" "$tmp/err" && grep -qF -- "$text" "$tmp/err"; then
        cat "$tmp/err"
        echo "FAIL: $name: taskir-emit refuses it naming [$rule]${text:+ ($text)}"
        failed=1
    elif [ "$rc" = 0 ]; then
        echo "ok: $name: written"
    else
        echo "ok: $name: not [$rule]${text:+ ($text)}: $(sed -n 's/.*\(\[[a-z.]*\]\)$/\1/p' "$tmp/err" | head -1)"
    fi
done
exit $failed

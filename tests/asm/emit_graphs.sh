#!/bin/sh
# tests/asm/emit_graphs.sh: every graph a diff test checks (tests/diff/difftest.c writes each
# lowered graph with DIFF_SAVE=DIR) through the whole chain, each as emit_example.sh runs one
# model: taskir-map, taskir-emit, `taskir-run DIR` against taskir-run on the Mapping, on
# bench/pb_inputs' sample and a batch of 3. A graph LIST names (as TEST/GRAPH, GRAPH the file
# name without .pb) must run bit for bit; the others may be refused with their rule. Prints
# one line a graph, then the count of each outcome. Fails when any graph fails. The diff test
# runs with DIFF_QUICK=1 (its smaller grids) unless DIFF_QUICK is set; EVERY=N takes every
# N-th graph only (in file name order: the first, the N+1-th, ...); ONLY=REGEX only the
# graphs whose name (GRAPH) it matches (grep -E), each of which LIST must name.
#
#   sh emit_graphs.sh DIFFTEST LIST MAP EMIT RUN COMPILE PB_INPUTS
set -u
difftest=$1 list=$2
shift 2
here=$(dirname "$0")
test=$(basename "$difftest")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/emit_graphs.XXXXXX") || exit 3
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/g"
DIFF_SAVE=$tmp/g DIFF_QUICK=${DIFF_QUICK:-1} "$difftest" >"$tmp/difftest.log" 2>&1 || {
    tail -n 20 "$tmp/difftest.log"
    echo "FAIL: $test fails"
    exit 1
}
n=0 failed=0 i=0
every=${EVERY:-1}
: >"$tmp/outcomes"
for g in "$tmp"/g/*.pb; do
    [ -f "$g" ] || continue
    i=$((i + 1))
    [ $(((i - 1) % every)) -eq 0 ] || continue
    if [ -n "${ONLY:-}" ]; then
        basename "$g" .pb | grep -Eq "$ONLY" || continue
        grep -qx "$test/$(basename "$g" .pb)" "$list" || {
            echo "FAIL: $test/$(basename "$g" .pb) matches ONLY but is not in $list"
            failed=$((failed + 1))
        }
    fi
    n=$((n + 1))
    name=$test/$(basename "$g" .pb)
    if sh "$here/emit_example.sh" "$list" "$name" "$@" "$g" - >"$tmp/one" 2>&1; then
        line=$(grep '^ok: ' "$tmp/one" | tail -n 1)
        echo "$line"
        case $line in
        *'not in '*) echo "bit for bit, not in the list yet" ;;
        *'byte for byte'*) echo "bit for bit" ;;
        *) echo "$line" | sed 's/^ok: [^:]*: //' ;;
        esac >>"$tmp/outcomes"
    else
        cat "$tmp/one"
        failed=$((failed + 1))
    fi
done
[ "$n" -gt 0 ] || { echo "FAIL: $test wrote no graph (DIFF_SAVE)"; exit 1; }
echo "$test: $n graphs, $failed failed:"
sort "$tmp/outcomes" | uniq -c | sort -rn
[ "$failed" -eq 0 ] || exit 1
echo "ok"

#!/bin/sh
# tests/asm/emit_example.sh: one model or graph through the whole chain (docs/backend.md,
# "Trying it"): compiled when it is a model, mapped by taskir-map on the default chip, its
# programs written by taskir-emit, and run: `taskir-run DIR` must give `taskir-run MAP.pb`'s
# outputs byte for byte, on one sample (the example's input, else bench/pb_inputs' random
# one) and on a batch of 3 samples (tests/asm/npy_batch.py on pb_inputs' inputs).
#
# LIST (tests/asm/chain_exact.txt) names what must run bit for bit: for a listed NAME any
# refusal fails. For the others a refusal is reported with its rule, not failed: taskir-map
# exiting 2 (the chip cannot run the graph), taskir-emit exiting 2 naming an emit.* rule and
# writing nothing (what the code generator does not write yet, docs/backend.md "Not yet").
# A graph run on bench/pb_inputs' random values that taskir-run refuses on the graph itself
# (exit 2: a table index out of range, say) is reported likewise. Any other exit status, a
# refusal without its rule, a program set the executor refuses, or outputs that differ fail
# every NAME.
#
# CHAIN_NOT="RULE..." fails a refusal by taskir-emit naming one of the RULEs even for a NAME
# not in LIST (the examples: none is refused for want of a Soma slot, emit.slot, nor for a
# pitch a primitive cannot write, emit.layout).
#
# CHAIN_CHIP=CHIP.xml maps and emits for that chip description instead of the default;
# CHAIN_STAGES=S then checks that the Mapping is a pipeline of S stages (phase groups), which
# the programs run in S steps (step_exe_number; docs/backend.md, "Stages"). CHAIN_BATCH=0
# runs one sample only (ResNet-50: a batch would triple minutes of the executor's time).
#
#   sh emit_example.sh LIST NAME MAP EMIT RUN COMPILE PB_INPUTS MODEL INPUT|- [COMPILE-ARGS...]
set -u
list=$1 name=$2 map=$3 emit=$4 run=$5 compile=$6 pb_inputs=$7 model=$8 input=$9
shift 9
here=$(dirname "$0")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/emit_example.XXXXXX") || exit 3
trap 'rm -rf "$tmp"' EXIT
bad() {
    echo "FAIL: $name: $*"
    exit 1
}
exact=false
grep -qx "$name" "$list" && exact=true
# refused RULE WHAT: a refusal, fine only for a name not in LIST
refused() {
    $exact && bad "$2 [$1], but $list lists it as running bit for bit"
    echo "ok: $name: $2 [$1]"
    exit 0
}
case $model in
*.pb) cp "$model" "$tmp/g.pb" ;;
*) "$compile" "$model" "$@" -o "$tmp/g.pb" || bad "$model does not compile" ;;
esac
chip=
[ -n "${CHAIN_CHIP:-}" ] && chip="--chip $CHAIN_CHIP"
rc=0
# shellcheck disable=SC2086 # $chip is empty or two words
"$map" "$tmp/g.pb" -o "$tmp/g.map.pb" --quiet $chip 2>"$tmp/err" || rc=$?
if [ "$rc" = 2 ]; then
    cat "$tmp/err"
    refused "$(sed -n 's/.*\[\(.*\)\]$/\1/p' "$tmp/err" | head -1)" "the chip cannot run it"
fi
[ "$rc" = 0 ] || { cat "$tmp/err"; bad "taskir-map exits $rc"; }
rc=0
# shellcheck disable=SC2086
"$emit" "$tmp/g.map.pb" -o "$tmp/prog" $chip 2>"$tmp/err" || rc=$?
cat "$tmp/err"
case $rc in
0) ;;
2)
    grep -q '\[emit\.[a-z.]*\]$' "$tmp/err" || bad "taskir-emit exits 2 without an emit.* rule"
    for not in ${CHAIN_NOT:-}; do
        if grep -qF "[$not]" "$tmp/err"; then
            bad "taskir-emit refuses it naming [$not], which CHAIN_NOT forbids"
        fi
    done
    [ ! -e "$tmp/prog" ] || bad "a refused Mapping left $tmp/prog"
    refused "$(sed -n 's/.*\[\(emit\.[a-z.]*\)\]$/\1/p' "$tmp/err" | head -1)" "not written yet"
    ;;
*) bad "taskir-emit exits $rc" ;;
esac
[ -f "$tmp/prog/program.pb" ] || bad "no program.pb"
if [ -n "${CHAIN_STAGES:-}" ]; then
    # shellcheck disable=SC2086
    "$emit" "$tmp/g.map.pb" -o "$tmp/text" --format text $chip || bad "--format text fails"
    steps=$(sed -n 's/^ *step_exe_number: //p' "$tmp/text/program.txt" | sort -u)
    [ "$steps" = "$CHAIN_STAGES" ] ||
        bad "the programs run ${steps:-1} steps, not the $CHAIN_STAGES stages expected"
fi

# the inputs: pb_inputs' random samples (natural shapes), and the example's own input
mkdir "$tmp/in"
: >"$tmp/in.list"
if [ "$input" = - ] || [ "${CHAIN_BATCH:-1}" != 0 ]; then
    "$pb_inputs" "$tmp/g.pb" "$tmp/in" >"$tmp/in.list" || bad "bench/pb_inputs fails on the graph"
fi
if [ "$input" = - ]; then
    cp "$tmp/in.list" "$tmp/one.list"
else
    echo "0=$input" >"$tmp/one.list"
fi
: >"$tmp/batch.list"
while IFS='=' read -r sock path; do
    python3 "$here/npy_batch.py" 3 "$path" "$path.batch.npy" || bad "cannot make a batch of $path"
    echo "$sock=$path.batch.npy" >>"$tmp/batch.list"
done <"$tmp/in.list"

# compare LISTFILE WHAT: taskir-run on the Mapping and on the program set, the same files
compare() {
    _list=$1 _what=$2
    set --
    while IFS= read -r arg; do
        set -- "$@" --input "$arg"
    done <"$_list"
    rm -rf "$tmp/o1" "$tmp/o2"
    _rc=0
    "$run" "$tmp/g.map.pb" "$@" -o "$tmp/o1" >/dev/null 2>"$tmp/err" || _rc=$?
    if [ "$_rc" = 2 ] && [ "$input" = - ]; then # a graph whose values the random input breaks
        cat "$tmp/err"
        refused "$(sed -n 's/.*\[\(.*\)\]$/\1/p' "$tmp/err" | head -1)" \
            "taskir-run refuses bench/pb_inputs' random input on the graph"
    fi
    [ "$_rc" = 0 ] || { cat "$tmp/err"; bad "the Mapping does not run ($_what)"; }
    "$run" "$tmp/prog" "$@" -o "$tmp/o2" >/dev/null 2>"$tmp/err" ||
        { cat "$tmp/err"; bad "the executor refuses the programs ($_what)"; }
    diff -r "$tmp/o1" "$tmp/o2" || bad "the programs run to other outputs than the graph ($_what)"
}
compare "$tmp/one.list" "one sample"
runs="one sample"
if [ "${CHAIN_BATCH:-1}" != 0 ]; then
    compare "$tmp/batch.list" "a batch of 3"
    runs="one sample, a batch"
fi
if $exact; then
    echo "ok: $name: the programs give the graph's outputs byte for byte ($runs)"
else
    echo "ok: $name: the programs give the graph's outputs byte for byte ($runs);" \
         "not in $list yet: add it there"
fi

#!/bin/sh
# bench/test_run.sh: the `cli` test bench_run, a quick check that bench/run works, never the
# benchmark itself (the ResNet-50-scale models are not touched).
#
#   sh bench/test_run.sh BENCH_RUN BUILD_DIR
#
# 1. `bench/run --no-build --only small` (REPS=1) on the build dir, as text and as Markdown:
#    exit 0; the table has its 26 columns under the expected names; one row per shipped
#    example (the five CVM models, qnet and shiftnet, cinn_cnn, lenet.pb, tianjic_style.pb);
#    every row has MACs, a .pb size, a time and RSS for taskir-dump and taskir-opt, the
#    blocks and groups before -> after taskir-opt (groups after >= 1), a load time, a time,
#    RSS and GMAC/s for taskir-run, no threaded run ("-": only the big models have one), and
#    a compile time exactly when it is not a bare TaskGraph, and a taskir-map time (every
#    example maps); taskir-emit and `taskir-run DIR` timed, refused ("no") or not run ("-"),
#    and at least one row (mlp) whose program set runs, with a time, RSS and GMAC/s.
#    Without CVM_RUNTIME, the cvm-runtime comparison says it was skipped.
# 2. On a fake build dir whose taskir-compile fails: exit 1, the table shows FAIL and stderr
#    names the model and the tool.
#    RT_PRIO not a priority 1..99: exit 2 before anything runs; RT_PRIO=10 (where `chrt -f
#    10` is permitted) on the fake build dir: its (failing) taskir-compile ran under
#    SCHED_FIFO 10 and the title line says so.
# 3. CVM_RUNTIME naming no file: exit 2 before anything runs. bench/cvm_compare on lenet:
#    the interpreter and the simulator on the compiled .pb give the same output; a
#    --runtime that is not cvm-runtime's library is a runtime error (exit 3) naming it.
set -eu
bench=$1
build=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_run.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
bad() {
    echo "FAIL: $*"
    exit 1
}

# ---- 1. the small examples ----
rc=0
BUILD=$build REPS=1 CVM_RUNTIME='' sh "$bench" --no-build --only small >"$tmp/text" 2>"$tmp/err" || rc=$?
[ "$rc" -eq 0 ] || { cat "$tmp/err"; bad "bench/run --only small exited $rc"; }
rc=0
BUILD=$build REPS=1 sh "$bench" --no-build --only small --markdown >"$tmp/md" 2>"$tmp/err" || rc=$?
[ "$rc" -eq 0 ] || { cat "$tmp/err"; bad "bench/run --only small --markdown exited $rc"; }
cat "$tmp/md"

head -n 1 "$tmp/text" | grep -q '^taskir benchmark (bench/run): ' || bad "no title line"
want='model from MACs .pb compile s compile MiB dump s dump MiB opt s opt MiB blocks groups load s run s run MiB run GMAC/s par run s par speedup map s emit s emit MiB prog prog run s prog run MiB prog GMAC/s opt cpu s'
got=$(sed -n 2p "$tmp/text" | tr -s ' ')
[ "$got" = "$want" ] || bad "text header is '$got', not '$want'"
got=$(grep '^| model' "$tmp/md" | sed 's/ *| */|/g; s/^|//; s/|$//' | tr '|' ' ')
[ "$got" = "$want" ] || bad "Markdown header is '$got', not '$want'"
grep -q '^|---|---|---:|' "$tmp/md" || bad "no Markdown separator line"

# model kind: the rows there must be (others may be added)
for m in 'lenet cvm' 'resnet_block cvm' 'mobilenet_block cvm' 'yolo_head cvm' 'mlp cvm' \
    'qnet onnx' 'shiftnet onnx' 'cinn_cnn cinn' 'lenet.pb pb' 'tianjic_style.pb pb'; do
    name=${m% *}
    kind=${m#* }
    line=$(grep "^| $name | " "$tmp/md") || bad "no row for $name"
    grep -q "^$name  *$kind " "$tmp/text" || bad "no text row for $name ($kind)"
    echo "$line" | awk -F '|' -v kind="$kind" -v name="$name" '
        function fail(what) { print "FAIL: row " name ": " what; bad = 1; exit 1 }
        function strip(s) { gsub(/^ +| +$/, "", s); return s }
        {
            if (NF != 28) fail(NF - 2 " cells, not 26")
            for (i = 2; i <= 27; i++) c[i - 1] = strip($i)
            if (c[2] != kind) fail("kind " c[2])
            if (c[3] !~ /^[0-9.]+( [kMG])?$/) fail("MACs " c[3])
            if (c[4] !~ /^[0-9.]+ [kMG]?B$/) fail(".pb size " c[4])
            if (kind == "pb" && (c[5] != "-" || c[6] != "-")) fail("a compile time for a .pb")
            if (kind != "pb" && (c[5] !~ /^[0-9]+\.[0-9]+$/ || c[6] !~ /^[0-9]+\.[0-9]$/))
                fail("compile " c[5] " s " c[6] " MiB")
            for (i = 7; i <= 15; i++)
                if (i != 11 && i != 12 && c[i] !~ /^[0-9]+\.[0-9]+$/) fail("column " i ": " c[i])
            if (c[11] !~ /^[0-9]+->[0-9]+$/) fail("blocks " c[11])
            if (c[12] !~ /^[0-9]+->[1-9][0-9]*$/) fail("groups " c[12])
            if (c[16] !~ /^[0-9]+\.[0-9]+$/) fail("GMAC/s " c[16])
            if (c[17] != "-" || c[18] != "-") fail("a threaded run of a small model")
            if (c[19] !~ /^[0-9]+\.[0-9]+$/) fail("map s " c[19])
            # taskir-emit: timed, "no" (it refuses what it does not write yet), or "-" (no
            # Mapping)
            if (!(c[20] ~ /^[0-9]+\.[0-9]+$/ && c[21] ~ /^[0-9]+\.[0-9]$/ && c[22] ~ /^[0-9.]+ [kMG]?B$/) &&
                !(c[20] == "no" && c[21] == "no" && c[22] == "no") &&
                !(c[19] == "no" && c[20] == "-" && c[21] == "-" && c[22] == "-"))
                fail("emit " c[20] " s " c[21] " MiB " c[22])
            # taskir-run DIR: timed when taskir-emit wrote the set, else as taskir-emit
            if (c[20] ~ /^[0-9]+\.[0-9]+$/) {
                if (c[23] !~ /^[0-9]+\.[0-9]+$/ || c[24] !~ /^[0-9]+\.[0-9]$/ ||
                    c[25] !~ /^[0-9]+\.[0-9]+$/)
                    fail("prog run " c[23] " s " c[24] " MiB " c[25] " GMAC/s")
            } else if (c[23] != c[20] || c[24] != c[20] || c[25] != c[20])
                fail("prog run " c[23] " " c[24] " " c[25] " after emit " c[20])
            # taskir-opt CPU time (user + system)
            if (c[26] !~ /^[0-9]+\.[0-9]+$/) fail("opt cpu s " c[26])
        }' || exit 1
done
grep "^| mlp | " "$tmp/md" | awk -F '|' '{ gsub(/ /, "", $24); exit $24 ~ /^[0-9]+\.[0-9]+$/ ? 0 : 1 }' ||
    bad "mlp's program set does not run (prog run s)"
rows=$(grep -c '^| ' "$tmp/md")
[ "$rows" -ge 11 ] || bad "$rows table lines, want at least 10 rows and the header"
grep -q '^resnet50' "$tmp/text" && bad "a benchmark model in --only small"
grep -q '^growth' "$tmp/text" && bad "a growth section with --only small"
grep -q '^cvm-runtime comparison: skipped (CVM_RUNTIME is not set' "$tmp/text" ||
    bad "no line saying the cvm-runtime comparison was skipped"
grep -q '^cvm-runtime comparison: skipped' "$tmp/md" || bad "no skipped line in Markdown"

# ---- 2. a tool that fails ----
fake=$tmp/build
mkdir -p "$fake/tools" "$fake/examples/cvm" "$fake/bench"
: >"$fake/build.ninja"
printf '#!/bin/sh\necho "taskir-compile: broken on purpose" >&2\nexit 2\n' >"$fake/tools/taskir-compile"
printf '#!/bin/sh\nexit 0\n' >"$fake/tools/taskir-dump"
printf '#!/bin/sh\nexit 0\n' >"$fake/tools/taskir-run"
printf '#!/bin/sh\nexit 0\n' >"$fake/tools/taskir-opt"
printf '#!/bin/sh\nexit 0\n' >"$fake/tools/taskir-map"
printf '#!/bin/sh\nexit 0\n' >"$fake/tools/taskir-emit"
printf '#!/bin/sh\nexit 0\n' >"$fake/bench/pb_inputs"
cp "$build/bench/proc_time" "$fake/bench/proc_time"
printf '#!/bin/sh\necho lenet\necho "resnet50 (benchmark)"\n' >"$fake/examples/gen_cvm"
chmod +x "$fake/tools/"* "$fake/bench/pb_inputs" "$fake/examples/gen_cvm"
rc=0
BUILD=$fake REPS=1 CVM_RUNTIME= sh "$bench" --no-build --only small >"$tmp/out" 2>"$tmp/err" || rc=$?
cat "$tmp/out" "$tmp/err"
[ "$rc" -eq 1 ] || bad "a failing taskir-compile gave exit $rc, not 1"
grep -q '^bench/run: lenet: taskir-compile failed (exit 2)' "$tmp/err" ||
    bad "stderr does not name lenet and taskir-compile"
grep -q 'broken on purpose' "$tmp/err" || bad "the tool's message is not shown"
grep -q '^lenet  *cvm  *-  *-  *FAIL  *FAIL  *-' "$tmp/out" || bad "the row does not show FAIL"
grep -q '^resnet50' "$tmp/out" && bad "a benchmark model in --only small"
for v in 0 100 x 07; do
    rc=0
    BUILD=$fake RT_PRIO=$v sh "$bench" --no-build --only small >"$tmp/out" 2>"$tmp/err" || rc=$?
    [ "$rc" -eq 2 ] && grep -q "RT_PRIO must be a priority" "$tmp/err" || bad "RT_PRIO=$v: exit $rc"
    [ -s "$tmp/out" ] && bad "bench/run ran with RT_PRIO=$v"
done
if chrt -f 10 true 2>/dev/null; then
    printf '#!/bin/sh\nchrt -p $$ >>"%s"\nexit 2\n' "$tmp/policy" >"$fake/tools/taskir-compile"
    rc=0
    BUILD=$fake REPS=1 RT_PRIO=10 CVM_RUNTIME= sh "$bench" --no-build --only small >"$tmp/out" \
        2>"$tmp/err" || rc=$?
    [ "$rc" -eq 1 ] || bad "RT_PRIO=10 on the fake build dir gave exit $rc, not 1"
    grep -q 'every timed process under SCHED_FIFO priority 10 (RT_PRIO)' "$tmp/out" ||
        bad "the title line does not name RT_PRIO"
    grep -q 'policy: SCHED_FIFO' "$tmp/policy" && ! grep -q 'SCHED_OTHER' "$tmp/policy" ||
        bad "RT_PRIO=10: taskir-compile ran as $(cat "$tmp/policy")"
fi

# ---- 3. CVM_RUNTIME and bench/cvm_compare ----
rc=0
BUILD=$build CVM_RUNTIME=$tmp/none.so sh "$bench" --no-build --only small >"$tmp/out" 2>"$tmp/err" ||
    rc=$?
cat "$tmp/err"
[ "$rc" -eq 2 ] || bad "CVM_RUNTIME naming no file gave exit $rc, not 2"
grep -q "CVM_RUNTIME=$tmp/none.so is not a file" "$tmp/err" || bad "no message about CVM_RUNTIME"
[ -s "$tmp/out" ] && bad "bench/run ran with a CVM_RUNTIME that names no file"
cvm=$build/examples/cvm
"$build/tools/taskir-compile" "$cvm/lenet.json" --params "$cvm/lenet.params" -o "$tmp/lenet.pb" ||
    bad "taskir-compile lenet"
"$build/bench/cvm_compare" -n 2 --graph "$tmp/lenet.pb" "$cvm/lenet.json" "$cvm/lenet.params" \
    "$cvm/lenet.input.npy" >"$tmp/cmp" || bad "bench/cvm_compare on lenet failed"
cat "$tmp/cmp"
grep -Eq '^interpreter [0-9]+\.[0-9]{6} [0-9]+\.[0-9]{6} [0-9]+\.[0-9]{6} reference$' "$tmp/cmp" ||
    bad "no interpreter line"
grep -Eq '^simulator [0-9]+\.[0-9]{6} [0-9]+\.[0-9]{6} [0-9]+\.[0-9]{6} same$' "$tmp/cmp" ||
    bad "the simulator's output is not the interpreter's"
printf 'not a library\n' >"$tmp/fake.so"
rc=0
"$build/bench/cvm_compare" --runtime "$tmp/fake.so" "$cvm/lenet.json" "$cvm/lenet.params" \
    "$cvm/lenet.input.npy" >"$tmp/cmp" 2>"$tmp/err" || rc=$?
cat "$tmp/err"
[ "$rc" -eq 3 ] || bad "a --runtime that is no library gave exit $rc, not 3"
grep -q "fake.so.*\[bench.runtime\]" "$tmp/err" || bad "the message does not name the library"
echo "ok"

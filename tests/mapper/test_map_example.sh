#!/bin/sh
# tests/mapper/test_map_example.sh: one example through the mapper with the default chip
# (docs/mapper.md): compiled when it is a model, mapped with a report and a picture, the
# Mapping verified (taskir-dump --verify), mapped again with the same seed to the same bytes,
# every relayed send inside the life of the relaying core's copy, and run: `taskir-run
# OUT.map.pb` gives the unmapped graph's outputs bit for bit, with the TaskGraph's arithmetic
# and with the chip's (--chip-exact). With
# MAXCORES, the report must show at most that many cores. With MAP_ONCE set in the
# environment it maps once (no second run for the determinism check). The report's traffic
# must be no more than its unicast figure and than plain Scotch's (both routed alike), and
# with MAX_TRAFFIC=R in the environment at most R x plain Scotch's. With MAX_STAGES=S, the
# report must show at most S phase groups (stages).
#
#   sh test_map_example.sh MAP DUMP RUN COMPILE PYTHON MODEL INPUT|- MAXCORES|- [COMPILE-ARGS...]
# MODEL is a TaskGraph .pb (mapped as it is) or a model taskir-compile reads; INPUT is the
# input .npy of socket 0 ('-': map and verify only). MAXCORES 'fail:RULE': the chip cannot
# run the model: taskir-map must exit 2 naming RULE and write no file.
set -eu
map=$1 dump=$2 run=$3 compile=$4 py=$5 model=$6 input=$7 maxcores=$8
shift 8
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_map_example.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
bad() {
    echo "FAIL: $*"
    exit 1
}
case $model in
*.pb) cp "$model" "$tmp/g.pb" ;;
*) "$compile" "$model" "$@" -o "$tmp/g.pb" || bad "$model does not compile" ;;
esac
case $maxcores in
fail:*)
    rc=0
    "$map" "$tmp/g.pb" -o "$tmp/g.map.pb" --report "$tmp/r.json" 2>"$tmp/err" || rc=$?
    cat "$tmp/err"
    [ "$rc" = 2 ] || bad "taskir-map exits $rc, not 2"
    grep -q "\[${maxcores#fail:}\]" "$tmp/err" || bad "no finding [${maxcores#fail:}]"
    [ ! -e "$tmp/g.map.pb" ] && [ ! -e "$tmp/r.json" ] || bad "a failed run left a file"
    echo "ok: $model cannot be mapped [${maxcores#fail:}]"
    exit 0
    ;;
esac
"$map" "$tmp/g.pb" -o "$tmp/g.map.pb" --report "$tmp/r.json" --svg "$tmp/c.svg" ||
    bad "$model does not map"
"$dump" "$tmp/g.map.pb" --verify || bad "the mapping of $model does not verify"
if [ -z "${MAP_ONCE:-}" ]; then # MAP_ONCE set: a big model, mapped once
    "$map" "$tmp/g.pb" -o "$tmp/again.map.pb" --report "$tmp/again.json" ||
        bad "$model does not map a second time"
    cmp "$tmp/g.map.pb" "$tmp/again.map.pb" || bad "the same seed gives another mapping"
    cmp "$tmp/r.json" "$tmp/again.json" || bad "the same seed gives another report"
    rm -f "$tmp/again.map.pb"
fi
grep -q '</svg>' "$tmp/c.svg" || bad "the picture is not a whole SVG"
"$py" - "$tmp/r.json" "$maxcores" "${MAX_TRAFFIC:-}" <<'PY' || bad "the report of $model"
import json, os, sys
r = json.load(open(sys.argv[1]))
t = r["totals"]
print("cores %d, chips %d, phases %d, step clock %d, traffic %d byte-hops"
      % (t["cores"], t["chips"], t["phases"], t["step_clock"], r["cost"]["traffic_byte_hops"]))
assert t["cores"] == len(r["cores"]) > 0
assert sum(len(c["phases"]) > 0 for c in r["cores"]) <= t["cores"]
if sys.argv[2] != "-":
    assert t["cores"] <= int(sys.argv[2]), "more than %s cores" % sys.argv[2]
c = r["cost"]
# multicast chains are never costlier than unicast, and the refinement keeps what its routes
# cost least, Scotch's start included (place_chain.c)
assert c["traffic_byte_hops"] <= c["traffic_unicast_byte_hops"]
assert c["baseline_scotch_byte_hops"] <= c["baseline_scotch_unicast_byte_hops"]
assert c["baseline_snake_byte_hops"] <= c["baseline_snake_unicast_byte_hops"]
assert c["traffic_byte_hops"] <= c["baseline_scotch_byte_hops"], "worse than plain Scotch"
ratio = float(sys.argv[3]) if sys.argv[3] else None
if ratio and c["baseline_scotch_byte_hops"]:
    got = c["traffic_byte_hops"] / c["baseline_scotch_byte_hops"]
    print("traffic %.3fx plain Scotch's (at most %.3fx)" % (got, ratio))
    assert got <= ratio, "traffic %.3fx plain Scotch's, more than %.3fx" % (got, ratio)
stages = os.environ.get("MAX_STAGES")
if stages:
    assert t["phase_groups"] <= int(stages), \
        "%d phase groups, more than %s" % (t["phase_groups"], stages)
PY
# a core that relays a multicast forwards from its own copy while that copy lives there (the
# MEMORY coordinate of a block the same source writes, on the relaying core, covers the phase
# of the send: route.c)
"$dump" "$tmp/g.map.pb" --format json >"$tmp/m.json" || bad "taskir-dump --format json"
"$py" - "$tmp/m.json" <<'PY' || bad "a relay of $model forwards outside its copy's life"
import json, sys
d = json.load(open(sys.argv[1]))
m = d["mapping"]
def key(c):
    return (c["chip"]["x"], c["chip"]["y"], c["core"]["x"], c["core"]["y"])
compute_core, mem = {}, {}
for n in m["node_map_dicts"]:
    for c in n["coordinates"]:
        if c.get("pi_index") == "MEMORY":
            mem.setdefault((key(c), n["task_id"]), []).append((c["phase"], c.get("end_phase", c["phase"])))
        else:
            compute_core[n["task_id"]] = key(c)
dsts = {}
for e in d["graph"]["edges"]:
    dsts.setdefault(e["src"], []).append(e["dst"])
bad = relays = 0
for e in m["edge_map_dicts"]:
    src = e["edge"]["src"]
    if src not in compute_core:
        continue
    for c in e["coordinates"]:
        if c.get("pi_index") == "ROUTER_SEND" and key(c) != compute_core[src]:
            relays += 1
            if not any(lo <= c["phase"] <= hi for t in dsts[src] for lo, hi in mem.get((key(c), t), [])):
                bad += 1
print("relayed sends %d, forwarded outside the life of the relay's copy %d" % (relays, bad))
sys.exit(1 if bad else 0)
PY
rm -f "$tmp/m.json"
if [ "$input" != - ]; then
    "$run" "$tmp/g.pb" --input "0=$input" -o "$tmp/o1" >/dev/null || bad "$model does not run"
    "$run" "$tmp/g.map.pb" --input "0=$input" -o "$tmp/o2" >/dev/null ||
        bad "the mapping of $model does not run"
    diff -r "$tmp/o1" "$tmp/o2" || bad "the mapping of $model runs to other outputs"
    # the chip's arithmetic gives them too (the mapper's exactness rewrites, docs/exactness.md)
    "$run" "$tmp/g.map.pb" --chip-exact --input "0=$input" -o "$tmp/o3" >/dev/null ||
        bad "the mapping of $model does not run with --chip-exact"
    diff -r "$tmp/o1" "$tmp/o3" || bad "the chip's arithmetic gives other outputs for $model"
fi
echo "ok: $model"

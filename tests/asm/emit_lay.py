#!/usr/bin/env python3
"""A small TaskGraph through the whole chain: taskir-map places it (a GRAPH.map.txtpb is a
Mapping written by hand, used as it is), taskir-emit writes its program set, and taskir-run
DIR (the per-core executor) must give taskir-run MAP.pb's outputs (the TaskGraph simulator)
byte for byte, for several seeded random inputs. The program's text
form must hold each expected line (the parameters worked out by hand in the graph's comment),
in that order; an expectation data:ID@OFFSET=HEX wants those bytes at that byte offset of the
static block file data/ID.bin (data:ID@OFFSET=zeros:N: N zero bytes). With --refuse RULE
instead, taskir-emit must refuse the Mapping: exit 2, naming RULE, writing nothing. --sub OLD
NEW first replaces the text OLD (which must occur) by NEW in GRAPH.txtpb: a variant.

    emit_lay.py PROTOC PROTO_DIR TASKIR_MAP TASKIR_EMIT TASKIR_RUN GRAPH.txtpb [--sub OLD NEW]
                INPUT=DTYPE:D0xD1x... ... [--expect 'field: value' | data:ID@OFFSET=HEX ...]
    emit_lay.py PROTOC PROTO_DIR TASKIR_MAP TASKIR_EMIT TASKIR_RUN GRAPH.txtpb [--sub OLD NEW]
                --refuse RULE

Python standard library only (the .npy writer of run_progset.py)."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from emit_run import compare_seeds  # noqa: E402


def expected_in_order(text, expect):
    """The first expected line not found after the previous one, or None."""
    lines = [ln.strip() for ln in text.splitlines()]
    at = 0
    for want in expect:
        while at < len(lines) and lines[at] != want:
            at += 1
        if at == len(lines):
            return want
        at += 1
    return None


def data_mismatch(prog, expect):
    """The first data:ID@OFFSET=HEX expectation the program set's data files do not meet."""
    for want in expect:
        ident, rest = want[5:].split("@", 1)
        offset, hexbytes = rest.split("=", 1)
        path = os.path.join(prog, "data", ident + ".bin")
        data = open(path, "rb").read() if os.path.exists(path) else b""
        raw = (bytes(int(hexbytes[6:])) if hexbytes.startswith("zeros:")
               else bytes.fromhex(hexbytes))
        if data[int(offset):int(offset) + len(raw)] != raw:
            return want
    return None


def main():
    protoc, proto_dir, tmap, emit, run, graph = sys.argv[1:7]
    rest = sys.argv[7:]
    expect = []
    refuse = rest[rest.index("--refuse") + 1] if "--refuse" in rest else None
    if "--expect" in rest:
        expect = rest[rest.index("--expect") + 1:]
        rest = rest[:rest.index("--expect")]
    with open(graph, "rb") as f:
        source = f.read()
    if "--sub" in rest:
        at = rest.index("--sub")
        old, new = rest[at + 1].encode(), rest[at + 2].encode()
        if old not in source:
            print("FAIL --sub: %s does not hold '%s'" % (graph, rest[at + 1]))
            return 1
        source = source.replace(old, new)
        rest = rest[:at] + rest[at + 3:]
    rest = rest[:rest.index("--refuse")] if "--refuse" in rest else rest
    inputs = [a.split("=", 1) for a in rest]
    fails = 0
    with tempfile.TemporaryDirectory() as tmp:
        g_pb, map_pb = os.path.join(tmp, "g.pb"), os.path.join(tmp, "g.map.pb")
        mapped = graph.endswith(".map.txtpb")  # a Mapping written by hand: no taskir-map
        with open(map_pb if mapped else g_pb, "wb") as g:
            subprocess.run([protoc, "--encode=taskir." + ("Mapping" if mapped else "TaskGraph"),
                            "--proto_path=" + proto_dir,
                            "mapping.proto" if mapped else "taskgraph.proto"],
                           input=source, stdout=g, check=True)
        if not mapped:
            subprocess.run([tmap, g_pb, "-o", map_pb, "--quiet"], check=True)
        prog, text = os.path.join(tmp, "prog"), os.path.join(tmp, "text")
        if refuse:
            r = subprocess.run([emit, map_pb, "-o", prog], capture_output=True, text=True)
            sys.stderr.write(r.stderr)
            if r.returncode != 2 or not r.stderr.rstrip().endswith("[%s]" % refuse) or \
                    os.path.exists(prog):
                print("FAIL taskir-emit exits %d, not a refusal naming %s that writes nothing"
                      % (r.returncode, refuse))
                return 1
            print("ok   taskir-emit refuses it [%s]" % refuse)
            return 0
        subprocess.run([emit, map_pb, "-o", prog], check=True)
        subprocess.run([emit, map_pb, "-o", text, "--format", "text"], check=True)
        data = [x for x in expect if x.startswith("data:")]
        with open(os.path.join(text, "program.txt")) as f:
            missing = expected_in_order(f.read(), [x for x in expect if x not in data])
        missing = missing or data_mismatch(prog, data)
        if missing is None:
            print("ok   the program holds the %d expected lines and bytes" % len(expect))
        else:
            print("FAIL the program does not hold '%s' (in order)" % missing)
            fails += 1
        fails += compare_seeds(run, map_pb, prog, inputs, tmp)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())

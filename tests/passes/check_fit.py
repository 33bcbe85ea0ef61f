#!/usr/bin/env python3
"""check_fit.py: after the default passes (taskir-opt), every group of every example model and
of the ResNet-50 benchmark model fits one core, recomputed here independently of the split
pass and of taskir/chip_cost.c, from the blocks' shapes in `taskir-dump --format json` and
the chip's alignment facts (written out in docs/passes.md, "Checking the fit"); the result
passes `taskir-dump --verify`, and the example models with an expected output still give it
bit for bit (taskir-run).

usage: check_fit.py BUILDDIR SRCDIR [--no-resnet50]
Python standard library only. Work files go to a temporary folder.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

# The chip's facts (docs/passes.md, "Checking the fit"): a core's budget without the receive
# area, what one destination may receive in a phase, the alignments.
BUDGET = 128 * 1024
DEST = 32 * 1024
ALIGN_IN, ALIGN_W, ALIGN_AXON, MAC_F = 16, 32, 128, 32
AXON = {"CADD", "CAVG", "CVVH", "CVM", "CC", "CAX", "CC2D", "CVS"}
SOMA = {"CCMPB", "CCMPS", "CLUT", "CLIF"}


def bits(prec):
    if prec == "TERNARY":
        return 2
    m = re.search(r"(\d+)$", prec or "INT_8")
    return int(m.group(1)) if m else 32


def nbytes(n, prec):
    return -(-n * bits(prec) // 8)


def up(n, a):
    return -(-n // a) * a


def dims(b):
    s = b["shape"] or {}
    return {k: s.get(k, 0) or 0 for k in ("y", "x", "f", "r", "ky", "kx", "iy", "ix")}


def one(v):
    return v if v > 0 else 1


def storage_bytes(b, consumer):
    d, p = dims(b), b["precision"]
    y, x, f, r, ky, kx = (one(d[k]) for k in ("y", "x", "f", "r", "ky", "kx"))
    row = ALIGN_AXON if bits(p) == 32 else ALIGN_IN
    t = b["type"]
    if t == "SI":
        return y * x * up(nbytes(f, p), row)
    if t == "SIC":
        return y * x * up(nbytes(r, p), row)
    if t == "SIC2D":  # channel-major rows of x, the consumer's padding stored
        a = consumer["attributes"]
        y += a.get("PAD_UP", 0) + a.get("PAD_DOWN", 0)
        x += a.get("PAD_LEFT", 0) + a.get("PAD_RIGHT", 0)
        return r * y * up(nbytes(x, p), ALIGN_IN)
    if t == "SIFC":
        return up(nbytes(r, p), ALIGN_IN)
    if t in ("SW", "SW2D"):
        return -(-f // MAC_F) * ky * kx * r * up(nbytes(MAC_F, p), ALIGN_W)
    if t == "SWFC":
        rp = up(nbytes(r, p), ALIGN_IN) * 8 // bits(p)
        return -(-f // MAC_F) * rp * up(nbytes(MAC_F, p), ALIGN_W)
    if t == "SB":
        return up(f * 4, ALIGN_AXON)
    return 0


def output_bytes(b):
    d = dims(b)
    px, f = one(d["y"]) * one(d["x"]), one(d["f"])
    if b["type"] in AXON:
        return px * up(f * 4, ALIGN_AXON)
    out = px * up(nbytes(f, b["precision"]), ALIGN_IN)
    if b["type"] == "CLIF":  # the potentials
        out += px * up(f * 4, ALIGN_IN)
    return out


def volume(box):
    v = 1
    for n in (box or {}).values():
        v *= max(n, 1)
    return v


def check_graph(dump, pb, label):
    """The findings about pb's groups and edges (a list of strings)."""
    r = subprocess.run([dump, pb, "--verify"], capture_output=True, text=True)
    if r.returncode != 0:
        return ["%s: taskir-dump --verify fails: %s" % (label, r.stdout + r.stderr)]
    j = json.loads(subprocess.run([dump, pb, "--format", "json"], capture_output=True,
                                  text=True, check=True).stdout)
    blocks = {b["id"]: b for b in j["blocks"]}
    into = {}
    for e in j["edges"]:
        into.setdefault(e["dst"], []).append(e)
    bad, worst = [], 0
    for b in j["blocks"]:
        if b["kind"] != "compute":
            continue
        total, seen = output_bytes(b), set()
        for e in into.get(b["id"], []):
            src = blocks[e["src"]]
            if src["kind"] == "storage":
                if src["id"] not in seen:
                    seen.add(src["id"])
                    total += storage_bytes(src, b)
            else:  # fed directly by a compute block: its share of that block's output
                total += output_bytes(src) * volume(e["src_box"]) // volume(
                    src["outputs"][0]["dims"])
        worst = max(worst, total)
        if total > BUDGET:
            bad.append("%s: block %d (%s '%s'): its group takes %d bytes, more than %d"
                       % (label, b["id"], b["type"], b["name"], total, BUDGET))
    # the groups the passes recorded (the mapper's units: a fused group holds an Axon block,
    # the storage block its result goes to, which is its output buffer, the Soma block after
    # it and their other storage): each fits a core too
    for g in j.get("groups", []):
        members = [blocks[i] for i in g["blocks"] if i in blocks]
        ids = set(b["id"] for b in members)
        compute = [b for b in members if b["kind"] == "compute"]
        total = sum(output_bytes(b) for b in compute
                    if not any(e["src"] == b["id"] and e["dst"] in ids for e in j["edges"]))
        for s in members:
            if s["kind"] == "storage":
                total += storage_bytes(s, compute[0] if compute else s)
        worst = max(worst, total)
        if total > BUDGET:
            bad.append("%s: group %d takes %d bytes, more than %d" % (label, g["id"], total,
                                                                       BUDGET))
    group_of = {i: g["id"] for g in j.get("groups", []) for i in g["blocks"]}
    for e in j["edges"]:
        dst = blocks[e["dst"]]
        if dst["kind"] == "io" or (dst["kind"] == "compute" and
                                   blocks[e["src"]]["kind"] == "storage"):
            continue  # a host socket, or a group's own storage read on its core
        if e["src"] in group_of and group_of[e["src"]] == group_of.get(e["dst"]):
            continue  # within a group (a fused Axon into its Soma's input): on one core
        n = nbytes(volume(e["dst_box"]), dst["precision"])
        if n > DEST:
            bad.append("%s: edge %d into block %d carries %d bytes, more than %d"
                       % (label, e["id"], dst["id"], n, DEST))
    # the Axon + Soma pairs fuse made: groups holding an Axon and a Soma compute block
    pairs = sum(1 for g in j.get("groups", [])
                if any(i in blocks and blocks[i]["type"] in AXON for i in g["blocks"]) and
                any(i in blocks and blocks[i]["type"] in SOMA for i in g["blocks"]))
    somas = sum(b["type"] in SOMA for b in j["blocks"])
    print("%s: %d blocks, %d compute, the largest group %d bytes, %d Axon+Soma groups of %d "
          "Soma blocks" % (label, len(j["blocks"]), sum(b["kind"] == "compute"
                                                        for b in j["blocks"]), worst, pairs,
                           somas))
    # ResNet-50: split cuts each requantization or ReLU as it cut the layer before it, so
    # that fuse pairs nearly every Soma block (the max pooling after the stem and the last
    # requantization are no pairs: 15 of 1,418); a Soma looked at while its layer's pieces
    # were cut along r in the same round stayed whole, and 54 were left (96 %)
    if label == "resnet50" and pairs < 0.98 * somas:
        bad.append("%s: only %d of %d Soma blocks are paired with their Axon block"
                   % (label, pairs, somas))
    return bad


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("check_fit: %s failed (%d): %s" % (" ".join(cmd), r.returncode,
                                                     r.stdout + r.stderr))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    build, src = sys.argv[1], sys.argv[2]
    resnet = "--no-resnet50" not in sys.argv[3:]
    tools = os.path.join(build, "tools")
    opt, dump = os.path.join(tools, "taskir-opt"), os.path.join(tools, "taskir-dump")
    comp, trun = os.path.join(tools, "taskir-compile"), os.path.join(tools, "taskir-run")
    ex = os.path.join(build, "examples")
    bad = []
    with tempfile.TemporaryDirectory(prefix="check_fit.") as tmp:
        models = []  # (label, .pb, inputs, expected outputs)
        cvm = os.path.join(ex, "cvm")
        for f in sorted(os.listdir(cvm)):
            if not f.endswith(".json"):
                continue
            m = f[:-5]
            pb = os.path.join(tmp, m + ".pb")
            run([comp, os.path.join(cvm, f), "--params", os.path.join(cvm, m + ".params"),
                 "-o", pb])
            outs = sorted(g for g in os.listdir(cvm) if g.startswith(m + ".output"))
            models.append((m, pb, ["data=" + os.path.join(cvm, m + ".input.npy")],
                           [(o[len(m) + 1:], os.path.join(cvm, o)) for o in outs]))
        for f in sorted(os.listdir(ex)):
            if f.endswith(".onnx"):
                pb = os.path.join(tmp, f[:-5] + ".pb")
                run([comp, os.path.join(ex, f), "-o", pb])
                models.append((f, pb, [], []))
            elif f.endswith(".pb") and not f.endswith(".map.pb"):
                models.append((f, os.path.join(ex, f), [], []))
        for f in sorted(os.listdir(os.path.join(src, "examples"))):
            if f.endswith(".xml"):
                pb = os.path.join(tmp, f[:-4] + ".pb")
                run([comp, os.path.join(src, "examples", f), "-o", pb])
                models.append((f, pb, [], []))
        if resnet:
            run([os.path.join(ex, "gen_cvm"), "-o", tmp, "--no-expected", "resnet50"])
            pb = os.path.join(tmp, "resnet50.pb")
            run([comp, os.path.join(tmp, "resnet50.json"), "--params",
                 os.path.join(tmp, "resnet50.params"), "-o", pb])
            models.append(("resnet50", pb, [], []))
        for label, pb, inputs, expected in models:
            out = os.path.join(tmp, label + ".opt.pb")
            run([opt, pb, "-o", out, "-q"])
            bad += check_graph(dump, out, label)
            if expected:
                odir = os.path.join(tmp, label + ".out")
                cmd = [trun, out, "-o", odir]
                for i in inputs:
                    cmd += ["--input", i]
                run(cmd)
                for name, path in expected:
                    with open(os.path.join(odir, name), "rb") as a, open(path, "rb") as b:
                        if a.read() != b.read():
                            bad.append("%s: %s differs after the passes" % (label, name))
    for line in bad:
        print(line)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

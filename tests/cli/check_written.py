#!/usr/bin/env python3
"""check_written.py: the writing conventions (docs/formats.md, "Writing conventions") hold on
the wire of every example graph taskir ships or compiles.

    check_written.py PROTOC PROTO_DIR BLOCKTYPES_DEF GRAPH.pb|MAP.pb ...
    check_written.py PROTOC PROTO_DIR BLOCKTYPES_DEF --compile TASKIR_COMPILE BUILDDIR SRCDIR

The second form compiles the examples first (the five CVM models, the two ONNX models, the
CINN program) into a temporary directory and checks them with the example .pb files of the
build (lenet, tianjic_style, lenet.map.pb's graph). Generates taskgraph_pb2 / mapping_pb2 with
`PROTOC --python_out` and reads each file with python3-protobuf through OUR schema, so that
HasField tells what is on the wire. Checked, for every block and edge:
  - a window block (CC, CC2D, CAVG, CCMPB, CCMPS) with ny and nx has nky, nkx, niy, nix;
  - STRIDE_X/Y on every block whose type takes them, DILATION_X/Y on CC and CC2D;
  - bias_type on every block with a bias cluster;
  - no CONSTANT_B other than 0: a constant bias is an SB bias cluster (their executor reads a
    bias only from a bias cluster and ignores CONSTANT_B);
  - every RESHAPE step carries its permutation p (a permutation of the box's axes);
  - no INPUT has nr; no dim anywhere is negative;
  - an edge without rearrangement joins boxes equal dim by dim as written, an absent dim
    being no axis (the existing tools compare the two boxes so);
  - an edge with rearrangement joins boxes of equal volume (their checker refuses any other:
    an upsampling is written as edges, not as a SCALE step).
The cluster table (which block dim each cluster dim is) is read from taskir/blocktypes.def.
Exit 1 listing every violation, 0 when all hold.
"""
import importlib
import os
import re
import subprocess
import sys
import tempfile

WINDOW = {"CC", "CC2D", "CAVG", "CCMPB", "CCMPS"}
STRIDED = WINDOW
DILATED = {"CC", "CC2D"}
DIMS = ("ny", "nx", "nf", "nr", "nky", "nkx", "niy", "nix")   # blocktypes.def order
CDIM = {"Y": "ny", "X": "nx", "F": "nf", "R": "nr", "KY": "nky", "KX": "nkx",
        "IY": "niy", "IX": "nix", "NO": None, "LUT": "LUT"}


def read_types(path):
    """{type: (nvar, has_bias, [input dims], [output dims])} from blocktypes.def."""
    text = open(path, encoding="utf-8").read().split("*/", 1)[1]
    cre = re.compile(r'C_\("\w+",\s*[^,]+,\s*(\w+),\s*(\w+),\s*(\w+),\s*(\w+),\s*(\w+),'
                     r'\s*(\w+)\)')
    types = {}
    for row in re.split(r"\nX\(", "\n" + text)[1:]:
        head = [f.strip() for f in row.split(",", 7)]
        segs = [[m.groups() for m in cre.finditer(seg)] for seg in row.split("CL(")[1:]]
        if len(segs) == 2:
            ins, outs = segs
        elif len(segs) == 1 and row.index("NOCL") < row.index("CL("):
            ins, outs = [], segs[0]       # INPUT: no inputs
        elif len(segs) == 1:
            ins, outs = segs[0], []       # OUTPUT: no outputs
        else:
            ins, outs = [], []
        types[head[0]] = (int(head[5]), "BF_BIAS" in head[6], ins, outs)
    return types


def block_dim(b, d, lut_dw):
    if d is None:
        return 0
    if d == "LUT":
        return 1 << lut_dw
    return getattr(b.shape, d) if b.shape.HasField(d) else 0


def cluster_box(b, pb2, types, is_input, idx):
    """The cluster's dims as written (y x f r ky kx; 0 = no axis)."""
    cl = (b.input_clusters if is_input else b.output_clusters)[idx]
    if cl.HasField("shape"):
        return [getattr(cl.shape, d) for d in DIMS[:6]]
    tname = pb2.TaskBlockType.Name(b.type)
    nvar, has_bias, ins, outs = types[tname]
    lut_dw = 8
    for a in b.attributes:
        if pb2.AttributeType.Name(a.type) == "LUT_DW":
            lut_dw = a.int_value
    if not is_input:
        spec = outs[idx] if idx < len(outs) else None
    else:
        n = len(b.input_clusters)
        bias = has_bias and b.HasField("bias_type") and b.bias_type == pb2.VECTOR
        if bias and idx == n - 1:
            spec = ("NO", "NO", "F", "NO", "NO", "NO")
        elif nvar != 1:
            spec = ins[0]
        else:
            spec = ins[idx] if idx < len(ins) else None
    if spec is None:
        return None
    return [block_dim(b, CDIM[c], lut_dw) for c in spec]


def iface_box(b, pb2, types, is_input, edge_id):
    clusters = b.input_clusters if is_input else b.output_clusters
    for i, cl in enumerate(clusters):
        for f in cl.interfaces:
            if f.edge_id == edge_id:
                box = cluster_box(b, pb2, types, is_input, i)
                if f.HasField("size") and box is not None:
                    box = [getattr(f.size, d) if getattr(f.size, d) else 0 for d in DIMS[:6]]
                return box
    return None


def volume(box):
    v = 1
    for d in box:
        v *= d if d else 1
    return v


def check_graph(name, g, pb2, types):
    bad = []
    blocks = {b.id: b for b in g.blocks}
    for b in g.blocks:
        t = pb2.TaskBlockType.Name(b.type)
        where = "%s: block %d (%s)" % (name, b.id, t)
        attrs = {pb2.AttributeType.Name(a.type) for a in b.attributes if a.HasField("type")}
        if t in WINDOW and b.shape.HasField("ny") and b.shape.HasField("nx"):
            for d in ("nky", "nkx", "niy", "nix"):
                if not b.shape.HasField(d):
                    bad.append("%s: window dim %s not written" % (where, d))
        for a in ("STRIDE_X", "STRIDE_Y") if t in STRIDED else ():
            if a not in attrs:
                bad.append("%s: %s not written" % (where, a))
        for a in ("DILATION_X", "DILATION_Y") if t in DILATED else ():
            if a not in attrs:
                bad.append("%s: %s not written" % (where, a))
        nvar, has_bias, ins, _ = types[t]
        if has_bias:
            fixed = (b.shape.n_branch if nvar == 0 and b.shape.HasField("n_branch")
                     else len(ins) if nvar == 1 else None)
            if fixed is not None and len(b.input_clusters) > fixed and \
                    not b.HasField("bias_type"):
                bad.append("%s: a bias cluster without bias_type" % where)
        for a in b.attributes:
            if pb2.AttributeType.Name(a.type) == "CONSTANT_B" and a.int_value != 0:
                bad.append("%s: CONSTANT_B %d instead of a bias cluster" % (where, a.int_value))
        if t == "INPUT" and b.shape.HasField("nr"):
            bad.append("%s: an INPUT with nr" % where)
        shapes = [b.shape] + [c.shape for c in list(b.input_clusters) + list(b.output_clusters)]
        for c in list(b.input_clusters) + list(b.output_clusters):
            for f in c.interfaces:
                shapes += [f.position, f.size]
        for s in shapes:
            for d in DIMS:
                if getattr(s, d) < 0:
                    bad.append("%s: a negative dim %s" % (where, d))
    for e in g.edges:
        where = "%s: edge %d" % (name, e.id)
        for r in e.rearrange_info:
            if pb2.RearrangeInfoType.Name(r.type) != "RESHAPE":
                continue
            p = list(r.matrix[0].int32_data) if r.matrix else []
            if not p or sorted(p) != list(range(len(p))):
                bad.append("%s: RESHAPE without its permutation (%s)" % (where, p))
        src, dst = blocks.get(e.src_block_id), blocks.get(e.dst_block_id)
        sb = iface_box(src, pb2, types, False, e.id) if src else None
        db = iface_box(dst, pb2, types, True, e.id) if dst else None
        if e.rearrange_info:
            if sb is not None and db is not None and volume(sb) != volume(db):
                bad.append("%s: a rearrangement from %s to %s changes the volume" %
                           (where, sb, db))
            continue
        if sb is None or db is None or sb != db:
            bad.append("%s: boxes %s and %s differ without a rearrangement" % (where, sb, db))
    return bad


def compile_examples(compile_tool, builddir, srcdir, out):
    ex = os.path.join(builddir, "examples")
    files = []
    for n in ("lenet", "resnet_block", "mobilenet_block", "yolo_head", "mlp"):
        o = os.path.join(out, "cvm_%s.pb" % n)
        subprocess.run([compile_tool, os.path.join(ex, "cvm", n + ".json"), "--params",
                        os.path.join(ex, "cvm", n + ".params"), "-o", o], check=True)
        files.append(o)
    for n in ("qnet", "shiftnet"):
        o = os.path.join(out, "onnx_%s.pb" % n)
        subprocess.run([compile_tool, os.path.join(ex, n + ".onnx"), "-o", o], check=True)
        files.append(o)
    o = os.path.join(out, "cinn_cnn.pb")
    subprocess.run([compile_tool, os.path.join(srcdir, "examples", "cinn_cnn.xml"), "-o", o],
                   check=True)
    files.append(o)
    return files + [os.path.join(ex, n) for n in ("lenet.pb", "tianjic_style.pb",
                                                  "lenet.map.pb")]


def main(argv):
    if len(argv) < 5:
        sys.stderr.write(__doc__)
        return 2
    protoc, proto_dir, defs = argv[1:4]
    types = read_types(defs)
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([protoc, "--python_out=" + out, "-I" + proto_dir,
                        os.path.join(proto_dir, "taskgraph.proto"),
                        os.path.join(proto_dir, "mapping.proto")], check=True)
        sys.path.insert(0, out)
        pb2 = importlib.import_module("taskgraph_pb2")
        map_pb2 = importlib.import_module("mapping_pb2")
        if argv[4] == "--compile":
            files = compile_examples(argv[5], argv[6], argv[7], out)
        else:
            files = argv[4:]
        bad = []
        for path in files:
            data = open(path, "rb").read()
            if path.endswith(".map.pb"):
                m = map_pb2.Mapping()
                m.ParseFromString(data)
                g = m.graph
            else:
                g = pb2.TaskGraph()
                g.ParseFromString(data)
            found = check_graph(os.path.basename(path), g, pb2, types)
            print("%s: %d blocks, %d edges, %s" % (os.path.basename(path), len(g.blocks),
                                                  len(g.edges),
                                                  "ok" if not found else
                                                  "%d violations" % len(found)))
            bad += found
    for line in bad:
        sys.stderr.write(line + "\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

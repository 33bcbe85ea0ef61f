#!/usr/bin/env python3
"""gen_lenet.py: prints examples/lenet.txtpb, a small LeNet-shaped TaskGraph in protobuf text
format (message taskir.TaskGraph of proto/taskgraph.proto).

    python3 examples/gen_lenet.py > examples/lenet.txtpb     # regenerate
    python3 examples/gen_lenet.py --check examples/lenet.txtpb  # exit 1 if it differs

The output is deterministic (a fixed-seed linear congruential generator gives the weights)
and written in taskir's CANONICAL form, so that `protoc --encode=taskir.TaskGraph` of the text
gives exactly the bytes taskir's saver (graph_pack) writes after loading it:
  - block id/type, edge id/src/dst, attribute type and interface edge_id always present;
  - shape dims that a block does not use are absent (never 0 or -1);
  - interfaces that cover the whole cluster have neither position nor size;
  - cluster shapes are absent (they follow from the block's type and shape);
  - no optional field at its default unless the saver keeps it (precision, socket_id 0,
    attribute int_value 0 are kept because the file sets them);
  - the fields the existing tools read as 0 when absent are written (docs/formats.md,
    "Writing conventions"): a window's ky kx iy ix, STRIDE_X/Y (and DILATION_X/Y on CC) of 1
    after the block's own attributes, bias_type on blocks with a bias cluster, the RESHAPE
    permutation; the fc part is 1-D (SI and CCMPB over f alone), as the existing tools
    write it, so its boxes are equal on both ends of every edge.
Fields are printed in field-number order; shapes put x before y as the wire does.

Graph (shapes y x f; r for SIFC):
  INPUT 16x16x1 -> SIC -> CC conv1 5x5 1->4 (+SW, +SB) -> SI 12x12x4
  -> CCMPB pool1 2x2/2, >>8, ReLU -> SIC 6x6x4 -> CC conv2 3x3 4->8 (+SW, +SB) -> SI 4x4x8
  -> CCMPB pool2 2x2/2, >>8, ReLU -> (RESHAPE [2,1,0]: 2x2x8 flattened) SIFC 32
  -> CVM fc1 32->16 (+SWFC, +SB) -> SI 16 -> CCMPB fc1/requant (1-D) >>8, ReLU -> SIFC 16
  -> CVM fc2 16->10 (+SWFC, +SB) -> SI 10 -> OUTPUT 10
Python 3 standard library only.
"""
import sys

# Shape dims in wire field order (x before y).
WIRE_DIMS = ("nx", "ny", "nf", "nr", "nkx", "nky", "niy", "nix")


class Rng:
    """A 32-bit linear congruential generator (Numerical Recipes constants)."""

    def __init__(self, seed):
        self.state = seed & 0xFFFFFFFF

    def next(self):
        self.state = (self.state * 1664525 + 1013904223) & 0xFFFFFFFF
        return self.state >> 16

    def ints(self, n, lo, hi):
        return [lo + self.next() % (hi - lo + 1) for _ in range(n)]


class Builder:
    def __init__(self):
        self.blocks = []      # dicts
        self.edges = []       # (id, src, dst, RESHAPE permutation or None)
        self.by_name = {}

    def block(self, name, btype, prec, shape, **kw):
        b = {"id": len(self.blocks) + 1, "type": btype, "prec": prec, "shape": shape,
             "name": name, "ins": [], "outs": [], "data": None, "attrs": [],
             "bias_type": None, "socket_id": None}
        b.update(kw)
        self.blocks.append(b)
        self.by_name[name] = b
        return b

    def connect(self, src, dst, in_idx, reshape=None):
        """Joins src's output cluster 0 to dst's input cluster in_idx with a new edge."""
        eid = len(self.edges) + 1
        s, d = self.by_name[src], self.by_name[dst]
        if not s["outs"]:
            s["outs"].append([])
        s["outs"][0].append(eid)
        while len(d["ins"]) <= in_idx:
            d["ins"].append([])
        d["ins"][in_idx].append(eid)
        self.edges.append((eid, s["id"], d["id"], reshape))


def fmt_shape(shape):
    return " ".join("%s: %d" % (k, shape[k]) for k in WIRE_DIMS if shape.get(k))


def fmt_list(values, indent, per_line=16):
    """A text-format list `[a, b, ...]`, wrapped per_line values a line."""
    if len(values) <= per_line:
        return "[" + ", ".join(str(v) for v in values) + "]"
    lines = []
    for i in range(0, len(values), per_line):
        lines.append(", ".join(str(v) for v in values[i:i + per_line]))
    pad = " " * (indent + 2)
    return "[\n" + pad + (",\n" + pad).join(lines) + "\n" + " " * indent + "]"


def emit(b):
    out = ["blocks {"]
    out.append("  id: %d" % b["id"])
    out.append("  type: %s" % b["type"])
    out.append("  precision: %s" % b["prec"])
    out.append("  shape { %s }" % fmt_shape(b["shape"]))
    for kind, clusters in (("input_clusters", b["ins"]), ("output_clusters", b["outs"])):
        for c in clusters:
            ifs = " ".join("interfaces { edge_id: %d }" % e for e in c)
            out.append("  %s { %s }" % (kind, ifs))
    if b["data"] is not None:
        dims, prec, values = b["data"]
        out.append("  data {")
        out.append("    dims: %s" % fmt_list(dims, 4))
        out.append("    precision: %s" % prec)
        out.append("    int32_data: %s" % fmt_list(values, 4))
        out.append("  }")
    for name, value in b["attrs"]:
        out.append("  attributes { type: %s int_value: %d }" % (name, value))
    if b["bias_type"]:
        out.append("  bias_type: %s" % b["bias_type"])
    if b["socket_id"] is not None:
        out.append("  socket_id: %d" % b["socket_id"])
    out.append('  name: "%s"' % b["name"])
    out.append("}")
    return "\n".join(out)


def emit_edge(e):
    eid, src, dst, reshape = e
    ends = "id: %d src_block_id: %d dst_block_id: %d" % (eid, src, dst)
    if reshape is None:
        return "edges { %s }" % ends
    return ("# RESHAPE p = %s (axes fastest first): the box [y][x][f] flattened in y-x-f order\n"
            "edges {\n  %s\n  rearrange_info {\n    type: RESHAPE\n"
            "    matrix { dims: %d precision: INT_32 int32_data: %s }\n  }\n}"
            % (fmt_list(reshape, 0), ends, len(reshape), fmt_list(reshape, 4)))


# The attributes a CC leaves at their defaults, written as the saver writes them (after the
# block's own, in AttributeType order).
CONV_DEFAULTS = [("STRIDE_X", 1), ("STRIDE_Y", 1), ("DILATION_X", 1), ("DILATION_Y", 1)]


def lenet():
    rng = Rng(20240611)
    g = Builder()

    def weights(name, btype, shape, dims, lo=-8, hi=7):
        n = 1
        for d in dims:
            n *= d
        g.block(name, btype, "INT_8", shape, data=(dims, "INT_8", rng.ints(n, lo, hi)))

    def bias(name, nf):
        g.block(name, "SB", "INT_32", {"nf": nf},
                data=([nf], "INT_32", rng.ints(nf, -64, 64)))

    g.block("data", "INPUT", "INT_8", {"nx": 16, "ny": 16, "nf": 1}, socket_id=0)
    # conv1: 16x16x1 -> 12x12x4, 5x5 kernel
    g.block("conv1/in", "SIC", "INT_8", {"nx": 16, "ny": 16, "nr": 1})
    weights("conv1/w", "SW", {"nf": 4, "nr": 1, "nkx": 5, "nky": 5}, [4, 1, 5, 5])
    bias("conv1/b", 4)
    g.block("conv1", "CC", "INT_32",
            {"nx": 12, "ny": 12, "nf": 4, "nr": 1, "nkx": 5, "nky": 5, "niy": 16, "nix": 16},
            attrs=[("KERNEL_X", 5), ("KERNEL_Y", 5)] + CONV_DEFAULTS, bias_type="VECTOR")
    g.block("conv1/out", "SI", "INT_32", {"nx": 12, "ny": 12, "nf": 4})
    # pool1: 2x2 stride 2 max, >> 8 (a whole number of the Soma's 2-bit steps), clip to
    # [0, 127] (CMP 0 = ReLU)
    g.block("pool1", "CCMPB", "INT_8",
            {"nx": 6, "ny": 6, "nf": 4, "nkx": 2, "nky": 2, "niy": 12, "nix": 12},
            attrs=[("KERNEL_X", 2), ("KERNEL_Y", 2), ("STRIDE_X", 2), ("STRIDE_Y", 2),
                   ("CMP", 0), ("BIT_SHIFT_NUM", 8)])
    # conv2: 6x6x4 -> 4x4x8, 3x3 kernel
    g.block("conv2/in", "SIC", "INT_8", {"nx": 6, "ny": 6, "nr": 4})
    weights("conv2/w", "SW", {"nf": 8, "nr": 4, "nkx": 3, "nky": 3}, [8, 4, 3, 3])
    bias("conv2/b", 8)
    g.block("conv2", "CC", "INT_32",
            {"nx": 4, "ny": 4, "nf": 8, "nr": 4, "nkx": 3, "nky": 3, "niy": 6, "nix": 6},
            attrs=[("KERNEL_X", 3), ("KERNEL_Y", 3)] + CONV_DEFAULTS, bias_type="VECTOR")
    g.block("conv2/out", "SI", "INT_32", {"nx": 4, "ny": 4, "nf": 8})
    g.block("pool2", "CCMPB", "INT_8",
            {"nx": 2, "ny": 2, "nf": 8, "nkx": 2, "nky": 2, "niy": 4, "nix": 4},
            attrs=[("KERNEL_X", 2), ("KERNEL_Y", 2), ("STRIDE_X", 2), ("STRIDE_Y", 2),
                   ("CMP", 0), ("BIT_SHIFT_NUM", 8)])
    # fc1: 32 -> 16
    g.block("fc1/in", "SIFC", "INT_8", {"nr": 32})
    weights("fc1/w", "SWFC", {"nf": 16, "nr": 32}, [16, 32])
    bias("fc1/b", 16)
    g.block("fc1", "CVM", "INT_32", {"nf": 16, "nr": 32}, bias_type="VECTOR")
    g.block("fc1/out", "SI", "INT_32", {"nf": 16})
    g.block("fc1/requant", "CCMPB", "INT_8", {"nf": 16},
            attrs=[("CMP", 0), ("BIT_SHIFT_NUM", 8), ("STRIDE_X", 1), ("STRIDE_Y", 1)])
    # fc2: 16 -> 10
    g.block("fc2/in", "SIFC", "INT_8", {"nr": 16})
    weights("fc2/w", "SWFC", {"nf": 10, "nr": 16}, [10, 16])
    bias("fc2/b", 10)
    g.block("fc2", "CVM", "INT_32", {"nf": 10, "nr": 16}, bias_type="VECTOR")
    g.block("fc2/out", "SI", "INT_32", {"nf": 10})
    g.block("logits", "OUTPUT", "INT_32", {"nf": 10}, socket_id=0)

    # Input clusters in blocktypes.def order: input, weight, bias.
    for src, dst, idx in (
            ("data", "conv1/in", 0),
            ("conv1/in", "conv1", 0), ("conv1/w", "conv1", 1), ("conv1/b", "conv1", 2),
            ("conv1", "conv1/out", 0), ("conv1/out", "pool1", 0), ("pool1", "conv2/in", 0),
            ("conv2/in", "conv2", 0), ("conv2/w", "conv2", 1), ("conv2/b", "conv2", 2),
            ("conv2", "conv2/out", 0), ("conv2/out", "pool2", 0)):
        g.connect(src, dst, idx)
    # The 2x2x8 box [y][x][f] flattened to 32 values in y-x-f order.
    g.connect("pool2", "fc1/in", 0, reshape=[2, 1, 0])
    for src, dst, idx in (
            ("fc1/in", "fc1", 0), ("fc1/w", "fc1", 1), ("fc1/b", "fc1", 2),
            ("fc1", "fc1/out", 0), ("fc1/out", "fc1/requant", 0), ("fc1/requant", "fc2/in", 0),
            ("fc2/in", "fc2", 0), ("fc2/w", "fc2", 1), ("fc2/b", "fc2", 2),
            ("fc2", "fc2/out", 0), ("fc2/out", "logits", 0)):
        g.connect(src, dst, idx)
    return g


def render():
    g = lenet()
    head = ("# lenet.txtpb: a small LeNet-shaped TaskGraph (taskir.TaskGraph, protobuf text).\n"
            "# Generated by examples/gen_lenet.py; edit that script, not this file.\n"
            "# Canonical form: `protoc --encode` of this text equals what taskir saves.\n")
    parts = [emit(b) for b in g.blocks] + [emit_edge(e) for e in g.edges]
    return head + "\n".join(parts) + "\n"


def main(argv):
    text = render()
    if len(argv) == 3 and argv[1] == "--check":
        with open(argv[2], encoding="utf-8") as f:
            if f.read() != text:
                sys.stderr.write("%s differs from the output of gen_lenet.py\n" % argv[2])
                return 1
        return 0
    if len(argv) != 1:
        sys.stderr.write("usage: gen_lenet.py [--check FILE]\n")
        return 1
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

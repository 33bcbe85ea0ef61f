#!/usr/bin/env python3
"""bimap_cases.py: taskir reads and runs the existing tools' published graphs (issue 12).

    bimap_cases.py PROTOC PROTO_DIR TASKIR_DUMP TASKIR_RUN CASES_DIR

CASES_DIR is ../shared/interop/bimap-cases (BiMap's test/unit_tests/cases: ten graphs under
prims/ and their LeNet under lenet/, protobuf text of their task.proto). Each graph, as
written, is encoded with `PROTOC --encode=taskir.TaskGraph` and our schema, checked with
`taskir-dump --verify`, and run with `taskir-run`:
  - lenet, on the input lenet/i_0_0_0.dat (32 x 32 int32, given as (y, x, f) = (32, 32, 1)),
    must give its recorded output lenet/o_0_0_0.dat.txt;
  - each case of prims/ must give what the reference below computes from the data the case
    carries (no expected outputs are published).

The reference is an evaluator of its own, written for this test with numpy and independent
of taskir/sim*: it parses the text with python3-protobuf (text_format, our schema), walks the
blocks in edge order and computes each primitive as docs/semantics.md states it (int64
arithmetic, results wrapped to int32; storage blocks hold what arrives, unsaturated). It
covers what these graphs use: whole-cluster interfaces, RESHAPE (docs/semantics.md 4.2),
CADD, CAVG, CAX, CVS, CVVH, CVM, CC, CCMPB, CLUT.

Exits 77 (skip) when CASES_DIR is absent, or numpy or google.protobuf is missing; prints one
line per case and "N of 11 ..." at the end; exits 1 when any case fails.
"""
import importlib
import os
import subprocess
import sys
import tempfile

SKIP = 77


def skip(why):
    print("SKIP: " + why)
    sys.exit(SKIP)


try:
    import numpy as np
    from google.protobuf import text_format
except ImportError as e:  # pragma: no cover - depends on the machine
    skip("needs numpy and google.protobuf (python3-numpy, python3-protobuf): %s" % e)


def wrap32(a):
    """Two's complement wrap of int64 values to int32."""
    a = np.asarray(a, dtype=np.int64)
    return ((a + (1 << 31)) % (1 << 32)) - (1 << 31)


class Ref:
    """The reference evaluator over a parsed TaskGraph message."""

    def __init__(self, pb2, graph):
        self.pb2 = pb2
        self.g = graph
        self.blocks = {b.id: b for b in graph.blocks}
        self.edges = {e.id: e for e in graph.edges}
        self.value = {}
        T = pb2.TaskBlockType
        self.name = lambda b: T.Name(b.type)

    # ---- helpers ----
    def attr(self, b, name, default):
        want = self.pb2.AttributeType.Value(name)
        for a in b.attributes:
            if a.type == want:
                return a.int_value
        return default

    def dims(self, s):
        return {"y": s.ny, "x": s.nx, "f": s.nf, "r": s.nr, "ky": s.nky, "kx": s.nkx,
                "iy": s.niy, "ix": s.nix}

    def data(self, b):
        t = b.data
        vals = list(t.int32_data) or list(t.uint32_data) or [int(v) for v in t.float_data]
        return np.array(vals, dtype=np.int64).reshape(list(t.dims))

    def storage_shape(self, b):
        d = self.dims(b.shape)
        order = {"SI": "yxf", "SIC": "yxr", "SIC2D": "yxr", "SIFC": "r", "SB": "f",
                 "SW": "f r ky kx", "SW2D": "f r ky kx", "SWFC": "fr",
                 "OUTPUT": "yxfr"}[self.name(b)]
        keys = order.split() if " " in order else list(order)
        return [d[k] for k in keys if d[k] > 0]

    def edge_value(self, eid, shape):
        e = self.edges[eid]
        v = self.value[e.src_block_id]
        for r in e.rearrange_info:
            if r.type != self.pb2.RearrangeInfoType.Value("RESHAPE") or len(r.matrix) > 1:
                raise RuntimeError("edge %d: rearrangement outside this reference" % eid)
            # docs/semantics.md 4.2: p lists the axes fastest first; none: C order
            p = list(r.matrix[0].int32_data) if len(r.matrix) else []
            if p:
                v = v.transpose(p[::-1])
        return v.reshape(shape)

    def inputs(self, b, shapes):
        """The value arriving at each input cluster, reshaped to shapes[i]."""
        out = []
        for c, shp in zip(b.input_clusters, shapes):
            if len(c.interfaces) != 1 or c.interfaces[0].HasField("position") or \
                    c.interfaces[0].HasField("size"):
                raise RuntimeError("block %d: interfaces outside this reference" % b.id)
            out.append(self.edge_value(c.interfaces[0].edge_id, shp))
        return out

    def bias(self, b, ins, nf, vec):
        if vec:
            return ins[-1].reshape(nf)
        return np.full(nf, self.attr(b, "CONSTANT_B", 0), dtype=np.int64)

    @staticmethod
    def padded(x, up, down, left, right):
        return np.pad(x, ((up, down), (left, right), (0, 0)))

    def window(self, b):
        return (self.attr(b, "PAD_UP", 0), self.attr(b, "PAD_DOWN", 0),
                self.attr(b, "PAD_LEFT", 0), self.attr(b, "PAD_RIGHT", 0),
                max(1, self.attr(b, "STRIDE_Y", 1)), max(1, self.attr(b, "STRIDE_X", 1)))

    # ---- the primitives ----
    def compute(self, b):
        d = self.dims(b.shape)
        y, x, f, r = d["y"], d["x"], d["f"], d["r"]
        ky, kx = max(d["ky"], 1), max(d["kx"], 1)
        iy, ix = d["iy"] or y, d["ix"] or x
        n = self.name(b)
        # a bias cluster: bias_type VECTOR, or bias_type absent and one cluster more than the
        # type's own (python3-protobuf reads an absent bias_type as VECTOR, its first value)
        own = {"CADD": None, "CVVH": 2, "CAX": 2, "CVS": 1, "CLUT": 2, "CVM": 2, "CC": 2,
               "CAVG": 1, "CCMPB": 1}.get(n)
        if b.HasField("bias_type"):
            vec = b.bias_type == self.pb2.BiasType.Value("VECTOR")
        else:
            vec = own is not None and len(b.input_clusters) > own
        nb = len(b.input_clusters) - (1 if vec else 0)
        if n in ("CADD", "CVVH", "CAX", "CVS", "CLUT"):
            shp = [y, x, f]
            if n == "CADD":
                ins = self.inputs(b, [shp] * nb + [[f]] * vec)
                return sum(ins[:nb]) + self.bias(b, ins, f, vec)
            if n == "CVVH":
                ins = self.inputs(b, [shp, shp] + [[f]] * vec)
                return ins[0] * ins[1] + self.bias(b, ins, f, vec)
            if n == "CAX":
                ins = self.inputs(b, [shp, [f]] + [[f]] * vec)
                return ins[0] * ins[1] + self.bias(b, ins, f, vec)
            if n == "CVS":
                ins = self.inputs(b, [shp] + [[f]] * vec)
                return ins[0] * self.attr(b, "CONSTANT_A", 0) + self.bias(b, ins, f, vec)
            dw = self.attr(b, "LUT_DW", 8)
            xin, lut = self.inputs(b, [shp, [1 << dw]])
            lut = lut.reshape(-1)
            return lut[np.where(xin >= 0, xin, xin + (1 << dw))]
        if n == "CVM":
            ins = self.inputs(b, [[r], [f, r]] + [[f]] * vec)
            return ins[1] @ ins[0] + self.bias(b, ins, f, vec)
        up, down, left, right, sy, sx = self.window(b)
        if n == "CC":
            dy, dx = max(1, self.attr(b, "DILATION_Y", 1)), max(1, self.attr(b, "DILATION_X", 1))
            ins = self.inputs(b, [[iy, ix, r], [f, r, ky, kx]] + [[f]] * vec)
            xp = self.padded(ins[0], up, down, left, right)
            out = np.zeros((y, x, f), dtype=np.int64)
            for a in range(ky):
                for c in range(kx):
                    patch = xp[a * dy: a * dy + (y - 1) * sy + 1: sy,
                               c * dx: c * dx + (x - 1) * sx + 1: sx, :]
                    out += patch @ ins[1][:, :, a, c].T
            return out + self.bias(b, ins, f, vec)
        if n in ("CAVG", "CCMPB"):
            ins = self.inputs(b, [[iy, ix, f]] + [[f]] * vec)
            xp = self.padded(ins[0], up, down, left, right)
            taps = [xp[a: a + (y - 1) * sy + 1: sy, c: c + (x - 1) * sx + 1: sx, :]
                    for a in range(ky) for c in range(kx)]
            if n == "CAVG":
                return sum(taps) + self.bias(b, ins, f, vec)
            m = np.max(np.stack(taps), axis=0)
            hi = {"INT_8": 127, "INT_32": (1 << 31) - 1, "TERNARY": 1}[
                self.pb2.Precision.Name(b.precision)]
            return np.clip(m >> self.attr(b, "BIT_SHIFT_NUM", 0), self.attr(b, "CMP", 0), hi)
        raise RuntimeError("block %d: %s is outside this reference" % (b.id, n))

    def run(self):
        order = self.topo()
        for bid in order:
            b = self.blocks[bid]
            n = self.name(b)
            if n in ("INPUT",):
                raise RuntimeError("INPUT blocks are outside this reference")
            if b.HasField("data"):
                self.value[bid] = self.data(b).reshape(self.storage_shape(b))
            elif n.startswith("S") or n == "OUTPUT":
                eids = [f.edge_id for c in b.input_clusters for f in c.interfaces]
                self.value[bid] = self.edge_value(eids[0], self.storage_shape(b))
            else:
                self.value[bid] = wrap32(self.compute(b))
        outs = [b for b in self.g.blocks if self.name(b) == "OUTPUT"]
        return self.value[outs[0].id]

    def topo(self):
        preds = {bid: set() for bid in self.blocks}
        for e in self.g.edges:
            preds[e.dst_block_id].add(e.src_block_id)
        order, done = [], set()
        while len(order) < len(self.blocks):
            ready = [bid for bid in self.blocks if bid not in done and preds[bid] <= done]
            if not ready:
                raise RuntimeError("the graph has a cycle")
            for bid in sorted(ready):
                order.append(bid)
                done.add(bid)
        return order


def main(argv):
    if len(argv) != 6:
        sys.stderr.write(__doc__)
        return 2
    protoc, proto_dir, dump, run, cases = argv[1:]
    if not os.path.isdir(cases):
        skip("%s is absent (the existing tools' published graphs live in ../shared/interop; "
             "they are never copied into the repository)" % cases)
    names = sorted(f[:-len(".task.txt")] for f in os.listdir(os.path.join(cases, "prims"))
                   if f.endswith(".task.txt"))
    ok = 0
    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([protoc, "--python_out=" + tmp, "-I" + proto_dir,
                        os.path.join(proto_dir, "taskgraph.proto")], check=True)
        sys.path.insert(0, tmp)
        pb2 = importlib.import_module("taskgraph_pb2")
        for name in names + ["lenet"]:
            sub = "lenet" if name == "lenet" else "prims"
            src = os.path.join(cases, sub, name + ".task.txt")
            pb = os.path.join(tmp, name + ".pb")
            outdir = os.path.join(tmp, name + ".out")
            why = None
            with open(src, "rb") as fin, open(pb, "wb") as fout:
                enc = subprocess.run([protoc, "--encode=taskir.TaskGraph", "-I" + proto_dir,
                                      "taskgraph.proto"], stdin=fin, stdout=fout,
                                     stderr=subprocess.PIPE)
            if enc.returncode:
                why = "protoc --encode: " + enc.stderr.decode(errors="replace").strip()
            if not why:
                ver = subprocess.run([dump, "--verify", pb], capture_output=True, text=True)
                if ver.returncode:
                    why = "taskir-dump --verify: " + ver.stderr.strip().splitlines()[0]
            args = [run, pb, "-o", outdir]
            if not why and name == "lenet":
                x = np.fromfile(os.path.join(cases, "lenet", "i_0_0_0.dat"), dtype="<i4")
                np.save(os.path.join(tmp, "lenet_in.npy"), x.reshape(32, 32, 1))
                args += ["--input", "0=" + os.path.join(tmp, "lenet_in.npy")]
            if not why:
                r = subprocess.run(args, capture_output=True, text=True)
                if r.returncode:
                    why = "taskir-run: " + r.stderr.strip().splitlines()[0]
            if not why:
                got = np.load(os.path.join(outdir, "output0.npy")).astype(np.int64)
                if name == "lenet":
                    with open(os.path.join(cases, "lenet", "o_0_0_0.dat.txt")) as f:
                        want = np.array([int(t) for t in f.read().split()], dtype=np.int64)
                    what = "the recorded output"
                else:
                    g = pb2.TaskGraph()
                    with open(src) as f:
                        text_format.Parse(f.read(), g)
                    want = Ref(pb2, g).run()
                    what = "the reference"
                if got.size != want.size or not np.array_equal(got.reshape(-1),
                                                               want.reshape(-1)):
                    bad = "sizes %d/%d" % (got.size, want.size) if got.size != want.size else \
                        "%d of %d values" % (int(np.sum(got.reshape(-1) != want.reshape(-1))),
                                             got.size)
                    why = "taskir-run differs from %s (%s)" % (what, bad)
                else:
                    print("%-32s ok: verifies, runs, equals %s (%d values)" % (name, what,
                                                                               got.size))
                    ok += 1
            if why:
                print("%-32s FAILED: %s" % (name, why))
                failed.append(name)
    print("%d of %d of the existing tools' published graphs encode with our schema, verify, "
          "run and match" % (ok, len(names) + 1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""gen_seeds.py: writes the seed inputs of the fuzz targets that are not example files.

    gen_seeds.py OUTDIR

creates OUTDIR/fuzz_npy/*.npy (each dtype, header version, a scalar, an empty array),
OUTDIR/fuzz_cvm/*.seed (small valid CVM models in the fuzz_cvm framing: the graph JSON, a NUL
byte, the params image) and OUTDIR/fuzz_cinn_xml/*.xml (small CINN XML programs) and
OUTDIR/fuzz_mapping/*.map.pb (small Mappings: a valid one, one that breaks each map.* rule,
an empty one; the example lenet.map.pb is copied beside them).
scripts/fuzz runs it into the build directory, next to the example files it copies (TaskGraphs,
CVM and ONNX models, .npy inputs), so no binary seed is kept in the source tree.
Python standard library only; the output is the same on every run.
"""
import json
import os
import struct
import sys

# ---- .npy ----


def npy(descr, shape, data, version=1):
    shape_txt = "(" + "".join("%d, " % s for s in shape).rstrip(" ")
    if len(shape) > 1:
        shape_txt = shape_txt.rstrip(",")
    shape_txt += ")"
    hdr = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape_txt)
    pre = 10 if version == 1 else 12
    total = pre + len(hdr) + 1
    hdr += " " * ((64 - total % 64) % 64) + "\n"
    out = b"\x93NUMPY" + bytes([version, 0])
    out += struct.pack("<H" if version == 1 else "<I", len(hdr))
    return out + hdr.encode("latin-1") + data


def npy_seeds():
    return {
        "i4_2x3.npy": npy("<i4", (2, 3), struct.pack("<6i", 1, -2, 3, -2147483648, 0,
                                                     2147483647)),
        "i1_4.npy": npy("|i1", (4,), struct.pack("<4b", -128, -1, 0, 127)),
        "u1_2x2.npy": npy("|u1", (2, 2), bytes([0, 1, 128, 255])),
        "i2_3.npy": npy("<i2", (3,), struct.pack("<3h", -32768, 5, 32767)),
        "f4_2.npy": npy("<f4", (2,), struct.pack("<2f", 1.5, -0.25)),
        "b1_3.npy": npy("|b1", (3,), bytes([0, 1, 1])),
        "scalar.npy": npy("<i4", (), struct.pack("<i", 42)),
        "empty.npy": npy("<i4", (0, 5), b""),
        "v2_i4_1x1x2.npy": npy("<i4", (1, 1, 2), struct.pack("<2i", 7, -7), version=2),
        "v3_i1_2.npy": npy("<i1", (2,), struct.pack("<2b", 3, -3), version=3),
    }


# ---- CVM models ----

PARAMS_MAGIC = 0xF7E58D4F05049CB7
ARRAY_MAGIC = 0xDD5E40F096B4A13F


def params(arrays):
    """arrays: list of (name, bits, shape, values)."""
    out = struct.pack("<QQQ", PARAMS_MAGIC, 0, len(arrays))
    for name, _, _, _ in arrays:
        out += struct.pack("<Q", len(name)) + name.encode()
    out += struct.pack("<Q", len(arrays))
    for _, bits, shape, values in arrays:
        out += struct.pack("<QQiiiBBH", ARRAY_MAGIC, 0, 1, 0, len(shape), 0, bits, 1)
        out += b"".join(struct.pack("<q", s) for s in shape)
        fmt = "<%d%s" % (len(values), "b" if bits == 8 else "i")
        out += struct.pack("<q", struct.calcsize(fmt)) + struct.pack(fmt, *values)
    return out


def model(nodes, data_shape, shapes, precs=None):
    """nodes: list of (name, op or None, inputs [(node, index)], attrs dict). One output
    each; shapes: the declared shape of every node; the last node is the head."""
    jn, op_attrs = [], []
    for name, op, inputs, attrs in nodes:
        if op is None:
            jn.append({"op": "null", "name": name, "inputs": []})
            op_attrs.append("{}")
        else:
            jn.append({"op": "cvm_op", "name": name,
                       "attrs": {"func_name": op, "num_inputs": str(len(inputs)),
                                 "num_outputs": "1", "flatten_data": "0"},
                       "inputs": [[i, k, 0] for i, k in inputs]})
            op_attrs.append(json.dumps(attrs))
    n = len(nodes)
    if precs is None:  # variables declare theirs (cvm-runtime refuses -1 there)
        precs = [8 if nd[1] is None else -1 for nd in nodes]
    doc = {
        "nodes": jn,
        "arg_nodes": [i for i, nd in enumerate(nodes) if nd[1] is None],
        "heads": [[n - 1, 0, 0]],
        "node_row_ptr": list(range(n + 1)),
        "attrs": {
            "dltype": ["list_str", ["int32"] * n],
            "shape": ["list_shape", shapes],
            "precision": ["list_int", precs],
            "storage_id": ["list_int", list(range(n))],
            "op_attrs": ["list_str", op_attrs],
        },
        "version": "cvm_1.0.0",
    }
    assert shapes[0] == data_shape
    return json.dumps(doc, indent=1, sort_keys=True).encode()


def cvm_seeds():
    seeds = {}
    # data -> conv2d (params weight) -> cvm_right_shift
    seeds["conv.seed"] = model(
        [("data", None, [], {}), ("w", None, [], {}),
         ("conv1", "conv2d", [(0, 0), (1, 0)],
          {"channels": "1", "kernel_size": "(2, 2)", "use_bias": "False"}),
         ("shift1", "cvm_right_shift", [(2, 0)], {"precision": "8", "shift_bit": "2"})],
        [1, 1, 3, 3], [[1, 1, 3, 3], [1, 1, 2, 2], [1, 1, 2, 2], [1, 1, 2, 2]],
    ) + b"\0" + params([("w", 8, (1, 1, 2, 2), [1, 0, 0, 1])])
    # data -> dense (weight, bias) -> relu -> cvm_clip
    seeds["dense.seed"] = model(
        [("data", None, [], {}), ("w", None, [], {}), ("b", None, [], {}),
         ("fc", "dense", [(0, 0), (1, 0), (2, 0)], {"units": "4", "use_bias": "True"}),
         ("relu", "relu", [(3, 0)], {}),
         ("clip", "cvm_clip", [(4, 0)], {"precision": "8"})],
        [1, 8], [[1, 8], [4, 8], [4], [1, 4], [1, 4], [1, 4]],
    ) + b"\0" + params([("w", 8, (4, 8), [(i * 7) % 11 - 5 for i in range(32)]),
                        ("b", 32, (4,), [100, -100, 0, 7])])
    # data -> max_pool2d -> flatten -> reshape -> transpose
    seeds["shape_ops.seed"] = model(
        [("data", None, [], {}),
         ("pool", "max_pool2d", [(0, 0)], {"pool_size": "(2, 2)", "strides": "(2, 2)"}),
         ("flat", "flatten", [(1, 0)], {}),
         ("rs", "reshape", [(2, 0)], {"shape": "(2, 4)"}),
         ("tr", "transpose", [(3, 0)], {"axes": "(1, 0)"})],
        [1, 2, 4, 4], [[1, 2, 4, 4], [1, 2, 2, 2], [1, 8], [2, 4], [4, 2]],
    ) + b"\0" + params([])
    # data + c -> broadcast_mul with k -> concatenate -> strided_slice -> sum
    seeds["elemwise.seed"] = model(
        [("data", None, [], {}), ("c", None, [], {}), ("k", None, [], {}),
         ("add", "elemwise_add", [(0, 0), (1, 0)], {}),
         ("mul", "broadcast_mul", [(3, 0), (2, 0)], {}),
         ("cat", "concatenate", [(3, 0), (4, 0)], {"axis": "0"}),
         ("sl", "strided_slice", [(5, 0)], {"begin": "(0, 1)", "end": "(2, 3)"}),
         ("s", "sum", [(6, 0)], {"axis": "(1,)"})],
        [1, 4], [[1, 4], [1, 4], [4], [1, 4], [1, 4], [2, 4], [2, 2], [2]],
    ) + b"\0" + params([("c", 8, (1, 4), [1, 2, 3, 4]), ("k", 8, (4,), [-1, 1, -2, 2])])
    # a model without params (no NUL: fe_cvm_load_mem gets no params image)
    seeds["noparams.seed"] = model(
        [("data", None, [], {}), ("neg", "negative", [(0, 0)], {}),
         ("abs", "abs", [(1, 0)], {})],
        [2, 3], [[2, 3], [2, 3], [2, 3]])
    return seeds


# ---- CINN XML programs ----

CINN_HEAD = '<program version="1">\n  <Input name="x" shape="1 8" precision="8"/>\n'


def cinn_seeds():
    return {
        "unary.xml": CINN_HEAD + '  <Abs name="a" x="x"/>\n  <Negative name="n" x="a"/>\n'
                     '  <Output x="n"/>\n</program>\n',
        "binary.xml": CINN_HEAD + '  <Constant name="c" shape="1 8" precision="8">1 2 3 4 5 6 7 8'
                      '</Constant>\n  <Add name="s" x="x" y="c"/>\n  <Max name="m" x="s" y="x"/>\n'
                      '  <Output x="m"/>\n</program>\n',
        "move.xml": CINN_HEAD + '  <Reshape name="r" x="x" shape="2 4"/>\n'
                    '  <Transpose name="t" x="r" axis="1 0"/>\n'
                    '  <Concat name="k" inputs="t t" axis="0"/>\n  <Output x="k"/>\n</program>\n',
        "scalar.xml": CINN_HEAD + '  <ConstScalar name="two" value="2"/>\n'
                      '  <Mul name="y" x="x" y="two"/>\n  <Output x="y"/>\n</program>\n',
    }


# ---- Mappings (proto/mapping.proto; the example lenet.map.pb is copied by scripts/fuzz) ----


def pb_varint(v):
    v &= (1 << 64) - 1  # negative int32 values: ten bytes, as protobuf writes them
    out = b""
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def pb_int(field, v):
    return pb_varint(field << 3) + pb_varint(v)


def pb_msg(field, payload):
    return pb_varint(field << 3 | 2) + pb_varint(len(payload)) + payload


def map_coord(core, phase, pi=None, end=None, step=0, chip=(0, 0)):
    xy = lambda x, y: pb_int(1, x) + pb_int(2, y)
    space = (pb_msg(1, xy(0, 0)) + pb_msg(2, xy(*chip)) + pb_int(3, 0) + pb_int(4, 0) +
             pb_msg(5, xy(*core)))
    time = pb_int(1, step) + pb_int(2, phase)
    if pi is not None:
        time += pb_int(3, pi)
    if end is not None:
        time += pb_int(4, end)
    return pb_msg(1, pb_msg(1, space) + pb_msg(2, time))


def mapping_seeds():
    # a graph: SI 1 (16 values of data) -> CADD 2 -> SI 3, edges 1 and 2
    si1 = (pb_int(1, 1) + pb_int(2, 0) + pb_msg(4, pb_int(3, 4)) +
           pb_msg(6, pb_msg(2, pb_int(3, 1))) +
           pb_msg(7, pb_int(1, 4) + pb_msg(4, b"".join(pb_varint(v) for v in (1, -2, 3, 4)))))
    cadd = (pb_int(1, 2) + pb_int(2, 8) + pb_msg(4, pb_int(1, 1) + pb_int(2, 1) + pb_int(3, 4)) +
            pb_msg(5, pb_msg(2, pb_int(3, 1))) + pb_msg(6, pb_msg(2, pb_int(3, 2))))
    si3 = (pb_int(1, 3) + pb_int(2, 0) + pb_msg(4, pb_int(3, 4)) +
           pb_msg(5, pb_msg(2, pb_int(3, 2))))
    edges = (pb_msg(2, pb_int(1, 1) + pb_int(2, 1) + pb_int(3, 2)) +
             pb_msg(2, pb_int(1, 2) + pb_int(2, 2) + pb_int(3, 3)))
    graph = pb_msg(1, si1) + pb_msg(1, cadd) + pb_msg(1, si3) + edges
    good = pb_msg(1, graph) + pb_msg(2, (
        pb_msg(1, map_coord((0, 0), 0, 6, 1) + pb_int(3, 1)) +
        pb_msg(1, map_coord((0, 0), 1, 1, 1) + pb_int(3, 2)) +
        pb_msg(1, map_coord((0, 0), 1, 6, 1) + pb_int(3, 3)) +
        pb_msg(2, map_coord((0, 0), 0, 4) + map_coord((1, 0), 0, 3) + pb_int(3, 1)))) + \
        pb_int(3, 1000)
    odd = pb_msg(1, graph) + pb_msg(2, (
        pb_msg(1, map_coord((0, 0), 2, 9, 1) + pb_int(3, 1)) +      # pi 9, end before phase
        pb_msg(1, map_coord((0, 0), 1, 1) + map_coord((0, 0), 1, 1) + pb_int(3, 2)) +  # slot
        pb_msg(1, map_coord((0, 0), 1, 1) + pb_int(3, 2)) +          # block 2 twice
        pb_msg(1, map_coord((-1, 3), 1) + pb_int(3, 3)) +            # negative
        pb_msg(1, pb_int(3, 77)) +                                   # no such block
        pb_msg(2, map_coord((0, 0), 0) + pb_int(3, 99)) +            # no such edge
        pb_msg(2, pb_int(3, 1)) + pb_msg(2, pb_int(3, 1)))) + pb_int(3, -1)
    return {
        "empty.map.pb": b"",
        "clock.map.pb": pb_int(3, 5),
        "small.map.pb": good,
        "odd.map.pb": odd,
    }


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gen_seeds.py OUTDIR")
    for target, seeds in (("fuzz_npy", npy_seeds()), ("fuzz_cvm", cvm_seeds()),
                          ("fuzz_mapping", mapping_seeds()),
                          ("fuzz_cinn_xml", {k: v.encode() for k, v in cinn_seeds().items()})):
        d = os.path.join(sys.argv[1], target)
        os.makedirs(d, exist_ok=True)
        for name, data in seeds.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)


if __name__ == "__main__":
    main()

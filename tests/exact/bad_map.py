#!/usr/bin/env python3
"""bad_map.py: the protobuf text of a Mapping whose graph breaks one chip-exactness rule.

    bad_map.py RULE > M.txtpb      (then protoc --encode=taskir.Mapping ... mapping.proto)

RULE is one of map.exact.overflow, map.exact.prec, map.exact.shift32, map.exact.oddshift,
map.exact.clip, or "ok". The graph is INPUT x (3 values) -> SI x/in -> one compute block
-> SI y -> OUTPUT, all on core (0,0) in phase 0 (the compute block in its unit's slot), so
every other mapping rule holds and only the chip's arithmetic differs (docs/exactness.md):

  map.exact.overflow  INT_8 values times 2^30 (CVS): sums leave int32
  map.exact.prec      INT_16 storage (x/in), which the chip does not encode
  map.exact.shift32   CCMPB >> 4 from INT_32 to INT_32 of any int32 value
  map.exact.oddshift  CCMPB >> 3 from INT_32 to INT_8: no whole number of 2-bit steps
  map.exact.clip      CCMPB >> 2 from INT_32 to UINT_8 with CMP 0: the chip keeps the low
                      byte of a negative value where the TaskGraph clips it to 0
  ok                  CCMPB >> 2 from INT_32 to INT_8 with CMP 0: both agree
Standard library only.
"""
import sys

CASES = {
    # rule: (input and x/in precision, block type, its precision, attributes, y precision)
    "map.exact.overflow": ("INT_8", "CVS", "INT_32", [("CONSTANT_A", 1 << 30)], "INT_32"),
    "map.exact.prec": ("INT_16", "CVS", "INT_32", [("CONSTANT_A", 1)], "INT_32"),
    "map.exact.shift32": ("INT_32", "CCMPB", "INT_32",
                          [("CMP", -(1 << 31)), ("BIT_SHIFT_NUM", 4)], "INT_32"),
    "map.exact.oddshift": ("INT_32", "CCMPB", "INT_8", [("CMP", 0), ("BIT_SHIFT_NUM", 3)],
                           "INT_8"),
    "map.exact.clip": ("INT_32", "CCMPB", "UINT_8", [("CMP", 0), ("BIT_SHIFT_NUM", 2)],
                       "UINT_8"),
    "ok": ("INT_32", "CCMPB", "INT_8", [("CMP", 0), ("BIT_SHIFT_NUM", 2)], "INT_8"),
}


def block(bid, btype, prec, name, attrs=(), ins=None, outs=None, socket=False):
    lines = ["blocks {", "  id: %d" % bid, "  type: %s" % btype]
    if prec:
        lines.append("  precision: %s" % prec)
    lines.append("  shape { nf: 3 }")
    for a, v in attrs:
        lines.append("  attributes { type: %s precision: INT_32 int_value: %d }" % (a, v))
    if ins:
        lines.append("  input_clusters { interfaces { edge_id: %d } }" % ins)
    if outs:
        lines.append("  output_clusters { interfaces { edge_id: %d } }" % outs)
    if socket:
        lines.append("  socket_id: 0")
    lines.append('  name: "%s"' % name)
    lines.append("}")
    return ["  " + line for line in lines]


def coord(bid, slot):
    return ["  node_map_dicts {",
            "    space_time_coordinates {",
            "      space { chip_array { x: 0 y: 0 } chip { x: 0 y: 0 } step_group: 0"
            " phase_group: 0 core { x: 0 y: 0 } }",
            "      time { step: 0 phase: 0 pi_index: %s end_phase: 0 }" % slot,
            "    }",
            "    task_id: %d" % bid,
            "  }"]


def main(argv):
    if len(argv) != 2 or argv[1] not in CASES:
        sys.stderr.write("usage: bad_map.py %s\n" % "|".join(CASES))
        return 2
    inp, btype, prec, attrs, yprec = CASES[argv[1]]
    out = ["# bad_map.py %s" % argv[1], "graph {"]
    out += block(1, "INPUT", inp, "x", outs=1, socket=True)
    out += block(2, "SI", inp, "x/in", ins=1, outs=2)
    out += block(3, btype, prec, "op", attrs, ins=2, outs=3)
    out += block(4, "SI", yprec, "y", ins=3, outs=4)
    out += block(5, "OUTPUT", None, "out", ins=4, socket=True)
    for e in range(1, 5):
        out.append("  edges { id: %d src_block_id: %d dst_block_id: %d }" % (e, e, e + 1))
    out.append("}")
    out.append("space_time_mapping {")
    out += coord(2, "MEMORY")
    out += coord(3, "AXON" if btype == "CVS" else "SOMA1")
    out += coord(4, "MEMORY")
    out.append("}")
    sys.stdout.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

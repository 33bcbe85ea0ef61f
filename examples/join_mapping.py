#!/usr/bin/env python3
"""join_mapping.py: the protobuf text of a whole Mapping from a graph and a mapping part.

    join_mapping.py GRAPH.txtpb MAP.txtpb > WHOLE.txtpb

GRAPH.txtpb is a taskir.TaskGraph in protobuf text (e.g. examples/lenet.txtpb), MAP.txtpb the
rest of a taskir.Mapping (space_time_mapping, prediction_clock; e.g. examples/lenet.map.txtpb).
The output is `graph { GRAPH }` followed by MAP: one taskir.Mapping, which examples/meson.build
encodes with `protoc --encode=taskir.Mapping`. So the example graph is written once, and the
mapping example always places the graph the other examples use. Standard library only.
"""
import sys


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: join_mapping.py GRAPH.txtpb MAP.txtpb\n")
        return 2
    with open(argv[1], encoding="utf-8") as f:
        graph = f.read()
    with open(argv[2], encoding="utf-8") as f:
        mapping = f.read()
    out = ["graph {\n"]
    out += ["  " + line if line.strip() else line for line in graph.splitlines(True)]
    if not graph.endswith("\n"):
        out.append("\n")
    out.append("}\n")
    out.append(mapping)
    sys.stdout.write("".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""read_pb.py: reads a taskir .pb from Python, as README.md "Reading our .pb from Python" shows.

    read_pb.py PROTOC PROTO_DIR GRAPH.pb BLOCKS EDGES

Generates taskgraph_pb2 with `PROTOC --python_out` into a temporary directory, parses GRAPH.pb
as taskir.TaskGraph with python3-protobuf, prints the block and edge counts and the names of
the first blocks, and exits 1 when the counts are not BLOCKS and EDGES (or a block has no
name: our provenance extension, field 100, must be readable too).
"""
import importlib
import os
import subprocess
import sys
import tempfile


def main(argv):
    if len(argv) != 6:
        sys.stderr.write("usage: read_pb.py PROTOC PROTO_DIR GRAPH.pb BLOCKS EDGES\n")
        return 2
    protoc, proto_dir, path, want_blocks, want_edges = argv[1:]
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([protoc, "--python_out=" + out, "-I" + proto_dir,
                        os.path.join(proto_dir, "taskgraph.proto")], check=True)
        sys.path.insert(0, out)
        taskgraph_pb2 = importlib.import_module("taskgraph_pb2")
        graph = taskgraph_pb2.TaskGraph()
        with open(path, "rb") as f:
            graph.ParseFromString(f.read())
    names = [b.name for b in graph.blocks]
    print("%s: %d blocks, %d edges" % (os.path.basename(path), len(graph.blocks),
                                       len(graph.edges)))
    print("first blocks: " + ", ".join("%d %s '%s'" % (b.id,
          taskgraph_pb2.TaskBlockType.Name(b.type), b.name) for b in graph.blocks[:5]))
    ok = True
    if len(graph.blocks) != int(want_blocks) or len(graph.edges) != int(want_edges):
        sys.stderr.write("expected %s blocks and %s edges\n" % (want_blocks, want_edges))
        ok = False
    if not all(names):
        sys.stderr.write("a block has no name\n")
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""The whole backend on a hand-written Mapping: taskir-emit writes the program set, taskir-run
runs it with the per-core executor, and the outputs must be byte for byte those of taskir-run
on the Mapping's graph (the TaskGraph simulator), for several seeded random inputs.

    emit_run.py PROTOC PROTO_DIR TASKIR_EMIT TASKIR_RUN MAP.txtpb INPUT=DTYPE:D0xD1x... ...

Python standard library only (the .npy writer of run_progset.py)."""
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_progset import write_npy  # noqa: E402

RANGES = {"|i1": (-128, 127), "|u1": (0, 255), "<i4": (-1000, 1000)}


def compare_seeds(run, map_pb, prog, inputs, tmp):
    """Runs the Mapping and the program set on 5 seeded random inputs ((name, DTYPE:DIMS)
    pairs) and compares every output file; the number that differ."""
    fails = 0
    for seed in range(5):
        rnd = random.Random(seed)
        args = []
        for name, spec in inputs:
            dtype, dims = spec.split(":")
            shape = [int(d) for d in dims.split("x")]
            count = 1
            for d in shape:
                count *= d
            lo, hi = RANGES[dtype]
            path = os.path.join(tmp, "%s%d.npy" % (name, seed))
            write_npy(path, dtype, shape, [rnd.randint(lo, hi) for _ in range(count)])
            args += ["--input", "%s=%s" % (name, path)]
        ref, got = os.path.join(tmp, "ref%d" % seed), os.path.join(tmp, "got%d" % seed)
        subprocess.run([run, map_pb, "-o", ref] + args, check=True)
        subprocess.run([run, prog, "-o", got] + args, check=True)
        for name in sorted(os.listdir(ref)):
            with open(os.path.join(ref, name), "rb") as a, \
                    open(os.path.join(got, name), "rb") as b:
                same = a.read() == b.read()
            print("%s seed %d %s: %s" % ("ok  " if same else "FAIL", seed, name,
                                         "the same bytes" if same else "differ"))
            fails += not same
    return fails


def main():
    protoc, proto_dir, emit, run, mapping = sys.argv[1:6]
    inputs = [a.split("=", 1) for a in sys.argv[6:]]
    fails = 0
    with tempfile.TemporaryDirectory() as tmp:
        map_pb = os.path.join(tmp, "demo.map.pb")
        with open(mapping, "rb") as f, open(map_pb, "wb") as g:
            subprocess.run([protoc, "--encode=taskir.Mapping", "--proto_path=" + proto_dir,
                            "mapping.proto"], stdin=f, stdout=g, check=True)
        prog = os.path.join(tmp, "prog")
        subprocess.run([emit, map_pb, "-o", prog], check=True)
        fails += compare_seeds(run, map_pb, prog, inputs, tmp)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())

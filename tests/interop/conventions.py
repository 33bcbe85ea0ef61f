#!/usr/bin/env python3
"""conventions.py: small graphs of our own, each using conventions of the existing tools'
files, with outputs computed by hand (issue 12, reading side; docs/formats.md).

    conventions.py PROTOC PROTO_DIR TASKIR_DUMP TASKIR_RUN GRAPH.txtpb...

Each GRAPH.txtpb (protobuf text, taskir.TaskGraph) carries in its comments
    # expect: V0 V1 ...     the values of output 0, in C order, computed by hand
    # expectK: V0 V1 ...    the same for output K (K = 1, 2, ...), when the graph has more
    # strict: RULE ...      the rule ids of the warnings `taskir-dump --strict` must give
It is encoded with `PROTOC --encode`, must pass `taskir-dump --verify` with no finding, give
exactly those warning rules with `--strict` (exit status 0), and `taskir-run` must write the
expected values of each output. Python standard library only (the .npy output is read by hand).
"""
import ast
import os
import struct
import subprocess
import sys
import tempfile


def read_npy(path):
    """The values of a little-endian int32 .npy file (version 1 or 2 header), flattened."""
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:6] != b"\x93NUMPY":
        raise ValueError("not a .npy file")
    major = raw[6]
    if major == 1:
        hlen, start = struct.unpack("<H", raw[8:10])[0], 10
    else:
        hlen, start = struct.unpack("<I", raw[8:12])[0], 12
    header = ast.literal_eval(raw[start:start + hlen].decode("latin1"))
    if header["descr"] != "<i4" or header["fortran_order"]:
        raise ValueError("expected C-order int32, got %r" % header)
    body = raw[start + hlen:]
    return list(struct.unpack("<%di" % (len(body) // 4), body))


def comment(text, key):
    for line in text.splitlines():
        if line.startswith("# " + key + ":"):
            return line.split(":", 1)[1].split()
    return None


def check(protoc, proto_dir, dump, run, path, tmp):
    with open(path) as f:
        text = f.read()
    expect = comment(text, "expect")
    strict = comment(text, "strict")
    if expect is None or strict is None:
        return "no '# expect:' or '# strict:' line"
    pb = os.path.join(tmp, os.path.basename(path) + ".pb")
    with open(path, "rb") as fin, open(pb, "wb") as fout:
        r = subprocess.run([protoc, "--encode=taskir.TaskGraph", "-I" + proto_dir,
                            "taskgraph.proto"], stdin=fin, stdout=fout, stderr=subprocess.PIPE)
    if r.returncode:
        return "protoc --encode: " + r.stderr.decode(errors="replace").strip()
    r = subprocess.run([dump, "--verify", pb], capture_output=True, text=True)
    if r.returncode or r.stderr:
        return "taskir-dump --verify (status %d): %s" % (r.returncode, r.stderr.strip())
    r = subprocess.run([dump, "--strict", pb], capture_output=True, text=True)
    lines = r.stderr.strip().splitlines()
    rules = sorted({line.rsplit("[", 1)[-1].rstrip("]") for line in lines})
    if r.returncode or any(": warning: " not in line for line in lines) or \
            rules != sorted(strict) or "warnings)" not in r.stdout:
        return "taskir-dump --strict (status %d) gave rules %s, expected %s:\n%s" % (
            r.returncode, rules, sorted(strict), r.stderr)
    out = os.path.join(tmp, os.path.basename(path) + ".out")
    r = subprocess.run([run, pb, "-o", out], capture_output=True, text=True)
    if r.returncode:
        return "taskir-run: " + r.stderr.strip()
    k = 0
    while expect is not None:
        got = read_npy(os.path.join(out, "output%d.npy" % k))
        want = [int(v) for v in expect]
        if got != want:
            return "output %d: %s, computed by hand %s" % (k, got, want)
        k += 1
        expect = comment(text, "expect%d" % k)
    return None


def main(argv):
    if len(argv) < 6:
        sys.stderr.write(__doc__)
        return 2
    protoc, proto_dir, dump, run = argv[1:5]
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in argv[5:]:
            why = check(protoc, proto_dir, dump, run, path, tmp)
            print("%-28s %s" % (os.path.basename(path), "ok" if not why else "FAILED: " + why))
            failed += why is not None
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

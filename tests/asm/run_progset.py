#!/usr/bin/env python3
"""Runs one hand-built program set with `taskir-run DIR` and checks what it gives.

    run_progset.py PROTOC PROTO_DIR TASKIR_RUN CASE_DIR [TASKIR_DUMP]

CASE_DIR holds program.txtpb (a taskir.asm.Config in protobuf text form), sockets.json and
case.json:
    {"inputs": {"NAME": {"dtype": "<i4", "shape": [8], "values": [...]}},
     "data": {"ID": [word, ...]},                 static blocks' data/ID.bin words (optional)
     "text_only": true,                           write program.txt, not program.pb (optional)
     "program_from": "p09_multi",                 take program.txtpb and sockets.json from
                                                  that case's directory (optional)
     "expect": {"output0.npy": {"dtype": "<i4", "shape": [12], "values": [...]}},
     "dump": ["line", ...]}                       lines `taskir-dump DIR` must print (with
                                                  TASKIR_DUMP; its --format json must parse
                                                  and list every core)
or, for a program set that must fail,
     "exit": 2, "rule": "prog.router.receive"     the exit status and the rule in the message
The program set is built in a temporary directory: program.txtpb encoded with protoc into
program.pb, the data words written little-endian, the inputs as .npy files. A run that
succeeds is run again, and must write the same bytes.
Python standard library only."""
import ast
import json
import os
import struct
import subprocess
import sys
import tempfile

CODES = {"<i4": "i", "|i1": "b", "|u1": "B", "<i2": "h"}


def write_npy(path, dtype, shape, values):
    shape_text = "(%s)" % ("".join("%d," % s for s in shape) if len(shape) == 1
                           else ", ".join(str(s) for s in shape))
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (dtype, shape_text)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%d%s" % (len(values), CODES[dtype]), *values))


def read_npy(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:6] != b"\x93NUMPY":
        raise ValueError("%s: not an .npy file" % path)
    (hlen,) = struct.unpack("<H", raw[8:10])
    header = ast.literal_eval(raw[10:10 + hlen].decode())
    code = CODES[header["descr"]]
    count = 1
    for s in header["shape"]:
        count *= s
    values = struct.unpack_from("<%d%s" % (count, code), raw, 10 + hlen)
    return header["descr"], list(header["shape"]), list(values)


def build(protoc, proto_dir, case_dir, case, out_dir):
    if "program_from" in case:
        case_dir = os.path.join(os.path.dirname(os.path.normpath(case_dir)), case["program_from"])
    text = os.path.join(case_dir, "program.txtpb")
    if case.get("text_only"):
        with open(text, "rb") as f, open(os.path.join(out_dir, "program.txt"), "wb") as g:
            g.write(f.read())
    else:
        with open(text, "rb") as f, open(os.path.join(out_dir, "program.pb"), "wb") as g:
            subprocess.run([protoc, "--encode=taskir.asm.Config", "--proto_path=" + proto_dir,
                            "program.proto"], stdin=f, stdout=g, check=True)
    with open(os.path.join(case_dir, "sockets.json"), "rb") as f, \
            open(os.path.join(out_dir, "sockets.json"), "wb") as g:
        g.write(f.read())
    if case.get("data"):
        os.mkdir(os.path.join(out_dir, "data"))
    for ident, words in case.get("data", {}).items():
        with open(os.path.join(out_dir, "data", ident + ".bin"), "wb") as g:
            g.write(struct.pack("<%dI" % len(words), *[w & 0xFFFFFFFF for w in words]))


def check_dump(taskir_dump, prog, lines):
    """taskir-dump PROG prints every line of lines; its JSON form lists the cores."""
    fails = 0
    text = subprocess.run([taskir_dump, prog], stdout=subprocess.PIPE, text=True, check=True)
    got = text.stdout.splitlines()
    for line in lines:
        if line not in got:
            print("FAIL taskir-dump prints no line %r" % line)
            fails += 1
    js = subprocess.run([taskir_dump, prog, "--format", "json"], stdout=subprocess.PIPE,
                        text=True, check=True)
    doc = json.loads(js.stdout)
    cores = sum(1 for line in got if line.startswith("chip ("))
    if len(doc["cores"]) != cores:
        print("FAIL the JSON dump lists %d cores, the text %d" % (len(doc["cores"]), cores))
        fails += 1
    if not fails:
        print("ok   taskir-dump: %d lines found, %d cores in text and JSON" % (len(lines), cores))
    return fails


def main():
    protoc, proto_dir, taskir_run, case_dir = sys.argv[1:5]
    taskir_dump = sys.argv[5] if len(sys.argv) > 5 else None
    with open(os.path.join(case_dir, "case.json")) as f:
        case = json.load(f)
    fails = 0
    with tempfile.TemporaryDirectory() as tmp:
        prog = os.path.join(tmp, "prog")
        os.mkdir(prog)
        build(protoc, proto_dir, case_dir, case, prog)
        if taskir_dump and "dump" in case:
            fails += check_dump(taskir_dump, prog, case["dump"])
        args = [taskir_run, prog, "-o", os.path.join(tmp, "out")]
        for name, arr in case.get("inputs", {}).items():
            path = os.path.join(tmp, "in_%s.npy" % name)
            write_npy(path, arr["dtype"], arr["shape"], arr["values"])
            args += ["--input", "%s=%s" % (name, path)]
        run = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        sys.stdout.write(run.stderr)
        want_exit = case.get("exit", 0)
        if run.returncode != want_exit:
            print("FAIL exit status %d, expected %d" % (run.returncode, want_exit))
            return 1
        if "rule" in case:
            if "[%s]" % case["rule"] not in run.stderr:
                print("FAIL no [%s] in the messages" % case["rule"])
                fails += 1
            if os.path.exists(os.path.join(tmp, "out")):
                print("FAIL a failed run left its output directory")
                fails += 1
        if want_exit == 0:   # a second run writes the same bytes
            again = subprocess.run(args[:2] + ["-o", os.path.join(tmp, "again")] + args[4:],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for name in sorted(os.listdir(os.path.join(tmp, "out"))):
                with open(os.path.join(tmp, "out", name), "rb") as a, \
                        open(os.path.join(tmp, "again", name), "rb") as b:
                    if again.returncode or a.read() != b.read():
                        print("FAIL a second run wrote other bytes for %s" % name)
                        fails += 1
        for name, want in sorted(case.get("expect", {}).items()):

            got = read_npy(os.path.join(tmp, "out", name))
            if got != (want["dtype"], want["shape"], want["values"]):
                print("FAIL %s: got %s, expected %s" % (name, got, (want["dtype"], want["shape"],
                                                                     want["values"])))
                fails += 1
            else:
                print("ok   %s %s %s" % (name, want["dtype"], want["shape"]))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())

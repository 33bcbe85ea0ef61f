#!/usr/bin/env python3
"""taskir-run's progress line (tools/progress.h, docs/cli.md), with standard error on a
pseudo-terminal: shown from TASKIR_PROGRESS_AFTER seconds on ("block K of N" for the
simulator, "operator K of N" for the interpreter, both in turn for a graph with a host
remainder beside it), never with --quiet, never when standard error is not a terminal, not for
a run shorter than the default 2 seconds.

usage: test_progress.py TASKIR-RUN TASKIR-COMPILE CVM-DIR SCRATCH-DIR EXAMPLES-DIR
(EXAMPLES-DIR: the build's examples/, with qnet.onnx when the ONNX examples are built)"""
import json
import os
import pty
import struct
import subprocess
import sys


def run(argv, after, tty=True):
    """Runs argv with TASKIR_PROGRESS_AFTER=after (None: unset); returns (exit code, what it
    wrote on standard error)."""
    env = dict(os.environ)
    env.pop("TASKIR_PROGRESS_AFTER", None)
    if after is not None:
        env["TASKIR_PROGRESS_AFTER"] = after
    if not tty:
        p = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, env=env, timeout=120)
        return p.returncode, p.stderr.decode("utf-8", "replace")
    master, slave = pty.openpty()
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=slave, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            b = os.read(master, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not b:
            break
        chunks.append(b)
    os.close(master)
    return p.wait(timeout=120), b"".join(chunks).decode("utf-8", "replace")


def expect(cond, what, err):
    if not cond:
        print("FAIL:", what, "\n--- stderr ---\n" + err)
        sys.exit(1)


def write_host(graph, socket):
    """Writes a host remainder beside graph (GRAPH.host.json + GRAPH.host.params, as
    taskir-compile --allow-host would): a CVM model clipping the chip's OUTPUT socket (LeNet's
    1x10 scores, int8) to 4 bits through three operators, without parameters."""
    base = graph[:-len(".pb")]
    clip = {"func_name": "cvm_clip", "num_inputs": "1", "num_outputs": "1",
            "flatten_data": "0"}
    nodes = [{"op": "null", "name": "output%d" % socket, "inputs": []}]
    for k in range(3):
        nodes.append({"op": "cvm_op", "name": "clip%d" % k, "inputs": [[k, 0, 0]],
                      "attrs": clip})
    n = len(nodes)
    model = {
        "nodes": nodes, "arg_nodes": [0], "heads": [[n - 1, 0, 0]],
        "node_row_ptr": list(range(n + 1)),
        "attrs": {
            "dltype": ["list_str", ["int32"] * n],
            "shape": ["list_shape", [[1, 10]] * n],
            "precision": ["list_int", [8] + [8, 6, 4]],
            "storage_id": ["list_int", list(range(n))],
            "op_attrs": ["list_str", ['{"taskir_input":"1"}'] + ['{"precision":"%d","is_sign":"true"}' % p
                                              for p in (8, 6, 4)]],
        },
        "version": "cvm_1.0.0",
    }
    with open(base + ".host.json", "w") as f:
        json.dump(model, f)
    with open(base + ".host.params", "wb") as f:  # no arrays: magic, reserved, 0 and 0 names
        f.write(struct.pack("<QQQQ", 0xF7E58D4F05049CB7, 0, 0, 0))
    return base


def output_socket(run_tool, graph, inp, scratch):
    """The socket id of the graph's one OUTPUT block: taskir-run --no-host names its file."""
    out = os.path.join(scratch, "progress_sockets")
    subprocess.run([run_tool, graph, "--input", inp, "--no-host", "-o", out, "-q"],
                   check=True)
    names = sorted(os.listdir(out))
    for name in names:
        os.unlink(os.path.join(out, name))
    os.rmdir(out)
    if len(names) != 1 or not names[0].startswith("output") or not names[0].endswith(".npy"):
        print("FAIL: expected one outputS.npy, got", names)
        sys.exit(1)
    return int(names[0][len("output"):-len(".npy")])


def main():
    run_tool, compile_tool, cvm, scratch, examples = sys.argv[1:6]
    model = os.path.join(cvm, "lenet.json")
    params = os.path.join(cvm, "lenet.params")
    inp = "data=" + os.path.join(cvm, "lenet.input.npy")
    graph = os.path.join(scratch, "progress_lenet.pb")
    subprocess.run([compile_tool, model, "--params", params, "-o", graph], check=True)
    sim = [run_tool, graph, "--input", inp]
    interp = [run_tool, model, "--params", params, "--input", inp]

    rc, err = run(sim, "0")
    expect(rc == 0 and "taskir-run: block 1 of " in err, "the simulator's progress line", err)
    expect(err.endswith("\r\x1b[K"), "the line is erased at the end", err)
    rc, err = run(interp, "0")
    expect(rc == 0 and "taskir-run: operator 1 of " in err, "the interpreter's line", err)
    onnx = os.path.join(examples, "qnet.onnx")
    if os.path.exists(onnx):  # absent when the ONNX examples are not built
        rc, err = run([run_tool, onnx, "--input",
                       "x=" + os.path.join(examples, "qnet.input.npy")], "0")
        expect(rc == 0 and "taskir-run: operator 1 of " in err, "the line for ONNX", err)
    for quiet in ("--quiet", "-q"):
        rc, err = run(sim + [quiet], "0")
        expect(rc == 0 and err == "", quiet + " shows nothing", err)
    rc, err = run(interp, "0", tty=False)
    expect(rc == 0 and err == "", "nothing when standard error is not a terminal", err)
    rc, err = run(sim, None)
    expect(rc == 0 and err == "", "nothing for a run shorter than 2 seconds", err)
    # the host remainder: the simulator's line, then the interpreter's, then erased
    base = write_host(graph, output_socket(run_tool, graph, inp, scratch))
    rc, err = run(sim, "0")
    b, o = err.find("taskir-run: block 1 of "), err.find("taskir-run: operator 1 of 3")
    expect(rc == 0 and 0 <= b < o, "the host remainder's line after the simulator's", err)
    expect(err.endswith("\r\x1b[K"), "the host remainder's line is erased at the end", err)
    rc, err = run(sim + ["--quiet"], "0")
    expect(rc == 0 and err == "", "--quiet shows nothing with a host remainder", err)
    os.unlink(base + ".host.json")
    os.unlink(base + ".host.params")
    os.unlink(graph)
    print("ok")


if __name__ == "__main__":
    main()

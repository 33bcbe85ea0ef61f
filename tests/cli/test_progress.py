#!/usr/bin/env python3
"""taskir-run's progress line (tools/progress.h, docs/cli.md), with standard error on a
pseudo-terminal: shown from TASKIR_PROGRESS_AFTER seconds on ("block K of N" for the
simulator, "operator K of N" for the interpreter), never with --quiet, never when standard
error is not a terminal, not for a run shorter than the default 2 seconds.

usage: test_progress.py TASKIR-RUN TASKIR-COMPILE CVM-DIR SCRATCH-DIR EXAMPLES-DIR
(EXAMPLES-DIR: the build's examples/, with qnet.onnx when the ONNX examples are built)"""
import os
import pty
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
    os.unlink(graph)
    print("ok")


if __name__ == "__main__":
    main()

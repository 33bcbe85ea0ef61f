#!/usr/bin/env python3
"""taskir-emit's progress line (tools/progress.h, docs/cli.md), with standard error on a
pseudo-terminal: "taskir-emit: stage K of N" from TASKIR_PROGRESS_AFTER seconds on, erased
when the code generator ends; nothing with --quiet, nothing when standard error is not a
terminal, nothing for a run shorter than the default 2 seconds.

usage: emit_progress.py TASKIR-EMIT FIXTURE-WRITE SCRATCH-DIR
(FIXTURE-WRITE writes the code generator's hand-built Mappings, conv.map.pb among them)"""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from test_progress import expect, run  # noqa: E402


def main():
    emit, fixture_write, scratch = sys.argv[1:4]
    fix = os.path.join(scratch, "emit_progress")
    shutil.rmtree(fix, ignore_errors=True)
    os.makedirs(fix)
    subprocess.run([fixture_write, fix], check=True)
    out = os.path.join(fix, "set")
    cmd = [emit, os.path.join(fix, "conv.map.pb"), "-o", out]
    rc, err = run(cmd, "0")
    expect(rc == 0 and "taskir-emit: stage 1 of 8" in err, "the progress line", err)
    expect(err.endswith("\r\x1b[K"), "the line is erased at the end", err)
    expect(os.path.exists(os.path.join(out, "program.pb")), "the program set", err)
    for quiet in ("--quiet", "-q"):
        rc, err = run(cmd + [quiet], "0")
        expect(rc == 0 and "stage" not in err, "nothing with " + quiet, err)
    rc, err = run(cmd, "0", tty=False)
    expect(rc == 0 and "stage" not in err, "nothing when standard error is no terminal", err)
    rc, err = run(cmd, None)
    expect(rc == 0 and "stage" not in err, "nothing for a run under 2 seconds", err)
    shutil.rmtree(fix)
    print("ok")


if __name__ == "__main__":
    main()

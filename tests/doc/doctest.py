#!/usr/bin/env python3
"""doctest.py: runs the code blocks of Markdown documents, so that the docs cannot rot.

    doctest.py --srcdir SRC --builddir BUILD [--cc CC] FILE.md ...
    doctest.py --srcdir SRC --list            # the documents the suite covers, one a line
    doctest.py --extract NAME FILE.md         # print the block marked `doctest: file NAME`

The conventions for doc writers are in docs/README.md ("Code blocks are tests"). In short:
every fenced block whose info string starts with a language runs (sh, xml, c, python, json);
a block without a language is text (diagrams, synopses, pseudocode) and does not run; any
other language is an error. An HTML comment right before a block, `<!-- doctest: ... -->`,
changes what happens to it (skip REASON, exit N, if COMMAND, setup + lines, file NAME,
timeout SECONDS).

Each document runs in a fresh sandbox folder that looks like the top of the source tree:
symlinks to the source tree's entries, and `build/`, which holds symlinks to the build dir's
entries except `examples/`, a copy (commands may write there; files over 16 MiB, such as
generated benchmark models, are symlinked). The blocks of one document run
in order in that folder (so a block may use the files an earlier one wrote), with PATH
starting with build/tools. Every Markdown link must stay in the repository and name a file
or folder that exists (web addresses and anchors aside), and no document may name `seeds/` or
`shared/` outside its "Sources" section (the optional `../shared/interop` data aside). Exit 0 when every block that runs
succeeds and every link holds, 1 otherwise.
"""
import argparse
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

RUN_LANGS = ("sh", "xml", "c", "python", "json")
SUFFIX = {"sh": "sh", "xml": "xml", "c": "c", "python": "py", "json": "json"}
DEFAULT_TIMEOUT = 300
COPY_MAX = 16 << 20     # build/examples files larger than this are symlinked, not copied
DIRECTIVE = re.compile(r"<!--\s*doctest:\s*(.*?)\s*-->", re.S)
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")


class Block:
    def __init__(self, line, lang, text):
        self.line = line          # the line of the opening fence (1-based)
        self.lang = lang          # the info string's first word ('' for none)
        self.text = text
        self.skip = None          # reason
        self.exit = 0
        self.cond = None          # shell command: run the block only when it succeeds
        self.setup = ""           # shell commands run before the block
        self.file = None          # xml/c/python/json: the file name the text is written to
        self.timeout = DEFAULT_TIMEOUT


def documents(src):
    """The documents the suite covers: README.md, docs/*.md, examples/README.md and any other
    Markdown file under docs/ and examples/ (so a new one is picked up by itself)."""
    found = []
    for pat in ("README.md", "docs/**/*.md", "examples/**/*.md"):
        found += glob.glob(os.path.join(src, pat), recursive=True)
    return sorted(os.path.relpath(f, src) for f in found)


def parse_directive(block, body, where, errors):
    word, _, rest = body.partition(" ")
    if "\n" in word:
        word, _, more = word.partition("\n")
        rest = more + (" " + rest if rest else "")
    rest = rest.strip()
    if word == "skip":
        if not rest:
            errors.append(f"{where}: 'doctest: skip' needs a reason")
        block.skip = rest or "?"
    elif word == "exit":
        if not rest.isdigit():
            errors.append(f"{where}: 'doctest: exit' needs a status, got '{rest}'")
        else:
            block.exit = int(rest)
    elif word == "if":
        if not rest:
            errors.append(f"{where}: 'doctest: if' needs a command")
        block.cond = rest
    elif word == "setup":
        block.setup += rest + "\n"
    elif word == "file":
        if not re.fullmatch(r"[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*", rest):
            errors.append(f"{where}: 'doctest: file' needs a relative file name, got '{rest}'")
        block.file = rest
    elif word == "timeout":
        if not rest.isdigit() or int(rest) == 0:
            errors.append(f"{where}: 'doctest: timeout' needs seconds, got '{rest}'")
        else:
            block.timeout = int(rest)
    else:
        errors.append(f"{where}: unknown directive 'doctest: {word}'")


def parse(path, name):
    """The fenced blocks of a document with their directives, and the errors found."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    blocks, errors = [], []
    pending = []        # (line, directive text) seen since the last block or prose line
    i = 0
    while i < len(lines):
        line = lines[i]
        m = FENCE.match(line)
        if m:
            indent, fence, info = m.group(1), m.group(2), m.group(3).strip()
            body = []
            j = i + 1
            while j < len(lines):
                close = FENCE.match(lines[j])
                if close and close.group(2)[0] == fence[0] and len(close.group(2)) >= len(fence) \
                        and not close.group(3).strip():
                    break
                body.append(lines[j][len(indent):] if lines[j].startswith(indent)
                            else lines[j].lstrip())
                j += 1
            if j == len(lines):
                errors.append(f"{name}:{i + 1}: a code block that is never closed")
            b = Block(i + 1, info.split()[0] if info else "", "\n".join(body) + "\n")
            for dline, dtext in pending:
                parse_directive(b, dtext, f"{name}:{dline}", errors)
            pending = []
            if b.lang and b.lang not in RUN_LANGS and b.skip is None:
                errors.append(f"{name}:{b.line}: a '{b.lang}' block: the suite runs "
                              f"{', '.join(RUN_LANGS)} blocks; use one of them, no language "
                              f"(text), or 'doctest: skip REASON'")
            if not b.lang and (b.skip or b.exit or b.cond or b.setup or b.file):
                errors.append(f"{name}:{b.line}: a doctest directive on a block without a "
                              f"language (text blocks never run)")
            blocks.append(b)
            i = j + 1
            continue
        start = line.find("<!--")
        if line.lstrip().startswith("<!--") and "doctest:" in line:
            text = line
            k = i
            while "-->" not in text[start:] and k + 1 < len(lines):
                k += 1
                text += "\n" + lines[k]
            m = DIRECTIVE.search(text)
            if m:
                pending.append((i + 1, m.group(1)))
            else:
                errors.append(f"{name}:{i + 1}: a doctest comment that is never closed")
            i = k + 1
            continue
        if line.strip() and pending:
            errors.append(f"{name}:{pending[0][0]}: a doctest directive not followed by a "
                          f"code block")
            pending = []
        i += 1
    if pending:
        errors.append(f"{name}:{pending[0][0]}: a doctest directive not followed by a code block")
    return blocks, errors


def make_sandbox(src, build, tmp):
    """A folder that looks like the source tree's top, with build/ the build dir."""
    box = os.path.join(tmp, "top")
    os.mkdir(box)
    build_real = os.path.realpath(build)
    for e in sorted(os.listdir(src)):
        full = os.path.join(src, e)
        if e == ".git" or e == "build" or os.path.realpath(full) == build_real:
            continue
        if os.path.isdir(full) and (os.path.exists(os.path.join(full, "build.ninja")) or
                                    os.path.isdir(os.path.join(full, "meson-private"))):
            continue        # another build dir
        os.symlink(full, os.path.join(box, e))
    bdir = os.path.join(box, "build")
    os.mkdir(bdir)
    for e in sorted(os.listdir(build)):
        full = os.path.join(build, e)
        if e == "examples":
            shutil.copytree(full, os.path.join(bdir, e), symlinks=True,
                            ignore=shutil.ignore_patterns("*.p", "meson-*"),
                            copy_function=copy_small)
        else:
            os.symlink(full, os.path.join(bdir, e))
    return box


def copy_small(src, dst):
    """Copies a file, or symlinks it when it is large (generated benchmark models)."""
    if os.path.getsize(src) > COPY_MAX:
        os.symlink(src, dst)
    else:
        shutil.copy2(src, dst)


def c_flags(build):
    """Compiler and linker flags for a program that uses libtaskir from the build dir."""
    env = dict(os.environ)
    env["PKG_CONFIG_PATH"] = os.path.join(build, "meson-uninstalled") + \
        (":" + env["PKG_CONFIG_PATH"] if env.get("PKG_CONFIG_PATH") else "")
    out = subprocess.run(["pkg-config", "--static", "--cflags", "--libs", "taskir"], env=env,
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError("pkg-config taskir (uninstalled): " + out.stderr.strip())
    return shlex.split(out.stdout)


def command_for(b, box, build, cc, n):
    """The shell command that runs block b (its text written to a file first if needed)."""
    name = b.file or f"doctest-block{n}.{SUFFIX[b.lang]}"
    if b.lang == "sh" and not b.file:
        return "set -e\n" + b.text
    path = os.path.join(box, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(b.text)
    q = shlex.quote(name)
    if b.file and b.lang != "c":
        return "true"       # a file for later blocks: written, not run
    if b.lang == "sh":
        return f"sh -e {q}"
    if b.lang == "xml":
        return f"taskir-compile {q} --format cinn -o {q}.pb && taskir-dump {q}.pb --verify"
    if b.lang == "python":
        return f"python3 {q}"
    if b.lang == "json":
        return f"python3 -c 'import json, sys; json.load(open(sys.argv[1]))' {q}"
    exe = os.path.splitext(name)[0]
    flags = " ".join(shlex.quote(x) for x in c_flags(build))
    return (f"{' '.join(shlex.quote(x) for x in cc)} -std=c11 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L "
            f"-o {shlex.quote(exe)} {q} {flags} && ./{shlex.quote(exe)}")


LINK = re.compile(r"\]\(([^)\s]+)\)")


def check_links(src, name):
    """The document's Markdown links that leave the repository or name nothing: a link is a
    web address (http:, https:, mailto:), an anchor (#...) or a path that, from the
    document's folder, stays inside src and exists. Code blocks are not read."""
    errors, fence = [], False
    top = os.path.realpath(src)
    with open(os.path.join(src, name), encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.lstrip().startswith("```"):
                fence = not fence
                continue
            if fence:
                continue
            for target in LINK.findall(line):
                path = target.split("#")[0]
                if not path or re.match(r"^(https?|mailto):", target):
                    continue
                full = os.path.realpath(os.path.join(src, os.path.dirname(name), path))
                if os.path.commonpath([top, full]) != top:
                    errors.append(f"{name}:{n}: the link '{target}' leaves the repository")
                elif not os.path.exists(full):
                    errors.append(f"{name}:{n}: the link '{target}' names nothing")
    return errors


OUTSIDE = re.compile(r"(?<![\w./-])((?:\.\./)*(?:seeds|shared)/[\w./-]*"
                     r"|(?:DESIGN|TASKIR-WIRE|CHIP|STYLE)\.md)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
INTEROP = "../shared/interop"


def check_sources(src, name):
    """The document's mentions of the source documents (`seeds/...`, `shared/...`, or a file
    name of theirs such as DESIGN.md) outside its section headed "Sources": the docs restate what they rely on, in our words,
    and name the sources once (docs/README.md, "Sources"). The optional interop data that
    tests read, `../shared/interop/...`, may be named where a test's behaviour is described.
    Code blocks are read too."""
    errors, fence, level = [], False, 0     # level: the Sources heading's, 0 outside it
    with open(os.path.join(src, name), encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.lstrip().startswith(("```", "~~~")):
                fence = not fence
            h = None if fence else HEADING.match(line)
            if h:
                if level and len(h.group(1)) <= level:
                    level = 0
                if h.group(2) == "Sources":
                    level = len(h.group(1))
            if level:
                continue
            for m in OUTSIDE.findall(line):
                m = m.rstrip(".")
                if not m.startswith(INTEROP + "/") and m != INTEROP:
                    errors.append(f"{name}:{n}: '{m}' names a document outside the "
                                  f"repository: say it in docs/ (sources: docs/README.md)")
    return errors


def run_doc(src, build, cc, name):
    blocks, errors = parse(os.path.join(src, name), name)
    errors += check_links(src, name)
    errors += check_sources(src, name)
    for e in errors:
        print("FAIL", e)
    failed = bool(errors)
    tmp = tempfile.mkdtemp(prefix="doctest.")
    try:
        box = make_sandbox(src, build, tmp)
        env = dict(os.environ)
        env["PATH"] = os.path.join(box, "build", "tools") + os.pathsep + env.get("PATH", "")
        env["TMPDIR"] = tmp
        for n, b in enumerate(blocks, 1):
            where = f"{name}:{b.line}: {b.lang or 'text'} block"
            if not b.lang:
                continue        # text
            if b.skip is not None:
                print(f"skip {where}: {b.skip}")
                continue
            if b.lang not in RUN_LANGS:
                continue        # reported by parse()
            if b.cond:
                r = subprocess.run(["sh", "-c", b.cond], cwd=box, env=env,
                                   capture_output=True)
                if r.returncode != 0:
                    print(f"skip {where}: the condition `{b.cond}` fails")
                    continue
            try:
                cmd = (b.setup + "\n" if b.setup else "") + command_for(b, box, build, cc, n)
            except RuntimeError as e:
                print(f"FAIL {where}: {e}")
                failed = True
                continue
            try:
                r = subprocess.run(["sh", "-ec", cmd], cwd=box, env=env, capture_output=True,
                                   timeout=b.timeout, stdin=subprocess.DEVNULL)
                rc, out, err = r.returncode, r.stdout, r.stderr
            except subprocess.TimeoutExpired as e:
                rc, out, err = None, e.stdout or b"", e.stderr or b""
            if rc == b.exit:
                print(f"ok   {where}" + (f" (exit {rc}, as documented)" if rc else ""))
                continue
            failed = True
            why = f"timed out after {b.timeout} s" if rc is None else \
                f"exit {rc}, expected {b.exit}"
            print(f"FAIL {where}: {why}")
            print("  ---- block ----")
            print("  " + b.text.rstrip("\n").replace("\n", "\n  "))
            for label, data in (("stdout", out), ("stderr", err)):
                text = data.decode("utf-8", "replace").rstrip("\n")
                if text:
                    tail = text.split("\n")[-40:]
                    print(f"  ---- {label} (last {len(tail)} lines) ----")
                    print("  " + "\n  ".join(tail))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return failed


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--srcdir")
    ap.add_argument("--builddir")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--cflag", action="append", default=[],
                    help="an extra compiler flag for C blocks (repeatable)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--check-list", action="store_true",
                    help="exit 1 unless the documents are exactly the arguments")
    ap.add_argument("--extract", metavar="NAME")
    ap.add_argument("docs", nargs="*")
    a = ap.parse_args()
    if a.list:
        if not a.srcdir:
            ap.error("--list needs --srcdir")
        print("\n".join(documents(a.srcdir)))
        return 0
    if a.check_list:
        now = documents(a.srcdir)
        if now != sorted(a.docs):
            new = sorted(set(now) - set(a.docs))
            gone = sorted(set(a.docs) - set(now))
            print(f"the documents changed since meson configured the doc suite (new: {new}, "
                  f"gone: {gone}): reconfigure (meson setup --reconfigure BUILD)")
            return 1
        print(f"{len(now)} documents")
        return 0
    if a.extract is not None:
        if len(a.docs) != 1:
            ap.error("--extract needs one document")
        blocks, errors = parse(a.docs[0], a.docs[0])
        named = [b for b in blocks if b.file == a.extract]
        if errors or len(named) != 1:
            print("\n".join(errors) or f"{a.docs[0]}: {len(named)} blocks marked "
                  f"'doctest: file {a.extract}'", file=sys.stderr)
            return 1
        sys.stdout.write(named[0].text)
        return 0
    if not a.srcdir or not a.builddir or not a.docs:
        ap.error("need --srcdir, --builddir and documents")
    a.srcdir, a.builddir = os.path.abspath(a.srcdir), os.path.abspath(a.builddir)
    failed = False
    for d in a.docs:
        if not os.path.isfile(os.path.join(a.srcdir, d)):
            print(f"FAIL {d}: no such document")
            failed = True
            continue
        failed |= run_doc(a.srcdir, a.builddir, [a.cc] + a.cflag, d)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""tests/lint/cycles.py: no dependency cycle between the source files (the lint suite).

A unit is one source file with its header: foo.c + foo.h, and foo_internal.h / foo_impl.h,
the private half of foo's interface (any other header without a .c of the same name, or a
.def table, is a unit of its own). Two graphs between units must be acyclic:

  includes  A -> B when a file of A has `#include "F"` with F a file of B (paths from the
            source root, or from the including file's folder). Read from the source tree.
  calls     A -> B when the code of A.c calls or reads something B.c defines: a relocation
            in a code section (.text*) of A's object naming a symbol that B's object
            defines. Function pointers stored in tables (data sections) are not calls, so an
            operator table may name its operators' functions while they call back into the
            table's helpers. Read from the built static libraries (nm, objdump).

The calls graph is what the include graph cannot see: files that share one internal header
(verify_impl.h) and call each other through it. Every cycle found is printed, one line
each, naming its units in order (A -> B -> ... -> A); the exit status is 1 when there is one.

  cycles.py --srcdir DIR [--dir SUBDIR ...] [--lib LIB.a ...]

--dir: the folders of DIR to read (default: every source folder of the project; folders
named fixtures, which hold the tests' deliberate cycles, are never read). Exit 77
(skipped) when --lib is given and nm or objdump is missing (Debian: binutils).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

SOURCE_DIRS = ['taskir', 'frontend', 'passes', 'mapper', 'tools', 'examples', 'bench', 'fuzz',
               'tests']
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def unit_of(path):
    """The unit of a path relative to the source root: foo.c, foo.h, foo_internal.h and
    foo_impl.h -> foo."""
    base, ext = os.path.splitext(path)
    if ext == '.h':
        for suffix in ('_internal', '_impl'):
            if base.endswith(suffix):
                return base[:-len(suffix)]
    return base if ext in ('.c', '.h') else path


def include_graph(srcdir, dirs):
    files = []
    for top in dirs:
        for root, dirs, names in os.walk(os.path.join(srcdir, top)):
            dirs[:] = sorted(d for d in dirs if d != 'fixtures')  # tests' own cycles
            for n in sorted(names):
                if n.endswith(('.c', '.h', '.def')):
                    files.append(os.path.relpath(os.path.join(root, n), srcdir))
    known = set(files)
    graph = {}
    for f in files:
        with open(os.path.join(srcdir, f), encoding='utf-8', errors='replace') as fh:
            text = fh.read()
        edges = graph.setdefault(unit_of(f), set())
        for inc in INCLUDE.findall(text):
            local = os.path.normpath(os.path.join(os.path.dirname(f), inc))
            target = inc if inc in known else local if local in known else None
            if target is not None and unit_of(target) != unit_of(f):
                edges.add(unit_of(target))
    return graph


def object_unit(member):
    """libtaskir.a.p/frontend_cvm_cvm_ops.c.o -> frontend_cvm_cvm_ops (meson's naming)."""
    return member[:-len('.c.o')] if member.endswith('.c.o') else member


def run(args):
    return subprocess.run(args, capture_output=True, text=True, check=True).stdout


def call_graph(libs):
    defined = {}
    for lib in libs:
        for line in run(['nm', '-A', '--defined-only', lib]).splitlines():
            m = re.match(r'^[^:]+:([^:]+):\s*[0-9a-fA-F]*\s+([A-Z])\s+(\S+)$', line)
            if m and m.group(2) in 'TDBRC':
                defined[m.group(3)] = object_unit(m.group(1))
    graph = {}
    for lib in libs:
        unit, code = None, False
        for line in run(['objdump', '-r', lib]).splitlines():
            m = re.match(r'^(\S+):\s+file format', line)
            if m:
                unit, code = object_unit(m.group(1)), False
                graph.setdefault(unit, set())
                continue
            m = re.match(r'^RELOCATION RECORDS FOR \[([^\]]+)\]', line)
            if m:
                code = m.group(1).startswith('.text')
                continue
            fields = line.split()
            if code and unit and len(fields) >= 3:
                target = defined.get(re.split(r'[-+]', fields[2])[0])
                if target is not None and target != unit:
                    graph[unit].add(target)
    return graph


def cycles(graph):
    """The strongly connected components of more than one unit, each as one cycle through
    all of its units when there is one, else as the component (sorted, deterministic)."""
    index, low, stack, on, comps = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        # iterative Tarjan: deep include chains must not hit Python's recursion limit
        work = [(v, iter(sorted(graph.get(v, ()))))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    advanced = True
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    comps.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    out = []
    for comp in sorted(comps):
        members = set(comp)
        # a shortest cycle back to the first unit, within the component (breadth first)
        start, prev, queue, found = comp[0], {}, [comp[0]], None
        while queue and found is None:
            nxt = []
            for u in queue:
                for w in sorted(graph.get(u, ())):
                    if w == start:
                        found = u
                        break
                    if w in members and w not in prev:
                        prev[w] = u
                        nxt.append(w)
                if found is not None:
                    break
            queue = nxt
        path = [found]
        while path[-1] != start:
            path.append(prev[path[-1]])
        path.reverse()
        rest = sorted(members - set(path))
        out.append((path + [start], rest))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--srcdir', required=True)
    ap.add_argument('--dir', action='append', default=[])
    ap.add_argument('--lib', action='append', default=[])
    a = ap.parse_args()
    if a.lib and not (shutil.which('nm') and shutil.which('objdump')):
        print('no nm / objdump (binutils): the calls graph cannot be read; skipped')
        return 77
    bad = 0
    for kind, graph in [('includes', include_graph(a.srcdir, a.dir or SOURCE_DIRS))] + (
            [('calls', call_graph(a.lib))] if a.lib else []):
        found = cycles(graph)
        for path, rest in found:
            also = ' (and %s in the same knot)' % ', '.join(rest) if rest else ''
            print('cycle (%s): %s%s' % (kind, ' -> '.join(path), also))
        bad += len(found)
        print('%s: %d units, %d cycles' % (kind, len(graph), len(found)))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())

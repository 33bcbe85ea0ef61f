#!/usr/bin/env python3
"""test_wire_doc.py: docs/wire.md restates the field numbers and enum values of proto/*.proto,
which are the authority; this checks that the two agree, both ways: every table row of the
doc names a field or enum value the schema declares with that number, type and label, and
every field and value of the schema has its row.

    test_wire_doc.py SRCDIR
"""
import os
import re
import sys

MESSAGE = re.compile(r"^message (\w+) \{(.*?)^\}", re.S | re.M)
ENUM = re.compile(r"^enum (\w+) \{(.*?)^\}", re.S | re.M)
FIELD = re.compile(r"^\s*(optional|repeated) (\w+) (\w+) = (\d+)( \[[^\]]*\])?;", re.M)
VALUE = re.compile(r"^\s*(\w+) = (\d+);", re.M)


def schema(src):
    fields, values = set(), set()
    for name in ("taskgraph.proto", "mapping.proto"):
        with open(os.path.join(src, "proto", name), encoding="utf-8") as f:
            text = f.read()
        for m in MESSAGE.finditer(text):
            for label, typ, field, num, opts in FIELD.findall(m.group(2)):
                kind = ("repeated " if label == "repeated" else "") + typ
                if "packed = true" in opts:
                    kind += ", packed"
                fields.add((m.group(1), int(num), field, kind))
        for m in ENUM.finditer(text):
            for value, num in VALUE.findall(m.group(2)):
                values.add((m.group(1), value, int(num)))
    return fields, values


def doc(src):
    fields, values, message, section = set(), set(), None, ""
    with open(os.path.join(src, "docs", "wire.md"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("## "):
                section = line[3:].strip()
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not line.startswith("|") or len(cells) < 2 or cells[0] in ("message", "enum") \
                    or (cells[0] and set(cells[0]) <= set("-")):
                continue
            if section.endswith("messages") and len(cells) == 4:
                message = cells[0].strip("`") or message
                fields.add((message, int(cells[1]), cells[2].strip("`"), cells[3]))
            elif section == "Enums" and len(cells) == 2:
                for item in cells[1].split(","):
                    value, _, num = item.strip().rpartition(" ")
                    values.add((cells[0].strip("`"), value, int(num)))
    return fields, values


def main():
    src = sys.argv[1]
    proto_fields, proto_values = schema(src)
    doc_fields, doc_values = doc(src)
    bad = 0
    for what, have, want in (("field", doc_fields, proto_fields),
                             ("enum value", doc_values, proto_values)):
        for row in sorted(have - want):
            print(f"FAIL docs/wire.md: {what} {row} is not in proto/*.proto")
            bad += 1
        for row in sorted(want - have):
            print(f"FAIL docs/wire.md: {what} {row} of proto/*.proto is missing")
            bad += 1
        print(f"{len(have & want)} {what}s agree")
    return 1 if bad or not proto_fields or not proto_values else 0


if __name__ == "__main__":
    sys.exit(main())

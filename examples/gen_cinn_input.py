#!/usr/bin/env python3
"""gen_cinn_input.py OUT.npy: writes the input of the CINN example CNN (examples/cinn_cnn.xml):
an int32 array of shape (1, 1, 12, 12), precision 8 — a ring, 127 on a circle of radius 3.5
around the image's centre, fading to 0 within 2 pixels of it. Deterministic; standard
library only (run by meson at build time, examples/meson.build)."""
import math
import struct
import sys


def ring():
    vals = []
    for i in range(12):
        for j in range(12):
            d = math.hypot(i - 5.5, j - 5.5)
            vals.append(int(127 * max(0.0, 1.0 - abs(d - 3.5) / 2.0)))
    return vals


def write_npy(path, shape, vals):
    header = "{'descr': '<i4', 'fortran_order': False, 'shape': (%s), }" % (
        ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else ""))
    pad = 64 - (10 + len(header) + 1) % 64
    header += " " * (pad % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(struct.pack("<%di" % len(vals), *vals))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gen_cinn_input.py OUT.npy")
    write_npy(sys.argv[1], (1, 1, 12, 12), ring())


if __name__ == "__main__":
    main()

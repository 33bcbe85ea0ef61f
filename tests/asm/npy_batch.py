"""tests/asm/npy_batch.py: a batch of N samples from one (tests/asm/emit_example.sh).

    python3 npy_batch.py N IN.npy OUT.npy

IN.npy: one int32 sample (as bench/pb_inputs writes it). OUT.npy: shape [N] + IN's shape,
sample j the values of IN rotated by j places, reversed when j is odd: a permutation of
IN's values, so every sample stays in the input's range, and the samples differ."""
import ast
import struct
import sys


def read(path):
    raw = open(path, 'rb').read()
    if raw[:6] != b'\x93NUMPY':
        sys.exit('%s: not a .npy file' % path)
    if raw[6] == 1:
        hl, start = struct.unpack('<H', raw[8:10])[0], 10
    else:
        hl, start = struct.unpack('<I', raw[8:12])[0], 12
    hdr = ast.literal_eval(raw[start:start + hl].decode('latin1'))
    if hdr['descr'] != '<i4' or hdr['fortran_order']:
        sys.exit('%s: %s, not a C-order <i4 array' % (path, hdr['descr']))
    body = raw[start + hl:]
    return tuple(hdr['shape']), list(struct.unpack('<%di' % (len(body) // 4), body))


def write(path, shape, values):
    dims = ', '.join(str(d) for d in shape) + (',' if len(shape) == 1 else '')
    h = "{'descr': '<i4', 'fortran_order': False, 'shape': (%s), }" % dims
    h += ' ' * (63 - (10 + len(h)) % 64) + '\n'
    with open(path, 'wb') as f:
        f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) + h.encode())
        f.write(struct.pack('<%di' % len(values), *values))


def main():
    if len(sys.argv) != 4 or not sys.argv[1].isdigit() or int(sys.argv[1]) < 1:
        sys.exit(__doc__)
    n = int(sys.argv[1])
    shape, x = read(sys.argv[2])
    out = []
    for j in range(n):
        s = x[j % len(x):] + x[:j % len(x)] if x else []
        out += s[::-1] if j % 2 else s
    write(sys.argv[3], (n,) + shape, out)


main()

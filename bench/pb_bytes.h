/* pb_bytes.h: the bytes of protobuf varints and fields on the wire, for the benchmark tools
 * that count where a .pb's bytes go (pb_weights.c, pb_copies.c). */
#ifndef TASKIR_BENCH_PB_BYTES_H
#define TASKIR_BENCH_PB_BYTES_H

#include <stdint.h>

/* Bytes of the base-128 varint of v. */
static inline uint64_t varint_len(uint64_t v)
{
    uint64_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

/* Bytes of a length-delimited field of a 1-byte tag carrying len payload bytes (0: absent). */
static inline uint64_t field_len(uint64_t len)
{
    return len ? 1 + varint_len(len) + len : 0;
}

#endif

/* pbvarint.h: runs of protobuf varints (the payload of a packed repeated integer field, or
 * several single varints back to back) counted and decoded at memory speed, for the loader's
 * large tensors (pbio.c, pbruns.h). */
#ifndef TASKIR_PBVARINT_H
#define TASKIR_PBVARINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A run of varints that pb_wire_lift (pbio.h) took out of a .pb: [p, p + len), not yet
 * checked to be well-formed. */
typedef struct PbRun {
    const uint8_t *p;
    size_t len;
} PbRun;

/* The number of varints that end in [p, p + n): its bytes without the high bit. */
uint64_t pb_varint_count(const uint8_t *p, size_t n);

/* Decodes the varints of [p, p + n) into out[0 .. count), count = pb_varint_count(p, n), each
 * as its low 32 bits (what protobuf reads for an int32 or uint32 field, also from the 10-byte
 * form of a negative int32). false, with out partly written, when the run is malformed as
 * protobuf-c refuses it: a varint longer than 10 bytes, or the last one cut off at the end. */
bool pb_varint_decode32(const uint8_t *p, size_t n, uint32_t *out, uint64_t count);

/* What pb_varint_decode8 found. */
typedef enum PbNarrow {
    PB_NARROW_OK,        /* every value is in -128 .. 127 as an int32: out holds them */
    PB_NARROW_WIDE,      /* a value is not (out partly written): decode32 the run instead */
    PB_NARROW_MALFORMED  /* the run is malformed, as for pb_varint_decode32 */
} PbNarrow;

/* pb_varint_decode32 into int8 values: each varint's low 32 bits as an int32, which must be
 * in -128 .. 127 (the int8 weights of a model, 1 byte a value where decode32 takes 4). With
 * BMI2 in one pass, the block decoder storing a byte a value; else cut into chunks of 4 KiB
 * decoded by pb_varint_decode32 into a scratch array on the stack, then narrowed. Where a run
 * is both wide and malformed, the answer may be either (both mean: decode32 it). */
PbNarrow pb_varint_decode8(const uint8_t *p, size_t n, int8_t *out, uint64_t count);

/* The ways of decoding, all with the same results: a byte at a time; eight bytes at a time
 * (little-endian CPUs); the same with the BMI2 bit gather (x86-64 CPUs that have it, asked at
 * run time); BEST, the fastest this CPU has (what pb_varint_decode32 takes). */
typedef enum PbVarintPath {
    PB_VARINT_BYTES,
    PB_VARINT_WORDS,
    PB_VARINT_BMI2,
    PB_VARINT_BEST,
} PbVarintPath;

/* Whether this build and CPU have path. */
bool pb_varint_path_ok(PbVarintPath path);
/* pb_varint_decode32 by one path (a path this CPU lacks falls back to PB_VARINT_BYTES). */
bool pb_varint_decode32_by(PbVarintPath path, const uint8_t *p, size_t n, uint32_t *out,
                           uint64_t count);
/* pb_varint_decode8 by one path: PB_VARINT_BMI2 (or BEST) the one-pass decoder where the CPU
 * has BMI2, any other the chunks through pb_varint_decode32 of that CPU's best path. */
PbNarrow pb_varint_decode8_by(PbVarintPath path, const uint8_t *p, size_t n, int8_t *out,
                              uint64_t count);

#endif

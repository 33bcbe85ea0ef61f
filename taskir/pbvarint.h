/* pbvarint.h: runs of protobuf varints (the payload of a packed repeated integer field, or
 * several single varints back to back) counted and decoded at memory speed, for the loader's
 * large tensors (pbio.c). Private to taskir/pb*.c. */
#ifndef TASKIR_PBVARINT_H
#define TASKIR_PBVARINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The number of varints that end in [p, p + n): its bytes without the high bit. */
uint64_t pb_varint_count(const uint8_t *p, size_t n);

/* Decodes the varints of [p, p + n) into out[0 .. count), count = pb_varint_count(p, n), each
 * as its low 32 bits (what protobuf reads for an int32 or uint32 field, also from the 10-byte
 * form of a negative int32). false, with out partly written, when the run is malformed as
 * protobuf-c refuses it: a varint longer than 10 bytes, or the last one cut off at the end. */
bool pb_varint_decode32(const uint8_t *p, size_t n, uint32_t *out, uint64_t count);

#endif

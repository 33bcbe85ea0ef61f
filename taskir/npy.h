/* npy.h: NumPy .npy files (format versions 1.0, 2.0 and 3.0: magic, header dict, raw data),
 * for the inputs and outputs of taskir-run. Reads little-endian (or byte-order-free)
 * int8, uint8, int16, uint16, int32, int64 and float32 arrays in C order (integers widened to
 * int32: an int64 value outside int32 is a logic error [npy.range] naming the element, since no
 * precision holds it); writes int32, int8, uint8 and int16. A malformed header, a
 * Fortran-order array, an unsupported dtype or a data size that disagrees with the shape is a
 * logic error [npy.*]; shapes are checked against NPY_MAX_DIMS and TIR_MAX_NPY_ELEMS before
 * anything is allocated. */
#ifndef TASKIR_NPY_H
#define TASKIR_NPY_H

#include "taskir/diag.h"

#include <stddef.h>
#include <stdint.h>

#define NPY_MAX_DIMS 8
#define TIR_MAX_NPY_ELEMS ((int64_t)1 << 30)

typedef enum { NPY_I8, NPY_U8, NPY_I16, NPY_I32, NPY_F32, NPY_U16, NPY_I64 } NpyDtype;

typedef struct NpyArray {
    NpyDtype dtype;
    uint32_t ndim;                   /* 0 for a scalar */
    int64_t shape[NPY_MAX_DIMS];
    int64_t count;                   /* product of shape (1 for a scalar) */
    int32_t *i32;                    /* the values widened to int32 (NULL for float32) */
    float *f32;                      /* float32 values (NULL otherwise) */
} NpyArray;

/* Parses an .npy image. On success out owns malloc'd data: npy_free it. */
Status npy_read_mem(const uint8_t *buf, size_t len, NpyArray *out, Diag *d);
/* Reads path ("-" = stdin) and parses it. */
Status npy_read(const char *path, NpyArray *out, Diag *d);
/* Encodes an int32 array as a version 1.0 .npy image ('<i4', C order) into a malloc'd
 * buffer. */
Status npy_encode_i32(const int32_t *data, const int64_t *shape, uint32_t ndim, uint8_t **buf,
                      size_t *len, Diag *d);
/* Encodes and writes atomically. */
Status npy_write_i32(const char *path, const int32_t *data, const int64_t *shape,
                     uint32_t ndim, Diag *d);
/* The same with the element type dtype: NPY_I8 ('|i1'), NPY_U8 ('|u1'), NPY_I16 ('<i2'), else
 * int32; each value is narrowed as a C cast does (two's complement, modulo 2^bits). */
Status npy_encode(NpyDtype dtype, const int32_t *data, const int64_t *shape, uint32_t ndim,
                  uint8_t **buf, size_t *len, Diag *d);
Status npy_write(const char *path, NpyDtype dtype, const int32_t *data, const int64_t *shape,
                 uint32_t ndim, Diag *d);
void npy_free(NpyArray *a); /* accepts NULL; leaves a zeroed array */
const char *npy_dtype_name(NpyDtype t); /* "int8", "uint8", ... */

#endif

/* onnx_build.h: writing small ONNX models (ModelProto bytes, packed with protobuf-c), for the
 * example generator (examples/gen_onnx.c) and the tests. Not a general ONNX writer: tensors
 * of the integer types and float32, nodes with int, ints, float and string attributes, one
 * graph, one opset of the default domain.
 *
 * Usage: ob = fe_onnx_builder_create(opset); add inputs, initializers, nodes and outputs;
 * fe_onnx_builder_pack(ob, &buf, &len); fe_onnx_builder_destroy(ob). Calls after an out of
 * memory are ignored and pack reports it.
 */
#ifndef FRONTEND_ONNX_BUILD_H
#define FRONTEND_ONNX_BUILD_H

#include "taskir/diag.h"

#include <stddef.h>
#include <stdint.h>

typedef struct OnnxBuilder OnnxBuilder;

/* An attribute of a node: exactly one of the value forms, chosen by kind. */
typedef enum { OBA_INT, OBA_INTS, OBA_FLOAT, OBA_STRING } OnnxBuildAttrKind;

typedef struct OnnxBuildAttr {
    const char *name;
    OnnxBuildAttrKind kind;
    int64_t i;
    const int64_t *ints;
    size_t n;
    float f;
    const char *s;
} OnnxBuildAttr;

OnnxBuilder *fe_onnx_builder_create(int64_t opset);
void fe_onnx_builder_destroy(OnnxBuilder *b); /* accepts NULL */

/* A graph input / output of element type (OnnxType) and dims. */
void fe_onnx_builder_input(OnnxBuilder *b, const char *name, int32_t type, const int64_t *dims,
                           size_t ndim);
void fe_onnx_builder_output(OnnxBuilder *b, const char *name, int32_t type,
                            const int64_t *dims, size_t ndim);
/* An initializer: integer types from ints (stored in raw_data), float from floats
 * (float_data). */
void fe_onnx_builder_init(OnnxBuilder *b, const char *name, int32_t type, const int64_t *dims,
                          size_t ndim, const int64_t *ints, const float *floats);
/* A node of the default domain; inputs / outputs NULL-terminated ("" = an omitted input). */
void fe_onnx_builder_node(OnnxBuilder *b, const char *op_type, const char *name,
                          const char *const *inputs, const char *const *outputs,
                          const OnnxBuildAttr *attrs, size_t nattrs);
/* The model's bytes (malloc'd). Runtime error on out of memory. */
Status fe_onnx_builder_pack(OnnxBuilder *b, uint8_t **buf, size_t *len, Diag *d);

#endif

/* run_model.h: running a CVM model on NumPy arrays: what `taskir-run MODEL.json --params P
 * --input data=X.npy -o DIR` does between reading the files and writing the outputs.
 *
 * The arrays given by name are matched to the model's inputs, checked (every input given
 * exactly once, an integer dtype, the model's declared shape) and run through the reference
 * interpreter (interp.h), which also checks the values against the input's precision. The
 * result is one int32 tensor per model output (head), in the model's own shape: the K-th
 * head is what taskir-run writes as DIR/outputK.npy, exactly as it writes OUTPUT socket K of
 * the compiled TaskGraph. A lowered model gives byte-identical files since its OUTPUT blocks
 * declare the heads' shapes as their model tensors (socket K = head K), which the simulator
 * gives its results when the model's batch is run.
 */
#ifndef FRONTEND_RUN_MODEL_H
#define FRONTEND_RUN_MODEL_H

#include "frontend/opgraph.h"
#include "taskir/diag.h"
#include "taskir/npy.h"
#include "taskir/progress.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One named input array. */
typedef struct FeModelInput {
    const char *name;           /* the model input's name ("data"), or its position ("0") */
    const NpyArray *array;      /* int8 / uint8 / int16 / int32 values (i32 filled) */
    const char *file;           /* where the array came from, for messages; may be NULL */
} FeModelInput;

/* True when a taskir-run / taskir-compile input looks like a CVM graph JSON rather than a
 * TaskGraph .pb: its path ends in ".json", or its first byte is '{' (0x7b would open a
 * protobuf group, which no TaskGraph uses, so a .pb never starts with it). buf may be NULL
 * (len 0) when only the path is known. */
bool fe_looks_like_cvm(const char *path, const uint8_t *buf, size_t len);

/* Runs g on the given arrays. outputs must have room for g->noutputs tensors; outputs[j]
 * receives head j (malloc'd: og_tensor_free each). Logic errors, naming the input
 * ("input 'data'"): [cvm.input.unknown] a name that is no model input, [cvm.input.duplicate]
 * an input given twice, [cvm.input.missing] an input not given, [cvm.input.dtype] float
 * data, [cvm.input.shape] a shape other than the declared one (both shapes in the message);
 * then the interpreter's own errors (values outside the input's precision
 * [cvm.input.range], ...). On failure no output is left allocated. */
Status fe_run_model(const OpGraph *g, const FeModelInput *inputs, uint32_t ninputs,
                    OgTensor *outputs, Diag *d);
/* fe_run_model reporting the interpreter's progress (fe_interp_run_progress; may be NULL). */
Status fe_run_model_progress(const OpGraph *g, const FeModelInput *inputs, uint32_t ninputs,
                             OgTensor *outputs, const TirProgress *progress, Diag *d);

#endif

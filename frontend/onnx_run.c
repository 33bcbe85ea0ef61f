/* onnx_run.c: running an ONNX model on .npy arrays (fe_onnx_run, onnx.h): match the arrays
 * to the graph inputs, convert them at the model's edges, interpret, and give the outputs
 * their ONNX shapes (as the compiled graph's OUTPUT blocks declare them). */
#include "frontend/interp.h"
#include "frontend/onnx.h"
#include "frontend/run_model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int32_t find_input(const OnnxModel *m, const char *name)
{
    for (uint32_t k = 0; k < m->ninputs; k++)
        if (strcmp(m->inputs[k].name, name) == 0)
            return (int32_t)k;
    char *end;
    errno = 0;
    long v = strtol(name, &end, 10);
    if (*name >= '0' && *name <= '9' && !*end && !errno && v >= 0 && v < (long)m->ninputs)
        return (int32_t)v;
    return -1;
}

static Status convert(const OnnxModel *m, uint32_t k, const FeModelInput *in, OgTensor *t,
                      Diag *d)
{
    const NpyArray *a = in->array;
    const OnnxEdge *e = &m->inputs[k];
    char where[320];
    snprintf(where, sizeof where, "input '%s'", e->name);
    bool same = a->ndim == e->shape.ndim;
    for (uint32_t j = 0; same && j < a->ndim; j++)
        same = a->shape[j] == e->shape.d[j];
    if (!same) {
        char want[128], have[128];
        OgShape as = {0, {0}};
        for (uint32_t j = 0; j < a->ndim && j < OG_MAX_DIMS; j++)
            as.d[as.ndim++] = a->shape[j];
        og_shape_str(&e->shape, want, sizeof want);
        og_shape_str(&as, have, sizeof have);
        return diag_add(d, ST_LOGIC, "onnx.input.shape", where, "%s has shape %s%s, the "
                        "model's input %s", in->file ? in->file : "the array", have,
                        a->ndim > OG_MAX_DIMS ? " (and more dims)" : "", want);
    }
    int64_t *ints = NULL;
    if (a->i32) {
        ints = malloc((size_t)(a->count ? a->count : 1) * sizeof *ints);
        if (!ints)
            return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
        for (int64_t i = 0; i < a->count; i++)
            ints[i] = a->i32[i];
    }
    Status st = fe_onnx_input_convert(m, k, ints, a->f32, a->count, t, d);
    free(ints);
    return st;
}

NpyDtype fe_onnx_output_dtype(const OnnxModel *m, uint32_t j)
{
    switch (m->g->out_decl[j].dtype) {
    case OG_DT_INT8:
        return NPY_I8;
    case OG_DT_UINT8:
        return NPY_U8;
    case OG_DT_INT16:
        return NPY_I16;
    default:
        return NPY_I32;
    }
}

Status fe_onnx_run(const OnnxModel *m, const FeModelInput *inputs, uint32_t ninputs,
                   OgTensor *outputs, Diag *d)
{
    return fe_onnx_run_progress(m, inputs, ninputs, outputs, NULL, d);
}

Status fe_onnx_run_progress(const OnnxModel *m, const FeModelInput *inputs, uint32_t ninputs,
                            OgTensor *outputs, const TirProgress *progress, Diag *d)
{
    for (uint32_t j = 0; j < m->noutputs; j++)
        memset(&outputs[j], 0, sizeof outputs[j]);
    OgTensor *t = calloc(m->ninputs ? m->ninputs : 1, sizeof *t);
    bool *given = calloc(m->ninputs ? m->ninputs : 1, sizeof *given);
    Status st = t && given ? ST_OK : diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    for (uint32_t i = 0; st == ST_OK && i < ninputs; i++) {
        char where[320];
        snprintf(where, sizeof where, "input '%s'", inputs[i].name);
        int32_t k = find_input(m, inputs[i].name);
        if (k < 0)
            st = diag_add(d, ST_LOGIC, "onnx.input.unknown", where, "the model has no input of "
                          "that name");
        else if (given[k])
            st = diag_add(d, ST_LOGIC, "onnx.input.duplicate", where, "given twice");
        else {
            given[k] = true;
            st = convert(m, (uint32_t)k, &inputs[i], &t[k], d);
        }
    }
    for (uint32_t k = 0; st == ST_OK && k < m->ninputs; k++)
        if (!given[k]) {
            char where[320];
            snprintf(where, sizeof where, "input '%s'", m->inputs[k].name);
            st = diag_add(d, ST_LOGIC, "onnx.input.missing", where, "no array given for this "
                          "model input");
        }
    if (st == ST_OK)
        st = fe_interp_run_progress(m->g, t, m->ninputs, outputs, progress, d);
    for (uint32_t j = 0; st == ST_OK && j < m->noutputs; j++)
        outputs[j].shape = *og_output_shape(m->g, j);   /* the ONNX shape */
    for (uint32_t k = 0; t && k < m->ninputs; k++)
        og_tensor_free(&t[k]);
    free(t);
    free(given);
    return st;
}

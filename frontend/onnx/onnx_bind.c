/* onnx_bind.c: what OnnxOptions says about graph inputs (onnx.h): inputs bound to constants
 * (taskir-compile / taskir-run --const NAME=X.npy, the conformance harness's parameters) and
 * declared value ranges (--input-range NAME=LO..HI).
 *
 * A bound value takes the input's declared element type and must have its declared shape
 * (dims given as dim_param, -1 here, match any extent): integers into a float input must be exact in
 * float32 (|v| <= 2^24), floats into an integer input must be integers, and every value must
 * lie in the declared type's range [onnx.input.value]; another shape is [onnx.input.shape]
 * naming both shapes. Every name bound or given a range must be a graph input
 * [onnx.input.unknown], and none may be both [onnx.input.range].
 */
#include "frontend/onnx/onnx_internal.h"

#include <stdlib.h>
#include <string.h>

Status fe_onnx_tensor_from_npy(const NpyArray *a, const char *what, OnnxTensor *t, Diag *d)
{
    memset(t, 0, sizeof *t);
    static const int32_t types[] = {
        [NPY_I8] = ONNX_T_INT8, [NPY_U8] = ONNX_T_UINT8, [NPY_I16] = ONNX_T_INT16,
        [NPY_I32] = ONNX_T_INT32, [NPY_F32] = ONNX_T_FLOAT,
    };
    if ((size_t)a->dtype >= sizeof types / sizeof *types || a->ndim > OG_MAX_DIMS)
        return diag_add(d, ST_LOGIC, "onnx.input.shape", what, "has %u dims; a tensor has at "
                        "most %d", a->ndim, OG_MAX_DIMS);
    t->type = types[a->dtype];
    t->ndim = a->ndim;
    for (uint32_t k = 0; k < a->ndim; k++)
        t->dims[k] = a->shape[k];
    t->count = a->count;
    size_t n = a->count > 0 ? (size_t)a->count : 1;
    if (a->f32 && (t->f = malloc(n * sizeof *t->f)))
        memcpy(t->f, a->f32, (size_t)a->count * sizeof *t->f);
    if (!a->f32 && (t->i = malloc(n * sizeof *t->i)))
        for (int64_t i = 0; i < a->count; i++)
            t->i[i] = a->i32[i];
    t->name = "";
    return t->i || t->f ? ST_OK : diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
}

const OnnxInputRange *onnx_input_range(const OnnxOptions *opt, const char *name)
{
    for (uint32_t i = 0; opt && i < opt->nranges; i++)
        if (opt->ranges[i].name && name && strcmp(opt->ranges[i].name, name) == 0)
            return &opt->ranges[i];
    return NULL;
}

static void tensor_shape(const OnnxTensor *t, OgShape *s)
{
    memset(s, 0, sizeof *s);
    s->ndim = t->ndim;
    for (uint32_t k = 0; k < t->ndim; k++)
        s->d[k] = t->dims[k];
}

Status onnx_bind_value(OnnxCtx *c, const char *where, int32_t type, const OgShape *declared,
                       const OnnxTensor *b, OnnxTensor *out)
{
    memset(out, 0, sizeof *out);
    OgShape have;
    tensor_shape(b, &have);
    bool same = !declared || declared->ndim == have.ndim;
    for (uint32_t k = 0; declared && same && k < have.ndim; k++)
        same = declared->d[k] < 0 || declared->d[k] == have.d[k];   /* -1: a dim_param */
    if (!same) {
        char sa[128], sb[128];
        return diag_add(c->d, ST_LOGIC, "onnx.input.shape", where, "is bound to a tensor of "
                        "shape %s; the input's declared shape is %s",
                        og_shape_str(&have, sa, sizeof sa), og_shape_str(declared, sb, sizeof sb));
    }
    *out = *b;
    out->i = NULL;
    out->f = NULL;
    size_t n = b->count > 0 ? (size_t)b->count : 1;
    if (type == ONNX_T_UNDEFINED || type == b->type) {   /* the value as it is */
        if (b->i && (out->i = malloc(n * sizeof *out->i)))
            memcpy(out->i, b->i, (size_t)b->count * sizeof *out->i);
        if (b->f && (out->f = malloc(n * sizeof *out->f)))
            memcpy(out->f, b->f, (size_t)b->count * sizeof *out->f);
        return out->i || out->f ? ST_OK : onnx_oom(c);
    }
    if (type != ONNX_T_FLOAT && !onnx_type_prec(type))
        return diag_add(c->d, ST_LOGIC, "onnx.type", where, "has element type %s; a bound "
                        "value is converted to float or an integer type",
                        fe_onnx_type_name(type));
    if (!onnx_tensor_retype(b, type, out))
        return onnx_oom(c);
    int64_t lo, hi;
    onnx_type_range(out->type, &lo, &hi);
    for (int64_t k = 0; k < b->count; k++) {
        double v = b->f ? (double)b->f[k] : (double)b->i[k];
        if (out->f) {
            if (!b->f && !(v >= -16777216.0 && v <= 16777216.0)) {
                fe_onnx_tensor_free(out);
                return diag_add(c->d, ST_LOGIC, "onnx.input.value", where, "element %lld is "
                                "%.0f, which float32 does not hold exactly", (long long)k, v);
            }
            out->f[k] = b->f ? b->f[k] : (float)b->i[k];
            continue;
        }
        if (!onnx_is_int(v) || v < (double)lo || v > (double)hi) {
            fe_onnx_tensor_free(out);
            return diag_add(c->d, ST_LOGIC, "onnx.input.value", where, "element %lld is %.9g, "
                            "not an integer of the input's type %s (%lld..%lld)",
                            (long long)k, v, fe_onnx_type_name(out->type), (long long)lo,
                            (long long)hi);
        }
        out->i[k] = b->i ? b->i[k] : (int64_t)v;
    }
    return ST_OK;
}

/* Is name one of the graph's inputs? */
static bool graph_input(const Onnx__GraphProto *gr, const char *name)
{
    for (size_t i = 0; i < gr->n_input; i++)
        if (gr->input[i]->name && strcmp(gr->input[i]->name, name) == 0)
            return true;
    return false;
}

Status onnx_check_options(OnnxCtx *c, const Onnx__GraphProto *gr)
{
    const OnnxOptions *opt = c->opt;
    for (uint32_t i = 0; opt && i < opt->nbind; i++) {
        const char *nm = opt->bind[i].name ? opt->bind[i].name : "";
        char where[300];
        snprintf(where, sizeof where, "input '%s'", nm);
        if (!graph_input(gr, nm))
            return diag_add(c->d, ST_LOGIC, "onnx.input.unknown", where, "is bound to a "
                            "constant, but the model has no graph input of that name");
        if (onnx_input_range(opt, nm))
            return diag_add(c->d, ST_LOGIC, "onnx.input.range", where, "is bound to a "
                            "constant and also given a range");
    }
    for (uint32_t i = 0; opt && i < opt->nranges; i++) {
        const OnnxInputRange *r = &opt->ranges[i];
        char where[300];
        snprintf(where, sizeof where, "input '%s'", r->name ? r->name : "");
        if (!r->name || !graph_input(gr, r->name))
            return diag_add(c->d, ST_LOGIC, "onnx.input.unknown", where, "is given a range, "
                            "but the model has no graph input of that name");
        if (r->lo > r->hi || r->lo < -(int64_t)INT32_MAX || r->hi > INT32_MAX)
            return diag_add(c->d, ST_LOGIC, "onnx.input.range", where, "the range %lld..%lld "
                            "is empty or leaves int32", (long long)r->lo, (long long)r->hi);
    }
    return ST_OK;
}

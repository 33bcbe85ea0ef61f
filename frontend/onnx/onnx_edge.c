/* onnx_edge.c: the host side of an ONNX model's edges (onnx.h) and the reference rounding.
 *
 * Rounding is onnxruntime's: QuantizeLinear computes round_half_even(x / scale) in float32,
 * adds the zero point and saturates; requantization computes float32(acc) * M in float32,
 * saturates to [lo - zp, hi - zp], rounds half to even and adds the zero point. Float32
 * arithmetic is IEEE single precision with round-to-nearest (C11 Annex F; FLT_EVAL_METHOD 0
 * on the targets we build for); `volatile` keeps each product rounded to float. A NaN
 * quantizes to the zero point.
 */
#include "frontend/onnx/onnx_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

float onnx_rne(float x)
{
    if (!(x > -8388608.0f && x < 8388608.0f))
        return x;                    /* already an integer (or NaN / infinite) */
    double d = x;
    int64_t i = (int64_t)d;
    if ((double)i > d)
        i--;                         /* floor */
    double frac = d - (double)i;     /* exact */
    if (frac > 0.5 || (frac == 0.5 && (i & 1)))
        i++;
    return (float)i;
}

int32_t fe_onnx_quantize(float x, float scale, int32_t zp, int32_t lo, int32_t hi)
{
    volatile float q = x / scale;
    float r = onnx_rne(q);
    if (r != r)
        return zp < lo ? lo : zp > hi ? hi : zp;
    double v = (double)r + zp;
    return v < lo ? lo : v > hi ? hi : (int32_t)v;
}

int32_t fe_onnx_requantize(int64_t acc, float multiplier, int32_t zp, int32_t lo, int32_t hi)
{
    volatile float fa = (float)acc;
    volatile float p = fa * multiplier;
    float lo_f = (float)((int64_t)lo - zp), hi_f = (float)((int64_t)hi - zp);
    float v = p;
    if (!(v >= lo_f))
        v = lo_f;                    /* NaN too */
    if (v > hi_f)
        v = hi_f;
    return (int32_t)onnx_rne(v) + zp;
}

static Status efail(Diag *d, const OnnxEdge *e, const char *what_kind, const char *rule,
                    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static Status efail(Diag *d, const OnnxEdge *e, const char *what_kind, const char *rule,
                    const char *fmt, ...)
{
    char where[300], what[512];
    snprintf(where, sizeof where, "%s '%s'", what_kind, e->name);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return diag_add(d, ST_LOGIC, rule, where, "%s", what);
}

/* The channel of flat element i for per-axis parameters. */
static int64_t channel(const OnnxEdge *e, int64_t i)
{
    if (e->nq <= 1)
        return 0;
    int64_t inner = 1;
    for (uint32_t k = (uint32_t)e->axis + 1; k < e->shape.ndim; k++)
        inner *= e->shape.d[k];
    return (i / inner) % e->nq;
}

Status fe_onnx_input_convert(const OnnxModel *m, uint32_t k, const int64_t *ints,
                             const float *floats, int64_t n, OgTensor *out, Diag *d)
{
    memset(out, 0, sizeof *out);
    if (k >= m->ninputs)
        return diag_add(d, ST_RUNTIME, "internal", NULL, "no input %u", k);
    const OnnxEdge *e = &m->inputs[k];
    int64_t want = og_shape_volume(&e->shape);
    if (n != want) {
        char sb[128];
        return efail(d, e, "input", "onnx.input.shape", "has %lld values; the model's shape %s "
                     "holds %lld", (long long)n, og_shape_str(&e->shape, sb, sizeof sb),
                     (long long)want);
    }
    const OgNode *in = og_input(m->g, k);
    if (!in || !og_tensor_alloc(out, &in->out_shape[0]))
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    int64_t lo = e->lo, hi = e->hi;
    for (int64_t i = 0; i < n; i++) {
        int64_t v;
        if (e->kind == ONNX_EDGE_FLOAT_BITS) {
            if (!floats) {
                og_tensor_free(out);
                return efail(d, e, "input", "onnx.input.dtype", "carries float32 bit patterns: "
                             "give float32 values");
            }
            int32_t b;
            memcpy(&b, &floats[i], sizeof b);
            out->data[i] = b;
            continue;
        }
        if (floats && e->kind == ONNX_EDGE_QUANT) {
            int64_t ch = channel(e, i);
            v = fe_onnx_quantize(floats[i], e->scale[ch], e->zero_point[ch], (int32_t)lo,
                                 (int32_t)hi);
        } else if (floats && e->kind == ONNX_EDGE_FLOAT_INT) {
            float x = floats[i];
            /* range first: converting a float outside int64 (or NaN) is undefined */
            double r = x > -2147483648.0f && x < 2147483648.0f ? (double)(int64_t)x : 0.0;
            if (!(x > -2147483648.0f && x < 2147483648.0f) || r != (double)x) {
                og_tensor_free(out);
                return efail(d, e, "input", "onnx.input.value", "element %lld is %.9g, not an "
                             "integer: this model computes on integers", (long long)i,
                             (double)x);
            }
            v = (int64_t)r;
        } else if (ints) {
            v = ints[i];
        } else {
            og_tensor_free(out);
            return efail(d, e, "input", "onnx.input.dtype", "takes integer values");
        }
        if (v < lo || v > hi) {
            og_tensor_free(out);
            return efail(d, e, "input", "onnx.input.value", "element %lld is %lld, outside the "
                         "input's range %lld..%lld%s", (long long)i, (long long)v,
                         (long long)lo, (long long)hi,
                         e->kind == ONNX_EDGE_FLOAT_INT ? " (a float input holding integers: "
                         "--input-range declares its range)" : "");
        }
        out->data[i] = (int32_t)v;
    }
    return ST_OK;
}

Status fe_onnx_output_convert(const OnnxModel *m, uint32_t j, const int32_t *v, int64_t n,
                              int64_t **ints, float **floats, Diag *d)
{
    *ints = NULL;
    *floats = NULL;
    if (j >= m->noutputs)
        return diag_add(d, ST_RUNTIME, "internal", NULL, "no output %u", j);
    const OnnxEdge *e = &m->outputs[j];
    size_t cnt = n > 0 ? (size_t)n : 1;
    if (e->kind == ONNX_EDGE_INT) {
        if (!(*ints = malloc(cnt * sizeof **ints)))
            return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
        for (int64_t i = 0; i < n; i++)
            (*ints)[i] = v[i];
        return ST_OK;
    }
    if (!(*floats = malloc(cnt * sizeof **floats)))
        return diag_add(d, ST_RUNTIME, "oom", NULL, "out of memory");
    for (int64_t i = 0; i < n; i++) {
        if (e->kind == ONNX_EDGE_FLOAT_BITS) {
            memcpy(&(*floats)[i], &v[i], sizeof v[i]);
        } else if (e->kind == ONNX_EDGE_DEQUANT) {
            int64_t ch = channel(e, i);
            volatile float q = (float)((int64_t)v[i] - e->zero_point[ch]);
            (*floats)[i] = q * e->scale[ch];
        } else {
            (*floats)[i] = (float)v[i];
        }
    }
    return ST_OK;
}

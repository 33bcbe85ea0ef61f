/* cvm_ops_elemwise.c: abs, negative, cvm_precision, elemwise_add, elemwise_sub and clip
 * (the CVM design text, "Elemwise Operators").
 *
 * cvm_precision: the CVM formalization prints ceil(log2(abs(x+1))), the CVM design text
 * ceil(log2(abs(x)+1)); they disagree for negative x and we follow the design text (which
 * also matches its prose: "how many bits the absolute value of a number takes"). For x != 0
 * that is the bit length of |x| (docs/cvm-divergences.md).
 */
#include "frontend/cvm/cvm_ops.h"

Status cvm_shape_elemwise2(CvmCtx *c, const OgShape *in, OgShape *out)
{
    if (!og_shape_eq(&in[0], &in[1])) {
        char a[96], b[96];
        return cvm_fail(c, "cvm.shape.mismatch", "the inputs have shapes %s and %s, expected equal",
                        og_shape_str(&in[0], a, sizeof a), og_shape_str(&in[1], b, sizeof b));
    }
    out[0] = in[0];
    return ST_OK;
}

Status cvm_run_abs(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    for (int64_t i = 0; i < out->count; i++) {
        int64_t x = in[0]->data[i];
        out->data[i] = cvm_i32(c, x < 0 ? -x : x);
    }
    return ST_OK;
}

Status cvm_run_negative(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    for (int64_t i = 0; i < out->count; i++)
        out->data[i] = cvm_i32(c, -(int64_t)in[0]->data[i]);
    return ST_OK;
}

/* cvm-runtime gives cvm_precision outputs a fixed precision of 6 (values are at most 32). */
Status cvm_prec_cvm_precision(CvmCtx *c, const OgShape *in, const int32_t *in_prec,
                              int32_t *out_prec)
{
    (void)c, (void)in, (void)in_prec;
    out_prec[0] = 6;
    return ST_OK;
}

Status cvm_run_cvm_precision(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    (void)c;
    for (int64_t i = 0; i < out->count; i++) {
        int64_t x = in[0]->data[i];
        out->data[i] = x == 0 ? 1 : cvm_bits((uint64_t)(x < 0 ? -x : x));
    }
    return ST_OK;
}

Status cvm_run_elemwise_add(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    for (int64_t i = 0; i < out->count; i++)
        out->data[i] = cvm_i32(c, (int64_t)in[0]->data[i] + in[1]->data[i]);
    return ST_OK;
}

Status cvm_run_elemwise_sub(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    for (int64_t i = 0; i < out->count; i++)
        out->data[i] = cvm_i32(c, (int64_t)in[0]->data[i] - in[1]->data[i]);
    return ST_OK;
}

/* ---- clip ---- */

static const CvmAttrSpec clip_attrs[] = {
    {"a_min", CA_INT, NULL, -CVM_I32_HI, CVM_I32_HI, 0, 0, NULL},
    {"a_max", CA_INT, NULL, -CVM_I32_HI, CVM_I32_HI, 0, 0, NULL},
};

Status cvm_parse_clip(CvmCtx *c, const CvmRawAttrs *raw)
{
    Status st = cvm_parse_attrs(c, raw, clip_attrs, sizeof clip_attrs / sizeof *clip_attrs);
    if (st != ST_OK)
        return st;
    int64_t lo = og_attr_int(c->n, "a_min", 0), hi = og_attr_int(c->n, "a_max", 0);
    if (lo >= hi)
        return cvm_fail_attr(c, "a_max", "= %lld must be greater than a_min = %lld",
                             (long long)hi, (long long)lo);
    return ST_OK;
}

/* cvm-runtime: GetNumberPrecision(max(|a_min|, |a_max|)). */
Status cvm_prec_clip(CvmCtx *c, const OgShape *in, const int32_t *in_prec, int32_t *out_prec)
{
    (void)in, (void)in_prec;
    int64_t lo = og_attr_int(c->n, "a_min", 0), hi = og_attr_int(c->n, "a_max", 0);
    int64_t r = lo < 0 ? -lo : lo;
    if ((hi < 0 ? -hi : hi) > r)
        r = hi < 0 ? -hi : hi;
    out_prec[0] = cvm_number_prec(r);
    return ST_OK;
}

Status cvm_run_clip(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    int64_t lo = og_attr_int(c->n, "a_min", 0), hi = og_attr_int(c->n, "a_max", 0);
    for (int64_t i = 0; i < out->count; i++)
        out->data[i] = cvm_i32(c, cvm_clamp64(in[0]->data[i], lo, hi));
    return ST_OK;
}

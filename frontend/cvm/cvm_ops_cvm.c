/* cvm_ops_cvm.c: the CVM requantization operators cvm_clip, cvm_left_shift, cvm_right_shift,
 * and the table lookup cvm_lut.
 *
 * the CVM design text: precision and shift_bit in [1, 33); alpha = 2^(precision-1) - 1;
 *   cvm_clip:        Y = clip(X, -alpha, alpha)
 *   cvm_right_shift: Y = clip(floor((floor(X / 2^(shift_bit-1)) + 1) / 2), -alpha, alpha)
 *                    (round half up: -1.5 rounds to -1)
 *   cvm_left_shift:  Y = clip(X * 2^shift_bit, -alpha, alpha)
 * computed exactly in int64 for every shift_bit (cvm-runtime's int32 code differs for
 * shift_bit >= 31 or precision + shift_bit >= 32: docs/cvm-divergences.md).
 * The formalization defines only the signed form: is_sign must be true.
 * cvm_lut(indices, table) = take(table, indices, axis=None) (the CVM formalization).
 */
#include "frontend/cvm/cvm_ops.h"

static const CvmAttrSpec clip_attrs[] = {
    {"precision", CA_INT, NULL, 1, 32, 0, 0, NULL},
    {"is_sign", CA_BOOL, "true", 0, 0, 0, 0, NULL},
};

static const CvmAttrSpec shift_attrs[] = {
    {"precision", CA_INT, NULL, 1, 32, 0, 0, NULL},
    {"shift_bit", CA_INT, NULL, 1, 32, 0, 0, NULL},
    {"is_sign", CA_BOOL, "true", 0, 0, 0, 0, NULL},
};

static Status want_signed(CvmCtx *c)
{
    if (!og_attr_bool(c->n, "is_sign", true))
        return cvm_fail_attr(c, "is_sign", "= false is not supported: the formalization defines "
                             "only the signed range");
    return ST_OK;
}

Status cvm_parse_cvm_clip(CvmCtx *c, const CvmRawAttrs *raw)
{
    Status st = cvm_parse_attrs(c, raw, clip_attrs, sizeof clip_attrs / sizeof *clip_attrs);
    return st != ST_OK ? st : want_signed(c);
}

Status cvm_parse_cvm_shift(CvmCtx *c, const CvmRawAttrs *raw)
{
    Status st = cvm_parse_attrs(c, raw, shift_attrs, sizeof shift_attrs / sizeof *shift_attrs);
    return st != ST_OK ? st : want_signed(c);
}

Status cvm_prec_cvm_attr(CvmCtx *c, const OgShape *in, const int32_t *in_prec, int32_t *out_prec)
{
    (void)in, (void)in_prec;
    out_prec[0] = (int32_t)og_attr_int(c->n, "precision", 0);
    return ST_OK;
}

/* cvm-runtime refuses a left shift whose input precision plus shift_bit exceeds 32. */
Status cvm_prec_cvm_left_shift(CvmCtx *c, const OgShape *in, const int32_t *in_prec,
                               int32_t *out_prec)
{
    int64_t s = og_attr_int(c->n, "shift_bit", 1);
    if (in_prec[0] + s > 32)
        return cvm_fail(c, "cvm.precision.input",
                        "input precision %d plus shift_bit %lld exceeds 32 bits", (int)in_prec[0],
                        (long long)s);
    return cvm_prec_cvm_attr(c, in, in_prec, out_prec);
}

Status cvm_run_cvm_clip(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    int64_t a = og_prec_alpha((int32_t)og_attr_int(c->n, "precision", 1));
    for (int64_t i = 0; i < out->count; i++)
        out->data[i] = cvm_i32(c, cvm_clamp64(in[0]->data[i], -a, a));
    return ST_OK;
}

Status cvm_run_cvm_right_shift(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    int64_t a = og_prec_alpha((int32_t)og_attr_int(c->n, "precision", 1));
    int s = (int)og_attr_int(c->n, "shift_bit", 1);
    for (int64_t i = 0; i < out->count; i++) {
        int64_t t = cvm_floor_shr(cvm_floor_shr(in[0]->data[i], s - 1) + 1, 1);
        out->data[i] = cvm_i32(c, cvm_clamp64(t, -a, a));
    }
    return ST_OK;
}

Status cvm_run_cvm_left_shift(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    int64_t a = og_prec_alpha((int32_t)og_attr_int(c->n, "precision", 1));
    int s = (int)og_attr_int(c->n, "shift_bit", 1);
    for (int64_t i = 0; i < out->count; i++) {
        /* |x| < 2^31 and s <= 32: |x| * 2^s < 2^63, exact in int64 */
        int64_t t = in[0]->data[i] * ((int64_t)1 << s);
        out->data[i] = cvm_i32(c, cvm_clamp64(t, -a, a));
    }
    return ST_OK;
}

/* ---- cvm_lut ---- */

static const CvmAttrSpec lut_attrs[] = {
    {"in_dim", CA_INT, NULL, 1, OG_MAX_VOLUME, 0, 0, NULL},
};

Status cvm_parse_cvm_lut(CvmCtx *c, const CvmRawAttrs *raw)
{
    return cvm_parse_attrs(c, raw, lut_attrs, sizeof lut_attrs / sizeof *lut_attrs);
}

/* Input 0 holds the indices, input 1 the table; the output has the indices' shape. in_dim
 * (cvm-runtime's CVMLUTParam, required there) is the table's number of values. */
Status cvm_shape_cvm_lut(CvmCtx *c, const OgShape *in, OgShape *out)
{
    int64_t want = og_attr_int(c->n, "in_dim", 0), have = og_shape_volume(&in[1]);
    if (want != have)
        return cvm_fail_attr(c, "in_dim", "= %lld, the table has %lld values", (long long)want,
                             (long long)have);
    out[0] = in[0];
    return ST_OK;
}

Status cvm_prec_cvm_lut(CvmCtx *c, const OgShape *in, const int32_t *in_prec, int32_t *out_prec)
{
    (void)c, (void)in;
    out_prec[0] = in_prec[1];
    return ST_OK;
}

Status cvm_run_cvm_lut(CvmCtx *c, const OgTensor *const *in, OgTensor *out)
{
    (void)c;
    const OgTensor *idx = in[0], *tab = in[1];
    for (int64_t i = 0; i < out->count; i++)
        out->data[i] = tab->data[cvm_clamp64(idx->data[i], 0, tab->count - 1)];
    return ST_OK;
}
